from inference.cache.keys import (conflicts, dependency_group, exact_key, foreign_dependencies, is_same_file,
                                  local_tail, semantic_cache_key)

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


LOCAL = "a = 1\nb = 2\n\n# note\nc = 3\nd = "


def test_local_tail_ignores_whitespace_and_blank_lines_but_not_comments():
    assert local_tail(LOCAL) == "b = 2\n# note\nc = 3\nd ="
    assert local_tail("import os\n" + LOCAL.replace("b = 2", "b  =   2")) == "b = 2\n# note\nc = 3\nd ="
    assert local_tail(LOCAL.replace("# note", "# other")) != local_tail(LOCAL)
    assert local_tail("x") == "x" and local_tail("") == ""


def test_semantic_key_absent_without_pruning_key_or_code_and_versioned_by_dependencies():
    assert semantic_cache_key(request(LOCAL), "m", "t") is None
    assert semantic_cache_key(request("# only a comment\n", semantic_key="s"), "m", "t") is None
    a = semantic_cache_key(request(LOCAL, semantic_key="s", deps=[("/ws/b.py", "1")]), "m", "t")
    b = semantic_cache_key(request("import os\n" + LOCAL, semantic_key="s", deps=[("/ws/b.py", "1")]), "m", "t")
    c = semantic_cache_key(request(LOCAL, semantic_key="s", deps=[("/ws/b.py", "2")]), "m", "t")
    d = semantic_cache_key(request(LOCAL.replace("c = 3", "c = 4"), semantic_key="s", deps=[("/ws/b.py", "1")]),
                           "m", "t")
    e = semantic_cache_key(request(LOCAL, semantic_key="s", deps=[("/ws/b.py", "1")], path="/ws/other.py"),
                           "m", "t")
    assert a == b  # an edit five lines up is not local
    assert len({a, c, d, e}) == 4  # dependency version, local code, file


def test_dependency_group_and_conflicts():
    assert dependency_group(()) is None
    g1 = dependency_group((("b", "1"), ("c", "1")))
    assert g1 == dependency_group((("b", "1"), ("c", "1"))) != dependency_group((("b", "2"), ("c", "1")))
    assert conflicts((("b", "1"),), {"b": "2"})
    assert not conflicts((("b", "1"),), {"b": "1", "c": "7"})
    assert not conflicts((("b", "1"),), {})
