"""The real libraries the next-line benchmark masks lines of: two per language, pinned.

- Python: `click==8.1.7` (the typing corpus's wheel) and the `httpx` package installed in this
  project's virtual environment (a pure-Python wheel from PyPI);
- TypeScript: `rxjs@7.8.1` and `@azure/msal-common@16.17.0` (`npm pack`, their `src/` of `.ts`
  files; msal-common ships its TypeScript sources), in the typing corpus's cache directory, where
  no `npm ci` of the project removes them during a run;
- Go: Debian's `golang-github-spf13-pflag-dev` and `golang-github-spf13-cobra-dev` (apt), sources
  under /usr/share/gocode.
Every tree is read, never written. Source files exclude tests, declaration files and generated
directories, in the typing corpus's rules (`benchmarks.typing.corpus.source_files`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.typing import corpus as typing_corpus
from benchmarks.typing.corpus import Package, cache_dir, npm_package, source_files

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / ".venv" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
MSAL_VERSION = "16.17.0"
COBRA_PACKAGE = "golang-github-spf13-cobra-dev"
COBRA_ROOT = Path("/usr/share/gocode/src/github.com/spf13/cobra")

LANGUAGES = typing_corpus.LANGUAGES


def _httpx() -> Package:
    root = SITE / "httpx"
    if not (root / "_client.py").is_file():
        raise RuntimeError(f"httpx is not installed in {SITE} (pip install httpx into .venv)")
    import importlib.metadata

    return Package("python", f"pypi:httpx=={importlib.metadata.version('httpx')} (.venv)", root)


def _msal() -> Package:
    return npm_package(cache_dir(), "typescript", "@azure/msal-common", MSAL_VERSION, "src")


def _cobra() -> Package:
    return typing_corpus.debian_package("go", COBRA_PACKAGE, COBRA_ROOT)


EXTRA = {"python": _httpx, "typescript": _msal, "go": _cobra}


def packages(language: str, cache: Path | None = None) -> list[Package]:
    """The language's packages, in a fixed order: the typing corpus's one, then the extra one."""
    return [typing_corpus.fetch(language, cache or cache_dir()), EXTRA[language]()]


def files_of(package: Package) -> list[Path]:
    return source_files(package)


def name_of(package: Package) -> str:
    """A short stable name: the source spec without its pin's annotation."""
    return package.source.split(" ", 1)[0]
