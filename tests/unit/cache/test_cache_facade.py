import json

from inference.cache import CacheSettings, CompletionCache

from .helpers_cache import MODEL, TEMPLATE, memory_cache, render, request

DEPS = [("/ws/b.py", "1")]


def test_disabled_cache_answers_nothing_and_stores_nothing(tmp_path):
    cache = CompletionCache(CacheSettings(enabled=False, disk_dir=str(tmp_path)))
    r = request("x = ")
    cache.store(r, render(r), MODEL, TEMPLATE, "1")
    assert cache.lookup(r, render(r), MODEL, TEMPLATE) is None
    assert cache.stats()["lookups"] == 0 and not list(tmp_path.iterdir())


def test_tiers_are_consulted_cheapest_first_and_promoted(tmp_path):
    settings = CacheSettings(disk_dir=str(tmp_path), typing=False)
    r = request("x = ", deps=DEPS)
    first = CompletionCache(settings)
    first.store(r, render(r), MODEL, TEMPLATE, "compute()")
    first.close()
    second = CompletionCache(settings)
    assert second.lookup(r, render(r), MODEL, TEMPLATE).tier == "disk"
    assert second.lookup(r, render(r), MODEL, TEMPLATE).tier == "exact"  # promoted
    other_model = second.lookup(r, render(r), "another-model", TEMPLATE)
    assert other_model is None
    second.close()


def test_typing_through_answers_before_the_exact_tier():
    cache = memory_cache()
    r = request("x = ", deps=DEPS)
    cache.store(r, render(r), MODEL, TEMPLATE, "compute(1)")
    cache.note_shown(r, "compute(1)")
    typed = request("x = comp", deps=DEPS)
    assert cache.lookup(typed, render(typed), MODEL, TEMPLATE).text == "ute(1)"
    assert cache.lookup(r, render(r), MODEL, TEMPLATE).tier == "typing"


def test_partial_stream_is_typed_through():
    cache = memory_cache()
    r = request("def f():\n", deps=DEPS)
    cache.note_partial(r, "    a = 1\n    b = 2\n    ret")
    typed = request("def f():\n    a = 1\n", deps=DEPS)
    assert cache.lookup(typed, render(typed), MODEL, TEMPLATE).text == "    b = 2"


def test_semantic_hit_uses_the_callers_verify():
    cache = memory_cache(typing=False)
    body = "def f():\n    a = 1\n    b = 2\n    "
    r = request(body, deps=DEPS, semantic_key="s1")
    cache.store(r, render(r), MODEL, TEMPLATE, "return 1")
    moved = request("import os\n\n" + body, deps=DEPS, semantic_key="s1")  # an edit further up
    seen = []
    hit = cache.lookup(moved, render(moved), MODEL, TEMPLATE, verify=lambda t: seen.append(t) or t.upper())
    assert hit.tier == "semantic" and hit.text == "RETURN 1" and seen == ["return 1"]


def test_invalidate_is_a_no_op_for_an_unchanged_fingerprint():
    cache = memory_cache()
    r = request("x = ", deps=DEPS)
    cache.store(r, render(r), MODEL, TEMPLATE, "1")
    assert cache.invalidate("/ws/b.py", "1") == 0
    assert cache.invalidate("/ws/b.py", "1") == 0
    assert cache.invalidate("/ws/b.py", "2") >= 1
    assert cache.stats()["invalidations"] == 2


def test_stats_are_json_and_name_every_enabled_tier(tmp_path):
    cache = CompletionCache(CacheSettings(disk_dir=str(tmp_path)))
    r = request("x = ", deps=DEPS, semantic_key="k")
    cache.lookup(r, render(r), MODEL, TEMPLATE)
    cache.store(r, render(r), MODEL, TEMPLATE, "1")
    cache.lookup(r, render(r), MODEL, TEMPLATE)
    stats = json.loads(json.dumps(cache.stats()))
    assert set(stats["tiers"]) == {"typing", "exact", "disk", "semantic"}
    assert stats["lookups"] == 2 and stats["hits"] == 1 and stats["misses"] == 1
    assert stats["hitLatencyMs"]["count"] == 1
    assert stats["bytes"]["memory"] > 0 and stats["bytes"]["disk"] > 0
    for tier in stats["tiers"].values():
        assert {"hits", "misses", "stores", "evictions"} <= set(tier)
    cache.close()


def test_empty_text_is_not_cached():
    cache = memory_cache()
    r = request("x = ")
    cache.store(r, render(r), MODEL, TEMPLATE, "")
    assert cache.lookup(r, render(r), MODEL, TEMPLATE) is None


def test_index_paths_and_pruning_paths_name_the_same_file():
    from inference.cache import CompletionCache

    cache = CompletionCache(CacheSettings(disk=False), workspace_root="/ws")
    r = request("x = ", path="a.py", deps=[("a.py", "self"), ("lib/b.py", "1")])
    cache.store(r, render(r), MODEL, TEMPLATE, "1")
    assert cache.invalidate("/ws/lib/b.py", "2") >= 1  # the index reports absolute paths
    assert cache.lookup(r, render(r), MODEL, TEMPLATE) is None
