"""The load scenarios. Each takes one initialized `LspClient` and returns a `ScenarioRecord`.

Every scenario opens its own documents, warms up (a few unmeasured completions, so one-off costs
such as the first parse of a file are not counted), measures for `duration_s`, waits for every
answer, and closes its documents again; the server is left as it was found.

- single_file: one person types a real file at `rate_cps`, completion at each pause.
- reference_chain: before each completion in C (or B) the definition in A that B uses changes.
- multi_document: one person types in several files, switching file at each pause.
- concurrent_clients: `concurrency` people type the same text in their own documents in lock-step,
  so that their completion requests overlap (N concurrent requests at each pause).
- typing_throughput: the typing trace sent as fast as the server answers, at most `window`
  completions in flight: the sustained messages/s of one server process.
- soak (only when named): closed-loop didChange + inlineCompletion pairs for a long time, for
  memory growth.
- concurrency_sweep (not a scenario of its own): closed-loop typists at rising concurrency, each
  sending a didChange + inlineCompletion pair per keystroke and waiting for the answer, for the
  throughput-versus-concurrency plot.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from indexer import languages

from .jsonrpc_client import LspClient
from .stats import ScenarioRecord, find_knee, summarize
from .traces import definition_start_line, typing_trace
from .typist import OpenDocument, Typist
from .workspace import BenchWorkspace, language_id, read_text

SCENARIOS = ("single_file", "reference_chain", "multi_document", "concurrent_clients", "typing_throughput")
EXTRA_SCENARIOS = ("soak",)  # run only when named: long by design
WARMUP_PAUSES = 3


@dataclass(slots=True, kw_only=True)
class LoadOptions:
    duration_s: float = 8.0
    rate_cps: float = 40.0
    concurrency: int = 5
    documents: int = 4
    window: int = 4
    sweep_levels: tuple[int, ...] = (1, 2, 4, 8, 16)
    sweep_duration_s: float = 3.0
    request_timeout_s: float = 10.0
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.duration_s <= 0 or self.rate_cps <= 0 or self.sweep_duration_s <= 0:
            raise ValueError("durations and the typing rate must be positive")
        if self.concurrency < 1 or self.window < 1 or self.documents < 1:
            raise ValueError("concurrency, window and documents must be at least 1")


async def barrier(client: LspClient, timeout: float = 120.0) -> None:
    """Wait until the server has read everything sent so far: any answer to a request it does not
    know (pygls answers MethodNotFound) proves it got this far."""
    await client.request("arborBench/barrier", None, timeout)


def virtual_path(ws: BenchWorkspace, path: Path, index: int) -> Path:
    """The i-th typist's document for `path`: the file itself for 0, else an unsaved buffer under
    `<root>/.arbor-bench/client<i>/` that holds the same text (never written to disk)."""
    if index == 0:
        return path
    return ws.root / ".arbor-bench" / f"client{index}" / path.relative_to(ws.root)


def parse_check(path: Path) -> Callable[[str], bool] | None:
    """Whether a text in `path`'s language parses without syntax errors (None: no grammar)."""
    lang = languages.language_for_path(str(path))
    if lang is None:
        return None
    return lambda text: not languages.has_error(languages.parse(lang, text.encode("utf-8", "surrogatepass")))


def make_typist(client: LspClient, ws: BenchWorkspace, path: Path, record: ScenarioRecord, opts: LoadOptions,
                *, index: int = 0, cancel_stale: bool = True, every_keystroke: bool = False,
                max_chars: int | None = None) -> Typist:
    text = read_text(path)
    chars = max_chars if max_chars is not None else int(opts.rate_cps * opts.duration_s) + 200
    trace = typing_trace(text, definition_start_line(text), chars, parse_check(path))
    return Typist(client, virtual_path(ws, path, index), trace, language_id(path), record,
                  cancel_stale=cancel_stale, every_keystroke=every_keystroke,
                  request_timeout_s=opts.request_timeout_s)


async def warm_up(client: LspClient, typists: list[Typist]) -> None:
    """Open the documents and type each until WARMUP_PAUSES completions came back, unmeasured."""
    for typist in typists:
        typist.open()
    await barrier(client)
    for typist in typists:
        measured, typist.record = typist.record, ScenarioRecord()
        pauses = 0
        while pauses < WARMUP_PAUSES:
            pending = typist.keystroke()
            if pending is not None:
                pauses += 1
                await client.drain()
                await pending.future
        await typist.settle()
        typist.record = measured


async def paced(duration_s: float, interval_s: float, tick: Callable[[int], None], client: LspClient) -> None:
    """Call tick(k) at start + k * interval until `duration_s` is over (no drift accumulates)."""
    start = time.perf_counter()
    k = 0
    while k * interval_s < duration_s and not client.exited:
        delay = start + k * interval_s - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tick(k)
        await client.drain()
        k += 1


async def finish(client: LspClient, typists: list[Typist], record: ScenarioRecord, start: float) -> ScenarioRecord:
    for typist in typists:
        await typist.settle()
    record.elapsed_s = time.perf_counter() - start
    for typist in typists:
        typist.close()
    await barrier(client)
    if client.exited:
        record.error(f"server exited: {client.stderr_tail(400)}")
    return record


