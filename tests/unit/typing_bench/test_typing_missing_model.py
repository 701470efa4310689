"""typing_bench refuses to measure arbor-ls-embedded without its model, saying how to get it."""

import benchmarks.typing_bench as typing_bench
from inference import model_store


def test_no_default_model_stops_the_run_with_the_command_that_installs_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(model_store, "models_dir", lambda: tmp_path / "models")
    assert typing_bench.main(["--systems", "arbor-ls-embedded"]) == 2
    err = capsys.readouterr().err
    assert "not installed" in err and "arbor-ls model pull" in err and "make demo" in err


def test_a_run_without_the_embedded_system_needs_no_model(tmp_path, monkeypatch):
    monkeypatch.setattr(model_store, "models_dir", lambda: tmp_path / "models")
    assert typing_bench.missing_model("llama-server-llamavim") is None


def test_an_installed_model_lets_the_run_go_on(monkeypatch):
    monkeypatch.setattr(model_store, "resolve_model", lambda name: "/models/default")
    assert typing_bench.missing_model("arbor-ls-embedded,arbor-ls-llamacpp") is None
