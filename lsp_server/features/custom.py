"""arbor-ls's own methods: `arbor/stats` (counters, latency percentiles, backend and cache
state) and `arbor/context` (the last prompt's context, as `arbor-ls context --json` prints it).
`arbor/status` is a server -> client notification sent by `ArborServer.send_status`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..context_report import context_report

if TYPE_CHECKING:
    from ..server import ArborServer


def register(server: ArborServer) -> None:
    @server.feature("arbor/stats")
    def stats(ls: ArborServer, *_: Any) -> dict[str, Any]:
        report: dict[str, Any] = ls.stats.snapshot()
        report["documents"] = len(ls.documents)
        report["backends"] = ls._pipeline.router.status() if ls._pipeline else []
        report["anticipation"] = dict(ls.anticipation.counters)
        report["budgetTokens"] = ls._pipeline.budget_tokens if ls._pipeline else ls.settings.context.budget_tokens
        if ls.cache is not None and hasattr(ls.cache, "stats"):
            report["cache"] = ls.cache.stats()
        if ls.index is not None and hasattr(ls.index, "stats"):
            report["index"] = ls.index.stats()
        report["privacy"] = ls.privacy.stats()
        return ls.privacy.scrub_json(report)  # no API key or URL userinfo, whatever a backend echoed

    @server.feature("arbor/context")
    def context(ls: ArborServer, *_: Any) -> dict[str, Any] | None:
        pipeline = ls._pipeline
        if pipeline is None or pipeline.last_context is None:
            return None
        return context_report(pipeline.last_context, pipeline.router.primary_template(), pipeline.repo_name)
