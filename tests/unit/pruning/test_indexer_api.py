"""pruning reads the indexer only through the names `indexer/__init__.py` exports (its public API)."""

import ast
from pathlib import Path

import indexer

PRUNING = Path(__file__).resolve().parents[3] / "pruning"


def test_pruning_imports_only_names_indexer_exports():
    wrong = []
    for path in sorted(PRUNING.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wrong += [(path.name, a.name) for a in node.names if a.name.startswith("indexer")]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("indexer"):
                if node.module != "indexer":
                    wrong.append((path.name, node.module))
                else:
                    wrong += [(path.name, a.name) for a in node.names if a.name not in indexer.__all__]
    assert wrong == []
