"""`definitions_of` and `imports_of` answers carried from one snapshot to the next (indexer/snapshot.py).

Every answer a snapshot gives equals the graph's own answer at that version; an answer is asked
of the graph again only when something it read changed."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from indexer import WorkspaceIndex


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


SHAPES = "class Circle:\n    def area(self):\n        return 1\n\n\ndef radius():\n    return 2\n"
DRAW = "from shapes import Circle, radius\n\n\ndef draw():\n    return Circle()\n\n\ndef helper():\n    return 3\n"
NAMES = ("Circle", "radius", "helper", "draw", "area", "Round")


@pytest.fixture
def workspace(tmp_path):
    files = {"shapes.py": SHAPES, "draw.py": DRAW}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    root = str(tmp_path).replace("\\", "/")
    paths = {name: f"{root}/{name}" for name in files}
    texts = dict(files)
    for name, text in files.items():
        index.did_open(paths[name], text, "python")
    index.flush()
    yield index, paths, texts
    index.close()


class Asks:
    """Counts the questions that reach the graph."""

    def __init__(self, graph) -> None:
        self.count = 0
        self._ask = graph.definitions_of

        def counted(*args, **kwargs):
            self.count += 1
            return self._ask(*args, **kwargs)

        graph.definitions_of = counted


def edit(index, path, texts, name, at, removed, inserted):
    text = texts[name]
    texts[name] = text[:at] + inserted + text[at + removed:]
    index.did_change(path, [Edit(at, at + removed, inserted)], texts[name])
    index.flush()


def answers(snapshot, path):
    return {name: [(p, d.name, d.start_byte) for p, d in snapshot.definitions_of(name, path)] for name in NAMES}


def fresh(index, path):
    return {name: [(p, d.name, d.start_byte) for p, d in index.graph.definitions_of(name, path)] for name in NAMES}


def test_typing_in_a_body_keeps_the_cross_file_answers_and_rereads_the_buffers_own(workspace):
    index, paths, texts = workspace
    draw = paths["draw.py"]
    answers(index.snapshot_for(draw), draw)
    asks = Asks(index.graph)
    at = texts["draw.py"].index("return Circle()")
    edit(index, draw, texts, "draw.py", at, 0, "x = 1\n    ")  # moves `helper` below the edit
    snapshot = index.snapshot_for(draw)
    assert answers(snapshot, draw) == fresh(index, draw)
    assert asks.count == len(NAMES)  # only the fresh answers above asked the graph
    helper = snapshot.definitions_of("helper", draw)
    assert helper[0][1].start_byte == texts["draw.py"].index("def helper")  # read from the new entry


def test_an_edit_of_the_defining_file_asks_again(workspace):
    index, paths, texts = workspace
    draw, shapes = paths["draw.py"], paths["shapes.py"]
    answers(index.snapshot_for(draw), draw)
    edit(index, shapes, texts, "shapes.py", 0, 0, "\n\n")  # Circle and radius move
    assert answers(index.snapshot_for(draw), draw) == fresh(index, draw)


def test_a_file_that_starts_defining_a_name_joins_its_answer(workspace):
    index, paths, texts = workspace
    draw, shapes = paths["draw.py"], paths["shapes.py"]
    before = answers(index.snapshot_for(draw), draw)
    assert all(p != shapes for p, _, _ in before["helper"])
    edit(index, shapes, texts, "shapes.py", len(texts["shapes.py"]), 0, "\n\ndef helper():\n    return 4\n")
    after = answers(index.snapshot_for(draw), draw)
    assert after == fresh(index, draw) and any(p == shapes for p, _, _ in after["helper"])


def test_an_edit_of_the_imports_asks_again(workspace):
    index, paths, texts = workspace
    draw = paths["draw.py"]
    assert answers(index.snapshot_for(draw), draw)["Round"] == []
    at = texts["draw.py"].index(", radius")
    edit(index, draw, texts, "draw.py", at, 0, " as Round")  # `from shapes import Circle as Round`
    after = answers(index.snapshot_for(draw), draw)
    assert after == fresh(index, draw) and [p for p, _, _ in after["Round"]] == [paths["shapes.py"]]


@pytest.mark.parametrize("seed", range(8))
def test_random_edits_of_both_files_keep_every_answer_equal_to_the_graphs(workspace, seed):
    index, paths, texts = workspace
    rng = random.Random(seed)
    pieces = ["x", "\n", "def radius():\n    return 5\n", "class Circle:\n    pass\n", "import shapes\n",
              "from shapes import helper\n", "    ", "helper()"]
    for _ in range(40):
        name = rng.choice(sorted(texts))
        text = texts[name]
        at = rng.randint(0, len(text))
        removed = min(len(text) - at, rng.choice([0, 0, 1, 5]))
        edit(index, paths[name], texts, name, at, removed, rng.choice(pieces))
        for path in paths.values():
            snapshot = index.snapshot_for(path)
            assert answers(snapshot, path) == fresh(index, path)
            assert snapshot.imports_of(path) == tuple(index.graph.imports_of(path))


def test_a_files_imports_are_resolved_again_only_when_its_imports_change(workspace):
    index, paths, texts = workspace
    draw, shapes = paths["draw.py"], paths["shapes.py"]
    resolved = []
    ask = index.graph.imports_of
    index.graph.imports_of = lambda path: resolved.append(path) or ask(path)
    assert index.snapshot_for(draw).imports_of(draw) == (shapes,)
    edit(index, draw, texts, "draw.py", texts["draw.py"].index("return Circle()"), 0, "x = 1\n    ")
    assert index.snapshot_for(draw).imports_of(draw) == (shapes,)
    assert resolved == [draw]  # the body edit kept the answer
    edit(index, draw, texts, "draw.py", 0, len("from shapes import Circle, radius"), "import os")
    assert index.snapshot_for(draw).imports_of(draw) == ()
    assert resolved == [draw, draw]
