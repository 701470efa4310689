"""Handing freed memory back to the system after documents close.

Closing a document frees its tree, tags and analyses, but the C allocator keeps freed pages
until asked: `release()` collects cyclic garbage and, with glibc, calls `malloc_trim(0)`, which
returns every free page. The server runs it once closes have stopped for `RELEASE_AFTER_S`
(`Debounce`: a burst of closes, an editor closing a folder, costs one release).

Python's own small-object allocator keeps an arena while any object in it lives; objects made
while documents were open and kept after (interned names, caches) pin arenas. `arbor-ls serve`
therefore runs with `PYTHONMALLOC=malloc` on Linux (it re-executes itself with it unless the
variable is set): every allocation goes through the C allocator and `release()` returns it all.
"""

from __future__ import annotations

import ctypes
import gc
import sys

RELEASE_AFTER_S = 1.0


def _trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None


_MALLOC_TRIM = _trim()


def release() -> None:
    """Collect garbage and return free heap pages to the system (where the C library can)."""
    gc.collect()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
