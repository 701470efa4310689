"""Tokenizers for the engine: `tokenizer.json` from HF directories, or a byte-level BPE tokenizer
rebuilt from a GGUF file's `tokenizer.ggml.*` metadata (GPT-2 style vocabularies: Qwen2, SmolLM2,
StarCoder, Llama 3, DeepSeek-Coder), and `TextTokenizer`, the engine's view of either.

Invariant: encoding adds exactly the special tokens the model's own tokenizer adds (BOS for
Llama-2 style models, nothing for Qwen2 / SmolLM2), and control / user-defined tokens such as
`<|fim_prefix|>` are matched as single tokens in prompt text.
"""

from __future__ import annotations

from collections.abc import Sequence as Seq
from pathlib import Path

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from .config import UnsupportedModelError

_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
_CONTRACTIONS = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
_QWEN2 = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_LLAMA3 = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_DEEPSEEK_CODER = (r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", r"[一-龥ࠀ-一가-퟿]+", r"\p{N}")

# GGUF `tokenizer.ggml.pre` -> regex splits applied in order before byte-level encoding.
PRE_TOKENIZER_SPLITS: dict[str, tuple[str, ...]] = {
    "default": (_GPT2,),
    "gpt-2": (_GPT2,),
    "gpt2": (_GPT2,),
    "qwen2": (_QWEN2,),
    "llama-bpe": (_LLAMA3,),
    "llama3": (_LLAMA3,),
    "smollm": (r"\p{N}", _GPT2),
    "starcoder": (r"\p{N}", _GPT2),
    "refact": (r"\p{N}", _GPT2),
    "deepseek-coder": _DEEPSEEK_CODER,
}
TOKEN_TYPE_CONTROL, TOKEN_TYPE_USER_DEFINED = 3, 4


def tokenizer_from_gguf_metadata(fields: dict[str, object], source: str = "") -> Tokenizer:
    """Build a `tokenizers.Tokenizer` from GGUF metadata (`tokenizer.ggml.*` keys, decoded values)."""
    kind = fields.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise UnsupportedModelError(
            f"{source}: GGUF tokenizer model {kind!r} is not supported (only byte-level BPE, 'gpt2'); "
            "use the model's Hugging Face directory instead"
        )
    pre = str(fields.get("tokenizer.ggml.pre", "default"))
    if pre not in PRE_TOKENIZER_SPLITS:
        raise UnsupportedModelError(
            f"{source}: GGUF pre-tokenizer {pre!r} is not supported (known: {', '.join(sorted(PRE_TOKENIZER_SPLITS))})"
        )
    tokens = list(fields["tokenizer.ggml.tokens"])  # type: ignore[arg-type]
    merges = [tuple(m.split(" ", 1)) for m in fields.get("tokenizer.ggml.merges", [])]  # type: ignore[union-attr]
    vocab = {token: index for index, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=pre in ("llama-bpe", "llama3")))
    if pre == "qwen2":
        tokenizer.normalizer = normalizers.NFC()
    splits = [pre_tokenizers.Split(Regex(p), behavior="isolated") for p in PRE_TOKENIZER_SPLITS[pre]]
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [*splits, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    types = list(fields.get("tokenizer.ggml.token_type", []))  # type: ignore[arg-type]
    specials = [tokens[i] for i, t in enumerate(types) if t in (TOKEN_TYPE_CONTROL, TOKEN_TYPE_USER_DEFINED)]
    tokenizer.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    bos = fields.get("tokenizer.ggml.bos_token_id")
    if fields.get("tokenizer.ggml.add_bos_token") and isinstance(bos, int):
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{tokens[bos]} $A", pair=f"{tokens[bos]} $A $B", special_tokens=[(tokens[bos], bos)]
        )
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    return tokenizer


def load_tokenizer_file(path: Path) -> Tokenizer:
    return Tokenizer.from_file(str(path))


class TextTokenizer:
    """Encode prompts, decode outputs incrementally, and map special-token strings to ids."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.special_tokens: dict[str, int] = {
            added.content: index for index, added in tokenizer.get_added_tokens_decoder().items() if added.special
        }

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=True).ids

    def decode(self, ids: Seq[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)

    def token_id(self, text: str) -> int | None:
        """The id of a special token written as text (e.g. "<|endoftext|>"), else None."""
        return self.special_tokens.get(text)
