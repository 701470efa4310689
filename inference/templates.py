"""Prompt formats per model family: how prefix, suffix and repository snippets become one prompt.

Invariants:
- `render` is a pure function of the request: equal requests give byte-identical prompts.
- Snippets come first, in the order given (the pruner orders them stable-first), then the current
  file; so requests at nearby cursors share the longest possible prompt prefix.
- `stop` lists every special token that must end generation for this family.
"""

from __future__ import annotations

from dataclasses import dataclass

from .api import CompletionRequest


@dataclass(frozen=True, slots=True)
class FimTemplate:
    """A fill-in-the-middle format. Empty `fim_*` tokens mean the family has no FIM (prefix only)."""

    name: str
    fim_prefix: str = ""
    fim_suffix: str = ""
    fim_middle: str = ""
    repo_name: str = ""  # token that opens the repository header ("" = no repository format)
    file_sep: str = ""  # token that opens each file block
    stop: tuple[str, ...] = ()
    comment: str = "#"

    @property
    def supports_fim(self) -> bool:
        return bool(self.fim_prefix and self.fim_middle)

    def render(self, request: CompletionRequest) -> str:
        if self.file_sep:
            return self._render_repository(request)
        context = self._render_snippets_as_comments(request)
        return self._fim(context + request.prefix, request.suffix)

    def _fim(self, prefix: str, suffix: str) -> str:
        if not self.supports_fim:
            return prefix
        return f"{self.fim_prefix}{prefix}{self.fim_suffix}{suffix}{self.fim_middle}"

    def _render_repository(self, request: CompletionRequest) -> str:
        parts: list[str] = []
        if self.repo_name:
            parts.append(f"{self.repo_name}{request.repo_name or 'workspace'}\n")
        for snippet in request.snippets:
            parts.append(f"{self.file_sep}{snippet.path}\n{snippet.text.rstrip()}\n")
        if request.snippets or request.path:
            parts.append(f"{self.file_sep}{request.path or 'current'}\n")
        return "".join(parts) + self._fim(request.prefix, request.suffix)

    def _render_snippets_as_comments(self, request: CompletionRequest) -> str:
        if not request.snippets:
            return ""
        c = _comment_for(request.language, self.comment)
        blocks = []
        for snippet in request.snippets:
            body = "\n".join(f"{c} {line}".rstrip() for line in snippet.text.rstrip().splitlines())
            blocks.append(f"{c} Path: {snippet.path}\n{body}\n")
        return "".join(blocks)


_LINE_COMMENTS = {
    "python": "#", "ruby": "#", "shellscript": "#", "rust": "//", "go": "//", "java": "//",
    "javascript": "//", "typescript": "//", "typescriptreact": "//", "javascriptreact": "//",
    "tsx": "//", "c": "//", "cpp": "//", "csharp": "//", "kotlin": "//", "swift": "//", "lua": "--",
}


def _comment_for(language: str, default: str) -> str:
    return _LINE_COMMENTS.get(language, default)


QWEN_CODER = FimTemplate(
    name="qwen2.5-coder",
    fim_prefix="<|fim_prefix|>",
    fim_suffix="<|fim_suffix|>",
    fim_middle="<|fim_middle|>",
    repo_name="<|repo_name|>",
    file_sep="<|file_sep|>",
    stop=("<|endoftext|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|fim_pad|>",
          "<|file_sep|>", "<|repo_name|>", "<|im_end|>"),
)

STARCODER = FimTemplate(
    name="starcoder",
    fim_prefix="<fim_prefix>",
    fim_suffix="<fim_suffix>",
    fim_middle="<fim_middle>",
    repo_name="<reponame>",
    file_sep="<file_sep>",
    stop=("<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<reponame>"),
)

PLAIN = FimTemplate(name="plain", stop=("<|endoftext|>", "<|im_end|>", "</s>"))

TEMPLATES: dict[str, FimTemplate] = {t.name: t for t in (QWEN_CODER, STARCODER, PLAIN)}
ALIASES = {"qwen": "qwen2.5-coder", "qwen2": "qwen2.5-coder", "qwen2.5": "qwen2.5-coder",
           "starcoder2": "starcoder", "starcoderbase": "starcoder", "smollm": "plain", "smollm2": "plain"}


def template_for(family: str) -> FimTemplate:
    """The template for a `modelFamily` setting; unknown or empty families get the prefix-only one."""
    key = (family or "").strip().lower()
    return TEMPLATES.get(ALIASES.get(key, key), PLAIN)


def known_families() -> list[str]:
    return sorted(TEMPLATES)


def detect_family(special_tokens: set[str] | frozenset[str]) -> str:
    """Guess the family from a tokenizer's special tokens; "" when nothing matches."""
    for template in TEMPLATES.values():
        if template.supports_fim and template.fim_prefix in special_tokens and template.fim_middle in special_tokens:
            return template.name
    return ""
