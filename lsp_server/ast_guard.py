"""One `ast.parse` at a time in this process.

CPython 3.11 keeps the recursion-depth counter of its AST constructor in interpreter-wide state:
when a thread switch lands inside one `ast.parse` and another thread runs its own, the first one
fails with `SystemError: AST constructor recursion depth mismatch`. The server has such threads:
importing torch (an embedded backend built off the event loop) calls `ast.parse` for each
overloaded function, and Python 3.11's traceback formatter calls it for every frame it prints.
`install()` wraps `ast.parse` in a re-entrant lock, so parses in different threads take turns.
anyio (imported by httpx for the remote backends) parses its own source with
`compile(..., PyCF_ONLY_AST)` when imported, which no wrapper sees, so `install()` imports it on
the calling thread, before the server starts any. It is idempotent and changes nothing else.
"""

from __future__ import annotations

import ast
import functools
import importlib
import threading

_LOCK = threading.RLock()
_PARSE_WHEN_IMPORTED = ("anyio",)  # modules that build an AST of their own source when imported


def install() -> None:
    if getattr(ast.parse, "arbor_serialised", False):
        return
    parse = ast.parse

    @functools.wraps(parse)
    def serialised_parse(*args, **kwargs):
        with _LOCK:
            return parse(*args, **kwargs)

    serialised_parse.arbor_serialised = True  # type: ignore[attr-defined]
    ast.parse = serialised_parse
    for module in _PARSE_WHEN_IMPORTED:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
