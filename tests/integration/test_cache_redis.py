"""The shared cache tier against a real Redis server (Debian's `redis-server`; .ci/run installs it).

The server is started by these tests on a free loopback port in a temporary directory and stopped
after them; one test stops it mid-run and starts it again on the same port.
"""

from __future__ import annotations

import logging
import time

import pytest

from inference.api import CompletionRequest, ContextSnippet
from inference.cache import CacheSettings, CompletionCache

from .redis_server import REDIS_BINARY, RedisServer

pytest.importorskip("redis", reason="the redis extra is not installed (pip install 'arbor-ls[redis]')")
pytestmark = pytest.mark.skipif(REDIS_BINARY is None,
                                reason="redis-server binary not found (apt-get install redis-server)")

SECRET_PATH = "/home/dev/secret-project/billing.py"
PREFIX = 'def invoice_total(lines):\n    """Sum of the line amounts."""\n    lines = list(lines)\n    '
COMPLETION = "return sum(line.amount for line in lines)"


@pytest.fixture
def server(tmp_path):
    srv = RedisServer(tmp_path)
    srv.start()
    yield srv
    srv.stop()


def make_cache(url: str, *, namespace: str = "arbor", retry_s: float = 30.0, **kw) -> CompletionCache:
    # no typing/disk tiers: a second instance stands for a teammate's server with empty local tiers
    settings = CacheSettings(typing=False, disk=False, redis_url=url, redis_ttl_s=120,
                             redis_timeout_ms=200, redis_retry_s=retry_s, redis_namespace=namespace, **kw)
    return CompletionCache(settings)


def req(fp: str = "v1", prefix: str = PREFIX) -> CompletionRequest:
    return CompletionRequest(prefix=prefix, suffix="\n", path=SECRET_PATH, language="python",
                             snippets=(ContextSnippet("models.py", "class Line: amount: int"),),
                             depends_on=((SECRET_PATH, "self"), ("/home/dev/secret-project/models.py", fp)),
                             semantic_key=f"scope-fp|line|{fp}")


def prompt(r: CompletionRequest) -> str:
    return "".join(s.text for s in r.snippets) + "<PRE>" + r.prefix + "<SUF>" + r.suffix + "<MID>"


def test_a_teammate_is_served_from_the_shared_tier(server):
    alice, bob = make_cache(server.url), make_cache(server.url)
    r = req()
    alice.store(r, prompt(r), "m", "t", COMPLETION)
    hit = bob.lookup(r, prompt(r), "m", "t")
    assert hit is not None and (hit.tier, hit.text) == ("shared", COMPLETION)
    assert bob.lookup(r, prompt(r), "m", "t").tier == "exact"  # copied into the local tier
    # semantic key through Redis: an edit elsewhere in the file, same local context
    carol = make_cache(server.url)
    moved = req(prefix="import decimal\n\n" + PREFIX)
    hit = carol.lookup(moved, prompt(moved), "m", "t")
    assert hit is not None and (hit.tier, hit.text) == ("shared", COMPLETION)
    for c in (alice, bob, carol):
        c.close()


def test_only_hashed_keys_and_completion_text_are_stored_with_a_ttl(server):
    import redis

    cache = make_cache(server.url)
    r = req()
    cache.store(r, prompt(r), "m", "t", COMPLETION)
    client = redis.Redis.from_url(server.url)
    keys = sorted(k.decode() for k in client.keys("*"))
    assert len(keys) == 2
    for key in keys:
        namespace, kind, digest = key.split(":")
        assert namespace == "arbor" and kind in ("x", "s") and len(digest) == 32
        int(digest, 16)
        assert client.get(key).decode() == COMPLETION
        assert 0 < client.ttl(key) <= 120
    dump = " ".join(keys)
    assert "secret" not in dump and "invoice" not in dump
    client.close()
    cache.close()


