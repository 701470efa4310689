"""The value model's fitted constants: where each lives, the values the fit tries, and how a
trial sets them.

A parameter names a module constant of the pruner and every module that imported it by name;
`applied` sets them all for the length of a `with` block and restores them after, so a trial
changes nothing outside it.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str  # the constant's name
    modules: tuple[str, ...]  # the module that defines it first, then those that import it by name
    grid: tuple[float, ...]  # values tried, in increasing order

    def current(self) -> float:
        return getattr(importlib.import_module(self.modules[0]), self.name)


PARAMETERS = (
    Parameter("WINDOW_VALUE", ("pruning.candidates",), (2.0, 4.0, 8.0, 16.0, 32.0)),
    Parameter("SIMILAR_SNIPPETS", ("pruning.candidates",), (1, 2, 3, 4)),
    Parameter("OWN_SNIPPETS", ("pruning.candidates",), (0, 1, 2)),
    Parameter("MIN_WINDOW_SIMILARITY", ("pruning.candidates",), (0.1, 0.15, 0.2, 0.3)),
    Parameter("WINDOW_GAIN", ("pruning.candidates",), (1.0, 1.5, 2.5)),
    Parameter("WINDOW_PREFIX_SHARE", ("pruning.candidates", "pruning.context"), (0.0, 0.1, 0.15, 0.2, 0.25)),
    Parameter("SIGNATURE_GAIN", ("pruning.candidates",), (1.0, 1.5, 2.0, 3.0)),
    Parameter("FILLED_TYPE_GAIN", ("pruning.candidates",), (1.0, 3.0, 6.0)),
    Parameter("PROXIMITY_LINES", ("pruning.candidates",), (3.0, 6.0, 12.0, 24.0)),
    Parameter("EXPECTED_VALUE", ("pruning.expected_names",), (0.25, 0.5, 1.0, 2.0, 4.0)),
    Parameter("UNUSED_IMPORT_DISTANCE", ("pruning.file_uses",), (1, 3, 6, 12)),
    Parameter("FREQUENCY_WEIGHT", ("pruning.file_uses",), (1.0, 2.0, 4.0, 8.0)),
    Parameter("ENCLOSING_FUNCTION_VALUE", ("pruning.ladder",), (1.0, 2.0, 3.0, 6.0)),
    Parameter("ENCLOSING_CLASS_VALUE", ("pruning.ladder",), (0.5, 1.0, 2.0, 4.0)),
    Parameter("USED_IMPORTS_VALUE", ("pruning.ladder",), (0.5, 1.0, 1.5, 3.0)),
    Parameter("ALL_IMPORTS_VALUE", ("pruning.ladder",), (0.1, 0.25, 0.5, 1.0)),
    Parameter("OUTLINE_VALUE", ("pruning.ladder",), (0.05, 0.15, 0.3, 0.6)),
)


def by_name() -> dict[str, Parameter]:
    return {p.name: p for p in PARAMETERS}


@contextmanager
def applied(values: dict[str, float]) -> Iterator[None]:
    """The pruner with `values` (parameter name -> value) in place of its constants."""
    known = by_name()
    saved: list[tuple[object, str, object]] = []
    try:
        for name, value in values.items():
            for module_name in known[name].modules:
                module = importlib.import_module(module_name)
                saved.append((module, name, getattr(module, name)))
                setattr(module, name, type(getattr(module, name))(value))
        yield
    finally:
        for module, name, old in reversed(saved):
            setattr(module, name, old)
