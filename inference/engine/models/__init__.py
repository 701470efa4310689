"""Model implementations, one file per architecture family. Qwen2 is the Llama decoder with q/k/v
biases (`ModelConfig.attention_bias`), so both families share `llama.LlamaForCausalLM`."""

from __future__ import annotations

from ..config import ModelConfig
from .llama import LlamaForCausalLM, StepInterrupted

__all__ = ["LlamaForCausalLM", "StepInterrupted", "build_model"]


def build_model(config: ModelConfig) -> LlamaForCausalLM:
    """An unloaded model for `config` (call `load_weights` next). Build it under
    `torch.device("meta")` to skip allocating and initialising weights that are replaced anyway."""
    return LlamaForCausalLM(config)
