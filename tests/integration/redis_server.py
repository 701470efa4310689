"""Start and stop a throwaway `redis-server` (Debian's package) on a free loopback port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

REDIS_BINARY = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """One redis-server process: no persistence, loopback only, its files in `directory`."""

    def __init__(self, directory: Path, port: int | None = None):
        self.directory = directory
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 10.0) -> None:
        assert REDIS_BINARY, "redis-server is not installed"
        self.process = subprocess.Popen(
            [REDIS_BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer PING in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
