"""`IndexLookup.render`: another file's definition rendered from its entry, kept there per form
and per the members a skeleton can show."""

from __future__ import annotations

import textwrap
from typing import NamedTuple

from indexer import WorkspaceIndex
from pruning.definition_render import render_definition
from pruning.index_lookup import Found, IndexLookup

class Edit(NamedTuple):
    start: int
    end: int
    text: str


CATALOG = '''
    class Catalog:
        """Products by SKU."""

        def __init__(self, products=()):
            self._by_sku = {}

        def register(self, product):
            self._by_sku[product.sku] = product

        def find_by_sku(self, sku: str):
            return self._by_sku[sku]

        def remove(self, sku):
            del self._by_sku[sku]
    '''


def lookup_of_catalog(tmp_path):
    (tmp_path / "catalog.py").write_text(textwrap.dedent(CATALOG).lstrip("\n"))
    (tmp_path / "main.py").write_text("from catalog import Catalog\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    main, catalog = str(tmp_path / "main.py"), str(tmp_path / "catalog.py")
    snapshot = index.snapshot_for(main)
    definition = next(d for d in snapshot.entry(catalog).tags.definitions if d.name == "Catalog")
    return IndexLookup(snapshot, main), Found(catalog, definition, 1), snapshot


def test_member_sets_that_differ_only_by_names_the_class_lacks_share_one_rendering(tmp_path):
    lookup, found, snapshot = lookup_of_catalog(tmp_path)
    reads = []
    read = snapshot._read_bytes
    snapshot._read_bytes = lambda path: reads.append(path) or read(path)

    typed = [frozenset({"register", "fi"}), frozenset({"register", "fin"}), frozenset({"register", "find"})]
    shown = [lookup.render(found, "skeleton", members, 4) for members in typed]
    source = read(found.path)
    entry = snapshot.entry(found.path)
    for members, snippet in zip(typed, shown):  # the same text as rendering with the raw members
        assert snippet == render_definition(source, entry.language, found.definition, "skeleton", "", members, 4)
    assert "def register(self, product)" in shown[0].text and "find_by_sku" not in shown[0].text
    assert shown[0] is shown[1] is shown[2]
    assert len(reads) == 1  # the file was read for the first rendering only


def test_members_none_of_which_the_class_has_render_as_no_members(tmp_path):
    lookup, found, _ = lookup_of_catalog(tmp_path)
    typed = lookup.render(found, "skeleton", frozenset({"sku", "product"}), 12)
    assert typed is lookup.render(found, "skeleton", None, 12)
    assert all(name in typed.text for name in ("register", "find_by_sku", "remove"))


def test_a_signature_does_not_depend_on_the_members(tmp_path):
    lookup, found, _ = lookup_of_catalog(tmp_path)
    assert lookup.render(found, "signature", frozenset({"register"})) is lookup.render(found, "signature", None)


def test_one_lookup_reads_a_file_once_for_all_its_definitions(tmp_path):
    lookup, found, snapshot = lookup_of_catalog(tmp_path)
    reads = []
    read = snapshot._read_bytes
    snapshot._read_bytes = lambda path: reads.append(path) or read(path)
    methods = [d for d in snapshot.entry(found.path).tags.definitions if d.name in ("register", "remove")]
    rendered = [lookup.render(Found(found.path, method, 1), "signature") for method in methods]
    assert [r.text.splitlines()[-1].strip() for r in rendered] == [
        "def register(self, product): ...", "def remove(self, sku): ..."]
    assert reads == [found.path]


def test_a_re_indexed_buffer_does_not_parse_its_unchanged_definitions_again(tmp_path, monkeypatch):
    import pruning.definition_render as definition_render

    parsed = []
    parse = definition_render.parse
    monkeypatch.setattr(definition_render, "parse", lambda language, chunk: parsed.append(chunk) or parse(language, chunk))
    path = str(tmp_path / "catalog.py")
    text = textwrap.dedent(CATALOG).lstrip("\n")
    index = WorkspaceIndex(snapshot=False)
    index.did_open(path, text, "python")
    index.flush()

    def catalog_skeleton():
        snapshot = index.snapshot_for(path)
        definition = next(d for d in snapshot.entry(path).tags.definitions if d.name == "Catalog")
        return IndexLookup(snapshot, path).render(Found(path, definition, 0), "skeleton")

    before = catalog_skeleton()
    index.did_change(path, [Edit(0, 0, "import os\n\n")], "import os\n\n" + text)  # the class moves down
    index.flush()
    after = catalog_skeleton()
    assert after.text == before.text and after.start_line == before.start_line + 2
    assert len(parsed) == 1


def test_a_definition_without_a_scope_node_is_whole_or_one_line_never_cut(tmp_path):
    """A TypeScript type alias: its lines parse to no scope of their own."""
    (tmp_path / "types.ts").write_text("export type Input<T> =\n  | Promise<T>\n  | Array<T>;\n")
    (tmp_path / "main.ts").write_text("import { Input } from './types';\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    main, types = str(tmp_path / "main.ts"), str(tmp_path / "types.ts")
    lookup = IndexLookup(index.snapshot_for(main), main)
    [found] = [f for f in lookup.definitions("Input") if f.path == types]
    full = lookup.render(found, "full")
    assert (full.form, full.text) == ("full", "export type Input<T> =\n  | Promise<T>\n  | Array<T>;\n")
    for form in ("signature", "line", "skeleton"):
        line = lookup.render(found, form)
        assert (line.form, line.text) == ("line", "export type Input<T> = | Promise<T> | Array<T>;\n")
        assert (line.start_line, line.end_line) == (0, 2)


def test_a_bound_name_reached_through_re_exports_counts_as_imported(tmp_path):
    """`from pkg import Widget`, where pkg/__init__.py re-exports it from pkg/widgets.py."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .widgets import *\n")
    (tmp_path / "pkg" / "widgets.py").write_text("class Widget:\n    pass\n")
    (tmp_path / "other.py").write_text("class Gadget:\n    pass\n")
    (tmp_path / "main.py").write_text("from pkg import Widget\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    main = str(tmp_path / "main.py")
    lookup = IndexLookup(index.snapshot_for(main), main)
    assert [(f.path, f.tier) for f in lookup.definitions("Widget")] == [(str(tmp_path / "pkg" / "widgets.py"), 2)]
    assert [f.tier for f in lookup.definitions("Gadget")] == [3]  # not bound by an import


def test_a_go_file_sees_its_packages_definitions_as_bound(tmp_path):
    """A function of a sibling file of the same Go package is as near as an imported name (tier
    1); the same name in another directory's package is elsewhere (tier 3)."""
    (tmp_path / "go.mod").write_text("module example.com/app\n")
    for directory in ("app", "other"):
        (tmp_path / directory).mkdir()
        (tmp_path / directory / "util.go").write_text(f"package {directory}\n\nfunc helper(x int) int {{\n\treturn x\n}}\n")
    (tmp_path / "app" / "main.go").write_text("package app\n\nfunc run() int {\n\treturn helper(1)\n}\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    main = str(tmp_path / "app" / "main.go")
    lookup = IndexLookup(index.snapshot_for(main), main)
    tiers = {f.path: f.tier for f in lookup.definitions("helper")}
    assert tiers == {str(tmp_path / "app" / "util.go"): 1, str(tmp_path / "other" / "util.go"): 3}
