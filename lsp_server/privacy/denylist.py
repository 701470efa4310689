"""Which files are never read: the `privacy.denyFiles` globs, and the workspace boundary.

Invariants:
- A glob without `/` matches a file's name (case-insensitively: `.ENV` is `.env`), in any folder;
  a glob with `/` matches the whole '/'-separated path (`**` and `*` may cross folders).
- A path is checked as given and, when it is a symlink or lies under one, as resolved: a link
  named `config.py` to `.env` is denied, and so is a link whose target lies outside every root.
- `outside(path, roots)` is true when the resolved path is under none of the resolved roots;
  with no roots, every path is outside.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable


def _compile(glob: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(glob.strip().lower().replace("**/", "*/").replace("/**", "/*")))


class Denylist:
    def __init__(self, globs: Iterable[str]) -> None:
        globs = [g for g in globs if g.strip()]
        self.globs = tuple(globs)
        self._names = [_compile(g) for g in globs if "/" not in g.strip()]
        self._paths = [_compile(g) for g in globs if "/" in g.strip()]

    def _matches(self, path: str) -> bool:
        path = path.replace(os.sep, "/").lower()
        name = path.rsplit("/", 1)[-1]
        return any(p.match(name) for p in self._names) or any(p.match(path) for p in self._paths)

    def denies(self, path: str) -> bool:
        """Whether `path`, or what it resolves to, matches a deny glob."""
        if self._matches(path):
            return True
        real = resolved(path)
        return real != path and self._matches(real)


def resolved(path: str) -> str:
    """`path` with symlinks resolved ('/'-separated); the path itself when it cannot be resolved."""
    try:
        return os.path.realpath(path).replace(os.sep, "/")
    except (OSError, ValueError):
        return path


def outside(path: str, roots: Iterable[str]) -> bool:
    """Whether `path`, resolved, lies outside every one of `roots` (resolved too)."""
    real = resolved(path)
    for root in roots:
        base = resolved(root).rstrip("/")
        if real == base or real.startswith(base + "/"):
            return False
    return True
