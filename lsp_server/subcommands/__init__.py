"""One module per `arbor-ls` subcommand, each with `register(subparsers)` and `run(args) -> int`."""
