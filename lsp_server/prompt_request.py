"""`request_from_parts`: a `PromptParts` (pruning's output) as an inference `CompletionRequest`.

Invariant: one `ContextSnippet` per file block, in layout order: consecutive snippets of one
path are joined into one block, so the template writes each file's header once. Every text in
the request is `inference.text_safety.safe_text` (valid UTF-8, no NUL): this is where buffer text
becomes what backends are sent.
"""

from __future__ import annotations

from typing import Any

from inference.api import CompletionRequest, ContextSnippet
from inference.text_safety import safe_request
from pruning.prompt import PromptParts


def request_from_parts(parts: PromptParts, **sampling: Any) -> CompletionRequest:
    blocks: list[ContextSnippet] = []
    for snippet in parts.snippets:
        if blocks and blocks[-1].path == snippet.path:
            blocks[-1] = ContextSnippet(snippet.path, blocks[-1].text + snippet.text)
        else:
            blocks.append(ContextSnippet(snippet.path, snippet.text))
    request = CompletionRequest(prefix=parts.prefix, suffix=parts.suffix, path=parts.path, language=parts.language,
                                snippets=tuple(blocks), depends_on=parts.depends_on,
                                semantic_key=parts.semantic_key, **sampling)
    return safe_request(request)
