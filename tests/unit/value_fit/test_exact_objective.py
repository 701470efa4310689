"""The model's verdict on dev lines under variants (benchmarks/fit/exact.py, `value_fit --compare`):
each variant's prompt is built under its constants, the model is asked once per distinct prompt,
and each variant's completion is scored against the masked line."""

import asyncio
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

import benchmarks.fit.exact as exact
import pruning.candidates as candidates
from benchmarks import value_fit
from benchmarks.nextline.cases import Masked
from pruning.prompt import PromptParts


class ScriptedRouter:
    """Test double: completes with the line the prompt's prefix names after `answer:`."""

    def __init__(self):
        self.prompts = []

    async def complete(self, request):
        self.prompts.append(request.prefix)
        return SimpleNamespace(text=request.prefix.rsplit("answer:", 1)[1].split("\n")[0] + "\n")


@dataclass
class Case:
    language: str
    workspace: object
    path: Path
    masked: Masked


def _parts_for_window_value(workspace, path, masked):
    """A prompt that depends on `WINDOW_VALUE` only: 16 shows the masked line, 8 a wrong one."""
    answer = masked.truth if candidates.WINDOW_VALUE >= 16 else "wrong()"
    return PromptParts(prefix=f"# answer:{answer}\n", suffix="", path=str(path), language="python")


def _cases(n):
    ws = SimpleNamespace(root=Path("/pkg"))
    return [Case("python", ws, Path(f"/pkg/m{i}.py"), Masked(text="", offset=0, truth=f"line_{i}()"))
            for i in range(n)]


def test_each_variant_is_scored_under_its_own_constants_with_one_call_per_distinct_prompt(monkeypatch):
    monkeypatch.setattr(exact, "arbor_context", _parts_for_window_value)
    router = ScriptedRouter()
    variants = {"code": {}, "same": {"WINDOW_VALUE": 8.0}, "more": {"WINDOW_VALUE": 16.0}}
    outcomes, rows = asyncio.run(exact.exact_outcomes(router, _cases(3), variants))
    assert outcomes["code"] == {"python": [False] * 3} and outcomes["same"] == outcomes["code"]
    assert outcomes["more"] == {"python": [True] * 3}
    assert len(router.prompts) == 6 and [r["calls"] for r in rows] == [2, 2, 2]  # "same" shows what "code" shows
    assert rows[1] == {"language": "python", "path": "m1.py", "line": 1, "truth": "line_1()", "exact": ["more"],
                       "calls": 2}
    assert candidates.WINDOW_VALUE == 8.0  # nothing left changed


def test_the_comparison_counts_the_lines_a_variant_gains_and_loses():
    rows = value_fit.compared({"code": {"go": [True, False, False, True]},
                               "other": {"go": [True, True, True, False]}})
    assert rows["code"] == {"per_language": {"go": 0.5}, "lines": {"go": 2}}
    assert (rows["other"]["gained"], rows["other"]["lost"], rows["other"]["p"]) == (2, 1, 0.5)


def test_a_variant_names_fitted_constants_only():
    args = value_fit.parse_args(["--compare", "WINDOW_VALUE=16,SIMILAR_SNIPPETS=3", "--objective", "exact"])
    assert args.variants == {"code": {}, "WINDOW_VALUE=16,SIMILAR_SNIPPETS=3": {"WINDOW_VALUE": 16.0, "SIMILAR_SNIPPETS": 3.0}}
    assert args.out.endswith("value-compare.json")
    for bad in (["--compare", "NOT_A_CONSTANT=1"], ["--compare", "WINDOW_VALUE=x"], ["--objective", "exact"],
                ["--compare", "WINDOW_VALUE=16", "--baseline"]):
        with pytest.raises(SystemExit):
            value_fit.parse_args(bad)
