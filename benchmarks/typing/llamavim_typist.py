"""A user typing a `FunctionTrace` in Vim with llama.vim, against llama-server's `/infill`.

The request is the one llama.vim (ggml-org/llama.vim, autoload/llama.vim, default config) sends
for an automatic FIM at the cursor, rebuilt here from its documented fields:
- `input_prefix`: up to `n_prefix` = 256 lines before the cursor line, each followed by "\\n";
- `prompt`: the cursor line's text before the cursor; `input_suffix`: the rest of the cursor line,
  "\\n", up to `n_suffix` = 64 following lines, "\\n". A line holding only whitespace counts as empty
  (prompt and line suffix ""; `n_indent` 0), otherwise `n_indent` is the line's indentation;
- `input_extra`: [] (the ring buffer of extra chunks is not simulated);
- `n_predict` 128, `stop` [], `top_k` 40, `top_p` 0.90, samplers top_k/top_p/infill,
  `cache_prompt`, `id_slot` 0, `t_max_prompt_ms` 500, and `t_max_predict_ms` 250: llama.vim's
  first request at a position (its default 1000 applies to the speculative follow-up, which is
  not simulated).
One request per pause, sent right after the last keystroke (llama.vim also fires on keystrokes
while typing, gated by the one in flight; those are not simulated). The ghost text is the
response's `content` rendered by llama.vim's rules: trailing empty lines dropped, on a
whitespace-only line the model's leading whitespace (up to the line's) removed, and a suggestion
that is empty, whitespace only, or repeats the line suffix or the next non-blank line is not shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from .records import PauseRecord
from .trace import Edit, FunctionTrace, Pause, apply_edit, utf16_to_index

N_PREFIX = 256
N_SUFFIX = 64
RESPONSE_FIELDS = ["content", "timings/prompt_n", "timings/prompt_ms", "timings/predicted_n",
                   "timings/predicted_ms", "truncated", "tokens_cached", "tokens_evaluated"]


def infill_request(lines: list[str], row: int, column: int) -> dict[str, Any]:
    """llama.vim's `/infill` body for the cursor at (`row`, `column` as a string index)."""
    line = lines[row]
    if not line.strip():
        indent, before, after = 0, "", ""
    else:
        indent = len(line) - len(line.lstrip())
        before, after = line[:column], line[column:]
    prefix_lines = lines[max(0, row - N_PREFIX) : row]
    suffix_lines = lines[row + 1 : row + 1 + N_SUFFIX]
    return {
        "id_slot": 0,
        "input_prefix": "".join(text + "\n" for text in prefix_lines),
        "input_suffix": after + "\n" + "\n".join(suffix_lines) + "\n",
        "input_extra": [],
        "prompt": before,
        "n_predict": 128,
        "stop": [],
        "n_indent": indent,
        "top_k": 40,
        "top_p": 0.90,
        "samplers": ["top_k", "top_p", "infill"],
        "stream": False,
        "cache_prompt": True,
        "t_max_prompt_ms": 500,
        "t_max_predict_ms": 250,
        "response_fields": RESPONSE_FIELDS,
    }


def render(content: str, lines: list[str], row: int, column: int) -> str | None:
    """The ghost text llama.vim shows for `content` at the cursor, or None when it shows none."""
    parts = content.split("\n")
    while parts and parts[-1] == "":
        parts.pop()
    if not parts:
        return None
    line = lines[row]
    if not line.strip():
        lead = min(len(parts[0]) - len(parts[0].lstrip()), len(line))
        line = parts[0][:lead]
        parts[0] = parts[0][lead:]
    before, after = line[:column], line[column:]
    if len(parts) == 1 and parts[0] in ("", after):
        return None
    following = lines[row + 1 :]
    if len(parts) > 1 and parts[0] == "" and parts[1:] == following[: len(parts) - 1]:
        return None
    next_row = next((i for i, text in enumerate(following) if text.strip()), None)
    if next_row is not None and before + parts[0] == following[next_row]:
        rest = following[next_row + 1 :]
        if len(parts) == 1 or parts[1:] == rest[: len(parts) - 1]:
            return None
    text = "\n".join(parts)
    return text if text.strip() else None


class LlamaVimTypist:
    def __init__(self, url: str, trace: FunctionTrace, system: str, *, pause_timeout_s: float = 10.0,
                 clock: Callable[[], float] = time.perf_counter):
        self.url = url.rstrip("/")
        self.trace = trace
        self.system = system
        self.pause_timeout_s = pause_timeout_s
        self.clock = clock
        self.lines = trace.initial_text.split("\n")
        self.version = 1
        self.http = httpx.AsyncClient()

    async def open(self) -> None:
        self.version = 1

    async def edit(self, edit: Edit) -> float:
        self.version += 1
        apply_edit(self.lines, edit)
        return self.clock()

    async def place_cursor(self, line: int, character: int) -> None:
        """llama.vim sends nothing when the cursor is put somewhere."""

    async def close(self) -> None:
        await self.http.aclose()

    async def pause(self, pause: Pause, last_keystroke_at: float) -> PauseRecord:
        record = PauseRecord(self.system, self.trace.name, pause.kind, pause.line, pause.character,
                             self.version, pause.expected, asks=1)
        column = utf16_to_index(self.lines[pause.line], pause.character)
        body = infill_request(self.lines, pause.line, column)
        remaining = last_keystroke_at + self.pause_timeout_s - self.clock()
        try:
            response = await self.http.post(f"{self.url}/infill", json=body, timeout=max(remaining, 0.01))
            arrived = self.clock()
            data = response.json() if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError):
            return record
        prefilled = data.get("timings/prompt_n")
        record.prefilled_tokens = prefilled
        record.prefilled_pause_total = prefilled
        evaluated = data.get("tokens_evaluated")
        record.prompt_tokens = evaluated
        record.cache = "llama-server prompt cache" if data.get("tokens_cached") else None
        record.backend = "llama-server /infill"
        ghost = render(data.get("content") or "", self.lines, pause.line, column)
        if ghost:
            record.ghost = ghost
            record.latency_ms = round((arrived - last_keystroke_at) * 1000.0, 1)
        return record
