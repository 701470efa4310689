"""The `arbor-ls` command. With no subcommand it serves LSP, on stdio unless a transport flag says
otherwise: `arbor-ls`, `arbor-ls --stdio`, `arbor-ls --tcp HOST:PORT` and `arbor-ls --port N` are
what editors run, and each means the same as `arbor-ls serve` with that flag.

Each subcommand is a module with `register(subparsers)` and `run(args) -> int`: the built-in ones
in `lsp_server/subcommands/`, others (`bench`, from the benchmarks package) found through the
`arbor_ls.subcommands` entry point group, so that lsp_server imports no package that imports it. Bad input gives one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import entry_points

from . import __version__, log_config
from .errors import UsageError
from .subcommands import serve

SUBCOMMANDS = ("serve", "complete", "context", "model", "index")
PLUGIN_GROUP = "arbor_ls.subcommands"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arbor-ls",
        description="AI code completion language server. Without a subcommand, serves LSP "
                    "(on stdio unless --tcp or --port is given).",
    )
    parser.add_argument("--version", action="version", version=f"arbor-ls {__version__}")
    parser.add_argument("--log-level", default=None, choices=["debug", "info", "warning", "error"],
                        help="log level for stderr (default: the logLevel setting, else warning)")
    serve.add_transport_arguments(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"lsp_server.subcommands.{name}").register(subparsers)
    for plugin in sorted(entry_points(group=PLUGIN_GROUP), key=lambda ep: ep.name):
        if plugin.name not in SUBCOMMANDS:
            plugin.load().register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    log_config.configure(args.log_level)
    try:
        if args.command is None:
            args.func = serve.run
        elif args.command != "serve" and serve.given_transport_flags(args):
            flags = ", ".join(serve.given_transport_flags(args))
            raise UsageError(f"{flags} applies to serving, not to `arbor-ls {args.command}`")
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"arbor-ls: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
