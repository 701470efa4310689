"""Context quality and speed of `pruning.build_context` on code this project did not write.

Workspace: the Python standard library of the running interpreter (site-packages excluded),
indexed with `indexer.WorkspaceIndex`, so the workspace has well over 1,000 files.

Quality: in the packages given by --packages, every line whose text references (per the indexer's
tags) a top-level name defined in another file of the same package, and not defined in the file
itself, is a candidate; --samples of them are drawn with a fixed seed. A reference counts only
when it can mean that definition: a bare name must be bound by one of the file's imports (else it
is a builtin), and `owner.name` only when `owner` is an imported module of that name (`loop.run`
is a method call, not a use of a top-level `run` elsewhere). For each, the cursor is put
at the start of that line and the context is built for a --budget token budget. A name counts as
recalled when a context snippet from a defining file covers the definition's name line or shows
that line's text (as the class header above a member does).
Two cursor settings are measured:
- "fim": the file is cut at the cursor (prefix = text before the line, suffix = the line and what
  follows), as an editor sends it when the cursor sits at the start of an existing line;
- "unseen_line": the same with the line itself removed (the edited buffer is opened in the index,
  as the editor's document would be), so only the code around it can reveal which definitions
  the line will need.
Baselines, in the same run, get the same budget split: "prefix_window" (the prefix and suffix
windows alone) and "jaccard" (windows of 20 lines, stride 10, from the other files of the package,
ranked by Jaccard similarity of identifier sets with the 20 lines around the cursor, as RepoCoder
and Continue retrieve, packed in rank order into the snippet share).
Compression ratio: characters of the files the context took text from (the current file
included) divided by the characters of the context; the median is reported.

Speed: --requests cursors in a --timing-file of about 2,000 lines, opened as a document in the
index (its tree is the document's, as in the server); build time per request in milliseconds,
with P50/P95, excluding the model; also the process CPU time per request ("build_cpu_ms", which
other processes on a shared machine do not inflate) and the load average at the end. The same
with a fresh parse of the file on every request is reported separately ("with_parse"). "typing" types a statement at five random lines, one
keystroke at a time: each keystroke's index flush (the indexer's work on an edit) and the context
build that follows are timed separately.

Prints JSON and writes it to --out (default benchmarks/results/context.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from indexer import ScanOptions, WorkspaceIndex
from indexer.workspace import DEFAULT_EXCLUDE
from pruning.budget import DEFAULT_TOKENIZER, prefix_window, suffix_window
from pruning.content_memo import ContentMemo
from pruning.context import build_context

MEMO = ContentMemo()  # as the server's pipeline keeps one for its lifetime
WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
TOP_KINDS = ("function", "class", "variable", "constant")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--packages", default="email,asyncio,json,importlib,concurrent/futures,http,"
                        "xml/etree,logging,unittest,multiprocessing")
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--budget", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timing-file", default="asyncio/base_events.py")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "context.json"))
    args = parser.parse_args(argv)

    stdlib = os.path.realpath(args.stdlib)
    started = time.perf_counter()
    index = WorkspaceIndex(ScanOptions(exclude=DEFAULT_EXCLUDE + ("**/site-packages/**",)), snapshot=False)
    report = index.scan([stdlib])
    graph = index.graph
    scan_seconds = time.perf_counter() - started
    result = {
        "workspace": {"root": "python stdlib " + sys.version.split()[0], "files": report.files,
                      "symbols": report.symbols, "scan_s": round(scan_seconds, 1)},
        "budget_tokens": args.budget,
        "tokenizer": "approx",
    }
    packages = [os.path.join(stdlib, p) for p in args.packages.split(",")]
    samples = sample_lines(index, graph, packages, args.samples, args.seed)
    result["quality"] = quality(index, samples, stdlib, args.budget)
    result["speed"] = speed(index, os.path.join(stdlib, args.timing_file), args.requests, args.budget, args.seed)
    text = json.dumps(result, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    return 0


def sample_lines(index, graph, packages, count, seed):
    """(path, line number, names, defining locations) for lines using another file's names."""
    candidates = []
    for package in packages:
        files = sorted(p for p in graph.files if p.startswith(package + "/") and p.endswith(".py")
                       and "/test" not in p[len(package):])
        top: dict[str, list[tuple[str, int]]] = {}
        for path in files:
            for d in graph.tags(path).definitions:
                if d.container is None and d.kind in TOP_KINDS and len(d.name) > 2 and not d.name.startswith("__"):
                    top.setdefault(d.name, []).append((path, d.name_line))
        for path in files:
            tags = graph.tags(path)
            source = (index.text(path) or "").encode()
            own = {d.name for d in tags.definitions}
            bound, modules = import_bindings(tags)
            by_line: dict[int, set[str]] = {}
            for ref in tags.references:
                where = top.get(ref.name)
                if ref.name in own or not where or len({p for p, _ in where}) > 3:
                    continue
                owner = owner_before(source, ref.byte)
                if owner is None and ref.name not in bound:
                    continue  # a bare name that no import binds is a builtin, not the package's
                if owner is not None and module_stem_of(modules.get(owner, "")) not in {
                        module_stem(p) for p, _ in where}:
                    continue  # `obj.name` on a non-module object names a method, not this definition
                if all(p == path for p, _ in where):
                    continue
                by_line.setdefault(ref.line, set()).add(ref.name)
            import_lines = {imp.line for imp in tags.imports}
            for line, names in sorted(by_line.items()):
                if line in import_lines:
                    continue
                targets = {n: [w for w in top[n] if w[0] != path] for n in sorted(names)}
                candidates.append((path, line, targets))
    random.Random(seed).shuffle(candidates)
    return candidates[:count]