async def single_file(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> ScenarioRecord:
    record = ScenarioRecord()
    typist = make_typist(client, ws, ws.typing_files[0], record, opts)
    await warm_up(client, [typist])
    start = time.perf_counter()
    await paced(opts.duration_s, 1 / opts.rate_cps, lambda k: typist.keystroke(), client)
    return await finish(client, [typist], record, start)


async def reference_chain(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> ScenarioRecord:
    record = ScenarioRecord()
    if ws.chain is None:
        record.error("no reference chain in this workspace")
        return record
    chain = ws.chain
    definer = OpenDocument(client, chain.files[0], language_id(chain.files[0]))
    definer.open(read_text(chain.files[0]))
    users = [make_typist(client, ws, path, record, opts) for path in (chain.files[2], chain.files[1])]
    await warm_up(client, users)
    edits = 0

    def change_definition() -> float:
        nonlocal edits
        sent_at = definer.change([chain.definition_edit(edits)])
        edits += 1
        record.messages += 1
        return sent_at

    turn = 0

    def tick(_: int) -> None:
        nonlocal turn
        if users[turn].keystroke(prelude=change_definition) is not None:
            turn = 1 - turn

    start = time.perf_counter()
    await paced(opts.duration_s, 1 / opts.rate_cps, tick, client)
    result = await finish(client, users, record, start)
    if edits % 2:  # leave A as it is on disk
        definer.change([chain.definition_edit(edits)])
    definer.close()
    await barrier(client)
    return result


async def multi_document(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> ScenarioRecord:
    record = ScenarioRecord()
    files = ws.typing_files[: opts.documents]
    typists = [make_typist(client, ws, path, record, opts) for path in files]
    await warm_up(client, typists)
    turn = 0

    def tick(_: int) -> None:
        nonlocal turn
        if typists[turn].keystroke() is not None:
            turn = (turn + 1) % len(typists)

    start = time.perf_counter()
    await paced(opts.duration_s, 1 / opts.rate_cps, tick, client)
    return await finish(client, typists, record, start)


async def concurrent_clients(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> ScenarioRecord:
    record = ScenarioRecord()
    path = ws.typing_files[0]
    typists = [make_typist(client, ws, path, record, opts, index=i) for i in range(opts.concurrency)]
    await warm_up(client, typists)

    def tick(_: int) -> None:
        for typist in typists:
            typist.keystroke()

    start = time.perf_counter()
    await paced(opts.duration_s, 1 / opts.rate_cps, tick, client)
    return await finish(client, typists, record, start)


async def typing_throughput(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> ScenarioRecord:
    record = ScenarioRecord()
    typist = make_typist(client, ws, ws.typing_files[0], record, opts, cancel_stale=False, max_chars=20_000)
    await warm_up(client, [typist])
    in_flight: deque = deque()
    start = time.perf_counter()
    deadline = start + opts.duration_s
    sent = 0
    while time.perf_counter() < deadline and not client.exited:
        pending = typist.keystroke()
        sent += 1
        if pending is not None:
            in_flight.append(pending.future)
            while len(in_flight) >= opts.window:
                await client.drain()
                await in_flight.popleft()
        elif sent % 32 == 0:
            await client.drain()
            await asyncio.sleep(0)
    return await finish(client, [typist], record, start)


async def closed_loop(client: LspClient, ws: BenchWorkspace, opts: LoadOptions, typists_count: int,
                      duration_s: float, max_chars: int = 20_000) -> ScenarioRecord:
    """`typists_count` typists, each sending its next didChange + inlineCompletion pair as soon as
    the previous completion came back, for `duration_s`; each re-types `max_chars` characters
    of the file, undoes them and starts over."""
    record = ScenarioRecord()
    path = ws.typing_files[0]
    typists = [make_typist(client, ws, path, record, opts, index=i, every_keystroke=True, max_chars=max_chars)
               for i in range(typists_count)]
    await warm_up(client, typists)
    start = time.perf_counter()
    deadline = start + duration_s

    async def loop(typist: Typist) -> None:
        while time.perf_counter() < deadline and not client.exited:
            pending = typist.keystroke()
            await client.drain()
            await pending.future

    await asyncio.gather(*(loop(t) for t in typists))
    return await finish(client, typists, record, start)


async def closed_loop_level(client: LspClient, ws: BenchWorkspace, opts: LoadOptions, level: int) -> ScenarioRecord:
    """One level of the concurrency sweep: `level` closed-loop typists for `sweep_duration_s`."""
    return await closed_loop(client, ws, opts, level, opts.sweep_duration_s)


SOAK_CYCLE_CHARS = 2_000


async def soak(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> ScenarioRecord:
    """`concurrency` closed-loop typists for `duration_s`: the long run whose memory growth the
    report tracks (RSS is sampled throughout). Each typist repeats a cycle of SOAK_CYCLE_CHARS
    characters (type, undo, again): the documents stop growing after the first cycle, so growth
    measured after the warm-up is the server's own. (With a 20,000-character cycle the buffers
    grew for the first ~160 s at 250 completions/s, and RSS with them, before levelling off.)"""
    return await closed_loop(client, ws, opts, opts.concurrency, opts.duration_s, max_chars=SOAK_CYCLE_CHARS)


async def concurrency_sweep(client: LspClient, ws: BenchWorkspace, opts: LoadOptions) -> dict:
    levels = sorted(set(opts.sweep_levels) | {opts.concurrency})
    rows = []
    for level in levels:
        summary = summarize(await closed_loop_level(client, ws, opts, level))
        rows.append({"concurrency": level, **summary})
        if client.exited:
            break
    knee = find_knee([r["concurrency"] for r in rows], [r["messages_per_s"] or 0.0 for r in rows])
    return {"levels": rows, "knee_concurrency": knee}


RUNNERS: dict[str, Callable[[LspClient, BenchWorkspace, LoadOptions], Awaitable[ScenarioRecord]]] = {
    "single_file": single_file,
    "reference_chain": reference_chain,
    "multi_document": multi_document,
    "concurrent_clients": concurrent_clients,
    "typing_throughput": typing_throughput,
    "soak": soak,
}
