"""`PromptParts`: what `build_context` hands the pipeline (windows, snippets, provenance).

Values only: turning `PromptParts` into an inference request is the pipeline's job
(`lsp_server.prompt_request`), so pruning does not import inference.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class SnippetInfo:
    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    tokens: int
    reason: str
    text: str


@dataclass(slots=True)
class PromptParts:
    prefix: str
    suffix: str
    path: str = ""
    language: str = ""
    snippets: list[SnippetInfo] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0
    depends_on: tuple[tuple[str, str], ...] = ()
    semantic_key: str = ""
    # the names the context looked up in the index, with the members used on each (for `prepare`)
    lookups: tuple[tuple[str, frozenset[str]], ...] = ()
    # the snippets as chosen (`pruning.held_layout.HeldLayout`): what the next context in this
    # buffer may show again (`build_context(holds=...)`)
    layout: Any = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        data = asdict(replace(self, layout=None))  # the layout holds index entries: not data
        del data["lookups"], data["layout"]
        for snippet in data["snippets"]:
            snippet.pop("text")
        return data
