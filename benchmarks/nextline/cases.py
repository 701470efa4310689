"""Masked single lines: which lines qualify, how one is masked, and the seeded sample.

A case is one line of real code in a real file. Masking removes that line's text after its
indentation and keeps everything else: the lines before, the indentation, the line break and
the whole rest of the file after it. The cursor sits right after the indentation.

A line qualifies when its code (stripped) has at least `MIN_CODE` characters including a letter,
is not a comment or a docstring delimiter, does not start inside a string or comment node of the
file's tree-sitter tree (docstrings, a shell script in a Go raw string), and is not one of the
file's import lines. A line is
"cross-file" when the indexer's tags show it referencing a top-level name that another file of
the same package defines (in at most 3 files) and the file itself does not define.

Sampling is deterministic for given trees: candidates in package, path, then line order; a RNG
seeded with (seed, language) shuffles the cross-file and the other candidates separately, and
`round(count * crossfile_share)` cases come from the cross-file ones (fewer if there are fewer),
the rest from the others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MIN_CODE = 6
COMMENT_STARTS = ("#", "//", "/*", "*", '"""', "'''", "*/")
TOP_KINDS = ("function", "class", "variable", "constant", "method", "type", "interface", "enum")


@dataclass(frozen=True, slots=True)
class Candidate:
    package: str  # corpus.name_of(package)
    relative: str  # path inside the package's root
    line: int  # 0-based
    names: tuple[str, ...]  # the other files' names the line references (empty: not cross-file)

    @property
    def crossfile(self) -> bool:
        return bool(self.names)

    @property
    def case_id(self) -> str:
        return f"{self.package}:{self.relative}:{self.line + 1}"


@dataclass(frozen=True, slots=True)
class Masked:
    text: str  # the file with the line's code removed
    offset: int  # code points: right after the line's indentation
    truth: str  # the removed code, stripped of trailing whitespace


def qualifies(line: str) -> bool:
    code = line.strip()
    return (len(code) >= MIN_CODE and any(c.isalpha() for c in code)
            and not code.startswith(COMMENT_STARTS))


def mask(text: str, line: int) -> Masked:
    """`text` with line `line`'s code removed (see the module docstring)."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        raise ValueError(f"line {line} out of range (0..{len(lines) - 1})")
    original = lines[line]
    indent = original[: len(original) - len(original.lstrip())]
    start = sum(len(x) + 1 for x in lines[:line])
    masked = "\n".join(lines[:line] + [indent] + lines[line + 1:])
    return Masked(masked, start + len(indent), original.strip())


def literal_lines(text: str, language: str) -> set[int]:
    """Lines whose first non-blank character lies inside a string or comment node."""
    from indexer import languages

    lang = languages.language_for_id(language)
    if lang is None:
        return set()
    source = text.encode("utf-8")
    root = languages.parse(lang, source).root_node
    out, at = set(), 0
    for number, line in enumerate(source.split(b"\n")):
        code = len(line) - len(line.lstrip())
        if code < len(line):
            node = root.descendant_for_byte_range(at + code, at + code + 1)
            while node is not None and node != root:
                if "string" in node.type or "comment" in node.type:
                    out.add(number)
                    break
                node = node.parent
        at += len(line) + 1
    return out


def candidates_in(package: str, relative: str, text: str, *, import_lines: set[int],
                  crossfile: dict[int, set[str]], language: str = "") -> list[Candidate]:
    """The file's qualifying lines, each with the cross-file names it references."""
    out = []
    literal = literal_lines(text, language) if language else set()
    for number, line in enumerate(text.split("\n")):
        if number in import_lines or number in literal or not qualifies(line):
            continue
        out.append(Candidate(package, relative, number, tuple(sorted(crossfile.get(number, ())))))
    return out


def crossfile_names(graph, paths: list[str]) -> dict[str, dict[int, set[str]]]:
    """path -> line -> names it references that other files of `paths` define at top level."""
    top: dict[str, set[str]] = {}
    for path in paths:
        tags = graph.tags(path)
        for d in tags.definitions if tags else ():
            if d.container is None and d.kind in TOP_KINDS and len(d.name) > 2 and not d.name.startswith("__"):
                top.setdefault(d.name, set()).add(path)
    out: dict[str, dict[int, set[str]]] = {}
    for path in paths:
        tags = graph.tags(path)
        if tags is None:
            continue
        own = {d.name for d in tags.definitions}
        by_line: dict[int, set[str]] = {}
        for ref in tags.references:
            where = top.get(ref.name)
            if not where or ref.name in own or len(where) > 3 or where == {path}:
                continue
            by_line.setdefault(ref.line, set()).add(ref.name)
        out[path] = by_line
    return out


def import_lines_of(graph, path: str) -> set[int]:
    tags = graph.tags(path)
    return {imp.line for imp in tags.imports} if tags else set()


def sample(candidates: list[Candidate], count: int, *, seed: int, language: str,
           crossfile_share: float = 0.5) -> list[Candidate]:
    """`count` candidates (see the module docstring), returned in sampling order."""
    rng = random.Random(f"{seed}:{language}")
    cross = [c for c in candidates if c.crossfile]
    other = [c for c in candidates if not c.crossfile]
    rng.shuffle(cross)
    rng.shuffle(other)
    wanted = min(len(cross), round(count * crossfile_share))
    picked = cross[:wanted] + other[: count - wanted]
    if len(picked) < count:  # too few plain lines: fill with more cross-file ones
        picked += cross[wanted: wanted + count - len(picked)]
    # interleave so that a run stopped early holds both kinds
    rng.shuffle(picked)
    return picked
