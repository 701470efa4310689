"""The one path vocabulary at the index boundary.

Inside the index a file is named by its absolute, normalised, '/'-separated path
(`workspace.normalize_path`); outside it (prompts, reports, cache dependency tags) by its
workspace id: the path relative to the workspace root, '/'-separated, or the path itself when
it lies outside the root (or there is none). `workspace_id` is the only conversion.
"""

from __future__ import annotations

import os


def workspace_id(path: str, root: str | None) -> str:
    """`path` as named outside the index (see the module docstring)."""
    if root and os.path.isabs(path):
        base = root.rstrip("/")
        if path.startswith(base + "/") and "/.." not in path and "/./" not in path and "//" not in path:
            return path[len(base) + 1:]
        try:
            relative = os.path.relpath(path, root)
        except ValueError:
            return path.replace(os.sep, "/")
        if not relative.startswith(".."):
            return relative.replace(os.sep, "/")
    return path.replace(os.sep, "/")
