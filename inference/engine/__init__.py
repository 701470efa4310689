"""The embedded inference engine: a Llama / Qwen2 decoder in plain torch with a paged KV cache,
prefix caching and continuous batching.

Pure Python, no torch: `config`, `sequence`, `block_pool`, `kv_cache_manager`, `scheduler`.
Torch: `loader` (HF directories, GGUF), `tokenizer`, `models/`, `layers/`, `model_runner`,
`engine` (`LLMEngine`: add_request / abort / step) and `async_engine` (`AsyncEngine`: the engine
thread and async streaming). `inference.backends.embedded.EmbeddedBackend` is the entry point
the router uses. Import submodules directly; this package imports nothing so that torch stays
unloaded until an embedded backend is configured.
"""
