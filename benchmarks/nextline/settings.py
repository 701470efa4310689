"""The three contexts a masked line is completed under, all at the same token budget.

- "infile": the server's pipeline with no index (prefix and suffix windows of the file only);
- "arbor": the server's pipeline over arbor's own index of the package, the masked buffer open in
  it as the editor's document would be (so the index never sees the removed line);
- "jaccard": the RepoCoder-style sliding-window baseline the context benchmark measures
  (`benchmarks.context.recall.JaccardWindows`: windows of 20 lines, stride 10, from the package's
  other files, ranked by Jaccard similarity of identifier sets with the 20 lines around the
  cursor, packed in rank order into what the file's prefix and suffix windows at their shares
  of the budget leave). Its retrieved lines become one snippet per contiguous run, in path then
  line order; its prompt is those windows and snippets, within the same budget.
Each yields the `CompletionRequest` the router is sent (single line, `max_tokens` the same for all).

The masked buffer is opened in the index and flushed before arbor's context is built, as the
server's scheduler re-indexes an edited buffer once typing pauses (`lsp_server.freshness`). The
contexts' syntax budget is `SYNTAX_BUDGET_MS`, far above the server's default: this benchmark
measures what a context holds, and a machine busy with other work must not turn one into the
text-only fallback (context_bench measures how long a context takes to build).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from benchmarks.context.recall import JACCARD_PREFIX_SHARE, JACCARD_SUFFIX_SHARE, JaccardWindows
from inference.api import CompletionRequest, ContextSnippet
from lsp_server.config import Settings
from lsp_server.pipeline import CompletionPipeline, language_id_for
from lsp_server.prompt_request import request_from_parts
from lsp_server.subcommands.target import build_index
from pruning.budget import prefix_window, suffix_window
from pruning.prompt import PromptParts

from .cases import Masked

SETTINGS = ("infile", "arbor", "jaccard")
SYNTAX_BUDGET_MS = 10_000


@dataclass(slots=True)
class Workspace:
    """One package indexed by arbor's indexer, and the two pipelines over it."""

    root: Path
    settings: Settings
    index: object
    arbor: CompletionPipeline
    infile: CompletionPipeline
    jaccard: JaccardWindows

    @classmethod
    def open(cls, root: Path, settings: Settings) -> "Workspace":
        index = build_index(settings, [str(root)], snapshot=False)
        files = sorted(index.graph.files)
        return cls(root, settings, index, CompletionPipeline(settings, str(root), index=index),
                   CompletionPipeline(settings, str(root), index=None), JaccardWindows(index, files, str(root)))


def requests(ws: Workspace, path: Path, masked: Masked, *,
             max_tokens: int) -> dict[str, tuple[CompletionRequest, PromptParts]]:
    """setting -> (request, the parts its prefix and suffix came from)."""
    language = language_id_for(str(path))
    repo = ws.root.name
    out: dict[str, tuple[CompletionRequest, PromptParts]] = {}
    plain = ws.infile.build_context(str(path), masked.text, masked.offset, language=language)
    out["infile"] = (request_from_parts(plain, multiline=False, max_tokens=max_tokens, repo_name=repo), plain)
    parts = arbor_context(ws, path, masked)
    out["arbor"] = (request_from_parts(parts, multiline=False, max_tokens=max_tokens, repo_name=repo), parts)
    out["jaccard"] = jaccard_request(ws, path, masked, max_tokens=max_tokens, plain=plain)
    return out


def jaccard_request(ws: Workspace, path: Path, masked: Masked, *, max_tokens: int,
                    plain: PromptParts | None = None) -> tuple[CompletionRequest, PromptParts]:
    """The baseline's request and the parts its windows came from; `plain` is the in-file
    context of the masked buffer when already built."""
    budget = ws.settings.context.budget_tokens
    if plain is None:
        plain = ws.infile.build_context(str(path), masked.text, masked.offset, language=language_id_for(str(path)))
    covered = ws.jaccard.covered(str(path), masked.text, masked.offset, budget)  # never reads `path`
    # the windows the baseline's retrieval left room for (`JaccardWindows.covered`), not in-file's
    # grown ones: the baseline's prompt stays within the same budget
    windows = dataclasses.replace(
        plain, prefix=prefix_window(masked.text[:masked.offset], int(budget * JACCARD_PREFIX_SHARE)).text,
        suffix=suffix_window(masked.text[masked.offset:], int(budget * JACCARD_SUFFIX_SHARE)).text)
    baseline = request_from_parts(windows, multiline=False, max_tokens=max_tokens, repo_name=ws.root.name)
    return dataclasses.replace(baseline, snippets=window_snippets(ws, covered)), windows


def arbor_context(ws: Workspace, path: Path, masked: Masked) -> PromptParts:
    """Arbor's context for the masked buffer, opened in the index while it is built."""
    language = language_id_for(str(path))
    ws.index.did_open(str(path), masked.text, language)
    ws.index.flush(str(path))
    try:
        return ws.arbor.build_context(str(path), masked.text, masked.offset, language=language)
    finally:
        ws.index.did_close(str(path))


def window_snippets(ws: Workspace, covered: set[tuple[str, int]]) -> tuple[ContextSnippet, ...]:
    """Covered (path, line) pairs as one snippet per contiguous run of lines."""
    by_path: dict[str, list[int]] = {}
    for path, line in covered:
        by_path.setdefault(path, []).append(line)
    snippets = []
    for path in sorted(by_path):
        lines = (ws.index.text(path) or "").split("\n")
        numbers = sorted(by_path[path])
        start = previous = numbers[0]
        for n in numbers[1:] + [None]:
            if n is not None and n == previous + 1:
                previous = n
                continue
            relative = Path(path).relative_to(ws.root).as_posix()
            snippets.append(ContextSnippet(relative, "\n".join(lines[start:previous + 1]) + "\n"))
            if n is not None:
                start = previous = n
    return tuple(snippets)
