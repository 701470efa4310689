"""Candidate snippets for a prompt and how much each is expected to help.

Sources here (the scope ladder of the current file is `pruning.ladder`):
- referenced definitions: names used near the cursor, resolved through the index (or, for the
  current file, through its own tree), rendered in their line form with fuller forms as upgrades;
- likely next names (`pruning.file_uses`): names from other files that this file imports or
  uses, counted as used where their nearest uses elsewhere in the file are (an imported name
  used nowhere yet as a use a few lines away), for the line being written that does not show
  its names yet;
- similar code (`pruning.code_windows`): the `SIMILAR_SNIPPETS` windows of the files this one
  imports, of its directory and of the nearest directories most like the cursor's surroundings,
  as snippets of their own (at least `MIN_WINDOW_SIMILARITY`), and the names they use
  (`pruning.similar_code`) as likely next names; and the `OWN_SNIPPETS` windows of this file
  most like them that the prefix and suffix windows do not show;
- sibling constants (`pruning.sibling_constants`): the other constants of a run (a Go const
  block) that a referenced constant of another file belongs to;
- module members: the top-level definitions of an imported module used near the cursor (or
  not yet), when it has at most `MAX_MODULE_MEMBERS` (each valued as the module's use divided
  by the square root of their number); of a larger one that is one file (not a Go package),
  those defined within `NEIGHBOUR_PLACES` places of a member used near the cursor (`neighbours`;
  each worth `NEIGHBOUR_SHARE` of the module's use divided by its places).

Value model (documented because the packer trusts it): a referenced definition is worth
  use weight (call 1.0 > type 0.9 > attribute 0.8 > similar code 0.7 > identifier 0.6)
  * proximity 1 / (1 + distance / PROXIMITY_LINES) of its nearest use to the cursor line
  * specificity 1 / (number of definitions the name resolves to), x0.3 for names of <= 2 chars
  * tier (this file, bound by an import to a file it resolves to, or in the file's Go package 1.0;
    in an imported file 0.8; elsewhere 0.5); names bound to modules are not resolved themselves
  * centrality 0.5 + 0.5 * (this file's reference weight into the defining file / the largest one)
  * 1.5 when the use's object type names the definition's container, 0.4 when it names another
plus a tenth of the value of each further use. `module.name` and a bare or member `name` are
resolved apart (Go's `token.Pos` type beside `n.Pos()` methods), `module.name` in the module this
file imports (not another of the same name), and a name that is not a member access and that an
import binds leaves out its namesakes elsewhere in the workspace. Some names resolve only to
definitions the file's imports reach (tiers 0-2): a plain identifier, a name of similar code
elsewhere (`pruning.similar_code`), a name only the definitions around the cursor define here (the
ladder shows those), and a member of a known type that no definition in reach holds (an attribute
its constructor sets): namesakes in files the file does not import are not them; a member of an
object of unknown type (`x.size`, `seen.add(v)`) is one only when there are two at most. A bare
name is no class member where members are reached through an object (`EXPLICIT_RECEIVER`), and a
declaration file's definitions (`.pyi`, `.d.ts`) give way to a source file's of the same name. A
class whose members are accessed on the cursor line (or the line before) has its full skeleton
valued at twice its compact form. The type a literal at the cursor builds (`pruning.literal_types`)
is worth `FILLED_TYPE_GAIN` times as much, its fuller forms as those of a type whose members are
accessed at the cursor: its fields are what the literal's next line sets. Ladder pieces have fixed
values above that scale
(enclosing header 3.0, enclosing class 2.0, used imports 1.5, all imports 0.25, outline 0.15).
A similar window is worth `WINDOW_VALUE` times its similarity (about 0.02 per token at 0.5 for a
20-line window: above most definitions' line forms, below the ladder's and the best uses').
The constants `benchmarks/fit/parameters.py` lists (window, gain and proximity constants here;
the ladder's values; `EXPECTED_VALUE`) hold the values `benchmarks/value_fit.py` fits on a dev
set of masked lines: coordinate ascent over each one's grid, the objective being the share of
dev lines whose prompt holds every identifier of the line. The use weights, tiers and
centrality are not in the fit.
Every definition starts as its line form (`snippets`: its header on one line); fuller renderings
(a signature, then the whole body when short; a class's header with two used members, then its
skeleton) are offered as a chain of upgrades that the packer applies with what budget is left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from indexer import Syntax

from .index_lookup import Found, IndexLookup, module_stem, package_is_directory
from .file_uses import MAX_FILE_NAMES, file_uses
from .names_near import NameUse
from .scopes import as_scope, name_of, node_text
from .code_windows import Query, SimilarWindow, cursor_query, own_windows, similar_windows, window_parts
from .sibling_constants import sibling_constants
from .similar_code import TOP_WINDOWS, similar_code_uses
from .snippets import CLASS_KINDS, RenderedSnippet, render

FULL_BODY_MAX_LINES = 12
FULL_TYPE_MAX_LINES = 24  # a type whose skeleton lists nothing is offered whole up to this many lines
SIGNATURE_GAIN = 1.5  # a signature (doc line, the header as written) against the line form
COMPACT_MEMBERS = 2  # members of a class's compact form, when members of it are used near the cursor
MAX_NAMES = 20
BARE_NAME_LOOKUP = 8  # definitions of a bare name looked through, best first
# ... and of `module.name`'s name: the first few of a common name (`Pos`, `Type`) can all be
# other types' members, in files imported before that module
MODULE_NAME_LOOKUP = 32
MAX_UPGRADED = 16  # the most valuable candidates offered with fuller forms; the others in their line form
MAX_MODULE_MEMBERS = 12  # an imported module used near the cursor offers its definitions up to this many
NEIGHBOUR_PLACES = 3  # ... a larger one those defined this many places or fewer from one used near the cursor
NEIGHBOUR_SHARE = 0.5  # of the module's use value, divided by the places (not tuned)
SIMILAR_SNIPPETS = 2
OWN_SNIPPETS = 1  # windows of this file outside the prefix and suffix windows
MIN_WINDOW_SIMILARITY = 0.2
WINDOW_VALUE = 8.0
WINDOW_PART_LINES = (6, 12, 20)  # a similar window's line form, then larger blocks around it as upgrades
WINDOW_GAIN = 1.5
FILLED_TYPE_GAIN = 3.0  # the type a literal at the cursor builds: its fields are the next line's likely names
WINDOW_PREFIX_SHARE = 0.15  # of the budget, moved from the prefix window to the snippets when a window is offered
# Languages whose members are reached through an object (`self.x`, `this.x`, `recv.X()`): a bare
# name there never names a class member of another file (Java and C++ reach inherited ones bare).
EXPLICIT_RECEIVER = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust"})
# Declaration files declare again what source files define: the source's definitions are shown.
STUBS = (".pyi", ".d.ts")
USE_WEIGHT = {"call": 1.0, "type": 0.9, "attribute": 0.8, "similar": 0.7, "identifier": 0.6}
TIER_WEIGHT = {0: 1.0, 1: 1.0, 2: 0.8, 3: 0.5}
PROXIMITY_LINES = 6.0  # a use this many lines from the cursor is worth half of one on the cursor line
BARE_KINDS = frozenset({"identifier", "call", "type"})  # uses of a name written without an object


class Piece(NamedTuple):
    """One candidate snippet; `path` is as the index names it, `current` marks this file.
    (A NamedTuple, like the other values made at every completion: immutable, and built in a
    fraction of a frozen dataclass's time.)"""

    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    text: str
    reason: str
    value: float
    current: bool
    form: str = "signature"
    upgrade: Piece | None = None  # a fuller rendering that may replace this one if budget allows (it may have its own)


def reference_pieces(uses: list[NameUse], lookup: IndexLookup, local: dict[str, list[object]],
                     root: object, source: bytes, path: str, syntax: Syntax,
                     visible: tuple[int, int], cursor_line: int, similar: list[SimilarWindow],
                     query: Query, filled_type: str | None = None,
                     ) -> tuple[list[Piece], tuple[tuple[str, frozenset[str]], ...]]:
    """Candidates for the definitions of names used near the cursor (see the value model) and of
    the file's likely next names (`pruning.file_uses`), the windows of code most like the lines
    around the cursor (`similar`, most similar first, for the identifiers `query` of those lines)
    and the names they use, and the names looked up with the members used on each (what
    `warm_references` looks up again). `filled_type` is the type a literal at the cursor builds
    (`pruning.literal_types`): its fields are accessed as the members of a type at the cursor are."""
    modules = lookup.module_aliases()

    def qualified(use: NameUse) -> tuple[str, str]:
        """`module.name` is another name than a bare or member `name` (Go's `token.Pos` type
        beside the `x.Pos()` methods): each is resolved on its own."""
        return use.name, use.owner if use.owner in modules else ""

    builtins = lookup.builtins(syntax.builtins)
    by_name: dict[tuple[str, str], list[NameUse]] = {}
    for use in uses:
        if not use.name or use.name in builtins or use.name.startswith("__"):
            continue
        if qualified(use) not in by_name and len(by_name) >= MAX_NAMES:
            continue
        by_name.setdefault(qualified(use), []).append(use)
    near = set(by_name)
    for use in file_uses(lookup, source, modules, cursor_line, builtins, uses):
        key = qualified(use)
        if key in near or key not in by_name and len(by_name) >= MAX_NAMES + MAX_FILE_NAMES:
            continue
        by_name.setdefault(key, []).append(use)
    for use in similar_code_uses(lookup, similar, query.words, cursor_line, {name for name, _ in by_name}, builtins):
        by_name[use.name, ""] = [use]
    rank = lookup.closeness() if lookup.available else {}
    best_rank = lookup.best_closeness() if lookup.available else 1.0
    values: dict[tuple[str, int], float] = {}
    sources: dict[tuple[str, int], tuple[Found | object, frozenset[str], bool]] = {}
    members_of: dict[str, set[str]] = {}  # type name -> member names used on objects of that type
    # types whose members are used on the cursor line or the one before, or whose literal it is in
    at_cursor: set[str] = {filled_type} if filled_type else set()
    for use in uses:
        for owner_type in use.owner_types:
            members_of.setdefault(owner_type, set()).add(use.name)
            if use.distance <= 1:
                at_cursor.add(owner_type)
    used_modules: dict[str, list[NameUse]] = {}
    for (name, _), name_uses in by_name.items():
        if name in modules:  # a module bound by an import: its members are resolved through it
            used_modules.setdefault(name, []).extend(name_uses)
            if all(u.kind == "identifier" for u in name_uses):
                continue
        found = _resolve(name, name_uses, lookup, local, source, path, modules,
                         explicit_receiver=syntax.name in EXPLICIT_RECEIVER)
        if not found:
            continue
        specificity = 1.0 / len(found) * (0.3 if len(name) <= 2 else 1.0)
        for item in found:
            definition = item.definition
            tier_weight = TIER_WEIGHT[item.tier]
            centrality = 1.0 if item.path == path else 0.5 + 0.5 * rank.get(item.path, 0.0) / best_rank
            scores = sorted((_use_value(u, definition) for u in name_uses), reverse=True)
            value = (scores[0] + 0.1 * sum(scores[1:4])) * specificity * tier_weight * centrality
            key = (item.path, _start(definition))
            if name == filled_type:
                value *= FILLED_TYPE_GAIN
            values[key] = values.get(key, 0.0) + value
            sources[key] = (item, frozenset(members_of.get(name, ())), name in at_cursor)
    referenced = [(sources[key][0], values[key]) for key in values]
    for item, value in sibling_constants(lookup, referenced):
        key = (item.path, _start(item.definition))
        if key not in values:
            values[key] = value
            sources[key] = (item, frozenset(), False)
    known = {name for name, _ in by_name}
    for alias, alias_uses in used_modules.items():
        members = module_members(lookup, modules[alias])
        best = max(_use_value(u, None) for u in alias_uses)
        if len(members) <= MAX_MODULE_MEMBERS:
            offered = [(item, best / math.sqrt(len(members) or 1)) for item in members]
        elif not package_is_directory(members[0].path):  # too many: those next to the ones used near the cursor
            anchors = {name for name, owner in near if owner == alias}
            offered = [(item, best * NEIGHBOUR_SHARE / places) for item, places in neighbours(members, anchors)]
        else:  # a Go package's members are spread over its files in no order the code follows
            offered = []
        for item, value in offered:
            key = (item.path, _start(item.definition))
            if key not in values and item.definition.name not in known:
                values[key] = value
                sources[key] = (item, frozenset(), False)
    pieces = []
    ranked = sorted(values, key=lambda key: -values[key])
    fuller = set(ranked[:MAX_UPGRADED])
    for key in ranked:
        item, members, accessed = sources[key]
        piece = _render_found(item, members, values[key], lookup, root, source, path, syntax, visible,
                              upgrade_gain=2.0 if accessed else 1.3, fuller=key in fuller)
        if piece is not None:
            pieces.append(piece)
    pieces += window_pieces(lookup, similar[:SIMILAR_SNIPPETS], query)
    pieces += window_pieces(lookup, own_windows(lookup, query.words, visible, OWN_SNIPPETS), query, visible)
    names = dict.fromkeys(name for name, _ in by_name)
    return pieces, tuple((name, frozenset(members_of.get(name, ()))) for name in names)


def similar_code(lookup: IndexLookup, source: bytes, cursor_byte: int) -> tuple[list[SimilarWindow], Query]:
    """The windows of code most like the lines around byte `cursor_byte` (most similar first, as
    many as the names and the snippets read), and those lines as a query."""
    query = cursor_query(source, cursor_byte)
    return similar_windows(lookup, query.words, max(TOP_WINDOWS, SIMILAR_SNIPPETS)), query


def yields_prefix(similar: list[SimilarWindow]) -> bool:
    """Whether the prefix window gives `WINDOW_PREFIX_SHARE` of the budget to the snippets: some
    window is similar enough to be offered as a snippet."""
    return bool(similar) and similar[0].similarity >= MIN_WINDOW_SIMILARITY


def window_pieces(lookup: IndexLookup, similar: list[SimilarWindow], query: Query,
                  visible: tuple[int, int] | None = None) -> list[Piece]:
    """The `similar` windows (most similar first) of at least `MIN_WINDOW_SIMILARITY` as snippets:
    `WINDOW_PART_LINES[0]` lines around the window's counterpart of the cursor's line
    (`window_parts`), with the larger blocks around them as a chain of upgrades (the largest
    worth `WINDOW_GAIN` times as much); a window of this file is a piece of the current file,
    kept on its side of `visible` (the lines the prompt's windows show)."""
    pieces = []
    for window in similar:
        if window.similarity < MIN_WINDOW_SIMILARITY:
            break
        value = WINDOW_VALUE * window.similarity
        reason = f"code like the cursor's surroundings (Jaccard {window.similarity:.2f})"
        piece = None
        bounds = (0, None)
        if window.path == lookup.path and visible is not None:
            bounds = (0, visible[0]) if window.start_line < visible[0] else (visible[1] + 1, None)
        parts = window_parts(lookup, window, query, WINDOW_PART_LINES, bounds)
        for i, (first, last, text) in reversed(list(enumerate(parts))):
            gain = 1.0 + (WINDOW_GAIN - 1.0) * i / max(1, len(parts) - 1)
            piece = Piece(window.path, f"lines {first + 1}-{last + 1}", "window", first, last, text, reason,
                          value * gain, window.path == lookup.path, "full", piece)
        if piece is not None:
            pieces.append(piece)
    return pieces


def module_members(lookup: IndexLookup, stem: str) -> list[Found]:
    """The top-level definitions of the imported module called `stem` (the first imported file
    whose module stem it is; for Go, every imported file of that package's directory) that
    another file can name through it (`public_name`), in definition order (files by path)."""
    if not lookup.available:
        return []
    members: list[Found] = []
    for other in sorted(lookup.imported_files()):
        entry = lookup.snapshot.entry(other)
        if entry is None or module_stem(other) != stem:
            continue
        members += [Found(other, d, 1) for d in entry.tags.definitions
                    if getattr(d, "container", None) is None and public_name(d.name, entry.language)]
        if not package_is_directory(other):  # a module is one file
            break
    return members


def public_name(name: str, language: str) -> bool:
    """Whether another file may use `name` through its module: not a Python name with a leading
    underscore (`_helper`, `__all__`), not a Go name in lower case (unexported)."""
    if language == "python":
        return not name.startswith("_")
    if language == "go":
        return name[:1].isupper()
    return True


def neighbours(members: list[Found], anchors: set[str]) -> list[tuple[Found, int]]:
    """The members (in definition order) within `NEIGHBOUR_PLACES` places of one named in
    `anchors`, none of those, each with its fewest places from one: code that uses several
    members of a large module (a builder's `add...` functions, a module of event names) uses
    them much in the order they are defined."""
    at = [i for i, item in enumerate(members) if item.definition.name in anchors]
    out = []
    for i, item in enumerate(members):
        if item.definition.name in anchors:
            continue
        places = min((abs(i - j) for j in at), default=NEIGHBOUR_PLACES + 1)
        if places <= NEIGHBOUR_PLACES:
            out.append((item, places))
    return out


def warm_references(lookup: IndexLookup, names: tuple[tuple[str, frozenset[str]], ...]) -> None:
    """Look up, and render, the definitions of `names` (with the members used on each; a
    context's `lookups`) in the lookup's snapshot, so that the next completion in this file,
    most of whose names are the same, finds that work done on the snapshot and its entries.
    Has no effect on any context's content."""
    if not lookup.available:
        return
    for name, members in names:
        for item in lookup.definitions(name):
            if item.path != lookup.path:
                _draw_forms(item, lookup, members, 1.0)


def _draw_forms(item: Found, lookup: IndexLookup, members: frozenset[str], upgrade_gain: float,
                fuller: bool = True):
    """`_forms` of an index definition, rendered from the index."""
    definition = item.definition
    lines = definition.end_line - definition.start_line + 1  # type: ignore[attr-defined]
    return _forms(lambda form, limit: lookup.render(item, form, members or None, limit),
                  getattr(definition, "kind", "definition"), lines, bool(members), upgrade_gain, fuller)


def _forms(draw, kind: str, lines: int, wanted_members: bool, upgrade_gain: float,
           fuller: bool = True) -> list[tuple[RenderedSnippet, float]]:
    """The renderings of a definition of `kind`, cheapest first, each with its value relative to
    the first: its line form (1.0); for a class, its header with two of the members used near the
    cursor when there are some (`SIGNATURE_GAIN`), then its skeleton up to 12 members
    (`upgrade_gain`), or, when those list nothing (a TypeScript object type), its whole body up
    to `FULL_TYPE_MAX_LINES` lines; otherwise its signature (`SIGNATURE_GAIN`), then its whole
    body when short (`upgrade_gain`). A rendering whose text equals the one before it is left
    out; without `fuller`, the line form alone."""
    if not fuller:
        drawn = [(draw("line", 0), 1.0)]
    elif kind in CLASS_KINDS:
        drawn = [(draw("line", 0), 1.0), (draw("skeleton", COMPACT_MEMBERS) if wanted_members else None, SIGNATURE_GAIN),
                 (draw("skeleton", 12), upgrade_gain)]
    else:
        drawn = [(draw("line", 0), 1.0), (draw("signature", 0), SIGNATURE_GAIN),
                 (draw("full", 0) if lines <= FULL_BODY_MAX_LINES else None, upgrade_gain)]
    forms: list[tuple[RenderedSnippet, float]] = []
    for snippet, gain in drawn:
        if snippet is not None and (not forms or snippet.text != forms[-1][0].text):
            forms.append((snippet, gain))
    if fuller and kind in CLASS_KINDS and len(forms) == 1 and lines <= FULL_TYPE_MAX_LINES:
        # a type with no members to list (TypeScript's `type Filter = { ... }`): its fields are its body
        full = draw("full", 0)
        if full is not None and full.text != forms[0][0].text:
            forms.append((full, upgrade_gain))
    return forms


def local_definitions(root: object, syntax: Syntax, source: bytes) -> dict[str, list[object]]:
    """Definitions of the current file by name: top level and one level inside classes, those
    in a span the parser could not make sense of (an `ERROR` node: a half-written line can
    swallow the definitions around it) included."""
    table: dict[str, list[object]] = {}
    stack = [(child, 0) for child in root.named_children]  # type: ignore[attr-defined]
    while stack:
        node, depth = stack.pop()
        while node.type in syntax.wrappers and node.named_children:  # type: ignore[attr-defined]
            node = node.named_children[-1]  # type: ignore[attr-defined]
        kind = syntax.scopes.get(node.type)  # type: ignore[attr-defined]
        if kind is None:
            if node.type == "ERROR":  # type: ignore[attr-defined]
                stack.extend((child, depth) for child in node.named_children)  # type: ignore[attr-defined]
            continue
        table.setdefault(name_of(node, source), []).append(node)
        if kind in CLASS_KINDS and depth == 0:
            body = node.child_by_field_name("body")  # type: ignore[attr-defined]
            if body is not None:
                stack.extend((child, 1) for child in body.named_children)
    return table


@dataclass(slots=True)
class _Local:
    definition: object
    node: object
    path: str
    tier: int = 0


def _resolve(name: str, uses: list[NameUse], lookup: IndexLookup, local: dict[str, list[object]],
             source: bytes, path: str, modules: dict[str, str], *, explicit_receiver: bool = False) -> list:
    found: list = [_Local(_LocalDefinition(node, source), node, path) for node in local.get(name, ())]
    stems = {modules[u.owner] for u in uses if u.owner in modules}
    enclosing_only = name in local and not found  # only definitions around the cursor define it here
    if lookup.available:
        limit = MODULE_NAME_LOOKUP if stems else BARE_NAME_LOOKUP
        found = _without_stubs(found + [f for f in lookup.definitions(name, limit) if f.path != path])
    if explicit_receiver and all(u.kind in BARE_KINDS and not u.owner for u in uses):
        # a bare name (a local `msg`, a call `f()`) is no other file's class member (`msg: str`)
        found = [f for f in found if getattr(f.definition, "container", None) is None]
    if not found:
        return []
    if stems:  # `module.name`: a top-level definition of that module
        in_module = [f for f in found if module_stem(f.path) in stems]
        imported = lookup.imported_files()
        in_module = [f for f in in_module if f.path in imported] or in_module  # not another `token` package
        top_level = [f for f in in_module if getattr(f.definition, "container", None) is None]
        if top_level or in_module:
            return top_level or in_module
    owners = {t for u in uses for t in u.owner_types}
    if owners:
        matching = [f for f in found if getattr(f.definition, "container", None) in owners]
        if matching:
            return matching
    if owners or enclosing_only or all(u.kind in ("identifier", "similar") for u in uses):
        # only through the file's imports (see the module docstring): a member of a known type no
        # definition holds (an imported base class's is kept), a name only the definitions around
        # the cursor define (they, or what they delegate to), a plain name, a name of similar code
        found = [f for f in found if f.tier <= 2]
    elif not any(u.kind == "attribute" for u in uses) and any(f.tier <= 2 for f in found):
        found = [f for f in found if f.tier <= 2]  # what the imports bind hides the same name elsewhere
    elif all(u.kind == "attribute" or u.kind == "call" and u.owner for u in uses) and not owners:
        # a member of an object of unknown type (`seen.add(x)`): a namesake elsewhere only when one of two
        found = [f for f in found if f.tier <= 2 or len(found) <= 2]
    return found[:4]


def _without_stubs(found: list[Found]) -> list[Found]:
    """`found` less the definitions in declaration files (`STUBS`) when a source file defines the
    name too (`__init__.pyi` re-declares what `_make.py` defines)."""
    stubs = [f for f in found if f.path.endswith(STUBS)]
    return [f for f in found if not f.path.endswith(STUBS)] if stubs and len(stubs) < len(found) else found


@dataclass(frozen=True, slots=True)
class _LocalDefinition:
    node: object
    source: bytes  # the current file's text, which `node` spans part of

    @property
    def name(self) -> str:
        return name_of(self.node, self.source)

    @property
    def start_byte(self) -> int:
        return self.node.start_byte  # type: ignore[attr-defined]

    @property
    def container(self) -> str | None:
        parent = self.node.parent  # type: ignore[attr-defined]
        while parent is not None:
            name = parent.child_by_field_name("name")
            if name is not None and parent.type.endswith(("class_definition", "class_declaration", "interface_declaration")):
                return node_text(name, self.source).decode("utf-8", "replace")
            parent = parent.parent
        return None


def _use_value(use: NameUse, definition: object) -> float:
    value = USE_WEIGHT.get(use.kind, 0.6) / (1.0 + use.distance / PROXIMITY_LINES)
    container = getattr(definition, "container", None)
    if use.owner_types and container:
        value *= 1.5 if container in use.owner_types else 0.4
    return value


def _render_found(item, members: frozenset[str], value: float, lookup: IndexLookup, root: object,
                  source: bytes, path: str, syntax: Syntax, visible: tuple[int, int], *,
                  upgrade_gain: float = 1.3, fuller: bool = True) -> Piece | None:
    """The definition's line form, with (if `fuller`) its fuller renderings (`_forms`) as a chain
    of upgrades, the fullest worth `upgrade_gain` times as much (more when the cursor is on a
    member access of that class)."""
    definition = item.definition
    if isinstance(item, _Local):
        kind = syntax.scopes.get(item.node.type, "definition")  # type: ignore[attr-defined]
        scope = as_scope(item.node, kind, syntax, source)
        if scope.start_line >= visible[0] and scope.end_line <= visible[1]:
            return None

        def draw(form: str, limit: int) -> RenderedSnippet:
            return render(item.node, source, syntax, form, parents=True, members=members or None, limit=limit)

        symbol, kind, where = scope.name, scope.kind, path
        forms = _forms(draw, kind, scope.end_line - scope.start_line + 1, bool(members), upgrade_gain, fuller)
    else:
        kind = getattr(definition, "kind", "definition")
        symbol, where = definition.name, item.path  # type: ignore[attr-defined]
        forms = _draw_forms(item, lookup, members, upgrade_gain, fuller)
    current = isinstance(item, _Local)
    reason = _reason(item.tier, kind)
    piece = None
    for snippet, gain in reversed(forms):
        piece = _piece(where, symbol, kind, snippet, reason, value * gain, current, piece)
    return piece


def _reason(tier: int, kind: str) -> str:
    where = {0: "defined in this file", 1: "imported by name", 2: "in an imported file",
             3: "defined elsewhere in the workspace"}[tier]
    return f"referenced near the cursor; {kind} {where}"


def _piece(path: str, symbol: str, kind: str, snippet: RenderedSnippet, reason: str, value: float,
           current: bool, upgrade: Piece | None = None) -> Piece:
    return Piece(path, symbol, kind, snippet.start_line, snippet.end_line, snippet.text,
                 f"{reason} ({snippet.form})", value, current, snippet.form, upgrade)


def _start(definition: object) -> int:
    return definition.start_byte  # type: ignore[attr-defined]


