"""A user re-typing one function's body, line by line, as pure data.

The document starts as the file with the function's body lines replaced by one empty line (the
header, and for brace languages the closing brace, stay). The user then types the first
`max_lines` body lines into it, one `Edit` per keystroke, with `Pause`s where a person stops to
look for ghost text.

Pause rule (two per non-blank line, one when the line is too short for the second):
- line start: after the line's indentation is in place (Enter with auto-indent is one edit,
  as an editor sends it), before the first character of the line's code;
- mid line: right after the first word of the line and the one non-word character that ends it
  (`return `, `self.`, `if (`, `x `), provided something is left to type on the line.
Blank lines are typed (one Enter) without a pause.

Invariants:
- Positions are LSP positions in UTF-16 code units, counted in the document as it is before the
  edit; applying every edit in order to `initial_text` gives `typed_text`.
- `Pause.expected` is exactly what the user types next on that line (the rest of the line from
  the cursor, trailing whitespace stripped); it is never empty.
- Delays between keystrokes are drawn from a RNG seeded by `seed`, so every system replays the
  same trace with the same timing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

KEY_DELAY_MS = (30, 60)


def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def utf16_to_index(line: str, character: int) -> int:
    """Index into `line` of the UTF-16 column `character` (clamped to the line's end)."""
    units = 0
    for index, ch in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


@dataclass(frozen=True, slots=True)
class Edit:
    line: int
    character: int
    text: str
    delay_ms: float  # wait before sending this edit

    def change(self) -> dict:
        pos = {"line": self.line, "character": self.character}
        return {"range": {"start": pos, "end": pos}, "text": self.text}


@dataclass(frozen=True, slots=True)
class Pause:
    line: int
    character: int
    expected: str
    kind: str  # "line-start" or "mid-line"


Step = Edit | Pause


@dataclass(frozen=True, slots=True)
class FunctionTrace:
    name: str  # "<language>:<relative path>:<function name>"
    language: str
    path: str  # relative to the workspace root
    initial_text: str
    typed_text: str
    steps: tuple[Step, ...]

    @property
    def pauses(self) -> list[Pause]:
        return [s for s in self.steps if isinstance(s, Pause)]


def mid_line_split(code: str) -> int | None:
    """Index after the first word of `code` and the non-word character ending it, or None when
    nothing would be left to type after it (or the line has no word)."""
    i = 0
    while i < len(code) and not _is_word(code[i]):
        i += 1
    if i == len(code):
        return None
    while i < len(code) and _is_word(code[i]):
        i += 1
    if i >= len(code):
        return None
    split = i + 1
    return split if code[split:].strip() else None


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def build_trace(
    name: str,
    language: str,
    path: str,
    lines: list[str],
    body_start: int,
    body_end: int,
    *,
    max_lines: int,
    seed: int,
) -> FunctionTrace:
    """Trace typing `lines[body_start:body_end]` (at most `max_lines` of them) into the file
    `lines` (no line endings) from which that body has been removed."""
    body = [line.rstrip() for line in lines[body_start:body_end]][:max_lines]
    while body and not body[-1].strip():
        body.pop()
    initial = lines[:body_start] + [""] + lines[body_end:]
    typed = lines[:body_start] + (body or [""]) + lines[body_end:]
    rng = random.Random(seed)
    steps: list[Step] = []
    row = body_start

    def delay() -> float:
        return round(rng.uniform(*KEY_DELAY_MS), 1)

    for index, text in enumerate(body):
        code = text.lstrip()
        indent = text[: len(text) - len(code)]
        if index > 0:
            previous = body[index - 1]
            steps.append(Edit(row, utf16_len(previous), "\n" + (indent if code else ""), delay()))
            row += 1
        elif indent and code:
            steps.append(Edit(row, 0, indent, delay()))
        if not code:
            continue
        column = utf16_len(indent)
        steps.append(Pause(row, column, code.rstrip(), "line-start"))
        split = mid_line_split(code)
        for position, ch in enumerate(code):
            steps.append(Edit(row, column, ch, delay()))
            column += utf16_len(ch)
            if split is not None and position + 1 == split:
                steps.append(Pause(row, column, code[split:].rstrip(), "mid-line"))
    return FunctionTrace(name, language, path, "\n".join(initial), "\n".join(typed), tuple(steps))


def apply_edit(lines: list[str], edit: Edit) -> None:
    """Apply an insertion `edit` to `lines` (a list of lines without endings), in place."""
    line = lines[edit.line]
    at = utf16_to_index(line, edit.character)
    pieces = (line[:at] + edit.text + line[at:]).split("\n")
    lines[edit.line : edit.line + 1] = pieces


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def is_exact(ghost: str | None, expected: str) -> bool:
    """Whether the ghost text's first line is exactly what the user types next (trailing
    whitespace stripped on both sides)."""
    if ghost is None or not expected.rstrip():
        return False
    return first_line(ghost).rstrip() == expected.rstrip()
