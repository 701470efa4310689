"""build_context on small multi-file workspaces: what a line about to be typed needs (imported
names, module members, class members at the cursor, names typed since the last parse)."""

import pytest

from pruning.context import build_context

pytestmark = pytest.mark.usefixtures("without_similar_windows")


def test_module_qualified_name_resolves_to_that_modules_top_level_definition(tmp_path, write_workspace):
    index = write_workspace(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": "def quote(text):\n    return text\n",
        "pkg/other.py": "class Quoter:\n    def quote(self, text):\n        return text\n",
        "pkg/main.py": "from . import utils\n\n\ndef run(x):\n    return utils.quote(x)\n",
    })
    path = str(tmp_path / "pkg/main.py")
    text = (tmp_path / "pkg/main.py").read_text()
    parts = build_context(path, text, text.index("return utils"), index=index, workspace_root=str(tmp_path))
    quotes = [(s.path, s.symbol) for s in parts.snippets if s.symbol == "quote"]
    assert quotes == [("pkg/utils.py", "quote")]


def test_member_access_at_cursor_shows_the_class_members(tmp_path, write_workspace):
    index = write_workspace(tmp_path, {
        "shop/catalog.py": '''
            class Catalog:
                def __init__(self, products=()):
                    self._by_sku = {}

                def register(self, product):
                    self._by_sku[product.sku] = product

                def find_by_sku(self, sku: str):
                    """The product with this SKU."""
                    return self._by_sku[sku]
            ''',
        "shop/checkout.py": '''
            from .catalog import Catalog


            def price(catalog: Catalog, sku):
                product = catalog.
            ''',
    })
    path = str(tmp_path / "shop/checkout.py")
    text = (tmp_path / "shop/checkout.py").read_text()
    offset = text.index("catalog.\n") + len("catalog.")
    parts = build_context(path, text, offset, index=index, workspace_root=str(tmp_path))
    catalog = next(s for s in parts.snippets if s.symbol == "Catalog")
    assert "def find_by_sku(self, sku: str):" in catalog.text
    assert '"""The product with this SKU."""' in catalog.text


def test_imported_names_used_elsewhere_are_offered_for_a_new_line(tmp_path, write_workspace):
    filler = "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(30))
    index = write_workspace(tmp_path, {
        "app/__init__.py": "",
        "app/log.py": "import logging\n\nlogger = logging.getLogger('app')\n",
        "app/work.py": "from .log import logger\n\n\ndef start():\n    logger.info('start')\n" + filler
                       + "\n\ndef stop():\n    \n",
    })
    path = str(tmp_path / "app/work.py")
    text = (tmp_path / "app/work.py").read_text()
    index.did_open(path, text, "python")
    parts = build_context(path, text, len(text) - 1, index=index, workspace_root=str(tmp_path), budget_tokens=512)
    assert ("app/log.py", "logger") in {(s.path, s.symbol) for s in parts.snippets}


def test_an_imported_name_used_nowhere_yet_is_offered_in_an_empty_body(tmp_path, write_workspace):
    """`from util import compute` and an empty function body: the one thing the file imports is
    the likeliest next name, even far below the imports, and the context depends on its file (a
    new signature invalidates)."""
    filler = "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(30))
    index = write_workspace(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": "def compute(n: int) -> int:\n    return n * 2\n",
        "pkg/main.py": "from .util import compute\n" + filler + "\n\ndef answer():\n    \n",
    })
    path = str(tmp_path / "pkg/main.py")
    text = (tmp_path / "pkg/main.py").read_text()
    index.did_open(path, text, "python")
    parts = build_context(path, text, len(text) - 1, index=index, workspace_root=str(tmp_path))
    compute = next(s for s in parts.snippets if s.symbol == "compute")
    assert compute.path == "pkg/util.py" and "def compute(n: int) -> int:" in compute.text
    assert "pkg/util.py" in dict(parts.depends_on)


def test_a_typescript_name_imported_from_the_file_it_names_is_offered_as_a_definition(tmp_path, write_workspace):
    """`import { Subject } from './Subject'` binds the class, not a module (only Python's
    `from pkg import module` names a module): it is a likely next name like any imported one."""
    filler = "".join(f"\n\nexport function helper{i}(x: number): number {{\n  return x + {i};\n}}\n" for i in range(30))
    index = write_workspace(tmp_path, {
        "src/Subject.ts": "export class Subject<T> {\n  next(value: T): void {}\n}\n",
        "src/share.ts": "import { Subject } from './Subject';\n" + filler + "\n\nexport function share() {\n  \n}\n",
    })
    path = str(tmp_path / "src/share.ts")
    text = (tmp_path / "src/share.ts").read_text()
    index.did_open(path, text, "typescript")
    offset = text.rindex("{\n\n}") + 2  # the empty body line (`write` dedents blank lines to nothing)
    parts = build_context(path, text, offset, language="typescript", index=index, workspace_root=str(tmp_path))
    assert ("src/Subject.ts", "Subject") in {(s.path, s.symbol) for s in parts.snippets}


