"""Transparency: whatever a long-lived index has kept (snapshots, entries' derived values, a
content memo, prepared lookups, incremental trees), a context equals the context built from a
fresh index of the same texts and the same regions edited last (the one thing a context reads
of the edit history). Random edit sequences over several open buffers (hypothesis)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from indexer import WorkspaceIndex, documents
from indexer.region_ring import RegionRing
from pruning.content_memo import ContentMemo
from pruning.context import build_context, prepare


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


FILES = {
    "models.py": "class Shape:\n    def area(self):\n        return 0\n\n\nclass Circle(Shape):\n"
                 "    def __init__(self, r: float):\n        self.r = r\n\n    def area(self):\n"
                 "        return 3.14 * self.r * self.r\n\n\nclass Repo:\n    def save(self, item):\n        pass\n\n"
                 "    def load(self, key):\n        pass\n\n    def find(self, query):\n        pass\n\n"
                 "    def count(self):\n        return 0\n",
    "utils.py": "from models import Circle, Repo, Shape\n\n\ndef total(shapes: list[Shape]) -> float:\n"
                "    return sum(s.area() for s in shapes)\n\n\ndef unit() -> Circle:\n    return Circle(1.0)\n",
    "main.py": "from models import Circle, Repo\nfrom utils import total, unit\n\n\ndef run():\n"
               "    c = Circle(2.0)\n    print(total([c, unit()]))\n    return c.area()\n",
}
LINES = [  # what an edit inserts: new definitions, new uses, renames, broken code mid-typing
    "def scale(shape: Shape, k: float) -> Shape:\n    return shape\n",
    "class Square(Shape):\n    def area(self):\n        return 4\n",
    "    x = total([unit()])\n", "    c.area(\n", "from utils import scale\n", "total(\n",
    "import models\n", "    return models.Circle(3.0).area()\n", "\n", "def total(values):\n    return 0\n",
    "    c.r\n", "    Circle(1.0).__init__(2.0)\n", "    repo: Repo = Repo()\n    repo.find(1)\n",
    "    Repo().count()\n", "    r: Repo = make()\n    r.load(\n",
]
BUDGET = 1024

edits = st.lists(st.tuples(st.sampled_from(sorted(FILES)), st.integers(0, 40), st.integers(0, 3),
                           st.sampled_from(LINES), st.sampled_from(sorted(FILES)), st.floats(0, 1),
                           st.sampled_from(["none", "flush", "settle", "prepare"])),
                 min_size=1, max_size=6)


@pytest.fixture(autouse=True)
def no_work_runs_out(monkeypatch):
    """The buffers' parse and tags budgets are wall-clock: on a starved CPU (a loaded CI machine)
    a long-lived index may cut an update short where a fresh one does not, a different answer by
    design. The property is about what the index keeps, so no budget runs out here."""
    monkeypatch.setattr(documents, "PARSE_BUDGET_MS", 60_000.0)
    monkeypatch.setattr(documents, "TAG_BUDGET_MS", 60_000.0)


def line_offset(text: str, line: int) -> int:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    return starts[min(line, len(starts) - 1)]


def new_index(root: str, texts: dict[str, str], edited=()) -> WorkspaceIndex:
    index = WorkspaceIndex(snapshot=False, recent_edits=RegionRing(regions=edited))
    index.scan([root])
    for name, text in texts.items():
        index.did_open(os.path.join(root, name), text, "python")
    return index


def context(index, root: str, name: str, text: str, cursor: float, memo=None):
    offset = line_offset(text, int(cursor * text.count("\n")))
    return build_context(os.path.join(root, name), text, offset, budget_tokens=BUDGET, index=index,
                         workspace_root=root, memo=memo)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits)
@example([("main.py", 6, 0, "    repo: Repo = Repo()\n    repo.find(1)\n", "main.py", 0.8, "none"),
          ("utils.py", 4, 0, "    r: Repo = make()\n    r.count(\n", "utils.py", 0.5, "none"),
          ("main.py", 7, 0, "    repo.load(\n", "main.py", 0.9, "flush")])
def test_every_context_equals_the_one_a_fresh_index_gives(tmp_path_factory, steps):
    root = str(tmp_path_factory.mktemp("ws"))
    for name, text in FILES.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
    texts = dict(FILES)
    index = new_index(root, texts)
    memo = ContentMemo(size=64)  # small: evictions happen too
    lookups: dict[str, tuple] = {}
    for name, line, drop, inserted, at, cursor, between in steps:
        old = texts[name]
        start = line_offset(old, line)
        end = line_offset(old, line + drop) if drop else start
        new = old[:start] + inserted + old[end:]
        index.did_change(os.path.join(root, name), [Edit(start, end, inserted)], new)
        texts[name] = new
        if between == "flush":
            index.flush()
        elif between == "settle":
            index.settle()
        elif between == "prepare" and at in lookups:
            prepare(index, os.path.join(root, at), lookups[at])
        for name_at, where in ((at, cursor), *((other, 1 - cursor) for other in sorted(texts) if other != at)):
            kept = context(index, root, name_at, texts[name_at], where, memo)
            fresh_index = new_index(root, texts, index.published.recent_edits)
            lookups[name_at] = kept.lookups
            assert kept == context(fresh_index, root, name_at, texts[name_at], where)
