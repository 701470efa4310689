"""Post-processing of raw model text before it becomes ghost text.

Order: cut at the first template or special token of any family (or one spelled out in its
generic shape, `<|...|>`, `<fim_...>`, and one cut short at the end of the text); indentation the cursor already sits after is not
repeated; single- or multi-line (the caller's choice, else
`blocks.wants_multiline` from the syntax at the cursor); multi-line text is cut at the end of the
syntactic block it opened (`blocks.block_end`, verified by re-parsing with the completion
inserted); trailing lines that repeat the suffix are dropped (in single-line mode too: a line
that only copies the next line of the file becomes empty); closing brackets that the suffix
already supplies are dropped; trailing whitespace is trimmed.

Before all of that the text is cut to `max_tokens` tokens' worth of characters (`CHARS_PER_TOKEN`
each, more than any tokenizer's token holds), never more than `MAX_CHARS`, and multi-line text is
cut to `max_lines` lines at the end (`bound_length`), whatever a backend sent.

Invariants: the result never contains FIM/special tokens, never consists only of whitespace
(an empty string is returned instead), and in single-line mode holds at most one line of code
(leading newlines kept when the model starts a new line).
"""

from __future__ import annotations

import re

from .blocks import CLOSERS, OPENERS, block_end, wants_multiline

# Template and special tokens of every family, and the generic shapes others take (a model that
# does not know them as single tokens may still spell them out: SmolLM2 writes "<fim_end>").
_SPECIAL = re.compile(
    r"<\|[A-Za-z_]+\|>"  # <|endoftext|>, <|fim_prefix|>, <|im_end|>, <|file_separator|>, <|EOT|>
    r"|<fim[_-][A-Za-z_]+>"  # <fim_prefix>, <fim_end>, <fim_pad>, ...
    r"|<(?:file_sep|reponame|repo_name|filename|gh_stars|eos|end_of_turn|start_of_turn|EOT|PRE|SUF|MID)>"
    r"|</s>|\[(?:PREFIX|SUFFIX|MIDDLE|INST)\]|<｜[^｜\n]*｜>"
)
# A special token cut short at the end of the text (generation stopped inside it).
_PARTIAL_SPECIAL = re.compile(r"(?:<\|[A-Za-z_]*|<fim[_-]?[A-Za-z_]*|<｜[^｜\n]*)$")

CHARS_PER_TOKEN = 32  # no token of a code model's vocabulary is longer
MAX_CHARS = 65536  # whatever the caller's bounds: no ghost text is longer

__all__ = ["postprocess", "bound_length", "cut_at_special", "wants_multiline", "drop_suffix_repeats",
           "balance_brackets"]


def postprocess(completion: str, *, prefix: str = "", suffix: str = "", language: str = "",
                multiline_mode: str = "auto", multiline: bool | None = None,
                max_tokens: int | None = None, max_lines: int | None = None) -> str:
    """Clean `completion` for insertion between `prefix` and `suffix`."""
    text = cut_at_special(bound_length(completion, max_tokens=max_tokens))
    if multiline is None:
        multiline = multiline_mode == "always" or (
            multiline_mode == "auto" and wants_multiline(prefix, suffix, language))
    if multiline_mode == "never":
        multiline = False
    line_start = prefix[prefix.rfind("\n") + 1:]
    text = _drop_repeated_indent(text, line_start)
    if not multiline:
        text = _first_line(text)
    else:
        text = text[: block_end(text, prefix, suffix, language)]
    text = drop_suffix_repeats(text, suffix, line_start)
    text = _drop_inline_overlap(text, suffix)
    text = balance_brackets(text, suffix)
    if multiline:
        text = bound_length(text, max_lines=max_lines).rstrip(" \t\n")
    else:
        text = text.rstrip()
    return text if text.strip() else ""


def bound_length(text: str, *, max_tokens: int | None = None, max_lines: int | None = None) -> str:
    """The start of `text` that `max_tokens` tokens (`CHARS_PER_TOKEN` characters each) and
    `max_lines` lines can hold, at most `MAX_CHARS` characters; `text` itself when it fits."""
    limit = MAX_CHARS if max_tokens is None else min(MAX_CHARS, max(1, max_tokens) * CHARS_PER_TOKEN)
    if len(text) > limit:
        text = text[:limit]
    if max_lines is not None and text.count("\n") >= max_lines:
        text = "\n".join(text.split("\n", max_lines)[:max(1, max_lines)])
    return text


def cut_at_special(text: str) -> str:
    """`text` up to its first template or special token, without a token cut short at its end."""
    text = _SPECIAL.split(text, maxsplit=1)[0]
    return _PARTIAL_SPECIAL.sub("", text)


def _drop_repeated_indent(text: str, line_start: str) -> str:
    """The cursor sits after indentation and the model wrote that indentation again: drop it."""
    if not line_start or line_start.strip():
        return text
    lead = len(text) - len(text.lstrip(" \t"))
    return text[min(lead, len(line_start)):] if not text[lead:lead + 1] == "\n" else text


def _first_line(text: str) -> str:
    lead = len(text) - len(text.lstrip("\n"))
    body = text[lead:]
    return text[:lead] + body.split("\n", 1)[0]


def drop_suffix_repeats(text: str, suffix: str, line_start: str = "") -> str:
    """Drop the completion's trailing lines when they repeat the suffix's first code lines,
    indentation included (`line_start` is the cursor line's text before the cursor)."""
    text = text.rstrip(" \t\n")
    lines = text.split("\n")
    absolute = [line_start + lines[0]] + lines[1:]
    following = [line.rstrip() for line in suffix.split("\n") if line.strip()][:len(lines)]
    if not following:
        return text
    best = 0
    for size in range(1, min(len(lines), len(following)) + 1):
        tail = [line.rstrip() for line in absolute[-size:]]
        if tail == following[:size] and any(tail):
            best = size
    if best == 0 or best == len(lines):
        return text if best == 0 else ""
    return "\n".join(lines[:-best])


def _drop_inline_overlap(text: str, suffix: str) -> str:
    """The completion ends with the beginning of the rest of the cursor line: drop that part."""
    rest = suffix.split("\n", 1)[0]
    if not rest.strip() or "\n" in text.rstrip("\n"):
        return text
    for size in range(min(len(text), len(rest)), 0, -1):
        if text.endswith(rest[:size]) and rest[:size].strip():
            return text[:-size]
    return text


def balance_brackets(text: str, suffix: str) -> str:
    """Drop trailing closers the completion does not open when the suffix already starts with them.

    `foo(a, b)` typed before a suffix `)` becomes `foo(a, b` ... only if that `)` is unmatched in
    the completion: closers the completion itself opened are kept.
    """
    unmatched = _unmatched_closers(text)
    if not unmatched:
        return text
    body = text.rstrip()
    trailing = ""
    while body and body[-1] in CLOSERS and len(body) - 1 in unmatched:
        trailing = body[-1] + trailing
        body = body[:-1]
    if not trailing:
        return text
    ahead = suffix.lstrip(" \t")
    keep = ""
    for char in trailing:
        if ahead.startswith(char):
            ahead = ahead[1:].lstrip(" \t")
        else:
            keep += char
    return body + keep


def _unmatched_closers(text: str) -> set[int]:
    stack: list[str] = []
    unmatched: set[int] = set()
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote and text[index - 1:index] != "\\":
                quote = ""
            continue
        if char in "\"'`":
            quote = char
        elif char in OPENERS:
            stack.append(char)
        elif char in CLOSERS:
            if stack and stack[-1] == CLOSERS[char]:
                stack.pop()
            else:
                unmatched.add(index)
    return unmatched
