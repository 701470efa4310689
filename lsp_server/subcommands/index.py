"""`arbor-ls index DIR [--json]`: scan DIR with the workspace indexer and print what it found.

Prints files, symbols, bytes, seconds, languages (files per language) and skipped files with their
reasons; exits 0. The `index.*` settings (from `--config`) choose the files; the warm-start
snapshot is used unless `--no-snapshot` (or `index.snapshot: false`).
"""

from __future__ import annotations

import argparse
import json
import os

from indexer import WorkspaceIndex

from ..errors import UsageError
from ..features.indexing import scan_options
from ..privacy import Privacy
from .target import load_cli_settings


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("index", help="index a directory and print a summary",
                              description="Scan DIR like the server does at start-up and print files, "
                                          "symbols, bytes, seconds, files per language and skipped files.")
    p.add_argument("directory", metavar="DIR", help="the workspace folder to index")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--config", metavar="FILE", help="settings file (JSON or TOML) for index.* settings")
    p.add_argument("--no-snapshot", action="store_true", help="do not read or write the warm-start snapshot")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not os.path.isdir(args.directory):
        raise UsageError(f"not a directory: {args.directory}")
    settings = load_cli_settings(args.config)
    index = WorkspaceIndex(scan_options(settings.index), snapshot=settings.index.snapshot and not args.no_snapshot)
    index.source_guard = Privacy(settings.privacy, roots=lambda: [args.directory])  # as the server reads files
    try:
        report = index.scan([args.directory]).to_json()
    finally:
        index.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"files: {report['files']}  symbols: {report['symbols']}  bytes: {report['bytes']}  "
          f"seconds: {report['seconds']:.3f}  (parsed {report['parsed']}, from snapshot {report['from_snapshot']})")
    for language, count in report["languages"].items():
        print(f"  {language}: {count}")
    skipped = report["skipped"]
    if skipped["count"]:
        reasons = ", ".join(f"{reason} {n}" for reason, n in skipped["by_reason"].items())
        print(f"skipped: {skipped['count']} ({reasons})")
        for entry in skipped["files"]:
            print(f"  {entry['reason']}: {entry['path']}")
    return 0
