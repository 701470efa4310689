"""The bounded protocol fuzz run that `make test` includes (about 20-40 s): hypothesis sessions of
document sync, completions, cancels, custom methods and malformed input against the real server
in-process (tests/fuzz/scenario.py says what is generated and which properties are checked).
`python -m tests.fuzz.run_fuzz --cases 100000` is the long run."""

from __future__ import annotations

import asyncio
import os

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.conftest import fuzz_settings
from tests.fuzz.scenario import FuzzRunner, Report, sessions

pytestmark = pytest.mark.fuzz
CI_SESSIONS = 400
BOUND_S = 5.0  # every request answered within this, pathological documents included


@pytest.fixture(scope="module")
def runner(fake_backend, tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz-ws")
    old_cache = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("fuzz-cache"))  # never the user's cache
    loop = asyncio.new_event_loop()
    runner = FuzzRunner(fuzz_settings(fake_backend.url), root.as_uri(), bound_s=BOUND_S)
    runner.loop = loop
    yield runner
    loop.run_until_complete(runner.aclose())
    loop.close()
    if old_cache is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old_cache
    assert not runner.closing_problems, runner.closing_problems


def _describe(report: Report) -> str:
    return (f"unanswered={report.unanswered} crashes={report.crashes[:5]} "
            f"divergences={report.divergences[:3]} died={report.died}")


@settings(max_examples=CI_SESSIONS, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(session=sessions)
def test_every_request_answered_documents_equal_and_no_crash(runner, session):
    encoding, ops = session
    report = runner.loop.run_until_complete(runner.session(encoding, ops))
    assert report.ok(), _describe(report)
    assert report.max_latency_s <= BOUND_S