def test_a_changed_dependency_versions_the_key_so_old_entries_are_ignored(server):
    alice = make_cache(server.url)
    alice.store(req("v1"), prompt(req("v1")), "m", "t", COMPLETION)
    bob = make_cache(server.url)
    bob.invalidate("/home/dev/secret-project/models.py", "v2")
    assert bob.lookup(req("v2"), prompt(req("v2")), "m", "t") is None
    assert bob.lookup(req("v1"), prompt(req("v1")), "m", "t") is None  # outdated request
    alice.close()
    bob.close()


def test_redis_stopped_mid_run_degrades_to_local_tiers_with_one_log_line(server, caplog):
    cache = make_cache(server.url, retry_s=0.5)
    r = req()
    cache.store(r, prompt(r), "m", "t", COMPLETION)
    assert cache.lookup(r, prompt(r), "m", "t").tier == "exact"
    server.stop()
    others = [req(prefix=f"x{i} = 0\n" + PREFIX) for i in range(30)]
    with caplog.at_level(logging.INFO, logger="inference.cache.shared"):
        for o in others:
            miss = cache.lookup(o, prompt(o), "m", "t")
            assert miss is None or miss.tier == "semantic"
            cache.store(o, prompt(o), "m", "t", COMPLETION)
        assert cache.lookup(r, prompt(r), "m", "t").tier == "exact"  # local tiers keep serving
        shared = cache.stats()["tiers"]["shared"]
        assert shared["status"] == "down" and shared["outages"] == 1
        assert shared["errors"] == 1, "only the first request after the outage may touch the network"
        # back on the same port: after the retry interval the tier recovers by itself
        server.start()
        time.sleep(0.6)
        fresh = req(prefix="y = 1\n" + PREFIX, fp="v9")
        cache.store(fresh, prompt(fresh), "m", "t", COMPLETION)
        assert cache.stats()["tiers"]["shared"]["status"] == "ok"
    messages = [rec.getMessage() for rec in caplog.records]
    assert sum("unreachable" in m for m in messages) == 1, messages
    assert sum("reachable again" in m for m in messages) == 1, messages
    teammate = make_cache(server.url)
    assert teammate.lookup(fresh, prompt(fresh), "m", "t").tier == "shared"
    cache.close()
    teammate.close()


def test_redis_absent_at_start_costs_one_attempt(caplog, tmp_path):
    from .redis_server import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with caplog.at_level(logging.WARNING, logger="inference.cache.shared"):
        cache = make_cache(url)
        for i in range(20):
            r = req(prefix=f"z{i}\n" + PREFIX)
            hit = cache.lookup(r, prompt(r), "m", "t")
            assert hit is None or hit.tier == "semantic"  # local tiers still answer
            cache.store(r, prompt(r), "m", "t", COMPLETION)
    assert len(caplog.records) == 1
    assert cache.stats()["tiers"]["shared"]["errors"] == 1
    cache.close()


def test_a_hung_redis_costs_one_request_timeout_then_local_tiers_answer(server, caplog):
    import signal

    cache = make_cache(server.url, retry_s=60)
    r = req()
    cache.store(r, prompt(r), "m", "t", COMPLETION)
    server.process.send_signal(signal.SIGSTOP)  # accepts connections, never answers
    try:
        with caplog.at_level(logging.WARNING, logger="inference.cache.shared"):
            first = req(prefix="a = 1\n" + PREFIX, fp="v5")
            started = time.perf_counter()
            assert cache.lookup(first, prompt(first), "m", "t") is None
            first_ms = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            for i in range(20):
                o = req(prefix=f"b{i} = 1\n" + PREFIX, fp="v5")
                cache.lookup(o, prompt(o), "m", "t")
                cache.store(o, prompt(o), "m", "t", COMPLETION)
            rest_ms = (time.perf_counter() - started) * 1000
        shared = cache.stats()["tiers"]["shared"]
        assert shared["status"] == "down" and shared["errors"] == 1 and shared["skipped"] >= 20
        assert len(caplog.records) == 1
        print(f"hung redis: first request {first_ms:.0f} ms (timeout 200 ms), next 20 requests {rest_ms:.1f} ms")
    finally:
        server.process.send_signal(signal.SIGCONT)
    cache.close()
