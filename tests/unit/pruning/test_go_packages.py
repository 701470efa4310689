"""A Go package is its directory: `token.Pos` names a type of the package imported as `token`,
whichever of its files defines it; calls into packages outside the workspace (`fmt.Sprintf`)
never take the place of names the workspace defines."""

import pytest

from indexer import parse, syntax_for
from pruning.context import build_context
from pruning.file_uses import MAX_FILE_NAMES, file_uses
from pruning.index_lookup import IndexLookup, module_stem
from pruning.names_near import names_near_cursor
from pruning.scopes import scope_chain

pytestmark = pytest.mark.usefixtures("without_similar_windows")

GO_MOD = "module example.com/app\n"
POSITION = "package token\n\n// Pos is a place in a file.\ntype Pos struct {\n\tLine int\n}\n"
KINDS = "package token\n\ntype Type int\n\nconst (\n\tSTRING Type = iota\n\tNUMBER\n)\n"


def _node_types(count: int) -> str:
    """`count` types, each with a `Pos` method: many definitions named `Pos` before token's."""
    return "package ast\n\nimport \"example.com/app/token\"\n" + "".join(
        f"\ntype Node{i} struct{{ at token.Pos }}\n\nfunc (n Node{i}) Pos() token.Pos {{ return n.at }}\n"
        for i in range(count))


def _open(index, tmp_path, rel: str, text: str) -> str:
    path = str(tmp_path / rel)
    index.did_open(path, text, "go")
    return path


def test_a_go_files_module_stem_is_its_directory():
    assert module_stem("/w/hcl/token/position.go") == "token"
    assert module_stem("/w/pkg/util.py") == "util"  # a Python module is its file


def test_a_qualified_type_is_a_type_of_the_package_it_names():
    source = b"package printer\n\nfunc f() {\n\tvar prev token.Pos\n\t\n}\n"
    syntax = syntax_for("go")
    root = parse(syntax.name, source).root_node
    offset = source.index(b"\t\n}") + 1
    uses = names_near_cursor(root, source, offset, scope_chain(root, source, offset, syntax), language="go")
    pos = [u for u in uses if u.name == "Pos"]
    assert pos and pos[0].kind == "type" and pos[0].owner == "token"


def test_package_pos_resolves_past_other_types_pos_methods(tmp_path, write_files):
    """Ten `Pos` methods in an imported file come before token's `Pos` in the graph's order; the
    `token.Pos` near the cursor still finds the type of package token."""
    text = ("package printer\n\nimport (\n\t\"example.com/app/ast\"\n\t\"example.com/app/token\"\n)\n\n"
            "func f(n ast.Node0) {\n\tvar prev token.Pos\n\t\n}\n")
    index = write_files(tmp_path, {"go.mod": GO_MOD, "ast/ast.go": _node_types(10), "token/position.go": POSITION,
                                   "printer/nodes.go": text})
    path = _open(index, tmp_path, "printer/nodes.go", text)
    parts = build_context(path, text, text.index("\t\n}") + 1, language="go", index=index,
                          workspace_root=str(tmp_path), budget_tokens=1024)
    assert ("token/position.go", "Pos") in {(s.path, s.symbol) for s in parts.snippets}


def test_a_used_package_offers_the_members_of_all_its_files(tmp_path, write_files):
    """`token.` near the cursor: the package's definitions in both of its files are offered."""
    text = "package scanner\n\nimport \"example.com/app/token\"\n\nfunc f() {\n\t_ = token.\n}\n"
    index = write_files(tmp_path, {"go.mod": GO_MOD, "token/position.go": POSITION, "token/kinds.go": KINDS,
                                   "scanner/scanner.go": text})
    path = _open(index, tmp_path, "scanner/scanner.go", text)
    parts = build_context(path, text, text.index("token.\n") + len("token."), language="go", index=index,
                          workspace_root=str(tmp_path), budget_tokens=1024)
    shown = {(s.path, s.symbol) for s in parts.snippets}
    assert ("token/position.go", "Pos") in shown and ("token/kinds.go", "Type") in shown


