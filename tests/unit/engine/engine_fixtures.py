"""Test helpers: tiny random-weight Qwen2 / Llama models (transformers, the reference) and a byte tokenizer."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers  # noqa: E402

from inference.engine.config import EngineConfig, ModelConfig  # noqa: E402
from inference.engine.engine import LLMEngine  # noqa: E402

VOCAB = 300
EOS_TEXT = "<|endoftext|>"


def byte_tokenizer() -> Tokenizer:
    """Byte-level tokenizer: ids 0..255 are bytes, 256 is <|endoftext|> (special)."""
    mapping = _bytes_to_unicode()
    vocab = {mapping[b]: b for b in range(256)}
    assert set(vocab) == set(pre_tokenizers.ByteLevel.alphabet())
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens([AddedToken(EOS_TEXT, special=True, normalized=False)])
    return tokenizer


def _bytes_to_unicode() -> dict[int, str]:
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return dict(zip(printable, (chr(c) for c in chars)))


def tiny_reference(family: str, seed: int = 0, **overrides):
    """A random transformers model in float32 with every parameter (biases, norms) randomised."""
    torch.manual_seed(seed)
    common = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                  bos_token_id=None, eos_token_id=256)
    common.update(overrides)
    if family == "qwen2":
        config = transformers.Qwen2Config(tie_word_embeddings=False, **common)
        model = transformers.Qwen2ForCausalLM(config)
    else:
        common.setdefault("tie_word_embeddings", True)
        config = transformers.LlamaConfig(**common)
        model = transformers.LlamaForCausalLM(config)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight"):
                param.copy_(1 + 0.3 * torch.randn_like(param))
            elif name.endswith("bias"):
                param.copy_(0.3 * torch.randn_like(param))
            else:
                param.copy_(0.15 * torch.randn_like(param))
    return model.eval()


def model_config_of(reference) -> ModelConfig:
    raw = reference.config.to_dict()
    raw["architectures"] = [type(reference).__name__]
    return ModelConfig.from_hf_dict(raw)


def make_engine(reference, tokenizer=None, **engine_overrides) -> LLMEngine:
    settings = dict(block_size=4, num_blocks=128, max_wait_ms=0.0, device="cpu", dtype="float32",
                    max_batched_tokens=64)
    settings.update(engine_overrides)
    return LLMEngine(model_config_of(reference), EngineConfig(**settings), reference.state_dict(), tokenizer)


def save_hf_dir(reference, path) -> None:
    """An HF model directory: config.json + model.safetensors + tokenizer.json."""
    reference.save_pretrained(str(path))
    byte_tokenizer().save(str(path / "tokenizer.json"))
    raw = json.loads((path / "config.json").read_text())
    assert raw["architectures"]
