"""What a tags query's captures can depend on, read from the query's text (pure: text -> data).

Used by incremental re-tagging (`indexer.incremental`): a change confined to nodes whose types
no pattern captures or constrains cannot change the captures.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class QueryDependencies(NamedTuple):
    """What a tags query's captures can depend on (see `captured_types`)."""

    types: frozenset[str]
    wildcard_parents: frozenset[str]
    sensitive: frozenset[str]
    constrained: dict[str, frozenset[str]]  # captured type -> child fields its patterns constrain ("*": any)


def query_dependencies(text: str) -> QueryDependencies:
    """What a tags query can depend on, read from its text:
    - node types it can capture (a capture names the node pattern closed just before it);
    - types of nodes whose children a wildcard `(_)` pattern can capture;
    - sibling-sensitive types: node patterns constraining two or more children (fields, child
      patterns, negated fields, anchors), so a capture under one child can depend on another;
    - for each captured type, the child fields that the patterns capturing it constrain ("*" for
      a child pattern without a field, or an anchor): only those children's shapes decide
      whether such a pattern matches."""
    tokens = re.findall(r'"(?:\\.|[^"\\])*"|;[^\n]*|[()\[\]]|@[\w.]+|[\w_]+:|[#\w_.?!-]+', text)
    types: set[str] = set()
    wildcard_parents: set[str] = set()
    sensitive: set[str] = set()
    constrained: dict[str, set[str]] = {}
    # [type or None, child constraints, is_alternation, fields constrained, pending field, closed members...]
    stack: list[list] = []
    last: list[tuple[str, str | None, frozenset[str]]] = []  # what a following capture would capture

    def parent_type() -> str | None:
        return next((entry[0] for entry in reversed(stack) if entry[0] and not entry[2]), None)

    def count_child(field: str | None = None) -> None:
        for entry in reversed(stack):  # the node pattern the child belongs to (alternations pass through)
            if not entry[2]:
                entry[1] += 1
                entry[3].add(field or entry[4] or "*")
                entry[4] = None
                return

    expect_type = False
    for tok in tokens:
        if tok.startswith((";", '"')):
            last = []
            continue
        if expect_type:
            expect_type = False
            if tok not in ("(", ")", "[", "]") and not tok.startswith(("@", "#")) and not tok.endswith(":"):
                stack[-1][0] = tok
                continue
        if tok == "(":
            count_child()
            stack.append([None, 0, False, set(), None])
            expect_type = True
        elif tok == "[":
            count_child()
            stack.append([None, 0, True, set(), None])
        elif tok == ")":
            closed, constraints, _, fields, _ = (stack.pop() if stack else [None, 0, False, set(), None])[:5]
            if closed and constraints >= 2:
                sensitive.add(closed)
            last = [(closed, parent_type(), frozenset(fields))] if closed else []
            if closed and stack and stack[-1][2]:
                stack[-1].append((closed, frozenset(fields)))
        elif tok == "]":
            entry = stack.pop() if stack else [None, 0, True, set(), None]
            parent = parent_type()
            last = [(t, parent, fields) for t, fields in entry[5:]]
        elif tok.startswith("@"):
            for node_type, parent, fields in last:
                if node_type == "_":
                    if parent:
                        wildcard_parents.add(parent)
                else:
                    types.add(node_type)
                    constrained.setdefault(node_type, set()).update(fields)
        else:
            if tok.endswith(":") and stack:
                stack[-1][4] = tok[:-1]  # the field of the child pattern that follows
            elif tok == ".":
                count_child("*")
            elif tok.startswith("!"):
                count_child(tok[1:])
            last = []
    return QueryDependencies(frozenset(types), frozenset(wildcard_parents), frozenset(sensitive),
                             {t: frozenset(f) for t, f in constrained.items()})
