"""`CompletionPipeline`: cursor -> context -> router (cache, backend) -> post-processing.

The server and the CLI (`arbor-ls complete` / `context`) run the same pipeline, so what the CLI
prints is exactly what an editor would get. Latency is reported per stage in milliseconds.
Within one buffer, completions show the snippets of a held layout (`pruning.held_layout`) until
a fresh choice has been prefilled by `warm`, and start the prefix window on the line the shown
layout's did while it fits, so a keystroke's prompt begins as the last one did.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from indexer import languages, work_budget
from inference.api import PRIORITY_BACKGROUND, PRIORITY_INTERACTIVE, CompletionRequest, CompletionResult
from inference.router import Router
from pruning.content_memo import ContentMemo
from pruning.context import build_context
from pruning.held_layout import HeldLayout
from pruning.postprocess import postprocess, wants_multiline
from pruning.prompt import PromptParts

from .config import Settings
from .privacy import Privacy
from .prompt_request import request_from_parts

log = logging.getLogger(__name__)
TEXT_ONLY_CHARS_PER_TOKEN = 4  # how far around the cursor a text-only context looks, per budget token


class LayoutHolder(Protocol):
    """Where a buffer keeps the snippet layouts its completions show again (an open document):
    `layout`, the one they show while it holds (a warm-up's choice once prefilled, or what a
    completion showed), and `warming`, the choice of a warm-up not finished yet (cut short or
    still running: the chunks it computed are cached)."""

    layout: HeldLayout | None
    warming: HeldLayout | None


@dataclass(slots=True)
class HeldBuffer:
    """A `LayoutHolder` for a buffer outside the server (`arbor-ls complete --then-type`)."""

    layout: HeldLayout | None = None
    warming: HeldLayout | None = None


def language_id_for(path: str) -> str:
    """The LSP languageId of a file an editor did not name (`indexer.languages` keeps the table)."""
    return languages.lsp_language_id(path)


class CompletionPipeline:
    def __init__(self, settings: Settings, workspace_root: str | None = None, *, index: Any = None,
                 cache: Any = None, router: Router | None = None, privacy: Privacy | None = None,
                 on_context: Callable[[str, PromptParts], None] | None = None):
        self.settings = settings
        self.on_context = on_context  # told of each interactive completion's context (the scheduler)
        self.memo = ContentMemo()  # token counts kept between this pipeline's contexts
        self.privacy = privacy or Privacy(settings.privacy)
        self.workspace_root = workspace_root
        self.index = index
        self._router = router
        self._cache = cache
        self.last_context: PromptParts | None = None

    @property
    def router(self) -> Router:
        """Created on first use: building context alone never loads a model or opens a connection."""
        if self._router is None:
            self._router = Router(self.settings.backends, cache=self._cache, breaker=self.settings.breaker,
                                  route=self.settings.route)
        return self._router

    @property
    def budget_tokens(self) -> int:
        """The context budget in force: `context.budgetTokens`, lowered to what the primary
        backend prefills within `context.maxPromptMs` at its measured speed."""
        cfg = self.settings.context
        if self._router is None or not cfg.max_prompt_ms:
            return cfg.budget_tokens
        return self._router.prompt_budget(cfg.max_prompt_ms / 1000, cfg.budget_tokens)

    @property
    def holds_layouts(self) -> bool:
        """Whether completions show a buffer's held layout: only where warm-ups run and the primary
        backend has a cache they fill (else nothing would ever bring a fresh choice of snippets)."""
        return self.settings.completion.warm_up and self.router.warms

    @property
    def repo_name(self) -> str:
        return Path(self.workspace_root).name if self.workspace_root else ""

    def build_context(self, path: str, text: str, offset: int, *, language: str = "",
                      budget_tokens: int | None = None, holds: Sequence[HeldLayout] = (),
                      keep_layout: bool = True, prefix_start: int | None = None) -> PromptParts:
        cfg = self.settings.context
        text = self.privacy.redact_text(text, path)  # same length: `offset` stays valid

        budget = budget_tokens or self.budget_tokens

        def context(syntax_aware: bool) -> PromptParts:
            # the windows alone never hold more than the budget's worth of characters each side
            near, at = (text, offset) if syntax_aware else _around(text, offset, budget * TEXT_ONLY_CHARS_PER_TOKEN)
            return build_context(
                path, near, at, language=language or language_id_for(path),
                budget_tokens=budget,
                prefix_share=cfg.prefix_share, suffix_share=cfg.suffix_share, index=self.index,
                workspace_root=self.workspace_root, memo=self.memo, syntax_aware=syntax_aware, holds=holds,
                keep_layout=keep_layout, prefix_start=prefix_start if syntax_aware else None,
            )

        # the tree-sitter work of one context is bounded: a buffer the index keeps as text only,
        # or one whose parse and queries run past `context.syntaxBudgetMs`, gets the windows alone
        text_only = getattr(self.index, "text_only", None)
        if text_only is not None and text_only(path):
            return context(False)
        try:
            with work_budget.limit(cfg.syntax_budget_ms):
                return context(True)
        except work_budget.BudgetExceeded:
            log.info("context for %s: past its %d ms syntax budget, text windows only", path, cfg.syntax_budget_ms)
            return context(False)

    def wants_multiline(self, parts: PromptParts) -> bool:
        mode = self.settings.completion.multiline
        if mode != "auto":
            return mode == "always"
        return wants_multiline(parts.prefix, parts.suffix, parts.language)

    def request_for(self, parts: PromptParts, priority: int = PRIORITY_INTERACTIVE) -> CompletionRequest:
        """A single-line request asks for at most `completion.maxLineTokens`: the stream closes at
        the first full line anyway, and a model that rambles (blank lines, a long docstring) must
        not hold the engine for a whole multi-line budget."""
        cfg = self.settings.completion
        multiline = self.wants_multiline(parts)
        max_tokens = cfg.max_tokens if multiline else min(cfg.max_tokens, cfg.max_line_tokens)
        return request_from_parts(parts, multiline=multiline, max_tokens=max_tokens, repo_name=self.repo_name,
                                  priority=priority, multiline_budget_ms=cfg.multiline_budget_ms)

    async def warm(self, path: str, text: str, offset: int, *, language: str = "",
                   holder: LayoutHolder | None = None) -> int:
        """Prefill the prompt a completion at `offset` would send, with a fresh choice of snippets,
        into the primary backend's KV cache (background priority). With `holder` (and
        `holds_layouts`) the choice is `holder.warming` while it is prefilled: completions whose
        held layout no longer holds show it, and a warm-up that replaces this one before it ends
        (its task cancelled) keeps it while it holds, so the chunks computed so far serve both.
        Once prefilled, it becomes `holder.layout`, unless a completion made another layout the
        holder's meanwhile. Returns the tokens it evaluated (0: nothing to warm, and no context is
        built where the primary backend keeps no prompt cache to fill)."""
        if self.privacy.denies(path) or not self.router.warms:
            return 0
        held = holder if holder is not None and self.holds_layouts else None
        kept = (held.warming,) if held is not None and held.warming is not None else ()
        parts = self.build_context(path, text, offset, language=language, holds=kept, keep_layout=held is not None,
                                   prefix_start=_prefix_start(held))
        request = self.request_for(parts, PRIORITY_BACKGROUND)
        if held is None:
            return await self.router.warm(request)
        shown_before = held.layout
        held.warming = parts.layout
        tokens = await self.router.warm(request)  # cancelled: `warming` stays for the next warm-up
        if held.warming is parts.layout:
            held.warming = None
        if tokens > 0 and held.layout is shown_before:
            held.layout = parts.layout
        return tokens

    async def complete(self, path: str, text: str, offset: int, *, language: str = "",
                       priority: int = PRIORITY_INTERACTIVE, holder: LayoutHolder | None = None) -> CompletionResult:
        """The completion at `offset`. With `holder` (the buffer's state) and `holds_layouts`, the
        context shows `holder`'s layout again while it holds, else the layout a warm-up is
        prefilling while that one holds (a fresh choice of snippets reaches the holder through
        `warm`, prefilled first); an interactive request makes the layout it showed the
        holder's."""
        if self.privacy.denies(path):  # a denied file's content never reaches a prompt
            self.privacy.count("denied_completions")
            return CompletionResult(text="", latency_ms={"total": 0.0})
        started = time.perf_counter()
        holds: tuple[HeldLayout, ...] = ()
        holding = holder is not None and self.holds_layouts
        if holding:
            warming = holder.warming if holder.warming is not holder.layout else None
            holds = tuple(held for held in (holder.layout, warming) if held is not None)
        parts = self.build_context(path, text, offset, language=language, holds=holds, keep_layout=holding,
                                   prefix_start=_prefix_start(holder if holding else None))
        if holding and priority == PRIORITY_INTERACTIVE and parts.layout is not holder.layout:
            holder.layout = parts.layout
        if priority == PRIORITY_INTERACTIVE:
            self.last_context = parts
            if self.on_context is not None:
                self.on_context(path, parts)
        context_ms = _ms(started)
        cfg = self.settings.completion
        request = self.request_for(parts, priority)
        multiline = request.multiline

        def finish(raw: str) -> str:
            # bounded by the request's tokens and `maxLines` whatever the backend (or a cache) sent
            return postprocess(raw, prefix=parts.prefix, suffix=parts.suffix, language=parts.language,
                               multiline_mode=cfg.multiline, multiline=multiline,
                               max_tokens=request.max_tokens, max_lines=cfg.max_lines)

        # cached text made for another suffix (semantic hits) goes through the same post-processing
        result = await self.router.complete(request, verify=lambda cached: finish(cached) or None)
        post_started = time.perf_counter()
        result.text = finish(result.text)
        if self._cache is not None and result.text:
            self._cache.note_shown(request, result.text)  # typing-through serves what is on screen
        result.latency_ms = {"context": context_ms, **result.latency_ms,
                             "postprocess": _ms(post_started), "total": _ms(started)}
        return result

    async def aclose(self) -> None:
        if self._router is not None:
            await self._router.aclose()


def _around(text: str, offset: int, reach: int) -> tuple[str, int]:
    """The text within `reach` characters of `offset` (starting at a line start where one is in
    reach), and `offset` in it."""
    if len(text) <= 2 * reach:
        return text, offset
    start = max(0, offset - reach)
    if start > 0:
        line = text.find("\n", start, offset)
        start = line + 1 if line >= 0 else start
    return text[start:offset + reach], offset - start


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


def _prefix_start(holder: LayoutHolder | None) -> int | None:
    """The line the prompts `holder`'s buffer shows start their prefix window at (None: none yet)."""
    return holder.layout.prefix_start if holder is not None and holder.layout is not None else None
