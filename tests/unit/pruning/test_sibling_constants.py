"""Sibling constants: a Go const block one of whose constants is referenced offers the others."""

import pytest

from pruning.context import build_context
from pruning.sibling_constants import _runs

pytestmark = pytest.mark.usefixtures("without_similar_windows")

GO_MOD = "module example.com/app\n"
OPERATORS = [f"OP{i}" for i in range(12)]  # a package of more members than module members offers
KINDS = ("package token\n\ntype Type int\n\nconst (\n\tILLEGAL Type = iota\n\tEOF\n\tCOMMENT // a comment\n\n"
         "\tSTRING // \"abc\"\n\tNUMBER\n\tCOLON // :\n" + "".join(f"\t{op}\n" for op in OPERATORS)
         + ")\n\nconst Version = \"1\"\n")


def _context(tmp_path, write_files, files: dict[str, str], rel: str, text: str):
    index = write_files(tmp_path, {"go.mod": GO_MOD, **files, rel: text})
    path = str(tmp_path / rel)
    index.did_open(path, text, "go")
    return build_context(path, text, text.index("\t\n}") + 1, language="go", index=index,
                         workspace_root=str(tmp_path), budget_tokens=1024)


def test_a_referenced_constant_brings_the_rest_of_its_block(tmp_path, write_files):
    text = ("package scanner\n\nimport \"example.com/app/token\"\n\n"
            "func kind(c byte) token.Type {\n\tif c == '\"' {\n\t\treturn token.STRING\n\t}\n\t\n}\n")
    parts = _context(tmp_path, write_files, {"token/kinds.go": KINDS}, "scanner/scanner.go", text)
    shown = {s.symbol for s in parts.snippets if s.path == "token/kinds.go"}
    assert {"STRING", "COLON", "NUMBER", "EOF"} <= shown
    assert "Version" not in shown  # another run: a constant of its own


def test_runs_are_split_by_a_gap_and_hold_top_level_constants_only(tmp_path, write_files):
    index = write_files(tmp_path, {"go.mod": GO_MOD, "token/kinds.go": KINDS})
    definitions = index.snapshot_for(str(tmp_path / "token/kinds.go")).entry(
        str(tmp_path / "token/kinds.go")).tags.definitions
    runs = [[d.name for d in run] for run in _runs(definitions)]
    assert runs == [["ILLEGAL", "EOF", "COMMENT", "STRING", "NUMBER", "COLON", *OPERATORS], ["Version"]]
