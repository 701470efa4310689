"""The neighbourhood's inverted vocabulary index (pruning.vocabulary_index) and the first stage of
`similar_windows` that reads it (pruning.code_windows.nearest_files): its scores are always those
of each related file's current entry."""

import heapq

from indexer.snapshot import IndexSnapshot
from pruning import code_windows
from pruning.code_windows import (cursor_query, file_score, nearest_files, neighbourhood_index, related_files,
                                  vocabulary_of)
from pruning.index_lookup import IndexLookup
from pruning.vocabulary_index import neighbourhood

FILES = {
    "app/main.py": "from lib.store import Store\n\ndef load(store, key):\n    value = store.get(key)\n    return value\n",
    "app/cache.py": "def get_cached(store, key):\n    return store.get(key) or None\n",
    "app/views.py": "def render(template, context):\n    return template.format(**context)\n",
    "app/deep/more.py": "def load_more(store, key, count):\n    return [store.get(key) for _ in range(count)]\n",
    "lib/store.py": "class Store:\n    def get(self, key):\n        return self.items[key]\n",
    "web/page.ts": "export function load(store: Store, key: string) { return store.get(key); }\n",
}


def _direct(lookup, query):
    """The first stage as it reads: every related file's vocabulary intersected with `query`."""
    scored = ((file_score(vocabulary_of(lookup, path), query), path) for path in related_files(lookup).paths)
    return [pair for pair in heapq.nlargest(code_windows.TOP_FILES, scored) if pair[0]]


def test_the_index_counts_what_each_files_vocabulary_shares_with_the_query(tmp_path, write_files):
    index = write_files(tmp_path, FILES)
    path = str(tmp_path / "app/main.py")
    lookup = IndexLookup(index.snapshot_for(path), path)
    hood = neighbourhood_index(lookup)
    query = frozenset({b"store", b"get", b"key", b"template", b"count", b"nowhere"})
    shared = hood.shared(query)
    for at, other in enumerate(hood.paths):
        assert shared.get(at, 0) == len(vocabulary_of(lookup, other) & query)
    assert nearest_files(lookup, query) == _direct(lookup, query)


def test_the_neighbourhood_is_the_directory_then_the_language_nearest_first(tmp_path, write_files):
    index = write_files(tmp_path, FILES)
    snapshot = index.snapshot_for(str(tmp_path / "app/main.py"))
    near = neighbourhood(snapshot, str(tmp_path / "app"), "python", 10, code_windows._family)
    names = [p[len(str(tmp_path)) + 1:] for p in near]
    assert names == ["app/cache.py", "app/main.py", "app/views.py", "app/deep/more.py", "lib/store.py"]
    assert neighbourhood(snapshot, str(tmp_path / "app"), "python", 2, code_windows._family) == tuple(near[:2])


def test_a_file_changed_since_it_was_indexed_is_scored_as_it_is_now(tmp_path, write_files):
    index = write_files(tmp_path, FILES)
    path, views = str(tmp_path / "app/main.py"), str(tmp_path / "app/views.py")
    before = neighbourhood_index(IndexLookup(index.snapshot_for(path), path))
    text = "def render(store, key, cursor):\n    return store.get(key).format(cursor)\n"
    index.did_open(views, text, "python")
    index.flush(views)
    lookup = IndexLookup(index.snapshot_for(path), path)
    assert neighbourhood_index(lookup) is before  # the same files: the index is kept
    query = cursor_query(FILES["app/main.py"].encode(), 30).words | {b"cursor"}
    assert views in [p for _, p in nearest_files(lookup, query)]
    assert nearest_files(lookup, query) == _direct(lookup, query)
    assert views in {before.paths[at] for at in before.stale(lookup.snapshot.entries)}


def test_an_imported_file_outside_the_neighbourhood_is_scored_too(tmp_path, write_files, monkeypatch):
    monkeypatch.setattr(code_windows, "MAX_FILES", 2)
    index = write_files(tmp_path, FILES)
    path, store = str(tmp_path / "app/main.py"), str(tmp_path / "lib/store.py")
    lookup = IndexLookup(index.snapshot_for(path), path)
    assert store not in neighbourhood_index(lookup).paths
    assert related_files(lookup).outside == (store,)
    query = frozenset({b"Store", b"items", b"self"})
    assert nearest_files(lookup, query) == _direct(lookup, query) != []
    assert store in [p for _, p in nearest_files(lookup, query)]


def test_a_file_coming_makes_a_new_index(tmp_path, write_files):
    index = write_files(tmp_path, FILES)
    path = str(tmp_path / "app/main.py")
    before = neighbourhood_index(IndexLookup(index.snapshot_for(path), path))
    added = tmp_path / "app/extra.py"
    added.write_text("def extra(store):\n    return store\n")
    index.scan([str(tmp_path)])
    after = neighbourhood_index(IndexLookup(index.snapshot_for(path), path))
    assert after is not before and str(added) in after.paths


def test_a_layout_value_is_kept_while_no_file_comes_or_goes():
    made = []
    snapshot = IndexSnapshot()
    assert snapshot.layout_value("kind", ("dir", "python"), lambda: made.append(1) or "value") == "value"
    assert snapshot.layout_value("kind", ("dir", "python"), lambda: made.append(2) or "other") == "value"
    assert made == [1]
