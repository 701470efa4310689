"""The servers a load test starts: arbor-ls (with the zero-latency model or the user's settings)
and the bare pygls baseline, each as a subprocess speaking LSP over stdio.

Invariants: both get the same environment (the directory holding `benchmarks` is on PYTHONPATH,
so the `python` backend kind can import the zero model), and a server's RSS is read from
/proc/<pid>/status (VmRSS), or None where there is no /proc.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import benchmarks

ZERO_MODEL = "benchmarks.zero_model:ZeroLatencyBackend"
PROJECT_ROOT = Path(benchmarks.__file__).resolve().parent.parent
ARBOR_MAIN = "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"


def zero_model_settings() -> dict[str, Any]:
    """arbor-ls settings (wire form) that route every completion to the zero-latency model."""
    return {"backends": [{"name": "zero", "kind": "python", "model": ZERO_MODEL}]}


@dataclass(slots=True)
class ServerSpec:
    name: str
    argv: list[str]
    settings: Any = None
    description: str = ""
    env: dict[str, str] = field(default_factory=dict)


def bench_env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH", "")
    parts = [str(PROJECT_ROOT)] + ([path] if path else [])
    return {"PYTHONPATH": os.pathsep.join(parts), "PYTHONUNBUFFERED": "1"}


def arbor_spec(settings: Any, description: str, command: str | None = None) -> ServerSpec:
    argv = shlex.split(command) if command else [sys.executable, "-c", ARBOR_MAIN, "serve", "--stdio"]
    return ServerSpec("arbor-ls", argv, settings, description, bench_env())


def bare_spec() -> ServerSpec:
    return ServerSpec(
        "bare-pygls", [sys.executable, "-m", "benchmarks.bare_server"], None,
        "stock pygls, constant inlineCompletion answer", bench_env(),
    )


def rss_mb(pid: int) -> float | None:
    """Resident set size of process `pid` in MiB, None if it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds process `pid` has used so far, None if it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def machine_info() -> dict[str, Any]:
    import platform

    import pygls

    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "pygls": getattr(pygls, "__version__", None) or _dist_version("pygls"),
        "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            info["memory_gib"] = round(int(meminfo.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return info


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None
