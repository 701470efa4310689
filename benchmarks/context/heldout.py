"""Held-out corpora for the context benchmark: two real libraries per language that no constant of
the pruner was chosen on (`context_bench --corpus heldout`), pinned.

- Python: the `attrs==24.2.0` and `hypothesis==6.112.0` wheels from PyPI (their `attr/` + `attrs/`
  and `hypothesis/` trees);
- TypeScript: `ajv@8.17.1` (`lib/*.ts`) and `@azure/msal-node@2.16.2` (`src/*.ts`), `npm pack`;
- Go: Debian's `golang-github-spf13-viper-dev` and `golang-github-hashicorp-hcl-dev`;
- Rust: Debian's `librust-clap-dev` and `librust-hashbrown-dev` (under /usr/share/cargo/registry).
Downloads go to the typing corpus's cache directory; every tree is read, never written.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from benchmarks.typing.corpus import Package, _run, cache_dir

from .corpora import crate_package

WHEELS = {"python": (("attrs", "24.2.0"), ("hypothesis", "6.112.0"))}
NPM = {"typescript": (("ajv", "8.17.1", "lib"), ("@azure/msal-node", "2.16.2", "src"))}
DEBIAN_GO = (("golang-github-spf13-viper-dev", "/usr/share/gocode/src/github.com/spf13/viper"),
             ("golang-github-hashicorp-hcl-dev", "/usr/share/gocode/src/github.com/hashicorp/hcl"))
DEBIAN_RUST = (("librust-clap-dev", "clap"), ("librust-hashbrown-dev", "hashbrown"))


def packages(language: str, cache: Path | None = None) -> list[Package]:
    cache = cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    if language == "python":
        return [_wheel(cache, name, version) for name, version in WHEELS["python"]]
    if language == "typescript":
        return [_npm(cache, name, version, sub) for name, version, sub in NPM["typescript"]]
    if language == "go":
        return [_debian("go", debian, Path(root)) for debian, root in DEBIAN_GO]
    if language == "rust":
        return [crate_package(debian, crate) for debian, crate in DEBIAN_RUST]
    raise ValueError(f"no held-out corpus for {language}")


def _wheel(cache: Path, name: str, version: str) -> Package:
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
        for metadata in staging.glob("*.dist-info"):
            shutil.rmtree(metadata)
        staging.rename(root)
    return Package("python", f"pypi:{name}=={version} (wheel)", root)


def _npm(cache: Path, name: str, version: str, sub: str) -> Package:
    flat = name.replace("@", "").replace("/", "-")
    root = cache / f"{flat}-{version}" / "package" / sub
    if not root.is_dir():
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
        staging.rename(cache / f"{flat}-{version}")
    return Package("typescript", f"npm:{name}@{version} ({sub}/*.ts)", root)


def _debian(language: str, debian: str, root: Path) -> Package:
    if not root.is_dir():
        _run(["apt-get", "install", "-y", "-q", "--no-install-recommends", debian], timeout=900)
    return Package(language, f"debian:{debian}={_version(debian)}", root)


def _version(debian: str) -> str:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", debian], capture_output=True, text=True)
    return done.stdout.strip() or "?"
