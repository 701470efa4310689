"""Coordinate ascent over the value model's constants, keeping only changes the dev set supports.

A trial sets the constants (`parameters.applied`) and asks `evaluate()` for each language's
per-line outcomes (True: the prompt covers the line), in a fixed line order. The objective is
the covered share averaged over the languages. A trial's change is kept only when it beats the
values kept so far by more than chance: among the lines whose outcome differs between the two,
those it gains must be so many that a fair coin would give as many with probability under
`alpha` (one-sided sign test), and the objective must rise. Each round tries every value of
every parameter's grid in order, from the values kept so far; the ascent stops after a round
that keeps nothing.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from typing import Callable

from .parameters import PARAMETERS, Parameter, applied

Outcomes = dict[str, list[bool]]  # language -> one outcome per dev line


def objective(outcomes: Outcomes) -> float:
    return statistics.fmean(sum(o) / len(o) for o in outcomes.values())


def sign_test(gained: int, lost: int) -> float:
    """P(at least `gained` heads in `gained + lost` fair coin tosses)."""
    n = gained + lost
    return sum(math.comb(n, k) for k in range(gained, n + 1)) / 2 ** n if n else 1.0


def changed_lines(old: Outcomes, new: Outcomes) -> tuple[int, int]:
    """(lines covered now and not before, lines covered before and not now)."""
    gained = lost = 0
    for language, before in old.items():
        for was, now in zip(before, new[language]):
            gained += now and not was
            lost += was and not now
    return gained, lost


def fit(evaluate: Callable[[], Outcomes], rounds: int, alpha: float,
        parameters: tuple[Parameter, ...] = PARAMETERS) -> tuple[dict[str, float], list[dict], dict]:
    """The values kept, every trial, and the trial of the values kept (see the module docstring)."""
    values = {p.name: p.current() for p in parameters}
    trials: list[dict] = []

    def trial(candidate: dict[str, float], changed: str) -> Outcomes:
        started = time.perf_counter()
        with applied(candidate):
            outcomes = evaluate()
        shares = {k: sum(o) / len(o) for k, o in outcomes.items()}
        trials.append({"changed": changed, "value": candidate.get(changed), "objective": round(objective(outcomes), 4),
                       "per_language": {k: round(v, 4) for k, v in shares.items()},
                       "seconds": round(time.perf_counter() - started, 1)})
        return outcomes

    kept = trial(values, "start")
    kept_trial = trials[-1]
    for _ in range(rounds):
        moved = False
        for parameter in parameters:
            for value in parameter.grid:
                if value == values[parameter.name]:
                    continue
                outcomes = trial({**values, parameter.name: value}, parameter.name)
                gained, lost = changed_lines(kept, outcomes)
                p = sign_test(gained, lost)
                trials[-1].update(gained=gained, lost=lost, p=round(p, 4))
                _report(trials[-1])
                if p < alpha and objective(outcomes) > objective(kept):
                    kept, kept_trial, moved = outcomes, trials[-1], True
                    values = {**values, parameter.name: value}
        if not moved:
            break
    return values, trials, kept_trial


def _report(t: dict) -> None:
    print(f"{t['changed']:26} {t['value']!s:6} {t['objective']:.4f} +{t['gained']} -{t['lost']} p={t['p']:.3f} "
          + " ".join(f"{k}={v:.3f}" for k, v in t["per_language"].items()), file=sys.stderr, flush=True)
