"""Privacy end to end: a workspace of planted secrets, the real server over stdio at debug level,
a recording fake backend. None of the planted values may appear in any request body, any
`arbor/context` reply, `arbor/stats`, any file under the index snapshot or completion cache
directories, or any line the server logged."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path

from lsprotocol import types

from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import backend_settings, start_client
from .test_completion_e2e import inline_at

API_KEY = "sk-live-9Rk2Lm4Np6Qr8St0Uv2Wx4Yz"
DB_PASSWORD = "pl4nted-db-Pass"
ENV_VALUE = "env-planted-Zq81"  # not secret-looking: only the denylist keeps it out
KEY_BODY = "MIIEowIBAAKCAQEAplantedKEYbody0123456789abcdefABCDEF"
GITHUB_TOKEN = "ghp_plantedTOKEN0123456789abcdefghijklmn"
OUTSIDE_MARKER = "outside-body-planted-77"  # plain text: only the workspace boundary keeps it out
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiPLANTEDKEY"
DENIED_MARKER = "denied-body-planted-42"  # in secrets.py, plain text: only the denylist keeps it out
PLANTED = (API_KEY, DB_PASSWORD, ENV_VALUE, KEY_BODY, GITHUB_TOKEN, OUTSIDE_MARKER, AWS_SECRET, DENIED_MARKER,
           "root:x:0:0")

CONFIG = f'''API_KEY = "{API_KEY}"
DATABASE_URL = "postgres://app:{DB_PASSWORD}@db.internal:5432/prod"


def connect(url, key):
    """Open a connection to the database at `url`."""
    return (url, key)
'''
KEYS = f'''DEPLOY_KEY = """-----BEGIN RSA PRIVATE KEY-----
{KEY_BODY}
{KEY_BODY[::-1]}
-----END RSA PRIVATE KEY-----
"""


def load_key():
    return DEPLOY_KEY
'''
MAIN = f'''from config import API_KEY, DATABASE_URL, connect
from keys import DEPLOY_KEY, load_key
from linked import helper_out
from secrets import helper_denied

GITHUB_TOKEN = "{GITHUB_TOKEN}"


def run():
    conn = connect(DATABASE_URL, API_KEY)
    key = load_key()
    helper_out()
    helper_denied()
    return '''


def plant(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / ".env").write_text(f"FAVORITE={ENV_VALUE}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\n")
    (root / "config.py").write_text(CONFIG)
    (root / "keys.py").write_text(KEYS)
    (root / "main.py").write_text(MAIN)
    (root / "secrets.py").write_text(f"def helper_denied():\n    return '{DENIED_MARKER}'\n")
    (outside / "elsewhere.py").write_text(f"def helper_out():\n    return '{OUTSIDE_MARKER}', '{AWS_SECRET}'\n")
    os.symlink(outside / "elsewhere.py", root / "linked.py")
    os.symlink("/etc/passwd", root / "passwd.py")
    return root, outside


def plain(value):
    """pygls's reply objects as plain JSON data."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


async def request(lsp, method: str):
    return plain(await lsp.protocol.send_request_async(method, {}))


def open_doc(lsp, path: Path, text: str, language: str = "python") -> None:
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id=language, version=1, text=text)))


def end_of(text: str) -> types.Position:
    lines = text.split("\n")
    return types.Position(line=len(lines) - 1, character=len(lines[-1]))


async def wait_for_index(lsp, files: int, timeout: float = 30.0) -> dict:
    stats: dict = {}
    for _ in range(int(timeout / 0.1)):
        stats = await request(lsp, "arbor/stats")
        if (stats.get("index") or {}).get("files", 0) >= files:
            return stats
        await asyncio.sleep(0.1)
    raise AssertionError(f"the index never reached {files} files: {stats.get('index')}")


def files_under(*dirs: Path) -> dict[str, bytes]:
    found = {}
    for d in dirs:
        for path in d.rglob("*"):
            if path.is_file() and not path.is_symlink():
                found[str(path)] = path.read_bytes()
    return found


