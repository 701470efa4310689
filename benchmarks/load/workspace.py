"""The workspace a load test types in.

Without `--workspace` the harness builds one in a temporary directory from real code that every
arbor-ls install already has: the source of the `httpx` package (its `_client.py` is a ~2,000-line
file, the size the published figures were measured on) plus the generated three-file reference
chain. With `--workspace DIR` it types in DIR's own largest source files and looks for a real
import chain there; it never writes into DIR.

Invariant: `typing_files[0]` is the single-file scenario's file; the multi-document scenario uses
the first `documents` entries. All paths are absolute and lie under `root`.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from indexer import languages

from .chain import ReferenceChain, files_with_suffix, find_python_chain, write_generated_chain

MAX_TYPING_FILE_LINES = 6000
DEFAULT_CORPUS = ("httpx/_client.py", "httpx/_models.py", "httpx/_urls.py", "httpx/_config.py", "httpx/_api.py")


@dataclass(slots=True)
class BenchWorkspace:
    root: Path
    typing_files: list[Path]
    chain: ReferenceChain | None
    description: str
    temporary: bool = False
    notes: list[str] = field(default_factory=list)

    def cleanup(self) -> None:
        if self.temporary:
            shutil.rmtree(self.root, ignore_errors=True)


def language_id(path: Path) -> str:
    """The LSP languageId an editor gives `path` (the index's registry), else "plaintext"."""
    return languages.lsp_language_id(str(path)) or "plaintext"


def read_text(path: Path) -> str:
    """File text with "\\n" line endings (the traces assume them)."""
    return path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def default_workspace() -> BenchWorkspace:
    import httpx

    source = Path(httpx.__file__).parent
    root = Path(tempfile.mkdtemp(prefix="arbor-bench-"))
    target = root / "httpx"
    target.mkdir()
    for path in sorted(source.glob("*.py")):
        shutil.copyfile(path, target / path.name)
    chain = write_generated_chain(root)
    typing_files = [root / rel for rel in DEFAULT_CORPUS if (root / rel).exists()]
    lines = len(read_text(typing_files[0]).splitlines())
    description = f"httpx {httpx.__version__} sources ({typing_files[0].name}: {lines} lines) + generated chain/"
    return BenchWorkspace(root, typing_files, chain, description, temporary=True)


def source_files(root: Path, limit: int = 5000) -> list[Path]:
    return files_with_suffix(root, set(languages.EXTENSIONS), limit)


def user_workspace(root: Path, documents: int = 4) -> BenchWorkspace:
    root = root.resolve()
    if not root.is_dir():
        raise ValueError(f"workspace {root} is not a directory")
    sized: list[tuple[int, Path]] = []
    for path in source_files(root):
        try:
            lines = read_text(path).count("\n")
        except OSError:
            continue
        if 20 <= lines <= MAX_TYPING_FILE_LINES:
            sized.append((lines, path))
    if not sized:
        raise ValueError(f"workspace {root} has no source file of 20 to {MAX_TYPING_FILE_LINES} lines to type in")
    sized.sort(key=lambda item: (-item[0], str(item[1])))
    typing_files = [path for _, path in sized[: max(documents, 1)]]
    chain = find_python_chain(root)
    notes = [] if chain else ["no three-file Python import chain found: the reference_chain scenario is skipped"]
    description = f"{root} ({typing_files[0].relative_to(root)}: {sized[0][0]} lines)"
    return BenchWorkspace(root, typing_files, chain, description, notes=notes)
