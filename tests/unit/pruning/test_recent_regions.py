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
