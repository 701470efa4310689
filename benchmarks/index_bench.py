"""Indexer benchmark: cold and warm workspace indexing, and per-edit update latency.

Corpus: the Python standard library of the running interpreter, without test directories and
site-packages (the same selection the scan applies through `index.exclude` globs).

Cold index: `WorkspaceIndex.scan` from nothing (read, hash, parse, tags, graph), with no snapshot
and with a fresh snapshot being written; reported as files/s and MB/s and as a ratio to bare
tree-sitter parsing of the same files (already in memory, in this process) measured in the same
round. Cold scans run with the default `index.workers` (parse + tags in worker processes, one per
CPU up to 8; the pool's start-up is inside the timed scan, a new `WorkspaceIndex` each round) and,
in the same round, with `workers=1` (everything in this process). The cold goal is judged on the
default scan's wall-clock ratio (`cold_goal_basis`); its CPU time counts the worker processes too,
so `cpu_cold_ratio_to_bare_parse` says what the speed-up costs in total CPU. Rounds are interleaved
(bare, cold, cold single-process, cold+snapshot, warm) and medians over rounds are reported.
Warm start: a new `WorkspaceIndex` over the snapshot the cold run wrote; ratio to that cold run.

Per-edit latency: a workspace of one ~2,000-line module cut from the largest stdlib file plus
three files importing one of its functions; the module is open as a buffer. Each sample is
`did_change` plus `flush` (reparse, tags, fingerprint, re-index when the fingerprint changed),
alternating an insertion and its removal, for (a) an edit inside an identifier in a function body,
(b) an edit inside a comment, (c) an edit of the imported function's signature (its importers are
marked and re-resolved: the sample includes the next graph query). P50/P95/P99 in milliseconds.

Wall-clock figures are what a user waits; when the machine is shared they include waiting for a
CPU, so each figure is also given as CPU time of the process (corpus; for scans with worker processes
their CPU time is added) or thread (edits), with the 1-minute load average at the time.

Prints JSON and writes it to --out (default benchmarks/results/index.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from multiprocessing import forkserver
from pathlib import Path

from indexer import ScanOptions, WorkspaceIndex, languages
from indexer.scan import resolve_workers
from indexer.workspace import DEFAULT_EXCLUDE, iter_candidates

EXCLUDE = DEFAULT_EXCLUDE + ("**/test/**", "**/tests/**", "**/idle_test/**", "**/site-packages/**")
GOALS = {"cold_ratio_to_bare_parse": 1.5, "warm_ratio_to_cold": 0.1,
         "identifier_edit_p95_ms": 5.0, "comment_edit_p95_ms": 5.0, "signature_edit_p95_ms": 15.0}


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_with_children() -> float:
    """CPU seconds of this process, its reaped children and the multiprocessing forkserver with the
    workers it reaped (scan workers are the forkserver's children, not ours; Linux /proc)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = time.process_time() + children.ru_utime + children.ru_stime
    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime..cstime
        except OSError:
            pass
    return total


def timed(fn, cpu_clock=time.process_time) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds by `cpu_clock`, result)."""
    start, cpu = time.perf_counter(), cpu_clock()
    result = fn()
    return time.perf_counter() - start, cpu_clock() - cpu, result


def corpus_bench(root: str, rounds: int) -> dict:
    options = ScanOptions(exclude=EXCLUDE)
    files = [(path, lang) for path, lang in iter_candidates(root, options)]
    sources = []
    for path, lang in files:
        with open(path, "rb") as f:
            sources.append((lang, f.read()))
    total_bytes = sum(len(s) for _, s in sources)
    for lang in {lang for lang, _ in sources}:  # compile queries before timing anything
        languages.GRAMMARS[lang].tags_query
    single = ScanOptions(exclude=EXCLUDE, workers=1)
    wall: dict[str, list[float]] = {k: [] for k in ("bare", "cold", "cold_single", "cold_snap", "warm")}
    cpu: dict[str, list[float]] = {k: [] for k in wall}
    report = None
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        w, c, _ = timed(lambda: [languages.parse(lang, data) for lang, data in sources])
        wall["bare"].append(w), cpu["bare"].append(c)
        index = WorkspaceIndex(options, snapshot=False)
        w, c, report = timed(lambda: index.scan([root]), cpu_with_children)
        wall["cold"].append(w), cpu["cold"].append(c)
        index.close()
        index = WorkspaceIndex(single, snapshot=False)
        w, c, _ = timed(lambda: index.scan([root]))
        wall["cold_single"].append(w), cpu["cold_single"].append(c)
        index.close()
        cache = Path(tempfile.mkdtemp(prefix="arbor-index-bench-"))
        try:
            index = WorkspaceIndex(options, cache_dir=cache)
            w, c, _ = timed(lambda: index.scan([root]), cpu_with_children)
            wall["cold_snap"].append(w), cpu["cold_snap"].append(c)
            index.close()
            index = WorkspaceIndex(options, cache_dir=cache)
            w, c, warm_report = timed(lambda: index.scan([root]), cpu_with_children)
            wall["warm"].append(w), cpu["warm"].append(c)
            index.close()
            assert warm_report.parsed == 0, "warm start re-parsed files"
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    def ratio(times: dict[str, list[float]], a: str, b: str) -> float:
        return round(statistics.median(x / y for x, y in zip(times[a], times[b])), 3)

    median = {k: statistics.median(v) for k, v in wall.items()}
    return {
        "root": root,
        "files": len(files),
        "indexed_files": report.files,
        "skipped": len(report.skipped),
        "symbols": report.symbols,
        "megabytes": round(total_bytes / 1e6, 3),
        "rounds": rounds,
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "bare_parse_s": round(median["bare"], 3),
        "cold_workers": resolve_workers(options.workers),
        "cold_index_s": round(median["cold"], 3),
        "cold_single_process_s": round(median["cold_single"], 3),
        "cold_index_with_snapshot_write_s": round(median["cold_snap"], 3),
        "warm_start_s": round(median["warm"], 3),
        "cold_files_per_s": round(len(files) / median["cold"], 1),
        "cold_mb_per_s": round(total_bytes / 1e6 / median["cold"], 2),
        "bare_parse_mb_per_s": round(total_bytes / 1e6 / median["bare"], 2),
        "cold_ratio_to_bare_parse": ratio(wall, "cold", "bare"),
        "cold_single_process_ratio_to_bare_parse": ratio(wall, "cold_single", "bare"),
        "warm_ratio_to_cold": ratio(wall, "warm", "cold_snap"),
        "cpu_s": {k: round(statistics.median(v), 3) for k, v in cpu.items()},
        "cpu_cold_ratio_to_bare_parse": ratio(cpu, "cold", "bare"),
        "cpu_cold_single_process_ratio_to_bare_parse": ratio(cpu, "cold_single", "bare"),
        "cpu_warm_ratio_to_cold": ratio(cpu, "warm", "cold_snap"),
    }


def two_thousand_lines(root: str) -> tuple[str, str]:
    """A stdlib module of more than 2,000 lines (the one with the most `def` lines among its first
    2,000), cut at the first top-level statement at or after line 2,000."""
    best: tuple[int, str, list[str]] | None = None
    for path, lang in iter_candidates(root, ScanOptions(exclude=EXCLUDE)):
        if lang != "python" or os.path.getsize(path) < 60_000:
            continue
        lines = Path(path).read_text(encoding="utf-8").split("\n")
        if len(lines) < 2100:
            continue
        score = sum(1 for line in lines[:2000] if line.lstrip().startswith("def "))
        if best is None or score > best[0]:
            best = (score, path, lines)
    assert best is not None, "no module of more than 2,000 lines in the corpus"
    _, path, lines = best
    cut = next((i for i in range(2000, len(lines)) if lines[i][:1].isalpha()), len(lines))
    return path, "\n".join(lines[:cut]) + "\n"


def edit_bench(root: str, samples: int) -> dict:
    source_path, text = two_thousand_lines(root)
    work = Path(tempfile.mkdtemp(prefix="arbor-edit-bench-"))
    try:
        (work / "target_mod.py").write_text(text, encoding="utf-8")
        from indexer import extract_tags

        data = text.encode()
        file_tags = extract_tags("python", languages.parse("python", data), data)
        functions = [d for d in file_tags.definitions if d.kind == "function" and d.end_line - d.start_line >= 5]
        target_fn = functions[len(functions) // 2]
        for i in range(3):
            (work / f"user{i}.py").write_text(
                f"from target_mod import {target_fn.name}\n\n\ndef use{i}(*args):\n"
                f"    return {target_fn.name}(*args)\n", encoding="utf-8")
        index = WorkspaceIndex(snapshot=False)
        index.scan([str(work)])
        path = (work / "target_mod.py").as_posix()
        index.did_open(path, text, "python")
        index.flush()
        users = [(work / f"user{i}.py").as_posix() for i in range(3)]

        middle = len(text) // 2
        ident = _identifier_in_body(text, file_tags, middle)
        comment = _comment_position(text, middle)
        signature = text.index("(", len(data[:target_fn.name_byte].decode())) + 1

        def run(position: int, check_users: bool) -> tuple[list[float], list[float], list[int]]:
            nonlocal text
            times, cpu_times, reindexed = [], [], []
            for i in range(samples):
                if i % 2 == 0:
                    edit = Edit(position, position, "q")
                    new_text = text[:position] + "q" + text[position:]
                else:
                    edit = Edit(position, position + 1, "")
                    new_text = text[:position] + text[position + 1:]
                start, cpu = time.perf_counter(), time.thread_time()
                index.did_change(path, [edit], new_text)
                stats = index.flush()
                if check_users:
                    index.graph.imports_of(users[0])  # re-resolves the marked importers
                times.append((time.perf_counter() - start) * 1000)
                cpu_times.append((time.thread_time() - cpu) * 1000)
                reindexed.append(stats.reindexed)
                text = new_text
            return times, cpu_times, reindexed

        results = {}
        for name, position, check in (("identifier_edit", ident, False), ("comment_edit", comment, False),
                                      ("signature_edit", signature, True)):
            run(position, check)  # warm-up pass
            times, cpu_times, reindexed = run(position, check)
            results[name] = {"p50_ms": round(percentile(times, 0.50), 3), "p95_ms": round(percentile(times, 0.95), 3),
                             "p99_ms": round(percentile(times, 0.99), 3), "samples": len(times),
                             "cpu_p50_ms": round(percentile(cpu_times, 0.50), 3),
                             "cpu_p95_ms": round(percentile(cpu_times, 0.95), 3),
                             "cpu_p99_ms": round(percentile(cpu_times, 0.99), 3),
                             "files_reindexed_per_edit": max(reindexed)}
        results["signature_edit"]["importers_marked"] = len(index.last_flush.marked)
        index.close()
        return {"file": os.path.relpath(source_path, root), "lines": text.count("\n"), "bytes": len(data),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "function": target_fn.name, **results}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _comment_position(text: str, near: int) -> int:
    """A position inside a whole-line comment after `near`."""
    pos = text.index("\n", near) + 1
    while True:
        end = text.index("\n", pos)
        line = text[pos:end]
        if line.lstrip().startswith("# ") and len(line.strip()) > 6:
            return pos + line.index("#") + 3
        pos = end + 1


def _identifier_in_body(text: str, file_tags, near: int) -> int:
    """A position inside an identifier used in a function body, near `near`."""
    for ref in file_tags.references:
        if ref.byte >= near and ref.kind == "call" and len(ref.name) > 3:
            return len(text.encode()[:ref.byte].decode()) + 2
    raise RuntimeError("no identifier found")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"], help="corpus directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=400, help="edits per latency scenario")
    parser.add_argument("--out", default=str(Path(__file__).with_name("results") / "index.json"))
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root).replace(os.sep, "/")
    corpus = corpus_bench(root, args.rounds)
    edits = edit_bench(root, args.samples)
    report = {
        "benchmark": "index",
        "python": platform.python_version(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "corpus": corpus,
        "edits": edits,
        "goals": GOALS,
        "cold_goal_basis": "cold_ratio_to_bare_parse: wall clock of the cold scan with the default "
                           f"index.workers ({corpus['cold_workers']} worker processes) over bare "
                           "in-process parsing, median of per-round ratios",
        "met": {
            "cold_ratio_to_bare_parse": corpus["cold_ratio_to_bare_parse"] <= GOALS["cold_ratio_to_bare_parse"],
            "warm_ratio_to_cold": corpus["warm_ratio_to_cold"] <= GOALS["warm_ratio_to_cold"],
            "identifier_edit_p95_ms": edits["identifier_edit"]["p95_ms"] <= GOALS["identifier_edit_p95_ms"],
            "comment_edit_p95_ms": edits["comment_edit"]["p95_ms"] <= GOALS["comment_edit_p95_ms"],
            "signature_edit_p95_ms": edits["signature_edit"]["p95_ms"] <= GOALS["signature_edit_p95_ms"],
        },
    }
    text = json.dumps(report, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
