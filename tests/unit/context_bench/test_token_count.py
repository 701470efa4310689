"""benchmarks.token_count_bench: the approximate counter's ratio to a model tokenizer's count."""

from benchmarks.token_count_bench import library_ratios
from pruning.budget import DEFAULT_TOKENIZER


class CharTokenizer:
    """One token per character: far more than the approximate counter makes of code."""

    def count(self, text):
        return len(text)


def test_ratio_is_the_approximate_count_over_the_models_for_all_files_together():
    texts = ["def f(x):\n    return x\n", "a = 1\n", ""]
    row = library_ratios(texts, CharTokenizer())
    approx = sum(DEFAULT_TOKENIZER.count(t) for t in texts)
    assert row["files"] == 3 and row["approx_tokens"] == approx and row["model_tokens"] == sum(map(len, texts))
    assert row["ratio"] == round(approx / sum(map(len, texts)), 3) < 1
    assert row["file_ratio_p10"] <= row["file_ratio_p90"]  # the empty file has no ratio


def test_a_tokenizer_that_agrees_gives_one():
    row = library_ratios(["x = compute(21)\n"], DEFAULT_TOKENIZER)
    assert row["ratio"] == row["file_ratio_p10"] == row["file_ratio_p90"] == 1.0
