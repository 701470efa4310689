"""The model's own verdict on dev lines: whether its completion of each masked line is exact,
under several variants of the value model at once.

The coverage objective (`benchmarks.fit.coverage`) sees names only; code like the cursor's
surroundings helps the model by its shape as well, which only the model can judge. A variant is
a set of constants (`parameters.applied`); the first is the reference (the values in the code,
`{}`). For each case, every variant's arbor prompt is built, the model is called once per
distinct prompt (variants that change nothing on a line cost nothing there), and each variant's
completion is post-processed as the server would (single line) and scored by exact match.
With `baseline`, the Jaccard-window baseline's prompt (`benchmarks.nextline.settings`) is
scored as one more variant, under the label `BASELINE`.
"""

from __future__ import annotations

import sys
from typing import Protocol

from benchmarks.nextline.settings import arbor_context, jaccard_request
from benchmarks.nextline.stats import score
from lsp_server.prompt_request import request_from_parts
from pruning.postprocess import postprocess

from .parameters import applied

BASELINE = "jaccard"
MAX_TOKENS = 48  # as nextline_bench's default: a single line


class Completer(Protocol):
    async def complete(self, request): ...


def prompt_key(request) -> tuple:
    """What the model is shown: two requests with the same key get the same completion."""
    return (request.prefix, request.suffix, tuple((s.path, s.text) for s in request.snippets))


async def exact_outcomes(router: Completer, cases: list, variants: dict[str, dict[str, float]], *,
                         baseline: bool = False, quiet: bool = True) -> tuple[dict[str, dict[str, list[bool]]], list[dict]]:
    """label -> language -> per case (in order) whether the completion is exact; and per case,
    where its line is and which labels completed it exactly, with the model calls it took."""
    out: dict[str, dict[str, list[bool]]] = {label: {} for label in variants}
    if baseline:
        out[BASELINE] = {}
    rows = []
    for i, case in enumerate(cases, 1):
        shown = {}
        for label, values in variants.items():
            with applied(values):
                parts = arbor_context(case.workspace, case.path, case.masked)
            shown[label] = (request_from_parts(parts, multiline=False, max_tokens=MAX_TOKENS,
                                               repo_name=case.workspace.root.name), parts)
        if baseline:
            shown[BASELINE] = jaccard_request(case.workspace, case.path, case.masked, max_tokens=MAX_TOKENS)
        answers: dict[tuple, str] = {}
        for label, (request, parts) in shown.items():
            key = prompt_key(request)
            if key not in answers:
                answers[key] = (await router.complete(request)).text
            post = postprocess(answers[key], prefix=parts.prefix, suffix=parts.suffix, language=parts.language,
                               multiline_mode="never", multiline=False, max_tokens=MAX_TOKENS)
            out[label].setdefault(case.language, []).append(score(post, case.masked.truth)["em"] == 100.0)
        rows.append({"language": case.language, "path": str(case.path.relative_to(case.workspace.root)),
                     "line": case.masked.text.count("\n", 0, case.masked.offset) + 1, "truth": case.masked.truth,
                     "exact": sorted(label for label in out if out[label][case.language][-1]), "calls": len(answers)})
        if not quiet:
            marks = " ".join(f"{label}={int(out[label][case.language][-1])}" for label in out)
            print(f"[{i}/{len(cases)}] {case.language:10} {len(answers)} prompts {marks} "
                  f"truth={case.masked.truth[:40]!r}", file=sys.stderr, flush=True)
    return out, rows