async def test_planted_secrets_reach_no_request_reply_cache_index_or_log(tmp_path, capfd):
    root, outside = plant(tmp_path)
    cache_dir = tmp_path / "completions-cache"
    with FakeOpenAIServer("x = 1", chunk_size=3) as backend:
        settings = backend_settings(backend.url)
        settings["cache"] = {"diskDir": str(cache_dir)}
        settings["logLevel"] = "debug"
        settings["logFile"] = str(tmp_path / "logs" / "server.jsonl")
        settings["index"] = {"workers": 1}
        lsp = await start_client("neovim", settings, root)
        await wait_for_index(lsp, 3)  # main, config, keys: not secrets.py, linked.py, passwd.py or .env

        replies = []
        for name, text in [("main.py", MAIN), ("config.py", CONFIG), ("keys.py", KEYS)]:
            open_doc(lsp, root / name, text)
            before = len(backend.requests)
            result = await inline_at(lsp, (root / name).as_uri(), end_of(text))
            assert [i.insert_text for i in result.items] == ["x = 1"], name
            assert len(backend.requests) == before + 1, name
            replies.append(await request(lsp, "arbor/context"))

        # a denied file open in the editor gets no completion and sends nothing
        env_text = (root / ".env").read_text()
        open_doc(lsp, root / ".env", env_text, "dotenv")
        before = len(backend.requests)
        result = await inline_at(lsp, (root / ".env").as_uri(), end_of(env_text))
        assert list(result.items) == [] and len(backend.requests) == before

        stats = await request(lsp, "arbor/stats")
        await lsp.shutdown_session()
        await lsp.stop()

    bodies = json.dumps(backend.requests)
    # the prompts did carry the other files' code, with the secrets masked in place
    prompts = "\n".join(str(body.get("prompt", "")) for body in backend.requests)
    assert "def connect(url, key)" in prompts and 'API_KEY = "***' in prompts
    assert "postgres://***" in prompts and "-----BEGIN RSA PRIVATE KEY-----\n***" in prompts
    privacy = stats["privacy"]
    assert privacy["redactions"] >= 4 and privacy["deniedCompletions"] == 1
    assert privacy["outsideWorkspace"] >= 2 and privacy["deniedFiles"] >= 1
    assert stats["index"]["files"] == 3, stats["index"]
    assert stats["stageLatencyMs"]["total"]["count"] >= 3 and "backend" in stats["stageLatencyMs"]

    log = capfd.readouterr().err
    assert "Sending data" in log  # the logLevel setting took effect: pygls's lines show at debug only
    json_lines = [json.loads(line) for line in (tmp_path / "logs" / "server.jsonl").read_text().splitlines()]
    assert any(line["level"] == "debug" for line in json_lines)
    stored = files_under(cache_dir, tmp_path / "ws-cache", tmp_path / "logs")
    assert stored, "the completion cache and the index snapshot wrote nothing"
    surfaces = {"request bodies": bodies, "arbor/context": json.dumps(replies),
                "arbor/stats": json.dumps(stats), "log": log}
    for planted in PLANTED:
        for surface, text in surfaces.items():
            assert planted not in text, f"{planted!r} in {surface}"
        for path, data in stored.items():
            assert planted.encode() not in data, f"{planted!r} in {path}"


