"""`arbor-ls model list|pull|path`: the known models, fetching one into the cache, where one lives."""

from __future__ import annotations

import argparse
import json
import sys
import time

from inference import model_store
from inference.api import BackendConfigError

from ..errors import UsageError
from .progress_bar import ProgressBar, format_bytes


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("model", help="list, pull and locate models for the embedded backend")
    actions = parser.add_subparsers(dest="model_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="known models: size, family, FIM support, sources, installed")
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    pull = actions.add_parser("pull", help="download, verify and convert a model into the user cache")
    pull.add_argument("name", nargs="?", default=model_store.DEFAULT_MODEL,
                      help=f"model name (default: {model_store.DEFAULT_MODEL})")
    pull.add_argument("--dtype", default="auto", choices=("auto", "float32", "float16", "bfloat16"),
                      help="weights dtype on disk; auto = float16 with CUDA, else float32")
    pull.add_argument("--force", action="store_true", help="fetch and convert again even if installed")
    path = actions.add_parser("path", help="print the directory the embedded backend loads for a model")
    path.add_argument("name", nargs="?", default="", help="model name or path (default: the default model)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.model_action == "list":
        return _list(args.json)
    if args.model_action == "pull":
        return _pull(args.name, args.dtype, args.force)
    try:
        print(model_store.resolve_model(args.name))
    except BackendConfigError as exc:
        raise UsageError(str(exc)) from None
    return 0


def model_rows() -> list[dict]:
    """One dict per known model, installed state included (the `--json` output)."""
    rows = []
    for model in model_store.KNOWN_MODELS:
        manifest = model_store.read_manifest(model.name)
        rows.append({
            "name": model.name,
            "default": model.name == model_store.DEFAULT_MODEL,
            "family": model.family,
            "params": model.params,
            "fim": model.fim,
            "download_bytes": model.download_size,
            "sources": [s.describe() for s in model.sources],
            "installed": manifest is not None,
            "installed_bytes": model_store.installed_size(model.name) if manifest else 0,
            "installed_dtype": (manifest or {}).get("dtype", ""),
            "installed_from": (manifest or {}).get("source", ""),
            "path": str(model_store.model_dir(model.name)),
        })
    return rows


def _list(as_json: bool) -> int:
    rows = model_rows()
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    table = [("NAME", "FAMILY", "PARAMS", "FIM", "DOWNLOAD", "INSTALLED", "SOURCES (tried in order)")]
    for row in rows:
        installed = (f"{format_bytes(row['installed_bytes'])} {row['installed_dtype']}" if row["installed"] else "-")
        download = format_bytes(row["download_bytes"]) if row["download_bytes"] else "?"
        name = row["name"] + (" (default)" if row["default"] else "")
        table.append((name, row["family"], row["params"], "yes" if row["fim"] else "no", download, installed,
                      ", ".join(row["sources"])))
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]) - 1)]
    for row in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1])
    print(f"\nmodels directory: {model_store.models_dir()}")
    return 0


def _pull(name: str, dtype: str, force: bool) -> int:
    known = model_store.find_known(name)
    if known is None:
        names = ", ".join(m.name for m in model_store.KNOWN_MODELS)
        raise UsageError(f"unknown model {name!r}; known models: {names}")
    if not force and model_store.read_manifest(known.name) is not None:
        print(f"{known.name} is already installed at {model_store.model_dir(known.name)} (--force converts again)")
        return 0
    bar = ProgressBar()
    started = time.monotonic()
    try:
        path = model_store.pull(known.name, bar, dtype=dtype, force=force, log=bar.message)
    except model_store.ModelPullError as exc:
        bar.message(f"error: {exc}")
        return 1
    manifest = model_store.read_manifest(known.name) or {}
    print(f"installed {known.name} ({manifest.get('dtype')}, {manifest.get('parameters', 0):,} parameters, "
          f"{format_bytes(model_store.installed_size(known.name))}) from {manifest.get('source')} "
          f"in {time.monotonic() - started:.1f} s at {path}", file=sys.stdout)
    return 0
