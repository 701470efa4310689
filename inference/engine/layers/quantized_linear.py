"""Weight-only quantized linear layers for the CPU, swapped in for `nn.Linear` after loading.

- int8: symmetric, one scale per output row: `w ~= q * scale[:, None]`, `q` in [-127, 127].
- int4: asymmetric, one (scale, zero) per group of `group_size` input columns:
  `w ~= (q - 8) * scale + zero`, `q` in [0, 15].

Activations stay float32 outside these modules. A forward with few rows (decode: one row per
sequence; short prefill chunks) runs a weight-only kernel: for int8, `q8_kernel` (int8
activations in blocks of 32, up to 64 rows) where it was built, else torch's on bfloat16 activations (its float32 path is not vectorised);
for int4, torch's on bfloat16 activations. A forward with many rows (prefill) dequantizes the weight to float32 and uses the
float32 GEMM, which is faster there. The dequantized weight is written into one `Scratch`
buffer shared by all modules of a model (a fresh multi-megabyte tensor per call would be
page-faulted in every time); a model runs one forward at a time, so sharing it is safe.
The int4 kernel's packed layout is opaque, so int4 modules also keep `q - 8` as int8 for the
dequantizing path (1.5 bytes per weight in all, against int8's 1).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

# Rows at or below which the weight-only kernels beat dequantize + float32 GEMM (see module doc),
# measured on 2 AVX2 cores: torch's kernels up to 8 rows; the q8 kernel up to 64 (a third of
# dequantize + GEMM's time at 16 rows, 0.8-0.95x at 64, 1.2x at 128).
KERNEL_MAX_ROWS = 8
Q8_KERNEL_MAX_ROWS = 64
INT4_GROUP_SIZE = 32


def quantize_int8(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """float [out, in] -> (int8 q [out, in], float32 scale [out]); rows of zeros get scale 1."""
    w = weight.float()
    scale = w.abs().amax(dim=1) / 127
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(w / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale


def dequantize_int8(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return q.float() * scale[:, None]


def quantize_int4(weight: torch.Tensor, group_size: int = INT4_GROUP_SIZE) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """float [out, in] -> (uint8 q [out, in] in 0..15, float32 scale and zero [out, in // group_size])."""
    out_features, in_features = weight.shape
    if in_features % group_size:
        raise ValueError(f"in_features {in_features} is not a multiple of the group size {group_size}")
    w = weight.float().reshape(out_features, in_features // group_size, group_size)
    low, high = w.amin(dim=-1), w.amax(dim=-1)
    scale = (high - low) / 15
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round((w - low[..., None]) / scale[..., None]).clamp(0, 15).to(torch.uint8)
    zero = low + 8 * scale
    return q.reshape(out_features, in_features), scale, zero


def dequantize_int4(q: torch.Tensor, scale: torch.Tensor, zero: torch.Tensor) -> torch.Tensor:
    out_features, in_features = q.shape
    groups = scale.shape[1]
    w = (q.reshape(out_features, groups, -1).float() - 8) * scale[..., None] + zero[..., None]
    return w.reshape(out_features, in_features)


class Scratch:
    """A float32 buffer that grows to the largest weight dequantized into it."""

    def __init__(self) -> None:
        self.buffer = torch.empty(0)

    def take(self, rows: int, cols: int) -> torch.Tensor:
        if self.buffer.numel() < rows * cols:
            self.buffer = torch.empty(rows * cols)
        return self.buffer[: rows * cols].view(rows, cols)


class Int8Linear(nn.Module):
    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None, scratch: Scratch | None = None,
                 q8: Any = None) -> None:
        super().__init__()
        self.out_features, self.in_features = weight.shape
        self.scratch = scratch or Scratch()
        self.q8 = q8 if self.in_features % 32 == 0 else None  # the compiled kernel module, if any
        q, scale = quantize_int8(weight)
        self.register_buffer("qweight", q)
        self.register_buffer("scale", scale)
        self.register_buffer("scale_bf16", scale.to(torch.bfloat16))
        self.register_buffer("bias", None if bias is None else bias.detach().float())

    def dequantized(self) -> torch.Tensor:
        """The weight as float32, in the shared scratch buffer (valid until the next call)."""
        return torch.mul(self.qweight, self.scale[:, None], out=self.scratch.take(self.out_features, self.in_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.shape[0]
        if self.q8 is not None and rows <= Q8_KERNEL_MAX_ROWS:
            out = self.q8.q8_linear(x.float(), self.qweight, self.scale).to(x.dtype)
            return out if self.bias is None else out + self.bias
        if rows <= KERNEL_MAX_ROWS:
            out = torch._weight_int8pack_mm(x.to(torch.bfloat16), self.qweight, self.scale_bf16).to(x.dtype)
            return out if self.bias is None else out + self.bias
        return F.linear(x, self.dequantized().to(x.dtype), self.bias)


class Int4Linear(nn.Module):
    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None, scratch: Scratch | None = None,
                 group_size: int = INT4_GROUP_SIZE) -> None:
        super().__init__()
        self.out_features, self.in_features = weight.shape
        self.group_size = group_size
        self.scratch = scratch or Scratch()
        q, scale, zero = quantize_int4(weight, group_size)
        self.register_buffer("centered", (q.to(torch.int16) - 8).to(torch.int8))
        self.register_buffer("scale", scale)
        self.register_buffer("zero", zero)
        self.register_buffer("kernel_weight", torch._convert_weight_to_int4pack_for_cpu(q.to(torch.int32), 1))
        # the kernel's layout: [in // group_size, out, 2] of (scale, zero)
        self.register_buffer("kernel_qparams", torch.stack([scale, zero], dim=-1).transpose(0, 1).contiguous()
                             .to(torch.bfloat16))
        self.register_buffer("bias", None if bias is None else bias.detach().float())

    def dequantized(self) -> torch.Tensor:
        """The weight as float32, in the shared scratch buffer (valid until the next call)."""
        groups = self.scale.shape[1]
        out = self.scratch.take(self.out_features, self.in_features).view(self.out_features, groups, -1)
        torch.mul(self.centered.view(self.out_features, groups, -1), self.scale[..., None], out=out)
        out.add_(self.zero[..., None])
        return out.view(self.out_features, self.in_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[0] <= KERNEL_MAX_ROWS:
            out = torch._weight_int4pack_mm_for_cpu(x.to(torch.bfloat16), self.kernel_weight, self.group_size,
                                                    self.kernel_qparams).to(x.dtype)
            return out if self.bias is None else out + self.bias
        return F.linear(x, self.dequantized().to(x.dtype), self.bias)


def int4_fits(weight: torch.Tensor, group_size: int = INT4_GROUP_SIZE) -> bool:
    """The CPU int4 kernel needs out % 16 == 0 and in % group_size == 0."""
    out_features, in_features = weight.shape
    return out_features % 16 == 0 and in_features % group_size == 0


def quantized_linear(weight: torch.Tensor, bias: torch.Tensor | None, mode: str,
                     scratch: Scratch | None = None, q8: Any = None) -> nn.Module:
    """The module for one weight in `mode` ("int8" or "int4"); int4 falls back to int8 for a
    shape its kernel cannot take. `q8`: the compiled `q8_kernel` module or None."""
    if mode == "int4" and int4_fits(weight):
        return Int4Linear(weight, bias, scratch)
    if mode in ("int4", "int8"):
        return Int8Linear(weight, bias, scratch, q8)
    raise ValueError(f"quantize mode must be int8 or int4, got {mode!r}")


def quantize_linears(model: nn.Module, mode: str, scratch: Scratch, q8: Any = None) -> int:
    """Replace every `nn.Linear` under `model` by its quantized module; returns how many."""
    targets = [(name, module) for name, module in model.named_modules() if isinstance(module, nn.Linear)]
    for name, module in targets:
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, attr, quantized_linear(module.weight.detach(), module.bias, mode, scratch, q8))
    return len(targets)
