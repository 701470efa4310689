"""Incremental parsing: after any sequence of edits the buffer's tree and tags equal a full parse."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import extract_tags, parse
from indexer.documents import OpenDocument
from indexer.languages import root_sexp

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
    for i, edit in enumerate(edits, 1):
        doc.apply(edit)
        if i % flush_every == 0:
            doc.tree()  # parse at some points in the burst, defer at others
    assert doc.text == final_text
    incremental = doc.tree()
    source = final_text.encode("utf-8", "surrogatepass")
    assert doc.source == source
    full = parse(lang, source)
    assert root_sexp(incremental) == root_sexp(full)
    assert extract_tags(lang, incremental, source) == extract_tags(lang, full, source)


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
