"""Test doubles for the load test's failure paths (run as a script: `python load_fake_servers.py MODE`).

MODE "error": every inlineCompletion fails with an internal error.
MODE "crash": the process dies (exit code 3) on the third inlineCompletion.
"""

import os
import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "error"
server = LanguageServer("fake", "0")
seen = 0


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION)
def inline_completion(ls, params):
    global seen
    seen += 1
    if MODE == "crash" and seen >= 3:
        os._exit(3)
    raise RuntimeError("fake failure")


if __name__ == "__main__":
    server.start_io()
