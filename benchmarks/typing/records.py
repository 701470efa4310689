"""What one pause produced, for any system, and how ghost text is read from an LSP answer.

Invariants:
- `latency_ms` is None when no ghost text came within the pause; otherwise it is measured from the
  send time of the last keystroke before the pause to the arrival of the answer that carried it.
- `ghost` is the text the editor would show at the cursor (an item whose `range` starts before the
  cursor has the text between its start and the cursor removed; one whose text does not start
  with that is not shown, as VS Code filters it), or None.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .trace import is_exact, utf16_to_index


@dataclass(slots=True)
class PauseRecord:
    system: str
    function: str
    kind: str
    line: int
    character: int
    version: int
    expected: str
    ghost: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    prefilled_tokens: int | None = None  # by the request whose answer carried the ghost text
    prefilled_pause_total: int | None = None  # by every request of this pause
    budget_tokens: int | None = None  # the context budget in force after the pause (`arbor/stats`)
    cache: str | None = None
    backend: str | None = None
    asks: int = 0
    ready_notifications: int = 0

    @property
    def suggested(self) -> bool:
        return self.latency_ms is not None

    @property
    def exact(self) -> bool:
        return self.suggested and is_exact(self.ghost, self.expected)

    def row(self) -> dict[str, Any]:
        row = asdict(self)
        row["ghost"] = None if self.ghost is None else self.ghost.split("\n", 1)[0][:200]
        row["suggested"] = self.suggested
        row["exact"] = self.exact
        return row


def item_text(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    text = item.get("insertText")
    if isinstance(text, dict):
        text = text.get("value")
    return text if isinstance(text, str) else None


def ghost_from_result(result: Any, line_text: str, line: int, character: int) -> str | None:
    """The ghost text VS Code would show for an inlineCompletion `result` at (line, character)
    of a document whose cursor line is `line_text`: the first shown item's text, or None."""
    items = result.get("items") if isinstance(result, dict) else result
    if not isinstance(items, list):
        return None
    for item in items:
        text = item_text(item)
        if not text:
            continue
        start = ((item.get("range") or {}).get("start")) if isinstance(item, dict) else None
        if start and start.get("line") == line and start.get("character", character) < character:
            typed = line_text[utf16_to_index(line_text, start["character"]) : utf16_to_index(line_text, character)]
            if not text.startswith(typed):
                continue
            text = text[len(typed):]
        if text:
            return text
    return None
