import pytest

from inference.backends.model_names import family_from_name


@pytest.mark.parametrize("name, family", [
    ("Qwen/Qwen2.5-Coder-1.5B", "qwen2.5-coder"), ("qwen2.5-coder:0.5b-base", "qwen2.5-coder"),
    ("/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "qwen2.5-coder"), ("bigcode/starcoder2-3b", "starcoder2"),
    ("bigcode/starcoderbase-1b", "starcoder"), ("codellama:7b-code", "codellama"),
    ("deepseek-ai/deepseek-coder-1.3b-base", "deepseek-coder"), ("codestral:22b", "codestral"),
    ("google/codegemma-2b", "codegemma"), ("HuggingFaceTB/SmolLM2-135M", "plain"), ("llama3:8b", ""), ("", ""),
])
def test_family_from_a_served_models_name(name, family):
    assert family_from_name(name) == family
