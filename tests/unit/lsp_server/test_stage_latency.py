"""Per-stage latency histograms: buckets, percentiles, bounded memory."""

from __future__ import annotations

from lsp_server.stage_latency import MAX_STAGES, StageLatency


def test_buckets_and_percentiles_per_stage():
    stages = StageLatency(window=4)
    for total, backend in [(0.4, None), (3.0, 2.5), (30.0, 29.0), (3000.0, 2990.0), (12000.0, 11990.0)]:
        stages.record({"total": total, **({"backend": backend} if backend else {}), "cache": 0.1})
    snap = stages.snapshot()
    assert snap["total"]["count"] == 5 and snap["total"]["buckets"] == {"0.5": 1, "5": 1, "50": 1, "5000": 1, "+Inf": 1}
    assert snap["total"]["max"] == 12000.0 and snap["total"]["p50"] == 3000.0  # over the last 4 only
    assert snap["backend"]["count"] == 4 and snap["cache"]["buckets"] == {"0.5": 5}


def test_stage_names_are_bounded():
    stages = StageLatency()
    for i in range(MAX_STAGES + 10):
        stages.record({f"stage{i}": 1.0, "bad": "x"})
    assert len(stages.snapshot()) == MAX_STAGES
