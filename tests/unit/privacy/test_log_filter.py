"""The logging set-up: the level setting works and no record carries a secret."""

from __future__ import annotations

import io
import logging

import pytest

from lsp_server import log_config

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"


@pytest.fixture
def config():
    root = logging.getLogger()
    saved = root.level, list(root.handlers)
    cfg = log_config.LogConfig(None)
    cfg.handler.setStream(io.StringIO())
    cfg.install()
    yield cfg
    root.removeHandler(cfg.handler)
    root.setLevel(saved[0])
    for name in ("httpx", "httpcore", "pygls"):
        logging.getLogger(name).setLevel(logging.NOTSET)


def output(cfg) -> str:
    return cfg.handler.stream.getvalue()


def test_secrets_in_messages_arguments_and_tracebacks_are_masked(config):
    config.set_level("debug")
    config.set_known_secrets(["plain-configured-key-123"])
    log = logging.getLogger("arbor.test")
    log.debug("prompt: %s", f'API_KEY = "{KEY}"')
    log.info("POST http://user:hunter2@host/v1 with %r", {"Authorization": "Bearer plain-configured-key-123"})
    try:
        raise RuntimeError(f"backend echoed {KEY}")
    except RuntimeError:
        log.exception("failed")
    text = output(config)
    assert KEY not in text and "hunter2" not in text and "plain-configured-key-123" not in text
    assert "prompt: API_KEY" in text and "RuntimeError: backend echoed" in text
    assert config.filter.redacted_records == 3


def test_the_level_setting_applies_unless_the_command_line_gave_one(config):
    log = logging.getLogger("arbor.test")
    log.info("hidden at the default level")
    config.apply_setting("info")
    log.info("shown at info")
    assert "hidden" not in output(config) and "shown at info" in output(config)
    explicit = log_config.LogConfig("error")
    explicit.apply_setting("debug")
    assert explicit.level == "error"


def test_httpx_and_pygls_stay_quiet_at_info(config):
    config.set_level("info")
    logging.getLogger("httpx").info('HTTP Request: POST http://u:p@h/v1 "200 OK"')
    logging.getLogger("pygls.protocol").info("Sending data: {...}")
    assert output(config) == ""
    config.set_level("debug")
    logging.getLogger("pygls.protocol").debug("Sending data: {}")
    assert "Sending data" in output(config)


def test_log_file_gets_json_lines_scrubbed(config, tmp_path):
    import json

    path = tmp_path / "logs" / "server.jsonl"
    assert config.set_log_file(str(path)) is None
    config.set_level("info")
    logging.getLogger("arbor.test").warning("echoed %s", f"Bearer {KEY}")
    config.set_log_file("")  # closes it
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["level"], r["logger"]) for r in lines] == [("warning", "arbor.test")]
    assert KEY not in lines[0]["message"] and lines[0]["message"].startswith("echoed Bearer ")
    assert "cannot write" in config.set_log_file("/proc/no/such/dir/x.jsonl")
