"""The value-model fit (benchmarks/value_fit.py, benchmarks/fit/): the coverage objective, the
constants a trial sets and restores, and the coordinate ascent."""

import pytest

from benchmarks.fit.coverage import covers
from benchmarks.fit.parameters import PARAMETERS, Parameter, applied
from benchmarks.fit.ascent import fit, sign_test
from inference.api import CompletionRequest, ContextSnippet
import pruning.candidates as candidates
import pruning.context as context


def _request(prefix, suffix="", snippets=()):
    return CompletionRequest(prefix=prefix, suffix=suffix,
                             snippets=tuple(ContextSnippet("other.py", text) for text in snippets))


def test_a_prompt_covers_a_line_when_every_identifier_is_in_it():
    truth = "self._timeout = Timeout(timeout)"
    assert not covers(_request("def f(self, timeout):\n    "), truth)  # `_timeout` and `Timeout` missing
    assert covers(_request("def f(self, timeout):\n    ", "\n    self._timeout.check()",
                           ["class Timeout:\n    ...\n"]), truth)
    assert not covers(_request("TimeoutError = 1\n"), "Timeout")  # words, not substrings
    assert covers(_request("let err = 1;\n"), "} catch (err) {")  # keywords need no showing


def test_a_trial_sets_every_module_that_holds_the_constant_and_restores_it():
    before = (candidates.WINDOW_PREFIX_SHARE, context.WINDOW_PREFIX_SHARE, candidates.SIMILAR_SNIPPETS)
    with pytest.raises(RuntimeError):
        with applied({"WINDOW_PREFIX_SHARE": 0.25, "SIMILAR_SNIPPETS": 3.0}):
            assert candidates.WINDOW_PREFIX_SHARE == context.WINDOW_PREFIX_SHARE == 0.25
            assert candidates.SIMILAR_SNIPPETS == 3 and isinstance(candidates.SIMILAR_SNIPPETS, int)
            raise RuntimeError("a trial that fails")
    assert (candidates.WINDOW_PREFIX_SHARE, context.WINDOW_PREFIX_SHARE, candidates.SIMILAR_SNIPPETS) == before


def test_every_parameter_names_a_constant_its_grid_can_hold():
    for parameter in PARAMETERS:
        assert parameter.grid == tuple(sorted(parameter.grid))
        assert isinstance(parameter.current(), (int, float))


def test_the_sign_test_is_a_fair_coins_tail():
    assert sign_test(0, 0) == 1.0
    assert sign_test(3, 1) == 5 / 16
    assert sign_test(5, 0) == 1 / 32


def test_coordinate_ascent_keeps_a_change_only_when_the_lines_it_changes_say_so():
    window = Parameter("WINDOW_VALUE", ("pruning.candidates",), (2.0, 8.0, 16.0))
    gain = Parameter("WINDOW_GAIN", ("pruning.candidates",), (1.0, 1.5, 2.5))

    def evaluate():  # 40 lines: WINDOW_VALUE 16 covers 8 more; WINDOW_GAIN 2.5 two more (chance)
        covered = {2.0: 16, 8.0: 20, 16.0: 28}[candidates.WINDOW_VALUE]
        covered += 2 if candidates.WINDOW_GAIN == 2.5 else 0
        return {"python": [i < covered for i in range(40)]}

    start = (candidates.WINDOW_VALUE, candidates.WINDOW_GAIN)
    assert start == (8.0, 1.5)
    values, trials, kept = fit(evaluate, rounds=2, alpha=0.05, parameters=(window, gain))
    assert values == {"WINDOW_VALUE": 16.0, "WINDOW_GAIN": 1.5}
    assert kept["objective"] == 0.7 and (kept["gained"], kept["lost"]) == (8, 0)
    assert [t for t in trials if t["changed"] == "WINDOW_GAIN" and t["value"] == 2.5][0]["p"] == 0.25
    assert (candidates.WINDOW_VALUE, candidates.WINDOW_GAIN) == start  # nothing left changed
