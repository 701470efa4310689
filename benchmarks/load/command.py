"""`arbor-ls bench`: the LSP latency load test (benchmarks/load), for users' CI and our figures.

A plugin subcommand: pyproject.toml registers this module under the `arbor_ls.subcommands` entry
point group, and `lsp_server.cli` loads it from there, so lsp_server never imports benchmarks.

It starts arbor-ls as a subprocess on stdio, replays typing traces over LSP, measures client-side
latency per scenario against arbor-ls and a bare pygls server, and exits 1 when a threshold given
on the command line (--max-p95-ms, --max-errors) is exceeded or the server crashed.
"""

from __future__ import annotations

import argparse

from benchmarks.load.main import add_arguments
from benchmarks.load.main import run as run_bench
from lsp_server.errors import UsageError

DESCRIPTION = ("Load-test arbor-ls over LSP: type real files character by character, change definitions used "
               "by other files, type in several documents and with several concurrent typists; measure "
               "keystroke-to-completion latency and messages/s against arbor-ls and a bare pygls server. "
               "Without --config it completes with a zero-latency model, so it measures the server's own "
               "overhead. Prints a JSON report; exits 1 when a threshold is exceeded or the server crashed.")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="LSP latency load test (exit 1 when a threshold is exceeded)",
                              description=DESCRIPTION)
    p.set_defaults(func=run)
    add_arguments(p)


def run(args: argparse.Namespace) -> int:
    try:
        return run_bench(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
