"""The embedded backend: a model run in-process by `inference.engine` (paged KV cache, prefix
caching, continuous batching), streaming text as tokens decode.

Creating the backend reads the model's config, tokenizer and (memory-mapped) weights at once, so a
missing or unsupported model fails at start-up with a `BackendConfigError` naming the path and
architecture; the engine itself (weights converted to the serving dtype, the KV cache) is built
in the engine's thread, which then times one prompt (`LLMEngine.calibrate`) so that the first
request's prompt budget already fits the machine. Until it is built, `stream` raises `BackendLoading` at once, which the router
answers empty without counting a failure; `wait_loaded` waits for the build.
Closing a `stream` early (or cancelling its task) aborts the engine sequence and frees its KV
blocks before the close completes. `warm` queues a prefill-only request (below every real one,
preempted by any) that leaves the prompt's full blocks in the prefix cache; `last_usage` holds the
prompt figures of the last stream that ended.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

if "torch" not in sys.modules:
    # Before torch loads OpenMP: idle matmul threads sleep instead of spinning, so the engine
    # does not burn the cores the editor and the LSP event loop need between steps.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ..api import BackendConfigError, BackendError, BackendLoading, SamplingParams
from ..backend_spec import BackendSpec
from ..engine.async_engine import AsyncEngine, EngineLoading
from ..engine.config import EngineConfig
from ..engine.engine import LLMEngine, RequestOutput
from ..engine.loader import load_model
from ..engine.scheduler import BacklogFullError, RequestTooLargeError
from ..engine.sequence import GenerationParams, LogitsProcessor
from ..engine.tokenizer import TextTokenizer

log = logging.getLogger(__name__)


def resolve_model_path(model: str) -> Path:
    """A known model name or a path -> what to load. Uses `inference.model_store` when present."""
    try:
        from ..model_store import resolve_model
    except ImportError:
        if not model:
            raise BackendConfigError("the embedded backend needs `model`: a model directory or .gguf file") from None
        return Path(model).expanduser()
    return resolve_model(model)


def detect_model_family(model: str, architecture: str, special_tokens: set[str]) -> str:
    """The prompt-template family: the known model's, else from FIM tokens, else by architecture."""
    try:
        from ..model_store import find_known

        known = find_known(model) if model else None
        if known is not None:
            return known.family
    except ImportError:
        pass
    from ..templates import detect_family

    detected = detect_family(special_tokens)
    if detected:
        return detected
    return "qwen2.5-coder" if architecture == "Qwen2ForCausalLM" else ""


