"""The HTTP transport of a remote backend: one pooled `httpx.AsyncClient` per backend.

Invariants:
- One client per backend, kept for the backend's life: connections are kept alive between
  keystrokes (no TCP/TLS handshake per request); HTTP/2 is negotiated through ALPN where the
  server offers it (https only, and only when the `h2` package is importable).
- Loopback servers (127.0.0.0/8, ::1, localhost) are never proxied, whatever the environment says.
  Other servers go through the backend's `proxy` setting, else the usual environment variables
  (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`).
- Closing an unfinished response cancels it on the server: HTTP/1.1 closes its connection (the
  pool opens another), HTTP/2 resets its stream (`cancel_unfinished`), leaving the connection
  and its other streams open.
- TLS certificates are always verified, against the system's store or the `caBundle` file.
- The API key comes from the `apiKey` setting, else the environment variable named by `apiKeyEnv`;
  it is sent as a bearer token and never appears in a log line, an error or a status: `scrub`
  replaces it wherever a server's error body echoes it.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import re
import ssl
from urllib.parse import urlsplit

import httpx

from .api import BackendConfigError
from .backend_spec import BackendSpec

REDACTED = "***"
_URL_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)[^\s/?#@'\"<>]+@")


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http2_available() -> bool:
    return importlib.util.find_spec("h2") is not None


def api_key(spec: BackendSpec) -> str:
    """The key from `apiKey`, else from the environment variable `apiKeyEnv` names ("" when neither)."""
    if spec.api_key:
        return spec.api_key
    if spec.api_key_env:
        key = os.environ.get(spec.api_key_env, "")
        if not key:
            raise BackendConfigError(
                f"backend {spec.name!r}: environment variable {spec.api_key_env} (apiKeyEnv) is not set")
        return key
    return ""


class Transport:
    """The pooled client of one backend, and the scrubbing of its secret."""

    def __init__(self, spec: BackendSpec, base_url: str):
        if not base_url.startswith(("http://", "https://")):
            raise BackendConfigError(
                f"backend {spec.name!r}: url must start with http:// or https://, got {base_url!r}")
        self._secret = api_key(spec)
        headers = {"User-Agent": "arbor-ls"}
        if self._secret:
            headers["Authorization"] = f"Bearer {self._secret}"
        self.loopback = is_loopback(base_url)
        proxy = None if self.loopback else (spec.proxy or None)
        if proxy and not proxy.startswith(("http://", "https://", "socks5://", "socks5h://")):
            raise BackendConfigError(f"backend {spec.name!r}: proxy must be an http(s):// or socks5:// URL")
        seconds = spec.timeout_ms / 1000
        self.http2 = http2_available()
        try:
            self.client = httpx.AsyncClient(
                base_url=base_url.rstrip("/"), headers=headers, http2=self.http2,
                verify=_tls_context(spec), proxy=proxy,
                # the environment's proxies apply only to non-loopback servers without a `proxy` setting
                trust_env=not self.loopback and proxy is None,
                timeout=httpx.Timeout(seconds, connect=min(2.0, seconds)),
                limits=httpx.Limits(max_connections=16, max_keepalive_connections=4, keepalive_expiry=120.0),
            )
        except ImportError:  # a socks5:// proxy (setting or ALL_PROXY) without httpx's socks extra
            raise BackendConfigError(
                f"backend {spec.name!r}: a SOCKS proxy needs the socksio package (pip install 'httpx[socks]')") from None
        except ValueError as exc:  # an unusable proxy URL in the environment
            raise BackendConfigError(f"backend {spec.name!r}: {exc}") from None

    def scrub(self, text: str) -> str:
        """`text` without the API key (a server's error body may echo the request's headers) and
        without any URL's userinfo (`http://user:password@host`)."""
        text = _URL_USERINFO.sub(rf"\1{REDACTED}@", text)
        return text.replace(self._secret, REDACTED) if self._secret else text

    async def aclose(self) -> None:
        await self.client.aclose()


def _tls_context(spec: BackendSpec) -> ssl.SSLContext | bool:
    if not spec.ca_bundle:
        return True
    path = os.path.expanduser(spec.ca_bundle)
    try:
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise BackendConfigError(f"backend {spec.name!r}: caBundle {path}: {exc}") from None


async def cancel_unfinished(response: httpx.Response) -> None:
    """Reset an unfinished HTTP/2 response's stream (RST_STREAM, CANCEL) so the server stops
    generating for it. httpcore (1.0) closes such a response locally and tells the server nothing;
    this reaches its connection through the response's stream. Nothing to do over HTTP/1.1, where
    closing the unfinished response closes the connection. Best effort: never raises."""
    if response.http_version != "HTTP/2":
        return
    stream_id = response.extensions.get("stream_id")
    # httpx's bound stream -> its transport's stream -> httpcore's pool stream -> the HTTP/2 stream
    layer, connection = response.stream, None
    for _ in range(6):
        connection = getattr(layer, "_connection", None)
        if connection is not None:
            break
        layer = getattr(layer, "_stream", None) or getattr(layer, "_httpcore_stream", None)
    state = getattr(connection, "_h2_state", None)
    if stream_id is None or state is None:
        return
    try:
        import h2.errors

        async with connection._write_lock:
            state.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.CANCEL)
            await connection._network_stream.write(state.data_to_send())
    except Exception:  # noqa: BLE001 - the stream may have ended or the connection closed meanwhile
        return