def test_calls_into_packages_outside_the_workspace_leave_the_places_to_workspace_names(tmp_path, write_files):
    """More `strings.X` names than there are places, used near the cursor's function; the
    workspace's `util.Helper`, used once far above, is still among the file's likely next names."""
    outside = "".join(f"\t_ = strings.Name{i}(s)\n" for i in range(MAX_FILE_NAMES + 4))
    filler = "".join(f"\nfunc filler{i}(x int) int {{\n\treturn x + {i}\n}}\n" for i in range(30))
    text = ("package app\n\nimport (\n\t\"strings\"\n\n\t\"example.com/app/util\"\n)\n\n"
            "func first() {\n\tutil.Helper()\n}\n" + filler
            + "\nfunc busy(s string) {\n" + outside + "}\n\nfunc cursor() {\n\t\n}\n")
    index = write_files(tmp_path, {"go.mod": GO_MOD, "util/util.go": "package util\n\nfunc Helper() {}\n",
                                   "app/app.go": text})
    path = _open(index, tmp_path, "app/app.go", text)
    lookup = IndexLookup(index.snapshot_for(path), path)
    uses = file_uses(lookup, text.encode(), lookup.module_aliases(), text.count("\n") - 1)
    assert "Helper" in {u.name for u in uses}
    assert not {u.name for u in uses} & {f"Name{i}" for i in range(MAX_FILE_NAMES + 4)}


def test_package_type_and_method_of_one_name_are_resolved_apart(tmp_path, write_files):
    """`n.Pos()` calls just above the cursor and `token.Pos` further away: the bare name's methods
    do not hide the package's type (each spelling is its own candidate)."""
    calls = "".join(f"\t_ = n{i}.Pos()\n" for i in range(4))
    text = ("package printer\n\nimport (\n\t\"example.com/app/ast\"\n\t\"example.com/app/token\"\n)\n\n"
            "func f(n0, n1, n2, n3 ast.Node0) {\n\tvar prev token.Pos\n" + "\t_ = prev\n" * 12 + calls
            + "\t\n}\n")
    index = write_files(tmp_path, {"go.mod": GO_MOD, "ast/ast.go": _node_types(2), "token/position.go": POSITION,
                                   "printer/nodes.go": text})
    path = _open(index, tmp_path, "printer/nodes.go", text)
    parts = build_context(path, text, text.index("\t\n}") + 1, language="go", index=index,
                          workspace_root=str(tmp_path), budget_tokens=1024)
    shown = {(s.path, s.symbol) for s in parts.snippets}
    assert ("token/position.go", "Pos") in shown
    assert any(p == "ast/ast.go" and "Pos" in symbol for p, symbol in shown)


def test_pkg_name_resolves_in_the_imported_package_not_another_of_the_same_name(tmp_path, write_files):
    """Two packages called `token` (hcl/token and json/token): `token.STRING` in a file that
    imports hcl/token shows hcl's constant only."""
    text = ("package printer\n\nimport \"example.com/app/hcl/token\"\n\n"
            "func f(t token.Type) bool {\n\treturn t == token.STRING\n\t\n}\n")
    index = write_files(tmp_path, {"go.mod": GO_MOD, "hcl/token/kinds.go": KINDS, "json/token/kinds.go": KINDS,
                                   "hcl/printer/nodes.go": text})
    path = _open(index, tmp_path, "hcl/printer/nodes.go", text)
    parts = build_context(path, text, text.index("\t\n}") + 1, language="go", index=index,
                          workspace_root=str(tmp_path), budget_tokens=1024)
    paths = {s.path for s in parts.snippets if s.symbol in ("STRING", "Type")}
    assert paths == {"hcl/token/kinds.go"}
