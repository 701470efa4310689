"""Incremental parsing: after any sequence of edits the buffer's tree and tags equal a full parse."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from indexer import extract_tags, parse
from indexer.documents import OpenDocument
from indexer.incremental import IncrementalTagger
from indexer import languages
from indexer.languages import has_error, root_sexp

BASE = {
    "python": 'import os\n\nclass A:\n    """Doc ü."""\n    def m(self, x):\n        return x + 1  # note\n\n'
              'def f(a, b=2):\n    s = "ß→ok"\n    return A().m(a) * b\n',
    "javascript": "import { a } from './a';\n// c\nexport function f(x) {\n  const s = `t ${x} é`;\n"
                  "  return a(x) + 1;\n}\nclass K { m() { return f(2); } }\n",
    "go": 'package p\n\nimport "fmt"\n\n// T is 𝒯.\ntype T struct{ X int }\n\nfunc (t *T) M() { fmt.Println("ü", t.X) }\n',
    "c": '#include "x.h"\n/* é */\nint f(int a) { return a + 1; }\nstruct S { int x; };\nchar *s = "ü";\n',
}
ALPHABET = st.sampled_from(list("abcxyz_ (){}:.,=+\n\t#\"'/*éü𝒯0123") + ["def ", "class ", "return ", "\n    "])


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


@st.composite
def edit_sequences(draw):
    lang = draw(st.sampled_from(sorted(BASE)))
    text = BASE[lang]
    edits = []
    for _ in range(draw(st.integers(1, 12))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 8)))
        new = "".join(draw(st.lists(ALPHABET, max_size=4)))
        edits.append(Edit(start, end, new))
        text = text[:start] + new + text[end:]
    flush_every = draw(st.integers(1, 4))
    return lang, edits, text, flush_every


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
def test_incremental_parse_equals_full_parse(case):
    lang, edits, final_text, flush_every = case
    doc = OpenDocument("/w/f", BASE[lang], lang)
    doc.tree()
    text = BASE[lang]
    points = []
    real_edit_tree = languages.edit_tree
    languages.edit_tree = lambda tree, *args: (points.append(args[3]), real_edit_tree(tree, *args))
    try:
        for i, edit in enumerate(edits, 1):
            before = text[:edit.start]
            row, column = before.count("\n"), len(before[before.rfind("\n") + 1:].encode("utf-8", "surrogatepass"))
            text = text[:edit.start] + edit.text + text[edit.end:]
            doc.apply(edit, text if i % 2 else None)  # with the resulting text known, and without
            assert doc.text == text
            assert points[-1] == (row, column)  # where the tree is told the edit starts
            if i % flush_every == 0:
                doc.tree()  # parse at some points in the burst, defer at others
    finally:
        languages.edit_tree = real_edit_tree
    assert doc.text == final_text
    incremental = doc.tree()
    source = final_text.encode("utf-8", "surrogatepass")
    assert doc.source == source
    full = parse(lang, source)
    if not has_error(incremental):  # error recovery may depend on the edit history until settled
        assert root_sexp(incremental) == root_sexp(full)
        assert extract_tags(lang, incremental, source) == extract_tags(lang, full, source)
    doc.settle()
    assert doc.settled
    assert root_sexp(doc.tree()) == root_sexp(full)
    assert extract_tags(lang, doc.tree(), source) == extract_tags(lang, full, source)


# a C declaration whose split declarator turns from `f(int ...` into `f( ...`: the split node's
# signature must see the split child's shape, or its cached captures (none) are reused
_SPLIT_SHAPE_CASE = ("c", [Edit(38, 46, ","), Edit(20, 25, ""), Edit(28, 32, "aa(("), Edit(2, 10, "aa "),
                           Edit(33, 35, "a"), Edit(5, 5, ""), Edit(0, 0, ""), Edit(0, 0, ""), Edit(34, 36, '"'),
                           Edit(0, 1, ""), Edit(18, 21, "")],
                     'iaa x.h"\n/* é t f( aa(( , + 1a"struct S { int x; };\nchar *s = "ü";\n', 1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences(), st.integers(8, 120))
@example(_SPLIT_SHAPE_CASE, 8)
def test_chunked_tags_equal_whole_file_tags(case, max_chunk_bytes):
    """Tags assembled from cached chunk analyses (chunks forced small, so nodes get split) equal
    the tags of a whole-file extraction of the same tree after every step of an edit sequence."""
    lang, edits, _, flush_every = case
    doc = OpenDocument("/w/f", BASE[lang], lang)
    tagger = IncrementalTagger(lang, max_chunk_bytes)
    for i, edit in enumerate(edits):
        doc.apply(edit)
        if i % flush_every == 0 or i == len(edits) - 1:
            tree = doc.tree()
            assert tagger.tags(tree, doc.source) == extract_tags(lang, tree, doc.source)


def test_only_the_edited_chunk_is_analysed_again():
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(200))
    doc = OpenDocument("/w/f.py", text, "python")
    tagger = IncrementalTagger("python", max_chunk_bytes=256)
    tagger.tags(doc.tree(), doc.source)
    assert tagger.last_chunks > 20 and tagger.last_misses == tagger.last_chunks
    pos = text.index("x + 150") + 1
    doc.apply(Edit(pos, pos, "yz"))
    tags = tagger.tags(doc.tree(), doc.source)
    assert tagger.last_misses == 1
    assert tags == extract_tags("python", parse("python", doc.source), doc.source)


def test_error_recovery_history_is_settled_by_a_fresh_parse():
    # found by hypothesis: incremental reparses of broken code can recover differently from a
    # fresh parse; `settle` parses such trees afresh
    doc = OpenDocument("/w/f.js", BASE["javascript"], "javascript")
    doc.tree()
    for edit in [Edit(30, 34, ""), Edit(0, 0, " "), Edit(31, 39, ""), Edit(53, 61, ""),
                 Edit(88, 90, "a(="), Edit(18, 20, "")]:
        doc.apply(edit)
        doc.tree()
    full = parse("javascript", doc.source)
    assert has_error(doc.tree()) and not doc.settled
    assert doc.settle() and doc.settled
    assert root_sexp(doc.tree()) == root_sexp(full)
    assert not doc.settle()  # nothing left to do


def test_workspace_index_settles_open_buffers(tmp_path):
    from indexer import WorkspaceIndex

    index = WorkspaceIndex(snapshot=False)
    path = str(tmp_path / "f.js").replace("\\", "/")
    index.did_open(path, BASE["javascript"], "javascript")
    index.flush()
    text = BASE["javascript"]
    for edit in [Edit(30, 34, ""), Edit(0, 0, " "), Edit(31, 39, ""), Edit(53, 61, ""),
                 Edit(88, 90, "a(="), Edit(18, 20, "")]:
        text = text[:edit.start] + edit.text + text[edit.end:]
        index.did_change(path, [edit], text)
        index.flush()
    index.settle()
    source = text.encode()
    assert index.graph.tags(path) == extract_tags("javascript", parse("javascript", source), source)


def test_burst_of_edits_costs_one_reparse():
    doc = OpenDocument("/w/f.py", "def f():\n    pass\n", "python")
    doc.tree()
    for i, ch in enumerate("return 1"):
        doc.apply(Edit(13 + 4 + i, 13 + 4 + i, ch))
    assert doc.parses == 1 and doc.dirty
    doc.tree()
    doc.tree()
    assert doc.parses == 2 and not doc.dirty


def test_out_of_range_edits_are_clamped():
    doc = OpenDocument("/w/f.py", "x = 1\n", "python")
    doc.tree()
    doc.apply(Edit(100, 200, "y = 2\n"))
    doc.apply(Edit(-5, 1, "z"))
    assert doc.text == "z = 1\ny = 2\n"
    assert root_sexp(doc.tree()) == root_sexp(parse("python", doc.source))


def test_lone_surrogates_do_not_break_byte_offsets():
    doc = OpenDocument("/w/f.py", "a = '\ud800'\nb = 2\n", "python")
    doc.tree()
    doc.apply(Edit(len("a = '\ud800'\nb = "), len("a = '\ud800'\nb = 2"), "3"))
    assert root_sexp(doc.tree()) == root_sexp(parse("python", doc.source))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
def test_unparsed_span_holds_every_edit_since_the_last_parse(case):
    """Outside `unparsed`, the current source is the parsed source, shifted: the bytes before
    the span are the parsed bytes, and so are the bytes after it (counted from the end)."""
    lang, edits, _, flush_every = case
    doc = OpenDocument("/w/f", BASE[lang], lang)
    doc.tree()
    parsed = doc.source
    for i, edit in enumerate(edits, 1):
        doc.apply(edit)
        if i % flush_every == 0:
            doc.tree()
            parsed = doc.source
            assert doc.unparsed is None
    span = doc.unparsed
    if span is None:
        return
    low, high = span
    source = doc.source
    assert 0 <= low <= high <= len(source)
    assert source[:low] == parsed[:low]
    tail = len(source) - high
    assert source[high:] == parsed[len(parsed) - tail:]


def test_a_tree_may_lag_a_little_or_while_reparses_are_slow():
    text = "def f(a):\n    return g(a\n\n" + "def h(x):\n    return x\n" * 50  # an unclosed call
    doc = OpenDocument("/w/f.py", text, "python")
    tree = doc.tree()
    at = len("def f(a):\n    return g(a")
    doc.apply(Edit(at, at, ", b"))  # what is typed between two pauses: the tree may lag
    assert doc.lagging() and doc.unparsed == (at, at + 3)
    parses = doc.parses
    lagging = doc.tree(allow_lag=True)
    assert lagging is tree and doc.parses == parses and doc.dirty  # not reparsed: the tree as edited
    assert lagging.root_node.end_byte == len(doc.source)  # positions follow the edit
    at += 3
    doc.apply(Edit(at, at, "x" * 100))  # more than a pause's worth, with fast reparses: reparsed
    assert not doc.lagging() and doc.tree(allow_lag=True) is not tree and doc.parses == parses + 1
    doc.last_parse_ms = 5.0  # as if that incremental reparse had been slow
    doc.apply(Edit(at, at, "y" * 100))
    assert doc.lagging()  # slow reparses: up to MAX_UNPARSED_BYTES may lag
    doc.apply(Edit(at, at, "z" * 600))
    assert not doc.lagging()
    assert doc.tree(allow_lag=True) is not None and doc.parses == parses + 2 and doc.unparsed is None


def test_the_query_says_which_children_its_captures_look_into():
    from indexer.languages import _QUERY_FILE, captured_types

    c = captured_types(_QUERY_FILE["c"])
    assert "declarator" in c.constrained["declaration"]  # `(declaration declarator: (init_declarator ...))`
    python = captured_types(_QUERY_FILE["python"])
    assert python.constrained["class_definition"] == frozenset({"name"})  # a class body's shape never counts
