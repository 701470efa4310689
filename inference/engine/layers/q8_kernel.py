"""An AVX2 int8 x int8 matrix-vector kernel for decode rows, built once per machine on demand.

`q8_linear(x, q, scale)` computes `x @ (q * scale[:, None]).T` for float32 `x` (rows taken 8 at a
time against each weight row while it is in L1):
each row of `x` is quantized on the fly to int8 in blocks of 32 values (one float scale per
block), and each block's dot product with the weight row is exact integer arithmetic
(`maddubs` / `madd`), scaled by both scales. It reads one byte per weight, so it runs near
memory bandwidth where torch's weight-only kernel (bfloat16 activations) is compute-bound.

`load_q8_kernel()` compiles it with torch's C++ extension builder (needs a C++ compiler and
ninja; the result is cached by torch under TORCH_EXTENSIONS_DIR, ~/.cache/torch_extensions) and
returns None where the CPU lacks AVX2/FMA or the build fails: callers then use torch's kernel.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

log = logging.getLogger(__name__)


SOURCE = r"""
#include <ATen/Parallel.h>
#include <immintrin.h>
#include <cmath>

// x [M, K] float32 -> int8 [M, K] and one float scale per 32 values
static void quantize_rows(const float* x, int64_t M, int64_t K, int8_t* q, float* s) {
  const int64_t B = K / 32;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t b = 0; b < B; ++b) {
      const float* src = x + m * K + b * 32;
      float amax = 0.f;
      for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(src[i]));
      const float scale = amax / 127.f;
      const float inv = scale > 0.f ? 1.f / scale : 0.f;
      s[m * B + b] = scale;
      for (int i = 0; i < 32; ++i) q[m * K + b * 32 + i] = (int8_t)std::nearbyint(src[i] * inv);
    }
  }
}

static inline __m256 dot32(__m256i w, __m256i x) {
  const __m256i ax = _mm256_sign_epi8(x, x);
  const __m256i sw = _mm256_sign_epi8(w, x);
  const __m256i p16 = _mm256_maddubs_epi16(ax, sw);
  const __m256i p32 = _mm256_madd_epi16(p16, _mm256_set1_epi16(1));
  return _mm256_cvtepi32_ps(p32);
}

static inline float hsum(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_hadd_ps(lo, lo);
  lo = _mm_hadd_ps(lo, lo);
  return _mm_cvtss_f32(lo);
}

torch::Tensor q8_linear(torch::Tensor x, torch::Tensor w, torch::Tensor wscale) {
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && x.size(1) == w.size(1) && x.size(1) % 32 == 0);
  x = x.contiguous().to(torch::kFloat32);
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0), B = K / 32;
  auto xq = torch::empty({M, K}, torch::kInt8);
  auto xs = torch::empty({M, B}, torch::kFloat32);
  quantize_rows(x.data_ptr<float>(), M, K, xq.data_ptr<int8_t>(), xs.data_ptr<float>());
  auto out = torch::empty({M, N}, torch::kFloat32);
  const int8_t* W = w.data_ptr<int8_t>();
  const float* WS = wscale.data_ptr<float>();
  const int8_t* XQ = xq.data_ptr<int8_t>();
  const float* XS = xs.data_ptr<float>();
  float* O = out.data_ptr<float>();
  at::parallel_for(0, N, 64, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const int8_t* row = W + n * K;
      for (int64_t m0 = 0; m0 < M; m0 += 8) {  // rows of x in groups of 8; the weight row stays in L1
        const int64_t rows = std::min<int64_t>(8, M - m0);
        __m256 acc[8];
        for (int64_t m = 0; m < rows; ++m) acc[m] = _mm256_setzero_ps();
        for (int64_t b = 0; b < B; ++b) {
          const __m256i wv = _mm256_loadu_si256((const __m256i*)(row + b * 32));
          for (int64_t m = 0; m < rows; ++m) {
            const int64_t r = m0 + m;
            const __m256i xv = _mm256_loadu_si256((const __m256i*)(XQ + r * K + b * 32));
            acc[m] = _mm256_fmadd_ps(dot32(wv, xv), _mm256_set1_ps(XS[r * B + b]), acc[m]);
          }
        }
        for (int64_t m = 0; m < rows; ++m) O[(m0 + m) * N + n] = hsum(acc[m]) * WS[n];
      }
    }
  });
  return out;
}
"""


def cpu_has_avx2() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx2" in flags and " fma" in flags


def load_q8_kernel():
    """The compiled extension module, or None (no AVX2/FMA, no compiler or ninja, build failure)."""
    if not cpu_has_avx2() or shutil.which("ninja") is None or shutil.which("c++") is None:
        return None
    try:
        from torch.utils.cpp_extension import load_inline

        return load_inline("arbor_q8_kernel", cpp_sources=[SOURCE], functions=["q8_linear"],
                           extra_cflags=["-O3", "-mavx2", "-mfma"], verbose=False)
    except Exception as exc:  # a missing header or compiler error: fall back, say why once per build
        log.warning("int8 AVX2 kernel not built (%s); using torch's weight-only kernel", exc)
        return None
