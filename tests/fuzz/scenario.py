"""Fuzz scenarios: hypothesis strategies for a session's messages, and `run_scenario`, which plays
one session against an in-process server and reports what the properties forbid.

An operation is a tuple whose first item names it; choices that depend on the session's state
(which open document, where in its text) are drawn as plain numbers and resolved against the
client model when played, so hypothesis can shrink them. Every method the server implements is
covered: document sync, both completion methods, `$/cancelRequest`, `arbor/stats`,
`arbor/context`, `arbor/documents`, the `arbor/shown|accepted|rejected` notifications, watched
files, workspace folders and configuration changes, `shutdown`; plus unknown methods and
malformed frames, envelopes, params and positions.

Properties (`Report`): every request answered within `bound_s`; no internal error, popup or
exception escaping into the event loop; the server's documents (`arbor/documents`) equal the
model's at every check and at the end; the message loop alive until the session ends.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from .harness import InProcessServer, frame
from .model import ClientModel, position_of, through_json, valid_offsets

URIS = ["file:///fuzz/ws/a.py", "file:///fuzz/ws/b.ts", "file:///fuzz/ws/deep/c.rs", "untitled:Untitled-1",
        "vscode-notebook-cell:/fuzz/ws/nb.ipynb#W0sZmlsZQ%3D%3D", "git:/fuzz/ws/a.py?%7B%22ref%22%3A%22~%22%7D",
        "file:///elsewhere/outside.go", "file:///fuzz/ws/sp%20ace/%C3%BC.py", "weird-scheme:%00x", "", "relative/x.py"]
FOLDERS = ["file:///fuzz/ws", "file:///fuzz/other%20ws", "untitled:folder"]
LANGUAGES = ["python", "typescript", "rust", "go", "plaintext", "", "made-up"]
_PIECES = ["def f(x):\n    return x\n", "class A:\n  pass\r\n", "import os\n", "\r", "\n", "\r\n", "\t", " ",
           "(", ")", "{", "}", "\0", "\ud800", "\udfff", "\U0001F600", "é", "\u2028", "x", "=", "# c\n", "'''"]
texts = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=12).map("".join)
pathological = st.builds(lambda ch, n: ch * n, st.sampled_from(["(", "[", "{", "a", "\n", "\ud800"]),
                         st.integers(1000, 6000))
positions = st.one_of(
    st.tuples(st.just("valid"), st.floats(0, 1)),
    st.tuples(st.just("past_end"), st.integers(0, 3), st.integers(0, 5)),
    st.tuples(st.just("raw"), st.one_of(st.integers(-3, 3), st.integers(2**31 - 2, 2**31 + 1), st.just("1"),
                                        st.just(1.5), st.none(), st.booleans(), st.just([])),
              st.one_of(st.integers(-2, 2), st.just(2**31), st.just("0"))),
)
edits = st.tuples(st.floats(0, 1), st.floats(0, 1), texts, st.sampled_from(["ok", "ok", "ok", "past_line", "past_col", "reversed"]))
junk = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=6)
_METHODS = ["textDocument/inlineCompletion", "textDocument/completion", "arbor/stats", "arbor/context",
            "arbor/documents", "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose",
            "arbor/shown", "arbor/accepted", "arbor/rejected", "workspace/didChangeWatchedFiles",
            "workspace/didChangeConfiguration", "$/cancelRequest", "no/such/method", "initialize"]

uri_ix = st.integers(0, len(URIS) - 1)
operations = st.one_of(
    st.tuples(st.just("open"), uri_ix, st.one_of(texts, texts, texts, pathological), st.sampled_from(LANGUAGES), st.integers(-2, 5)),
    st.tuples(st.just("change"), st.integers(0, 20), st.integers(-3, 3), st.lists(edits, min_size=1, max_size=3)),
    st.tuples(st.just("replace"), st.integers(0, 20), st.integers(-1, 2), texts),
    st.tuples(st.just("close"), st.integers(0, 20)),
    st.tuples(st.just("complete"), st.integers(0, 20), st.sampled_from(["inline", "completion"]), positions),
    st.tuples(st.just("cancel"), st.integers(0, 5)),
    st.tuples(st.just("custom"), st.sampled_from(["arbor/stats", "arbor/context", "arbor/documents"])),
    st.tuples(st.just("feedback"), st.sampled_from(["arbor/shown", "arbor/accepted", "arbor/rejected"]), st.integers(0, 20), junk),
    st.tuples(st.just("watched"), st.lists(st.tuples(uri_ix, st.integers(1, 3)), max_size=3)),
    st.tuples(st.just("folders"), uri_ix),
    st.tuples(st.just("configure"), junk),
    st.tuples(st.just("wrong_params"), st.sampled_from(_METHODS), junk, st.booleans()),
    st.tuples(st.just("raw"), st.sampled_from(["not_json", "truncated", "array", "scalar", "bad_id", "no_jsonrpc",
                                                "method_number", "garbage", "short_length", "long_length", "deep"])),
    st.tuples(st.just("check")),
    st.tuples(st.just("pause"), st.integers(0, 3)),
)
sessions = st.tuples(st.sampled_from(["utf-16", "utf-8"]), st.lists(operations, max_size=14))


@dataclass
class Report:
    requests: int = 0
    unanswered: list[Any] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    divergences: list[str] = field(default_factory=list)
    max_latency_s: float = 0.0
    max_quick_latency_s: float = 0.0  # arbor/documents and arbor/stats: answered without any model work
    died: bool = False

    def ok(self) -> bool:
        return not (self.unanswered or self.crashes or self.divergences or self.died)


class _Session:
    def __init__(self, ls: InProcessServer, model: ClientModel, bound_s: float, report: Report) -> None:
        self.ls, self.model, self.bound_s, self.report = ls, model, bound_s, report
        self.pending: list[int] = []

    def open_uri(self, n: int) -> str | None:
        uris = sorted(self.model.documents)
        return uris[n % len(uris)] if uris else None

    def any_uri(self, n: int) -> str:
        uris = sorted(set(self.model.documents) | set(URIS))
        return uris[n % len(uris)]

    def position(self, uri: str, spec: tuple) -> dict[str, Any]:
        doc = self.model.documents.get(uri)
        text = doc.text if doc else ""
        if spec[0] == "valid":
            offsets = valid_offsets(text)
            line, character = position_of(text, offsets[min(len(offsets) - 1, int(spec[1] * len(offsets)))], self.model.encoding)
        elif spec[0] == "past_end":
            last = len(text.splitlines()) if text else 0
            line, character = last + spec[1], spec[2] + 10_000
        else:
            line, character = spec[1], spec[2]
        return {"line": line, "character": character}

    def edit_range(self, text: str, a: float, b: float, how: str) -> dict[str, Any]:
        offsets = valid_offsets(text)
        i, j = sorted((offsets[min(len(offsets) - 1, int(a * len(offsets)))], offsets[min(len(offsets) - 1, int(b * len(offsets)))]))
        (sl, sc), (el, ec) = position_of(text, i, self.model.encoding), position_of(text, j, self.model.encoding)
        if how == "past_line":
            el, ec = el + 3, 0
        elif how == "past_col":
            ec += 50
        elif how == "reversed" and (sl, sc) != (el, ec):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}

    def request(self, method: str, params: Any) -> int:
        msg_id = self.ls.request(method, params)
        self.report.requests += 1
        self.pending.append(msg_id)
        return msg_id

    async def check(self) -> None:
        msg_id = self.request("arbor/documents", {})
        answer = await self.ls.answer(msg_id, self.bound_s)
        if answer is None:
            return
        got = (answer.get("result") or {}).get("documents")
        want = self.model.expected_state()
        if got != want:
            self.report.divergences.append(f"server {json.dumps(got)[:300]} != client {json.dumps(want)[:300]}")

    async def play(self, op: tuple) -> None:
        kind, ls = op[0], self.ls
        if kind == "open":
            uri, version = URIS[op[1]], op[4]
            ls.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": op[3], "version": version, "text": op[2]}})
            self.model.opened(uri, op[2], version)
        elif kind == "change" and (uri := self.open_uri(op[1])) is not None:
            doc = self.model.documents[uri]
            version, text, changes = doc.version + op[2], doc.text, []
            for a, b, new, how in op[3]:
                changes.append({"range": self.edit_range(text, a, b, how), "text": new})
                scratch = ClientModel(self.model.encoding, {uri: type(doc)(text, 0)})
                scratch.changed(uri, 0, changes[-1:])
                text = scratch.documents[uri].text
            ls.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})
            self.model.changed(uri, version, changes)
        elif kind == "replace" and (uri := self.open_uri(op[1])) is not None:
            version = self.model.documents[uri].version + op[2]
            changes = [{"text": op[3]}]
            ls.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})
            self.model.changed(uri, version, changes)
        elif kind == "close":
            uri = self.any_uri(op[1])
            ls.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            self.model.closed(uri)
        elif kind == "complete":
            uri = self.any_uri(op[1])
            method = "textDocument/inlineCompletion" if op[2] == "inline" else "textDocument/completion"
            params: dict[str, Any] = {"textDocument": {"uri": uri}, "position": self.position(uri, op[3])}
            if op[2] == "inline":
                params["context"] = {"triggerKind": 2}
            self.request(method, params)
        elif kind == "cancel" and self.pending:
            ls.notify("$/cancelRequest", {"id": self.pending[-1 - op[1] % len(self.pending)]})
        elif kind == "custom":
            self.request(op[1], None if op[1] != "arbor/documents" else {"uris": sorted(self.model.documents)})
        elif kind == "feedback":
            params = op[3] if isinstance(op[3], dict) else {"uri": self.any_uri(op[2]), "value": op[3]}
            ls.notify(op[1], params)
        elif kind == "watched":
            changes = [{"uri": URIS[i], "type": t} for i, t in op[1]]
            ls.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        elif kind == "folders":  # folders that do not exist (a real one would be scanned)
            ls.notify("workspace/didChangeWorkspaceFolders",
                      {"event": {"added": [{"uri": FOLDERS[op[1] % len(FOLDERS)], "name": "x"}], "removed": []}})
        elif kind == "configure":
            ls.notify("workspace/didChangeConfiguration", {"settings": {"completion": op[1]}})
        elif kind == "wrong_params":
            self._wrong_params(op[1], op[2], op[3])
        elif kind == "raw":
            self._raw(op[1])
        elif kind == "check":
            await self.check()
        elif kind == "pause":
            for _ in range(op[1] * 3):
                await asyncio.sleep(0)

    def _wrong_params(self, method: str, params: Any, as_request: bool) -> None:
        if method in ("initialize", "workspace/didChangeConfiguration") or method.startswith("textDocument/did"):
            as_request = True  # as notifications these could change state the model does not follow
        if as_request:
            msg_id = self.ls.new_id()
            self.ls.expect(msg_id)
            self.report.requests += 1
            self.ls.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        else:
            self.ls.notify(method, params)

    def _raw(self, kind: str) -> None:
        ls = self.ls
        msg_id = ls.new_id()
        stats = {"jsonrpc": "2.0", "id": msg_id, "method": "arbor/stats"}
        body = json.dumps(stats).encode()
        data = {
            "not_json": frame(body=b'{"jsonrpc": "2.0", "id": %d, "method": arbor}' % msg_id),
            "truncated": frame(body=body[:-7]),
            "array": frame([stats]),
            "scalar": frame(body=b"42"),
            "bad_id": frame({"jsonrpc": "2.0", "id": {"x": 1}, "method": "arbor/stats"}),
            "no_jsonrpc": frame({"id": msg_id, "method": "arbor/stats"}),
            "method_number": frame({"jsonrpc": "2.0", "id": msg_id, "method": 7}),
            "garbage": b"\x00\xffnot a header\r\n\r\n",
            "short_length": frame(stats, length=len(body) - 9),
            "long_length": frame(stats, length=len(body) + 25),
            "deep": frame(body=b'{"jsonrpc": "2.0", "id": %d, "method": "arbor/stats", "params": ' % msg_id
                          + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        }[kind]
        answered = kind not in ("array", "scalar", "bad_id", "garbage")  # those have no id to answer
        if answered:
            ls.expect(msg_id)
            self.report.requests += 1
        ls.write(data)
        if kind == "long_length":  # the missing bytes arrive as the next (valid) request
            self.request("arbor/stats", None)


_QUICK = ("arbor/documents", "arbor/stats")


class FuzzRunner:
    """Plays sessions on long-lived in-process servers (one per position encoding, replaced every
    `sessions_per_server` sessions, so initialize and shutdown are exercised too). A session
    starts from no open documents and the base settings, and ends with a documents check."""

    def __init__(self, settings: dict[str, Any], root_uri: str, *, bound_s: float = 5.0,
                 sessions_per_server: int = 200) -> None:
        self.settings, self.root_uri, self.bound_s = settings, root_uri, bound_s
        self.sessions_per_server = sessions_per_server
        self._servers: dict[str, tuple[InProcessServer, ClientModel]] = {}
        self._played: dict[str, int] = {}
        self.closing_problems: list[str] = []

    async def _server(self, encoding: str, report: Report) -> tuple[InProcessServer, ClientModel]:
        if encoding in self._servers and self._played[encoding] >= self.sessions_per_server:
            await self._retire(encoding)
        if encoding not in self._servers:
            ls = InProcessServer()
            init = ls.request("initialize", {"processId": None, "rootUri": self.root_uri,
                                             "initializationOptions": self.settings,
                                             "capabilities": {"general": {"positionEncodings": [encoding]}}})
            report.requests += 1
            await ls.answer(init, self.bound_s)
            ls.notify("initialized", {})
            self._servers[encoding], self._played[encoding] = (ls, ClientModel(encoding)), 0
        return self._servers[encoding]

    async def _retire(self, encoding: str) -> None:
        ls, _ = self._servers.pop(encoding)
        await ls.close(self.bound_s)
        left = ls.unanswered()
        self.closing_problems += ls.problems + ([f"unanswered at shutdown: {left}"] if left else [])

    async def session(self, encoding: str, ops: list[tuple]) -> Report:
        report = Report()
        ls, model = await self._server(encoding, report)
        self._played[encoding] += 1
        seen_problems = len(ls.problems)
        for uri in list(model.documents):
            ls.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            model.closed(uri)
        if any(op[0] == "configure" for op in ops):
            ls.notify("workspace/didChangeConfiguration", {"settings": self.settings})
        session = _Session(ls, model, self.bound_s, report)
        sent_before = set(ls.answers) | set(ls.unanswered())
        for op in ops:
            await session.play(op)
            if not ls.alive():
                report.died = True
                break
        await session.check()
        await ls.settle(self.bound_s)
        report.unanswered = [i for i in ls.unanswered() if i not in sent_before]
        mine = [i for i in ls.latency_s if i not in sent_before]
        report.max_latency_s = max((ls.latency_s[i] for i in mine), default=0.0)
        report.max_quick_latency_s = max((ls.latency_s[i] for i in mine if ls.methods.get(i) in _QUICK), default=0.0)
        report.died = report.died or not ls.alive()
        report.crashes = ls.problems[seen_problems:]
        if report.died or report.unanswered:
            await self._retire(encoding)  # the next session starts on a fresh server
        return report

    async def aclose(self) -> None:
        for encoding in list(self._servers):
            await self._retire(encoding)
