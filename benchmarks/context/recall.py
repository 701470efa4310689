"""Recall of the definitions a target line needs, in the context `build_context` gives, and in
the two baselines' contexts at the same budget.

Modes (the cursor at the start of the target line):
- "unseen_line" (the headline): the line itself is removed and the edited buffer is opened in the
  index, as the editor's document would be, so only the code around the cursor can reveal which
  definitions the line will need;
- "fim": the file is cut at the cursor (the line and what follows are the suffix).
A name counts as recalled when a snippet from a defining file covers its definition's name line
or shows that line's text (as the class header above a member does).

Baselines: "prefix_window" (the FIM windows alone: never recalls another file's definition) and
"jaccard" (windows of 20 lines, stride 10, from the package's other files, ranked by Jaccard
similarity of identifier sets with the 20 lines around the cursor, as RepoCoder and Continue
retrieve, packed in rank order into the snippet share of the budget). The baseline pays for
what its prompt shows, as arbor's snippets do: the lines a window adds to those already chosen,
and a file header (`pruning.packing.header_cost`) for each window that starts a new run of lines.
"""

from __future__ import annotations

import os
import re
import statistics

from indexer.workspace import normalize_path
from pruning.budget import DEFAULT_TOKENIZER, prefix_window, suffix_window
from pruning.context import build_context
from pruning.packing import header_cost

from .targets import Target

WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# The baseline's prefix and suffix windows take these shares of the budget (build_context's
# defaults); its retrieved windows fill the rest.
JACCARD_PREFIX_SHARE = 0.45
JACCARD_SUFFIX_SHARE = 0.15
MODES = ("unseen_line", "fim")


class JaccardWindows:
    """The Jaccard baseline over one package's files; each file's windows are cut once."""

    def __init__(self, index, files: list[str], root: str, size: int = 20, stride: int = 10) -> None:
        self.index = index
        self.files = files
        self.root = root  # snippets name their files relative to it
        self.size = size
        self.stride = stride
        self._windows: dict[str, list[tuple[int, int, frozenset[str], str]]] = {}

    def covered(self, path: str, text: str, offset: int, budget: int) -> set[tuple[str, int]]:
        """Lines (path, line) of the windows retrieved for a cursor at `offset` of `text`."""
        lines = text.split("\n")
        cursor = text.count("\n", 0, offset)
        half = self.size // 2
        query = set(WORD.findall("\n".join(lines[max(0, cursor - half): cursor + half])))
        left = budget - prefix_window(text[:offset], int(budget * JACCARD_PREFIX_SHARE)).tokens \
            - suffix_window(text[offset:], int(budget * JACCARD_SUFFIX_SHARE)).tokens
        scored = []
        for other in self.files:
            if other == path:
                continue
            for start, end, words, chunk in self._of(other):
                union = len(words | query)
                if union:
                    scored.append((-len(words & query) / union, other, start, end, chunk))
        scored.sort()
        covered: set[tuple[str, int]] = set()
        for _, other, start, end, chunk in scored:
            lines = chunk.split("\n")
            added = [n for n in range(start, end) if (other, n) not in covered]
            cost = sum(DEFAULT_TOKENIZER.count(lines[n - start] + "\n") for n in added)
            if len(added) == end - start and (other, start - 1) not in covered and (other, end) not in covered:
                cost += header_cost(os.path.relpath(other, self.root), DEFAULT_TOKENIZER.count)
            if not added or cost > left:
                continue
            left -= cost
            covered.update((other, n) for n in added)
        return covered

    def _of(self, path: str) -> list[tuple[int, int, frozenset[str], str]]:
        cut = self._windows.get(path)
        if cut is None:
            lines = (self.index.text(path) or "").split("\n")
            cut = []
            for start in range(0, max(1, len(lines) - self.size + self.stride), self.stride):
                chunk = "\n".join(lines[start:start + self.size])
                cut.append((start, min(len(lines), start + self.size), frozenset(WORD.findall(chunk)), chunk))
            self._windows[path] = cut
        return cut


def shows(parts, root: str, index, path: str, line: int) -> bool:
    """Whether a snippet from `path` covers `line` or contains that line's text."""
    wanted = (index.text(path) or "").split("\n")[line].strip()
    for snippet in parts.snippets:
        if os.path.join(root, snippet.path) != path:
            continue
        if snippet.start_line - 1 <= line < snippet.end_line or (wanted and wanted in snippet.text):
            return True
    return False


def recall(index, root: str, language: str, targets: list[Target], budget: int,
           jaccard: JaccardWindows, memo=None) -> dict:
    """Per mode: names, recall of each context, margin over the best baseline, median
    compression ratio and snippets."""
    modes = {}
    for mode in MODES:
        hits = {"pruned": 0, "prefix_window": 0, "jaccard": 0}
        names = unindexed = 0
        ratios, snippets_used = [], []
        for target in targets:
            text = index.text(target.path)
            starts = line_starts(text)
            offset = starts[target.line]
            if mode == "unseen_line":
                end = starts[target.line + 1] if target.line + 1 < len(starts) else len(text)
                text = text[:offset] + text[end:]
                if not open_indexed(index, target.path, text, language):
                    unindexed += 1  # the file on disk (holding the line) would answer: not counted
                    index.did_close(target.path)
                    continue
            parts = build_context(target.path, text, offset, language=language, budget_tokens=budget,
                                  index=index, workspace_root=root, memo=memo)
            if mode == "unseen_line":
                index.did_close(target.path)
            windows = jaccard.covered(target.path, text, offset, budget)
            for where in target.names.values():
                names += 1
                hits["pruned"] += any(shows(parts, root, index, p, n) for p, n in where)
                hits["jaccard"] += any((p, n) in windows for p, n in where)
            context_chars = len(parts.prefix) + len(parts.suffix) + sum(len(s.text) for s in parts.snippets)
            involved = {target.path} | {os.path.join(root, p) for p, _ in parts.depends_on}
            involved_chars = sum(len(index.text(p) or "") for p in involved if os.path.exists(p))
            ratios.append(involved_chars / max(1, context_chars))
            snippets_used.append(len(parts.snippets))
        rates = {k: round(v / max(1, names), 3) for k, v in hits.items()}
        modes[mode] = {
            "lines": len(targets) - unindexed, "names": names, "hits": hits, "recall": rates,
            "lines_left_out_unindexed": unindexed,
            "margin_over_best_baseline": round(rates["pruned"] - max(rates["prefix_window"], rates["jaccard"]), 3),
            "median_compression_ratio": round(statistics.median(ratios), 1) if ratios else None,
            "median_snippets": statistics.median(snippets_used) if snippets_used else None,
        }
    return modes


OPEN_FLUSH_TRIES = 8


def open_indexed(index, path: str, text: str, language: str) -> bool:
    """Open `path` as a buffer holding `text` and flush it until the snapshot's entry for it is
    made from `text` (a first tagging can be cut by the parse budget on a busy machine, and the
    entry would stay the file on disk, which holds the line the user has not typed yet).
    Whether it is, after at most OPEN_FLUSH_TRIES flushes."""
    index.did_open(path, text, language)
    wanted = text.encode("utf-8")
    for _ in range(OPEN_FLUSH_TRIES):
        index.flush(path)
        entry = index.snapshot_for(path).entry(normalize_path(path))
        if entry is not None and entry.source == wanted:
            return True
    return False


def line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts
