"""A one-line terminal progress bar fed by `inference.model_store.Progress` callbacks.

On a terminal the current stage redraws in place and each finished stage keeps its line; into a
pipe or file it prints a stage's first report and its end, plus every 10% of a byte-sized stage,
so logs stay short. Sizes above 1 MB are shown in MB.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 24


def format_bytes(count: int) -> str:
    if count >= 1_000_000_000:
        return f"{count / 1e9:.2f} GB"
    if count >= 1_000_000:
        return f"{count / 1e6:.0f} MB"
    return f"{count} B"


def render(stage: str, done: int, total: int | None) -> str:
    """The text of one bar: stage name, bar and counts (pure; used by tests and by `ProgressBar`)."""
    if not total:
        return f"{stage} ..."
    share = min(max(done / total, 0.0), 1.0)
    filled = int(share * _WIDTH)
    bar = "#" * filled + "." * (_WIDTH - filled)
    counts = f"{format_bytes(done)}/{format_bytes(total)}" if total > 10_000 else f"{done}/{total}"
    return f"{stage:<32} [{bar}] {share * 100:3.0f}% {counts}"


class ProgressBar:
    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._stage = ""
        self._last_decile = -1
        self._last_draw = 0.0
        self._open_line = False

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if stage != self._stage:
            self._end_line()
            self._stage, self._last_decile = stage, -1
        finished = bool(total) and done >= total
        if self.tty:
            now = time.monotonic()
            if finished or now - self._last_draw > 0.1 or not self._open_line:
                self.stream.write("\r" + render(stage, done, total).ljust(80))
                self._open_line, self._last_draw = True, now
            if finished:
                self._end_line()
        else:
            decile = int(10 * done / total) if total else 0
            if decile != self._last_decile and (finished or self._last_decile < 0 or total > 10_000):
                self.stream.write(render(stage, done, total) + "\n")
                self._last_decile = decile
        self.stream.flush()

    def message(self, text: str) -> None:
        self._end_line()
        self.stream.write(text + "\n")
        self.stream.flush()

    def _end_line(self) -> None:
        if self._open_line:
            self.stream.write("\n")
            self._open_line = False
