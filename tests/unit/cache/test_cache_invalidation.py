"""The issue's acceptance scenario, for every tier.

File A's completion had B's definition of `rate` in its context. After a change to that definition
(B's fingerprint changes) no tier may serve it; after a comment-only change in B (the fingerprint,
which ignores comments, stays) every tier still does.
"""

import pytest

from inference.cache import CacheSettings, CompletionCache

from .fake_redis import FakeRedis
from .helpers_cache import MODEL, TEMPLATE, render, request

A, B = "/ws/a.py", "/ws/b.py"
FP_B, FP_B_CHANGED = "b-v1", "b-v2"
PREFIX = 'from b import rate\n\ndef total(xs):\n    """The sum of the rates of xs."""\n    xs = list(xs)\n    '
COMPLETION = "return sum(rate(x) for x in xs)"


def a_request(fp_b: str, *, snippet: str = "def rate(x): ...", prefix: str = PREFIX, a_fp: str = "a-1"):
    # the semantic key stands in for pruning's: it folds B's fingerprint, never its comments
    return request(prefix, "\n", path="a.py", deps=[(A, a_fp), (B, fp_b)], snippets=[("b.py", snippet)],
                   semantic_key=f"scope:total|line:|{fp_b}")


def make(tmp_path, tier: str, redis: FakeRedis, *, writer: bool) -> CompletionCache:
    settings = CacheSettings(typing=tier == "typing", disk=tier == "disk", disk_dir=str(tmp_path / "disk"),
                             semantic=tier in ("semantic", "shared"),
                             redis_url="redis://fake" if tier == "shared" else "")
    return CompletionCache(settings, shared_client_factory=lambda url, timeout: redis)


def probe_request(tier: str, fp_b: str, *, comment: str = "") -> object:
    """A request that, for `tier`, can only be answered by that tier."""
    if tier == "typing":
        return a_request(fp_b, prefix=PREFIX + "return su", a_fp="a-2")
    if tier == "semantic":
        # an import added further up in A, blank lines, and a snippet that now shows a comment: a new
        # prompt, the same local context
        return a_request(fp_b, prefix="import os\n\n" + PREFIX.replace("\n\n", "\n\n\n"),
                         snippet=f"def rate(x): ...  {comment}", a_fp="a-3")
    return a_request(fp_b)


def lookup(cache: CompletionCache, req):
    return cache.lookup(req, render(req), MODEL, TEMPLATE)


@pytest.fixture(params=["typing", "exact", "disk", "semantic", "shared"])
def setup(request, tmp_path):
    tier = request.param
    redis = FakeRedis()
    writer = make(tmp_path, tier, redis, writer=True)
    original = a_request(FP_B)
    writer.store(original, render(original), MODEL, TEMPLATE, COMPLETION)
    writer.note_shown(original, COMPLETION)
    if tier in ("disk", "shared"):  # a fresh process: only the persistent/shared tier remembers
        writer.close()
        reader = make(tmp_path, tier, redis, writer=False)
    else:
        reader = writer
    yield tier, reader
    reader.close()


def test_served_from_the_tier_before_any_change(setup):
    tier, cache = setup
    hit = lookup(cache, probe_request(tier, FP_B, comment="# doubles"))
    assert hit is not None and hit.tier == tier
    assert COMPLETION.endswith(hit.text)


def test_comment_only_change_in_b_is_still_served(setup):
    tier, cache = setup
    assert cache.invalidate(B, FP_B) == 0  # the index may report the unchanged fingerprint
    hit = lookup(cache, probe_request(tier, FP_B, comment="# now documented differently"))
    assert hit is not None and hit.tier == tier


def test_definition_change_in_b_is_served_by_no_tier(setup):
    tier, cache = setup
    cache.invalidate(B, FP_B_CHANGED)
    # a request built after the change: new fingerprint (and, here, even the same snippet text)
    assert lookup(cache, probe_request(tier, FP_B_CHANGED)) is None
    assert lookup(cache, a_request(FP_B_CHANGED)) is None
    # a request still built from the old index state is not served either
    assert lookup(cache, probe_request(tier, FP_B)) is None
    stats = cache.stats()
    if tier != "shared":
        assert stats["tiers"][tier]["evictions"]["invalidated"] >= 1
    assert stats["outdatedRequests"] == 1


def test_entries_made_from_an_outdated_request_are_not_stored(tmp_path):
    cache = make(tmp_path, "exact", FakeRedis(), writer=True)
    cache.invalidate(B, FP_B_CHANGED)
    late = a_request(FP_B)  # its backend call started before B changed
    cache.store(late, render(late), MODEL, TEMPLATE, COMPLETION)
    assert cache.stats()["tiers"]["exact"]["stores"] == 0
    cache.close()
