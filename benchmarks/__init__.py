"""Runnable benchmarks of arbor-ls; each prints JSON. `benchmarks.load` is the LSP load test
(`arbor-ls bench`); `results/` holds the recorded figures quoted in README."""
