"""`arbor-ls serve` moves itself onto the C allocator on Linux, unless PYTHONMALLOC is set."""

from __future__ import annotations

import sys

import pytest

from lsp_server.subcommands import serve


class Exec:
    def __init__(self):
        self.calls = []

    def __call__(self, path, argv, env):
        self.calls.append((path, argv, env))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the re-exec is Linux only")
def test_reexecutes_the_same_command_with_the_c_allocator():
    execve = Exec()
    serve._use_c_allocator({"HOME": "/h"}, execve)
    (path, argv, env), = execve.calls
    assert path == sys.executable and argv == sys.orig_argv
    assert env == {"HOME": "/h", "PYTHONMALLOC": "malloc"}


@pytest.mark.parametrize("value", ["malloc", "pymalloc", "debug"])
def test_a_pythonmalloc_already_set_is_left_alone(value):
    execve = Exec()
    serve._use_c_allocator({"PYTHONMALLOC": value}, execve)
    assert execve.calls == []