class EchoingBackend:
    """A loopback model server that fails every request with a body echoing the request's headers,
    as some proxies and servers do."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        import threading

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length", 0)))
                body = json.dumps({"error": {"message": f"unauthorized; you sent {dict(self.headers)}"}}).encode()
                self.send_response(401)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, userinfo: str = "") -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{userinfo + '@' if userinfo else ''}{host}:{port}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


async def test_api_keys_and_url_userinfo_stay_out_of_stats_status_and_logs(tmp_path, capfd, monkeypatch):
    key, url_password = "plain-key-Planted-4242", "urlpass-planted-99"
    monkeypatch.setenv("ARBOR_TEST_KEY", key)
    backend = EchoingBackend()
    try:
        # the first backend's URL carries userinfo (httpx sends it as Basic auth), the second
        # reads its key from the environment (a Bearer header); both error bodies echo the header
        settings = backend_settings(backend.url(f"bob:{url_password}"))
        settings["backends"].append({**settings["backends"][0], "name": "keyed", "url": backend.url(),
                                     "apiKeyEnv": "ARBOR_TEST_KEY"})
        settings["logLevel"] = "debug"
        settings["breaker"] = {"minRequests": 1}
        lsp = await start_client("neovim", settings, tmp_path)
        statuses: list = []
        lsp.feature("arbor/status")(lambda params: statuses.append(plain(params)))
        path = tmp_path / "a.py"
        text = "def add(a, b):\n    "
        path.write_text(text)
        open_doc(lsp, path, text)
        for _ in range(3):
            result = await inline_at(lsp, path.as_uri(), end_of(text))
            assert list(result.items) == []
        stats = await request(lsp, "arbor/stats")
        messages = [m.message for m in lsp.messages]
        await lsp.shutdown_session()
        await lsp.stop()
    finally:
        backend.stop()
    log = capfd.readouterr().err
    assert "HTTP 401" in log and any(s.get("state") == "error" for s in statuses), statuses
    surfaces = {"arbor/stats": json.dumps(stats), "arbor/status": json.dumps(statuses),
                "window/showMessage": json.dumps(messages), "log": log}
    basic = base64.b64encode(f"bob:{url_password}".encode()).decode()
    assert log.count("HTTP 401") >= 2
    for planted in (key, url_password, "bob:", basic):
        for surface, value in surfaces.items():
            assert planted not in value, f"{planted!r} in {surface}"


async def test_warnings_reach_the_client_log_scrubbed_and_rate_limited(tmp_path):
    key = "plain-key-Planted-5151"  # configured: masked wherever it appears
    lsp = await start_client("neovim", backend_settings("http://127.0.0.1:9/v1", apiKey=key), tmp_path)
    for i in range(5):  # each logs "didChange for a document that is not open: <uri>" (one call site)
        uri = (tmp_path / f"{key}-{GITHUB_TOKEN}{i}.py").as_uri()
        lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 1")]))
    await request(lsp, "arbor/stats")  # the notifications above were handled before this answer
    for _ in range(200):  # the log record is forwarded after the handler: up to 10 s on a busy machine
        if any("not open" in m.message for m in lsp.log_messages):
            break
        await asyncio.sleep(0.05)
    messages = [m.message for m in lsp.log_messages if "not open" in m.message]
    await lsp.shutdown_session()
    await lsp.stop()
    assert len(messages) == 1, messages
    assert key not in messages[0] and "ghp_planted" not in messages[0] and "not open: file://" in messages[0]


async def test_denying_a_file_later_takes_it_out_of_the_index(tmp_path):
    root, _ = plant(tmp_path)
    with FakeOpenAIServer("x = 1") as backend:
        settings = backend_settings(backend.url)
        settings["index"] = {"workers": 1}
        lsp = await start_client("vscode", settings, root)
        await wait_for_index(lsp, 3)
        settings["privacy"] = {"denyFiles": [".env", "secrets.*", "config.py"]}
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"arbor": settings}))
        for _ in range(100):
            stats = await request(lsp, "arbor/stats")
            if stats["index"]["files"] == 2:
                break
            await asyncio.sleep(0.1)
        open_doc(lsp, root / "main.py", MAIN)
        await inline_at(lsp, (root / "main.py").as_uri(), end_of(MAIN))
        await lsp.shutdown_session()
        await lsp.stop()
    assert stats["index"]["files"] == 2, stats["index"]
    prompt = backend.requests[-1]["prompt"]
    assert "def connect(url, key)" not in prompt and "DATABASE_URL" in prompt  # only main.py's own text
