"""`FreshnessScheduler`: the background work that keeps what completions read fresh.

Contract: a completion in buffer B sees snapshot N plus B's own text, and every buffer B can
read (those it imports, and for Go and Java those of its package) is in N: the completion's
`WorkspaceIndex.snapshot_for(B)` flushes them first. Everything else is this scheduler's:
publishing N+1 off the request path, one typed job per step, the first due in this order:

- `REPARSE`: a buffer just completed whose tree lags its text is reparsed (not re-indexed);
- `PREPARE_NEXT`: after a re-index, each completed buffer's last lookups are redone in the new
  snapshot (`pruning.context.prepare`);
- `REINDEX`: an edited buffer is re-indexed once its entry lags by `REINDEX_LAG_S`, or at once
  when another open buffer reads it (a completion there would otherwise do it);
- `PREPARE`: a completed buffer's next context is prepared when nothing is left to re-index;
- `FLUSH`: `IDLE_FLUSH_S` after the last edit every buffer is re-indexed and each completed
  buffer, and each buffer opened since the last `FLUSH`, prepared (the first completion in a
  newly opened buffer then finds its work done);
- `SETTLE`: `IDLE_SETTLE_S` after the last edit, buffers whose incremental trees have syntax
  errors are parsed afresh (`WorkspaceIndex.settle`).

The first four are after-completion jobs: due `AFTER_COMPLETION_FLUSH_S` after an answer, then
back to back until none is left, so a message arriving meanwhile waits for one job at most;
while completions are in flight they wait, but never longer than `MAX_FLUSH_DEFERRAL_S` after
the answer. Typing postpones `FLUSH` and `SETTLE`, not the after-completion jobs.

Time comes from `clock` only: `due_in()` says how long until the next job is due (None: no
work), `step()` runs it. The owner (the server's `IndexingService`) arms one loop timer for
`due_in()`; tests advance a fake clock and call `step()`.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

IDLE_FLUSH_S = 0.3
AFTER_COMPLETION_FLUSH_S = 0.005
PENDING_LAG_S = 2.5  # how long a buffer's entry may lag its edits when a completion reads the index
REINDEX_LAG_S = 1.5  # after an answer, a buffer is re-indexed once its entry lags by this much
MAX_FLUSH_DEFERRAL_S = 0.1  # how long completions in flight may hold back the after-completion jobs
IDLE_SETTLE_S = 1.5


class Job(enum.Enum):
    REPARSE = "reparse"
    PREPARE_NEXT = "prepare_next"
    REINDEX = "reindex"
    PREPARE = "prepare"
    FLUSH = "flush"
    SETTLE = "settle"


class FreshnessScheduler:
    def __init__(self, index: Any, prepare: Callable[[str], None], *, clock: Callable[[], float] = time.monotonic,
                 in_flight: Callable[[], int] = lambda: 0) -> None:
        self.index = index
        self.prepare = prepare
        self.clock = clock
        self.in_flight = in_flight
        self.ran: list[Job] = []  # the jobs run, in order (the last 64, for tests and stats)
        self._last_edit: float | None = None
        self._flush_pending = self._settle_pending = False
        self._answered: float | None = None  # when after-completion work became pending
        self._started = False  # the after-completion jobs are running back to back
        self._reparse: set[str] = set()  # buffers just completed, whose trees may lag their text
        self._prepare: set[str] = set()
        self._prepare_next: set[str] = set()  # completed buffers to prepare after a re-index
        self._completed: set[str] = set()  # buffers completed at least once (closed ones leave)
        self._opened: set[str] = set()  # buffers opened since the last FLUSH

    # ---- events

    def edited(self) -> None:
        self._last_edit = self.clock()
        self._flush_pending = self._settle_pending = True

    def answered(self, path: str) -> None:
        """A completion in `path` (as the index names it) was just answered."""
        self._prepare.add(path)
        self._reparse.add(path)
        self._completed.add(path)
        if self._answered is None:
            self._answered = self.clock()

    def opened(self, path: str) -> None:
        """Buffer `path` (as the index names it) was just opened."""
        self._opened.add(path)

    def closed(self, path: str) -> None:
        for pending in (self._completed, self._prepare, self._reparse, self._prepare_next, self._opened):
            pending.discard(path)

    @property
    def completed(self) -> frozenset[str]:
        return frozenset(self._completed)

    # ---- time

    def due_in(self) -> float | None:
        """Seconds until the next job is due (0: now), or None when there is nothing to do."""
        now = self.clock()
        dues = [self._after_completion_due(now)]
        if self._flush_pending:
            dues.append(self._last_edit + IDLE_FLUSH_S)
        if self._settle_pending:
            dues.append(self._last_edit + IDLE_SETTLE_S)
        dues = [d for d in dues if d is not None]
        return max(0.0, min(dues) - now) if dues else None

    def _after_completion_due(self, now: float) -> float | None:
        if self._answered is None:
            return None
        if self.in_flight() and now - self._answered < MAX_FLUSH_DEFERRAL_S:
            # other completions are being answered (a burst): the work now would delay them
            return min(now + AFTER_COMPLETION_FLUSH_S, self._answered + MAX_FLUSH_DEFERRAL_S)
        return now if self._started else self._answered + AFTER_COMPLETION_FLUSH_S

    def step(self) -> Job | None:
        """Run the first job due now (see the module docstring); None when none is due."""
        now = self.clock()
        job = None
        due = self._after_completion_due(now)
        if due is not None and due <= now:
            job = self._after_completion_job()
            self._started = job is not None
            if job is None:
                self._answered = None
        if job is None and self._flush_pending and now >= self._last_edit + IDLE_FLUSH_S:
            self._flush_pending = False
            job = Job.FLUSH
            self._guarded(job, "", self._flush_all)
        if job is None and self._settle_pending and now >= self._last_edit + IDLE_SETTLE_S:
            self._settle_pending = False
            job = Job.SETTLE
            self._guarded(job, "", self.index.settle)
        if job is not None:
            self.ran = [*self.ran[-63:], job]
        return job

    # ---- jobs

    def _after_completion_job(self) -> Job | None:
        index = self.index
        while self._reparse:
            # the trees of the buffers just completed first (the next request in one then finds
            # its tree one pause behind, and reads what was typed since from the text)
            lagging = self._reparse.pop()
            if index.tree_lags(lagging):
                return self._guarded(Job.REPARSE, lagging, index.current_tree, lagging)
        if self._prepare_next:
            target = self._prepare_next.pop()
            return self._guarded(Job.PREPARE_NEXT, target, self.prepare, target)
        pending = index.pending
        due = {path for path in pending if index.lag_s(path) >= REINDEX_LAG_S}
        if pending - due:
            due |= pending & index.needed_by_other_buffers()
        # buffers whose entries are young wait for a later answer or the idle flush
        self._prepare -= pending - due
        # the buffers just completed first, then whatever else is due
        ordered = sorted(due & self._prepare) + sorted(due - self._prepare)
        if ordered:
            target = ordered[0]
            self._prepare.discard(target)
            self._guarded(Job.REINDEX, target, index.flush, target)
            # each completed buffer's next context is prepared in a job of its own: its own
            # entry changed, or the names its last context looked up may be defined in `target`
            self._prepare_next |= self._completed
            return Job.REINDEX
        if self._prepare:
            target = self._prepare.pop()
            return self._guarded(Job.PREPARE, target, self.prepare, target)
        return None

    def _flush_all(self) -> None:
        self.index.flush()
        targets, self._opened = sorted(self._completed | self._opened), set()
        for target in targets:
            self.prepare(target)

    @staticmethod
    def _guarded(job: Job, path: str, func, *args) -> Job:
        try:
            func(*args)
        except Exception:
            log.exception("index: %s %s failed", job.value, path)
        return job
