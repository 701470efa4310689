"""Re-typing traces: edits rebuild the typed text, pauses sit where the rule says, exact-line check."""

from benchmarks.typing.trace import Edit, Pause, apply_edit, build_trace, is_exact, mid_line_split

LINES = [
    "import os",
    "",
    "def join(a, b):",
    "    if not a:",
    "        return b",
    "",
    "    return os.path.join(a, b)",
    "",
    "x = 1",
]


def trace(max_lines=10, seed=1):
    return build_trace("python:m.py:join", "python", "m.py", LINES, 3, 7, max_lines=max_lines, seed=seed)


def replay(t):
    lines = t.initial_text.split("\n")
    for step in t.steps:
        if isinstance(step, Edit):
            apply_edit(lines, step)
    return "\n".join(lines)


def test_initial_text_has_the_body_replaced_by_one_empty_line():
    assert trace().initial_text.split("\n") == LINES[:3] + [""] + LINES[7:]


def test_replaying_every_edit_gives_the_typed_text():
    t = trace()
    assert replay(t) == t.typed_text == "\n".join(LINES)


def test_max_lines_types_only_the_first_lines():
    t = trace(max_lines=2)
    assert replay(t) == "\n".join(LINES[:5] + LINES[7:])


def test_pauses_at_line_start_and_after_the_first_word():
    pauses = trace().pauses
    assert [(p.line, p.character, p.kind, p.expected) for p in pauses] == [
        (3, 4, "line-start", "if not a:"),
        (3, 7, "mid-line", "not a:"),
        (4, 8, "line-start", "return b"),
        (4, 15, "mid-line", "b"),
        (6, 4, "line-start", "return os.path.join(a, b)"),
        (6, 11, "mid-line", "os.path.join(a, b)"),
    ]


def test_expected_text_is_what_follows_the_cursor_once_typed():
    t = trace()
    final = t.typed_text.split("\n")
    for pause in t.pauses:
        assert final[pause.line][pause.character:].rstrip() == pause.expected


def test_blank_lines_get_no_pause_and_delays_are_seeded():
    t = trace()
    assert all(p.line != 5 for p in t.pauses)
    delays = [s.delay_ms for s in t.steps if isinstance(s, Edit)]
    assert all(30 <= d <= 60 for d in delays)
    assert delays == [s.delay_ms for s in trace().steps if isinstance(s, Edit)]
    assert delays != [s.delay_ms for s in trace(seed=2).steps if isinstance(s, Edit)]


def test_mid_line_split():
    assert mid_line_split("return x") == 7
    assert mid_line_split("self.a = b") == 5
    assert mid_line_split("}") is None
    assert mid_line_split("return") is None
    assert mid_line_split("x;") is None
    assert mid_line_split('"""Doc string') == 7


def test_apply_edit_counts_utf16_columns():
    lines = ["a\U0001F600b"]
    apply_edit(lines, Edit(0, 3, "X", 0))
    assert lines == ["a\U0001F600Xb"]
    apply_edit(lines, Edit(0, 1, "\n  ", 0))
    assert lines == ["a", "  \U0001F600Xb"]


def test_is_exact_compares_the_first_line_stripped_on_the_right():
    assert is_exact("return b  \n    more", "return b")
    assert not is_exact(" return b", "return b")
    assert not is_exact("return c", "return b")
    assert not is_exact("\nreturn b", "return b")
    assert not is_exact(None, "return b")
    assert not is_exact("", "")
    assert isinstance(trace().steps[1], Pause)