def import_bindings(tags):
    """Names bound by the file's imports, and local module names -> the module they name."""
    bound, modules = set(), {}
    for imp in tags.imports:
        for original, local in zip(imp.names, imp.local_names):
            bound.add(local)
            modules[local] = f"{imp.module}.{original}"
        if imp.alias:
            modules[imp.alias] = imp.module
        elif not imp.names:
            modules[imp.module.split(".")[0]] = imp.module.split(".")[0]
    return bound, modules


def owner_before(source: bytes, byte: int):
    """For `owner.name` at `byte`, the owner's last identifier; None when not after a dot."""
    before = source[:byte].rstrip()
    if not before.endswith(b"."):
        return None
    match = re.search(rb"([A-Za-z_][A-Za-z_0-9]*)\s*$", before[:-1])
    return match.group(1).decode() if match else ""


def module_stem_of(dotted: str) -> str:
    return dotted.rstrip(".").rsplit(".", 1)[-1] if dotted else ""


def module_stem(path: str) -> str:
    directory, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    return directory.rpartition("/")[2] if stem == "__init__" else stem


def shows(parts, stdlib, index, path, line):
    """Whether a snippet from `path` covers `line` or contains that line's text (a class header
    shown above one of its members counts)."""
    wanted = (index.text(path) or "").split("\n")[line].strip()
    for snippet in parts.snippets:
        if os.path.join(stdlib, snippet.path) != path:
            continue
        if snippet.start_line - 1 <= line < snippet.end_line or (wanted and wanted in snippet.text):
            return True
    return False


def quality(index, samples, stdlib, budget):
    modes = {}
    for mode in ("fim", "unseen_line"):
        hits = {"pruned": 0, "prefix_window": 0, "jaccard": 0}
        names = 0
        ratios = []
        snippets_used = []
        for path, line, targets in samples:
            text = index.text(path)
            starts = line_starts(text)
            offset = starts[line]
            if mode == "unseen_line":  # the edited buffer is an open document, as in the editor
                end = starts[line + 1] if line + 1 < len(starts) else len(text)
                text = text[:offset] + text[end:]
                index.did_open(path, text, "python")
            parts = build_context(path, text, offset, language="python", budget_tokens=budget,
                                  index=index, workspace_root=stdlib)
            if mode == "unseen_line":
                index.did_close(path)
            windows = jaccard_windows(index, path, text, offset, budget)
            for name, where in targets.items():
                names += 1
                if any(shows(parts, stdlib, index, p, n) for p, n in where):
                    hits["pruned"] += 1
                if any(p == path for p, _ in where):
                    hits["prefix_window"] += 1  # never: targets are defined in other files
                if any((p, n) in windows for p, n in where):
                    hits["jaccard"] += 1
            context_chars = len(parts.prefix) + len(parts.suffix) + sum(len(s.text) for s in parts.snippets)
            involved = {path} | {os.path.join(stdlib, p) for p, _ in parts.depends_on}
            involved_chars = sum(len(index.text(p) or "") for p in involved if os.path.exists(p))
            ratios.append(involved_chars / max(1, context_chars))
            snippets_used.append(len(parts.snippets))
        recall = {k: round(v / max(1, names), 3) for k, v in hits.items()}
        modes[mode] = {
            "lines": len(samples), "names": names, "recall": recall,
            "margin_over_best_baseline": round(recall["pruned"] - max(recall["prefix_window"], recall["jaccard"]), 3),
            "median_compression_ratio": round(statistics.median(ratios), 1),
            "median_snippets": statistics.median(snippets_used),
        }
    return modes


_WINDOW_CACHE: dict[str, list[tuple[int, int, frozenset[str], str]]] = {}


def jaccard_windows(index, path, text, offset, budget, size=20, stride=10):
    """Lines (path, line) covered by the Jaccard baseline's retrieved windows."""
    package = os.path.dirname(path)
    lines = text.split("\n")
    cursor = text.count("\n", 0, offset)
    query = set(WORD.findall("\n".join(lines[max(0, cursor - size // 2): cursor + size // 2])))
    pre = prefix_window(text[:offset], int(budget * 0.45))
    suf = suffix_window(text[offset:], int(budget * 0.15))
    left = budget - pre.tokens - suf.tokens
    scored = []
    for other in sorted(index.graph.files):
        if other == path or os.path.dirname(other) != package:
            continue
        for start, end, words, chunk in windows_of(index, other, size, stride):
            union = len(words | query)
            if union:
                scored.append((-len(words & query) / union, other, start, end, chunk))
    scored.sort()
    covered = set()
    for _, other, start, end, chunk in scored:
        cost = DEFAULT_TOKENIZER.count(chunk)
        if cost > left:
            continue
        left -= cost
        covered.update((other, n) for n in range(start, end))
    return covered


def windows_of(index, path, size, stride):
    cached = _WINDOW_CACHE.get(path)
    if cached is None:
        lines = (index.text(path) or "").split("\n")
        cached = []
        for start in range(0, max(1, len(lines) - size + stride), stride):
            chunk = "\n".join(lines[start:start + size])
            cached.append((start, min(len(lines), start + size), frozenset(WORD.findall(chunk)), chunk))
        _WINDOW_CACHE[path] = cached
    return cached


def speed(index, path, requests, budget, seed):
    text = index.text(path)
    index.did_open(path, text, "python")
    index.flush(path)
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


def line_starts(text):
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


if __name__ == "__main__":
    sys.exit(main())
