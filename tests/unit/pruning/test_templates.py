"""FIM templates per family: exact prompts, stop tokens, family detection."""

import dataclasses
import os

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


MULTILINE = CompletionRequest(prefix="def f(x):\n    y = ", suffix="\n    return y\n\ndef g():\n    pass\n",
                              path="pkg/b.py", language="python", repo_name="demo")


def test_qwen_keeps_one_suffix_line_in_the_fim_slot_and_the_rest_before_the_file():
    prompt = template_for("qwen2.5-coder").render(MULTILINE)
    assert prompt == ("<|repo_name|>demo\n<|file_sep|>pkg/b.py\n    return y\n\ndef g():\n    pass\n"
                      "<|file_sep|>pkg/b.py\n<|fim_prefix|>def f(x):\n    y = <|fim_suffix|>\n<|fim_middle|>")


def test_typing_changes_only_the_end_of_a_qwen_prompt():
    template = template_for("qwen2.5-coder")
    before = template.render(MULTILINE)
    after = template.render(dataclasses.replace(MULTILINE, prefix=MULTILINE.prefix + "comp"))
    common = len(os.path.commonprefix([before, after]))
    assert before[common:] == "<|fim_suffix|>\n<|fim_middle|>"
    assert after[common:] == "comp<|fim_suffix|>\n<|fim_middle|>"


def test_split_suffix_keeps_short_suffixes_whole():
    template = template_for("qwen2.5-coder")
    assert template.split_suffix(")\n") == (")\n", "")
    assert template.split_suffix("") == ("", "")
    assert template_for("codellama").split_suffix("a\nb\n") == ("a\nb\n", "")
