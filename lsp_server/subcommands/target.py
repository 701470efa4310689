"""What `complete` and `context` share: parsing FILE:LINE:COL, loading settings, building the
same pipeline the server runs. Every failure is a one-line `UsageError`."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from indexer import WorkspaceIndex

from ..config import Settings, load_settings, read_config_file
from ..errors import UsageError
from ..features.indexing import scan_options
from ..pipeline import CompletionPipeline, language_id_for
from ..privacy import Privacy, RedactingListener


@dataclass(slots=True)
class Target:
    path: Path
    text: str
    offset: int
    line: int  # 1-based, as given
    column: int  # 1-based, in characters (code points)
    workspace: Path


def add_target_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="FILE:LINE:COL", help="file and 1-based line and column (characters)")
    p.add_argument("--workspace", metavar="DIR", help="workspace root (default: the file's directory)")
    p.add_argument("--config", metavar="FILE", help="settings file (JSON or TOML, same shape as the LSP settings)")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of text")


def parse_target(spec: str, workspace: str | None) -> Target:
    parts = spec.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        raise UsageError(f"expected FILE:LINE:COL with numbers for LINE and COL, got {spec!r}")
    path = Path(parts[0]).expanduser().resolve()
    line, column = int(parts[1]), int(parts[2])
    if not path.is_file():
        raise UsageError(f"no such file: {parts[0]}")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {parts[0]}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{parts[0]} is not UTF-8 text") from None
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        raise UsageError(f"line {line} is out of range: {parts[0]} has {len(lines)} lines")
    line_text = lines[line - 1].rstrip("\r")
    if not 1 <= column <= len(line_text) + 1:
        raise UsageError(f"column {column} is out of range: line {line} has {len(line_text)} characters")
    offset = sum(len(x) + 1 for x in lines[: line - 1]) + column - 1
    root = Path(workspace).expanduser().resolve() if workspace else path.parent
    if not root.is_dir():
        raise UsageError(f"workspace is not a readable directory: {workspace}")
    try:
        next(root.iterdir(), None)
    except OSError as exc:
        raise UsageError(f"workspace is not readable: {workspace}: {exc.strerror or exc}") from None
    return Target(path, text, offset, line, column, root)


def load_cli_settings(config: str | None) -> Settings:
    data = read_config_file(config) if config else None
    settings, problems = load_settings(data)
    for problem in problems:
        print(f"arbor-ls: warning: setting {problem}", file=sys.stderr)
    return settings


def build_index(settings: Settings, roots: list[str], *, snapshot: bool = True) -> WorkspaceIndex:
    """A workspace index scanned like the server's (index.* settings, warm-start snapshot)."""
    options = scan_options(settings.index)
    index = WorkspaceIndex(options, snapshot=settings.index.snapshot and snapshot)
    index.source_guard = Privacy(settings.privacy, roots=lambda: roots)  # as the server reads files
    if settings.index.enabled:
        index.scan(roots)
    return index


def make_pipeline(settings: Settings, target: Target) -> CompletionPipeline:
    """The server's pipeline for one file: the workspace indexed, the file open as in an editor."""
    index = build_index(settings, [str(target.workspace)])
    privacy = index.source_guard
    RedactingListener(index, privacy).did_open(str(target.path), target.text, language_id_for(str(target.path)))
    return CompletionPipeline(settings, str(target.workspace), index=index, privacy=privacy)
