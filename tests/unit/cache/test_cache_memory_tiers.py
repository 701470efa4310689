from inference.cache.exact import ExactTier
from inference.cache.recheck import recheck_against_suffix
from inference.cache.semantic import SemanticTier, absolute_form, cursor_indent, relative_form
from inference.cache.stats import TierStats
from inference.cache.tagged_lru import TaggedLRU


def test_lru_evicts_least_recently_used_and_tracks_bytes_and_tags():
    lru = TaggedLRU(2, TierStats())
    lru.put("a", "é", (("b.py", "1"),))
    lru.put("b", "xy", (("b.py", "1"), ("c.py", "1")))
    assert lru.bytes == 4
    lru.get("a")  # a is now the most recently used
    lru.put("c", "z", ())
    assert list(lru.entries) == ["a", "c"]
    assert lru.stats.capacity == 1
    assert lru.by_path == {"b.py": {"a": "1"}}  # b's tags left with it
    assert lru.bytes == 3


def test_lru_invalidation_drops_only_other_versions():
    lru = TaggedLRU(10, TierStats())
    lru.put("old", "1", (("b.py", "1"),))
    lru.put("new", "2", (("b.py", "2"),))
    lru.put("free", "3", ())
    assert lru.invalidate("b.py", "2") == 1
    assert set(lru.entries) == {"new", "free"}
    assert lru.invalidate("c.py", "5") == 0


def test_exact_tier_counts_hits_and_misses():
    tier = ExactTier(4)
    assert tier.get("k") is None
    tier.put("k", "text", ())
    assert tier.get("k") == "text"
    snap = tier.snapshot()
    assert (snap["hits"], snap["misses"], snap["stores"], snap["entries"], snap["bytes"]) == (1, 1, 1, 1, 4)


def test_relative_form_round_trips_to_a_new_indentation():
    text = "for item in items:\n        total += item\n\n    return total"
    rel = relative_form(text, "    ")
    assert rel == "for item in items:\n    total += item\n\nreturn total"
    assert absolute_form(rel, "\t") == "for item in items:\n\t    total += item\n\n\treturn total"
    assert relative_form("x\nfoo()", "    ") is None  # dedents below the cursor line
    assert cursor_indent("def f():\n    x = ") == "    "


def test_semantic_hit_is_reindented_and_rechecked():
    tier = SemanticTier(8)
    tier.put("k", "total = 0\n    for x in xs:\n        total += x", "def s(xs):\n    ", ())
    # the same local context after reformatting with 2-space indentation
    got = tier.get("k", "def s(xs):\n  ", "\n", None)
    assert got == "total = 0\n  for x in xs:\n      total += x"
    # the code after the cursor now starts with the loop: the completion must stop before it
    got = tier.get("k", "def s(xs):\n    ", "\n    for x in xs:\n        pass\n", None)
    assert got == "total = 0"
    assert tier.get("k", "def s(xs):\n    ", "", lambda text: None) is None
    assert tier.stats.rejected == 1 and tier.stats.hits == 2


def test_recheck_against_suffix():
    assert recheck_against_suffix("foo(a, b)", ")") == "foo(a, b"
    assert recheck_against_suffix("foo(a)\nbar()", ")") == "foo(a"
    assert recheck_against_suffix("x = 1\ny = 2\nz = 3", "\ny = 2\n") == "x = 1"
    assert recheck_against_suffix(")", ")") is None
    assert recheck_against_suffix("", "") is None
