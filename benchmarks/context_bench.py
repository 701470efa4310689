"""Context quality and speed of `pruning.build_context` on code this project did not write.

Quality (the headline): for each language (Python, TypeScript, Go, Rust), two real libraries
(benchmarks/context/corpora.py), each indexed as its own workspace with `indexer.WorkspaceIndex`.
In each, --samples lines that use a name another file of the library defines are drawn with a
fixed seed (benchmarks/context/targets.py says which lines qualify). The cursor is put at the
start of the line, the line itself is removed (the edited buffer open in the index, as an
editor's document would be: "unseen_line"), and the context is built for a --budget token budget;
a name is recalled when a snippet from a defining file shows its definition
(benchmarks/context/recall.py). The same lines with the line kept as the suffix ("fim") and two
baselines at the same budget (the FIM windows alone; Jaccard-ranked 20-line windows of the
library's other files, as RepoCoder and Continue retrieve) are measured in the same run. The
headline per language is the unseen-line recall and its margin over the best baseline.
The Python standard library is measured the same way as a secondary corpus (--stdlib-packages).
`--corpus heldout` measures two other libraries per language instead (benchmarks/context/heldout.py),
which no constant of the pruner was chosen on, and `--corpus fresh` two more, which no experiment
looked at before their first run; write their results elsewhere with --out.

Speed: --requests cursors in a --timing-file of about 2,000 lines of the standard library
(a workspace of over 1,700 files), opened as a document in the index (its tree is the
document's, as in the server) and prepared as the server prepares a buffer it opened
(`pruning.context.prepare`); build time per request in milliseconds, with P50/P95, excluding
the model; also the process CPU time per request ("build_cpu_ms") and the load average at the
end. The same with a fresh parse on every request is reported separately ("with_parse"). As in the
server, what is alive after the workspace scan is moved out of the garbage collector's reach first
(`lsp_server.features.indexing.freeze_heap`), so no build pays for a full collection over the index.
"typing" types a statement at five random lines, one keystroke at a time: each keystroke's index
flush (the indexer's work on an edit) and the context build that follows are timed separately.

Prints JSON and writes it to --out (default benchmarks/results/context.json).

    python -m benchmarks.context_bench
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from benchmarks.context import corpora, heldout
from benchmarks.context.recall import JaccardWindows, line_starts, recall
from benchmarks.context.targets import sample_targets
from indexer import ScanOptions, WorkspaceIndex
from indexer.workspace import DEFAULT_EXCLUDE
from lsp_server.features.indexing import freeze_heap
from pruning.content_memo import ContentMemo
from pruning.context import build_context, prepare

MEMO = ContentMemo()  # as the server's pipeline keeps one for its lifetime
STDLIB_PACKAGES = "email,asyncio,json,importlib,concurrent/futures,http,xml/etree,logging,unittest,multiprocessing"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--languages", default=",".join(corpora.LANGUAGES))
    parser.add_argument("--corpus", choices=("dev", *heldout.SETS), default="dev",
                        help="the libraries the pruner's constants were chosen on, or one of the held-out sets")
    parser.add_argument("--samples", type=int, default=100, help="target lines per library")
    parser.add_argument("--budget", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--stdlib-packages", default=STDLIB_PACKAGES, help="'' to skip the standard library")
    parser.add_argument("--stdlib-samples", type=int, default=400)
    parser.add_argument("--timing-file", default="asyncio/base_events.py")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "context.json"))
    args = parser.parse_args(argv)

    result: dict = {"corpus": args.corpus, "budget_tokens": args.budget, "tokenizer": "approx",
                    "samples_per_library": args.samples,
                    "libraries": {}, "headline": {}}
    for language in [name for name in args.languages.split(",") if name]:
        per_library = []
        for package in (corpora if args.corpus == "dev" else heldout.SETS[args.corpus]).packages(language):
            print(f"context_bench: {language}: {corpora.name_of(package)}", file=sys.stderr)
            measured = library_recall(package, args.samples, args.budget, args.seed)
            result["libraries"][corpora.name_of(package)] = measured
            per_library.append(measured)
        result["headline"][language] = headline(per_library)
    stdlib = os.path.realpath(args.stdlib)
    index = WorkspaceIndex(ScanOptions(exclude=DEFAULT_EXCLUDE + ("**/site-packages/**",)), snapshot=False)
    started = time.perf_counter()
    report = index.scan([stdlib])
    result["stdlib"] = {"root": "python stdlib " + sys.version.split()[0], "files": report.files,
                        "symbols": report.symbols, "scan_s": round(time.perf_counter() - started, 1)}
    freeze_heap()  # as the server does after its first scan: a full collection never walks the index
    if args.stdlib_packages:
        result["stdlib"]["quality"] = stdlib_recall(index, stdlib, args.stdlib_packages.split(","),
                                                    args.stdlib_samples, args.budget, args.seed)
    result["speed"] = speed(index, os.path.join(stdlib, args.timing_file), args.requests, args.budget, args.seed)
    text = json.dumps(result, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    return 0


def library_recall(package, samples: int, budget: int, seed: int) -> dict:
    """One library as its own workspace: its target lines and their recall in every mode."""
    root = os.path.realpath(package.root)
    index = WorkspaceIndex(ScanOptions(exclude=DEFAULT_EXCLUDE), snapshot=False)
    try:
        index.scan([root])
        indexed = index.graph.files
        files = [p for p in (os.path.realpath(f) for f in corpora.files_of(package)) if p in indexed]
        targets = sample_targets(index.graph, files, samples, seed)
        modes = recall(index, root, package.language, targets, budget, JaccardWindows(index, files, root), memo=MEMO)
    finally:
        index.close()
    return {"language": package.language, "source": package.source, "files": len(files), **modes}


def stdlib_recall(index, stdlib: str, packages: list[str], samples: int, budget: int, seed: int) -> dict:
    """The standard library's packages, each package's names its own (as in the libraries)."""
    targets, files_by_package = [], []
    for name in packages:
        base = os.path.join(stdlib, name) + "/"
        files = sorted(p for p in index.graph.files if p.startswith(base) and p.endswith(".py")
                       and "/test" not in p[len(base) - 1:])
        files_by_package.extend(files)
        targets.extend(sample_targets(index.graph, files, samples, seed))
    random.Random(seed).shuffle(targets)
    return recall(index, stdlib, "python", targets[:samples], budget, JaccardWindows(index, files_by_package, stdlib), memo=MEMO)


def headline(per_library: list[dict]) -> dict:
    """Unseen-line recall over a language's libraries (names pooled), and its margin."""
    out = {}
    for mode in ("unseen_line", "fim"):
        names = sum(m[mode]["names"] for m in per_library)
        pooled = {k: round(sum(m[mode]["hits"][k] for m in per_library) / max(1, names), 3)
                  for k in ("pruned", "prefix_window", "jaccard")}
        out[mode] = {"names": names, "recall": pooled,
                     "margin_over_best_baseline": round(pooled["pruned"] - max(pooled["prefix_window"], pooled["jaccard"]), 3)}
    return out