def test_a_go_package_member_used_elsewhere_in_the_file_is_offered_for_a_new_line(tmp_path, write_workspace):
    """`import "example.com/app/util"` binds `util`: `util.Join` used further up is a likely
    next name below."""
    filler = "".join(f"\n\nfunc helper{i}(x int) int {{\n\treturn x + {i}\n}}\n" for i in range(30))
    index = write_workspace(tmp_path, {
        "go.mod": "module example.com/app\n",
        "util/strs.go": "package util\n\nfunc Join(parts []string) string { return \"\" }\n",
        "app/out.go": ('package app\n\nimport "example.com/app/util"\n\nfunc first() string {\n'
                       '\treturn util.Join(nil)\n}\n' + filler + "\n\nfunc second() string {\n\t\n}\n"),
    })
    path = str(tmp_path / "app/out.go")
    text = (tmp_path / "app/out.go").read_text()
    index.did_open(path, text, "go")
    offset = text.rindex("{\n\n}") + 2
    parts = build_context(path, text, offset, language="go", index=index, workspace_root=str(tmp_path))
    assert ("util/strs.go", "Join") in {(s.path, s.symbol) for s in parts.snippets}


def test_a_class_far_from_the_cursor_is_offered_as_its_header_and_upgraded_when_budget_is_left(tmp_path, write_workspace):
    """A class none of whose members is used near the cursor costs its header line alone (said
    once, where a member shown below it repeats it); with budget to spare the packer upgrades it
    to a skeleton of its members."""
    members = "".join(f"    def method_{i}(self, value: int) -> int:\n        return value + {i}\n\n" for i in range(6))
    index = write_workspace(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/errors.py": "class BadParameter(Exception):\n" + members,
        "pkg/main.py": "from .errors import BadParameter\n\n\ndef check(value):\n    \n",
    })
    path = str(tmp_path / "pkg/main.py")
    text = (tmp_path / "pkg/main.py").read_text()
    index.did_open(path, text, "python")
    shown = {}
    for budget in (160, 1024):
        parts = build_context(path, text, len(text) - 1, index=index, workspace_root=str(tmp_path), budget_tokens=budget)
        shown[budget] = "".join(s.text for s in parts.snippets if s.path == "pkg/errors.py")
    assert shown[160].startswith("class BadParameter(Exception):") and shown[160].count("class BadParameter") == 1
    assert shown[1024].startswith("class BadParameter(Exception):\n    def method_0(self, value: int) -> int: ...")


def test_a_lagging_tree_still_sees_the_names_typed_since_its_last_parse(tmp_path, write_workspace):
    """Where the index lets a slow-to-reparse buffer's tree lag (the server does), the names
    typed since the last parse are read from the text: the context is the one-shot context."""
    filler = "".join(f"\n\ndef filler_{i}(x):\n    return x + {i}\n" for i in range(20))
    index = write_workspace(tmp_path, {
        "lib/__init__.py": "",
        "lib/shapes.py": "class Circle:\n    def area(self, scale: float) -> float:\n        return 3.14 * scale\n",
        "lib/draw.py": "from .shapes import Circle\n\n\ndef render(n):\n    total = (n\n" + filler,
    })
    path = str(tmp_path / "lib/draw.py")
    text = (tmp_path / "lib/draw.py").read_text()
    index.did_open(path, text, "python")
    index.flush()
    at = text.index("(n\n") + 2

    def edit(start: int, end: int, new: str) -> None:
        nonlocal text
        text = text[:start] + new + text[end:]
        index.did_change(path, [type("Edit", (), {"start": start, "end": end, "text": new})()], text)

    edit(at, at, "2")
    index.current_tree(path)  # an incremental reparse...
    index._docs[path].last_parse_ms = 50.0  # ...as slow as one over an unclosed call can be
    edit(at, at + 1, " + Circle().area(")
    cursor = at + len(" + Circle().area(")
    index.pending_lag_s = 1.0
    lagging = build_context(path, text, cursor, index=index, workspace_root=str(tmp_path))
    assert index.unparsed(path) == (at, cursor)  # that context was built on the tree as edited
    index.pending_lag_s = 0.0
    one_shot = build_context(path, text, cursor, index=index, workspace_root=str(tmp_path))
    assert index.unparsed(path) is None
    assert ("lib/shapes.py", "Circle") in {(s.path, s.symbol) for s in one_shot.snippets}
    assert [(s.path, s.symbol) for s in lagging.snippets] == [(s.path, s.symbol) for s in one_shot.snippets]


