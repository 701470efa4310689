"""Finding functions of a chosen size in source text, per language, without a parser.

`find_functions(text, language)` returns `Function`s whose header is one line (Python: possibly
several lines up to the one ending the parameter list with `:`), sorted by line. Rules:
- Python: `def` / `async def` at any indentation; the body runs to the last non-blank line before
  the first non-blank line indented no deeper than the `def`.
- TypeScript and Go: a one-line header ending in `{` that starts with `func ` (Go),
  `function ` / `export function ` / `export async function ` (TypeScript) or is a class method
  (`name(...)... {` indented, not a control statement); the body runs up to the first later line
  at the header's indentation that starts with `}`, which is kept.
Invariant: `lines[body_start:body_end]` is the body that gets removed and re-typed; the
function's whole length is `body_end - header_start (+1 for a closing brace)`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PY_DEF = re.compile(r"^(\s*)(async\s+)?def\s+(\w+)")
GO_FUNC = re.compile(r"^func\s+(\([^)]*\)\s*)?(\w+)")
TS_FUNC = re.compile(r"^(\s*)(export\s+)?(default\s+)?(async\s+)?function\*?\s+(\w+)")
TS_METHOD = re.compile(r"^(\s+)(public\s+|private\s+|protected\s+|static\s+|async\s+|readonly\s+)*(\w+)\s*[<(]")
CONTROL = frozenset({"if", "for", "while", "switch", "catch", "return", "function", "else", "do", "try", "with", "new"})


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    header_start: int
    body_start: int
    body_end: int  # exclusive
    length: int  # lines from the header to the end, closing brace included


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip())


def find_functions(text: str, language: str) -> list[Function]:
    lines = text.split("\n")
    if language == "python":
        return _python_functions(lines)
    return _brace_functions(lines, language)


def _python_functions(lines: list[str]) -> list[Function]:
    found = []
    for start, line in enumerate(lines):
        match = PY_DEF.match(line)
        if not match:
            continue
        depth = len(match.group(1))
        header_end = _python_header_end(lines, start)
        if header_end is None:
            continue
        end = header_end + 1
        last = header_end
        while end < len(lines):
            current = lines[end]
            if current.strip():
                if indentation(current) <= depth:
                    break
                last = end
            end += 1
        if last == header_end:
            continue
        found.append(Function(match.group(3), start, header_end + 1, last + 1, last + 1 - start))
    return found


def _python_header_end(lines: list[str], start: int) -> int | None:
    balance = 0
    for row in range(start, min(start + 12, len(lines))):
        code = lines[row].split("#", 1)[0].rstrip()
        balance += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        if balance == 0 and code.endswith(":"):
            return row
    return None


def _brace_functions(lines: list[str], language: str) -> list[Function]:
    found = []
    for start, line in enumerate(lines):
        name = _brace_header_name(line, language)
        if name is None:
            continue
        depth = indentation(line)
        for end in range(start + 1, len(lines)):
            current = lines[end]
            if current.strip() and indentation(current) <= depth:
                if indentation(current) == depth and current.lstrip().startswith("}"):
                    if end > start + 1:
                        found.append(Function(name, start, start + 1, end, end + 1 - start))
                break
    return found


def _brace_header_name(line: str, language: str) -> str | None:
    if not line.rstrip().endswith("{"):
        return None
    if language == "go":
        match = GO_FUNC.match(line)
        return match.group(2) if match else None
    match = TS_FUNC.match(line)
    if match:
        return match.group(5)
    match = TS_METHOD.match(line)
    if match and match.group(3) not in CONTROL and "=>" not in line and "=" not in line.split("(", 1)[0]:
        return match.group(3)
    return None


def suitable(function: Function, lines: list[str], *, min_lines: int = 8, max_lines: int = 30,
             max_width: int = 110) -> bool:
    """A function worth re-typing: 8-30 lines, no very long line, ASCII text (a user's keystrokes
    are then one UTF-16 unit each; positions are still computed in UTF-16)."""
    if not min_lines <= function.length <= max_lines:
        return False
    body = lines[function.body_start : function.body_end]
    if sum(1 for line in body if line.strip()) < 4:
        return False
    return all(len(line) <= max_width and line.isascii() and "\t" not in line.lstrip("\t") for line in body)
