"""How close `pruning.budget.ApproxTokenizer` (the counter every context budget is kept in) comes
to a model's own tokenizer on real code: the dev and held-out libraries of context_bench
(benchmarks/context/corpora.py, heldout.py), up to --files files each.

Per library: the ratio of the approximate count to the model tokenizer's count over all its files
(1.0: a budget of N approximate tokens is a prompt of N model tokens; above 1.0 the prompt is
smaller than the budget says), and the 10th and 90th percentiles of the per-file ratio. Also the
approximate counter's time per line. The model tokenizer is a `tokenizer.json`; by default the
default model's, from the model store (`arbor-ls model pull` installs it).

Prints JSON and writes it to --out (default benchmarks/results/token_count.json).

    python -m benchmarks.token_count_bench
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.context import corpora, heldout
from inference import model_store
from pruning.budget import DEFAULT_TOKENIZER, ModelTokenizer

def library_ratios(texts: list[str], model: ModelTokenizer) -> dict:
    """The approximate count over the model's for `texts` together, and per file's percentiles."""
    approx = exact = 0
    per_file = []
    for text in texts:
        a, m = DEFAULT_TOKENIZER.count(text), model.count(text)
        approx += a
        exact += m
        if m:
            per_file.append(a / m)
    per_file.sort()
    return {
        "files": len(texts), "model_tokens": exact, "approx_tokens": approx,
        "ratio": round(approx / max(1, exact), 3),
        "file_ratio_p10": round(per_file[len(per_file) // 10], 3) if per_file else None,
        "file_ratio_p90": round(per_file[len(per_file) * 9 // 10], 3) if per_file else None,
    }


def microseconds_per_line(texts: list[str]) -> float:
    lines = [line + "\n" for text in texts for line in text.split("\n")]
    started = time.perf_counter()
    for line in lines:
        DEFAULT_TOKENIZER.count(line)
    return round((time.perf_counter() - started) * 1e6 / max(1, len(lines)), 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", default="", help="a tokenizer.json (default: the default model's)")
    parser.add_argument("--files", type=int, default=150, help="files per library")
    parser.add_argument("--languages", default=",".join(corpora.LANGUAGES))
    parser.add_argument("--out", default="benchmarks/results/token_count.json")
    args = parser.parse_args(argv)
    path = Path(args.tokenizer) if args.tokenizer else model_store.model_dir(model_store.DEFAULT_MODEL) / "tokenizer.json"
    if not path.is_file():
        print(f"no tokenizer at {path}: run `arbor-ls model pull` or pass --tokenizer", file=sys.stderr)
        return 2
    model = ModelTokenizer.from_file(str(path))
    libraries, all_texts = {}, []
    for language in args.languages.split(","):
        for corpus, module in (("dev", corpora), ("heldout", heldout)):
            for package in module.packages(language):
                texts = [f.read_text(errors="replace") for f in corpora.files_of(package)[:args.files]]
                key = f"{language}/{corpus}/{corpora.name_of(package)}"
                libraries[key] = library_ratios(texts, model)
                all_texts += texts
                print(f"[tokens] {key}: {libraries[key]['ratio']}", file=sys.stderr)
    ratios = [row["ratio"] for row in libraries.values()]
    result = {
        "tokenizer": str(path), "files_per_library": args.files,
        "median_library_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "min_library_ratio": min(ratios, default=None), "max_library_ratio": max(ratios, default=None),
        "approx_us_per_line": microseconds_per_line(all_texts),
        "libraries": libraries,
    }
    text = json.dumps(result, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
