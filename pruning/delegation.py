"""The enclosing function's own name as a likely next name: wrappers delegate.

A method or function often hands its work to a same-named definition elsewhere: a trait or class
method to the free function or adaptor that implements it (`fn merge(self, other) -> Merge<..> {
merge(self, other) }`, `intersperse::intersperse(self, element)`), a module-level facade to the
client's method (`def get(url): return client.get(url)`), an exported wrapper to an internal one.
So, inside a named function, its name counts as used DELEGATE_DISTANCE lines away, resolved as
a plain name is: only to definitions the file's imports reach (a wrapper delegates to what it
imports; common method names such as `next` or `new` are not looked for workspace-wide), and
the definition being written is never one of them.

Invariants: only the innermost named function or method counts (an anonymous closure is skipped
for the function around it); the enclosing definitions themselves are removed from the current
file's definitions table (their names stay, with no definitions: the file defines them), so they
neither become candidates nor dilute a name's specificity, and their names resolve only through
the file's imports.
"""

from __future__ import annotations

from .names_near import NameUse
from .scopes import Scope

DELEGATE_DISTANCE = 6  # as a name imported and not used yet: about to be used
FUNCTION_KINDS = frozenset({"function", "method"})


def delegate_uses(scopes: list[Scope], offset: int, cursor_line: int) -> list[NameUse]:
    """A use of the innermost named function's own name, when byte `offset` is in its body."""
    for scope in scopes:
        if scope.kind not in FUNCTION_KINDS:
            return []
        if scope.name.isidentifier() and not scope.name.startswith("__"):
            if offset < scope.body_start_byte:
                return []
            return [NameUse(name=scope.name, kind="identifier", line=cursor_line, distance=DELEGATE_DISTANCE)]
    return []


def without_enclosing(local: dict[str, list[object]], scopes: list[Scope]) -> dict[str, list[object]]:
    """`local` (name -> definition nodes of this file) without the definitions that enclose the
    cursor (the ladder shows those); a name only they define stays, with no definitions: the
    file still defines it."""
    starts = {scope.node.start_byte for scope in scopes}  # type: ignore[attr-defined]
    return {name: [node for node in nodes if node.start_byte not in starts]  # type: ignore[attr-defined]
            for name, nodes in local.items()}
