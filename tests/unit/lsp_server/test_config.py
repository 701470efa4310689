from __future__ import annotations

import json

import pytest

from lsp_server.config import Settings, camel, load_settings, read_config_file, to_wire
from lsp_server.errors import UsageError


def test_camel_case_wire_names():
    assert camel("model_family") == "modelFamily"
    assert camel("kv_cache_mb") == "kvCacheMB"
    assert camel("budget_tokens") == "budgetTokens"


def test_defaults_use_the_embedded_backend():
    settings, problems = load_settings(None)
    assert problems == []
    assert [b.kind for b in settings.backends] == ["embedded"]
    assert settings.completion.multiline == "auto"
    assert settings.context.budget_tokens == 1024


def test_full_wire_shape_is_read():
    settings, problems = load_settings({
        "backends": [{"name": "vllm", "kind": "openai", "url": "http://127.0.0.1:8000/v1", "model": "qwen",
                      "modelFamily": "qwen2.5-coder", "apiKeyEnv": "MY_KEY", "timeoutMs": 900}],
        "completion": {"multiline": "never"},
        "context": {"budgetTokens": 2048},
    })
    assert problems == []
    (backend,) = settings.backends
    assert (backend.name, backend.model_family, backend.api_key_env, backend.timeout_ms) == (
        "vllm", "qwen2.5-coder", "MY_KEY", 900)
    assert settings.completion.multiline == "never"
    assert settings.context.budget_tokens == 2048


@pytest.mark.parametrize("data, key", [
    ({"completion": {"multiline": "sometimes"}}, "completion.multiline"),
    ({"context": {"budgetTokens": "lots"}}, "context.budgetTokens"),
    ({"context": {"budgetTokens": 1.5}}, "context.budgetTokens"),
    ({"completion": {"enabled": "yes"}}, "completion.enabled"),
    ({"context": {"budgetTokenz": 5}}, "context.budgetTokenz"),
    ({"backends": [{"kind": "gpt5", "url": "http://x"}]}, "backends[0].kind"),
])
def test_invalid_setting_is_reported_by_key_and_default_used(data, key):
    settings, problems = load_settings(data)
    assert len(problems) == 1 and problems[0].startswith(key), problems
    default = Settings()
    assert settings.completion == default.completion
    assert settings.context == default.context


def test_one_bad_key_keeps_the_good_ones():
    settings, problems = load_settings({"context": {"budgetTokens": 4096, "prefixShare": 7}})
    assert settings.context.budget_tokens == 4096
    assert settings.context.prefix_share == Settings().context.prefix_share
    assert problems and problems[0].startswith("context.prefixShare")


def test_namespaced_payload_and_round_trip():
    settings, _ = load_settings({"arbor": {"context": {"budgetTokens": 512}}})
    assert settings.context.budget_tokens == 512
    again, problems = load_settings(to_wire(settings))
    assert problems == [] and again == settings


def test_config_files_json_and_toml(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"context": {"budgetTokens": 300}}))
    (tmp_path / "a.toml").write_text('[context]\nbudgetTokens = 300\n')
    assert read_config_file(tmp_path / "a.json") == read_config_file(tmp_path / "a.toml")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(UsageError):
        read_config_file(tmp_path / "bad.json")
    with pytest.raises(UsageError):
        read_config_file(tmp_path / "missing.toml")