class EmbeddedBackend:
    def __init__(self, spec: BackendSpec, engine_config: EngineConfig | None = None) -> None:
        self.name = spec.name
        self.model_id = spec.model
        self.spec = spec
        self.path = path = resolve_model_path(spec.model)
        model_config, state, tokenizer = load_model(path)
        if tokenizer is None:
            raise BackendConfigError(f"model {path} ({model_config.architecture}) has no tokenizer.json")
        self.tokenizer = TextTokenizer(tokenizer)
        self.model_family = spec.model_family or detect_model_family(
            spec.model, model_config.architecture, set(self.tokenizer.special_tokens)
        )
        config = engine_config or EngineConfig.from_spec(spec)
        # prompt_tokens, cached_tokens (prefix-cache hit), prefilled_tokens (computed) of the last stream
        self.last_usage: dict[str, int] | None = None

        def build() -> LLMEngine:
            engine = LLMEngine(model_config, config, state, tokenizer)
            state.clear()
            speed = engine.calibrate()  # the first prompt's budget then fits this machine
            log.info("embedded model %s loaded on %s (%s), %d KV blocks of %d tokens, prefill %.0f tokens/s", path,
                     engine.runner.device, engine.runner.dtype, engine.runner.num_blocks, engine.config.block_size,
                     speed or 0.0)
            return engine

        self._async = AsyncEngine(build)

    @property
    def loading(self) -> bool:
        """True while the engine thread is still building the engine."""
        return self._async.loading

    async def wait_loaded(self) -> None:
        """Return once the model is loaded; raise `BackendConfigError` if loading failed."""
        try:
            await self._async.wait_loaded()
        except BackendConfigError:
            raise
        except Exception as exc:
            raise BackendConfigError(f"{self.name}: could not load {self.path}: {exc}") from exc

    @property
    def engine(self) -> LLMEngine:
        return self._async.engine

    @property
    def prefill_speed(self):
        """The engine's own measure of its prompt throughput (None while loading)."""
        return None if self.loading else self.engine.prefill_speed

    async def stream(self, prompt: str, params: SamplingParams, *,
                     logits_processors: tuple[LogitsProcessor, ...] = ()) -> AsyncIterator[str]:
        """Text chunks as tokens decode. `logits_processors` see (generated ids, logits row)."""
        generation = GenerationParams(
            max_tokens=max(1, params.max_tokens), temperature=params.temperature, top_p=params.top_p,
            stop=tuple(params.stop), priority=params.priority, deadline_ms=params.deadline_ms,
            logits_processors=tuple(logits_processors),
        )
        outputs = self._async.generate(self.tokenizer.encode(prompt), generation)
        try:
            async for output in outputs:
                if output.finished or output.num_prompt_tokens:  # the first token carries them too
                    self.last_usage = usage_of(output)
                if output.text:
                    yield output.text
        except EngineLoading as exc:
            raise BackendLoading(f"{self.name}: loading the model {self.path.name}") from exc
        except (BacklogFullError, RequestTooLargeError) as exc:
            raise BackendError(f"{self.name}: {exc}") from exc
        except BackendError:
            raise
        except (RuntimeError, ValueError) as exc:
            raise BackendError(f"{self.name}: embedded engine failed: {exc}") from exc
        finally:
            await outputs.aclose()

    async def warm(self, prompt: str) -> int:
        """Prefill `prompt`'s full KV blocks into the prefix cache at the lowest priority; returns
        how many prompt tokens the cache now holds for it (0 while the model loads, or when the
        warm-up was aborted)."""
        outputs = self._async.generate(self.tokenizer.encode(prompt), GenerationParams(max_tokens=0))
        held = 0
        try:
            async for output in outputs:
                if output.finished and output.finish_reason == "prefill":
                    held = output.num_computed_tokens
        except EngineLoading:
            return 0
        except (BacklogFullError, RequestTooLargeError) as exc:
            raise BackendError(f"{self.name}: {exc}") from exc
        finally:
            await outputs.aclose()
        return held

    def stats(self) -> dict[str, int | float]:
        """Engine counters: steps, tokens, prefix-cache hits, preemptions, free KV blocks."""
        if self.loading:
            return {"loading": 1}
        try:
            engine = self.engine
        except Exception:  # the build failed: the router reports the error itself
            return {}
        with engine.lock:
            return {
                **engine.stats,
                "prefix_query_tokens": engine.kv.num_prefix_queries,
                "prefix_hit_tokens": engine.kv.num_prefix_hits,
                "preemptions": engine.scheduler.num_preemptions,
                "kv_blocks_total": engine.kv.pool.num_blocks,
                "kv_blocks_free": engine.kv.pool.num_free_blocks,
                "waiting": engine.scheduler.num_waiting,
                "running": len(engine.scheduler.running),
                "warmups": len(engine.scheduler.warmups) + (engine.scheduler.warming is not None),
            }

    async def aclose(self) -> None:
        await self._async.aclose()


def usage_of(output: RequestOutput) -> dict[str, int]:
    """A finished request's prompt figures: `prompt_tokens - cached_tokens` were prefilled, unless
    a preemption made it recompute (then `prefilled_tokens` is larger)."""
    return {"prompt_tokens": output.num_prompt_tokens, "cached_tokens": output.num_cached_tokens,
            "prefilled_tokens": output.num_prefilled_tokens}
