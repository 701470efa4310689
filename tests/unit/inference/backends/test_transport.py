"""The transport of remote backends: proxies (loopback never), TLS settings, API keys and their scrubbing."""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess

import pytest

from inference.api import BackendConfigError, BackendError, CompletionRequest, SamplingParams
from inference.backend_spec import BackendSpec
from inference.backends import create_backend
from inference.transport import REDACTED, Transport, http2_available, is_loopback
from tests.fakes.wire_servers import WireFake


async def read_all(backend):
    return "".join([c async for c in backend.stream("PROMPT", SamplingParams(max_tokens=4))])


def test_loopback_hosts():
    assert all(map(is_loopback, ["http://127.0.0.1:8080", "http://127.9.0.1", "http://[::1]:1", "http://localhost:2"]))
    assert not any(map(is_loopback, ["http://10.0.0.1", "https://api.example.com", "http://localhost.example.com"]))


async def test_loopback_is_never_proxied_even_when_the_environment_names_a_proxy(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with WireFake("llamacpp", "x") as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url, proxy="http://127.0.0.1:9"))
        assert await read_all(backend) == "x"
        await backend.aclose()
    assert fake.requests[-1].target == "/completion"  # asked directly, not as a proxy


async def test_other_hosts_go_through_the_environments_proxy(monkeypatch):
    with WireFake("openai", "x", model="m") as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.root)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        backend = create_backend(BackendSpec(kind="openai", url="http://models.invalid:8000/v1", model="m"))
        assert await read_all(backend) == "x"
        await backend.aclose()
    assert proxy.requests[-1].target == "http://models.invalid:8000/v1/completions"


async def test_the_proxy_setting_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with WireFake("openai", "x", model="m") as proxy:
        backend = create_backend(BackendSpec(kind="openai", url="http://models.invalid:8000/v1", model="m",
                                             proxy=proxy.root))
        assert await read_all(backend) == "x"
        await backend.aclose()
    assert proxy.requests[-1].target == "http://models.invalid:8000/v1/completions"


async def test_the_api_key_setting_is_sent_and_scrubbed_from_an_echoing_error_body(caplog):
    caplog.set_level(logging.DEBUG)
    spec = BackendSpec(kind="openai", model="m", api_key="sk-very-secret-123")
    assert "sk-very-secret-123" not in repr(spec)
    with WireFake("openai", status=401, echo_headers=True) as fake:
        spec.url = fake.url
        backend = create_backend(spec)
        with pytest.raises(BackendError) as raised:
            await read_all(backend)
        await backend.aclose()
    assert fake.requests[-1].headers["Authorization"] == "Bearer sk-very-secret-123"
    assert "HTTP 401" in str(raised.value) and REDACTED in str(raised.value)
    assert "sk-very-secret-123" not in str(raised.value) and "sk-very-secret-123" not in caplog.text


def test_api_key_env_names_the_variable(monkeypatch):
    monkeypatch.setenv("ARBOR_KEY_FOR_TEST", "k1")
    transport = Transport(BackendSpec(kind="openai", api_key_env="ARBOR_KEY_FOR_TEST"), "https://api.example.com/v1")
    assert transport.client.headers["Authorization"] == "Bearer k1"
    assert transport.scrub("echo k1 back") == f"echo {REDACTED} back"


def test_tls_is_verified_and_a_bad_ca_bundle_is_a_config_error(tmp_path):
    with pytest.raises(BackendConfigError, match="caBundle"):
        Transport(BackendSpec(kind="openai", ca_bundle=str(tmp_path / "missing.pem")), "https://api.example.com")
    with pytest.raises(BackendConfigError, match="proxy"):
        Transport(BackendSpec(kind="openai", proxy="ftp://x"), "https://api.example.com")


def test_http2_is_offered_when_h2_is_installed():
    transport = Transport(BackendSpec(kind="openai"), "https://api.example.com/v1")
    assert transport.http2 is http2_available()


@pytest.fixture
def self_signed(tmp_path):
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    pem = tmp_path / "server.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(pem), "-out", str(pem)],
                   check=True, capture_output=True, timeout=60)
    return pem


async def test_an_unknown_certificate_is_refused_and_accepted_through_ca_bundle(self_signed):
    with WireFake("llamacpp", "x", certfile=str(self_signed)) as fake:
        refused = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        with pytest.raises(BackendError, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            await read_all(refused)
        await refused.aclose()
        trusted = create_backend(BackendSpec(kind="llamacpp", url=fake.url, ca_bundle=str(self_signed)))
        assert await read_all(trusted) == "x"
        await trusted.aclose()


async def test_requests_share_one_kept_alive_connection():
    with WireFake("llamacpp") as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url))
        backend.infill = False  # the warm-up detects first, then warms through /completion
        await backend.warm_request(CompletionRequest(prefix="x = 1\n"), "PROMPT")
        await backend.aclose()
    assert [r.path for r in fake.requests] == ["/props", "/tokenize", "/completion"]
    assert len({r.client_port for r in fake.requests}) == 1


@pytest.mark.skipif(not http2_available(), reason="the h2 package is not installed")
async def test_http2_is_negotiated_where_offered_and_closing_a_stream_resets_it(self_signed):
    from tests.fakes.h2_server import H2Fake

    with H2Fake(str(self_signed), ["ret", "urn 1"]) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url, ca_bundle=str(self_signed)))
        assert await read_all(backend) == "return 1"
        assert fake.requests[-1][0] == "/completion" and fake.requests[-1][1]["prompt"] == "PROMPT"
        await backend.aclose()
    with H2Fake(str(self_signed), ["x"] * 40, chunk_delay=0.02) as fake:
        backend = create_backend(BackendSpec(kind="llamacpp", url=fake.url, ca_bundle=str(self_signed)))
        stream = backend.stream("PROMPT", SamplingParams(max_tokens=40))
        assert await stream.__anext__() == "x"
        await stream.aclose()
        assert await asyncio.to_thread(fake.reset.wait, 3.0), "the HTTP/2 stream was not reset"
        assert await read_all(backend) == "x" * 40  # the connection goes on serving
        await backend.aclose()
    assert fake.connections == 1 and len(fake.reset_streams) == 1


def test_a_socks_proxy_without_socksio_is_a_config_error_not_a_crash(monkeypatch):
    import importlib.util

    if importlib.util.find_spec("socksio") is not None:
        pytest.skip("socksio is installed: SOCKS proxies work")
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:9")
    with pytest.raises(BackendConfigError, match="socksio"):
        Transport(BackendSpec(kind="openai"), "https://api.example.com/v1")
    Transport(BackendSpec(kind="openai"), "http://127.0.0.1:8000/v1")  # loopback ignores the environment
