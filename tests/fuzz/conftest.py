"""Fuzz fixtures: a fake OpenAI-compatible backend on 127.0.0.1 and the settings that point the
server at it (no disk cache, no speculation: each session starts from the same state)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "fuzz: a bounded protocol fuzz run (tests/fuzz/)")


def fuzz_settings(url: str) -> dict[str, Any]:
    return {"backends": [{"name": "fake", "kind": "openai", "url": url, "model": "fake-coder",
                          "modelFamily": "qwen2.5-coder", "timeoutMs": 2000}],
            "completion": {"speculate": False, "warmUp": False},
            "cache": {"disk": False}}


@pytest.fixture(scope="module")
def fake_backend():
    with FakeOpenAIServer("return a + b", chunk_size=8) as server:
        yield server


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path
