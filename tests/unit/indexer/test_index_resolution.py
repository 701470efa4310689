"""Import resolution per language on the fixture projects: an imported name resolves to the file
that defines it, and import edges point at workspace files."""

from __future__ import annotations

import pytest

# lang -> (importing file, name as used there, defining file, expected import targets)
CASES = {
    "python": ("app/main.py", "Circle", "app/models/shapes.py",
               ["app/models/__init__.py", "app/models/shapes.py"]),
    "javascript": ("src/app.js", "Vector", "src/lib/math.js",
                   ["src/lib/index.js", "src/lib/format.js", "src/lib/math.js"]),
    "typescript": ("src/main.ts", "distance", "src/util/geometry.ts",
                   ["src/util/index.ts", "src/util/geometry.ts"]),
    "go": ("cmd/tool/main.go", "NewCircle", "internal/geom/geom.go",
           ["internal/geom/geom.go", "internal/geom/util.go"]),
    "rust": ("src/shapes/circle.rs", "format_area", "src/util.rs", ["src/shapes/mod.rs", "src/util.rs"]),
    "java": ("src/com/acme/app/Main.java", "Circle", "src/com/acme/geo/Circle.java",
             ["src/com/acme/geo/Circle.java", "src/com/acme/geo/Shape.java"]),
    "c": ("src/main.c", "vec_add", "include/vec.h", ["include/vec.h"]),
    "cpp": ("src/main.cpp", "total_area", "include/shape.hpp", ["include/shape.hpp"]),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_imported_name_resolves_to_defining_file(lang, scanned):
    importer, name, defining, targets = CASES[lang]
    index, root = scanned(lang)
    graph = index.graph
    found = graph.definitions_of(name, f"{root}/{importer}")
    assert found, f"{name} not found from {importer}"
    assert found[0][0] == f"{root}/{defining}"
    assert found[0][1].name == name
    assert graph.imports_of(f"{root}/{importer}") == [f"{root}/{t}" for t in targets]
    for target in targets:
        assert f"{root}/{importer}" in graph.dependents(f"{root}/{target}")


def test_python_alias_and_reexport_chain(scanned):
    index, root = scanned("python")
    graph = index.graph
    # `from .models.shapes import unit_circle as unit`: the local alias resolves to the original
    (path, definition), *_ = graph.definitions_of("unit", f"{root}/app/main.py")
    assert (path, definition.name) == (f"{root}/app/models/shapes.py", "unit_circle")
    # `from .models import Shape` in app/__init__.py goes through models/__init__.py's re-export
    (path, definition), *_ = graph.definitions_of("Shape", f"{root}/app/__init__.py")
    assert (path, definition.kind) == (f"{root}/app/models/shapes.py", "class")


def test_javascript_reexport_star_and_default(scanned):
    index, root = scanned("javascript")
    graph = index.graph
    (path, _), *_ = graph.definitions_of("plus", f"{root}/src/app.js")  # `add as plus` via index.js
    assert path == f"{root}/src/lib/math.js"
    (path, definition), *_ = graph.definitions_of("format", f"{root}/src/app.js")
    assert (path, definition.name) == (f"{root}/src/lib/format.js", "format")


def test_rust_mod_declarations_resolve_to_module_files(scanned):
    index, root = scanned("rust")
    assert index.graph.imports_of(f"{root}/src/lib.rs") == [
        f"{root}/src/shapes/mod.rs", f"{root}/src/util.rs", f"{root}/src/shapes/circle.rs"]
    (path, definition), *_ = index.graph.definitions_of("Shape", f"{root}/src/shapes/circle.rs")
    assert (path, definition.kind) == (f"{root}/src/shapes/mod.rs", "interface")


def test_java_static_import_resolves_through_its_class(scanned):
    index, root = scanned("java")
    (path, definition), *_ = index.graph.definitions_of("unit", f"{root}/src/com/acme/app/Main.java")
    assert (path, definition.container) == (f"{root}/src/com/acme/geo/Circle.java", "Circle")


def test_go_same_package_files_come_before_the_rest(scanned):
    index, root = scanned("go")
    (path, _), *_ = index.graph.definitions_of("Shape", f"{root}/internal/geom/util.go")
    assert path == f"{root}/internal/geom/geom.go"


def test_definitions_of_orders_own_file_then_imports_then_workspace(tmp_path):
    from indexer import WorkspaceIndex

    (tmp_path / "a.py").write_text("def helper():\n    pass\n")
    (tmp_path / "b.py").write_text("def helper():\n    pass\n")
    (tmp_path / "far").mkdir()
    (tmp_path / "far" / "c.py").write_text("def helper():\n    pass\n")
    (tmp_path / "main.py").write_text("from b import helper as h\n\ndef helper():\n    return h()\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    root = str(tmp_path).replace("\\", "/")
    order = [path for path, _ in index.graph.definitions_of("helper", f"{root}/main.py")]
    assert order == [f"{root}/main.py", f"{root}/b.py", f"{root}/a.py", f"{root}/far/c.py"]
    assert [p for p, _ in index.graph.definitions_of("h", f"{root}/main.py")] == [f"{root}/b.py"]
    assert index.graph.definitions_of("missing", f"{root}/main.py") == []


def test_unresolvable_imports_are_kept_without_edges(scanned):
    index, root = scanned("python")
    assert index.graph.imports_of(f"{root}/app/models/shapes.py") == []  # `import math`: stdlib
