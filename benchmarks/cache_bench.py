"""Completion cache benchmark: replay typing real files and count what the cache answers.

Files: standard-library modules of the running interpreter (--modules). Each is typed from top to
bottom into an empty buffer (the suffix is empty) by the real `CompletionPipeline` (pruning's
context, the router, post-processing) with a `CompletionCache` and a deterministic model double
(`benchmarks.true_text_model`) that answers with the file's true next characters. A completion is
requested at every pause: the end of each whitespace-delimited token and the start of each
non-blank line after its indentation (as an editor leaves the cursor after Enter).

Phases, each over all files, in one process:
- "cold": empty memory tiers, empty disk directory.
- "restart": a new CompletionCache over the same disk directory (memory tiers empty again).
- "comment_edit": the same cache as "restart", each file with a comment line inserted at its top
  and the model's text updated to match: every prompt differs, local contexts do not.
- with --redis-url only, "shared_first_teammate" then "shared_second_teammate": two caches with no
  disk tier sharing one Redis server; the second types what the first typed.

For each phase: requests; the fraction served without a backend call, per tier and in total
(checked against the model double's own call count); stale hits as judged by an oracle that
recomputes each served completion through the same pipeline without a cache (stale: the served
text is not a head of the oracle's text), and hits whose text is not a head of the file's true
continuation; latency of hits: the cache lookup alone ("lookup"), the router from request to
cached answer including prompt rendering ("router"), and the whole pipeline including context
building and post-processing ("pipeline"); pipeline latency of misses for comparison. Lookup
times are wall-clock and, separately, process CPU time ("lookup_cpu"): on a busy machine the
wall-clock tail mostly measures waiting for a core.

Prints JSON and writes it to --out (default benchmarks/results/cache.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from inference.backend_spec import BackendSpec
from inference.cache import CacheSettings, CompletionCache
from inference.cache.stats import TIERS
from inference.router import Router
from lsp_server.config import Settings
from lsp_server.pipeline import CompletionPipeline

from benchmarks.true_text_model import TrueTextModel

DEFAULT_MODULES = "bisect,colorsys,fnmatch,graphlib,shlex,textwrap"
COMMENT = "# A comment-only change: nothing below it is different.\n"


def pause_points(text: str) -> list[int]:
    """Cursor offsets where a typist pauses: token ends, and line starts after indentation."""
    points: set[int] = set()
    for i in range(1, len(text) + 1):
        if not text[i - 1].isspace() and (i == len(text) or text[i].isspace()):
            points.add(i)
    start = 0
    for line in text.splitlines(keepends=True):
        body = line.lstrip(" \t")
        if body.strip():
            points.add(start + len(line) - len(body))
        start += len(line)
    return sorted(p for p in points if p > 0)


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"count": 0}
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 4)

    return {"count": len(ordered), "p50": pick(50), "p95": pick(95), "p99": pick(99), "max": round(ordered[-1], 4)}


class TimedCache(CompletionCache):
    """Measuring instrument: the real cache, with each hit's lookup timed per tier, as wall-clock
    time and as this process's CPU time (the latter is what the lookup itself costs; the former
    also counts waiting for a core on a busy machine)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reset_timings()

    def reset_timings(self) -> None:
        self.wall_ms: dict[str, list[float]] = {tier: [] for tier in TIERS}
        self.cpu_ms: dict[str, list[float]] = {tier: [] for tier in TIERS}

    def lookup(self, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        hit = super().lookup(*args, **kwargs)
        if hit is not None:
            self.cpu_ms[hit.tier].append((time.process_time() - cpu) * 1000)
            self.wall_ms[hit.tier].append((time.perf_counter() - wall) * 1000)
        return hit


def make_pipeline(root: Path, model: TrueTextModel, cache: CompletionCache | None) -> CompletionPipeline:
    spec = BackendSpec(name="true-text", kind="python", model="benchmarks.true_text_model:TrueTextModel",
                       model_family="qwen2.5-coder", timeout_ms=60_000)
    settings = Settings(backends=[spec])
    router = Router([spec], cache=cache, factory=lambda _spec: model)
    return CompletionPipeline(settings, str(root), cache=cache, router=router)


async def replay(name: str, files: dict[str, str], root: Path, cache: TimedCache) -> dict:
    model = TrueTextModel(dict(files))
    oracle_model = TrueTextModel(dict(files))
    pipeline = make_pipeline(root, model, cache)
    oracle = make_pipeline(root, oracle_model, None)
    cache.reset_timings()
    served = dict.fromkeys(TIERS, 0)
    requests = stale = untrue = 0
    router_ms: list[float] = []
    router_ms_by_tier: dict[str, list[float]] = {tier: [] for tier in TIERS}
    hit_pipeline_ms: list[float] = []
    miss_pipeline_ms: list[float] = []
    examples: list[dict] = []
    started = time.perf_counter()
    for rel, text in files.items():
        path = str(root / rel)
        for pos in pause_points(text):
            requests += 1
            result = await pipeline.complete(path, text[:pos], pos)
            if result.cache == "miss":
                miss_pipeline_ms.append(result.latency_ms["total"])
                continue
            served[result.cache] += 1
            router_ms.append(result.latency_ms["cache"])
            router_ms_by_tier[result.cache].append(result.latency_ms["cache"])
            hit_pipeline_ms.append(result.latency_ms["total"])
            truth = await oracle.complete(path, text[:pos], pos)
            if not truth.text.startswith(result.text):
                stale += 1
                if len(examples) < 5:
                    examples.append({"file": rel, "offset": pos, "tier": result.cache,
                                     "served": result.text[:80], "oracle": truth.text[:80]})
            if not text[pos:].startswith(result.text):
                untrue += 1
    hits = sum(served.values())
    assert requests - hits == model.calls, "every request the cache did not answer called the model"
    return {
        "phase": name, "requests": requests, "backend_calls": model.calls,
        "served_without_backend": round(hits / requests, 4),
        "served_by_tier": {tier: round(n / requests, 4) for tier, n in served.items()},
        "hits_by_tier": served,
        "stale_hits": stale, "hits_not_true_text": untrue, "oracle_calls": oracle_model.calls,
        "stale_examples": examples,
        "hit_latency_ms": {
            "lookup": percentiles([ms for v in cache.wall_ms.values() for ms in v]),
            "lookup_by_tier": {t: percentiles(v) for t, v in cache.wall_ms.items() if v},
            "lookup_cpu": percentiles([ms for v in cache.cpu_ms.values() for ms in v]),
            "lookup_cpu_by_tier": {t: percentiles(v) for t, v in cache.cpu_ms.items() if v},
            "router": percentiles(router_ms),
            "router_by_tier": {t: percentiles(v) for t, v in router_ms_by_tier.items() if v},
            "pipeline": percentiles(hit_pipeline_ms)},
        "miss_latency_ms": {"pipeline": percentiles(miss_pipeline_ms)},
        "seconds": round(time.perf_counter() - started, 2),
    }


async def run(args) -> dict:
    stdlib = Path(args.stdlib)
    files = {}
    for module in args.modules.split(","):
        text = (stdlib / f"{module.strip()}.py").read_text(encoding="utf-8")
        if args.max_lines:
            text = "".join(text.splitlines(keepends=True)[: args.max_lines])
        files[f"{module.strip()}.py"] = text
    with tempfile.TemporaryDirectory(prefix="cache-bench-") as tmp:
        root = Path(tmp) / "workspace"
        root.mkdir()
        settings = CacheSettings(disk_dir=str(Path(tmp) / "disk"))
        phases = []
        cold = TimedCache(settings, workspace_root=str(root))
        phases.append(await replay("cold", files, root, cold))
        cold.close()
        warm = TimedCache(settings, workspace_root=str(root))
        phases.append(await replay("restart", files, root, warm))
        edited = {rel: COMMENT + text for rel, text in files.items()}
        phases.append(await replay("comment_edit", edited, root, warm))
        final_stats = warm.stats()
        warm.close()
        if args.redis_url:
            namespace = f"bench{os.getpid()}"
            shared = CacheSettings(disk=False, redis_url=args.redis_url, redis_namespace=namespace)
            alice = TimedCache(shared, workspace_root=str(root))
            phases.append(await replay("shared_first_teammate", files, root, alice))
            alice.close()
            bob = TimedCache(shared, workspace_root=str(root))
            phases.append(await replay("shared_second_teammate", files, root, bob))
            bob.close()
    total_requests = sum(p["requests"] for p in phases)
    return {
        "benchmark": "cache",
        "python": platform.python_version(), "machine": platform.machine(),
        "files": {rel: len(text.splitlines()) for rel, text in files.items()},
        "goals": {"served_without_backend_cold": ">= 0.70", "stale_hits": 0, "hit_lookup_p95_ms": "<= 2"},
        "summary": {
            "served_without_backend_cold": phases[0]["served_without_backend"],
            "stale_hits_all_phases": sum(p["stale_hits"] for p in phases),
            "hits_not_true_text_all_phases": sum(p["hits_not_true_text"] for p in phases),
            "hit_lookup_p95_ms_max_over_phases": max(p["hit_latency_ms"]["lookup"].get("p95", 0) for p in phases),
            "hit_lookup_cpu_p95_ms_max_over_phases": max(p["hit_latency_ms"]["lookup_cpu"].get("p95", 0)
                                                         for p in phases),
            "hit_router_p95_ms_max_over_phases": max(p["hit_latency_ms"]["router"].get("p95", 0) for p in phases),
            "requests_all_phases": total_requests,
            "served_without_backend_by_phase": {p["phase"]: p["served_without_backend"] for p in phases},
            "hit_lookup_p95_ms_by_phase": {p["phase"]: p["hit_latency_ms"]["lookup"].get("p95", 0) for p in phases},
            "hit_lookup_cpu_p95_ms_by_phase": {p["phase"]: p["hit_latency_ms"]["lookup_cpu"].get("p95", 0)
                                               for p in phases},
        },
        "phases": phases,
        "cache_stats_at_end": {k: final_stats[k] for k in ("lookups", "hits", "evictions", "bytes", "tiers")},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--modules", default=DEFAULT_MODULES)
    parser.add_argument("--max-lines", type=int, default=0, help="type only the first N lines of each file")
    parser.add_argument("--redis-url", default="",
                        help="also replay as two teammates sharing this Redis (phases shared_*)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "cache.json"))
    args = parser.parse_args(argv)
    report = asyncio.run(run(args))
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
