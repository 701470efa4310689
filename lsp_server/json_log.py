"""Structured log lines: one JSON object per record, in a size-bounded file (the `logFile` setting).

Invariants:
- Each line is one JSON object: `time` (ISO 8601, UTC), `level`, `logger`, `message`, and
  `exception` when a traceback was logged; records pass the same `RedactingFilter` as stderr.
- The file never grows past `MAX_BYTES`; it is rolled over to `.1`, `.2` (`BACKUPS` kept).
- `"auto"` is `<user log dir>/arbor-ls/server.jsonl` (platformdirs: ~/.local/state/arbor-ls/log
  on Linux, ~/Library/Logs/arbor-ls on macOS).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
from datetime import datetime, timezone

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 2


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
                "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False)


def resolve_path(setting: str) -> str:
    """The file `setting` names ("auto": the user log directory's server.jsonl)."""
    if setting != "auto":
        return os.path.expanduser(setting)
    from platformdirs import user_log_dir

    return os.path.join(user_log_dir("arbor-ls", appauthor=False), "server.jsonl")


def file_handler(path: str, redactor: logging.Filter) -> logging.Handler:
    """A rotating handler writing JSON lines to `path` (its folder created). Raises OSError."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                                   encoding="utf-8", delay=True)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(redactor)
    return handler
