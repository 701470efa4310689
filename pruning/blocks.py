"""Syntax at the cursor: does it ask for a block, and where does a completion's block end?

`wants_multiline` reads the syntax around the cursor: inside a comment or string, or with code
after the cursor on its line, a completion is one line; an empty block body (after `:`, `{`,
`=>`, ...) or a blank line that ends its block asks for several lines.

`block_end` finds where a multi-line completion should stop: at the end of the block its first
line opened, or where it would leave the block the cursor is in (a dedent below the cursor's
indentation, a closer the prefix opened). The cut is then checked by re-parsing the buffer with
the completion inserted: among the candidate cuts (line ends where the completion's brackets are
balanced, and the indentation cut), the longest one with the fewest syntax errors wins.
"""

from __future__ import annotations

from indexer import LANGUAGES, Syntax, parse, syntax_for

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")": "(", "]": "[", "}": "{"}
_BLOCK_OPENERS = ("{", "(", "[", "=>", "->")
_PY_BLOCK_OPENERS = (":", "(", "[", "{")
_MAX_REPARSES = 6


def language_name(language: str) -> str | None:
    """Indexer language for an LSP language id or indexer name; None if unsupported."""
    syntax = syntax_for(language)
    return syntax.name if syntax is not None and syntax.name in LANGUAGES else None


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def opens_block(line: str, syntax: Syntax | None) -> bool:
    """Whether a code line ends with a block opener (`:` in Python; `{`, `(`, `[`, `=>`)."""
    code = line.rstrip()
    openers = _PY_BLOCK_OPENERS if syntax is not None and syntax.indent_blocks else _BLOCK_OPENERS
    return code.endswith(openers)


def wants_multiline(prefix: str, suffix: str, language: str) -> bool:
    """Single line inside comments/strings or mid-line; a block where the syntax asks for one."""
    syntax = syntax_for(language)
    before = prefix[prefix.rfind("\n") + 1:]
    after = suffix.split("\n", 1)[0]
    rest = after.strip()
    if rest and not (rest == "}" and before.rstrip().endswith("{")):
        return False
    if in_comment_or_string(prefix, suffix, language):
        return False
    if before.strip():
        return opens_block(before, syntax)
    previous = _last_code_line(prefix[: len(prefix) - len(before)])
    if previous is None or opens_block(previous, syntax):
        return True
    following = _first_code_line(suffix)
    if following is None:
        return True
    # A blank line that ends its block (what follows is dedented or a closer) asks for more code.
    column = len(before) if before else indentation(previous)
    return indentation(following) < column or following.lstrip()[:1] in CLOSERS


def in_comment_or_string(prefix: str, suffix: str, language: str) -> bool:
    """Whether the cursor sits inside a comment or a string literal, by re-parsing the windows."""
    name = language_name(language)
    if name is None:
        return False
    data = (prefix + suffix).encode("utf-8", "surrogatepass")
    offset = len(prefix.encode("utf-8", "surrogatepass"))
    tree = parse(name, data)
    node = tree.root_node.descendant_for_byte_range(max(0, offset - 1), offset)
    while node is not None:
        kind = node.type
        if "comment" in kind or kind in ("string_content", "string_fragment", "template_string",
                                         "interpreted_string_literal", "raw_string_literal"):
            return node.start_byte < offset < node.end_byte or (
                "comment" in kind and node.start_byte < offset <= node.end_byte and "\n" not in prefix[-1:])
        if kind == "string":
            return node.start_byte < offset < node.end_byte
        node = node.parent
    return False


def block_end(completion: str, prefix: str, suffix: str, language: str) -> int:
    """Character index in `completion` where a multi-line completion should end."""
    syntax = syntax_for(language)
    cut = indentation_cut(completion, prefix, syntax)
    name = language_name(language)
    if name is None or cut == 0:
        return cut
    candidates = balanced_line_ends(completion[:cut])
    if cut not in candidates:
        candidates.append(cut)
    candidates = sorted(set(candidates))[-_MAX_REPARSES:]
    scored = [(syntax_errors(name, prefix + completion[:c] + suffix), -c) for c in candidates]
    return -min(scored)[1]


def indentation_cut(completion: str, prefix: str, syntax: Syntax | None) -> int:
    """Where the completion leaves its block, judged by indentation and brackets alone.

    The completion's first code line sets the base column. A line at or left of the header of the
    block the completion opened ends it (a closer at the header's column is kept, `else`-like
    continuations are not an end); without such a header, a line left of the base ends it. A block
    opened by a later line at the base column ends the completion only at top level (column 0).
    """
    indent_blocks = syntax is not None and syntax.indent_blocks
    before = prefix[prefix.rfind("\n") + 1:]
    lines = completion.split("\n")
    base: int | None = None
    header: int | None = None
    position = -1
    for number, line in enumerate(lines):
        start = position + 1
        position = start + len(line)
        text = before + line if number == 0 else line
        if not text.strip():
            continue
        column = indentation(text)
        if base is None:
            base = column
            if opens_block(text, syntax):
                header = column
            continue
        if header is not None and column <= header:
            if _continues(text, indent_blocks) and column == header:
                continue
            if column == header and not indent_blocks and text.lstrip()[:1] in CLOSERS:
                return position
            return _trim_blank_tail(completion, start)
        if header is None and column < base:
            return _trim_blank_tail(completion, start)
        if header is None and column == base == 0 and opens_block(text, syntax):
            header = column  # at top level, one definition at a time; inside a body, siblings go on
    return len(completion)


_CONTINUATIONS = ("elif ", "elif(", "else:", "else ", "except", "finally:", "case ", "default:")


def _continues(line: str, indent_blocks: bool) -> bool:
    """A line that continues the statement whose block just ended (`else:`, `} else {`)."""
    code = line.strip()
    if indent_blocks:
        return code.startswith(_CONTINUATIONS)
    return code[:1] in CLOSERS and len(code) > 1 and opens_block(code, None)


def balanced_line_ends(text: str) -> list[int]:
    """Indices just after each line of `text` at which its brackets are balanced (depth 0)."""
    ends: list[int] = []
    depth = 0
    for index, char in enumerate(text):
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
        elif char == "\n" and depth <= 0 and index > 0:
            ends.append(index)
    if depth <= 0 and text and not text.endswith("\n"):
        ends.append(len(text))
    return ends


def syntax_errors(language: str, text: str) -> int:
    """Number of ERROR and MISSING nodes when `text` is parsed as `language`."""
    tree = parse(language, text.encode("utf-8", "surrogatepass"))
    count = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


def _trim_blank_tail(completion: str, index: int) -> int:
    return len(completion[:index].rstrip())


def _last_code_line(text: str) -> str | None:
    for line in reversed(text.split("\n")):
        if line.strip():
            return line
    return None


def _first_code_line(text: str) -> str | None:
    for line in text.split("\n")[1:]:
        if line.strip():
            return line
    return None
