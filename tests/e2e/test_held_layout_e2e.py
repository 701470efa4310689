"""Over stdio, against a llama-server-like fake (`/infill`, warm-ups with `n_predict: 0`): a
document's completions send the same snippets while its held layout holds, and a fresh choice is
sent once a warm-up has prefilled it."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.fakes.wire_servers import WireFake

from .conftest import backend_settings, start_client
from .test_completion_e2e import inline_at, open_doc

NAMES = [f"far_{i:02d}" for i in range(20)]
UTIL = "".join(f"def {name}(x):\n    return x\n\n\n" for name in NAMES)
MAIN = (f"from util import {', '.join(NAMES)}\n\n\ndef first():\n"
        + "".join(f"    {name}(1)\n    {name}(2)\n    {name}(3)\n" for name in NAMES))


def _line_of(text: str) -> int:
    return MAIN[:MAIN.index(text)].count("\n")


def _completions(fake: WireFake) -> list[list[str]]:
    return [_infill_extra(r) for r in fake.generation_requests() if r.body.get("stream") is not False]


def _warm_ups(fake: WireFake) -> list:
    return [r for r in fake.generation_requests() if r.body.get("stream") is False]


async def _wait_for(predicate, tries: int = 100) -> None:
    for _ in range(tries):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


async def test_a_buffer_sends_its_held_snippets_until_a_warm_up_brings_fresh_ones(tmp_path):
    (tmp_path / "util.py").write_text(UTIL)
    with WireFake("llamacpp", reply="pass") as fake:
        settings = backend_settings(fake.url, kind="llamacpp", name="llama")
        settings["cache"] = {"enabled": False}
        lsp = await start_client("vscode", settings, tmp_path)
        lsp.workspace_path = tmp_path
        try:
            uri = open_doc(lsp, MAIN, "main.py")
            first = _line_of(f"    {NAMES[0]}(3)")
            await inline_at(lsp, uri, types.Position(line=first, character=4))
            await _wait_for(lambda: len(_warm_ups(fake)) >= 1)  # the warm-up after the answer
            last = _line_of(f"    {NAMES[-1]}(3)")
            await inline_at(lsp, uri, types.Position(line=last, character=4))
            sent = _completions(fake)
            assert len(sent) == 2 and sent[1] == sent[0]  # the held snippets, not those near `last`
            # the warm-up after the second answer chooses afresh near `last`, and once it is
            # done (its layout is the document's then) the next completion sends that choice
            for _ in range(100):
                stats = await lsp.protocol.send_request_async("arbor/stats", {})
                if stats.anticipation.warmups >= 2:
                    break
                await asyncio.sleep(0.05)
            fresh = _infill_extra(_warm_ups(fake)[-1])  # its last step holds every snippet
            assert fresh != sent[0]
            await inline_at(lsp, uri, types.Position(line=last, character=5))
            assert _completions(fake)[-1] == fresh
        finally:
            await lsp.shutdown_session()
            await lsp.stop()


def _infill_extra(recorded) -> list[str]:
    return [chunk["filename"] + ":" + chunk["text"] for chunk in recorded.body.get("input_extra", [])]
