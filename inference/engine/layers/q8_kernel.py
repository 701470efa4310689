"""An AVX2 int8 x int8 matrix kernel for decode and short prefill rows, built once per machine on demand.

`q8_linear(x, q, scale)` computes `x @ (q * scale[:, None]).T` for float32 `x`: each row of `x` is
quantized on the fly to int8 in blocks of 32 values (one float scale per block), and each
block's dot product with a weight row is exact integer arithmetic (`maddubs` / `madd`), scaled
by both scales. Work goes in tiles of 4 weight rows x up to 4 rows of `x`, every accumulator in
a register, so each weight block loaded is used for every row of `x` and each activation block
for 4 weight rows; the weights 2 tiles ahead are prefetched. It reads one byte per weight and
runs near memory bandwidth at 1-2 rows, where torch's weight-only kernel (bfloat16 activations)
is compute-bound; its time grows with the rows past that, and dequantize + float32 GEMM wins
somewhere between 64 and 128 rows (`quantized_linear.Q8_KERNEL_MAX_ROWS`). Results do not depend on the tiling:
each output is the same sum in the same order.

`load_q8_kernel()` compiles it with torch's C++ extension builder (needs a C++ compiler and
ninja; the result is cached under torch's build root, TORCH_EXTENSIONS_DIR or
~/.cache/torch_extensions, in `arbor_q8_kernel_py<version>`; a build killed midway does not block
later ones: `only_builder`) and returns None where the CPU lacks AVX2/FMA or the build fails:
callers then use torch's kernel.
"""

from __future__ import annotations

import logging
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: builds are not serialised
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


