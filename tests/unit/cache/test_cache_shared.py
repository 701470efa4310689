import logging

from inference.cache.shared import KIND_EXACT, KIND_SEMANTIC, SharedTier, _redact

from .fake_redis import FakeRedis


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def tier(server: FakeRedis, clock: Clock) -> SharedTier:
    return SharedTier("redis://:secret@cachehost:6379/0", ttl_s=60, timeout_ms=50, retry_s=30,
                      namespace="arbor", client_factory=lambda url, timeout: server, clock=clock)


def test_round_trip_with_namespaced_keys_and_ttl():
    server, clock = FakeRedis(), Clock()
    t = tier(server, clock)
    t.put([(KIND_EXACT, "ab" * 16, "return 1"), (KIND_SEMANTIC, "cd" * 16, "x")])
    assert server.data == {f"arbor:x:{'ab' * 16}": b"return 1", f"arbor:s:{'cd' * 16}": b"x"}
    assert set(server.ttl.values()) == {60}
    assert t.get(KIND_EXACT, "ab" * 16) == "return 1"
    assert t.get(KIND_EXACT, "ef" * 16) is None
    assert (t.stats.hits, t.stats.misses, t.stats.stores) == (1, 1, 2)


def test_an_outage_is_logged_once_and_skipped_until_the_retry_time(caplog):
    server, clock = FakeRedis(), Clock()
    t = tier(server, clock)
    server.down = True
    with caplog.at_level(logging.INFO):
        for _ in range(50):
            assert t.get(KIND_EXACT, "k") is None
            t.put([(KIND_EXACT, "k", "v")])
        assert server.calls == 1  # one request paid for finding out; the rest never touched the network
        assert t.status == "down" and t.skipped == 99
        clock.now += 31
        assert t.get(KIND_EXACT, "k") is None  # one probe, still down: no new log line
        assert server.calls == 2
        server.down = False
        clock.now += 31
        t.put([(KIND_EXACT, "k", "v")])
        assert t.get(KIND_EXACT, "k") == "v"
    messages = [r.getMessage() for r in caplog.records]
    assert sum("unreachable" in m for m in messages) == 1
    assert sum("reachable again" in m for m in messages) == 1
    assert all("secret" not in m for m in messages)
    assert t.status == "ok" and t.outages == 1


def test_missing_client_library_disables_the_tier(caplog):
    def no_redis(url, timeout):
        raise ImportError("No module named 'redis'")

    with caplog.at_level(logging.WARNING):
        t = SharedTier("redis://h", ttl_s=1, timeout_ms=1, retry_s=1, namespace="n", client_factory=no_redis)
    assert t.status == "disabled" and t.get(KIND_EXACT, "k") is None
    assert len(caplog.records) == 1


def test_redact_hides_credentials():
    assert _redact("redis://user:pw@h:1/0") == "redis://***@h:1/0"
    assert _redact("redis://h:1") == "redis://h:1"


def test_get_first_answers_in_item_order_with_one_round_trip():
    server, clock = FakeRedis(), Clock()
    t = tier(server, clock)
    t.put([(KIND_EXACT, "e1", "exact text"), (KIND_SEMANTIC, "s1", "semantic text")])
    calls = server.calls
    assert t.get_first([(KIND_EXACT, "e1"), (KIND_SEMANTIC, "s1")]) == (KIND_EXACT, "exact text")
    assert t.get_first([(KIND_EXACT, "nope"), (KIND_SEMANTIC, "s1")]) == (KIND_SEMANTIC, "semantic text")
    assert t.get_first([(KIND_EXACT, "nope")]) is None
    assert server.calls == calls + 3
    assert (t.stats.hits, t.stats.misses) == (2, 1)
