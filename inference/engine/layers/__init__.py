"""Torch building blocks of the embedded engine's models: one op per file."""
