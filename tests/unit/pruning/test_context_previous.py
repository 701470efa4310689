"""Consecutive contexts in one buffer: the previous context's snippets keep their order and,
while their text holds, their place (build_context's `previous`, pruning.packing)."""

from pruning.context import build_context
from pruning.file_uses import MAX_FILE_NAMES
from pruning.packing import layout_order

SHAPES = "def area(side):\n    return side * side\n\n\ndef perimeter(side):\n    return 4 * side\n"
MAIN = ("from shapes import area, perimeter\n\n\ndef report(side):\n"
        "    a = area(side)\n    print(a)\n    x = 1\n    y = 2\n    z = 3\n    \n")


def _contexts(tmp_path, write_files, main=MAIN):
    index = write_files(tmp_path, {"shapes.py": SHAPES, "main.py": main})
    path = str(tmp_path / "main.py")
    index.did_open(path, main, "python")
    return index, path


def _symbols(parts):
    return [(s.path, s.symbol) for s in parts.snippets]


def _busy(names: list[str]) -> str:
    """Imports `names`, uses each three times in `first`, then 30 small functions and an empty
    one to complete in."""
    head = f"from util import {', '.join(names)}\n\n\ndef first():\n"
    head += "".join(f"    {name}(1)\n    {name}(2)\n    {name}(3)\n" for name in names)
    filler = "".join(f"\n\ndef filler_{i}(x):\n    return x + {i}\n" for i in range(30))
    return head + filler + "\n\ndef cursor_here():\n    \n"


def test_a_snippet_shown_before_stays_when_the_cursor_moves_away_from_its_name(tmp_path, write_files):
    """More imported names than a context looks up: at the end of the file the first ones are not
    looked up, but the one shown at the previous cursor (next to its uses) stays."""
    names = [f"far_{i:02d}" for i in range(MAX_FILE_NAMES + 4)]
    util = "".join(f"def {name}(x):\n    return x\n\n\n" for name in names)
    main = _busy(names)
    index = write_files(tmp_path, {"util.py": util, "main.py": main})
    path = str(tmp_path / "main.py")
    index.did_open(path, main, "python")
    near_last = main.index(f"{names[0]}(3)")
    first = build_context(path, main, near_last, index=index, workspace_root=str(tmp_path))
    assert ("util.py", names[0]) in _symbols(first)
    end = len(main) - 1
    fresh = build_context(path, main, end, index=index, workspace_root=str(tmp_path))
    kept = build_context(path, main, end, index=index, workspace_root=str(tmp_path), previous=first.shown)
    assert ("util.py", names[0]) not in _symbols(fresh)
    assert ("util.py", names[0]) in _symbols(kept)
    shared = [s for s in _symbols(first) if s in _symbols(kept)]
    assert _symbols(kept)[:len(shared)] == shared  # the previous prompt's snippets first, in its order


def test_a_snippet_whose_file_changed_is_not_kept(tmp_path, write_files):
    names = [f"far_{i:02d}" for i in range(MAX_FILE_NAMES + 4)]
    util = "".join(f"def {name}(x):\n    return x\n\n\n" for name in names)
    main = _busy(names)
    index = write_files(tmp_path, {"util.py": util, "main.py": main})
    path = str(tmp_path / "main.py")
    index.did_open(path, main, "python")
    first = build_context(path, main, main.index(f"{names[0]}(3)"), index=index, workspace_root=str(tmp_path))
    assert ("util.py", names[0]) in _symbols(first)
    util_path = str(tmp_path / "util.py")
    index.did_open(util_path, util.replace(f"def {names[0]}(x):", f"def {names[0]}(x, y=0):"), "python")
    index.flush(util_path)
    kept = build_context(path, main, len(main) - 1, index=index, workspace_root=str(tmp_path), previous=first.shown)
    assert ("util.py", names[0]) not in _symbols(kept)


def test_layout_order_puts_the_previous_snippets_first_in_their_order(tmp_path, write_files):
    index, path = _contexts(tmp_path, write_files)
    parts = build_context(path, MAIN, len(MAIN) - 1, index=index, workspace_root=str(tmp_path), budget_tokens=1024)
    chosen = [(shown.piece, 1) for shown in parts.shown]
    display = {piece.path: piece.path for piece, _ in chosen}
    reversed_keys = tuple((p.path, p.symbol, p.kind) for p, _ in reversed(chosen))
    assert [p for p, _ in layout_order(chosen, display, reversed_keys)] == [p for p, _ in reversed(chosen)]
    assert [p for p, _ in layout_order(chosen, display, ())] == [p for p, _ in chosen]
