"""Loading a model for the engine: a Hugging Face directory (config.json, *.safetensors read through
safetensors' memory map, tokenizer.json) or a GGUF file (read with `gguf`, dequantized to float32).

Both return `(ModelConfig, state_dict, tokenizers.Tokenizer | None)` with HF tensor names
(`model.layers.0.self_attn.q_proj.weight`, ...), so a GGUF state dict saved as safetensors next to
`config.to_hf_dict()` loads back through `load_model_dir`. GGUF stores Llama q/k rows permuted
for interleaved rotary; `load_gguf` undoes that so one model implementation serves both.
Every failure names the path (and the architecture when that is the problem) and is raised at load
time, as `BackendConfigError` / `UnsupportedModelError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from ..api import BackendConfigError
from .config import ModelConfig, UnsupportedModelError
from .tokenizer import load_tokenizer_file, tokenizer_from_gguf_metadata

_GGUF_ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM"}
_GGUF_GLOBAL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}
_GGUF_LAYER_NAMES = {
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}


def load_model(path: str | Path) -> tuple[ModelConfig, dict[str, torch.Tensor], Any]:
    """Dispatch on what `path` is: a directory (HF layout) or a `.gguf` file."""
    path = Path(path).expanduser()
    if not path.exists():
        raise BackendConfigError(f"model path {path} does not exist")
    if path.is_dir():
        return load_model_dir(path)
    if path.suffix.lower() == ".gguf":
        return load_gguf(path)
    raise BackendConfigError(f"model path {path} is neither a model directory nor a .gguf file")


def load_model_dir(path: str | Path) -> tuple[ModelConfig, dict[str, torch.Tensor], Any]:
    from safetensors import safe_open

    path = Path(path)
    config_file = path / "config.json"
    if not config_file.is_file():
        raise BackendConfigError(f"model directory {path} has no config.json")
    try:
        raw = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BackendConfigError(f"cannot read {config_file}: {exc}") from None
    generation = path / "generation_config.json"
    if generation.is_file():
        eos = json.loads(generation.read_text(encoding="utf-8")).get("eos_token_id")
        if eos is not None:
            merged = set(eos if isinstance(eos, list) else [eos])
            current = raw.get("eos_token_id")
            merged |= set(current if isinstance(current, list) else ([current] if current is not None else []))
            raw = {**raw, "eos_token_id": sorted(merged)}
    config = ModelConfig.from_hf_dict(raw, source=str(path))
    shards = sorted(path.glob("*.safetensors"))
    if not shards:
        found = ", ".join(sorted(p.name for p in path.iterdir() if p.suffix in (".bin", ".pt", ".gguf"))) or "none"
        raise BackendConfigError(f"model directory {path} ({config.architecture}) has no *.safetensors weights (found: {found})")
    state: dict[str, torch.Tensor] = {}
    for shard in shards:
        with safe_open(str(shard), framework="pt") as handle:  # memory-mapped
            for name in handle.keys():
                state[name] = handle.get_tensor(name)
    tokenizer_file = path / "tokenizer.json"
    tokenizer = load_tokenizer_file(tokenizer_file) if tokenizer_file.is_file() else None
    return config, state, tokenizer


def _field_value(field: Any) -> Any:
    return field.contents()


def load_gguf(path: str | Path) -> tuple[ModelConfig, dict[str, torch.Tensor], Any]:
    """Read a GGUF file: config from metadata, dequantized float32 tensors, tokenizer from vocab."""
    import gguf
    import numpy as np
    from gguf.quants import dequantize

    path = Path(path)
    if not path.is_file():
        raise BackendConfigError(f"GGUF file {path} does not exist")
    try:
        reader = gguf.GGUFReader(str(path))
    except Exception as exc:  # the gguf package raises ValueError / struct errors on bad files
        raise BackendConfigError(f"cannot read GGUF file {path}: {exc}") from None
    fields = {name: _field_value(field) for name, field in reader.fields.items()}
    arch = str(fields.get("general.architecture", ""))
    if arch not in _GGUF_ARCHITECTURES:
        raise UnsupportedModelError(
            f"unsupported architecture {arch!r} in {path}; the embedded engine runs {', '.join(_GGUF_ARCHITECTURES)} GGUF files"
        )
    names = {t.name for t in reader.tensors}
    if "rope_freqs.weight" in names:
        raise UnsupportedModelError(f"{path} ({arch}): per-frequency rope factors (rope_freqs) are not supported")
    try:
        config = _gguf_config(fields, arch, path, tied="output.weight" not in names)
    except (TypeError, ValueError, KeyError) as exc:
        raise BackendConfigError(f"GGUF file {path} ({arch}) has incomplete model metadata: {exc}") from None
    state: dict[str, torch.Tensor] = {}
    for tensor in reader.tensors:
        hf_name = _hf_name(tensor.name)
        if hf_name is None:
            continue
        array = dequantize(tensor.data, tensor.tensor_type)
        value = torch.from_numpy(np.array(array, dtype=np.float32, copy=True))
        if arch == "llama" and hf_name.endswith(("q_proj.weight", "q_proj.bias")):
            value = _unpermute_rotary(value, config.num_heads)
        elif arch == "llama" and hf_name.endswith(("k_proj.weight", "k_proj.bias")):
            value = _unpermute_rotary(value, config.num_kv_heads)
        state[hf_name] = value
    tokenizer = tokenizer_from_gguf_metadata(fields, source=str(path))
    return config, state, tokenizer


def _hf_name(gguf_name: str) -> str | None:
    if gguf_name in _GGUF_GLOBAL_NAMES:
        return _GGUF_GLOBAL_NAMES[gguf_name]
    parts = gguf_name.split(".")
    if len(parts) == 4 and parts[0] == "blk" and parts[2] in _GGUF_LAYER_NAMES:
        return f"model.layers.{parts[1]}.{_GGUF_LAYER_NAMES[parts[2]]}.{parts[3]}"
    return None


def _unpermute_rotary(weight: torch.Tensor, heads: int) -> torch.Tensor:
    """Undo llama.cpp's conversion permute (rotate-half rows -> interleaved pairs) per head."""
    shape = weight.shape
    return weight.reshape(heads, shape[0] // heads // 2, 2, *shape[1:]).transpose(1, 2).reshape(shape)


def _gguf_config(fields: dict[str, Any], arch: str, path: Path, tied: bool) -> ModelConfig:
    def get(key: str, default: Any = None) -> Any:
        return fields.get(f"{arch}.{key}", default)

    heads = int(get("attention.head_count"))
    hidden = int(get("embedding_length"))
    scaling = None
    if get("rope.scaling.type") not in (None, "none"):
        scaling = {"rope_type": str(get("rope.scaling.type")), "factor": float(get("rope.scaling.factor", 1.0))}
    eos_ids = [fields[k] for k in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id") if k in fields]
    return ModelConfig(
        architecture=_GGUF_ARCHITECTURES[arch],
        vocab_size=int(get("vocab_size", len(fields.get("tokenizer.ggml.tokens", [])))),
        hidden_size=hidden,
        intermediate_size=int(get("feed_forward_length")),
        num_layers=int(get("block_count")),
        num_heads=heads,
        num_kv_heads=int(get("attention.head_count_kv", heads)),
        head_dim=int(get("attention.key_length", hidden // heads)),
        rms_norm_eps=float(get("attention.layer_norm_rms_epsilon", 1e-6)),
        rope_theta=float(get("rope.freq_base", 10000.0)),
        rope_scaling=scaling,
        max_position_embeddings=int(get("context_length", 4096)),
        tie_word_embeddings=tied,
        attention_bias=arch == "qwen2",
        bos_token_id=fields.get("tokenizer.ggml.bos_token_id"),
        eos_token_ids=tuple(dict.fromkeys(int(e) for e in eos_ids)),
        source=str(path),
    )