def speed(index, path, requests, budget, seed):
    text = index.text(path)
    index.did_open(path, text, "python")
    index.flush(path)
    prepare(index, path)  # as the server does for a buffer opened 0.3 s before (lsp_server.freshness)
    starts = line_starts(text)
    rng = random.Random(seed)
    cursors = [starts[rng.randrange(len(starts))] for _ in range(requests)]
    timings, cpu, with_parse = [], [], []
    for offset in cursors:
        began, began_cpu = time.perf_counter(), time.process_time()
        build_context(path, text, offset, language="python", budget_tokens=budget, index=index, memo=MEMO)
        timings.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
    for offset in cursors[: max(20, requests // 5)]:
        began = time.perf_counter()
        build_context(path, text, offset, language="python", budget_tokens=budget, index=index,
                      tree=_fresh_tree(text), memo=MEMO)
        with_parse.append((time.perf_counter() - began) * 1000)
    typing_flush, typing_build = typing_session(index, path, text, rng, budget)
    return {
        "file": os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path),
        "lines": len(starts), "requests": requests,
        "build_ms": summary(timings), "build_cpu_ms": summary(cpu), "with_parse_ms": summary(with_parse),
        "typing": {"keystrokes": len(typing_build), "index_flush_ms": summary(typing_flush),
                   "build_ms": summary(typing_build)},
        "load_average_1m": round(os.getloadavg()[0], 1), "cpus": os.cpu_count(),
    }


def typing_session(index, path, text, rng, budget, places=5, typed="value = self._ready.popleft()"):
    """Keystrokes at the start of random lines: each is a `did_change`, then the index flush the
    server runs on the edit (timed as the indexer's cost), then a context build (timed)."""
    from lsp_server.features.documents import TextEdit

    starts = line_starts(text)
    flush_ms, build_ms = [], []
    for _ in range(places):
        offset = starts[rng.randrange(1, len(starts) - 1)]
        for char in typed:
            text = text[:offset] + char + text[offset:]
            index.did_change(path, [TextEdit(offset, offset, char)], text)
            offset += 1
            began = time.perf_counter()
            index.flush(path)
            flush_ms.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            build_context(path, text, offset, language="python", budget_tokens=budget, index=index, memo=MEMO)
            build_ms.append((time.perf_counter() - began) * 1000)
    return flush_ms, build_ms


def _fresh_tree(text):
    from indexer import languages

    return languages.parse("python", text.encode())


def summary(values):
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
            "max": round(ordered[-1], 2)}



if __name__ == "__main__":
    sys.exit(main())
