"""RedactingListener: the wrapped listener's text always equals the redacted buffer."""

from __future__ import annotations

import random

from hypothesis import given, strategies as st

from lsp_server.positions import TextEdit
from lsp_server.privacy import Privacy, RedactingListener, redact
from lsp_server.privacy.listener import difference


class Recorder:
    """A listener that applies edits as the index does and remembers each buffer's text."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.calls: list[str] = []

    def did_open(self, path, text, language_id):
        self.calls.append("open")
        self.texts[path] = text

    def did_change(self, path, edits, new_text):
        self.calls.append("change")
        text = self.texts[path]
        for e in edits:
            text = text[:e.start] + e.text + text[e.end:]
        assert text == new_text  # the edits alone must produce the text handed over
        self.texts[path] = text

    def did_close(self, path):
        self.calls.append("close")
        self.texts.pop(path, None)


SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"


def test_denied_buffers_never_reach_the_listener():
    inner = Recorder()
    listener = RedactingListener(inner, Privacy())
    listener.did_open("/w/.env", "A=1\n", "dotenv")
    listener.did_change("/w/.env", [TextEdit(0, 0, "B=2\n")], "B=2\nA=1\n")
    listener.did_close("/w/.env")
    assert inner.calls == []


def test_typing_a_secret_character_by_character_masks_it_once_it_looks_like_one():
    inner = Recorder()
    listener = RedactingListener(inner, Privacy())
    text = 'x = 1\nAPI_KEY = ""\ny = 2\n'
    listener.did_open("/w/a.py", text, "python")
    at = text.index('""') + 1
    for i, ch in enumerate(SECRET):
        new = text[:at + i] + ch + text[at + i:]
        listener.did_change("/w/a.py", [TextEdit(at + i, at + i, ch)], new)
        text = new
        assert inner.texts["/w/a.py"] == redact(text)
    assert SECRET not in inner.texts["/w/a.py"]
    # deleting it again unmasks what is left, and the listener follows
    text = text.replace(SECRET, "short")
    listener.did_change("/w/a.py", [TextEdit(0, len(inner.texts["/w/a.py"]), text)], text)
    assert inner.texts["/w/a.py"] == text


def test_random_edits_keep_the_listener_equal_to_the_redacted_text():
    rng = random.Random(7)
    pieces = [SECRET, "password = 'hunter22'\n", "postgres://u:p4ss@h/db", "def f():\n", "  return 1\n", "é", "x",
              "-----BEGIN PRIVATE KEY-----\n", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", "-----END PRIVATE KEY-----\n"]
    inner = Recorder()
    listener = RedactingListener(inner, Privacy())
    text = ""
    listener.did_open("/w/b.py", text, "python")
    for _ in range(400):
        start = rng.randint(0, len(text))
        end = min(len(text), start + rng.choice([0, 0, 1, 3, 12]))
        piece = rng.choice(pieces)
        piece = piece[: rng.randint(0, len(piece))] if rng.random() < 0.5 else piece
        new = text[:start] + piece + text[end:]
        listener.did_change("/w/b.py", [TextEdit(start, end, piece)], new)
        text = new
        assert inner.texts["/w/b.py"] == redact(text)


def test_difference_is_the_smallest_span():
    assert difference("abc", "abc") is None
    e = difference("abXYef", "abZZef")
    assert (e.start, e.end, e.text) == (2, 4, "ZZ")
    e = difference("aaaa", "aaab")
    assert (e.start, e.end, e.text) == (3, 4, "b")
    e = difference("baaa", "aaaa")
    assert (e.start, e.end, e.text) == (0, 1, "a")


def test_removing_a_key_blocks_begin_line_unmasks_its_body():
    inner = Recorder()
    listener = RedactingListener(inner, Privacy())
    text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
    listener.did_open("/w/k.py", text, "python")
    assert "MIIEvQ" not in inner.texts["/w/k.py"]
    new = text.replace("-----BEGIN PRIVATE KEY-----\n", "")
    listener.did_change("/w/k.py", [TextEdit(0, 28, "")], new)
    assert inner.texts["/w/k.py"] == redact(new)


def test_a_key_block_typed_and_erased_character_by_character_is_masked_at_every_step():
    """The header's "PRIVATE KEY" appears at one keystroke (its last letter, or a letter in the
    middle typed last) and disappears at another; each time the whole buffer is redacted again."""
    inner = Recorder()
    listener = RedactingListener(inner, Privacy())
    block = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
    text = "x = 1\n"
    listener.did_open("/w/k.py", text, "python")
    for ch in block:
        new = text + ch
        listener.did_change("/w/k.py", [TextEdit(len(text), len(text), ch)], new)
        text = new
        assert inner.texts["/w/k.py"] == redact(text)
    assert "MIIEvQ" not in inner.texts["/w/k.py"]
    at = text.index("VATE")  # erase the header's "V": the block is no key any more
    text = text[:at] + text[at + 1:]
    listener.did_change("/w/k.py", [TextEdit(at, at + 1, "")], text)
    assert inner.texts["/w/k.py"] == redact(text)
    text = text[:at] + "V" + text[at:]  # and typed again in the middle
    listener.did_change("/w/k.py", [TextEdit(at, at, "V")], text)
    assert inner.texts["/w/k.py"] == redact(text) and "MIIEvQ" not in inner.texts["/w/k.py"]
    while text:
        text = text[1:]
        listener.did_change("/w/k.py", [TextEdit(0, 1, "")], text)
        assert inner.texts["/w/k.py"] == redact(text)


def test_masked_reuses_the_redaction_of_the_very_text_last_given():
    privacy = Privacy()
    listener = RedactingListener(Recorder(), privacy)
    text = f'KEY = "{SECRET}"\n'
    listener.did_open("/w/a.py", text, "python")
    assert listener.masked("/w/a.py", text) == redact(text)
    assert listener.masked("/w/a.py", "".join(list(text))) == redact(text)  # equal, another string
    assert privacy.redact_text(text, "/w/a.py") == redact(text)
    assert privacy.stats()["promptsRedacted"] == 1
    plain = "x = 1\n"
    listener.did_open("/w/b.py", plain, "python")
    assert listener.masked("/w/b.py", plain) is plain


@given(st.lists(st.sampled_from(["x = 1\n", f'KEY = "{SECRET}"\n', "url = 'http://u:pw@h/'\n", "# note\n"]),
                max_size=6),
       st.integers(min_value=0, max_value=200),
       st.sampled_from(["", "y", f'token = "{SECRET}"', "\n", "sk-", '"\nz = 2']))
def test_masked_of_the_buffer_with_one_edit_equals_its_redaction(lines, at, inserted):
    listener = RedactingListener(Recorder(), Privacy())
    text = "".join(lines)
    listener.did_open("/w/a.py", text, "python")
    at = min(at, len(text))
    edited = text[:at] + inserted + text[at:]  # a speculation: the suggestion inserted
    masked = listener.masked("/w/a.py", edited)
    assert masked == redact(edited)
