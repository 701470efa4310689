"""A real llama-server for the integration tests: the default model's Q4_K_M GGUF on a loopback
port, one slot, a `N_CTX`-token context, 2 threads, started once per test module. Tests that use
it skip only when the binary is absent (scripts/setup-test.sh builds it and assembles the GGUF)."""

from __future__ import annotations

import pytest

from benchmarks.typing.llama_server import LlamaServer, binary, ensure_gguf

N_CTX = 2048


class TestServer(LlamaServer):
    __test__ = False

    def argv(self) -> list[str]:
        return [str(self.binary_path), "-m", str(self.model), "--host", "127.0.0.1", "--port", str(self.port),
                "-t", str(self.threads), "-c", str(N_CTX), "-np", "1", "-b", "512", "-ub", "512",
                "--cache-reuse", "256", "--no-warmup"]


@pytest.fixture(scope="module")
def server():
    path = binary()
    if path is None:
        pytest.skip("llama-server is not built: run scripts/build-llama-server.sh (scripts/setup-test.sh does)")
    running = TestServer(path, ensure_gguf(), threads=2)
    running.start(timeout_s=120)
    try:
        yield running
    finally:
        running.stop()
