"""`ast_guard.install` makes `ast.parse` calls in different threads take turns (CPython 3.11's
AST constructor keeps its recursion counter in interpreter-wide state), once, and returns what
`ast.parse` returns."""

from __future__ import annotations

import ast
import sys
import threading
import time

from lsp_server import ast_guard


def test_parses_in_two_threads_take_turns_and_install_is_idempotent(monkeypatch):
    inside, most = [0], [0]
    real = ast.parse

    def slow_parse(*args, **kwargs):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.05)  # a thread switch lands inside the parse
        inside[0] -= 1
        return real(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", slow_parse)
    ast_guard.install()
    wrapped = ast.parse
    ast_guard.install()
    assert ast.parse is wrapped
    threads = [threading.Thread(target=ast.parse, args=("x = 1",)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1
    assert "anyio" in sys.modules  # parses its own source at import: imported by install, not in a thread
    assert isinstance(ast.parse("y = (1, 2)"), ast.Module)
