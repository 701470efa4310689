"""Unit tests of the plugin's pure Lua modules (arbor.text, arbor.config, arbor.view.pretty_json),
run inside one headless Neovim; no server involved."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.clients.neovim_harness import EmbeddedNeovim, require_nvim


@pytest.fixture(scope="module")
def nv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedNeovim]:
    require_nvim()
    ed = EmbeddedNeovim(Path(tmp_path_factory.mktemp("nvim-units")))
    yield ed
    ed.close()


def call(nv: EmbeddedNeovim, module: str, fn: str, *args: Any) -> Any:
    """Calls module.fn(*args); Python None becomes Lua nil; several results come back as a list."""
    names = [f"a{i}" for i in range(len(args))]
    unpack = "".join(f"local {n} = select({i + 1}, ...); if {n} == vim.NIL then {n} = nil end\n"
                     for i, n in enumerate(names))
    code = f"{unpack}local r = {{require('{module}').{fn}({', '.join(names)})}}\n" \
           "if #r > 1 then return r end\nreturn r[1]"
    return nv.lua(code, *args)


def test_byte_col_converts_each_encoding(nv):
    line = "é😀x"  # é: 2 bytes, 1 utf-16 unit; 😀: 4 bytes, 2 utf-16 units
    assert call(nv, "arbor.text", "byte_col", line, 1, "utf-16") == 2
    assert call(nv, "arbor.text", "byte_col", line, 3, "utf-16") == 6
    assert call(nv, "arbor.text", "byte_col", line, 2, "utf-32") == 6
    assert call(nv, "arbor.text", "byte_col", line, 4, "utf-8") == 4
    assert call(nv, "arbor.text", "byte_col", line, 99, "utf-16") == len(line.encode())
    # A unit inside the surrogate pair rounds up to the end of the character.
    assert call(nv, "arbor.text", "byte_col", line, 2, "utf-16") == 6


def test_units_inverts_byte_col_at_character_boundaries(nv):
    line = "é😀x"
    assert call(nv, "arbor.text", "units", line, 2, "utf-16") == 1
    assert call(nv, "arbor.text", "units", line, 6, "utf-16") == 3
    assert call(nv, "arbor.text", "units", line, 6, "utf-32") == 2
    assert call(nv, "arbor.text", "units", line, 6, "utf-8") == 6
    assert call(nv, "arbor.text", "units", line, 99, "utf-16") == 4
    for encoding in ("utf-8", "utf-16", "utf-32"):
        for byte in (0, 2, 6, 7):
            units = call(nv, "arbor.text", "units", line, byte, encoding)
            assert call(nv, "arbor.text", "byte_col", line, units, encoding) == byte, (encoding, byte)


def test_ghost_without_range_is_the_insert_text(nv):
    assert call(nv, "arbor.text", "ghost", "    return ", 11, "a + b", None) == {"text": "a + b", "replace_end": 11}


def test_ghost_with_range_drops_what_was_typed(nv):
    ghost = call(nv, "arbor.text", "ghost", "    ret", 7, "return x", {"start_col": 4, "end_col": 7})
    assert ghost == {"text": "urn x", "replace_end": 7}
    # Typed text that the item does not start with: no ghost.
    assert call(nv, "arbor.text", "ghost", "    rex", 7, "return x", {"start_col": 4, "end_col": 7}) is None
    # A range starting after the cursor cannot be shown at it.
    assert call(nv, "arbor.text", "ghost", "abc", 1, "x", {"start_col": 2, "end_col": 2}) is None


def test_ghost_does_not_repeat_the_text_after_the_cursor(nv):
    ghost = call(nv, "arbor.text", "ghost", "print()", 6, "x, y)", None)
    assert ghost == {"text": "x, y", "replace_end": 7}
    assert call(nv, "arbor.text", "ghost", "f()", 2, ")", None) is None


def test_next_word_and_next_line(nv):
    assert call(nv, "arbor.text", "next_word", "compute_total(items)") == "compute_total"
    assert call(nv, "arbor.text", "next_word", "(items)") == "("
    assert call(nv, "arbor.text", "next_word", "  x + y") == "  x"
    assert call(nv, "arbor.text", "next_word", "\n    return y") == "\n    return"
    assert call(nv, "arbor.text", "next_line", "a = 1\nb = 2\n") == "a = 1"
    assert call(nv, "arbor.text", "next_line", "\nb = 2\nc") == "\nb = 2"
    assert call(nv, "arbor.text", "next_line", "\nb = 2") == "\nb = 2"
    assert call(nv, "arbor.text", "next_line", "tail") == "tail"


def test_end_position_and_type_through(nv):
    assert call(nv, "arbor.text", "end_position", 3, 4, "abc") == [3, 7]
    assert call(nv, "arbor.text", "end_position", 3, 4, "ab\ncd\nxyz") == [5, 3]
    assert call(nv, "arbor.text", "type_through", "x = ", 4, "foo()", "x = fo", 6) == "o()"
    assert call(nv, "arbor.text", "type_through", "x = ", 4, "foo()", "x = foo()", 9) == ""
    assert call(nv, "arbor.text", "type_through", "x = ", 4, "foo()", "x = b", 5) is None
    assert call(nv, "arbor.text", "type_through", "x = ", 4, "foo()", "y = f", 5) is None
    assert call(nv, "arbor.text", "type_through", "x = ", 4, "foo()", "x =", 3) is None


def test_expand_tabs_and_snippets(nv):
    assert call(nv, "arbor.text", "expand_tabs", "\tx\ty", 4, 0) == "    x   y"
    assert call(nv, "arbor.text", "expand_tabs", "\tx", 4, 2) == "  x"
    assert call(nv, "arbor.text", "snippet_text", "foo(${1:a}, $2)$0") == "foo(a, )"
    assert call(nv, "arbor.text", "snippet_text", "cost \\$5") == "cost $5"


def test_config_defaults_validation_and_list_replacement(nv):
    opts = call(nv, "arbor.config", "resolve", {"cmd": ["arbor-ls", "serve"], "filetypes": ["lua"],
                                                "keymaps": {"accept": False}})
    assert opts["cmd"] == ["arbor-ls", "serve"]
    assert opts["filetypes"] == ["lua"]
    assert opts["keymaps"] == {"accept": False, "accept_word": "<M-w>", "accept_line": "<M-l>", "dismiss": "<C-]>"}
    assert opts["debounce_ms"] == 75
    for bad, needle in [
        ({"cmd": []}, "cmd: expected a non-empty list of strings"),
        ({"debounce_ms": -1}, "debounce_ms"),
        ({"settings": "x"}, "settings: expected a table"),
        ({"keymaps": {"accept": 3}}, "keymaps.accept"),
        ({"keymaps": {"accept_all": "<Tab>"}}, 'unknown keymap "accept_all"'),
    ]:
        ok, message = nv.lua("return {pcall(require('arbor.config').resolve, ...)}", bad)
        assert ok is False and needle in message, (bad, message)


def test_pretty_json_is_sorted_and_round_trips(nv):
    text = nv.lua("return require('arbor.view').pretty_json(vim.json.decode(...))",
                  '{"b": [1, {"y": null, "x": "s"}], "a": {}, "c": [], "d": true}')
    assert text == ('{\n  "a": {},\n  "b": [\n    1,\n    {\n      "x": "s",\n      "y": null\n    }\n  ],\n'
                    '  "c": [],\n  "d": true\n}')
