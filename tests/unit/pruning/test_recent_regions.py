"""Recently edited regions of other files as snippets (pruning.recent_regions)."""

from __future__ import annotations

from dataclasses import dataclass

from pruning.context import build_context


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def test_the_region_just_edited_in_another_file_is_a_snippet_and_the_own_file_is_not(tmp_path, write_files):
    files = {"shop/cart.py": "def total(items):\n    return sum(items)\n",
             "shop/report.py": "def render(rows):\n    \n"}
    index = write_files(tmp_path, files)
    cart, report = str(tmp_path / "shop/cart.py"), str(tmp_path / "shop/report.py")
    for path, text in ((cart, files["shop/cart.py"]), (report, files["shop/report.py"])):
        index.did_open(path, text, "python")
    old = files["shop/cart.py"]
    added = "\n\ndef with_tax(items, rate):\n    return total(items) * (1 + rate)\n"
    index.did_change(cart, [Edit(len(old), len(old), added)], old + added)
    index.flush()
    text = files["shop/report.py"]
    parts = build_context(report, text, text.index("    \n") + 4, index=index, workspace_root=str(tmp_path))
    recent = [s for s in parts.snippets if s.kind == "recent"]
    assert [(s.path, s.reason) for s in recent] == [("shop/cart.py", "recently edited")]
    assert "def with_tax(items, rate):" in recent[0].text

    own = build_context(cart, old + added, len(old + added), index=index, workspace_root=str(tmp_path))
    assert not [s for s in own.snippets if s.kind == "recent"]


def test_the_place_worked_at_in_the_file_left_is_a_snippet_elsewhere_unless_that_file_has_an_edited_region(tmp_path, write_files):
    files = {"shop/prices.py": "".join(f"RATE_{i} = {i}\n" for i in range(30)),
             "shop/report.py": "def render(rows):\n    \n",
             "shop/cart.py": "def total(items):\n    return sum(items)\n"}
    index = write_files(tmp_path, files)
    prices, report, cart = (str(tmp_path / name) for name in ("shop/prices.py", "shop/report.py", "shop/cart.py"))
    for path, name in ((prices, "shop/prices.py"), (report, "shop/report.py"), (cart, "shop/cart.py")):
        index.did_open(path, files[name], "python")
    index.flush()
    index.worked_at(prices, 15)
    index.worked_at(report, 1)
    text = files["shop/report.py"]
    parts = build_context(report, text, text.index("    \n") + 4, index=index, workspace_root=str(tmp_path))
    visited = [s for s in parts.snippets if s.kind == "visited"]
    assert [(s.path, s.reason) for s in visited] == [("shop/prices.py", "recently visited")]
    assert visited[0].text == "".join(f"RATE_{i} = {i}\n" for i in range(10, 21))

    # the file worked at is edited: its edited region stands for it, and no visited one is shown
    old = files["shop/prices.py"]
    index.did_change(prices, [Edit(len(old), len(old), "RATE_30 = 30\n")], old + "RATE_30 = 30\n")
    index.flush()
    parts = build_context(report, text, text.index("    \n") + 4, index=index, workspace_root=str(tmp_path))
    assert [(s.path, s.kind) for s in parts.snippets if s.kind in ("recent", "visited")] == [("shop/prices.py", "recent")]

    # in the file itself, its own place is not offered
    index.worked_at(prices, 3)
    own = build_context(prices, old + "RATE_30 = 30\n", 0, index=index, workspace_root=str(tmp_path))
    assert [(s.path, s.kind) for s in own.snippets if s.kind == "visited"] == [("shop/report.py", "visited")]
