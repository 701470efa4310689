"""`safe_text` / `safe_request`: whatever a buffer holds, what a backend is sent encodes as UTF-8
and holds no NUL."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from inference.api import CompletionRequest, ContextSnippet
from inference.text_safety import REPLACEMENT, safe_request, safe_text

# every code point, lone surrogates and NUL included
ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()))


@given(ANY_TEXT)
def test_result_encodes_and_holds_no_nul(text):
    safe = safe_text(text)
    safe.encode("utf-8")
    json.dumps({"prompt": safe}, ensure_ascii=False).encode("utf-8")  # what httpx sends
    assert "\x00" not in safe


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")))
def test_safe_text_is_returned_unchanged(text):
    assert safe_text(text) is text


def test_lone_surrogates_and_nul_become_replacement_characters():
    assert safe_text("a\ud800b") == f"a{REPLACEMENT}b"
    assert safe_text("\udfffx\ud800") == f"{REPLACEMENT}x{REPLACEMENT}"
    assert safe_text("x\x00y") == f"x{REPLACEMENT}y"
    assert safe_text("é\x00") == f"é{REPLACEMENT}"


def test_a_surrogate_pair_becomes_its_character():
    assert safe_text("\ud83d\ude00!") == "😀!"


def test_safe_request_cleans_every_text_and_keeps_a_safe_request():
    clean = CompletionRequest(prefix="def f():", suffix="\n", path="a.py",
                              snippets=(ContextSnippet("b.py", "x = 1\n"),))
    assert safe_request(clean) is clean
    dirty = CompletionRequest(prefix="a\ud800", suffix="\x00", path="untitled:\udc00",
                              snippets=(ContextSnippet("b\ud800.py", "y\x00"),), repo_name="r\ud800",
                              stop=("\ud800",))
    safe = safe_request(dirty)
    for text in (safe.prefix, safe.suffix, safe.path, safe.repo_name, *safe.stop,
                 *(s.text for s in safe.snippets), *(s.path for s in safe.snippets)):
        text.encode("utf-8")
        assert "\x00" not in text
    assert safe.prefix == f"a{REPLACEMENT}" and safe.snippets[0].text == f"y{REPLACEMENT}"
