"""A held layout (build_context's `holds`): consecutive contexts in a buffer show the same snippets
while they hold, so that the prompt begins as the previous one did (pruning.held_layout)."""

from pruning.candidates import Piece
from pruning.context import build_context
from pruning.file_uses import MAX_FILE_NAMES
from pruning.held_layout import held_layout, scope_key, still_held

NAMES = [f"far_{i:02d}" for i in range(MAX_FILE_NAMES + 4)]
UTIL = "".join(f"def {name}(x):\n    return x\n\n\n" for name in NAMES)


def _main() -> str:
    """Imports every name of UTIL, uses each three times in `first`, then 30 small functions and
    an empty one to complete in: a context at the end does not look up the first names."""
    head = f"from util import {', '.join(NAMES)}\n\n\ndef first():\n"
    head += "".join(f"    {name}(1)\n    {name}(2)\n    {name}(3)\n" for name in NAMES)
    filler = "".join(f"\n\ndef filler_{i}(x):\n    return x + {i}\n" for i in range(30))
    return head + filler + "\n\ndef first_again():\n    \n"


def _symbols(parts):
    return [(s.path, s.symbol) for s in parts.snippets]


def _open(tmp_path, write_files, main):
    index = write_files(tmp_path, {"util.py": UTIL, "main.py": main})
    path = str(tmp_path / "main.py")
    index.did_open(path, main, "python")
    return index, path


def _context(index, path, text, offset, tmp_path, hold=None):
    return build_context(path, text, offset, index=index, workspace_root=str(tmp_path), holds=(hold,) if hold else ())


def test_the_held_snippets_are_shown_again_where_a_fresh_choice_differs(tmp_path, write_files):
    main = _main()
    index, path = _open(tmp_path, write_files, main)
    # the held layout was chosen inside `first`, next to the first name's uses
    first = _context(index, path, main, main.index(f"{NAMES[0]}(3)"), tmp_path)
    assert ("util.py", NAMES[0]) in _symbols(first)
    inside = main.index(f"{NAMES[-1]}(3)")
    fresh = _context(index, path, main, inside, tmp_path)
    held = _context(index, path, main, inside, tmp_path, hold=first.layout)
    assert _symbols(held) == _symbols(first)
    assert held.layout is first.layout
    assert [s.text for s in held.snippets] == [s.text for s in first.snippets]
    assert _symbols(fresh) != _symbols(first)  # else this test shows nothing


def test_a_snippet_whose_file_changed_ends_the_hold(tmp_path, write_files):
    main = _main()
    index, path = _open(tmp_path, write_files, main)
    first = _context(index, path, main, main.index(f"{NAMES[0]}(3)"), tmp_path)
    util_path = str(tmp_path / "util.py")
    index.did_open(util_path, UTIL.replace(f"def {NAMES[0]}(x):", f"def {NAMES[0]}(x, y=0):"), "python")
    index.flush(util_path)
    again = _context(index, path, main, main.index(f"{NAMES[0]}(3)"), tmp_path, hold=first.layout)
    assert again.layout is not first.layout
    assert any(f"def {NAMES[0]}(x, y=0)" in s.text for s in again.snippets)


def test_moving_into_another_definition_ends_the_hold(tmp_path, write_files):
    main = _main()
    index, path = _open(tmp_path, write_files, main)
    first = _context(index, path, main, main.index(f"{NAMES[0]}(3)"), tmp_path)
    elsewhere = main.index("return x + 3")
    moved = _context(index, path, main, elsewhere, tmp_path, hold=first.layout)
    assert moved.layout is not first.layout
    assert moved.snippets == _context(index, path, main, elsewhere, tmp_path).snippets


def test_of_several_layouts_the_first_that_holds_is_shown(tmp_path, write_files):
    main = _main()
    index, path = _open(tmp_path, write_files, main)
    first = _context(index, path, main, main.index(f"{NAMES[0]}(3)"), tmp_path)
    elsewhere = main.index("return x + 3")
    other = _context(index, path, main, elsewhere, tmp_path)  # chosen in `filler_3`: not held in `first`
    inside = main.index(f"{NAMES[-1]}(3)")
    shown = build_context(path, main, inside, index=index, workspace_root=str(tmp_path),
                          holds=(other.layout, first.layout))
    assert shown.layout is first.layout
    again = build_context(path, main, elsewhere, index=index, workspace_root=str(tmp_path),
                          holds=(other.layout, first.layout))
    assert again.layout is other.layout
    last = _context(index, path, main, inside, tmp_path)  # chosen in `first` too: both hold there
    assert _symbols(last) != _symbols(first)
    for holds in ((first.layout, last.layout), (last.layout, first.layout)):
        shown = build_context(path, main, inside, index=index, workspace_root=str(tmp_path), holds=holds)
        assert shown.layout is holds[0]


def test_typing_a_line_keeps_the_hold_and_the_prompt_begins_the_same(tmp_path, write_files):
    """A user types a new line in `first`: the buffer changes (a line more, lines below move
    down), the snippets do not."""
    main = _main()
    index, path = _open(tmp_path, write_files, main)
    at = main.index(f"    {NAMES[2]}(1)")
    first = _context(index, path, main, at, tmp_path)
    line = f"    {NAMES[-1]}(7)\n"
    typed = main[:at] + line + main[at:]
    index.did_open(path, typed, "python")
    cursor = at + len(line)
    held = _context(index, path, typed, cursor, tmp_path, hold=first.layout)
    assert [(s.path, s.symbol, s.text) for s in held.snippets] == [(s.path, s.symbol, s.text) for s in first.snippets]
    assert _symbols(_context(index, path, typed, cursor, tmp_path)) != _symbols(first)


def test_a_budget_change_ends_the_hold(tmp_path, write_files):
    main = _main()
    index, path = _open(tmp_path, write_files, main)
    first = _context(index, path, main, main.index(f"{NAMES[0]}(3)"), tmp_path)
    smaller = build_context(path, main, main.index(f"{NAMES[0]}(3)"), index=index, workspace_root=str(tmp_path),
                            budget_tokens=512, holds=(first.layout,))
    assert smaller.layout is not first.layout
    assert smaller.tokens <= 512


def test_an_own_snippet_moves_with_its_lines_and_is_left_out_once_they_change():
    text = "import os\n\n\ndef helper(x):\n    return x\n\n\ndef main():\n    \n"
    piece = Piece(path="/w/main.py", symbol="helper", kind="function", start_line=3, end_line=4,
                  text="def helper(x): ...", reason="local", value=1.0, current=True)
    hold = held_layout(scope_key(["main"]), 1024, [(piece, 6)], None, text)
    moved_text = "import os\nimport sys\n" + text[len("import os\n"):]
    (moved, tokens), = still_held(hold, scope_key(["main"]), 1024, None, moved_text, [])
    assert (moved.start_line, moved.end_line, tokens) == (4, 5, 6)
    changed = moved_text.replace("return x", "return x + 1")
    assert still_held(hold, scope_key(["main"]), 1024, None, changed, []) == []
    assert still_held(hold, scope_key(["other"]), 1024, None, moved_text, []) is None
    assert still_held(hold, scope_key([]), 1024, None, moved_text, []) is not None  # a tree with errors names none
