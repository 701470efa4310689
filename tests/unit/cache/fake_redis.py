"""A dict-backed stand-in for redis.Redis (test double): get, mget, pipelined set with EX, close."""

from __future__ import annotations


class FakeRedisDown(ConnectionError):
    pass


class FakeRedis:
    def __init__(self):
        self.data: dict[str, bytes] = {}
        self.ttl: dict[str, int] = {}
        self.down = False
        self.calls = 0

    def _check(self):
        self.calls += 1
        if self.down:
            raise FakeRedisDown("connection refused")

    def get(self, key):
        self._check()
        return self.data.get(key)

    def mget(self, keys):
        self._check()
        return [self.data.get(k) for k in keys]

    def pipeline(self, transaction=False):
        return _Pipeline(self)

    def close(self):
        pass


class _Pipeline:
    def __init__(self, server: FakeRedis):
        self.server = server
        self.ops: list[tuple[str, bytes, int]] = []

    def set(self, key, value, ex=None):
        self.ops.append((key, value, ex))

    def execute(self):
        self.server._check()
        for key, value, ex in self.ops:
            self.server.data[key] = value
            self.server.ttl[key] = ex
