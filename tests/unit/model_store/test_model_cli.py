"""`arbor-ls model list|pull|path` through the real argument parser."""

from __future__ import annotations

import json

import pytest

from inference import model_store
from lsp_server.cli import main


@pytest.fixture(autouse=True)
def models_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(model_store.MODELS_DIR_ENV, str(tmp_path / "models"))
    return tmp_path / "models"


def test_list_json_describes_every_known_model(capsys):
    assert main(["model", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["qwen2.5-coder-0.5b", "smollm2-135m"]
    assert rows[0]["default"] and rows[0]["fim"] and rows[0]["download_bytes"] == 491_400_064
    assert not rows[0]["installed"]


def test_list_table_marks_installed_models(models_dir, capsys):
    target = models_dir / "smollm2-135m"
    target.mkdir(parents=True)
    (target / "model.safetensors").write_bytes(b"x" * 2_000_000)
    (target / model_store.MANIFEST).write_text(json.dumps({"dtype": "float32", "source": "test"}))
    assert main(["model", "list"]) == 0
    out = capsys.readouterr().out
    assert "qwen2.5-coder-0.5b (default)" in out and "2 MB float32" in out


def test_path_of_a_missing_model_says_how_to_install_it(capsys):
    assert main(["model", "path"]) == 2
    assert capsys.readouterr().err.strip() == (
        "arbor-ls: error: model qwen2.5-coder-0.5b is not installed; run: arbor-ls model pull qwen2.5-coder-0.5b")


def test_pull_of_an_unknown_model_is_a_usage_error(capsys):
    assert main(["model", "pull", "gpt-17"]) == 2
    assert "known models: qwen2.5-coder-0.5b, smollm2-135m" in capsys.readouterr().err


def test_pull_of_an_installed_model_does_nothing(models_dir, capsys):
    target = models_dir / "qwen2.5-coder-0.5b"
    target.mkdir(parents=True)
    (target / model_store.MANIFEST).write_text("{}")
    assert main(["model", "pull"]) == 0
    assert "already installed" in capsys.readouterr().out
