"""Percentiles, scenario summaries and the knee of the throughput curve."""

import math

import pytest

from benchmarks.load.stats import ScenarioRecord, find_knee, percentile, ratio, summarize


def test_percentile_interpolates_between_closest_ranks():
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 50) == 2.5
    assert percentile(list(range(1, 101)), 95) == pytest.approx(95.05)
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError):
        percentile(values, 101)


def test_summary_has_the_documented_keys_and_rates():
    record = ScenarioRecord(latencies_ms=[float(v) for v in range(1, 101)], requests=100, messages=1000,
                            errors=2, cancelled=3, elapsed_s=2.0)
    summary = summarize(record)
    for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms", "requests_per_s", "messages_per_s", "errors", "cancelled"):
        assert key in summary
    assert summary["p50_ms"] == 50.5 and summary["max_ms"] == 100.0
    assert summary["requests_per_s"] == 50.0 and summary["messages_per_s"] == 500.0
    assert (summary["errors"], summary["cancelled"]) == (2, 3)


def test_summary_of_an_empty_record_has_no_latencies():
    summary = summarize(ScenarioRecord())
    assert summary["p95_ms"] is None and summary["max_ms"] is None and summary["requests_per_s"] is None


def test_error_keeps_a_few_samples_but_counts_all():
    record = ScenarioRecord()
    for i in range(9):
        record.error(f"e{i}")
    assert record.errors == 9 and record.error_samples == ["e0", "e1", "e2", "e3", "e4"]


def test_merge_adds_counts_and_keeps_the_longer_elapsed():
    a = ScenarioRecord(latencies_ms=[1.0], requests=1, messages=3, elapsed_s=2.0)
    b = ScenarioRecord(latencies_ms=[2.0], requests=2, messages=4, cancelled=1, elapsed_s=1.5)
    a.merge(b)
    assert (a.requests, a.messages, a.cancelled, a.elapsed_s) == (3, 7, 1, 2.0)
    assert a.latencies_ms == [1.0, 2.0]


def test_knee_is_where_throughput_stops_growing():
    assert find_knee([1, 2, 4, 8], [100, 190, 200, 201]) == 2
    assert find_knee([1, 2, 4], [100, 105, 300]) == 1
    assert find_knee([1, 2, 4], [100, 200, 400]) == 4  # still growing at the last level
    assert find_knee([1, 2], [100, 80]) == 1
    assert find_knee([], []) is None


def test_ratio_handles_missing_values():
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(None, 2.0) is None and ratio(1.0, 0) is None
