"""Re-checking a cached completion against the text after the cursor *now*.

A completion that comes from anywhere but the exact prompt it was made for (a semantic hit, the
unshown tail of a typing-through completion) was produced against another suffix. Before it is
served it goes through `verify` (pruning's post-processing, supplied by the caller) or, when the
caller has none, through `recheck_against_suffix`, which refuses text that would duplicate or
collide with the code that follows the cursor.
"""

from __future__ import annotations

from collections.abc import Callable

Verify = Callable[[str], "str | None"]


def _first_nonblank_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line.strip()
    return ""


def recheck_against_suffix(text: str, suffix: str) -> str | None:
    """`text` trimmed so that it neither repeats nor runs into `suffix`; None when nothing is left.

    - With code after the cursor on its line, only the completion's first line can be inserted.
    - The longest non-blank head of that rest-of-line which `text` ends with is dropped (the
      completion would otherwise repeat it: `foo(` + `)` with `)` already after the cursor).
    - A completion line equal to the first non-blank line after the cursor line ends the
      completion before it (the model re-typed code that is already there).
    """
    if not text:
        return None
    rest_of_line, _, below = suffix.partition("\n")
    if rest_of_line.strip():
        text = text.split("\n", 1)[0]
        for k in range(len(rest_of_line), 0, -1):
            head = rest_of_line[:k]
            if head.strip() and text.endswith(head):
                text = text[: len(text) - k]
                break
    next_code = _first_nonblank_line(below if rest_of_line.strip() else suffix)
    if next_code:
        lines = text.split("\n")
        for i, line in enumerate(lines[1:], start=1):
            if line.strip() == next_code:
                text = "\n".join(lines[:i]).rstrip()
                break
    return text if text.strip() else None


def apply_verify(text: str, suffix: str, verify: Verify | None) -> str | None:
    checked = verify(text) if verify is not None else recheck_against_suffix(text, suffix)
    return checked if checked and checked.strip() else None
