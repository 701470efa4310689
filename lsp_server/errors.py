"""Errors that reach the user as one line, never as a traceback; and `handler_error`, the error a
failing notification handler is reported with."""

import traceback

from pygls.exceptions import JsonRpcInternalError


class UsageError(Exception):
    """Bad command-line input (missing file, position out of range, unreadable config): exit code 2."""


def handler_error(exc: BaseException) -> JsonRpcInternalError:
    """An internal error for `exc` whose traceback lines are plain `file:line in function`.

    Python 3.11's traceback formatter parses each frame's source line with `ast.parse` to place
    its `^^^` markers, and `ast.parse` shares interpreter-wide state: two threads formatting at
    once can raise `SystemError: AST constructor recursion depth mismatch` in place of the error
    being reported. `StackSummary.extract` reads no source, so this never fails that way."""
    frames = traceback.StackSummary.extract(traceback.walk_tb(exc.__traceback__), lookup_lines=False)
    return JsonRpcInternalError(message=f"{type(exc).__name__}: {exc}",
                                data={"traceback": [f"{f.filename}:{f.lineno} in {f.name}" for f in frames]})
