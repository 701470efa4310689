"""Which backends a request tries, in which order, and by when it must be answered.

`route.single` and `route.multi` each name backends (their `name` setting) in the order a
single-line or a multi-line request tries them; an empty list means every configured backend in
the order of the `backends` setting. A typical split puts the embedded model first for single
lines and a remote model first for multi-line completions, each the other's fallback. A name
that matches no configured backend is reported as a problem and left out of the route; a route
left empty that way falls back to every backend.

`route.singleDeadlineMs` and `route.multiDeadlineMs` bound a whole request of that mode, every
fallback included, when the request carries no deadline of its own; each attempt also stays
within its backend's `timeoutMs`. 0 (the default) means the mode's default (5 s single-line, 8 s
multi-line) or, when longer, the longest `timeoutMs` among the mode's backends: a default never
cuts a backend's own `timeoutMs` short.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

DEFAULT_SINGLE_DEADLINE_MS = 5000
DEFAULT_MULTI_DEADLINE_MS = 8000


@dataclass(slots=True, kw_only=True)
class RouteSettings:
    single: list[str] = field(default_factory=list)
    multi: list[str] = field(default_factory=list)
    single_deadline_ms: int = 0
    multi_deadline_ms: int = 0

    def __post_init__(self) -> None:
        if self.single_deadline_ms < 0 or self.multi_deadline_ms < 0:
            raise ValueError("deadlines must be 0 or more")

    def deadline_ms(self, multiline: bool, longest_timeout_ms: int) -> int:
        """The mode's deadline: the setting, or where it is 0 the mode's default raised to
        `longest_timeout_ms` (the mode's backends' longest `timeoutMs`)."""
        chosen = self.multi_deadline_ms if multiline else self.single_deadline_ms
        default = DEFAULT_MULTI_DEADLINE_MS if multiline else DEFAULT_SINGLE_DEADLINE_MS
        return chosen or max(default, longest_timeout_ms)


@dataclass(frozen=True, slots=True)
class Routes:
    """The resolved routes: positions into the router's backend list."""

    single: tuple[int, ...]
    multi: tuple[int, ...]

    def order(self, multiline: bool) -> tuple[int, ...]:
        return self.multi if multiline else self.single


def resolve_routes(settings: RouteSettings, names: list[str]) -> tuple[Routes, list[str]]:
    """Map each route's names onto positions in `names`; returns the routes and one problem line
    per name that matches no backend."""
    problems: list[str] = []

    def resolve(key: str, wanted: list[str]) -> tuple[int, ...]:
        everything = tuple(range(len(names)))
        if not wanted:
            return everything
        order: list[int] = []
        for name in wanted:
            if name not in names:
                problems.append(f"route.{key}: no backend is named {name!r} (known: {', '.join(names) or 'none'})")
            elif names.index(name) not in order:
                order.append(names.index(name))
        return tuple(order) or everything

    return Routes(resolve("single", settings.single), resolve("multi", settings.multi)), problems
