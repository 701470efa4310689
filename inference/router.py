"""The router: cache tiers first, then backends in configured order, under deadlines.

Policy:
- Backends are tried in the order of the `backends` setting; one whose circuit breaker is open is
  skipped, and a failure or a timeout falls through to the next one while the request's deadline
  leaves time.
- Each backend gets `min(timeoutMs, time left before the request's deadline)`.
- Cancelling `complete` cancels the backend stream at once (HTTP connection closed, engine
  sequence aborted): nothing keeps running for a request nobody waits for.
- The breaker counts errors, not slowness, for in-process backends: an embedded engine that is
  busy past the deadline (a slow CPU, a long prompt) is slow, not broken, and a model still
  loading (`BackendLoading`) is neither; both fall through without a breaker failure. A remote
  backend's timeout counts as a failure (a hung server must be skipped).
- When every backend that was tried is still loading, `complete` raises `BackendLoading`.
- In single-line mode the stream is closed as soon as a line is complete, so the model stops early.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .api import (Backend, BackendConfigError, BackendError, BackendLoading, CompletionRequest, CompletionResult,
                  SamplingParams)
from .backend_spec import BackendSpec
from .backends import create_backend
from .breaker import CircuitBreaker
from .prefill_speed import PrefillSpeed
from .stops import StopScanner
from .templates import FimTemplate, template_for

log = logging.getLogger(__name__)


IN_PROCESS_KINDS = ("embedded", "python")


@dataclass(slots=True)
class BackendSlot:
    spec: BackendSpec
    backend: Backend
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    last_error: str = ""
    prefill: PrefillSpeed = field(default_factory=PrefillSpeed)

    @property
    def prefill_speed(self) -> PrefillSpeed:
        """The backend's own measure where it keeps one (the embedded engine times its steps),
        else the router's, from the usage that backends report."""
        return getattr(self.backend, "prefill_speed", None) or self.prefill

    @property
    def in_process(self) -> bool:
        return self.spec.kind in IN_PROCESS_KINDS

    @property
    def template(self) -> FimTemplate:
        return template_for(self.spec.model_family or getattr(self.backend, "model_family", ""))


