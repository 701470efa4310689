"""The server owns one CompletionCache per cache settings and feeds it the index's fingerprints."""

from inference.cache import CompletionCache
from lsp_server.server import ArborServer

from .helpers_cache import MODEL, TEMPLATE, render, request


class FakeIndex:
    """Test double for WorkspaceIndex.subscribe."""

    def __init__(self):
        self.callbacks = []

    def subscribe(self, callback):
        self.callbacks.append(callback)
        return lambda: None

    def change(self, path, fingerprint):
        for cb in self.callbacks:
            cb(path, fingerprint)


def test_server_builds_the_cache_from_settings_and_keeps_it_across_other_changes(tmp_path):
    ls = ArborServer()
    ls.workspace_root = "/ws"
    ls.apply_settings({"cache": {"diskDir": str(tmp_path / "c"), "memoryEntries": 10}})
    first = ls.cache
    assert isinstance(first, CompletionCache) and first.settings.memory_entries == 10
    ls.apply_settings({"cache": {"diskDir": str(tmp_path / "c"), "memoryEntries": 10}, "logLevel": "debug"})
    assert ls.cache is first
    ls.apply_settings({"cache": {"diskDir": str(tmp_path / "c"), "memoryEntries": 20}})
    assert ls.cache is not first and first.disk.status == "closed"
    ls.cache.close()


def test_index_fingerprint_changes_reach_the_cache_once_per_index(tmp_path):
    ls = ArborServer()
    ls.workspace_root = "/ws"
    ls.apply_settings({"cache": {"disk": False}})
    ls.index = FakeIndex()
    ls._follow_index()
    ls._follow_index()
    assert len(ls.index.callbacks) == 1
    r = request("x = ", path="a.py", deps=[("a.py", "self"), ("lib/b.py", "1")])
    ls.cache.store(r, render(r), MODEL, TEMPLATE, "1")
    ls.index.change("/ws/lib/b.py", "2")
    assert ls.cache.lookup(r, render(r), MODEL, TEMPLATE) is None
    assert ls.cache.stats()["invalidations"] == 1
