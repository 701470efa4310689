"""Goal verdicts from a report, memory growth after warm-up, and the threshold check."""

from benchmarks.load.goals import evaluate, record
from benchmarks.load.runner import ServerRun, check_thresholds, compare, growth_after_warmup
from benchmarks.load.servers import ServerSpec


def summary(p95, mps=100.0, errors=0):
    return {"p95_ms": p95, "messages_per_s": mps, "errors": errors}


def report(arbor: dict, bare: dict | None = None, crashed=False) -> dict:
    return {"scenarios": arbor, "baseline": {"scenarios": bare} if bare is not None else None,
            "server": {"crashed": crashed}, "date": "d", "machine": {}}


def by_goal(verdicts):
    return {v["goal"]: v for v in verdicts}


def test_every_goal_met():
    arbor = {"single_file": summary(5), "reference_chain": summary(10), "concurrent_clients": summary(15),
             "typing_throughput": summary(200, mps=2000)}
    bare = {"single_file": summary(2), "reference_chain": summary(4), "concurrent_clients": summary(6),
            "typing_throughput": summary(100, mps=2200)}
    soak = {"scenarios": {"soak": {"requests": 120_000, "elapsed_s": 600, "errors": 0}},
            "server": {"rss_growth_after_warmup_percent": 4.0, "crashed": False}}
    verdicts = evaluate(report(arbor, bare), soak)
    assert all(v["met"] is True for v in verdicts), [v for v in verdicts if v["met"] is not True]
    assert record(report(arbor, bare), soak)["goals_missed"] == 0


def test_misses_and_missing_figures_are_told_apart():
    arbor = {"single_file": summary(9), "typing_throughput": summary(200, mps=800, errors=1)}
    bare = {"single_file": summary(2), "typing_throughput": summary(100, mps=2000)}
    v = by_goal(evaluate(report(arbor, bare)))
    assert v["single_file P95"]["met"] is False and v["single_file P95"]["published_p95_ms"] == 12.3
    assert v["reference_chain P95"]["met"] is None  # not run
    assert v["typing-trace messages/s, one server process"]["met"] is False
    assert v["typing-trace messages/s vs bare pygls in the same run"]["measured"] == 0.4
    assert v["single_file P95 vs bare pygls"]["measured"] == 4.5 and v["single_file P95 vs bare pygls"]["met"] is False
    assert v["no errors, no crash"]["met"] is False
    assert v["soak: memory growth"]["met"] is None


def test_a_short_soak_does_not_meet_the_soak_goal():
    soak = {"scenarios": {"soak": {"requests": 5_000, "elapsed_s": 60, "errors": 0}},
            "server": {"rss_growth_after_warmup_percent": 1.0}}
    assert by_goal(evaluate(report({}), soak))["soak: memory growth"]["met"] is False


def test_growth_after_warmup_starts_after_the_first_tenth():
    samples = [(float(t), 100.0 if t < 10 else 200.0 + t) for t in range(0, 101)]
    # the base is the sample at t=10 (210 MiB), the end is 300 MiB
    assert growth_after_warmup(samples) == round((300 - 210) / 210 * 100, 1)
    assert growth_after_warmup([(0.0, 1.0)]) is None


def run_with(summaries, crashed=False):
    run = ServerRun(ServerSpec("arbor-ls", ["x"]))
    run.summaries = summaries
    run.crashed = crashed
    return run


def test_thresholds_skip_the_saturating_scenario_and_count_errors():
    run = run_with({"single_file": summary(5, errors=1), "typing_throughput": summary(500)})
    result = check_thresholds(run, max_p95_ms=10, max_errors=0)
    assert result["violations"] == ["1 errors > 0"]
    assert check_thresholds(run, max_p95_ms=4, max_errors=None)["violations"] == ["single_file: p95 5 ms > 4 ms"]
    assert check_thresholds(run, None, None)["passed"]
    assert not check_thresholds(run_with({}, crashed=True), None, None)["passed"]


def test_compare_gives_ratios_per_scenario():
    arbor = run_with({"single_file": summary(6, mps=90)})
    bare = run_with({"single_file": summary(2, mps=100)})
    assert compare(arbor, bare) == {"single_file": {"p95_ratio": 3.0, "messages_per_s_ratio": 0.9}}
    assert compare(arbor, None) == {}
