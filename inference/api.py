"""The contract between the server and everything that produces completions.

`inference` imports neither `indexer` nor `pruning`: the server turns pruned context into a
`CompletionRequest`, the router renders it with the backend's FIM template into a prompt string,
and a `Backend` streams text for that prompt under `SamplingParams`.

Invariants:
- A `CompletionRequest` is immutable and hashable by value; equal requests render equal prompts.
- `depends_on` maps every workspace file whose content went into the prompt to that file's
  semantic fingerprint; caches tag entries with it so that a fingerprint change invalidates them.
- A backend never raises for an empty or unhelpful answer: it yields nothing. It raises
  `BackendError` for transport or model failures, which the router counts against its breaker.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

PRIORITY_INTERACTIVE = 0
PRIORITY_BACKGROUND = 10


@dataclass(frozen=True, slots=True)
class ContextSnippet:
    """A piece of repository context: `text` taken from `path` (workspace-relative, '/' separated)."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """What to complete: the text around the cursor plus repository context, stable-first."""

    prefix: str
    suffix: str = ""
    path: str = ""
    language: str = ""
    snippets: tuple[ContextSnippet, ...] = ()
    repo_name: str = ""
    multiline: bool = True
    max_tokens: int = 128
    # multi-line only: once this many ms of generation have passed, the completion ends at the
    # next line break with the whole lines it has (0: it runs to `max_tokens`)
    multiline_budget_ms: int = 0
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    priority: int = PRIORITY_INTERACTIVE
    deadline_ms: float | None = None
    depends_on: tuple[tuple[str, str], ...] = ()
    # Key of the normalised local context (enclosing scope's syntax fingerprint, normalised cursor
    # line, snippet fingerprints), computed by pruning; "" disables the semantic cache tier.
    semantic_key: str = ""


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """How a backend should sample. `stop` holds every string that ends generation (not included)."""

    max_tokens: int = 128
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    priority: int = PRIORITY_INTERACTIVE
    deadline_ms: float | None = None
    # The request the prompt was rendered from, for servers that lay out FIM themselves
    # (llama-server's `/infill`, a `suffix` field); None where only the prompt is known.
    request: CompletionRequest | None = None


@dataclass(slots=True)
class CompletionResult:
    """A finished completion. `cache` is "miss" or the name of the tier that answered.
    `usage` holds the backend's token counts where it reports them (`prompt_tokens`,
    `cached_tokens`, `prefilled_tokens`); a cache hit prefilled nothing."""

    text: str
    backend: str = ""
    cache: str = "miss"
    prompt: str = ""
    latency_ms: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)


class BackendError(RuntimeError):
    """A backend failed to produce a completion (transport error, HTTP error, model error)."""


class BackendLoading(BackendError):
    """The backend is still starting (an embedded model loading): not a failure, ask again later."""


class BackendConfigError(ValueError):
    """A backend's settings are unusable (unknown kind, missing model, bad URL)."""


@runtime_checkable
class Backend(Protocol):
    """Something that turns a prompt into a stream of text chunks.

    `stream` is an async generator; closing it early (cancellation, deadline) must release the
    backend's resources for that request at once: close the HTTP stream, abort the engine sequence.
    """

    name: str
    model_id: str
    model_family: str  # e.g. "qwen2.5-coder"; "" when unknown (the spec's modelFamily then decides)

    def stream(self, prompt: str, params: SamplingParams) -> AsyncIterator[str]: ...

    async def aclose(self) -> None: ...
