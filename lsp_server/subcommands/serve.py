"""`arbor-ls serve [--stdio | --tcp HOST:PORT | --port N [--host HOST]]`: run the language server.

The same transport flags are accepted at the top level (`arbor-ls --stdio`), because that is how
editors start language servers: vscode-languageclient's `TransportKind.stdio` appends `--stdio`,
and Helix, eglot, Sublime LSP and Zed configurations commonly do the same. `--tcp` also works as a
bare flag with `--host`/`--port` (the pygls / pylsp convention). With no flag the server uses stdio.

Every flag is registered with `default=SUPPRESS`, so a flag given before `serve` is not overwritten
by the subcommand's defaults; `transport(args)` reads whichever was given.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass

from ..errors import UsageError

DEFAULT_HOST = "127.0.0.1"
RELEASE_WAIT_S = 2.0
TRANSPORT_FLAGS = ("stdio", "tcp", "host", "port")


@dataclass(frozen=True, slots=True)
class Transport:
    kind: str  # "stdio" or "tcp"
    host: str = DEFAULT_HOST
    port: int = 0


def add_transport_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("transport (default: stdio)")
    group.add_argument("--stdio", action="store_true", default=argparse.SUPPRESS,
                       help="talk LSP over stdin/stdout (the default)")
    group.add_argument("--tcp", metavar="HOST:PORT", nargs="?", const="", default=argparse.SUPPRESS,
                       help="listen for one LSP client on HOST:PORT (or bare, with --host/--port)")
    group.add_argument("--port", metavar="N", default=argparse.SUPPRESS,
                       help=f"listen for one LSP client on TCP port N (host: --host, default {DEFAULT_HOST})")
    group.add_argument("--host", metavar="HOST", default=argparse.SUPPRESS,
                       help=f"the address --port or a bare --tcp listens on (default {DEFAULT_HOST})")


def given_transport_flags(args: argparse.Namespace) -> list[str]:
    return [f"--{name}" for name in TRANSPORT_FLAGS if hasattr(args, name)]


def _port(text: str, flag: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise UsageError(f"{flag} expects a port number from 1 to 65535, got {text!r}")
    return int(text)


def transport(args: argparse.Namespace) -> Transport:
    """The transport the flags ask for. Contradictory or malformed flags raise UsageError."""
    stdio, tcp = getattr(args, "stdio", False), getattr(args, "tcp", None)
    host, port = getattr(args, "host", None), getattr(args, "port", None)
    if stdio and (tcp is not None or port is not None or host is not None):
        raise UsageError("--stdio cannot be combined with --tcp, --port or --host")
    if tcp:  # --tcp HOST:PORT
        if port is not None or host is not None:
            raise UsageError("give either --tcp HOST:PORT or --host/--port, not both")
        h, sep, p = tcp.rpartition(":")
        if not sep:
            raise UsageError(f"--tcp expects HOST:PORT, got {tcp!r}")
        return Transport("tcp", h.strip("[]") or DEFAULT_HOST, _port(p, "--tcp"))
    if port is not None:
        return Transport("tcp", host or DEFAULT_HOST, _port(port, "--port"))
    if tcp is not None:
        raise UsageError("--tcp needs HOST:PORT or --port N")
    if host is not None:
        raise UsageError("--host needs --port N")
    return Transport("stdio")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("serve", help="run the language server (stdio by default)",
                              description="Run the language server on stdio (default) or TCP.")
    add_transport_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    chosen = transport(args)  # before create_server: a bad flag costs nothing
    _use_c_allocator()
    from ..server import create_server

    server = create_server()
    _exit_with_client(server)
    if os.name == "posix":  # the selector loop is the default there
        asyncio.set_event_loop_policy(_PromptExitPolicy())
    try:
        if chosen.kind == "tcp":
            server.start_tcp(chosen.host, chosen.port)
        else:
            server.start_io()
    finally:
        _end_process(server)
    return 0


def _use_c_allocator(env=os.environ, execve=os.execve) -> None:
    """On Linux, serve with every allocation in glibc's allocator (`PYTHONMALLOC=malloc`), so the
    memory of closed documents goes back to the system (`lsp_server.heap`): the process re-executes
    itself, same pid, same file descriptors, before it has read anything. A `PYTHONMALLOC` already
    in the environment (`pymalloc` to keep Python's own allocator) is left as it is."""
    if not sys.platform.startswith("linux") or "PYTHONMALLOC" in env:
        return
    execve(sys.executable, sys.orig_argv, {**env, "PYTHONMALLOC": "malloc"})


class _PromptExitLoop(asyncio.SelectorEventLoop):
    async def shutdown_default_executor(self) -> None:
        """The loop's worker threads (a model loading, a backend being created) are not waited for
        when the connection ends: `_end_process` ends the process right after."""
        executor, self._default_executor = self._default_executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


class _PromptExitPolicy(asyncio.DefaultEventLoopPolicy):
    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return _PromptExitLoop()


def _exit_with_client(server, poll_s: float = 0.5) -> None:
    """LSP's `initialize` names the client's process: once it is known, the server ends when that
    process ends (an editor that crashed without closing the pipe), as `indexer.lifeline` does."""
    from indexer import lifeline

    def wait_for_initialize() -> None:
        while getattr(server, "process_id", None) is None:
            time.sleep(poll_s)
        if server.process_id != os.getpid() and server.process_id > 0:
            lifeline.watch(server.process_id)

    threading.Thread(target=wait_for_initialize, name="arbor-client-watch", daemon=True).start()


def _end_process(server) -> None:
    """The connection ended (exit, stdin closed, client gone): release what holds state and end
    the process now. Threads still at work (a workspace scan) are not waited for, and the scan's
    worker processes exit with this one (`indexer.lifeline`). Releasing gets `RELEASE_WAIT_S`: a
    release that waits on a lock held by a scan does not keep the process alive."""

    def release_all() -> None:
        for release in (getattr(server.cache, "close", None), getattr(getattr(server, "indexing", None), "close", None)):
            try:
                if release is not None:
                    release()
            except Exception:  # ending anyway: nothing here may keep the process alive
                pass

    releasing = threading.Thread(target=release_all, name="arbor-release", daemon=True)
    releasing.start()
    releasing.join(RELEASE_WAIT_S)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)
