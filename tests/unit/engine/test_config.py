"""Engine and model configuration: wire settings, validation, clear errors."""

import pytest

from inference.api import BackendConfigError
from inference.backend_spec import BackendSpec
from inference.engine.config import EngineConfig, ModelConfig, UnsupportedModelError

LLAMA = {"architectures": ["LlamaForCausalLM"], "vocab_size": 10, "hidden_size": 8, "intermediate_size": 16,
         "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1}


def test_engine_config_comes_from_the_backend_spec():
    spec = BackendSpec(kind="embedded", model="m", device="cpu", dtype="bf16", threads=3, kv_cache_mb=64,
                       block_size=32, max_batch=4, max_wait_ms=5.0, max_backlog=9)
    config = EngineConfig.from_spec(spec)
    assert (config.device, config.dtype, config.threads, config.kv_cache_mb, config.block_size, config.max_batch,
            config.max_wait_ms, config.max_backlog) == ("cpu", "bf16", 3, 64, 32, 4, 5.0, 9)


def test_lookup_tokens_travel_from_the_wire_setting_and_default_on():
    assert EngineConfig.from_spec(BackendSpec(kind="embedded", lookup_tokens=6)).lookup_tokens == 6
    assert EngineConfig.from_spec(BackendSpec(kind="embedded")).lookup_tokens == EngineConfig().lookup_tokens == 4
    with pytest.raises(ValueError, match="lookupTokens"):
        BackendSpec(kind="embedded", lookup_tokens=-1)
    from lsp_server.config import load_settings

    settings, problems = load_settings({"backends": [{"kind": "embedded", "lookupTokens": 0}]})
    assert not problems and EngineConfig.from_spec(settings.backends[0]).lookup_tokens == 0


@pytest.mark.parametrize("bad", [dict(block_size=0), dict(max_batch=0), dict(max_backlog=0), dict(max_wait_ms=-1),
                                 dict(device="tpu"), dict(dtype="int4"), dict(quantize="int3"),
                                 dict(warmup_chunk_tokens=0), dict(lookup_tokens=-1)])
def test_invalid_engine_settings_are_refused(bad):
    with pytest.raises(BackendConfigError):
        EngineConfig(**bad)


def test_model_config_reads_both_transformers_layouts():
    v4 = ModelConfig.from_hf_dict({**LLAMA, "rope_theta": 5e5, "rope_scaling": {"type": "linear", "factor": 2.0},
                                   "eos_token_id": [1, 2]})
    v5 = ModelConfig.from_hf_dict({**LLAMA, "rope_parameters": {"rope_theta": 5e5, "rope_type": "linear", "factor": 2.0},
                                   "eos_token_id": [1, 2]})
    assert v4.rope_theta == v5.rope_theta == 5e5
    assert v4.rope_scaling["factor"] == v5.rope_scaling["factor"] == 2.0
    assert v4.eos_token_ids == (1, 2) and v4.head_dim == 4 and v4.family == "llama"


def test_unsupported_rope_and_layouts_name_the_source():
    with pytest.raises(UnsupportedModelError, match="yarn.*some/dir|some/dir.*yarn"):
        ModelConfig.from_hf_dict({**LLAMA, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, source="some/dir")
    with pytest.raises(UnsupportedModelError, match="grouped-query"):
        ModelConfig.from_hf_dict({**LLAMA, "num_key_value_heads": 3})
    with pytest.raises(UnsupportedModelError, match="'BertModel'"):
        ModelConfig.from_hf_dict({**LLAMA, "architectures": ["BertModel"]})


def test_quantize_comes_from_the_spec_and_auto_means_int8_on_the_cpu_only():
    torch = pytest.importorskip("torch")
    from inference.engine.model_runner import default_threads, resolve_quantize

    assert EngineConfig.from_spec(BackendSpec(kind="embedded", quantize="int4")).quantize == "int4"
    assert EngineConfig.from_spec(BackendSpec(kind="embedded")).quantize == "auto"
    with pytest.raises(ValueError):
        BackendSpec(kind="embedded", quantize="fp8")
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert resolve_quantize("auto", cpu) == "int8" and resolve_quantize("auto", cuda) == "none"
    assert resolve_quantize("none", cpu) == "none" and resolve_quantize("int4", cpu) == "int4"
    with pytest.raises(BackendConfigError, match="CPU only"):
        resolve_quantize("int8", cuda)
    import os

    assert default_threads() == (os.cpu_count() or 1)
