"""Per-language tags on the fixture projects: definitions, references and imports."""

from __future__ import annotations

import pytest

# lang -> (file, expected definitions (name, kind, container), references (name, kind), imports
# (module, names, local names, alias, wildcard, kind))
CASES = {
    "python": (
        "app/models/shapes.py",
        {("DEFAULT_RADIUS", "constant", None), ("Shape", "class", None), ("sides", "variable", "Shape"),
         ("area", "method", "Shape"), ("Circle", "class", None), ("__init__", "method", "Circle"),
         ("area", "method", "Circle"), ("unit_circle", "function", None)},
        {("Shape", "type"), ("Circle", "call"), ("pi", "attribute"), ("radius", "attribute")},
        [("math", (), (), None, False, "import")],
    ),
    "javascript": (
        "src/app.js",
        {("util", "variable", None), ("main", "function", None)},
        {("Vector", "call"), ("plus", "call"), ("format", "call"), ("ORIGIN", "attribute"), ("util", "identifier")},
        [("./lib", ("Vector", "add"), ("Vector", "plus"), None, False, "import"),
         ("./lib/format", ("default",), ("format",), None, False, "import"),
         ("./lib/math", (), (), "util", False, "import")],
    ),
    "typescript": (
        "src/util/geometry.ts",
        {("Point", "interface", None), ("Pair", "type", None), ("Axis", "enum", None),
         ("Shape", "class", None), ("area", "method", "Shape"), ("distance", "function", None)},
        {("Point", "type"), ("hypot", "call"), ("x", "attribute")},
        [],
    ),
    "tsx": (
        "src/view.tsx",
        {("SquareView", "function", None)},
        {("Square", "call"), ("area", "call"), ("side", "attribute")},
        [("./main", ("Square",), ("Square",), None, False, "import")],
    ),
    "go": (
        "internal/geom/geom.go",
        {("Pi", "constant", None), ("Shape", "interface", None), ("Area", "method", "Shape"),
         ("Circle", "struct", None), ("Area", "method", "Circle"), ("NewCircle", "function", None)},
        {("Circle", "type"), ("Radius", "attribute"), ("Pi", "attribute")},
        [("math", (), (), None, False, "import")],
    ),
    "rust": (
        "src/shapes/circle.rs",
        {("Circle", "struct", None), ("new", "method", "Circle"), ("area", "method", "Circle"),
         ("label", "function", None)},
        {("Shape", "type"), ("format_area", "call"), ("radius", "attribute"), ("P", "identifier")},
        [("super", ("Shape",), ("Shape",), None, False, "import"),
         ("crate::util", ("format_area",), ("format_area",), None, False, "import"),
         ("crate::util", ("PRECISION",), ("P",), None, False, "import")],
    ),
    "java": (
        "src/com/acme/app/Main.java",
        {("Main", "class", None), ("Mode", "enum", "Main"), ("main", "method", "Main")},
        {("Circle", "call"), ("Shape", "type"), ("area", "call"), ("unit", "call")},
        [("com.acme.geo", ("Circle",), ("Circle",), None, False, "import"),
         ("com.acme.geo", (), (), None, True, "import"),
         ("com.acme.geo.Circle", ("unit",), ("unit",), None, False, "import")],
    ),
    "c": (
        "include/vec.h",
        {("VEC_DIM", "constant", None), ("vec", "struct", None), ("vec_t", "type", None),
         ("axis", "enum", None), ("AXIS_X", "constant", "axis"), ("vec_add", "function", None),
         ("vec_dot", "function", None)},
        {("vec_t", "type")},
        [],
    ),
    "cpp": (
        "include/shape.hpp",
        {("geo", "module", None), ("Shape", "class", None), ("area", "method", "Shape"),
         ("Circle", "class", None), ("area", "method", "Circle"), ("total_area", "function", None)},
        {("Shape", "type")},
        [("string", (), (), None, False, "system_include")],
    ),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_fixture_tags(lang, fixture_root, tags_of):
    rel, definitions, references, imports = CASES[lang]
    project = "typescript" if lang == "tsx" else lang
    with open(f"{fixture_root(project)}/{rel}", "rb") as f:
        tags = tags_of(lang, f.read())
    assert tags.language == lang
    got_defs = {(d.name, d.kind, d.container) for d in tags.definitions}
    assert definitions <= got_defs, definitions - got_defs
    got_refs = {(r.name, r.kind) for r in tags.references}
    assert references <= got_refs, references - got_refs
    got_imports = [(i.module, i.names, i.local_names, i.alias, i.wildcard, i.kind) for i in tags.imports]
    assert got_imports == imports


def test_definition_positions_are_zero_based_and_ordered(tags_of):
    source = "import os\n\n\n@decorator\ndef f(x):\n    return x\n\nclass C:\n    def m(self):\n        pass\n"
    tags = tags_of("python", source)
    f, c, m = tags.definitions
    assert (f.name, f.start_line, f.name_line, f.end_line) == ("f", 3, 4, 5)  # spans its decorator
    assert source.encode()[f.name_byte:f.name_byte + 1] == b"f"
    assert (c.start_line, c.end_line, m.container, m.kind) == (7, 9, "C", "method")
    assert [d.start_byte for d in tags.definitions] == sorted(d.start_byte for d in tags.definitions)


def test_each_name_is_referenced_once_with_most_specific_kind(tags_of):
    tags = tags_of("python", "obj.method()\nobj.attr\n")
    assert [(r.name, r.kind) for r in tags.references] == [("method", "call"), ("attr", "attribute")]


def test_definition_names_are_not_references(tags_of):
    tags = tags_of("python", "class A(Base):\n    pass\n")
    assert {r.name for r in tags.references} == {"Base"}


def test_package_clause(tags_of):
    assert tags_of("go", "package geom\n").package == "geom"
    assert tags_of("java", "package com.acme.geo;\nclass A {}\n").package == "com.acme.geo"
    assert tags_of("python", "x = 1\n").package is None


def test_rust_use_trees_expand_to_one_import_per_leaf(tags_of):
    tags = tags_of("rust", "use a::{b, c::{d as e, *}, self};\n")
    assert [(i.module, i.names, i.local_names, i.alias, i.wildcard) for i in tags.imports] == [
        ("a", ("b",), ("b",), None, False),
        ("a::c", ("d",), ("e",), None, False),
        ("a::c", (), (), None, True),
        ("a", (), (), "a", False),
    ]


def test_python_relative_and_aliased_imports(tags_of):
    tags = tags_of("python", "from .. import x\nimport a.b as c, d\nfrom .m import (p as q,\n    r)\n"
                             "from __future__ import annotations\n")
    assert [(i.module, i.names, i.local_names, i.alias, i.line) for i in tags.imports] == [
        ("..", ("x",), ("x",), None, 0),
        ("a.b", (), (), "c", 1),
        ("d", (), (), None, 1),
        (".m", ("p", "r"), ("q", "r"), None, 2),
    ]


def test_broken_source_still_yields_tags(tags_of):
    tags = tags_of("python", "def ok():\n    pass\n\ndef broken(:\n    return\n\nclass Fine:\n    pass\n")
    names = {d.name for d in tags.definitions}
    assert {"ok", "Fine"} <= names


def test_empty_and_non_ascii_sources(tags_of):
    assert tags_of("python", b"").definitions == ()
    tags = tags_of("python", "ß = 'ü'\ndef größe():\n    return ß\n")
    assert [d.name for d in tags.definitions] == ["ß", "größe"]
