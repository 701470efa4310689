"""Scores in points and the paired bootstrap on synthetic paired data."""

import random

import pytest

from benchmarks.nextline.stats import paired_bootstrap, score


def test_score_is_exact_match_and_edit_similarity_in_points():
    assert score("  total = a + b\nnext", "total = a + b") == {"em": 100.0, "es": 100.0}
    got = score("total = a - b", "total = a + b")
    assert got["em"] == 0.0 and 90 < got["es"] < 100
    assert score("", "x = 1") == {"em": 0.0, "es": 0.0}


def test_a_consistent_gain_gives_an_interval_that_excludes_zero():
    rng = random.Random(3)
    b = [rng.choice((0.0, 100.0)) for _ in range(200)]
    a = [100.0 if rng.random() < 0.3 else x for x in b]  # a wins some cases, never loses one
    ci = paired_bootstrap(a, b, seed=0)
    assert ci["low"] > 0 and ci["low"] <= ci["mean"] <= ci["high"]


def test_symmetric_noise_gives_an_interval_that_includes_zero():
    rng = random.Random(4)
    b = [rng.choice((0.0, 100.0)) for _ in range(200)]
    flips = [rng.choice((-1, 0, 1)) for _ in range(200)]
    a = [min(100.0, max(0.0, x + 100.0 * f)) for x, f in zip(b, flips)]
    # make the gains and the losses balance exactly
    gains = sum(1 for x, y in zip(a, b) if x > y)
    losses = sum(1 for x, y in zip(a, b) if x < y)
    for i in range(len(a)):
        if gains == losses:
            break
        if gains > losses and a[i] > b[i]:
            a[i], gains = b[i], gains - 1
        elif losses > gains and a[i] < b[i]:
            a[i], losses = b[i], losses - 1
    ci = paired_bootstrap(a, b, seed=0)
    assert ci["mean"] == 0.0 and ci["low"] < 0 < ci["high"]


def test_identical_settings_give_a_zero_width_interval_and_the_bootstrap_is_deterministic():
    a = [0.0, 100.0, 50.0, 25.0]
    assert paired_bootstrap(a, list(a)) == {"n": 4, "mean": 0.0, "low": 0.0, "high": 0.0}
    x, y = [1.0, 5.0, 2.0, 9.0], [0.0, 1.0, 4.0, 3.0]
    assert paired_bootstrap(x, y, seed=7) == paired_bootstrap(x, y, seed=7)


def test_unpaired_samples_are_refused():
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 2.0])
