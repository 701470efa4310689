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

from pathlib import Path

from benchmarks.typing.corpus import Package, cache_dir, debian_package, npm_package, wheel_package

from .corpora import crate_package

WHEELS = (("attrs", "24.2.0"), ("hypothesis", "6.112.0"))
NPM = (("ajv", "8.17.1", "lib"), ("@azure/msal-node", "2.16.2", "src"))  # name, version, the .ts directory
DEBIAN_GO = (("golang-github-spf13-viper-dev", "/usr/share/gocode/src/github.com/spf13/viper"),
             ("golang-github-hashicorp-hcl-dev", "/usr/share/gocode/src/github.com/hashicorp/hcl"))
DEBIAN_RUST = (("librust-clap-dev", "clap"), ("librust-hashbrown-dev", "hashbrown"))


def packages(language: str, cache: Path | None = None) -> list[Package]:
    cache = cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    if language == "python":
        return [wheel_package(cache, "python", name, version) for name, version in WHEELS]
    if language == "typescript":
        return [npm_package(cache, "typescript", name, version, sub) for name, version, sub in NPM]
    if language == "go":
        return [debian_package("go", debian, Path(root)) for debian, root in DEBIAN_GO]
    if language == "rust":
        return [crate_package(debian, crate) for debian, crate in DEBIAN_RUST]
    raise ValueError(f"no held-out corpus for {language}")
