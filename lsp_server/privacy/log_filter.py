"""`RedactingFilter`: a logging filter that masks secrets in every record a handler writes.

Invariant: a record that passes the filter carries no secret in its message, its arguments or its
traceback: the message is formatted, scrubbed and stored with no arguments left; a traceback is
formatted once and stored scrubbed in `exc_text`, which formatters print instead of re-formatting.
"""

from __future__ import annotations

import logging

from .patterns import mask_literals, redact

_TRACEBACKS = logging.Formatter()


class RedactingFilter(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.known_secrets: frozenset[str] = frozenset()  # exact values to mask (API keys)
        self.redacted_records = 0

    def scrub(self, text: str) -> str:
        return mask_literals(redact(text), self.known_secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what logging would have shown
            message = str(record.msg)
        scrubbed = self.scrub(message)
        changed = scrubbed != message
        record.msg, record.args = scrubbed, None
        if record.exc_info and not record.exc_text:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        for name in ("exc_text", "stack_info"):
            value = getattr(record, name)
            if value:
                clean = self.scrub(value)
                changed |= clean != value
                setattr(record, name, clean)
        self.redacted_records += changed
        return True
