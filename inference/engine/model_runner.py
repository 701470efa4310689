"""Runs the model for one scheduled step: owns the device, the weights and the paged KV cache.

`prepare` turns scheduled chunks into tensors (under the engine lock, so block tables are read
consistently); `execute` runs the forward pass and returns float32 logits for the chunks that
sample (without the lock). The KV cache is allocated once: `num_blocks` blocks per layer, sized
from `kv_cache_mb` unless given. On the CPU the projections are swapped for weight-only quantized
modules after loading (`quantize`). This is the only file that knows about devices.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..api import BackendConfigError
from .config import EngineConfig, ModelConfig
from .layers.attention import AttentionMetadata, build_metadata
from .layers.q8_kernel import load_q8_kernel
from .layers.rotary import RotaryEmbedding
from .models import build_model
from .scheduler import ScheduledChunk

_DTYPES = {"float32": torch.float32, "fp32": torch.float32, "float16": torch.float16, "fp16": torch.float16,
           "bfloat16": torch.bfloat16, "bf16": torch.bfloat16}


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise BackendConfigError(f"device {name!r} requested but CUDA is not available to torch {torch.__version__}")
    return torch.device(name)


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    """"auto": bfloat16 on GPUs that support it, else float16 on GPUs; float32 on the CPU."""
    if name != "auto":
        return _DTYPES[name]
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


def default_threads() -> int:
    """All cores: a step is the only work that needs them, and with OMP_WAIT_POLICY=PASSIVE
    (set by the embedded backend before torch loads) idle matmul threads sleep between steps, so
    the LSP event loop gets a core whenever the engine is not computing."""
    return max(1, os.cpu_count() or 1)


def resolve_quantize(name: str, device: torch.device) -> str:
    """"auto": int8 on the CPU, none on CUDA; int8 / int4 run on the CPU only. On the CPU int8
    is the fastest mode measured for both decode and prefill (benchmarks/results/engine_cpu.json)
    and agrees with float32 within near ties (tests/unit/engine/test_quantized_agreement.py);
    int4 is slower here and flips clearer choices, so it is never chosen automatically."""
    if name == "auto":
        return "int8" if device.type == "cpu" else "none"
    if name != "none" and device.type != "cpu":
        raise BackendConfigError(f"quantize {name!r} runs on the CPU only; use quantize \"none\" on {device}")
    return name


@dataclass(slots=True)
class PreparedStep:
    input_ids: torch.Tensor
    positions: torch.Tensor
    meta: AttentionMetadata
    # rows whose logits are computed, in `sampling` order: a sampling chunk's last token, and for
    # a chunk with drafts its last 1 + len(drafts) tokens (the last own token and every draft)
    sample_rows: torch.Tensor
    sampling: list[ScheduledChunk]


class ModelRunner:
    def __init__(self, model_config: ModelConfig, engine_config: EngineConfig, state: dict[str, torch.Tensor]) -> None:
        self.config = model_config
        self.block_size = engine_config.block_size
        self.device = resolve_device(engine_config.device)
        self.dtype = resolve_dtype(engine_config.dtype, self.device)
        if self.device.type == "cpu":
            torch.set_num_threads(engine_config.threads or default_threads())
        limit = engine_config.max_model_len or model_config.max_position_embeddings
        self.max_model_len = min(limit, model_config.max_position_embeddings)
        with torch.device("meta"):
            self.model = build_model(model_config)
        try:
            self.model.load_weights(state, self.dtype, self.device)
        except (KeyError, ValueError) as exc:
            where = model_config.source or "the model"
            raise BackendConfigError(f"{where} ({model_config.architecture}): {exc.args[0]}") from None
        self.quantize = resolve_quantize(engine_config.quantize, self.device)
        self.q8_kernel = load_q8_kernel() if self.quantize != "none" and engine_config.cpu_kernels else None
        if self.quantize != "none":
            self.model.quantize(self.quantize, self.q8_kernel)
        self.model.eval()
        self.rotary = RotaryEmbedding(model_config.head_dim, self.max_model_len, model_config.rope_theta,
                                      model_config.rope_scaling, self.device, self.dtype)
        self.num_blocks = engine_config.num_blocks or max(1, engine_config.kv_cache_mb * 2**20 // self.bytes_per_block)
        slots = self.num_blocks * self.block_size
        shape = (model_config.num_kv_heads, slots, model_config.head_dim)
        for layer in self.model.layers:
            layer.self_attn.k_cache = torch.zeros(shape, dtype=self.dtype, device=self.device)
            layer.self_attn.v_cache = torch.zeros(shape, dtype=self.dtype, device=self.device)

    @property
    def bytes_per_block(self) -> int:
        c = self.config
        element = torch.tensor([], dtype=self.dtype).element_size()
        return 2 * c.num_layers * c.num_kv_heads * c.head_dim * self.block_size * element

    @property
    def kv_cache_bytes(self) -> int:
        return self.num_blocks * self.bytes_per_block

    def prepare(self, chunks: list[ScheduledChunk]) -> PreparedStep:
        """Lay out the step's tokens: decodes (one token) first, then prefill chunks."""
        decodes = [c for c in chunks if c.num_tokens == 1]
        prefills = [c for c in chunks if c.num_tokens > 1]
        ordered = decodes + prefills
        ids: list[int] = []
        positions: list[int] = []
        rows: list[int] = []
        sampling: list[ScheduledChunk] = []
        for chunk in ordered:
            ids.extend(chunk.token_ids)
            positions.extend(range(chunk.start, chunk.start + chunk.num_tokens))
            if chunk.samples:
                rows.extend(range(len(ids) - 1 - len(chunk.drafts), len(ids)))
                sampling.append(chunk)
        meta = build_metadata(
            [(list(c.seq.block_table), c.start + 1) for c in decodes],
            [(list(c.seq.block_table), c.start, c.num_tokens) for c in prefills],
            self.block_size,
            self.device,
            self.dtype,
        )
        return PreparedStep(
            input_ids=torch.tensor(ids, dtype=torch.long, device=self.device),
            positions=torch.tensor(positions, dtype=torch.long, device=self.device),
            meta=meta,
            sample_rows=torch.tensor(rows, dtype=torch.long, device=self.device),
            sampling=sampling,
        )

    @torch.inference_mode()
    def execute(self, step: PreparedStep, interrupted: Callable[[], bool] | None = None) -> torch.Tensor:
        """Float32 logits [len(step.sample_rows), vocab] on the CPU. Raises `StepInterrupted`
        (nothing computed counts) once `interrupted()` is true between two layers."""
        cos, sin = self.rotary.lookup(step.positions)
        hidden = self.model(step.input_ids, cos, sin, step.meta, interrupted)
        if not step.sampling:
            return torch.empty(0, self.config.vocab_size)
        logits = self.model.compute_logits(hidden.index_select(0, step.sample_rows))
        return logits.float().cpu()
