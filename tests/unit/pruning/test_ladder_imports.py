"""The scope ladder's imports (pruning.ladder): the ones used near the cursor, and all of them as
their upgrade, so that no import line is shown twice."""

from pruning.context import build_context

IMPORTS = [f"import module_number_{i}" for i in range(40)] + ["from pathlib import Path"]
SOURCE = ("\n".join(IMPORTS) + "\n\n\n"
          + "".join(f"def helper{i}(value):\n    return value + {i}\n\n\n" for i in range(200))
          + "def main(name):\n    text = Path(name).read_text()\n    ")


def _imports_shown(budget):
    parts = build_context("/w/tool.py", SOURCE, len(SOURCE), language="python", budget_tokens=budget)
    assert "import module_number_0" not in parts.prefix  # the imports lie above the prefix window
    return [line for s in parts.snippets if s.kind.startswith("imports") for line in s.text.splitlines()]


def test_the_used_import_alone_on_a_tight_budget():
    assert _imports_shown(160) == ["from pathlib import Path"]


def test_with_room_every_import_is_shown_once():
    shown = _imports_shown(1024)
    assert sorted(shown) == sorted(IMPORTS)
