"""The Llama-family decoder (also Qwen2, which adds q/k/v biases), in plain torch.

Module names mirror the HF checkpoints (`model.layers.0.self_attn.q_proj.weight`, ...), so loading
is one lookup per parameter and a tensor whose dtype and device already match is used as it is:
weights memory-mapped from safetensors stay file-backed (shared with the page cache, never
copied). Projections are not fused: measured on the CPU, fused q/k/v and gate/up matmuls were no
faster, and fusing would copy every one of those weights. `forward` returns final hidden states
(before the last norm) for a flat batch of tokens; `compute_logits` projects only sampled rows.
`quantize` swaps every projection, the output projection included (a tied one gets its own
quantized copy; the embedding lookup keeps the original table), for a weight-only quantized module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ..config import ModelConfig
from ..layers.attention import AttentionMetadata, paged_attention, write_kv
from ..layers.norm import RMSNorm
from ..layers.quantized_linear import Scratch, quantize_linears, quantized_linear
from ..layers.rotary import apply_rotary


class StepInterrupted(Exception):
    """A forward pass given up between two layers because more urgent work arrived."""


class Attention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = config.num_heads, config.num_kv_heads, config.head_dim
        q_size, kv_size = self.num_heads * self.head_dim, self.num_kv_heads * self.head_dim
        self.q_proj = nn.Linear(config.hidden_size, q_size, bias=config.attention_bias)
        self.k_proj = nn.Linear(config.hidden_size, kv_size, bias=config.attention_bias)
        self.v_proj = nn.Linear(config.hidden_size, kv_size, bias=config.attention_bias)
        # Llama's `attention_bias` covers o_proj too; Qwen2 has q/k/v biases only
        self.o_proj = nn.Linear(q_size, config.hidden_size, bias=config.attention_bias and config.family == "llama")
        self.scale = self.head_dim**-0.5
        self.k_cache = torch.empty(0)  # set by the model runner: [kv_heads, slots, head_dim]
        self.v_cache = torch.empty(0)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        tokens = x.shape[0]
        q = apply_rotary(self.q_proj(x).view(tokens, self.num_heads, self.head_dim), cos, sin)
        k = apply_rotary(self.k_proj(x).view(tokens, self.num_kv_heads, self.head_dim), cos, sin)
        v = self.v_proj(x).view(tokens, self.num_kv_heads, self.head_dim)
        write_kv(self.k_cache, self.v_cache, meta.slot_mapping, k, v)
        out = paged_attention(q, k, v, self.k_cache, self.v_cache, meta, self.scale)
        return self.o_proj(out.reshape(tokens, self.num_heads * self.head_dim))


class MLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x))."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


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


class DecoderStack(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)


class LlamaForCausalLM(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.model = DecoderStack(config)
        self.lm_head = None if config.tie_word_embeddings else nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    @property
    def layers(self) -> nn.ModuleList:
        return self.model.layers

    def forward(self, input_ids: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, meta: AttentionMetadata,
                interrupted: Callable[[], bool] | None = None) -> torch.Tensor:
        """Final hidden states; raises `StepInterrupted` between two layers once `interrupted()`
        is true (the keys/values written so far are then past every sequence's computed tokens)."""
        hidden = self.model.embed_tokens(input_ids)
        for layer in self.model.layers:
            if interrupted is not None and interrupted():
                raise StepInterrupted
            hidden = layer(hidden, cos, sin, meta)
        return hidden

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits for the given rows of final hidden states (before the final norm)."""
        hidden = self.model.norm(hidden)
        if self.lm_head is None:
            return F.linear(hidden, self.model.embed_tokens.weight)
        return self.lm_head(hidden)

    def quantize(self, mode: str, q8: Any = None) -> None:
        """Weight-only `mode` ("int8" | "int4") for every projection and the output projection;
        `q8` is the compiled int8 decode kernel, if any."""
        scratch = Scratch()
        quantize_linears(self.model.layers, mode, scratch, q8)
        head = self.model.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        self.lm_head = quantized_linear(head.detach(), None, mode, scratch, q8)

    def load_weights(self, state: dict[str, torch.Tensor], dtype: torch.dtype, device: torch.device) -> None:
        """Take every parameter from the HF-named `state`, removing each entry as it is used.
        Raises KeyError naming a missing tensor, ValueError for a shape mismatch."""
        for name, param in list(self.named_parameters()):
            if name not in state:
                raise KeyError(f"missing tensor {name!r}")
            tensor = state.pop(name)
            if tuple(tensor.shape) != tuple(param.shape):
                raise ValueError(f"tensor {name!r} has shape {tuple(tensor.shape)}, expected {tuple(param.shape)}")
            module_name, _, attr = name.rpartition(".")
            module = self.get_submodule(module_name)
            setattr(module, attr, nn.Parameter(tensor.to(device=device, dtype=dtype), requires_grad=False))
