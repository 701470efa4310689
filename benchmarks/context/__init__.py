"""The context benchmark's parts: dev corpora, target lines, recall (benchmarks/context_bench.py)."""
