"""The LSP latency load test behind `arbor-ls bench` and `python -m benchmarks.load`."""
