"""Typing traces: replaying every keystroke rebuilds the file; positions are UTF-16; undo restores."""

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.load.traces import (
    apply_change,
    definition_start_line,
    is_pause,
    offset_of,
    typing_trace,
    utf16_len,
)

SOURCE = '''import os


def greet(name: str) -> str:
    """Say hello."""
    return f"hello, {name}"


def farewell(name):
    print("bye", name.upper())
'''


def replay(trace) -> str:
    text = trace.initial_text
    for stroke in trace.keystrokes:
        text = apply_change(text, stroke.change())
    return text


def test_replaying_the_keystrokes_rebuilds_the_file():
    trace = typing_trace(SOURCE, 3, 40)
    assert trace.initial_text != SOURCE
    assert replay(trace) == SOURCE == trace.final_text
    assert "".join(k.text for k in trace.keystrokes) == "".join(SOURCE.splitlines(True)[3:trace.end_line])


def test_trace_types_whole_definitions_until_max_chars():
    trace = typing_trace(SOURCE, 3, 10)
    # one line is already more than 10 chars, but the span runs on to the next statement at the
    # def's indentation: the document typed into is the file without `greet`, not half of it
    assert trace.start_line == 3 and trace.end_line == 8
    assert len(trace.keystrokes) == len("".join(SOURCE.splitlines(True)[3:8]))


DOCSTRING_SOURCE = '''class Limits:
    def first(self):
        return 1

    def second(self):
        """
    Indented like a method, but inside the docstring.
        """
        return 2

    def third(self):
        return 3
'''


def test_a_parse_check_keeps_the_span_from_ending_inside_a_docstring():
    from benchmarks.load.scenarios import parse_check
    from pathlib import Path

    by_indentation = typing_trace(DOCSTRING_SOURCE, 1, 60)
    assert DOCSTRING_SOURCE.splitlines()[by_indentation.end_line].startswith("    Indented")
    checked = typing_trace(DOCSTRING_SOURCE, 1, 60, parse_check(Path("limits.py")))
    assert DOCSTRING_SOURCE.splitlines()[checked.end_line] == "    def third(self):"
    assert replay(checked) == DOCSTRING_SOURCE


def test_undo_edit_restores_the_initial_text():
    trace = typing_trace(SOURCE, 3, 60)
    assert apply_change(replay(trace), trace.undo_edit()) == trace.initial_text


def test_pauses_follow_punctuation_newlines_and_word_ends():
    trace = typing_trace(SOURCE, 8, 1000)
    paused_after = [k.text for k in trace.keystrokes if k.pause]
    assert set(paused_after) <= {".", "(", ":", ",", "\n", " "}
    assert trace.pauses == len(paused_after) > 3
    assert is_pause("e", " ") and not is_pause(" ", " ") and is_pause(" ", "(")


def test_columns_are_utf16_code_units():
    text = "x = 1\ns = '😀é'\ny = 2\n"
    trace = typing_trace(text, 1, 1)
    strokes = trace.keystrokes
    emoji = next(k for k in strokes if k.text == "😀")
    after_emoji = strokes[strokes.index(emoji) + 1]
    assert after_emoji.character == emoji.character + 2  # the emoji is a surrogate pair
    assert utf16_len("😀é") == 3
    assert replay(trace) == text


def test_offset_of_maps_utf16_columns_to_code_points():
    text = "a😀b\nc\n"
    assert offset_of(text, 0, 3) == 2  # after the emoji
    assert offset_of(text, 1, 0) == 4
    assert offset_of(text, 5, 0) == len(text)


def test_definition_start_line_finds_a_function_after_the_middle():
    assert definition_start_line(SOURCE) == 8
    assert definition_start_line("x = 1\n" * 10) == 5


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=30), min_size=1, max_size=12),
    start=st.integers(0, 12),
    chars=st.integers(0, 200),
)
def test_any_trace_replays_to_its_final_text(lines, start, chars):
    text = "\n".join(lines) + "\n"
    trace = typing_trace(text, start, chars)
    assert replay(trace) == trace.final_text == text
    assert apply_change(trace.final_text, trace.undo_edit()) == trace.initial_text
