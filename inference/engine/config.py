"""Configuration of the embedded engine: what the model is (`ModelConfig`) and how it is served
(`EngineConfig`). Pure Python, no torch: both validate themselves in `__post_init__`.

`ModelConfig` is read from a Hugging Face `config.json` (or built from GGUF metadata) and written
back as HF-style JSON by `to_hf_dict`, so a converted GGUF round-trips through the directory loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..api import BackendConfigError

# Architecture names (as in config.json's "architectures") this engine implements, per family.
QWEN2_ARCHITECTURES = ("Qwen2ForCausalLM",)
LLAMA_ARCHITECTURES = ("LlamaForCausalLM", "MistralForCausalLM")
SUPPORTED_ARCHITECTURES = QWEN2_ARCHITECTURES + LLAMA_ARCHITECTURES
SUPPORTED_ROPE_TYPES = ("default", "linear", "llama3")
QUANTIZE_MODES = ("auto", "none", "int8", "int4")


class UnsupportedModelError(BackendConfigError):
    """The model exists but this engine cannot run it (architecture, rope type, tensor layout)."""


@dataclass(slots=True, kw_only=True)
class ModelConfig:
    """Shape of a decoder-only transformer of the Llama / Qwen2 families.

    Invariants: `num_heads % num_kv_heads == 0`; `head_dim` is even (rotary halves);
    `eos_token_ids` is non-empty when the model defines an end of sequence.
    """

    architecture: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int = 0
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_scaling: dict[str, Any] | None = None
    max_position_embeddings: int = 4096
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    bos_token_id: int | None = None
    eos_token_ids: tuple[int, ...] = ()
    source: str = ""  # the path it was read from, for error messages

    def __post_init__(self) -> None:
        where = f" ({self.source})" if self.source else ""
        if self.architecture not in SUPPORTED_ARCHITECTURES:
            raise UnsupportedModelError(
                f"unsupported architecture {self.architecture!r}{where}; "
                f"the embedded engine runs {', '.join(SUPPORTED_ARCHITECTURES)}"
            )
        if self.head_dim == 0:
            self.head_dim = self.hidden_size // self.num_heads
        if self.num_heads % self.num_kv_heads or self.head_dim % 2:
            raise UnsupportedModelError(
                f"{self.architecture}{where}: {self.num_heads} heads, {self.num_kv_heads} kv heads and "
                f"head_dim {self.head_dim} are not a valid grouped-query layout"
            )
        rope_type = (self.rope_scaling or {}).get("rope_type", (self.rope_scaling or {}).get("type", "default"))
        if rope_type not in SUPPORTED_ROPE_TYPES:
            raise UnsupportedModelError(
                f"{self.architecture}{where}: rope scaling {rope_type!r} is not supported "
                f"(supported: {', '.join(SUPPORTED_ROPE_TYPES)})"
            )

    @property
    def family(self) -> str:
        return "qwen2" if self.architecture in QWEN2_ARCHITECTURES else "llama"

    @classmethod
    def from_hf_dict(cls, raw: dict[str, Any], source: str = "") -> ModelConfig:
        """Read an HF `config.json` (transformers 4.x or 5.x layout)."""
        where = f" ({source})" if source else ""
        architectures = raw.get("architectures") or []
        architecture = architectures[0] if architectures else _architecture_from_type(raw.get("model_type", ""))
        if architecture not in SUPPORTED_ARCHITECTURES:
            raise UnsupportedModelError(
                f"unsupported architecture {architecture or raw.get('model_type') or 'unknown'!r}{where}; "
                f"the embedded engine runs {', '.join(SUPPORTED_ARCHITECTURES)}"
            )
        rope = dict(raw.get("rope_parameters") or {})  # transformers 5 folds theta and scaling together
        rope_theta = float(rope.pop("rope_theta", raw.get("rope_theta", 10000.0)))
        scaling = raw.get("rope_scaling") or (rope if rope.get("rope_type", "default") != "default" else None)
        eos = raw.get("eos_token_id")
        eos_ids = tuple(eos) if isinstance(eos, list) else ((eos,) if isinstance(eos, int) else ())
        num_heads = int(raw["num_attention_heads"])
        return cls(
            architecture=architecture,
            vocab_size=int(raw["vocab_size"]),
            hidden_size=int(raw["hidden_size"]),
            intermediate_size=int(raw["intermediate_size"]),
            num_layers=int(raw["num_hidden_layers"]),
            num_heads=num_heads,
            num_kv_heads=int(raw.get("num_key_value_heads") or num_heads),
            head_dim=int(raw.get("head_dim") or 0),
            rms_norm_eps=float(raw.get("rms_norm_eps", 1e-6)),
            rope_theta=rope_theta,
            rope_scaling=dict(scaling) if scaling else None,
            max_position_embeddings=int(raw.get("max_position_embeddings", 4096)),
            tie_word_embeddings=bool(raw.get("tie_word_embeddings", False)),
            attention_bias=architecture in QWEN2_ARCHITECTURES or bool(raw.get("attention_bias", False)),
            bos_token_id=raw.get("bos_token_id"),
            eos_token_ids=eos_ids,
            source=source,
        )

    def to_hf_dict(self) -> dict[str, Any]:
        """HF-style `config.json` content that `from_hf_dict` reads back to an equal config."""
        model_type = "qwen2" if self.family == "qwen2" else "llama"
        out: dict[str, Any] = {
            "architectures": [self.architecture],
            "model_type": model_type,
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_layers,
            "num_attention_heads": self.num_heads,
            "num_key_value_heads": self.num_kv_heads,
            "head_dim": self.head_dim,
            "rms_norm_eps": self.rms_norm_eps,
            "rope_theta": self.rope_theta,
            "max_position_embeddings": self.max_position_embeddings,
            "tie_word_embeddings": self.tie_word_embeddings,
            "attention_bias": self.attention_bias,
            "bos_token_id": self.bos_token_id,
            "eos_token_id": list(self.eos_token_ids) if len(self.eos_token_ids) != 1 else self.eos_token_ids[0],
        }
        if self.rope_scaling:
            out["rope_scaling"] = dict(self.rope_scaling)
        return out


def _architecture_from_type(model_type: str) -> str:
    return {"qwen2": "Qwen2ForCausalLM", "llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM"}.get(
        model_type, ""
    )


CPU_STEP_TOKENS = 256  # Qwen2.5-Coder-0.5B int8 on 2 cores: a step of about 1.6 s
GPU_STEP_TOKENS = 2048


@dataclass(slots=True, kw_only=True)
class EngineConfig:
    """How the engine schedules and caches. Times are in milliseconds / seconds as named.

    - `num_blocks == 0` means "size the KV cache from `kv_cache_mb`" (done by the model runner,
      which knows the bytes per block).
    - `max_batched_tokens` is the per-step token budget shared by decodes and prefill chunks
      (0: `CPU_STEP_TOKENS` on the CPU, `GPU_STEP_TOKENS` on a GPU, set by the engine once the
      device is known). A long prompt is prefilled in chunks of at most this many tokens, each
      chunk's full blocks cached as it completes, so a request aborted mid-prompt (a deadline, a
      client gone) leaves what it computed for the next request that shares the prompt, and a
      new request waits at most one step.
    - Ordering: a waiting request's key is its virtual deadline
      `arrival + (deadline or default_deadline) + priority * priority_age_s`, fixed at arrival,
      so a request that waits long enough beats every later arrival (aging, no starvation).
    - `quantize`: weight-only quantization of the projections ("auto": the fastest measured safe
      choice on the CPU, none on CUDA; see `model_runner.resolve_quantize`).
    - Prefill-only requests (warm-ups) and background requests (speculations) prefill at most
      `warmup_chunk_tokens` per step. An interactive request arriving during such a step waits
      for none of it (the step gives way between two layers, see `engine`) unless the step
      computes the start of its own prompt; what a given-up step computed is lost, and a small
      chunk prefills slowly (every step pays a fixed cost on the CPU).
    - `lookup_tokens`: prompt-lookup speculative decoding (see `lookup.py`) for greedy sequences
      without logits processors: each step verifies at most this many draft tokens in all
      (given to decoding sequences in urgency order), so a step computes at most this many rows
      more than plain decoding; 0 disables it. Outputs are the tokens greedy decoding produces.
    """

    block_size: int = 16
    num_blocks: int = 0
    kv_cache_mb: int = 256
    max_batch: int = 8
    max_batched_tokens: int = 0
    max_wait_ms: float = 2.0
    max_backlog: int = 512
    priority_age_s: float = 0.1
    default_deadline_ms: float = 1000.0
    enable_prefix_caching: bool = True
    max_model_len: int = 0  # 0: the model's max_position_embeddings
    device: str = "auto"
    dtype: str = "auto"
    threads: int = 0
    quantize: str = "auto"
    cpu_kernels: bool = True  # build and use the AVX2 int8 decode kernel where possible (layers/q8_kernel.py)
    warmup_chunk_tokens: int = 64
    lookup_tokens: int = 4
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        checks = {
            "blockSize": self.block_size >= 1,
            "kvCacheMB": self.kv_cache_mb >= 1 or self.num_blocks > 0,
            "maxBatch": self.max_batch >= 1,
            "maxBatchedTokens": self.max_batched_tokens >= 0,
            "maxWaitMs": self.max_wait_ms >= 0,
            "maxBacklog": self.max_backlog >= 1,
            "threads": self.threads >= 0,
            "numBlocks": self.num_blocks >= 0,
            "warmupChunkTokens": self.warmup_chunk_tokens >= 1,
            "lookupTokens": self.lookup_tokens >= 0,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise BackendConfigError(f"invalid embedded engine settings: {', '.join(bad)}")
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise BackendConfigError(f"device must be auto, cpu or cuda, got {self.device!r}")
        if self.dtype not in ("auto", "float32", "fp32", "float16", "fp16", "bfloat16", "bf16"):
            raise BackendConfigError(f"dtype must be auto, fp32, fp16 or bf16, got {self.dtype!r}")
        if self.quantize not in QUANTIZE_MODES:
            raise BackendConfigError(f"quantize must be {', '.join(QUANTIZE_MODES)}, got {self.quantize!r}")

    @classmethod
    def from_spec(cls, spec: Any) -> EngineConfig:
        """The engine settings of an `inference.backend_spec.BackendSpec`."""
        return cls(
            block_size=spec.block_size,
            kv_cache_mb=spec.kv_cache_mb,
            max_batch=spec.max_batch,
            max_wait_ms=spec.max_wait_ms,
            max_backlog=spec.max_backlog,
            device=spec.device,
            dtype=spec.dtype,
            threads=spec.threads,
            quantize=spec.quantize,
            lookup_tokens=spec.lookup_tokens,
        )
