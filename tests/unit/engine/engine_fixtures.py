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
    settings = dict(block_size=4, num_blocks=128, max_wait_ms=0.0, device="cpu", dtype="float32", quantize="none",
                    max_batched_tokens=64)
    settings.update(engine_overrides)
    return LLMEngine(model_config_of(reference), EngineConfig(**settings), reference.state_dict(), tokenizer)


def save_hf_dir(reference, path) -> None:
    """An HF model directory: config.json + model.safetensors + tokenizer.json."""
    reference.save_pretrained(str(path))
    byte_tokenizer().save(str(path / "tokenizer.json"))
    raw = json.loads((path / "config.json").read_text())
    assert raw["architectures"]


def llama_cpp_permute(weight, heads: int):
    """llama.cpp's conversion of HF q/k rows (rotate-half) to interleaved pairs, per head."""
    shape = weight.shape
    return weight.reshape(heads, 2, shape[0] // heads // 2, *shape[1:]).swapaxes(1, 2).reshape(shape)


GGUF_LAYER_NAMES = {
    "input_layernorm.weight": "attn_norm.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight", "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight", "self_attn.o_proj.weight": "attn_output.weight",
    "self_attn.q_proj.bias": "attn_q.bias", "self_attn.k_proj.bias": "attn_k.bias",
    "self_attn.v_proj.bias": "attn_v.bias", "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight", "mlp.down_proj.weight": "ffn_down.weight",
}


def write_tiny_gguf(reference, path, arch: str, quantize_embeddings: bool = False) -> None:
    """A GGUF file for a tiny reference model, laid out as llama.cpp's converter writes it, with
    the byte tokenizer's vocabulary (plus one merge) as GPT-2 style BPE metadata."""
    import gguf
    import numpy as np

    config = reference.config
    writer = gguf.GGUFWriter(str(path), arch=arch)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    rope = getattr(config, "rope_parameters", None) or {}
    writer.add_rope_freq_base(float(rope.get("rope_theta", getattr(config, "rope_theta", 10000.0))))
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    mapping = _bytes_to_unicode()
    tokens = [mapping[b] for b in range(256)] + [EOS_TEXT, "Ġa"]
    tokens += [f"[unused{i}]" for i in range(VOCAB - len(tokens))]
    types = [1] * len(tokens)
    types[256] = 3  # control
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(["Ġ a"])
    writer.add_eos_token_id(256)
    for name, tensor in reference.state_dict().items():
        array = tensor.detach().float().numpy()
        if name == "model.embed_tokens.weight":
            out_name = "token_embd.weight"
        elif name == "model.norm.weight":
            out_name = "output_norm.weight"
        elif name == "lm_head.weight":
            if config.tie_word_embeddings:
                continue
            out_name = "output.weight"
        else:
            layer, rest = name.removeprefix("model.layers.").split(".", 1)
            out_name = f"blk.{layer}.{GGUF_LAYER_NAMES[rest]}"
            if arch == "llama" and rest.startswith("self_attn.q_proj"):
                array = llama_cpp_permute(array, config.num_attention_heads)
            elif arch == "llama" and rest.startswith("self_attn.k_proj"):
                array = llama_cpp_permute(array, config.num_key_value_heads)
        if quantize_embeddings and out_name == "token_embd.weight":
            qtype = gguf.GGMLQuantizationType.Q8_0
            writer.add_tensor(out_name, gguf.quants.quantize(array, qtype), raw_dtype=qtype)
        else:
            writer.add_tensor(out_name, np.ascontiguousarray(array))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
