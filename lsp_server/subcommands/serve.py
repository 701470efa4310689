"""`arbor-ls serve [--stdio | --tcp HOST:PORT]`: run the language server."""

from __future__ import annotations

import argparse

from ..errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("serve", help="run the language server (stdio by default)",
                              description="Run the language server on stdio (default) or TCP.")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen for one LSP client on HOST:PORT")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..server import create_server

    server = create_server()
    if args.tcp:
        host, sep, port = args.tcp.rpartition(":")
        if not sep or not port.isdigit():
            raise UsageError(f"--tcp expects HOST:PORT, got {args.tcp!r}")
        server.start_tcp(host.strip("[]") or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0
