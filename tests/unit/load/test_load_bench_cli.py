"""`arbor-ls bench` end to end: the CI smoke load test and the exit status on thresholds.

The smoke test fails on any error or crash, never on timings. Thresholds are exercised with test
doubles (a server whose completions fail, one that crashes) and with an impossible P95 bound.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.load.scenarios import SCENARIOS

ARBOR = [sys.executable, "-c", "import sys; from lsp_server.cli import main; sys.exit(main(sys.argv[1:]))"]
FAKES = Path(__file__).with_name("load_fake_servers.py")


def bench(*args: str, timeout: float = 170) -> tuple[int, dict | None, str]:
    done = subprocess.run([*ARBOR, "bench", *args], capture_output=True, text=True, timeout=timeout)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = None
    return done.returncode, report, done.stderr


def test_smoke_load_test_has_no_errors_and_no_crash(tmp_path):
    plot = tmp_path / "load.png"
    code, report, stderr = bench("--duration", "1", "--sweep-levels", "1,2", "--concurrency", "2",
                                 "--sweep-duration", "0.5", "--max-errors", "0", "--json", str(tmp_path / "r.json"),
                                 "--plot", str(plot))
    assert code == 0, stderr[-3000:]
    assert report == json.loads((tmp_path / "r.json").read_text())
    assert set(report["scenarios"]) == set(SCENARIOS)
    for name, summary in report["scenarios"].items():
        assert summary["errors"] == 0, (name, summary)
        assert summary["samples"] > 0, (name, summary)
        assert summary["p95_ms"] is not None and summary["messages_per_s"] > 0
    # the zero model's answers reach the editor (post-processing may drop a few, never all)
    assert sum(s["nonempty"] for s in report["scenarios"].values()) > 0
    assert not report["server"]["crashed"] and report["server"]["exit_code"] == 0
    assert report["baseline"]["server"]["exit_code"] == 0
    assert set(report["overhead_vs_baseline"]) == set(SCENARIOS)
    assert [row["concurrency"] for row in report["concurrency_sweep"]["levels"]] == [1, 2]
    assert report["thresholds"]["passed"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_impossible_p95_bound_fails_the_run():
    code, report, stderr = bench("--duration", "0.5", "--scenario", "single_file", "--no-sweep", "--no-baseline",
                                 "--max-p95-ms", "0.0001")
    assert code == 1
    assert report["thresholds"]["violations"] and "p95" in report["thresholds"]["violations"][0]
    assert "FAILED" in stderr


def test_failing_completions_exceed_max_errors():
    code, report, _ = bench("--duration", "0.5", "--scenario", "single_file", "--no-sweep", "--no-baseline",
                            "--max-errors", "0", "--server-command", f"{sys.executable} {FAKES} error")
    assert code == 1
    assert report["scenarios"]["single_file"]["errors"] > 0
    assert report["thresholds"]["violations"] == [f"{report['thresholds']['errors']} errors > 0"]


def test_a_crashing_server_fails_the_run_even_without_thresholds():
    code, report, _ = bench("--duration", "1", "--scenario", "single_file", "--no-sweep", "--no-baseline",
                            "--server-command", f"{sys.executable} {FAKES} crash")
    assert code == 1
    assert report["server"]["crashed"]
    assert "the server crashed or exited early" in report["thresholds"]["violations"]


@pytest.mark.parametrize("args", [["--duration", "0"], ["--sweep-levels", "a,b"], ["--max-errors", "-1"]])
def test_bad_arguments_exit_2_with_one_line(args):
    code, _, stderr = bench(*args, "--no-baseline", "--no-sweep", timeout=60)
    assert code == 2
    assert stderr.strip().count("\n") == 0 and "error" in stderr
