"""Turning generated token ids into streamed text, and stop strings.

`OutputText.append(token)` returns the text that may be emitted now. Invariants:
- The concatenation of everything returned equals the decoded output up to (not including) the
  first stop string, or the whole decoded output when none occurs.
- Text that could be the start of a stop string is held back until it cannot be; an incomplete
  UTF-8 character (a trailing U+FFFD from byte-level decoding) is held until it completes.
- Decoding is done with a few prompt tokens in front, so tokenizers that strip a leading space
  from the first token (SentencePiece) still produce the space the model meant.
"""

from __future__ import annotations

from ..stops import held_for_stop
from .tokenizer import TextTokenizer

_CONTEXT_TOKENS = 4


class OutputText:
    def __init__(self, tokenizer: TextTokenizer, prompt_ids: list[int], stop: tuple[str, ...]) -> None:
        self.tokenizer = tokenizer
        self.stops = tuple(s for s in stop if s)
        self.context = list(prompt_ids[-_CONTEXT_TOKENS:])
        self.context_text = tokenizer.decode(self.context) if self.context else ""
        self.ids: list[int] = []
        self.decoded = ""  # decoded output so far (complete characters only)
        self.emitted = 0  # characters of `decoded` already returned
        self.stopped = False

    def _decode_output(self) -> str:
        full = self.tokenizer.decode(self.context + self.ids)
        if self.context_text and full.startswith(self.context_text):
            return full[len(self.context_text):]
        return self.tokenizer.decode(self.ids)

    def append(self, token_id: int) -> str:
        if self.stopped:
            return ""
        self.ids.append(token_id)
        text = self._decode_output()
        if text.endswith("\ufffd"):
            return ""
        self.decoded = text
        pending = text[self.emitted:]
        cut = min((i for i in (pending.find(s) for s in self.stops) if i >= 0), default=-1)
        if cut >= 0:
            self.stopped = True
            self.emitted += cut
            return pending[:cut]
        ready = len(pending) - held_for_stop(pending, self.stops)
        self.emitted += ready
        return pending[:ready]

    def flush(self) -> str:
        """Everything still held back (called when generation ends for another reason)."""
        if self.stopped:
            return ""
        out = self.decoded[self.emitted:]
        self.emitted = len(self.decoded)
        return out

    @property
    def text(self) -> str:
        return self.decoded[: self.emitted]
