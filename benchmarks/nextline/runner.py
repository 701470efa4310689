"""Cases to completions: the seeded plan, the model calls and the resumable log.

The log (`<out>.cases.jsonl`) holds one JSON row per finished (case, setting), appended and
flushed as each finishes. With `resume`, a row whose key (case id, setting, budget, max tokens)
matches a planned job is reused and the model is not called for it; without it the log starts
empty. Jobs run case by case (every setting of a case back to back), the cases round-robin over
the languages, so a run stopped early covers every language evenly.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.typing.corpus import Package
from pruning.postprocess import postprocess

from . import cases as case_lib
from .settings import SETTINGS, Workspace, requests
from .stats import score


@dataclass(frozen=True, slots=True)
class Planned:
    language: str
    package: Package
    candidate: case_lib.Candidate


def plan_language(language: str, workspaces: list[tuple[Package, Workspace]], count: int, *, seed: int,
                  crossfile_share: float) -> list[Planned]:
    """`count` cases of `language` drawn over all its packages (see `cases.sample`)."""
    found: list[case_lib.Candidate] = []
    owner: dict[str, Package] = {}
    from .corpus import files_of, name_of

    for package, ws in workspaces:
        name = name_of(package)
        owner[name] = package
        paths = [str(p) for p in files_of(package)]
        names = case_lib.crossfile_names(ws.index.graph, paths)
        for path in paths:
            text = ws.index.text(path) or ""
            if text.count("\n") > 4000:
                continue
            found += case_lib.candidates_in(name, str(Path(path).relative_to(package.root)), text,
                                            import_lines=case_lib.import_lines_of(ws.index.graph, path),
                                            crossfile=names.get(path, {}), language=language)
    picked = case_lib.sample(found, count, seed=seed, language=language, crossfile_share=crossfile_share)
    return [Planned(language, owner[c.package], c) for c in picked]


def round_robin(queues: list[list[Planned]]) -> list[Planned]:
    out = []
    for i in range(max((len(q) for q in queues), default=0)):
        out += [q[i] for q in queues if i < len(q)]
    return out


def key(row: dict) -> tuple:
    return (row["case_id"], row["setting"], row["budget"], row["max_tokens"])


def load_log(path: Path, resume: bool) -> dict[tuple, dict]:
    if not resume:
        path.unlink(missing_ok=True)
        return {}
    done = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[key(row)] = row
    return done


async def run_case(router, ws: Workspace, job: Planned, *, max_tokens: int, budget: int,
                   done: dict[tuple, dict], log) -> list[dict]:
    c = job.candidate
    path = job.package.root / c.relative
    text = ws.index.text(str(path)) or path.read_text(encoding="utf-8")
    masked = case_lib.mask(text, c.line)
    base = {"case_id": f"{job.language}:{c.case_id}", "language": job.language, "package": c.package,
            "path": c.relative, "line": c.line + 1, "crossfile": c.crossfile, "names": list(c.names),
            "truth": masked.truth, "budget": budget, "max_tokens": max_tokens}
    pending = [s for s in SETTINGS if key({**base, "setting": s}) not in done]
    built = requests(ws, path, masked, max_tokens=max_tokens) if pending else {}
    rows = []
    for setting in SETTINGS:
        k = key({**base, "setting": setting})
        if k in done:
            rows.append(done[k])
            continue
        request, parts = built[setting]
        started = time.perf_counter()
        result = await router.complete(request)
        ms = (time.perf_counter() - started) * 1000
        post = postprocess(result.text, prefix=parts.prefix, suffix=parts.suffix, language=parts.language,
                           multiline_mode="never", multiline=False, max_tokens=max_tokens)
        row = {**base, "setting": setting, "raw": result.text, "post": post, **score(post, masked.truth),
               "snippets": len(request.snippets), "snippet_chars": sum(len(s.text) for s in request.snippets),
               "prompt_chars": len(result.prompt), "prompt_tokens": result.usage.get("prompt_tokens"),
               "ms": round(ms, 1)}
        log.write(json.dumps(row, ensure_ascii=False) + "\n")
        log.flush()
        rows.append(row)
    return rows


async def run_all(router, jobs: list[Planned], workspaces: dict[Path, Workspace], *, max_tokens: int,
                  budget: int, log_path: Path, resume: bool, quiet: bool, deadline: float | None = None) -> list[dict]:
    """Every job's rows; stops starting new cases once `time.time()` passes `deadline`."""
    done = load_log(log_path, resume)
    rows: list[dict] = []
    with open(log_path, "a", encoding="utf-8") as log:
        for i, job in enumerate(jobs, 1):
            if deadline is not None and time.time() > deadline:
                print(f"deadline reached after {i - 1} of {len(jobs)} cases", file=sys.stderr)
                break
            got = await run_case(router, workspaces[job.package.root], job, max_tokens=max_tokens,
                                 budget=budget, done=done, log=log)
            rows += got
            if not quiet:
                scores = " ".join(f"{r['setting']}={int(r['em'])}/{r['es']:.0f}" for r in got)
                print(f"[{i}/{len(jobs)}] {job.language:10} {job.candidate.case_id[:60]:60} {scores} "
                      f"truth={got[0]['truth'][:40]!r}", file=sys.stderr)
    return rows
