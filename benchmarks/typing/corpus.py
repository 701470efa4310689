"""The real code the typing benchmark re-types: pinned packages, fetched once into a cache.

One source tree per language, each the workspace the server indexes:
- Python: the `click==8.1.7` wheel from PyPI (pure Python), unpacked;
- TypeScript: `rxjs@7.8.1` from npm (`npm pack`), whose tarball ships its `.ts` sources in `src/`;
- Go: the Debian package `golang-github-spf13-pflag-dev` (apt), sources under /usr/share/gocode.
Fetching is idempotent: a tree already unpacked under the cache (`$ARBOR_BENCH_CACHE`, default
~/.cache/arbor-ls/typing-corpus) is used as is, and nothing is written into a source tree.
Function choice is deterministic for a given tree: candidates in path then line order, a RNG
seeded per language picks `count` of them.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .functions import Function, find_functions, suitable

LANGUAGES = ("python", "typescript", "go")
LANGUAGE_IDS = {"python": "python", "typescript": "typescript", "go": "go"}
SUFFIXES = {"python": ".py", "typescript": ".ts", "go": ".go"}


@dataclass(frozen=True, slots=True)
class Package:
    language: str
    source: str  # what was fetched, pinned
    root: Path  # the workspace: the package's source tree


@dataclass(frozen=True, slots=True)
class Chosen:
    package: Package
    path: Path  # absolute
    lines: tuple[str, ...]
    function: Function

    @property
    def relative(self) -> str:
        return str(self.path.relative_to(self.package.root))


def cache_dir() -> Path:
    override = os.environ.get("ARBOR_BENCH_CACHE", "").strip()
    return Path(override).expanduser() if override else Path.home() / ".cache" / "arbor-ls" / "typing-corpus"


def _run(command: list[str], cwd: Path | None = None, timeout: float = 600) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {(done.stderr or done.stdout).strip()[-400:]}")


def wheel_package(cache: Path, language: str, name: str, version: str) -> Package:
    """PyPI's `name==version` wheel, unpacked once under `cache`."""
    root = cache / f"{name}-{version}"
    if not root.is_dir():
        download = cache / "download"
        download.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
              "--disable-pip-version-check", "-d", str(download), f"{name}=={version}"])
        wheel = next(download.glob(f"{name}-{version}-*.whl"))
        staging = cache / f"{name}-{version}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(staging)
        staging.rename(root)
    return Package(language, f"pypi:{name}=={version} (wheel)", root)


def npm_package(cache: Path, language: str, name: str, version: str, sub: str) -> Package:
    """npm's `name@version` tarball (`npm pack`), unpacked once under `cache`; the workspace is
    its `sub` directory."""
    flat = name.replace("@", "").replace("/", "-")  # the tarball's name: @scope/name -> scope-name
    unpacked = cache / f"{flat}-{version}"
    if not (unpacked / "package" / sub).is_dir():
        download = cache / "download"
        download.mkdir(parents=True, exist_ok=True)
        tarball = download / f"{flat}-{version}.tgz"
        if not tarball.is_file():
            _run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=download)
        staging = cache / f"{flat}-{version}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        with tarfile.open(tarball) as archive:
            archive.extractall(staging, filter="data")
        staging.rename(unpacked)
    return Package(language, f"npm:{name}@{version} ({sub}/*.ts)", unpacked / "package" / sub)


def debian_package(language: str, debian: str, root: Path) -> Package:
    """Debian's package `debian`, installed with apt unless `root` (its sources) exists."""
    if not root.is_dir():
        _run(["apt-get", "install", "-y", "-q", "--no-install-recommends", debian], timeout=900)
    return Package(language, f"debian:{debian}={debian_version(debian)}", root)


def debian_version(debian: str) -> str:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", debian], capture_output=True, text=True)
    return done.stdout.strip() or "?"


def fetch_python(cache: Path) -> Package:
    return wheel_package(cache, "python", "click", "8.1.7")


def fetch_typescript(cache: Path) -> Package:
    return npm_package(cache, "typescript", "rxjs", "7.8.1", "src")


GO_PACKAGE = "golang-github-spf13-pflag-dev"
GO_ROOT = Path("/usr/share/gocode/src/github.com/spf13/pflag")


def fetch_go(cache: Path) -> Package:
    return debian_package("go", GO_PACKAGE, GO_ROOT)


FETCHERS = {"python": fetch_python, "typescript": fetch_typescript, "go": fetch_go}


def fetch(language: str, cache: Path | None = None) -> Package:
    cache = cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    return FETCHERS[language](cache)


def source_files(package: Package) -> list[Path]:
    suffix = SUFFIXES[package.language]
    files = []
    for path in sorted(package.root.rglob(f"*{suffix}")):
        name = path.name
        if name.endswith(".d.ts") or name.endswith("_test.go") or "/test" in str(path.relative_to(package.root)):
            continue
        files.append(path)
    return files


def choose(package: Package, count: int, *, seed: int = 15) -> list[Chosen]:
    """`count` suitable functions from distinct files of `package`, deterministically."""
    candidates: list[Chosen] = []
    for path in source_files(package):
        lines = tuple(path.read_text(encoding="utf-8", errors="replace").split("\n"))
        if len(lines) > 4000:
            continue
        for function in find_functions("\n".join(lines), package.language):
            if suitable(function, list(lines)):
                candidates.append(Chosen(package, path, lines, function))
    rng = random.Random(f"{seed}:{package.language}")
    rng.shuffle(candidates)
    picked: list[Chosen] = []
    seen: set[Path] = set()
    for candidate in candidates:
        if candidate.path not in seen:
            picked.append(candidate)
            seen.add(candidate.path)
        if len(picked) == count:
            break
    return picked
