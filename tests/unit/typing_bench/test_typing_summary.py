"""Summaries count pauses without ghost text as the timeout; goals compare with the peer."""

from benchmarks.typing.records import PauseRecord, ghost_from_result
from benchmarks.typing.summary import goals, percentile, summarise


def record(latency, ghost="return b", expected="return b", prefilled=None, system="s"):
    return PauseRecord(system, "f", "line-start", 0, 0, 1, expected, ghost if latency is not None else None,
                       latency, prefilled_tokens=prefilled)


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 0.5) == 2.5
    assert percentile([5], 0.9) == 5
    assert percentile([], 0.5) is None


def test_missing_ghost_text_counts_as_the_timeout():
    records = [record(100), record(200), record(None), record(None)]
    s = summarise(records, 10_000)
    assert s["latency_p50_ms"] == 5100.0
    assert s["suggestion_rate"] == 0.5
    assert s["answered_latency_p50_ms"] == 150.0


def test_exact_rates_and_prefilled():
    records = [record(100, prefilled=10), record(1500, prefilled=30), record(200, ghost="return c"), record(None)]
    s = summarise(records, 10_000)
    assert s["exact_line_rate"] == 0.5
    assert s["exact_within_1s_rate"] == 0.25
    assert s["prefilled_p50"] == 20.0 and s["prefilled_known"] == 2


def test_goals_against_the_peer():
    head = summarise([record(100, prefilled=5)] * 20, 10_000)
    peer = summarise([record(900)] * 20, 10_000)
    verdicts = {g["goal"]: g["met"] for g in goals({"arbor-ls-embedded": head, "llama-server-llamavim": peer})}
    assert all(verdicts.values()), verdicts
    slow = summarise([record(None)] * 20, 10_000)
    verdicts = {g["goal"]: g["met"] for g in goals({"arbor-ls-embedded": slow})}
    assert not any(verdicts.values())


def test_ghost_from_result_handles_ranges_and_snippets():
    line = "    ret"
    assert ghost_from_result({"items": [{"insertText": "urn b"}]}, line, 3, 7) == "urn b"
    item = {"insertText": "    return b", "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 7}}}
    assert ghost_from_result({"items": [item]}, line, 3, 7) == "urn b"
    bad = {"insertText": "x = 1", "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 7}}}
    assert ghost_from_result([bad], line, 3, 7) is None
    assert ghost_from_result({"items": [{"insertText": {"kind": "snippet", "value": "urn"}}]}, line, 3, 7) == "urn"
    assert ghost_from_result({"items": []}, line, 3, 7) is None
    assert ghost_from_result(None, line, 3, 7) is None


def test_backend_loading_until_a_backend_is_listed_and_none_loads():
    from benchmarks.typing.runner import backend_loading

    assert backend_loading({"backends": [{"name": "embedded", "stats": {"loading": 1}}]})
    assert not backend_loading({"backends": [{"name": "embedded", "stats": {"steps": 3}}]})
    assert backend_loading({"backends": []})  # the backends are still being created
    assert backend_loading({})


def test_each_run_gets_its_own_disk_cache(tmp_path):
    from benchmarks.typing.runner import settings_for

    first = settings_for("arbor-ls-embedded", None, tmp_path / "a")
    second = settings_for("arbor-ls-llamacpp", "http://127.0.0.1:1", tmp_path / "b")
    assert first["cache"]["diskDir"] == str(tmp_path / "a")
    assert second["cache"]["diskDir"] == str(tmp_path / "b")
    assert second["backends"] == [{"kind": "llamacpp", "url": "http://127.0.0.1:1"}]
