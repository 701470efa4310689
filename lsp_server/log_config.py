"""Where the server's log lines go, at which level, and the scrubbing on the way out.

Invariants:
- One stderr handler on the root logger, with a `RedactingFilter`: no log line, at any level,
  carries a secret, a configured API key or a URL's userinfo.
- The level is `--log-level` when given on the command line, else the `logLevel` setting
  (`apply_setting`), else warning.
- With the `logFile` setting, the same records also go to a file as JSON lines (`json_log.py`).
- Once serving, warnings and errors also go to the client as `window/logMessage`, rate-limited
  per call site (`forward_to_client`, `client_log.py`).
- httpx and httpcore log at warning and above only (their info lines name every URL requested);
  pygls logs at warning and above unless the level is debug (at info it writes every message body).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Iterable

from .privacy.log_filter import RedactingFilter

LEVELS = ("debug", "info", "warning", "error")
DEFAULT_LEVEL = "warning"
FORMAT = "arbor-ls %(levelname)s %(name)s: %(message)s"
_QUIET = ("httpx", "httpcore")
_PROTOCOL = ("pygls",)


class LogConfig:
    """The process's logging set-up; `configure` installs it on the root logger."""

    def __init__(self, level: str | None = None) -> None:
        self.explicit = level is not None  # --log-level given: the setting does not override it
        self.level = level or DEFAULT_LEVEL
        self.filter = RedactingFilter()
        self.handler = logging.StreamHandler(sys.stderr)
        self.handler.setFormatter(logging.Formatter(FORMAT))
        self.handler.addFilter(self.filter)
        self.file_handler: logging.Handler | None = None  # JSON lines (`logFile`), see json_log.py
        self.log_file = ""

    def install(self) -> LogConfig:
        root = logging.getLogger()
        for old in [h for h in root.handlers if isinstance(getattr(h, "arbor_config", None), LogConfig)]:
            root.removeHandler(old)
        self.handler.arbor_config = self  # type: ignore[attr-defined]
        root.addHandler(self.handler)
        self.set_level(self.level)
        return self

    def set_level(self, level: str) -> None:
        level = level.lower() if level.lower() in LEVELS else DEFAULT_LEVEL
        self.level = level
        logging.getLogger().setLevel(level.upper())
        for name in _QUIET:
            logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))
        for name in _PROTOCOL:
            logging.getLogger(name).setLevel(logging.DEBUG if level == "debug" else max(logging.WARNING, logging.getLogger().level))

    def apply_setting(self, level: str) -> None:
        """The `logLevel` setting: applied unless `--log-level` was given."""
        if not self.explicit:
            self.set_level(level)

    def set_log_file(self, setting: str) -> str | None:
        """Write JSON lines to the file `setting` names too ("" none, "auto" the user log
        directory); returns why it cannot be opened, if so (stderr logging goes on)."""
        from . import json_log

        path = json_log.resolve_path(setting) if setting else ""
        if path == self.log_file:
            return None
        root = logging.getLogger()
        if self.file_handler is not None:
            root.removeHandler(self.file_handler)
            self.file_handler.close()
            self.file_handler, self.log_file = None, ""
        if not path:
            return None
        try:
            self.file_handler = json_log.file_handler(path, self.filter)
        except OSError as exc:
            return f"logFile: cannot write {path}: {exc.strerror or exc}"
        root.addHandler(self.file_handler)
        self.log_file = path
        return None

    def set_known_secrets(self, secrets: Iterable[str]) -> None:
        self.filter.known_secrets = frozenset(s for s in secrets if s and len(s) >= 4)


def configure(level: str | None = None) -> LogConfig:
    """Install the stderr handler at `level` (None: not given on the command line)."""
    return LogConfig(level).install()


def current() -> LogConfig | None:
    """The installed configuration, if `configure` ran in this process (the CLI does)."""
    for handler in logging.getLogger().handlers:
        config = getattr(handler, "arbor_config", None)
        if isinstance(config, LogConfig):
            return config
    return None


def follow_settings(level: str, known_secrets: Iterable[str], log_file: str = "") -> str | None:
    """Apply the `logLevel` and `logFile` settings and the secrets to mask to the installed
    configuration, if any; returns a problem with the log file, if there is one."""
    config = current()
    if config is None:
        return None
    config.apply_setting(level)
    config.set_known_secrets(known_secrets)
    return config.set_log_file(log_file)


def forward_to_client(send: Callable[[int, str], None]) -> logging.Handler:
    """Send warnings and errors to the client (`client_log.ClientLogHandler`), scrubbed with the
    installed configuration's secrets; call from the event loop. Replaces an earlier one."""
    from .client_log import ClientLogHandler

    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, ClientLogHandler)]:
        root.removeHandler(old)
    config = current()
    handler = ClientLogHandler(send, loop=asyncio.get_running_loop(),
                               redactor=config.filter if config is not None else None)
    root.addHandler(handler)
    return handler


def stop_forwarding() -> None:
    """Stop sending log records to the client (at shutdown: the transport is about to close)."""
    from .client_log import ClientLogHandler

    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, ClientLogHandler)]:
        root.removeHandler(handler)
        handler.close()
