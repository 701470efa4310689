"""Time budgets for tree-sitter work: one request's context, one slice of an index update.

`with limit(ms):` opens a budget for the code it runs (a context variable: each asyncio task and
thread sees its own). The parser and the query cursors in `indexer.languages` watch it through
tree-sitter's progress callbacks, and Python loops over nodes call `check()`; once the budget is
spent they raise `BudgetExceeded`, leaving no partial result behind. Outside any `limit` nothing is
bounded.

Invariants:
- a nested budget ends no later than the one around it (same clock), so an inner step can never
  extend its caller's bound;
- clocks are injectable (`limit(ms, clock=...)`): tests advance a fake clock instead of sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

Clock = Callable[[], float]


class BudgetExceeded(Exception):
    """The work in progress ran past its time budget and was abandoned."""


@dataclass(frozen=True, slots=True)
class Budget:
    deadline: float  # in `clock`'s seconds
    clock: Clock

    def expired(self) -> bool:
        return self.clock() >= self.deadline


_current: ContextVar[Budget | None] = ContextVar("arbor_work_budget", default=None)


@contextmanager
def limit(ms: float, clock: Clock = time.monotonic) -> Iterator[Budget]:
    """Bound the work run inside to `ms` milliseconds (or less: see the module invariants)."""
    deadline = clock() + ms / 1000
    outer = _current.get()
    if outer is not None and outer.clock is clock:
        deadline = min(deadline, outer.deadline)
    budget = Budget(deadline, clock)
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def check() -> None:
    """Raise `BudgetExceeded` when the current budget is spent."""
    budget = _current.get()
    if budget is not None and budget.expired():
        raise BudgetExceeded


class Watch:
    """A tree-sitter progress callback for the current budget: `callback` is None when there is
    no budget; after the call, `raise_if_stopped()` turns a cancelled operation into
    `BudgetExceeded`."""

    __slots__ = ("_budget", "stopped", "callback")

    def __init__(self) -> None:
        self._budget = _current.get()
        self.stopped = False
        self.callback = self._progress if self._budget is not None else None

    def _progress(self, *_: object) -> bool:
        if self._budget.expired():
            self.stopped = True
        return self.stopped

    def raise_if_stopped(self) -> None:
        if self.stopped:
            raise BudgetExceeded


def current() -> Budget | None:
    """The budget the running code is under (None: unbounded)."""
    return _current.get()
