"""Which lines the context benchmark asks about (benchmarks/context/targets.py)."""

from __future__ import annotations

import os

import pytest

from benchmarks.context.targets import owner_before, sample_targets
from indexer import WorkspaceIndex


def _targets(tmp_path, files: dict[str, str]) -> dict[tuple[str, int], set[str]]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    index = WorkspaceIndex(snapshot=False)
    try:
        index.scan([str(tmp_path)])
        paths = sorted(os.path.realpath(tmp_path / name) for name in files)
        root = os.path.realpath(tmp_path)
        found = sample_targets(index.graph, [p for p in paths if p in index.graph.files], 100, 0)
        return {(os.path.relpath(t.path, root), t.line): set(t.names) for t in found}
    finally:
        index.close()


def test_python_imported_names_and_module_members_are_targets_but_methods_and_builtins_are_not(tmp_path):
    found = _targets(tmp_path, {
        "shapes.py": "def area(side):\n    return side * side\n\n\nclass Square:\n    pass\n",
        "draw.py": ("from shapes import Square\nimport shapes\n\n\ndef draw(canvas):\n"
                    "    s = Square()\n    a = shapes.area(2)\n    canvas.area(3)\n    return len(a)\n"),
    })
    assert found == {("draw.py", 5): {"Square"}, ("draw.py", 6): {"area"}}


def test_go_names_of_the_same_package_and_of_an_imported_package_are_targets(tmp_path):
    found = _targets(tmp_path, {
        "go.mod": "module example.com/app\n",
        "app/flags.go": "package app\n\ntype FlagSet struct{}\n\nfunc NewFlagSet() *FlagSet { return nil }\n",
        "app/run.go": "package app\n\nfunc Run() {\n\tf := NewFlagSet()\n\t_ = f\n}\n",
        "util/strs.go": "package util\n\nfunc Join(parts []string) string { return \"\" }\n",
        "app/out.go": ('package app\n\nimport "example.com/app/util"\n\nfunc Out() string {\n'
                       '\treturn util.Join(nil)\n}\n'),
    })
    assert found[("app/run.go", 3)] == {"NewFlagSet"}
    assert found[("app/out.go", 5)] == {"Join"}


def test_typescript_and_rust_imports_bind_their_targets(tmp_path):
    found = _targets(tmp_path, {
        "src/subject.ts": "export class Subject {}\n",
        "src/pipe.ts": "import { Subject } from './subject';\n\nexport function make() {\n  return new Subject();\n}\n",
        "lib/ast.rs": "pub struct Span { pub start: usize }\n",
        "lib/parse.rs": "use crate::ast::Span;\n\npub fn span() -> Span {\n    Span { start: 0 }\n}\n",
    })
    assert found[("src/pipe.ts", 3)] == {"Subject"}
    assert found[("lib/parse.rs", 3)] == {"Span"}


@pytest.mark.parametrize("text, owner", [(b"x = mod.name", "mod"), (b"ast :: Span", "ast"),
                                         (b"call(name", None), (b"a[0].name", "")])
def test_owner_before(text, owner):
    assert owner_before(text, text.rindex(b"name") if b"name" in text else text.rindex(b"Span")) == owner
