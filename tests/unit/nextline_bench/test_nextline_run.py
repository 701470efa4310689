"""The benchmark end to end with a deterministic backend: every setting's prompt, the summary, the
markdown table, and resuming from the JSONL log without calling the model again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import nextline_bench
from benchmarks.nextline.report import complete_cases, markdown, summarise


class ScriptedBackend:
    """Test double: answers every prompt with `ANSWER` in small chunks; records the prompts."""

    ANSWER = "value = compute_total(items)\nmore"
    prompts: list[str] = []
    name, model_id, model_family = "scripted", "scripted", "qwen2.5-coder"

    def __init__(self, spec):
        pass

    async def stream(self, prompt, params):
        ScriptedBackend.prompts.append(prompt)
        for i in range(0, len(self.ANSWER), 4):
            yield self.ANSWER[i:i + 4]

    async def aclose(self):
        pass


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "totals.py").write_text(
        "def compute_total(items):\n    \"\"\"Sum of the items' prices.\"\"\"\n"
        "    return sum(item.price for item in items)\n", encoding="utf-8")
    (root / "cart.py").write_text(
        "from totals import compute_total\n\n\nclass Cart:\n    def __init__(self, items):\n"
        "        self.items = items\n\n    def total(self):\n        value = compute_total(self.items)\n"
        "        return value\n", encoding="utf-8")
    return root


def _argv(workspace: Path, out: Path, *extra: str) -> list[str]:
    return ["--languages", "python", "--workspace", f"python={workspace}", "--cases", "3",
            "--python-backend", f"{__name__}:ScriptedBackend", "--out", str(out), "--quiet", "--resamples", "200",
            *extra]


def test_every_case_runs_under_three_settings_and_is_scored(workspace, tmp_path):
    out = tmp_path / "n.json"
    ScriptedBackend.prompts.clear()
    nextline_bench.main(_argv(workspace, out))
    result = json.loads(out.read_text())
    assert result["finished_cases"] == 3 and result["label"] == "subset"
    assert len(ScriptedBackend.prompts) == 9
    rows = result["cases"]
    assert {r["setting"] for r in rows} == {"infile", "arbor", "jaccard"}
    hit = [r for r in rows if r["truth"] == "value = compute_total(self.items)"]
    assert hit and all(r["post"] == "value = compute_total(items)" for r in hit)  # second line cut
    assert all(r["em"] == 0.0 and 80 < r["es"] < 100 for r in hit)
    for r in rows:  # one budget and one token limit for every setting
        assert r["budget"] == 1024 and r["max_tokens"] == 48
    table = result["table"]["python/all"]
    assert table["cases"] == 3 and set(table) >= {"infile", "arbor", "jaccard", "arbor-infile", "arbor-jaccard"}
    assert "| python/all | 3 |" in out.with_suffix(".md").read_text()


def test_the_baseline_prompt_carries_other_files_and_the_in_file_prompt_does_not(workspace, tmp_path):
    ScriptedBackend.prompts.clear()
    nextline_bench.main(_argv(workspace, tmp_path / "n.json", "--cases", "1"))
    rows = json.loads((tmp_path / "n.json").read_text())["cases"]
    by = {r["setting"]: i for i, r in enumerate(rows)}
    other = "totals.py" if rows[0]["path"] == "cart.py" else "cart.py"
    assert other not in ScriptedBackend.prompts[by["infile"]]
    assert rows[by["jaccard"]]["snippets"] >= 1 and other in ScriptedBackend.prompts[by["jaccard"]]


def test_resume_reuses_finished_rows_without_calling_the_model(workspace, tmp_path):
    out = tmp_path / "n.json"
    nextline_bench.main(_argv(workspace, out))
    log = out.with_suffix(".cases.jsonl")
    kept = log.read_text().splitlines()[:4]  # a run stopped in its second case
    log.write_text("\n".join(kept) + "\n")
    ScriptedBackend.prompts.clear()
    nextline_bench.main(_argv(workspace, out, "--resume"))
    assert len(ScriptedBackend.prompts) == 5  # only the 5 missing (case, setting) rows
    assert len(log.read_text().splitlines()) == 9
    ScriptedBackend.prompts.clear()
    nextline_bench.main(_argv(workspace, out, "--resume"))
    assert ScriptedBackend.prompts == [] and json.loads(out.read_text())["finished_cases"] == 3
    nextline_bench.main(_argv(workspace, out))  # without --resume the log starts over
    assert len(ScriptedBackend.prompts) == 9


def _row(case: str, setting: str, em: float, crossfile: bool = False) -> dict:
    return {"case_id": case, "setting": setting, "language": "go", "crossfile": crossfile, "em": em, "es": em}


def test_the_summary_pairs_only_cases_finished_under_every_setting():
    rows = [_row("a", s, v, True) for s, v in (("infile", 0.0), ("arbor", 100.0), ("jaccard", 0.0))]
    rows += [_row("b", s, 0.0) for s in ("infile", "arbor", "jaccard")]
    rows += [_row("c", "infile", 100.0)]  # unfinished: left out
    assert set(complete_cases(rows)) == {"a", "b"}
    table = summarise(rows, resamples=100)
    assert table["go/all"]["cases"] == 2 and table["go/crossfile"]["cases"] == 1
    assert table["go/all"]["arbor"]["em"] == 50.0 and table["go/all"]["arbor-infile"]["em"]["mean"] == 50.0
    assert "| go/crossfile | 1 | 0.0 | 100.0 | 0.0 |" in markdown(table, "t")


def test_the_baseline_prompt_stays_within_the_budget(tmp_path):
    """In-file context grows its windows into the whole budget; the baseline's windows keep the
    shares its retrieval left room for, so its prompt is no larger than the others', counted as
    arbor's is: a header for each snippet's file block."""
    from benchmarks.nextline.cases import mask
    from benchmarks.nextline.settings import Workspace, requests
    from lsp_server.config import Settings
    from pruning.budget import DEFAULT_TOKENIZER
    from pruning.packing import header_cost

    root = tmp_path / "pkg"
    root.mkdir()
    body = "".join(f"def helper_{i}(items):\n    return [item.price + {i} for item in items]\n\n\n" for i in range(80))
    (root / "a.py").write_text(body, encoding="utf-8")
    (root / "b.py").write_text(body.replace("helper_", "other_"), encoding="utf-8")
    ws = Workspace.open(root, Settings())
    masked = mask(body, 161)
    built = requests(ws, root / "a.py", masked, max_tokens=48)
    request, _ = built["jaccard"]
    count = DEFAULT_TOKENIZER.count
    used = count(request.prefix) + count(request.suffix) + sum(
        count(s.text) + header_cost(s.path, count) for s in request.snippets)
    assert request.snippets and used <= 1024
    assert len(request.prefix) < len(built["infile"][0].prefix)


def test_two_workspaces_of_one_directory_name_get_distinct_package_names(tmp_path):
    roots = [tmp_path / "query-core" / "package" / "src", tmp_path / "trpc" / "package" / "src", tmp_path / "lib"]
    args = nextline_bench.parse_args(["--languages", "typescript"]
                                     + [f"--workspace=typescript={root}" for root in roots])
    names = [package.source for package in nextline_bench.packages_for(args, "typescript")]
    assert names == ["dir:query-core/package/src", "dir:trpc/package/src", "dir:lib"]
