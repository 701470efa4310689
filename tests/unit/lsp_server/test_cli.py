"""`arbor-ls complete` and `arbor-ls context` as a user runs them, against a fake backend, and the
transport flags editors pass when they start the server."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lsp_server.cli import build_parser
from lsp_server.subcommands.serve import Transport, transport
from tests.fakes.openai_server import FakeOpenAIServer


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lsp_server.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "main.py").write_text("from util import add\n\ntotal = \n")
    return tmp_path


def config_for(tmp_path, url) -> str:
    path = tmp_path / "arbor.json"
    path.write_text(json.dumps({"backends": [{"kind": "openai", "url": url, "model": "fake",
                                              "modelFamily": "qwen2.5-coder"}]}))
    return str(path)


def test_version():
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.startswith("arbor-ls ")


def test_complete_prints_text_and_json(project):
    with FakeOpenAIServer("add(1, 2)\nextra") as fake:
        config = config_for(project, fake.url)
        target = f"{project / 'main.py'}:3:9"
        plain = run_cli("complete", target, "--workspace", str(project), "--config", config)
        as_json = run_cli("complete", target, "--workspace", str(project), "--config", config, "--json")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == "add(1, 2)\n"  # single-line: text follows the cursor on its line
    data = json.loads(as_json.stdout)
    assert data["text"] == "add(1, 2)" and data["backend"] and data["cache"] in ("hit", "miss")
    assert data["context_tokens"] > 0 and {"context", "total"} <= set(data["latency_ms"])
    assert "<|fim_prefix|>from util import add\n\ntotal = <|fim_suffix|>" in fake.requests[0]["prompt"]


def test_context_json_has_the_prompt_parts(project):
    out = run_cli("context", f"{project / 'main.py'}:3:9", "--workspace", str(project), "--budget", "256", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {"prompt", "prefix", "suffix", "tokens", "budget", "snippets"} <= set(data)
    assert data["budget"] == 256 and data["prefix"].endswith("total = ")
    for snippet in data["snippets"]:
        assert {"path", "symbol", "kind", "start_line", "end_line", "tokens", "reason"} <= set(snippet)


def test_context_includes_cross_file_definitions(project):
    (project / "main.py").write_text("from util import add\n\ntotal = add(\n")
    out = run_cli("context", f"{project / 'main.py'}:3:13", "--workspace", str(project), "--json")
    data = json.loads(out.stdout)
    assert [(s["path"], s["symbol"], s["kind"]) for s in data["snippets"]] == [("util.py", "add", "function")]
    assert "<|file_sep|>util.py\ndef add(a, b):" in data["prompt"]


@pytest.mark.parametrize("args, message", [
    (["complete", "/no/such/file.py:1:1"], "no such file"),
    (["complete", "{main}:99:1"], "line 99 is out of range"),
    (["complete", "{main}:1:500"], "column 500 is out of range"),
    (["complete", "{main}"], "expected FILE:LINE:COL"),
    (["context", "{main}:1:1", "--workspace", "/no/such/dir"], "workspace"),
    (["complete", "{main}:1:1", "--config", "/no/such.json"], "cannot read config"),
])
def test_bad_arguments_exit_2_with_one_line(project, args, message):
    args = [a.replace("{main}", str(project / "main.py")) for a in args]
    out = run_cli(*args)
    assert out.returncode == 2
    assert message in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


@pytest.mark.parametrize("argv, expected", [
    ([], Transport("stdio")),
    (["--stdio"], Transport("stdio")),
    (["serve"], Transport("stdio")),
    (["serve", "--stdio"], Transport("stdio")),
    (["--stdio", "serve"], Transport("stdio")),
    (["--tcp", "127.0.0.1:2087"], Transport("tcp", "127.0.0.1", 2087)),
    (["--tcp", ":2087"], Transport("tcp", "127.0.0.1", 2087)),
    (["--tcp", "[::1]:2087"], Transport("tcp", "::1", 2087)),
    (["--port", "2087"], Transport("tcp", "127.0.0.1", 2087)),
    (["--tcp", "--host", "0.0.0.0", "--port", "2087"], Transport("tcp", "0.0.0.0", 2087)),
    (["serve", "--port", "2087", "--host", "localhost"], Transport("tcp", "localhost", 2087)),
    (["--port", "2087", "serve"], Transport("tcp", "127.0.0.1", 2087)),
])
def test_transport_flags_at_the_top_level_and_after_serve(argv, expected):
    assert transport(build_parser().parse_args(argv)) == expected


@pytest.mark.parametrize("args, message", [
    (["--stdio", "--port", "2087"], "--stdio cannot be combined"),
    (["serve", "--stdio", "--tcp", "h:1"], "--stdio cannot be combined"),
    (["--tcp", "localhost"], "--tcp expects HOST:PORT"),
    (["--tcp", "h:99999"], "port number from 1 to 65535"),
    (["--port", "abc"], "port number from 1 to 65535"),
    (["--tcp"], "--tcp needs HOST:PORT or --port N"),
    (["--host", "0.0.0.0"], "--host needs --port N"),
    (["--tcp", "h:1", "--port", "2"], "either --tcp HOST:PORT or --host/--port"),
    (["--stdio", "complete", "x.py:1:1"], "--stdio applies to serving, not to `arbor-ls complete`"),
])
def test_bad_transport_flags_exit_2_with_one_line(args, message):
    out = run_cli(*args)
    assert out.returncode == 2
    assert message in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_help_lists_the_transport_flags_at_the_top_level():
    out = run_cli("--help")
    assert out.returncode == 0
    for flag in ("--stdio", "--tcp", "--port", "--host"):
        assert flag in out.stdout
