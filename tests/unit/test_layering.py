"""Imports point one way (docs: /work/shared ARCHITECTURE, README's architecture section):
lsp_server -> pruning -> indexer, lsp_server -> inference; benchmarks may import all of them;
no package imports a package that imports it back, counting imports made inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("lsp_server", "pruning", "indexer", "inference", "benchmarks")
ALLOWED = {  # package -> the packages it may import
    "lsp_server": {"pruning", "indexer", "inference"},
    "pruning": {"indexer"},
    "indexer": set(),
    "inference": set(),
    "benchmarks": {"lsp_server", "pruning", "indexer", "inference"},
}


def imported_packages(package: str) -> dict[str, set[str]]:
    """Other packages each of `package`'s files imports (module-level or not)."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in PACKAGES and top != package:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_packages_import_only_what_the_layering_allows():
    wrong = {(package, other): sorted(files) for package in PACKAGES
             for other, files in imported_packages(package).items() if other not in ALLOWED[package]}
    assert wrong == {}


def test_no_package_imports_one_that_imports_it_back():
    edges = {package: set(imported_packages(package)) for package in PACKAGES}
    assert [(a, b) for a in PACKAGES for b in edges[a] if a in edges[b]] == []