class Router:
    def __init__(self, specs: list[BackendSpec], cache: Any = None,
                 factory: Callable[[BackendSpec], Backend] = create_backend):
        self.cache = cache
        self.slots: list[BackendSlot] = []
        self.problems: list[str] = []
        for spec in specs:
            try:
                self.slots.append(BackendSlot(spec, factory(spec)))
            except BackendConfigError as exc:
                self.problems.append(str(exc))
                log.error("%s", exc)

    def status(self) -> list[dict[str, Any]]:
        """One entry per backend; backends that keep their own counters (the embedded engine's
        steps, prefix-cache hits, free KV blocks) add them under `stats`."""
        rows = []
        for s in self.slots:
            row: dict[str, Any] = {"name": s.spec.name, "kind": s.spec.kind, "model": s.spec.model,
                                   "breaker": s.breaker.state, "lastError": s.last_error,
                                   "prefillTokensPerS": round(s.prefill_speed.tokens_per_s or 0.0, 1)}
            stats = getattr(s.backend, "stats", None)
            if callable(stats):
                row["stats"] = stats()
            rows.append(row)
        return rows

    def loading_backends(self) -> list[BackendSlot]:
        """Slots whose backend is still starting (an embedded model loading)."""
        return [s for s in self.slots if getattr(s.backend, "loading", False)]

    async def wait_loaded(self) -> list[str]:
        """Wait until every backend has started; returns one line per backend that failed to."""
        failures = []
        for slot in self.slots:
            wait = getattr(slot.backend, "wait_loaded", None)
            if wait is None:
                continue
            try:
                await wait()
            except BackendConfigError as exc:
                slot.last_error = str(exc)
                failures.append(str(exc))
        return failures

    def prompt_budget(self, seconds: float, ceiling: int) -> int:
        """Prompt tokens the primary backend evaluates in `seconds` at its measured speed (at most
        `ceiling`; `ceiling` until a speed has been measured)."""
        return self.slots[0].prefill_speed.budget(seconds, ceiling) if self.slots else ceiling

    def primary_template(self) -> FimTemplate:
        return self.slots[0].template if self.slots else template_for("")

    async def complete(self, request: CompletionRequest, *,
                       verify: Callable[[str], str | None] | None = None) -> CompletionResult:
        """`verify` re-checks cached text made for another suffix (see inference.cache)."""
        started = time.perf_counter()
        deadline = started + request.deadline_ms / 1000 if request.deadline_ms else None
        errors: list[str] = list(self.problems)
        loading = 0
        for slot in self.slots:
            if not slot.breaker.allow():
                errors.append(f"{slot.spec.name}: circuit open")
                continue
            template = slot.template
            prompt = template.render(request)
            model_id = slot.backend.model_id
            if self.cache is not None:
                hit = self.cache.lookup(request, prompt, model_id, template.name, verify=verify)
                if hit is not None:
                    slot.breaker.record_success()
                    return CompletionResult(hit.text, backend=slot.spec.name, cache=hit.tier, prompt=prompt,
                                            latency_ms={"cache": _ms(started)}, usage={"prefilled_tokens": 0})
            timeout = slot.spec.timeout_ms / 1000
            if deadline is not None:
                timeout = min(timeout, deadline - time.perf_counter())
                if timeout <= 0:
                    errors.append(f"{slot.spec.name}: deadline passed before the request was sent")
                    break
            params = SamplingParams(
                max_tokens=request.max_tokens or slot.spec.max_tokens,
                temperature=request.temperature, top_p=request.top_p,
                stop=tuple(dict.fromkeys(request.stop + template.stop)),
                priority=request.priority, deadline_ms=timeout * 1000,
            )
            sent = time.perf_counter()
            first_text_at: list[float] = []

            def on_text(so_far: str) -> None:
                if not first_text_at:
                    first_text_at.append(time.perf_counter())
                if self.cache is not None:
                    self.cache.note_partial(request, so_far)

            try:
                text = await _within(collect(slot.backend, prompt, params, request.multiline, on_text), timeout)
            except TimeoutError:
                slot.last_error = f"timed out after {timeout * 1000:.0f} ms"
                # a backend's usage describes this request only once its first text came
                usage_now = getattr(slot.backend, "last_usage", None) if first_text_at else None
                log.info("%s: timed out after %.0f ms (first text after %s ms; prompt %s)", slot.spec.name,
                         timeout * 1000, _ms_or_none(first_text_at, sent), usage_now)
                if slot.in_process:
                    errors.append(f"{slot.spec.name}: {slot.last_error}")
                    continue
            except BackendLoading as exc:
                loading += 1
                errors.append(str(exc))
                continue
            except BackendError as exc:
                slot.last_error = str(exc)
            else:
                slot.breaker.record_success()
                slot.last_error = ""
                if self.cache is not None:
                    self.cache.store(request, prompt, model_id, template.name, text,
                                     write_behind=asyncio.get_running_loop().call_soon)
                usage = dict(getattr(slot.backend, "last_usage", None) or {})
                log.info("%s: %d chars in %.0f ms (first text after %s ms; %s)", slot.spec.name, len(text),
                         _ms(sent), _ms_or_none(first_text_at, sent), usage)
                if first_text_at and "prefilled_tokens" in usage and slot.prefill_speed is slot.prefill:
                    slot.prefill.observe(usage["prefilled_tokens"], first_text_at[0] - sent)
                return CompletionResult(text, backend=slot.spec.name, cache="miss", prompt=prompt,
                                        latency_ms={"backend": _ms(sent)}, usage=usage)
            slot.breaker.record_failure()
            errors.append(f"{slot.spec.name}: {slot.last_error}")
            log.warning("backend %s failed: %s", slot.spec.name, slot.last_error)
        if loading and loading == len(errors) - len(self.problems):
            raise BackendLoading("; ".join(errors))
        raise BackendError("; ".join(errors) or "no backend is configured")

    async def warm(self, request: CompletionRequest) -> int:
        """Prefill `request`'s prompt into the first usable backend that can warm its KV cache
        (`warm(prompt) -> tokens evaluated`); best effort: 0 when none can, never a breaker failure."""
        for slot in self.slots:
            if not slot.breaker.allow() or getattr(slot.backend, "loading", False):
                continue
            warm = getattr(slot.backend, "warm", None)
            if warm is None:
                return 0
            try:
                return await warm(slot.template.render(request))
            except (BackendError, RuntimeError, ValueError) as exc:
                log.debug("warm-up on %s failed: %s", slot.spec.name, exc)
                return 0
        return 0

    async def aclose(self) -> None:
        for slot in self.slots:
            with contextlib.suppress(Exception):
                await slot.backend.aclose()
        # the cache outlives routers (the server owns it and closes it at shutdown)


async def _within(awaitable, timeout: float):
    """`await awaitable`, raising TimeoutError after `timeout` s. With `asyncio.timeout` (3.11)
    it runs in the caller's task, so a backend that answers without waiting on I/O (a cache-like
    or in-process one) does not hand the event loop to other requests in between; `wait_for`
    would run it as a new task queued behind every request already waiting."""
    timeout_cm = getattr(asyncio, "timeout", None)
    if timeout_cm is None:  # Python 3.10
        return await asyncio.wait_for(awaitable, timeout)
    async with timeout_cm(timeout):
        return await awaitable


async def collect(backend: Backend, prompt: str, params: SamplingParams, multiline: bool,
                  on_text: Callable[[str], None] | None = None) -> str:
    """Read a backend stream to its end, a stop string, or (single-line) the first full line.
    `on_text` sees the text so far after every chunk (typing-through serves a stream in flight)."""
    scanner = StopScanner(params.stop)
    out: list[str] = []
    async with contextlib.aclosing(backend.stream(prompt, params)) as chunks:
        async for chunk in chunks:
            out.append(scanner.feed(chunk))
            if on_text is not None:
                on_text("".join(out))
            if scanner.stopped or (not multiline and _has_full_line("".join(out))):
                break
        else:
            out.append(scanner.flush())
    return "".join(out)


def _has_full_line(text: str) -> bool:
    """True once a newline follows some non-blank text (a leading newline does not end a line)."""
    stripped = text.lstrip("\n")
    return "\n" in stripped and bool(stripped.split("\n", 1)[0].strip())


def _ms_or_none(times: list[float], since: float) -> float | None:
    return round((times[0] - since) * 1000) if times else None


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
