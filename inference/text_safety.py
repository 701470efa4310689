"""Text as it may leave the process: every string a backend receives is valid Unicode without NULs.

An editor can hold anything in a buffer: a lone UTF-16 surrogate (`\\ud800`, from a broken paste or
a client's JSON escape) cannot be encoded as UTF-8, so an HTTP body holding it fails to encode and
the request fails before it is sent (and enough such failures would open the backend's breaker for
every document); a NUL ends the prompt early in servers that read C strings.

Invariants of `safe_text`:
- the result encodes as UTF-8 and holds no NUL;
- a surrogate pair (two code points of one UTF-16 character) becomes that character, a lone
  surrogate and a NUL each become U+FFFD; every other character is kept, in order;
- text that is already safe is returned as is (the same object), at the cost of one scan.
"""

from __future__ import annotations

from dataclasses import replace

from .api import CompletionRequest, ContextSnippet

REPLACEMENT = "\ufffd"


def safe_text(text: str) -> str:
    if text.isascii():
        return text.replace("\x00", REPLACEMENT) if "\x00" in text else text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # through UTF-16: pairs join into their character, lone surrogates are replaced
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.replace("\x00", REPLACEMENT) if "\x00" in text else text


def safe_request(request: CompletionRequest) -> CompletionRequest:
    """`request` with `safe_text` applied to every text it carries (itself when nothing changes)."""
    snippets = tuple(ContextSnippet(safe_text(s.path), safe_text(s.text)) for s in request.snippets)
    fields = {"prefix": safe_text(request.prefix), "suffix": safe_text(request.suffix),
              "path": safe_text(request.path), "repo_name": safe_text(request.repo_name),
              "stop": tuple(safe_text(s) for s in request.stop)}
    changed = {name: value for name, value in fields.items() if value != getattr(request, name)}
    if any(a.text is not b.text or a.path is not b.path for a, b in zip(snippets, request.snippets)):
        changed["snippets"] = snippets
    return replace(request, **changed) if changed else request
