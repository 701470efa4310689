"""Prompt formats per model family: how prefix, suffix and repository snippets become one prompt.

Invariants:
- `render` is a pure function of the request: equal requests give byte-identical prompts.
- Snippets come first, in the order given (the pruner orders them stable-first), then the current
  file; so requests at nearby cursors share the longest possible prompt prefix.
- What a keystroke changes comes last. Typing changes the end of the prefix; whatever follows it
  in the prompt is computed again at every keystroke by a KV prefix cache. A family trained on
  suffix-first prompts (`layout`, Codestral) puts the suffix before the prefix; Qwen2.5-Coder
  keeps prefix-suffix-middle (its suffix-first completions started new files: 0 of 24 first lines
  exact against 5 of 24, benchmarks/results/prompt_stability_fim_order.json) and, with
  `suffix_lines`, keeps only the rest of the cursor line in the FIM slot, the suffix's further
  lines in a block of the current file before the FIM part.
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
    # How the three FIM parts are laid out; suffix-first families (Codestral) swap them.
    layout: str = "{fim_prefix}{prefix}{fim_suffix}{suffix}{fim_middle}"
    # Repository formats only: how many lines of the suffix (the rest of the cursor line is the
    # first) stay in the FIM slot; the lines after them go in a block of the current file placed
    # before the file's FIM part, where typing does not move them (0: the whole suffix in the slot).
    suffix_lines: int = 0

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
        return self.layout.format(fim_prefix=self.fim_prefix, fim_suffix=self.fim_suffix,
                                  fim_middle=self.fim_middle, prefix=prefix, suffix=suffix)

    def _render_repository(self, request: CompletionRequest) -> str:
        parts: list[str] = []
        if self.repo_name:
            parts.append(f"{self.repo_name}{request.repo_name or 'workspace'}\n")
        for snippet in request.snippets:
            parts.append(f"{self.file_sep}{snippet.path}\n{snippet.text.rstrip()}\n")
        near, far = self.split_suffix(request.suffix)
        if far.strip():
            parts.append(f"{self.file_sep}{request.path or 'current'}\n{far.rstrip()}\n")
        if request.snippets or request.path or far.strip():
            parts.append(f"{self.file_sep}{request.path or 'current'}\n")
        return "".join(parts) + self._fim(request.prefix, near)

    def split_suffix(self, suffix: str) -> tuple[str, str]:
        """(the part of `suffix` in the FIM slot, the lines after it) per `suffix_lines`."""
        if self.suffix_lines <= 0 or not self.file_sep:
            return suffix, ""
        at = 0
        for _ in range(self.suffix_lines):
            at = suffix.find("\n", at) + 1
            if at == 0:
                return suffix, ""
        return suffix[:at], suffix[at:]

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
    suffix_lines=1,
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

# StarCoder2 was trained with `<repo_name>` / `<file_sep>` repository blocks.
STARCODER2 = FimTemplate(
    name="starcoder2",
    fim_prefix="<fim_prefix>",
    fim_suffix="<fim_suffix>",
    fim_middle="<fim_middle>",
    repo_name="<repo_name>",
    file_sep="<file_sep>",
    stop=("<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<repo_name>",
          "<fim_pad>"),
)

# CodeLlama's infilling format puts a space after <PRE>/<MID> and before <SUF>/<MID>.
CODELLAMA = FimTemplate(
    name="codellama",
    fim_prefix="<PRE>",
    fim_suffix="<SUF>",
    fim_middle="<MID>",
    layout="{fim_prefix} {prefix} {fim_suffix}{suffix} {fim_middle}",
    stop=("<EOT>", "</s>", "<PRE>", "<SUF>", "<MID>"),
)

DEEPSEEK_CODER = FimTemplate(
    name="deepseek-coder",
    fim_prefix="<\uff5cfim\u2581begin\uff5c>",
    fim_suffix="<\uff5cfim\u2581hole\uff5c>",
    fim_middle="<\uff5cfim\u2581end\uff5c>",
    stop=("<\uff5cend\u2581of\u2581sentence\uff5c>", "<|EOT|>", "<\uff5cfim\u2581begin\uff5c>",
          "<\uff5cfim\u2581hole\uff5c>", "<\uff5cfim\u2581end\uff5c>"),
)

# Codestral (Mistral) fill-in-the-middle: the suffix comes first, then the prefix.
CODESTRAL = FimTemplate(
    name="codestral",
    fim_prefix="[PREFIX]",
    fim_suffix="[SUFFIX]",
    fim_middle="[PREFIX]",
    layout="{fim_suffix}{suffix}{fim_prefix}{prefix}",
    stop=("</s>", "[INST]", "[PREFIX]", "[SUFFIX]", "[MIDDLE]"),
)

CODEGEMMA = FimTemplate(
    name="codegemma",
    fim_prefix="<|fim_prefix|>",
    fim_suffix="<|fim_suffix|>",
    fim_middle="<|fim_middle|>",
    file_sep="<|file_separator|>",
    stop=("<|file_separator|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<eos>",
          "<end_of_turn>"),
)

# Prefix-only models (SmolLM2) may still spell out FIM markers they saw in training data as text
# ("<fim_end>"): generation stops at the start of any such marker.
PLAIN = FimTemplate(name="plain", stop=("<|endoftext|>", "<|im_end|>", "</s>", "<fim_", "<|fim_", "<file_sep>",
                                        "<|file_sep|>", "<repo_name>", "<reponame>"))

TEMPLATES: dict[str, FimTemplate] = {
    t.name: t for t in (QWEN_CODER, STARCODER, STARCODER2, CODELLAMA, DEEPSEEK_CODER, CODESTRAL, CODEGEMMA, PLAIN)
}
ALIASES = {"qwen": "qwen2.5-coder", "qwen2": "qwen2.5-coder", "qwen2.5": "qwen2.5-coder",
           "qwen-coder": "qwen2.5-coder", "qwen2.5coder": "qwen2.5-coder",
           "starcoderbase": "starcoder", "starcoder1": "starcoder", "santacoder": "starcoder",
           "code-llama": "codellama", "llama-code": "codellama",
           "deepseek": "deepseek-coder", "deepseekcoder": "deepseek-coder", "deepseek-coder-v2": "deepseek-coder",
           "mistral": "codestral", "codestral-mamba": "codestral",
           "gemma": "codegemma", "code-gemma": "codegemma",
           "smollm": "plain", "smollm2": "plain"}


def template_for(family: str) -> FimTemplate:
    """The template for a `modelFamily` setting; unknown or empty families get the prefix-only one."""
    key = (family or "").strip().lower()
    return TEMPLATES.get(ALIASES.get(key, key), PLAIN)


def known_families() -> list[str]:
    return sorted(TEMPLATES)


# Tokens that tell families apart when several share FIM tokens (checked before the FIM pair).
_DISTINCTIVE: tuple[tuple[str, str], ...] = (
    ("<|repo_name|>", "qwen2.5-coder"),
    ("<|file_separator|>", "codegemma"),
    ("<repo_name>", "starcoder2"),
    ("<reponame>", "starcoder"),
    ("<\uff5cfim\u2581begin\uff5c>", "deepseek-coder"),
    ("[SUFFIX]", "codestral"),
    ("<PRE>", "codellama"),
    ("\u2581<PRE>", "codellama"),
)


def detect_family(special_tokens: set[str] | frozenset[str]) -> str:
    """Guess the family from a tokenizer's special tokens; "" when nothing matches.

    A family's distinctive token decides first (Qwen2.5-Coder and CodeGemma share their FIM tokens
    and differ by `<|repo_name|>` / `<|file_separator|>`); else any family whose FIM prefix and
    middle tokens are both present.
    """
    for token, family in _DISTINCTIVE:
        template = TEMPLATES[family]
        if token in special_tokens and (template.fim_prefix in special_tokens or token != template.fim_prefix):
            if family == "codegemma" and "<|fim_prefix|>" not in special_tokens:
                continue
            return family
    for template in TEMPLATES.values():
        if template.supports_fim and template.fim_prefix in special_tokens and template.fim_middle in special_tokens:
            return template.name
    return ""
