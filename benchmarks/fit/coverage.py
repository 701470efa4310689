"""Whether a prompt holds the names of the line it should complete: the objective the value model
is fitted on (`benchmarks.value_fit`).

A masked line's names are its identifiers (`[A-Za-z_][A-Za-z_0-9]*`) but the languages' keywords
(`indexer.TEXT_KEYWORDS`: the model writes `return` or `catch` without being shown one). A prompt
covers the line when every one of its names appears as a word in its prefix, suffix or snippets. A line whose names are
all in the prompt is one the model can copy or compose; one whose names are missing needs a
guess. `exact_given_covered` reads that link off a next-line run's rows: how often a setting's
completion was exact when its prompt covered the line, and when it did not.
"""

from __future__ import annotations

import re

from indexer import TEXT_KEYWORDS
from inference.api import CompletionRequest

WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def words(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text))


def prompt_words(request: CompletionRequest) -> frozenset[str]:
    return words(request.prefix) | words(request.suffix) | frozenset().union(
        *(words(s.text) for s in request.snippets))


def names(line: str) -> frozenset[str]:
    return words(line) - TEXT_KEYWORDS


def covers(request: CompletionRequest, truth: str) -> bool:
    return names(truth) <= prompt_words(request)


def exact_given_covered(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Rows with `covered` (bool) and `em` (0 or 100): exact-match rate among covered and
    uncovered lines."""
    out: dict[str, dict[str, float]] = {}
    for key, flag in (("covered", True), ("uncovered", False)):
        ems = [r["em"] for r in rows if r["covered"] is flag]
        out[key] = {"lines": len(ems), "exact": round(sum(ems) / 100.0 / len(ems), 3) if ems else 0.0}
    return out
