"""Streaming text from token ids: stop strings held back across tokens, UTF-8 completion."""

from engine_fixtures import byte_tokenizer

from inference.engine.detokenizer import OutputText
from inference.engine.tokenizer import TextTokenizer

TOKENIZER = TextTokenizer(byte_tokenizer())


def stream(text: str, stops=(), prompt="x = "):
    out = OutputText(TOKENIZER, TOKENIZER.encode(prompt), tuple(stops))
    pieces = [out.append(t) for t in TOKENIZER.encode(text)]
    return pieces, out


def test_pieces_concatenate_to_the_text_when_no_stop_occurs():
    pieces, out = stream("def f():\n    return 1\n")
    assert "".join(pieces) + out.flush() == "def f():\n    return 1\n"


def test_stop_string_split_across_tokens_is_never_emitted():
    pieces, out = stream("a = 1\n\nb = 2", stops=("\n\n",))
    assert "".join(pieces) == "a = 1" and out.stopped
    assert out.flush() == ""
    # the first newline was held back until it was clear it starts the stop string
    assert pieces[5] == ""


def test_a_partial_stop_match_is_held_then_released_when_it_diverges():
    pieces, out = stream("x<|e", stops=("<|end|>",))
    assert "".join(pieces) == "x" and not out.stopped
    assert out.flush() == "<|e"
    pieces, out = stream("x<|ey", stops=("<|end|>",))
    assert pieces == ["x", "", "", "", "<|ey"]


def test_multibyte_characters_wait_for_their_last_byte():
    pieces, out = stream("é€")
    assert pieces == ["", "é", "", "", "€"]
    assert out.text == "é€"


def test_special_tokens_are_not_rendered_and_map_to_ids():
    assert TOKENIZER.token_id("<|endoftext|>") == 256
    assert TOKENIZER.encode("a<|endoftext|>") == [97, 256]
    assert TOKENIZER.decode([97, 256, 98]) == "ab"
