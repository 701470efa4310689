"""Path filters: `.gitignore` rules and include/exclude globs (pure; paths are '/'-separated).

Glob syntax (settings `index.include` / `index.exclude`, matched against root-relative paths):
`*` any run of characters except '/', `?` one such character, `**` any run including '/'
(`**/` may also match nothing), `[abc]` / `[!abc]` a class, `{a,b}` alternatives.

`.gitignore` semantics implemented (a subset of git's that covers real files):
- blank lines and `#` comments are skipped; `\\#` and `\\!` escape; trailing spaces are trimmed;
- `!pattern` re-includes; the last matching rule of the deepest `.gitignore` wins;
- a trailing `/` matches directories only;
- a pattern with a '/' before its end is anchored to the `.gitignore`'s directory, otherwise it
  matches the name at any depth; `**` works as in globs.
A file inside an ignored directory stays ignored (directories are pruned before their content).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _translate(pattern: str) -> str:
    """Regex source (no anchors) for a glob pattern."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern.startswith("[!", i) or pattern.startswith("[]", i) else i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "{":
            j = pattern.find("}", i)
            if j < 0:
                out.append(re.escape(c))
            else:
                alternatives = pattern[i + 1:j].split(",")
                out.append("(?:" + "|".join(_translate(a) for a in alternatives) + ")")
                i = j
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A compiled matcher for one glob (a leading '/' or './' is ignored)."""
    pattern = pattern.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    return re.compile(_translate(pattern.lstrip("/")) + r"\Z", re.DOTALL)


class GlobSet:
    """Globs compiled once (by their owner, e.g. `ScanOptions`): `match(rel_path)` tells whether
    the root-relative path matches one of them."""

    __slots__ = ("globs", "_patterns")

    def __init__(self, globs: tuple[str, ...]) -> None:
        self.globs = globs
        self._patterns = tuple(compile_glob(g) for g in globs)

    def match(self, rel_path: str) -> bool:
        return any(p.match(rel_path) for p in self._patterns)


def matches_any(globs: tuple[str, ...], rel_path: str) -> bool:
    """Whether the root-relative `rel_path` matches one of `globs` (compiled for this call)."""
    return GlobSet(globs).match(rel_path)


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool


def parse_gitignore(text: str) -> tuple[IgnoreRule, ...]:
    """Rules of one `.gitignore` file, in file order."""
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = raw.rstrip("\n\r")
        if not line or line.startswith("#"):
            continue
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "
        line = stripped
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _translate(line.lstrip("/"))
        source = body if anchored else "(?:.*/)?" + body
        rules.append(IgnoreRule(re.compile(source + r"\Z", re.DOTALL), negated, directory_only))
    return tuple(rules)


def gitignore_verdict(rules: tuple[IgnoreRule, ...], rel_path: str, is_dir: bool) -> bool | None:
    """True (ignored), False (re-included) or None (no rule matched) for a path relative to the
    `.gitignore`'s directory."""
    verdict: bool | None = None
    for rule in rules:
        if rule.directory_only and not is_dir:
            continue
        if rule.regex.match(rel_path):
            verdict = not rule.negated
    return verdict