SOURCE = r"""
#include <ATen/Parallel.h>
#include <immintrin.h>
#include <cmath>

// x [M, K] float32 -> int8 [M, K], |int8| as uint8 [M, K], one float scale per 32 values
static void quantize_rows(const float* x, int64_t M, int64_t K, int8_t* q, uint8_t* a, float* s) {
  const int64_t B = K / 32;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t b = 0; b < B; ++b) {
      const float* src = x + m * K + b * 32;
      float amax = 0.f;
      for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(src[i]));
      const float scale = amax / 127.f;
      const float inv = scale > 0.f ? 1.f / scale : 0.f;
      s[m * B + b] = scale;
      for (int i = 0; i < 32; ++i) {
        const int8_t v = (int8_t)std::nearbyint(src[i] * inv);
        q[m * K + b * 32 + i] = v;
        a[m * K + b * 32 + i] = (uint8_t)(v < 0 ? -v : v);
      }
    }
  }
}

static inline float hsum(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_hadd_ps(lo, lo);
  lo = _mm_hadd_ps(lo, lo);
  return _mm_cvtss_f32(lo);
}

// Weight tiles this far ahead are prefetched while one is consumed: a decode step streams every
// weight from memory once, and the hardware prefetcher alone keeps up with half the bandwidth.
constexpr int64_t PF = 2;

// NR weight rows x MR activation rows; every accumulator lives in a register
template <int NR, int MR>
static inline void tile(const int8_t* W, const float* WS, int64_t n, int64_t K, int64_t B,
                        const int8_t* XQ, const uint8_t* XA, const float* XS, int64_t m0, float* O, int64_t N) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[NR][MR];
  for (int i = 0; i < NR; ++i)
    for (int j = 0; j < MR; ++j) acc[i][j] = _mm256_setzero_ps();
  // the tile PF tiles ahead (NR rows, contiguous) is fetched at the rate this one is consumed
  const char* ahead = (const char*)(W + (n + PF * NR) * K);
  const char* limit = (const char*)(W + N * K);
  for (int64_t b = 0; b < B; ++b) {
    const char* p = ahead + b * 32 * NR;
    for (int c = 0; c < NR * 32; c += 64)
      if (p + c < limit) _mm_prefetch(p + c, _MM_HINT_T0);
    __m256i xv[MR], av[MR];
    __m256 sv[MR];
    for (int j = 0; j < MR; ++j) {
      xv[j] = _mm256_loadu_si256((const __m256i*)(XQ + (m0 + j) * K + b * 32));
      av[j] = _mm256_loadu_si256((const __m256i*)(XA + (m0 + j) * K + b * 32));
      sv[j] = _mm256_broadcast_ss(XS + (m0 + j) * B + b);
    }
    for (int i = 0; i < NR; ++i) {
      const __m256i wv = _mm256_loadu_si256((const __m256i*)(W + (n + i) * K + b * 32));
      for (int j = 0; j < MR; ++j) {
        const __m256i p16 = _mm256_maddubs_epi16(av[j], _mm256_sign_epi8(wv, xv[j]));
        const __m256 p = _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, ones));
        acc[i][j] = _mm256_fmadd_ps(p, sv[j], acc[i][j]);
      }
    }
  }
  for (int i = 0; i < NR; ++i)
    for (int j = 0; j < MR; ++j) O[(m0 + j) * N + n + i] = hsum(acc[i][j]) * WS[n + i];
}

template <int MR>
static void rows_block(const int8_t* W, const float* WS, int64_t begin, int64_t end, int64_t K, int64_t B,
                       const int8_t* XQ, const uint8_t* XA, const float* XS, int64_t m0, float* O, int64_t N) {
  int64_t n = begin;
  for (; n + 4 <= end; n += 4) tile<4, MR>(W, WS, n, K, B, XQ, XA, XS, m0, O, N);
  for (; n < end; ++n) tile<1, MR>(W, WS, n, K, B, XQ, XA, XS, m0, O, N);
}

torch::Tensor q8_linear(torch::Tensor x, torch::Tensor w, torch::Tensor wscale) {
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && x.size(1) == w.size(1) && x.size(1) % 32 == 0);
  x = x.contiguous().to(torch::kFloat32);
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0), B = K / 32;
  auto xq = torch::empty({M, K}, torch::kInt8);
  auto xa = torch::empty({M, K}, torch::kUInt8);
  auto xs = torch::empty({M, B}, torch::kFloat32);
  quantize_rows(x.data_ptr<float>(), M, K, xq.data_ptr<int8_t>(), xa.data_ptr<uint8_t>(), xs.data_ptr<float>());
  auto out = torch::empty({M, N}, torch::kFloat32);
  const int8_t* W = w.data_ptr<int8_t>();
  const float* WS = wscale.data_ptr<float>();
  const int8_t* XQ = xq.data_ptr<int8_t>();
  const uint8_t* XA = xa.data_ptr<uint8_t>();
  const float* XS = xs.data_ptr<float>();
  float* O = out.data_ptr<float>();
  at::parallel_for(0, (N + 3) / 4, 16, [&](int64_t begin, int64_t end) {  // groups of 4 weight rows
    const int64_t lo = begin * 4, hi = std::min<int64_t>(end * 4, N);
    for (int64_t m0 = 0; m0 < M; m0 += 4) {  // 4 activation rows at a time against each 4 weight rows
      switch (std::min<int64_t>(4, M - m0)) {
        case 4: rows_block<4>(W, WS, lo, hi, K, B, XQ, XA, XS, m0, O, N); break;
        case 3: rows_block<3>(W, WS, lo, hi, K, B, XQ, XA, XS, m0, O, N); break;
        case 2: rows_block<2>(W, WS, lo, hi, K, B, XQ, XA, XS, m0, O, N); break;
        default: rows_block<1>(W, WS, lo, hi, K, B, XQ, XA, XS, m0, O, N); break;
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
        from torch.utils.cpp_extension import get_default_build_root, load_inline

        directory = Path(get_default_build_root()) / f"arbor_q8_kernel_py{sys.version_info[0]}{sys.version_info[1]}"
        directory.mkdir(parents=True, exist_ok=True)
        with only_builder(directory):
            return load_inline("arbor_q8_kernel", cpp_sources=[SOURCE], functions=["q8_linear"],
                               extra_cflags=["-O3", "-mavx2", "-mfma"], build_directory=str(directory),
                               verbose=False)
    except Exception as exc:  # a missing header or compiler error: fall back, say why once per build
        log.warning("int8 AVX2 kernel not built (%s); using torch's weight-only kernel", exc)
        return None


@contextmanager
def only_builder(directory: Path) -> Iterator[None]:
    """Hold an OS lock on `directory` (released by the system when its holder dies) while torch
    builds or loads the kernel there. Under it no other process is building, so torch's own
    lock file there (`lock`, which torch waits on for as long as it exists) can only be one that
    a builder killed mid-build left behind: it is removed, and the build runs again."""
    if fcntl is None:
        yield
        return
    with open(directory / "arbor-build.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            (directory / "lock").unlink(missing_ok=True)
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
