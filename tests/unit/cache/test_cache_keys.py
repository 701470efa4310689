from inference.cache.keys import (conflicts, dependency_group, exact_key, foreign_dependencies, is_same_file,
                                  semantic_cache_key)

from .helpers_cache import request


def test_exact_key_is_deterministic_and_covers_every_input():
    r = request("x = ", deps=[("/ws/b.py", "1")])
    base = exact_key(r, "P", "m", "t")
    assert base == exact_key(r, "P", "m", "t")
    assert len(base) == 32
    assert len({base, exact_key(r, "P2", "m", "t"), exact_key(r, "P", "m2", "t"), exact_key(r, "P", "m", "t2"),
                exact_key(request("x = ", deps=[("/ws/b.py", "1")], multiline=False), "P", "m", "t"),
                exact_key(request("x = ", deps=[("/ws/b.py", "2")]), "P", "m", "t")}) == 6


def test_length_prefixing_keeps_field_boundaries_apart():
    r = request("x")
    assert exact_key(r, "ab", "c", "t") != exact_key(r, "a", "bc", "t")


def test_edited_file_is_not_a_foreign_dependency_in_any_path_form():
    r = request("x", path="pkg/a.py", deps=[("/ws/pkg/a.py", "9"), ("/ws/pkg/b.py", "1"), ("/ws/pkg/b.py", "1")])
    assert foreign_dependencies(r) == (("/ws/pkg/b.py", "1"),)
    # the edited file's own fingerprint changes on every keystroke: keys must not move with it
    r2 = request("x", path="pkg/a.py", deps=[("/ws/pkg/a.py", "10"), ("/ws/pkg/b.py", "1")])
    assert exact_key(r, "P", "m", "t") == exact_key(r2, "P", "m", "t")
    assert is_same_file("a.py", "/ws/a.py") and not is_same_file("/ws/xa.py", "a.py")


def test_semantic_key_absent_without_pruning_key_and_versioned_by_dependencies():
    assert semantic_cache_key(request("x"), "m", "t") is None
    a = semantic_cache_key(request("x", semantic_key="s", deps=[("/ws/b.py", "1")]), "m", "t")
    b = semantic_cache_key(request("y", semantic_key="s", deps=[("/ws/b.py", "1")]), "m", "t")
    c = semantic_cache_key(request("x", semantic_key="s", deps=[("/ws/b.py", "2")]), "m", "t")
    assert a == b != c


def test_dependency_group_and_conflicts():
    assert dependency_group(()) is None
    g1 = dependency_group((("b", "1"), ("c", "1")))
    assert g1 == dependency_group((("b", "1"), ("c", "1"))) != dependency_group((("b", "2"), ("c", "1")))
    assert conflicts((("b", "1"),), {"b": "2"})
    assert not conflicts((("b", "1"),), {"b": "1", "c": "7"})
    assert not conflicts((("b", "1"),), {})
