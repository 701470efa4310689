"""Post-processing of raw model text before it becomes ghost text.

Invariants: the result never contains FIM/special tokens, never consists only of whitespace
(an empty string is returned instead), and in single-line mode holds at most one line.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"<\|[a-z_]+\|>|<(?:fim_prefix|fim_suffix|fim_middle|file_sep|reponame)>|</s>")


def postprocess(completion: str, *, prefix: str = "", suffix: str = "", language: str = "",
                multiline_mode: str = "auto", multiline: bool | None = None) -> str:
    """Clean `completion` for insertion between `prefix` and `suffix`."""
    text = _SPECIAL.split(completion, maxsplit=1)[0]
    single = multiline is False or multiline_mode == "never"
    if single:
        text = _first_line(text)
    text = _drop_suffix_overlap(text, suffix)
    if not text.strip():
        return ""
    return text.rstrip() if single else text.rstrip(" \t")


def _first_line(text: str) -> str:
    lead = len(text) - len(text.lstrip("\n"))
    body = text[lead:]
    return text[:lead] + body.split("\n", 1)[0]


def _drop_suffix_overlap(text: str, suffix: str) -> str:
    """Remove the tail of `text` that repeats what already follows the cursor."""
    if not suffix or not text:
        return text
    first_suffix_line = suffix.split("\n", 1)[0].strip()
    # The completion ends with the start of the suffix: drop that overlap.
    for size in range(min(len(text), len(suffix)), 0, -1):
        if text.endswith(suffix[:size]) and suffix[:size].strip():
            return text[:-size]
    # Whole trailing lines that repeat the suffix's first line.
    if first_suffix_line:
        lines = text.split("\n")
        while lines and lines[-1].strip() == first_suffix_line:
            lines.pop()
        return "\n".join(lines)
    return text
