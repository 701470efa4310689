"""Post-processing never shows a template or special token, of any family or in a generic shape."""

import pytest

from inference.templates import TEMPLATES
from pruning.postprocess import cut_at_special, postprocess

FAMILY_TOKENS = sorted({token for t in TEMPLATES.values()
                        for token in (t.fim_prefix, t.fim_suffix, t.fim_middle, t.repo_name, t.file_sep, *t.stop)
                        if token.endswith((">", "]"))})  # whole tokens; stop strings may be their beginnings
GENERIC = ["<|endoftext|>", "<fim_end>", "<fim-end>", "<|fim_pad|>", "<|im_end|>", "<|im_start|>", "</s>", "<EOT>",
           "<|EOT|>", "<eos>", "<end_of_turn>", "<file_sep>", "<|file_separator|>", "<filename>", "[INST]"]


@pytest.mark.parametrize("token", FAMILY_TOKENS + GENERIC)
def test_every_special_token_ends_the_completion(token):
    assert cut_at_special(f"compute(x){token}garbage") == "compute(x)"
    assert postprocess(f"compute(x){token}\nmore", prefix="y = ", suffix="\n", language="python",
                       multiline=False) == "compute(x)"


def test_smollm2_fim_end_on_its_own_line_shows_nothing():
    assert postprocess("\n<fim_end>", prefix="def f():\n    ", suffix="\n", language="python") == ""


@pytest.mark.parametrize("raw,expected", [
    ("return x<|endof", "return x"),
    ("return x\n<fim_", "return x\n"),
    ("value <|", "value "),
    ("done<\uff5cend\u2581of", "done"),
])
def test_a_token_cut_short_at_the_end_is_dropped(raw, expected):
    assert cut_at_special(raw) == expected


@pytest.mark.parametrize("code", [
    "if a < b and c > d:", "List<String> names = new ArrayList<>();", "x = a<b", "html = '<div><b>old</b></div>'",
    "items[PREFIX_LEN]", "shift = a << 2", "cmp = a <= b",
])
def test_ordinary_code_is_kept(code):
    assert cut_at_special(code) == code
