"""The context benchmark's dev corpora: two real libraries per language, pinned.

Python, TypeScript and Go are the next-line benchmark's libraries (benchmarks/nextline/corpus.py:
click and httpx; rxjs and @azure/msal-common; spf13's pflag and cobra); Rust adds two crates from
Debian's `librust-*-dev` packages (itertools and regex-syntax, sources under
/usr/share/cargo/registry, installed with apt when missing). Each library is its own workspace.
Source files exclude tests, declaration files, generated tables and build directories.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.nextline import corpus as nextline_corpus
from benchmarks.typing.corpus import Package, debian_version, source_files

LANGUAGES = ("python", "typescript", "go", "rust")
CARGO_REGISTRY = Path("/usr/share/cargo/registry")
RUST_CRATES = (("librust-itertools-dev", "itertools"), ("librust-regex-syntax-dev", "regex-syntax"))
GENERATED = ("unicode_tables",)  # regex-syntax's generated Unicode tables: data, not code


def packages(language: str) -> list[Package]:
    if language == "rust":
        return [crate_package(debian, crate) for debian, crate in RUST_CRATES]
    return nextline_corpus.packages(language)


def files_of(package: Package) -> list[Path]:
    if package.language != "rust":
        return source_files(package)
    return [p for p in sorted(package.root.rglob("*.rs"))
            if not any(part in GENERATED or part.startswith("test") for part in p.relative_to(package.root).parts)]


def name_of(package: Package) -> str:
    return nextline_corpus.name_of(package)


def crate_package(debian: str, crate: str) -> Package:
    """A crate's sources from Debian's `librust-*-dev` package (installed with apt when missing)."""
    roots = sorted(CARGO_REGISTRY.glob(f"{crate}-[0-9]*/src"))
    if not roots:
        done = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", debian],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"apt-get install {debian} failed: {done.stderr.strip()[-300:]}")
        roots = sorted(CARGO_REGISTRY.glob(f"{crate}-[0-9]*/src"))
    if not roots:
        raise RuntimeError(f"{debian} is installed but {CARGO_REGISTRY}/{crate}-*/src is missing")
    return Package("rust", f"debian:{debian}={debian_version(debian)}", roots[-1])
