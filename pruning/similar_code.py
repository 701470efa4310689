"""Names from code like the code at the cursor: a candidate source for the line not typed yet.

The windows most like the lines around the cursor (`pruning.code_windows`) often use, just there,
the names the next line will use. The names of the `TOP_WINDOWS` most similar windows (at least
`MIN_SIMILARITY`) that the lines around the cursor do not use, and that the index defines, are
the likely next names this source offers, each as a use `SIMILAR_DISTANCE` lines away (nearer
for a more similar window).
"""

from __future__ import annotations

from .code_windows import SimilarWindow
from .index_lookup import IndexLookup
from .names_near import NameUse

TOP_WINDOWS = 3
MAX_SIMILAR_NAMES = 6
SIMILAR_DISTANCE = 16  # the distance of a name from the most similar window; +4 per window further
MIN_SIMILARITY = 0.15


def similar_code_uses(lookup: IndexLookup, similar: list[SimilarWindow], query: frozenset[bytes],
                      cursor_line: int, known: set[str], builtins: frozenset[str] = frozenset()) -> list[NameUse]:
    """Likely next names from the `similar` windows (most similar first) of the lines around the
    cursor (whose identifiers are `query`; see the module docstring); none in `known` (names the
    context already has as candidates) or in `builtins`, each defined somewhere the index knows."""
    uses: list[NameUse] = []
    seen: set[bytes] = set()
    for rank, window in enumerate(similar[:TOP_WINDOWS]):
        if window.similarity < MIN_SIMILARITY:
            break
        for word in window.words:
            if word in query or word in seen or len(word) <= 2:
                continue
            seen.add(word)
            name = word.decode("ascii")
            if name in known or name in builtins or not lookup.snapshot.defines(name) or not lookup.definitions(name):
                continue
            if len(uses) == MAX_SIMILAR_NAMES:
                return uses
            uses.append(NameUse(name=name, kind="similar", line=cursor_line, distance=SIMILAR_DISTANCE + 4 * rank))
    return uses
