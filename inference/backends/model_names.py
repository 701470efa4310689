"""The model family a served model's name implies (`Qwen/Qwen2.5-Coder-1.5B`, `qwen2.5-coder:1.5b-base`,
`starcoder2-3b.Q4_K_M.gguf`), for servers whose API names the model but not its tokens.

Specific names are checked before general ones (`starcoder2` before `starcoder`, `codegemma`
before `gemma`); a name that matches none gives "" (the prefix-only template then applies).
"""

from __future__ import annotations

import re

_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"qwen[\d.]*[-_ ]?coder", "qwen2.5-coder"),
    (r"codegemma|code[-_]gemma", "codegemma"),
    (r"starcoder2", "starcoder2"),
    (r"starcoder|santacoder", "starcoder"),
    (r"code[-_]?llama", "codellama"),
    (r"deepseek[-_]?coder", "deepseek-coder"),
    (r"codestral", "codestral"),
    (r"smollm", "plain"),
)


def family_from_name(name: str) -> str:
    text = (name or "").lower()
    for pattern, family in _PATTERNS:
        if re.search(pattern, text):
            return family
    return ""