def test_names_on_unparsed_lines_are_classified_from_the_text():
    from pruning.names_near import _text_uses

    source = b"    total = self.client.send(request) + len(items)\n"
    uses = {use.name: use for _, _, use in _text_uses(source, (0, len(source)), (0, len(source)), 0,
                                                      {"self": ("Client",)})}
    assert set(uses) == {"total", "client", "send", "request", "len", "items"}  # no self, no keywords
    assert uses["client"].kind == "attribute" and uses["client"].owner_types == ("Client",)
    assert uses["send"].kind == "call" and uses["send"].owner == "client"
    assert uses["len"].kind == "call" and uses["items"].kind == "identifier"


@pytest.mark.parametrize(("files", "current", "cursor_after", "expected"), [
    ({"shapes.py": "class Map:\n    def tile(self, x):\n        return x\n",  # `Map` is no Python builtin
      "game.py": "from shapes import *\n\n\ndef play():\n    board = Map()\n    return board\n"},
     "game.py", "board = Map()\n", ("shapes.py", "Map")),
    ({"go.mod": "module example.com/app\n",  # nor is `List` a Go one
      "util.go": "package main\n\n// List returns the items.\nfunc List(n int) []int {\n\treturn nil\n}\n",
      "main.go": "package main\n\nfunc main() {\n\titems := List(3)\n\t_ = items\n}\n"},
     "main.go", "items := List(3)\n", ("util.go", "List")),
])
def test_a_builtin_name_of_another_language_is_still_looked_up(tmp_path, files, current, cursor_after, expected, write_workspace):
    index = write_workspace(tmp_path, files)
    path = str(tmp_path / current)
    text = (tmp_path / current).read_text()
    parts = build_context(path, text, text.index(cursor_after) + len(cursor_after), index=index,
                          workspace_root=str(tmp_path))
    assert expected in {(s.path, s.symbol) for s in parts.snippets}, parts.to_json()["snippets"]


def test_an_imported_module_not_used_yet_offers_its_definitions(tmp_path, write_workspace, monkeypatch):
    """`use crate::size_hint;` and a body about to call `size_hint::add_scalar(...)` (similar code,
    which would find them in this small workspace too, is left out)."""
    monkeypatch.setattr("pruning.candidates.similar_code_uses", lambda *args, **kwargs: [])
    index = write_workspace(tmp_path, {
        "src/lib.rs": "mod peek;\nmod size_hint;\n",
        "src/size_hint.rs": '''
            pub type SizeHint = (usize, Option<usize>);

            pub fn add_scalar(sh: SizeHint, x: usize) -> SizeHint {
                sh
            }

            pub fn mul(a: SizeHint, b: SizeHint) -> SizeHint {
                a
            }
            ''',
        "src/peek.rs": '''
            use crate::size_hint;

            pub struct Peek { buf: Vec<u8> }

            impl Peek {
                fn size_hint(&self) -> (usize, Option<usize>) {
                    
                }
            }
            ''',
    })
    path = str(tmp_path / "src/peek.rs")
    text = (tmp_path / "src/peek.rs").read_text()
    offset = text.index("Option<usize>) {\n") + len("Option<usize>) {\n        ")
    index.did_open(path, text, "rust")
    parts = build_context(path, text, offset, language="rust", index=index, workspace_root=str(tmp_path))
    shown = {(s.path, s.symbol) for s in parts.snippets}
    assert {("src/size_hint.rs", "add_scalar"), ("src/size_hint.rs", "mul")} <= shown


def _context_after(tmp_path, index, relative, language, marker):
    """The context with the cursor right after `marker` in the workspace file `relative`, opened
    as a buffer of `index`."""
    path = str(tmp_path / relative)
    text = (tmp_path / relative).read_text()
    index.did_open(path, text, language)
    return build_context(path, text, text.index(marker) + len(marker), language=language, index=index,
                         workspace_root=str(tmp_path))


