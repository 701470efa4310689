"""Warm-ups that a server which cannot preempt may still be interrupted in: the prompt goes out as
a series of prefill-only requests, each adding at most about `step_chars` characters to the one
before it.

llama-server evaluates a prompt in batches of `-b` tokens (1,024 in llama.vim's presets) and
cannot stop inside one, so a warm-up sent whole holds its slot for as long as its prompt takes (a
few seconds for 500 tokens on two cores) and the keystroke that follows waits behind it. Sent in
steps, each request reuses the one before it through the server's prompt cache, and the warm-up
can stop between two steps when a more urgent request wants the server, which then waits for one
step at most.

Invariants: every step is a start of the next one in prompt order, and the last holds all of it;
a cut falls right after a line break that is followed by something other than another line break,
so the text before the cut tokenizes as it does inside the longer text (a byte-level BPE keeps a
run of line breaks in one token).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

STEP_CHARS = 256  # about 70 tokens of code: ~0.5 s of prefill on two cores


def cuts(segments: Sequence[str], step_chars: int = STEP_CHARS) -> Iterator[tuple[int, int]]:
    """(segment index, end offset) of each step over `segments` read one after another: a step
    ends once at least `step_chars` characters have come since the last one, at the next place a
    cut may fall; the last step ends at the end of the last non-empty segment."""
    pending = 0
    last: tuple[int, int] | None = None
    for index, text in enumerate(segments):
        start = 0
        for end in _line_ends(text):
            pending += end - start
            start = end
            if pending >= step_chars:
                yield index, end
                pending, last = 0, None
        pending += len(text) - start
        if text:
            last = (index, len(text))
    if last is not None:
        yield last


def _line_ends(text: str) -> Iterator[int]:
    position = text.find("\n")
    while position != -1:
        end = position + 1
        if end < len(text) and text[end] not in "\r\n":
            yield end
        position = text.find("\n", end)


def text_steps(prompt: str, step_chars: int = STEP_CHARS) -> list[str]:
    """The prompts of a stepped warm-up of `prompt`, shortest first."""
    return [prompt[:end] for _, end in cuts([prompt], step_chars)]


def infill_steps(fields: dict[str, Any], step_chars: int = STEP_CHARS) -> list[dict[str, Any]]:
    """The `/infill` fields of a stepped warm-up of `fields` (an `/infill` layout): its snippets,
    then the file before the cursor line, in llama-server's prompt order. The cursor line and the
    suffix are left out: they come after the prefix in that layout, so every keystroke evaluates
    them again whatever was warmed."""
    extras: list[dict[str, str]] = fields["input_extra"]
    prefix: str = fields["input_prefix"]
    steps = []
    for index, end in cuts([chunk["text"] for chunk in extras] + [prefix], step_chars):
        if index < len(extras):
            chunks = [*extras[:index], {**extras[index], "text": extras[index]["text"][:end]}]
            step_prefix = ""
        else:
            chunks, step_prefix = list(extras), prefix[:end]
        steps.append({"input_extra": chunks, "input_prefix": step_prefix, "prompt": "", "input_suffix": "",
                      "n_indent": 0})
    return steps
