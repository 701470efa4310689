"""A prompt cut into warm-up steps: each a start of the next, cut after a line break, bounded in size."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inference.backends.warm_steps import cuts, infill_steps, text_steps

CODE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(40))


def test_steps_grow_by_about_step_chars_and_the_last_is_the_whole_prompt():
    steps = text_steps(CODE, 100)
    assert len(steps) > 5 and steps[-1] == CODE
    growth = [len(longer) - len(shorter) for shorter, longer in zip(steps, steps[1:], strict=False)]
    assert all(longer.startswith(shorter) for shorter, longer in zip(steps, steps[1:], strict=False))
    assert all(100 <= g < 140 for g in growth[:-1]) and 0 < growth[-1] < 140  # the last holds what is left
    assert all(step.endswith("\n") and CODE[len(step)] not in "\r\n" for step in steps[:-1])


def test_a_cut_never_splits_a_run_of_line_breaks():
    prompt = "a" * 10 + "\n\n\n" + "b" * 10 + "\r\n" + "c" * 10
    first, second = "a" * 10 + "\n\n\n", "a" * 10 + "\n\n\n" + "b" * 10 + "\r\n"
    assert text_steps(prompt, 5) == [first, second, prompt]  # not after the first or the second "\n"


def test_a_prompt_shorter_than_a_step_is_one_step_and_nothing_is_none():
    assert text_steps("x = 1\ny = 2", 256) == ["x = 1\ny = 2"]
    assert text_steps("", 256) == [] and list(cuts(["", ""], 10)) == []


@given(st.lists(st.text(alphabet="ab \n", max_size=60), max_size=4), st.integers(1, 30))
def test_steps_over_segments_move_forward_and_end_at_the_last_text(segments, step_chars):
    steps = list(cuts(segments, step_chars))
    assert steps == sorted(set(steps))
    for index, end in steps[:-1]:
        assert segments[index][end - 1] == "\n" and segments[index][end] != "\n"
    non_empty = [i for i, text in enumerate(segments) if text]
    assert (steps[-1] == (non_empty[-1], len(segments[non_empty[-1]]))) if non_empty else steps == []


def test_infill_steps_warm_the_snippets_then_the_prefix_and_never_the_cursor_line_or_suffix():
    fields = {"input_extra": [{"filename": "a.py", "text": CODE[:300]}, {"filename": "b.py", "text": "B = 2\n"}],
              "input_prefix": CODE[:500], "prompt": "    ret", "input_suffix": "\nprint(1)\n", "n_indent": 4}
    steps = infill_steps(fields, 128)
    assert all(s["prompt"] == "" and s["input_suffix"] == "" and s["n_indent"] == 0 for s in steps)
    assert steps[-1]["input_extra"] == fields["input_extra"] and steps[-1]["input_prefix"] == fields["input_prefix"]
    first = steps[0]
    assert first["input_prefix"] == "" and len(first["input_extra"]) == 1
    assert CODE[:300].startswith(first["input_extra"][0]["text"]) and len(first["input_extra"][0]["text"]) < 300
    flat = ["".join(c["text"] for c in s["input_extra"]) + s["input_prefix"] for s in steps]
    assert all(longer.startswith(shorter) for shorter, longer in zip(flat, flat[1:], strict=False))
    assert flat == sorted(flat, key=len) and len(set(flat)) == len(flat)
