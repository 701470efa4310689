"""Loading HF directories and GGUF files into the engine's HF-named state dict, and load errors."""

from __future__ import annotations

import json

import pytest
import torch

from engine_fixtures import byte_tokenizer, model_config_of, save_hf_dir, tiny_reference, write_tiny_gguf

from inference.api import BackendConfigError
from inference.engine.config import ModelConfig, UnsupportedModelError
from inference.engine.loader import load_gguf, load_model, load_model_dir


def test_hf_directory_round_trip(tmp_path, family):
    reference = tiny_reference(family)
    save_hf_dir(reference, tmp_path)
    config, state, tokenizer = load_model_dir(tmp_path)
    assert config == ModelConfig(**{**_fields(model_config_of(reference)), "source": str(tmp_path)})
    expected = reference.state_dict()
    if config.tie_word_embeddings:
        expected.pop("lm_head.weight", None)
    for name, tensor in expected.items():
        assert torch.equal(state[name], tensor), name
    assert tokenizer.encode("hi").ids == [104, 105]


def test_config_json_round_trip_through_to_hf_dict(family):
    config = model_config_of(tiny_reference(family))
    assert ModelConfig.from_hf_dict(config.to_hf_dict()) == config


def test_gguf_llama_is_unpermuted_and_tokenizer_rebuilt(tmp_path):
    reference = tiny_reference("llama", seed=6)
    write_tiny_gguf(reference, tmp_path / "tiny.gguf", "llama")
    config, state, tokenizer = load_gguf(tmp_path / "tiny.gguf")
    assert config.architecture == "LlamaForCausalLM" and config.tie_word_embeddings
    assert config.eos_token_ids == (256,)
    for name, tensor in reference.state_dict().items():
        if name != "lm_head.weight":
            assert torch.equal(state[name], tensor), name
    assert tokenizer.encode("a a<|endoftext|>").ids == [97, 257, 256]
    assert tokenizer.decode([97, 257, 256]) == "a a"


def test_gguf_qwen2_keeps_biases_and_dequantizes_q8_0(tmp_path):
    reference = tiny_reference("qwen2", seed=7)
    write_tiny_gguf(reference, tmp_path / "tiny.gguf", "qwen2", quantize_embeddings=True)
    config, state, _ = load_gguf(tmp_path / "tiny.gguf")
    assert config.architecture == "Qwen2ForCausalLM" and config.attention_bias and not config.tie_word_embeddings
    expected = reference.state_dict()
    assert torch.equal(state["model.layers.1.self_attn.k_proj.bias"], expected["model.layers.1.self_attn.k_proj.bias"])
    embed = expected["model.embed_tokens.weight"]
    error = (state["model.embed_tokens.weight"] - embed).abs().max()
    assert 0 < error < embed.abs().max() / 100  # quantized, so close but not equal


def test_missing_path_names_it(tmp_path):
    with pytest.raises(BackendConfigError, match=str(tmp_path / "nope")):
        load_model(tmp_path / "nope")


def test_unsupported_architecture_names_path_and_architecture(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"}))
    with pytest.raises(UnsupportedModelError) as info:
        load_model(tmp_path)
    assert "GPT2LMHeadModel" in str(info.value) and str(tmp_path) in str(info.value)


def test_directory_without_safetensors_is_refused(tmp_path):
    reference = tiny_reference("llama")
    (tmp_path / "config.json").write_text(json.dumps({**reference.config.to_dict(), "architectures": ["LlamaForCausalLM"]}))
    (tmp_path / "pytorch_model.bin").write_bytes(b"")
    with pytest.raises(BackendConfigError, match="pytorch_model.bin"):
        load_model(tmp_path)


def test_unsupported_gguf_architecture(tmp_path):
    import gguf

    writer = gguf.GGUFWriter(str(tmp_path / "m.gguf"), arch="mamba")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(UnsupportedModelError, match="'mamba'.*m.gguf"):
        load_model(tmp_path / "m.gguf")


def test_byte_tokenizer_fixture_is_what_save_hf_dir_writes(tmp_path):
    reference = tiny_reference("qwen2")
    save_hf_dir(reference, tmp_path)
    assert json.loads((tmp_path / "tokenizer.json").read_text()) == json.loads(byte_tokenizer().to_str())


def _fields(config: ModelConfig) -> dict:
    return {name: getattr(config, name) for name in ModelConfig.__dataclass_fields__}
