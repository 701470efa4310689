"""Checking a decoded JSON-RPC message before any handler sees it.

`check_message(data, converter, message_type)` returns the typed message, or raises
`ProtocolError` carrying the code the client is answered with:
- -32600 InvalidRequest: not an object, no/bad "jsonrpc", a method that is not a string, an id
  that is not an integer or string, params that are not an object or array, or no params for a
  method whose params are required;
- -32602 InvalidParams: params that do not have the method's types (types are checked strictly:
  "3" is not an integer, 3.5 is not one either, true is not a number), positions outside
  0 <= n < 2**31 (any object with "line" and "character", checked before structuring, so custom
  methods' untyped params are covered too).
Error messages name the field and the expected type, never a value (values can be document text).

`strict_converter()` is the converter the server's protocol uses: lsprotocol's own, with int, str,
bool and float structured without coercion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import attrs
import cattrs
from pygls.protocol import default_converter

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
MAX_POSITION = 2**31 - 1  # LSP's uinteger
_MAX_WALK_DEPTH = 64


class ProtocolError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _strict(expected: str, accepts: Callable[[Any], bool]) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _type: Any) -> Any:
        if not accepts(value):
            raise TypeError(f"expected {expected}, got {_json_type(value)}")
        return value
    return structure


def strict_converter() -> cattrs.Converter:
    converter = default_converter()
    converter.register_structure_hook(int, _strict("an integer", lambda v: type(v) is int))
    converter.register_structure_hook(str, _strict("a string", lambda v: type(v) is str))
    converter.register_structure_hook(bool, _strict("a boolean", lambda v: type(v) is bool))
    converter.register_structure_hook(float, _strict("a number", lambda v: type(v) in (int, float)))
    return converter


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def request_id(data: Any) -> int | str | None:
    """The id a reply to `data` should carry: its id when that is a valid one, else None."""
    if isinstance(data, dict):
        msg_id = data.get("id")
        if type(msg_id) in (int, str):
            return msg_id
    return None


def check_envelope(data: Any) -> None:
    """The JSON-RPC shape, whatever the method (see the module docstring)."""
    if not isinstance(data, dict):
        raise ProtocolError(INVALID_REQUEST, f"a message must be a JSON object, not {_json_type(data)}"
                            + (" (LSP has no batches)" if isinstance(data, list) else ""))
    if data.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, 'a message must have "jsonrpc": "2.0"')
    if "id" in data and type(data["id"]) not in (int, str):
        raise ProtocolError(INVALID_REQUEST, f"an id must be an integer or a string, not {_json_type(data['id'])}")
    if "method" in data:
        if type(data["method"]) is not str:
            raise ProtocolError(INVALID_REQUEST, f"a method must be a string, not {_json_type(data['method'])}")
        params = data.get("params")
        if params is not None and not isinstance(params, (dict, list)):
            raise ProtocolError(INVALID_REQUEST, f"params must be an object or an array, not {_json_type(params)}")
    elif "id" not in data:
        raise ProtocolError(INVALID_REQUEST, "a message needs a method (request, notification) or an id (response)")


def params_required(message_type: Any) -> bool:
    if message_type is None or not attrs.has(message_type):
        return False
    field = getattr(attrs.fields(message_type), "params", None)
    return field is not None and field.default is attrs.NOTHING


def check_message(data: dict[str, Any], converter: cattrs.Converter, message_type: Any) -> Any:
    """A request or notification (envelope already checked) as `message_type`; untyped methods
    (`message_type` None) come back as `data` itself, their positions checked."""
    method = data["method"]
    if data.get("params") is None and params_required(message_type):
        raise ProtocolError(INVALID_REQUEST, f"{method} needs params")
    check_positions(data.get("params"))
    if message_type is None:
        return data
    try:
        return converter.structure(data, message_type)
    except cattrs.BaseValidationError as exc:
        raise ProtocolError(INVALID_PARAMS, f"invalid params for {method}: {_describe(exc)}") from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise ProtocolError(INVALID_PARAMS, f"invalid params for {method}: {type(exc).__name__}") from None


def _describe(exc: cattrs.BaseValidationError) -> str:
    try:
        problems = cattrs.transform_error(exc, path="$")
    except Exception:
        return "wrong types"
    shown = "; ".join(p.replace("$.params", "params") for p in problems[:3])
    return shown + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")


def check_positions(value: Any, depth: int = 0) -> None:
    """Every object with "line" and "character" keys holds two integers in 0..2**31-1."""
    if depth > _MAX_WALK_DEPTH:
        raise ProtocolError(INVALID_PARAMS, "params are nested too deeply")
    if isinstance(value, dict):
        if "line" in value and "character" in value:
            for key in ("line", "character"):
                n = value[key]
                if type(n) is not int or not 0 <= n <= MAX_POSITION:
                    raise ProtocolError(INVALID_PARAMS, f"a position's {key} must be an integer from 0 to "
                                                        f"{MAX_POSITION}, got {_json_type(n)}"
                                                        + (f" {n}" if type(n) is int else ""))
        for item in value.values():
            if isinstance(item, (dict, list)):
                check_positions(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                check_positions(item, depth + 1)


class ProblemLog:
    """Logs malformed input one line per kind at most every `interval_s` (the first at once),
    with the number of like problems since the last line; never a traceback."""

    def __init__(self, logger: Any, interval_s: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._logger = logger
        self._interval_s = interval_s
        self._clock = clock
        self._last: dict[str, float] = {}
        self._quiet: dict[str, int] = {}

    def report(self, kind: str, message: str) -> bool:
        """Log (or count) one problem; True when a line was written."""
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < self._interval_s:
            self._quiet[kind] = self._quiet.get(kind, 0) + 1
            return False
        quiet = self._quiet.pop(kind, 0)
        self._last[kind] = now
        more = f" ({quiet} more like it since the last report)" if quiet else ""
        self._logger.warning("%s: %s%s", kind, message[:300], more)
        return True
