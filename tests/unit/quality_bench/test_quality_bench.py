"""The quality benchmark's cases, scores and report, run end to end with a deterministic backend."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"
sys.path.insert(0, str(BENCH))

import quality_bench  # noqa: E402
from quality_cases import Case, humaneval_infilling  # noqa: E402
from quality_metrics import edit_similarity, exact_match, first_line, levenshtein  # noqa: E402
from quality_report import summarise  # noqa: E402


class ScriptedBackend:
    """Test double: answers every prompt with `ANSWER`, in small chunks; records the prompts."""

    ANSWER = "  total = price * qty<|fim_pad|>\nnext line"
    prompts: list[str] = []
    name, model_id, model_family = "scripted", "scripted", "qwen2.5-coder"

    def __init__(self, spec):
        pass

    async def stream(self, prompt, params):
        ScriptedBackend.prompts.append(prompt)
        for i in range(0, len(self.ANSWER), 3):
            yield self.ANSWER[i:i + 3]

    async def aclose(self):
        pass


def test_levenshtein_and_similarity():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert edit_similarity("abc", "abc") == 1.0
    assert edit_similarity("", "") == 1.0
    assert edit_similarity("abcd", "abxd") == 0.75
    assert edit_similarity("\n  foo(x)\nbar", "foo(x)") == 1.0


def test_first_line_skips_leading_blank_lines():
    assert first_line("\n\n  x = 1\ny") == "  x = 1"
    assert exact_match("  x = 1  \nmore", "x = 1")
    assert not exact_match("x = 2", "x = 1")


def test_humaneval_cases_mask_one_solution_line():
    problems = [{"task_id": f"HumanEval/{i}", "prompt": f"def f{i}(x):\n    \"\"\"doc\"\"\"\n",
                 "canonical_solution": "    y = x + 1\n\n    z = y * 2\n    return z\n"} for i in range(10)]
    cases = humaneval_infilling(problems, 5, stride=2)
    assert [c.task_id for c in humaneval_infilling(problems, 2, stride=2)] == ["HumanEval/0", "HumanEval/2"]
    assert [c.task_id for c in cases] == ["HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/6", "HumanEval/8"]
    case = cases[0]
    assert case.truth == "z = y * 2"
    assert case.left.endswith("    y = x + 1\n\n    ") and case.right == "\n    return z\n"
    assert case.left + case.truth + case.right == problems[0]["prompt"] + problems[0]["canonical_solution"]


def test_snippets_are_packed_best_first_within_the_budget():
    crossfile = (("a.py", "x" * 70), ("b.py", "y" * 700), ("c.py", "z" * 35))
    packed = quality_bench.pack_snippets(crossfile, 40)
    assert [s.path for s in packed] == ["a.py", "c.py"]


def test_summary_flags_post_processing_that_lowers_a_score():
    rows = [{"suite": "s", "language": "py", "setting": "fim", "em_raw": True, "em_post": False,
             "es_raw": 1.0, "es_post": 0.5, "ms": 1000.0}]
    (entry,) = summarise(rows)
    assert entry["em_raw"] == 100.0 and entry["em_post"] == 0.0 and not entry["post_not_lower"]


@pytest.fixture
def tiny_data(tmp_path):
    row = {
        "prompt": "from .prices import unit_price\n\ndef cost(qty):\n    price = unit_price()\n",
        "groundtruth": "    total = price * qty",
        "right_context": "\n    return total\n",
        "metadata": {"task_id": "demo/1", "file": "shop/cost.py"},
        "crossfile_context": {"text": "", "list": [
            {"filename": "shop/prices.py", "retrieved_chunk": "def unit_price():\n    return 3\n", "score": 1.0}]},
    }
    (tmp_path / "python.jsonl").write_text(json.dumps(row) + "\n")
    return tmp_path


def test_bench_runs_every_setting_through_template_and_postprocess(tiny_data, tmp_path):
    ScriptedBackend.prompts.clear()
    out = tmp_path / "q.json"
    assert quality_bench.main(["--data", str(tiny_data), "--languages", "python", "--humaneval-limit", "0",
                               "--python-backend", f"{__name__}:ScriptedBackend", "--out", str(out),
                               "--quiet"]) == 0
    report = json.loads(out.read_text())
    assert [r["setting"] for r in report["cases"]] == ["left", "fim", "fim+crossfile"]
    left, fim, cross = ScriptedBackend.prompts
    assert "<|fim_prefix|>" in left and left.endswith("<|fim_suffix|><|fim_middle|>")
    assert "return total" in fim and "return total" not in left
    assert "<|file_sep|>shop/prices.py\ndef unit_price():" in cross and "shop/prices.py" not in fim
    assert "<|file_sep|>shop/cost.py\n" in cross
    for row in report["cases"]:
        assert row["raw"] == "  total = price * qty" and row["post"] == "  total = price * qty"
        assert row["em_raw"] and row["em_post"] and row["es_post"] == 1.0
    assert [r["snippets"] for r in report["cases"]] == [0, 0, 1]
    assert all(r["post_not_lower"] for r in report["table"])
    table = out.with_suffix(".md").read_text()
    assert "| python | (c) + cross-file snippets | 1 | 100.0 | 100.0 | 100.0 | 100.0 |" in table
    assert "python benchmarks/quality_bench.py --data" in table


def test_resume_reuses_finished_cases_without_calling_the_model(tiny_data, tmp_path):
    out = tmp_path / "q.json"
    common = ["--data", str(tiny_data), "--languages", "python", "--humaneval-limit", "0",
              "--python-backend", f"{__name__}:ScriptedBackend", "--out", str(out), "--quiet"]
    quality_bench.main(common)
    ScriptedBackend.prompts.clear()
    quality_bench.main(common + ["--resume"])
    assert ScriptedBackend.prompts == []
    assert len(json.loads(out.read_text())["cases"]) == 3
    assert len(out.with_suffix(".cases.jsonl").read_text().splitlines()) == 3
