"""A deterministic test double for the cache benchmark: a "model" that answers with the true next
characters of the file being typed. It is not a backend anyone should configure.

The answer is a pure function of the prompt, as with a temperature-0 model: the prompt's
`<|file_sep|>path` header names the file (looked up in `TrueTextModel.files`), the FIM prefix is
located in that file's text (the start of the file if the prefix is a head of it, else its first
occurrence), and the answer is the text from there: the rest of the cursor line and up to
`extra_lines` following non-blank lines (a model stops at a blank line), at most `4 * max_tokens`
characters, streamed in chunks of `chunk_chars`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from inference.api import SamplingParams

FIM_PREFIX, FIM_SUFFIX, FILE_SEP = "<|fim_prefix|>", "<|fim_suffix|>", "<|file_sep|>"


def parse_prompt(prompt: str) -> tuple[str, str]:
    """(path, prefix) of a qwen2.5-coder FIM prompt."""
    head, _, rest = prompt.rpartition(FIM_PREFIX)
    prefix = rest.split(FIM_SUFFIX, 1)[0]
    path = head.rsplit(FILE_SEP, 1)[-1].strip() if FILE_SEP in head else ""
    return path, prefix


def true_continuation(text: str, pos: int, extra_lines: int, max_chars: int) -> str:
    """The rest of the line at `pos` plus up to `extra_lines` more non-blank lines."""
    end = text.find("\n", pos)
    if end == -1:
        return text[pos:pos + max_chars]
    for _ in range(extra_lines):
        nxt = text.find("\n", end + 1)
        line = text[end + 1: nxt if nxt != -1 else len(text)]
        if not line.strip():
            break
        end = nxt if nxt != -1 else len(text)
        if nxt == -1:
            break
    return text[pos:end][:max_chars]


class TrueTextModel:
    name = "true-text"
    model_id = "true-text-1"
    model_family = "qwen2.5-coder"

    def __init__(self, files: dict[str, str] | None = None, *, extra_lines: int = 3, chunk_chars: int = 8):
        self.files: dict[str, str] = files if files is not None else {}
        self.extra_lines = extra_lines
        self.chunk_chars = chunk_chars
        self.calls = 0

    def answer(self, prompt: str, max_tokens: int = 128) -> str:
        path, prefix = parse_prompt(prompt)
        text = self.files.get(path)
        if text is None:
            return ""
        if text.startswith(prefix):
            pos = len(prefix)
        else:
            found = text.find(prefix)
            if found == -1:
                return ""
            pos = found + len(prefix)
        return true_continuation(text, pos, self.extra_lines, 4 * max_tokens)

    async def stream(self, prompt: str, params: SamplingParams) -> AsyncIterator[str]:
        self.calls += 1
        answer = self.answer(prompt, params.max_tokens)
        for i in range(0, len(answer), self.chunk_chars):
            yield answer[i:i + self.chunk_chars]

    async def aclose(self) -> None:
        pass
