"""Held-out corpora for the context benchmark: real libraries that no constant of the pruner was
chosen on, two per language in each set, pinned.

`HELDOUT` (`context_bench --corpus heldout`), the set the pruner's changes are checked on:
- Python: the `attrs==24.2.0` and `hypothesis==6.112.0` wheels from PyPI (their `attr/` + `attrs/`
  and `hypothesis/` trees);
- TypeScript: `ajv@8.17.1` (`lib/*.ts`) and `@azure/msal-node@2.16.2` (`src/*.ts`), `npm pack`;
- Go: Debian's `golang-github-spf13-viper-dev` and `golang-github-hashicorp-hcl-dev`;
- Rust: Debian's `librust-clap-dev` and `librust-hashbrown-dev` (under /usr/share/cargo/registry).

`FRESH` (`--corpus fresh`), a second set first measured on 2026-12-07, after the experiments on
`HELDOUT`: code that no experiment looked at before its first run:
- Python: `rich==13.9.4` and `marshmallow==3.23.1` wheels;
- TypeScript: `@tanstack/query-core@5.62.2` and `@trpc/server@10.45.2` (`src/*.ts`);
- Go: Debian's `golang-github-pelletier-go-toml-dev` and `golang-github-sirupsen-logrus-dev`;
- Rust: Debian's `librust-serde-json-dev` and `librust-bytes-dev`.
Downloads go to the typing corpus's cache directory; every tree is read, never written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.typing.corpus import Package, cache_dir, debian_package, npm_package, wheel_package

from .corpora import crate_package

GOCODE = "/usr/share/gocode/src/github.com"


@dataclass(frozen=True)
class HeldOutSet:
    wheels: tuple[tuple[str, str], ...]  # name, version
    npm: tuple[tuple[str, str, str], ...]  # name, version, the .ts directory
    debian_go: tuple[tuple[str, str], ...]  # Debian package, its sources
    debian_rust: tuple[tuple[str, str], ...]  # Debian package, the crate

    def packages(self, language: str, cache: Path | None = None) -> list[Package]:
        cache = cache or cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        if language == "python":
            return [wheel_package(cache, "python", name, version) for name, version in self.wheels]
        if language == "typescript":
            return [npm_package(cache, "typescript", name, version, sub) for name, version, sub in self.npm]
        if language == "go":
            return [debian_package("go", debian, Path(root)) for debian, root in self.debian_go]
        if language == "rust":
            return [crate_package(debian, crate) for debian, crate in self.debian_rust]
        raise ValueError(f"no held-out corpus for {language}")

    def names(self) -> dict[str, list[str]]:
        """language -> the libraries' names"""
        return {"python": [name for name, _ in self.wheels], "typescript": [name for name, _, _ in self.npm],
                "go": [debian for debian, _ in self.debian_go], "rust": [crate for _, crate in self.debian_rust]}


HELDOUT = HeldOutSet(
    wheels=(("attrs", "24.2.0"), ("hypothesis", "6.112.0")),
    npm=(("ajv", "8.17.1", "lib"), ("@azure/msal-node", "2.16.2", "src")),
    debian_go=(("golang-github-spf13-viper-dev", f"{GOCODE}/spf13/viper"),
               ("golang-github-hashicorp-hcl-dev", f"{GOCODE}/hashicorp/hcl")),
    debian_rust=(("librust-clap-dev", "clap"), ("librust-hashbrown-dev", "hashbrown")),
)
FRESH = HeldOutSet(
    wheels=(("rich", "13.9.4"), ("marshmallow", "3.23.1")),
    npm=(("@tanstack/query-core", "5.62.2", "src"), ("@trpc/server", "10.45.2", "src")),
    debian_go=(("golang-github-pelletier-go-toml-dev", f"{GOCODE}/pelletier/go-toml"),
               ("golang-github-sirupsen-logrus-dev", f"{GOCODE}/sirupsen/logrus")),
    debian_rust=(("librust-serde-json-dev", "serde_json"), ("librust-bytes-dev", "bytes")),
)
SETS = {"heldout": HELDOUT, "fresh": FRESH}


def packages(language: str, cache: Path | None = None) -> list[Package]:
    """The `HELDOUT` set's libraries of `language`."""
    return HELDOUT.packages(language, cache)
