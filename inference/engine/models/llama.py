"""The Llama-family decoder (also Qwen2, which adds q/k/v biases), in plain torch.

Weights come from HF-named state dicts (`model.layers.0.self_attn.q_proj.weight`, ...); q/k/v
are fused into one `qkv_proj` and gate/up into one `gate_up_proj` at load time, so a layer runs
three matmuls and the up-projection's input is read once. `forward` returns final hidden states
for a flat batch of tokens; `compute_logits` projects only the rows that are sampled.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..config import ModelConfig
from ..layers.attention import AttentionMetadata, paged_attention, write_kv
from ..layers.norm import RMSNorm
from ..layers.rotary import apply_rotary


class Attention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = config.num_heads, config.num_kv_heads, config.head_dim
        self.q_size = self.num_heads * self.head_dim
        self.kv_size = self.num_kv_heads * self.head_dim
        self.qkv_proj = nn.Linear(config.hidden_size, self.q_size + 2 * self.kv_size, bias=config.attention_bias)
        # Llama's `attention_bias` covers o_proj too; Qwen2 has q/k/v biases only
        self.o_proj = nn.Linear(self.q_size, config.hidden_size, bias=config.attention_bias and config.family == "llama")
        self.scale = self.head_dim**-0.5
        self.k_cache = torch.empty(0)  # set by the model runner: [kv_heads, slots, head_dim]
        self.v_cache = torch.empty(0)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        tokens = x.shape[0]
        q, k, v = self.qkv_proj(x).split((self.q_size, self.kv_size, self.kv_size), dim=-1)
        q = apply_rotary(q.view(tokens, self.num_heads, self.head_dim), cos, sin)
        k = apply_rotary(k.view(tokens, self.num_kv_heads, self.head_dim), cos, sin)
        v = v.view(tokens, self.num_kv_heads, self.head_dim)
        write_kv(self.k_cache, self.v_cache, meta.slot_mapping, k, v)
        out = paged_attention(q, k, v, self.k_cache, self.v_cache, meta, self.scale)
        return self.o_proj(out.reshape(tokens, self.q_size))


class MLP(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.intermediate = config.intermediate_size
        self.gate_up_proj = nn.Linear(config.hidden_size, 2 * config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up_proj(x).split(self.intermediate, dim=-1)
        return self.down_proj(F.silu(gate) * up)


class DecoderLayer(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, hidden: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        hidden = hidden + self.self_attn(self.input_layernorm(hidden), cos, sin, meta)
        return hidden + self.mlp(self.post_attention_layernorm(hidden))


class LlamaForCausalLM(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.lm_head = None if config.tie_word_embeddings else nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        hidden = self.embed_tokens(input_ids)
        for layer in self.layers:
            hidden = layer(hidden, cos, sin, meta)
        return hidden

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits for the given rows of final hidden states (before the final norm)."""
        hidden = self.norm(hidden)
        weight = self.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        return F.linear(hidden, weight)

    def load_weights(self, state: dict[str, torch.Tensor], dtype: torch.dtype, device: torch.device) -> None:
        """Take HF-named tensors (fusing q/k/v and gate/up), removing each from `state` as it is
        used so that the unfused originals can be freed during loading (lower peak memory).
        Raises KeyError naming a missing tensor."""

        def take(name: str) -> torch.Tensor:
            if name not in state:
                raise KeyError(f"missing tensor {name!r}")
            return state.pop(name)

        def put(module: nn.Module, attr: str, tensor: torch.Tensor) -> None:
            expected = getattr(module, attr).shape
            if tuple(tensor.shape) != tuple(expected):
                raise ValueError(f"tensor for {attr} has shape {tuple(tensor.shape)}, expected {tuple(expected)}")
            tensor = tensor.to(device=device, dtype=dtype).contiguous()
            setattr(module, attr, nn.Parameter(tensor, requires_grad=False))

        put(self.embed_tokens, "weight", take("model.embed_tokens.weight"))
        put(self.norm, "weight", take("model.norm.weight"))
        if self.lm_head is not None:
            put(self.lm_head, "weight", take("lm_head.weight"))
        for i, layer in enumerate(self.layers):
            prefix = f"model.layers.{i}."
            attn = prefix + "self_attn."
            put(layer.input_layernorm, "weight", take(prefix + "input_layernorm.weight"))
            put(layer.post_attention_layernorm, "weight", take(prefix + "post_attention_layernorm.weight"))
            qkv = [take(f"{attn}{p}_proj.weight") for p in "qkv"]
            put(layer.self_attn.qkv_proj, "weight", torch.cat(qkv, dim=0))
            if layer.self_attn.qkv_proj.bias is not None:
                put(layer.self_attn.qkv_proj, "bias", torch.cat([take(f"{attn}{p}_proj.bias") for p in "qkv"]))
            put(layer.self_attn.o_proj, "weight", take(attn + "o_proj.weight"))
            if layer.self_attn.o_proj.bias is not None:
                put(layer.self_attn.o_proj, "bias", take(attn + "o_proj.bias"))
            mlp = prefix + "mlp."
            put(layer.mlp.gate_up_proj, "weight", torch.cat([take(mlp + "gate_proj.weight"), take(mlp + "up_proj.weight")]))
            put(layer.mlp.down_proj, "weight", take(mlp + "down_proj.weight"))
