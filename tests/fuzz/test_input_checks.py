"""The pieces behind the protocol's answers: envelope and params checks, id recovery from text
that is not JSON, and the rate-limited problem log (its clock advanced by the test)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from lsp_server.jsonrpc_dispatch import recover_id
from lsp_server.jsonrpc_validation import (ProblemLog, ProtocolError, check_envelope, check_message,
                                           check_positions, strict_converter)

CONVERTER = strict_converter()


def code_of(call) -> int | None:
    try:
        call()
    except ProtocolError as exc:
        return exc.code
    return None


@pytest.mark.parametrize("data, code", [
    ([], -32600), (3, -32600), ({"id": 1, "method": "x"}, -32600), ({"jsonrpc": "1.0", "id": 1, "method": "x"}, -32600),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "x"}, -32600), ({"jsonrpc": "2.0", "id": None, "method": "x"}, -32600),
    ({"jsonrpc": "2.0", "id": 1, "method": ["x"]}, -32600), ({"jsonrpc": "2.0", "id": 1, "method": "x", "params": 2}, -32600),
    ({"jsonrpc": "2.0"}, -32600), ({"jsonrpc": "2.0", "id": "a", "method": "x", "params": [1]}, None),
    ({"jsonrpc": "2.0", "id": 7, "result": None}, None), ({"jsonrpc": "2.0", "method": "x"}, None),
])
def test_envelopes(data, code):
    assert code_of(lambda: check_envelope(data)) == code


def test_typed_params_are_strict_and_required_params_present():
    def check(params):
        data = {"jsonrpc": "2.0", "id": 1, "method": types.TEXT_DOCUMENT_COMPLETION}
        if params is not None:
            data["params"] = params
        return code_of(lambda: check_message(data, CONVERTER, types.CompletionRequest))

    good = {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 1, "character": 2}}
    assert check(good) is None
    assert check(None) == -32600
    for line in ("1", 1.0, True, -1, 2**31, None):
        assert check({**good, "position": {"line": line, "character": 0}}) == -32602, line
    assert check({**good, "textDocument": {"uri": 5}}) == -32602


@given(st.integers(), st.integers())
def test_positions_anywhere_in_untyped_params(line, character):
    ok = 0 <= line < 2**31 and 0 <= character < 2**31
    params = {"a": [{"b": {"line": line, "character": character}}]}
    assert code_of(lambda: check_positions(params)) == (None if ok else -32602)


def test_positions_nested_too_deeply_are_refused_not_recursed_into():
    deep: dict = {}
    node = deep
    for _ in range(500):
        node["x"] = {}
        node = node["x"]
    assert code_of(lambda: check_positions(deep)) == -32602


@pytest.mark.parametrize("text, expected", [
    (b'{"jsonrpc": "2.0", "id": 12, "method": "a", "params": {', 12),
    (b'{"jsonrpc":"2.0","id":"r-1","method":', "r-1"),
    (b'{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 4', None),  # a nested id is not the message's
    (b'{"jsonrpc": "2.0", "id": 1.5', None), (b"\xff\xfe", None), (b"", None),
])
def test_recover_id(text, expected):
    assert recover_id(text) == expected


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def warning(self, fmt: str, *args) -> None:
        self.lines.append(fmt % args)


def test_problem_log_writes_one_line_per_kind_per_interval_with_the_count_of_the_rest():
    now = [100.0]
    sink = _Log()
    problems = ProblemLog(sink, interval_s=30.0, clock=lambda: now[0])
    assert problems.report("parse error", "a")
    assert not problems.report("parse error", "b")
    assert problems.report("framing", "c")  # another kind has its own interval
    now[0] += 29.0
    assert not problems.report("parse error", "d")
    now[0] += 1.5
    assert problems.report("parse error", "e")
    assert sink.lines == ["parse error: a", "framing: c", "parse error: e (2 more like it since the last report)"]
