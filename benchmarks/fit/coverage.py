"""Whether a prompt holds the names of the line it should complete: the objective the value model
is fitted on (`benchmarks.value_fit`).

A masked line's names are its identifiers (`[A-Za-z_][A-Za-z_0-9]*`) but the languages' keywords
(`indexer.TEXT_KEYWORDS`: the model writes `return` or `catch` without being shown one). A prompt
covers the line when every one of its names appears as a word in its prefix, suffix or
snippets. A line whose names are all in the prompt is one the model can copy or compose; one
whose names are missing needs a guess.
"""

from __future__ import annotations

from benchmarks.context.recall import WORD
from indexer import TEXT_KEYWORDS
from inference.api import CompletionRequest


def words(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text))


def prompt_words(request: CompletionRequest) -> frozenset[str]:
    return words(request.prefix) | words(request.suffix) | frozenset().union(
        *(words(s.text) for s in request.snippets))


def names(line: str) -> frozenset[str]:
    return words(line) - TEXT_KEYWORDS


def covers(request: CompletionRequest, truth: str) -> bool:
    return names(truth) <= prompt_words(request)