def test_a_large_modules_members_defined_next_to_those_used_near_the_cursor_are_offered(tmp_path, write_workspace,
                                                                                          monkeypatch):
    """`import * as Builder` of a module of 20 functions, two of them called just above the
    cursor: the next calls are much in the order they are defined, so the functions defined
    next to those two are offered, and the far ones are not."""
    monkeypatch.setattr("pruning.candidates.similar_code_uses", lambda *args, **kwargs: [])
    builder = "".join(f"export function add{i}(params: Map<string, string>, value: string): void {{\n"
                      f"    params.set(\"p{i}\", value);\n}}\n\n" for i in range(20))
    index = write_workspace(tmp_path, {
        "src/Builder.ts": builder,
        "src/client.ts": '''
            import * as Builder from "./Builder";

            export function request(value: string): Map<string, string> {
                const params = new Map<string, string>();
                Builder.add7(params, value);
                Builder.add8(params, value);

                return params;
            }
            ''',
    })
    parts = _context_after(tmp_path, index, "src/client.ts", "typescript", "Builder.add8(params, value);\n")
    shown = {s.symbol for s in parts.snippets if s.path == "src/Builder.ts"}
    assert {"add9", "add6"} <= shown, shown
    assert not {"add0", "add19"} & shown, shown


def test_neighbours_are_the_members_within_a_few_places_of_an_anchor():
    from pruning.candidates import NEIGHBOUR_PLACES, neighbours
    from pruning.index_lookup import Found
    from indexer.tags import Definition

    members = [Found("m.ts", Definition(f"f{i}", "function", i, i, i, i, i), 1) for i in range(20)]
    got = {found.definition.name: places for found, places in neighbours(members, {"f10"})}
    assert "f10" not in got
    assert got["f9"] == got["f11"] == 1
    assert max(got.values()) == NEIGHBOUR_PLACES and len(got) == 2 * NEIGHBOUR_PLACES


def test_a_go_packages_members_next_to_those_used_near_the_cursor_are_not_offered(tmp_path, write_workspace,
                                                                                  monkeypatch):
    """A Go package's members are spread over its files: none is offered for being defined next
    to one used near the cursor."""
    monkeypatch.setattr("pruning.candidates.similar_code_uses", lambda *args, **kwargs: [])
    funcs = "".join(f"\nfunc Add{i}(p map[string]string, v string) {{\n\tp[\"p{i}\"] = v\n}}\n" for i in range(20))
    index = write_workspace(tmp_path, {
        "go.mod": "module example.com/app\n",
        "build/build.go": "package build\n" + funcs,
        "app/req.go": ('package app\n\nimport "example.com/app/build"\n\nfunc request(v string) map[string]string {\n'
                       '\tp := map[string]string{}\n\tbuild.Add7(p, v)\n\tbuild.Add8(p, v)\n\n\treturn p\n}\n'),
    })
    parts = _context_after(tmp_path, index, "app/req.go", "go", "build.Add8(p, v)\n")
    shown = {s.symbol for s in parts.snippets if s.path == "build/build.go"}
    assert "Add8" in shown and not {"Add6", "Add9"} & shown, shown


def test_an_imported_modules_private_names_are_not_offered_as_its_members(tmp_path, write_workspace, monkeypatch):
    """`from pkg import strategies as st`: `st._check_exports` and `st.__all__` are nothing the
    next line can use through `st`; its public functions are."""
    monkeypatch.setattr("pruning.candidates.similar_code_uses", lambda *args, **kwargs: [])
    index = write_workspace(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/strategies.py": '''
            __all__ = ["integers", "text"]


            def integers(low, high):
                return (low, high)


            def text(alphabet):
                return alphabet


            def _check_exports(names):
                return names
            ''',
        "pkg/use.py": '''
            from pkg import strategies as st


            def build():
                low = st.integers(0, 1)

            ''',
    })
    parts = _context_after(tmp_path, index, "pkg/use.py", "python", "st.integers(0, 1)\n")
    shown = {s.symbol for s in parts.snippets if s.path == "pkg/strategies.py"}
    assert "text" in shown and not {"_check_exports", "__all__"} & shown, shown


@pytest.mark.parametrize("name, language, public", [
    ("integers", "python", True), ("_check", "python", False), ("__all__", "python", False),
    ("Join", "go", True), ("join", "go", False), ("_private", "typescript", True)])
def test_public_name_is_what_another_file_can_name_through_the_module(name, language, public):
    from pruning.candidates import public_name

    assert public_name(name, language) is public
