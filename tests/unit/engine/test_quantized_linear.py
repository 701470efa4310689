"""Weight-only quantization: round trips within the step size, both forward paths (weight-only
kernel for few rows, dequantize + float32 GEMM for many) agree with the dequantized weight, and
the swap replaces every projection, the tied output projection included."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch import nn

from engine_fixtures import make_engine, tiny_reference

from inference.engine.layers.quantized_linear import (
    KERNEL_MAX_ROWS, Q8_KERNEL_MAX_ROWS, Int4Linear, Int8Linear, Scratch, dequantize_int4, dequantize_int8, quantize_int4,
    quantize_int8, quantized_linear,
)


def weight(out_features=48, in_features=64, seed=0):
    return torch.randn(out_features, in_features, generator=torch.Generator().manual_seed(seed)) * 0.05


def test_int8_round_trip_is_within_half_a_step_per_row():
    w = weight()
    w[3] = 0  # an all-zero row must not divide by zero
    q, scale = quantize_int8(w)
    assert q.dtype == torch.int8 and q.abs().max() <= 127 and scale.shape == (48,)
    err = (dequantize_int8(q, scale) - w).abs()
    assert torch.all(err <= scale[:, None] / 2 + 1e-7)
    assert torch.equal(dequantize_int8(q, scale)[3], torch.zeros(64))


def test_int4_round_trip_is_within_half_a_step_per_group():
    w = weight()
    q, scale, zero = quantize_int4(w, group_size=16)
    assert q.min() >= 0 and q.max() <= 15 and scale.shape == (48, 4)
    err = (dequantize_int4(q, scale, zero) - w).abs().reshape(48, 4, 16)
    assert torch.all(err <= scale[..., None] / 2 + 1e-6)
    with pytest.raises(ValueError):
        quantize_int4(weight(in_features=40), group_size=16)


@pytest.mark.parametrize("cls", [Int8Linear, Int4Linear])
@pytest.mark.parametrize("rows", [1, KERNEL_MAX_ROWS, KERNEL_MAX_ROWS + 1, 40])
def test_both_forward_paths_compute_x_times_the_dequantized_weight(cls, rows):
    w, bias = weight(), torch.randn(48) * 0.1
    module = cls(w, bias, Scratch())
    x = torch.randn(rows, 64)
    expected = x @ module.dequantized().T + bias
    got = module(x)
    assert got.dtype == torch.float32 and got.shape == (rows, 48)
    # the kernel path rounds activations to bfloat16 (8 significant bits)
    tol = 2e-2 if rows <= KERNEL_MAX_ROWS else 1e-5
    torch.testing.assert_close(got, expected, atol=tol * expected.abs().max().item(), rtol=0)
    # and the quantized weight is close to the original: relative error of the product
    assert (got - (x @ w.T + bias)).norm() / (x @ w.T + bias).norm() < (0.02 if cls is Int8Linear else 0.15)


def test_one_scratch_serves_modules_of_different_shapes():
    scratch = Scratch()
    small, large = Int8Linear(weight(16, 64), None, scratch), Int8Linear(weight(96, 64, seed=1), None, scratch)
    x = torch.randn(20, 64)
    a = small(x)
    b = large(x)
    torch.testing.assert_close(small(x), a)
    assert b.shape == (20, 96) and scratch.buffer.numel() == 96 * 64


def test_int4_falls_back_to_int8_for_shapes_its_kernel_cannot_take():
    assert isinstance(quantized_linear(weight(40, 64), None, "int4"), Int8Linear)  # 40 rows: not a multiple of 16
    assert isinstance(quantized_linear(weight(48, 64), None, "int4"), Int4Linear)
    with pytest.raises(ValueError):
        quantized_linear(weight(), None, "int3")


@pytest.mark.parametrize("mode", ["int8", "int4"])
def test_quantized_engine_swaps_every_projection_and_the_tied_head(mode):
    engine = make_engine(tiny_reference("llama", seed=4, tie_word_embeddings=True, vocab_size=304), quantize=mode)
    model = engine.runner.model
    assert not any(isinstance(m, nn.Linear) for m in model.modules())
    assert isinstance(model.lm_head, (Int8Linear, Int4Linear))
    assert isinstance(model.model.embed_tokens, nn.Embedding)  # lookups keep the original table
    outputs = []
    from inference.engine.sequence import GenerationParams

    engine.add_request("r", list(range(10, 40)), GenerationParams(max_tokens=4, ignore_eos=True), outputs.append)
    while engine.has_work:
        engine.step()
    assert sum(len(o.token_ids) for o in outputs) == 4


def test_the_avx2_int8_kernel_where_it_builds_computes_x_times_the_dequantized_weight():
    from inference.engine.layers.q8_kernel import load_q8_kernel

    q8 = load_q8_kernel()
    if q8 is None:
        pytest.skip("no AVX2/FMA, compiler or ninja here: torch's kernel is used instead")
    w, bias = weight(50, 96), torch.randn(50) * 0.1  # 50: two weight rows past the last tile of 4
    module = Int8Linear(w, bias, Scratch(), q8)
    for rows in (1, 2, 3, 5, KERNEL_MAX_ROWS, 13, Q8_KERNEL_MAX_ROWS):  # 5, 13: a partial tile of 4 rows
        x = torch.randn(rows, 96)
        expected = x @ module.dequantized().T + bias
        got = module(x)
        # activations are rounded to int8 per block of 32: about 0.5% relative error
        assert (got - expected).norm() / expected.norm() < 0.02
        # a row's result does not depend on the rows computed with it (greedy outputs stay the
        # same whether a token is decoded alone, batched or verified with drafts)
        assert torch.equal(got[-1:], module(x[-1:]))
    for out_features in (1, 3):  # fewer weight rows than one tile
        small = Int8Linear(weight(out_features, 64), None, Scratch(), q8)
        x = torch.randn(2, 64)
        assert torch.allclose(small(x), x @ small.dequantized().T, rtol=0.05, atol=0.05)
    assert module.q8 is q8 and Int8Linear(weight(48, 40), None, Scratch(), q8).q8 is None  # 40: not blocks of 32


def test_a_lock_left_by_a_build_killed_midway_does_not_block_the_next_load():
    """torch waits for its build directory's `lock` file for as long as it exists; one left by a
    killed server is removed under the OS lock that only a living builder holds."""
    import threading

    from torch.utils.cpp_extension import get_default_build_root

    from inference.engine.layers import q8_kernel

    if q8_kernel.load_q8_kernel() is None:
        pytest.skip("no AVX2/FMA, compiler or ninja here: torch's kernel is used instead")
    directory = Path(get_default_build_root()) / f"arbor_q8_kernel_py{sys.version_info[0]}{sys.version_info[1]}"
    (directory / "lock").touch()
    loaded = []
    worker = threading.Thread(target=lambda: loaded.append(q8_kernel.load_q8_kernel()), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert loaded and loaded[0] is not None
