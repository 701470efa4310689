"""Editing traces: what a person typing a real file sends, as pure data.

A `TypingTrace` re-types a span of lines of a real file: the document starts as the file with the
span removed, and each `Keystroke` inserts one character at the cursor. The span ends where a
statement at the start line's indentation (or an outer one) begins, so it holds whole definitions:
the document someone starts typing into is the file without them, not a file cut in the middle
of a docstring or a parameter list (which leaves an unclosed string or bracket swallowing the
rest of the file before the first keystroke). Given a parse check, the span ends at the first
such line that leaves a document that parses cleanly (indentation alone is fooled by docstrings).
Invariants:
- Positions are LSP positions in UTF-16 code units (what VS Code sends), counted in the document
  as it is *before* that keystroke; applying every keystroke in order to `initial_text` gives
  `final_text`, which is the original file.
- `pause` marks a keystroke after which a person typically stops (after `.`, `(`, `:`, `,`, a
  newline, or a space that ends a word); the harness sends inlineCompletion there.
- `undo_edit` is the single edit that turns `final_text` back into `initial_text`, so a trace can
  be replayed in a loop against one open document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PAUSE_AFTER = frozenset(".(:,\n")


def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


@dataclass(frozen=True, slots=True)
class Keystroke:
    line: int
    character: int
    text: str
    pause: bool

    def cursor_after(self) -> tuple[int, int]:
        """The cursor (line, UTF-16 column) once this keystroke is applied."""
        if self.text == "\n":
            return self.line + 1, 0
        return self.line, self.character + utf16_len(self.text)

    def change(self) -> dict:
        """The LSP TextDocumentContentChangeEvent for this keystroke (an insertion)."""
        pos = {"line": self.line, "character": self.character}
        return {"range": {"start": pos, "end": pos}, "text": self.text}


@dataclass(frozen=True, slots=True)
class TypingTrace:
    initial_text: str
    final_text: str
    keystrokes: tuple[Keystroke, ...]
    start_line: int
    end_line: int  # exclusive: the span [start_line, end_line) of final_text is what gets typed

    @property
    def pauses(self) -> int:
        return sum(1 for k in self.keystrokes if k.pause)

    def undo_edit(self) -> dict:
        """One change event that deletes the typed span again (final_text -> initial_text)."""
        return {
            "range": {
                "start": {"line": self.start_line, "character": 0},
                "end": {"line": self.end_line, "character": 0},
            },
            "text": "",
        }


def is_pause(previous: str, ch: str) -> bool:
    if ch in PAUSE_AFTER:
        return True
    return ch == " " and (previous.isalnum() or previous in ")_]\"'")


def typing_trace(text: str, start_line: int, max_chars: int,
                 parses_cleanly: Callable[[str], bool] | None = None) -> TypingTrace:
    """Re-type whole lines of `text` from `start_line` until at least `max_chars` characters
    (or the end of the file), and on to the next line that begins a statement at `start_line`'s
    indentation or an outer one (`_ends_span`) and, when `parses_cleanly` is given and `text`
    passes it, leaves a document that passes it too. `text` must use "\\n" line endings."""
    lines = text.splitlines(keepends=True)
    if not lines:
        raise ValueError("cannot build a typing trace from an empty text")
    if lines[-1] and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start_line = max(0, min(start_line, len(lines) - 1))
    end_line = start_line
    typed = 0
    indent = _indentation(lines[start_line])
    check = parses_cleanly if parses_cleanly is not None and parses_cleanly("".join(lines)) else None

    def ends_here(end: int) -> bool:
        if not _ends_span(lines[end], indent):
            return False
        return check is None or check("".join(lines[:start_line] + lines[end:]))

    while end_line < len(lines) and (typed < max_chars or end_line == start_line or not ends_here(end_line)):
        typed += len(lines[end_line])
        end_line += 1
    span = "".join(lines[start_line:end_line])
    initial = "".join(lines[:start_line] + lines[end_line:])
    final = "".join(lines)

    keystrokes: list[Keystroke] = []
    line, col, previous = start_line, 0, "\n"
    for ch in span:
        keystrokes.append(Keystroke(line, col, ch, is_pause(previous, ch)))
        line, col = keystrokes[-1].cursor_after()
        previous = ch
    return TypingTrace(initial, final, tuple(keystrokes), start_line, end_line)


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _ends_span(line: str, indent: int) -> bool:
    """Whether `line` may follow the typed span: it starts a statement at indentation `indent` or
    less (not a blank line, nor a closing bracket that still belongs to the span)."""
    stripped = line.strip()
    return bool(stripped) and _indentation(line) <= indent and stripped[0] not in ")]}"


def offset_of(text: str, line: int, character: int) -> int:
    """Code-point offset of an LSP (line, UTF-16 column) position in `text`."""
    lines = text.splitlines(keepends=True)
    offset = sum(len(chunk) for chunk in lines[:line])
    if line >= len(lines):
        return offset
    units = 0
    for i, ch in enumerate(lines[line]):
        if units >= character:
            return offset + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return offset + len(lines[line])


def apply_change(text: str, change: dict) -> str:
    """Apply one incremental LSP change event to `text` (used by tests and to check traces)."""
    start, end = change["range"]["start"], change["range"]["end"]
    a = offset_of(text, start["line"], start["character"])
    b = offset_of(text, end["line"], end["character"])
    return text[:a] + change["text"] + text[b:]


def definition_start_line(text: str, near_fraction: float = 0.5) -> int:
    """The first line at or after `near_fraction` of the file that starts a function (Python `def`,
    JS/TS `function`, Go `func`, Rust `fn`), or that fraction's line if there is none."""
    lines = text.splitlines()
    first = int(len(lines) * near_fraction)
    starts = ("def ", "async def ", "function ", "func ", "fn ", "pub fn ", "static ", "public ")
    for i in range(first, len(lines)):
        if lines[i].lstrip().startswith(starts):
            return i
    return min(first, max(0, len(lines) - 1))
