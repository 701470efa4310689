"""FIM templates per family: exact prompts, stop tokens, family detection."""

import pytest

from inference.api import CompletionRequest, ContextSnippet
from inference.templates import detect_family, known_families, template_for

REQUEST = CompletionRequest(prefix="def f(", suffix=")\n", path="pkg/b.py", language="python",
                            snippets=(ContextSnippet("pkg/c.py", "def g(): ...\n"),), repo_name="demo")

EXPECTED = {
    "qwen2.5-coder": "<|repo_name|>demo\n<|file_sep|>pkg/c.py\ndef g(): ...\n<|file_sep|>pkg/b.py\n"
                     "<|fim_prefix|>def f(<|fim_suffix|>)\n<|fim_middle|>",
    "starcoder2": "<repo_name>demo\n<file_sep>pkg/c.py\ndef g(): ...\n<file_sep>pkg/b.py\n"
                  "<fim_prefix>def f(<fim_suffix>)\n<fim_middle>",
    "codellama": "<PRE> # Path: pkg/c.py\n# def g(): ...\ndef f( <SUF>)\n <MID>",
    "deepseek-coder": "<\uff5cfim\u2581begin\uff5c># Path: pkg/c.py\n# def g(): ...\ndef f("
                      "<\uff5cfim\u2581hole\uff5c>)\n<\uff5cfim\u2581end\uff5c>",
    "codestral": "[SUFFIX])\n[PREFIX]# Path: pkg/c.py\n# def g(): ...\ndef f(",
    "codegemma": "<|file_separator|>pkg/c.py\ndef g(): ...\n<|file_separator|>pkg/b.py\n"
                 "<|fim_prefix|>def f(<|fim_suffix|>)\n<|fim_middle|>",
}


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_render_exact(family):
    assert template_for(family).render(REQUEST) == EXPECTED[family]


def test_every_family_has_stop_tokens_and_renders_deterministically():
    for family in known_families():
        template = template_for(family)
        assert template.stop
        assert template.render(REQUEST) == template.render(REQUEST)


def test_aliases_and_unknown():
    assert template_for("Qwen").name == "qwen2.5-coder"
    assert template_for("deepseek").name == "deepseek-coder"
    assert template_for("no-such-model").name == "plain"


@pytest.mark.parametrize("tokens,family", [
    ({"<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|repo_name|>", "<|file_sep|>"}, "qwen2.5-coder"),
    ({"<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|file_separator|>"}, "codegemma"),
    ({"<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<repo_name>", "<file_sep>"}, "starcoder2"),
    ({"<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<reponame>"}, "starcoder"),
    ({"<PRE>", "<SUF>", "<MID>", "<EOT>"}, "codellama"),
    ({"<\uff5cfim\u2581begin\uff5c>", "<\uff5cfim\u2581hole\uff5c>", "<\uff5cfim\u2581end\uff5c>"}, "deepseek-coder"),
    ({"[SUFFIX]", "[PREFIX]", "[MIDDLE]"}, "codestral"),
    ({"<|endoftext|>", "<|im_start|>"}, ""),
])
def test_detect_family(tokens, family):
    assert detect_family(tokens) == family
