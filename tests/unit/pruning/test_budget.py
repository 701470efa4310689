from hypothesis import given, settings, strategies as st

from pruning.budget import ApproxTokenizer, BudgetShares, ModelTokenizer, prefix_window, suffix_window
from pruning.candidates import Piece
from pruning.packing import header_cost, headers, pack

TOKENIZER = ApproxTokenizer()
code_lines = st.lists(st.text(alphabet="abcdefgh_ (){}:.,=\t\"'", max_size=60), max_size=40)


# Lines and the number of tokens the Qwen2.5-Coder tokenizer (the default model's) makes of them.
QWEN_COUNTS = [
    ("self.repo.save(x)\n", 5),  # self | .repo | .save | (x | )\n
    ("    return compute(21)\n", 7),  # three blanks | " return" | " compute" | ( | 2 | 1 | )\n
    ("\tif err != nil {\n", 5),
    ("let v: Vec<u8> = Vec::new();\n", 12),
    ("x = 12345\n", 9),  # digits one by one
    ("        \n", 1),
    ("abcdefghijklmno", 3),  # a long letter run costs one token per seven letters or part of them
]


def test_approx_matches_the_default_models_tokenizer_on_code_lines():
    assert TOKENIZER.count("") == 0
    for line, tokens in QWEN_COUNTS:
        assert TOKENIZER.count(line) == tokens, line


def test_approx_is_additive_over_lines():
    text = "def f(x):\n    return x + 1\n"
    a, b = text.split("\n", 1)
    assert TOKENIZER.count(text) == TOKENIZER.count(a + "\n") + TOKENIZER.count(b)


def _piece(i: int, path: str, line: int, words: int, value: float, upgrade_words: int = 0) -> Piece:
    text = "w " * words + "\n"
    upgrade = None
    if upgrade_words:
        upgrade = Piece(path, f"s{i}", "function", line, line + 1, "w " * upgrade_words + "\n", "", value * 2,
                        False, "full")
    return Piece(path, f"s{i}", "function", line, line, text, "", value, False, "signature", upgrade)


pieces_st = st.lists(st.tuples(st.sampled_from(["a.py", "b.py", "c.py"]), st.integers(1, 30),
                               st.floats(0.01, 10), st.integers(0, 40)), max_size=25)


@settings(max_examples=200, deadline=None)
@given(pieces_st, st.integers(0, 300))
def test_pack_never_exceeds_budget_with_headers_and_is_deterministic(items, budget):
    pieces = [_piece(i, path, i * 10, words, value, upgrade) for i, (path, words, value, upgrade) in enumerate(items)]
    display = {p: p for p in ("a.py", "b.py", "c.py")}
    count = TOKENIZER.count
    chosen = pack(pieces, budget, display, count)
    assert sum(tokens for _, tokens in chosen) + headers(chosen, display, count) <= budget
    for piece, tokens in chosen:
        assert tokens == count(piece.text)
    assert pack(list(reversed(pieces)), budget, display, count) == chosen


def test_pack_prefers_value_per_token_and_pays_each_header_once():
    count = TOKENIZER.count
    display = {"a.py": "a.py"}
    cheap = _piece(0, "a.py", 0, 10, 5.0)
    dear = _piece(1, "a.py", 10, 100, 20.0)
    filler = _piece(2, "a.py", 20, 60, 1.0)
    budget = count(cheap.text) + count(filler.text) + header_cost("a.py", count)
    assert [p.symbol for p, _ in pack([dear, cheap, filler], budget, display, count)] == ["s0", "s2"]


def test_pack_applies_an_upgrade_only_with_the_budget_it_needs():
    count = TOKENIZER.count
    display = {"a.py": "a.py"}
    piece = _piece(0, "a.py", 0, 5, 1.0, upgrade_words=20)
    base = count(piece.text) + header_cost("a.py", count)
    assert [p.form for p, _ in pack([piece], base, display, count)] == ["signature"]
    chosen = pack([piece], base + count(piece.upgrade.text) - count(piece.text), display, count)
    assert [p.form for p, _ in chosen] == ["full"] and chosen[0][1] == count(piece.upgrade.text)


def test_pack_applies_a_chain_of_upgrades_one_step_at_a_time():
    """line form -> signature -> full body, each step paid by its marginal tokens."""
    count = TOKENIZER.count
    display = {"a.py": "a.py"}
    full = Piece("a.py", "f", "function", 0, 9, "w " * 30 + "\n", "", 3.0, False, "full")
    signature = Piece("a.py", "f", "function", 0, 9, "w " * 10 + "\n", "", 1.5, False, "signature", full)
    line = Piece("a.py", "f", "function", 0, 9, "w " * 4 + "\n", "", 1.0, False, "line", signature)
    base = count(line.text) + header_cost("a.py", count)
    assert [p.form for p, _ in pack([line], base, display, count)] == ["line"]
    assert [p.form for p, _ in pack([line], base - count(line.text) + count(signature.text), display, count)] == ["signature"]
    chosen = pack([line], base - count(line.text) + count(full.text), display, count)
    assert [(p.form, t) for p, t in chosen] == [("full", count(full.text))]


def test_an_upgrade_that_shows_another_chosen_piece_replaces_it():
    """A class's skeleton shows its method: the method's own snippet goes, its tokens come back."""
    count = TOKENIZER.count
    display = {"a.py": "a.py"}
    skeleton = Piece("a.py", "Repo", "class", 0, 20, "w " * 12 + "\n", "", 8.0, False, "skeleton")
    header = Piece("a.py", "Repo", "class", 0, 20, "w " * 3 + "\n", "", 2.0, False, "line", skeleton)
    method = Piece("a.py", "save", "method", 5, 7, "w " * 5 + "\n", "", 1.5, False, "signature")
    chosen = pack([header, method], 200, display, count)
    assert [(p.symbol, p.form) for p, _ in chosen] == [("Repo", "skeleton")]
    assert sum(t for _, t in chosen) == count(skeleton.text)


def test_pieces_of_a_file_that_share_lines_unnested_are_not_both_chosen():
    """A window that ends inside a function and the function's signature would show its first
    lines twice: the denser one is chosen; a method inside a class's header line is nested."""
    count = TOKENIZER.count
    display = {"a.py": "a.py"}
    window = Piece("a.py", "lines 1-12", "window", 0, 11, "w " * 20 + "\n", "", 4.0, False, "full")
    function = Piece("a.py", "save", "function", 10, 30, "w " * 6 + "\n", "", 1.0, False, "signature")
    after = Piece("a.py", "load", "function", 12, 30, "w " * 6 + "\n", "", 1.0, False, "signature")
    assert [p.symbol for p, _ in pack([window, function, after], 200, display, count)] == ["lines 1-12", "load"]
    header = Piece("a.py", "Repo", "class", 0, 40, "w " * 3 + "\n", "", 2.0, False, "line")
    assert len(pack([header, function], 200, display, count)) == 2
    # nor does an upgrade grow into another chosen piece's lines
    grown = Piece("a.py", "lines 1-12", "window", 0, 11, "w " * 20 + "\n", "", 4.0, False, "full")
    part = Piece("a.py", "lines 1-6", "window", 0, 5, "w " * 8 + "\n", "", 3.0, False, "full", grown)
    chosen = pack([part, function], 200, display, count)
    assert [(p.symbol, p.start_line, p.end_line) for p, _ in chosen] == [("lines 1-6", 0, 5), ("save", 10, 30)]


@settings(max_examples=200, deadline=None)
@given(code_lines, st.integers(0, 120))
def test_prefix_window_keeps_whole_lines_within_budget(lines, budget):
    prefix = "\n".join(lines)
    window = prefix_window(prefix, budget, TOKENIZER)
    assert prefix.endswith(window.text)
    assert window.tokens == TOKENIZER.count(window.text) <= budget
    cut = len(prefix) - len(window.text)
    last_line_start = prefix.rfind("\n") + 1
    assert cut == 0 or prefix[cut - 1] == "\n" or cut > last_line_start
    assert window.start_line == prefix.count("\n", 0, cut)


@settings(max_examples=200, deadline=None)
@given(code_lines, st.integers(0, 120))
def test_suffix_window_keeps_whole_lines_within_budget(lines, budget):
    suffix = "\n".join(lines)
    window = suffix_window(suffix, budget, TOKENIZER)
    assert suffix.startswith(window.text)
    assert window.tokens == TOKENIZER.count(window.text) <= budget
    end = len(window.text)
    first_line_end = suffix.find("\n") + 1 or len(suffix)
    assert end == len(suffix) or suffix[end - 1] == "\n" or end < first_line_end


def test_prefix_window_prefers_the_cursor_line():
    prefix = "first line here\nsecond line here\n    return compute("
    window = prefix_window(prefix, TOKENIZER.count("    return compute("), TOKENIZER)
    assert window.text == "    return compute("
    assert window.start_line == 2


def test_budget_shares_validate_and_split():
    shares = BudgetShares(prefix=0.5, suffix=0.2)
    assert shares.snippet_budget(1000) == 300
    try:
        BudgetShares(prefix=0.8, suffix=0.3)
    except ValueError:
        pass
    else:
        raise AssertionError("shares over 1 must be rejected")


_CODE_CHARS = st.sampled_from(list("abcXYZ_09 \t\n\r.,()[]{}:=+\"'é→😀") + ["self", "deadbeefcafe", "    "])


@settings(max_examples=200, deadline=None)
@given(st.lists(_CODE_CHARS, min_size=120, max_size=900))
def test_counts_are_additive_over_lines(pieces):
    text = "".join(pieces)
    lines = text.split("\n")
    assert TOKENIZER.count(text) == sum(TOKENIZER.count(line + "\n") for line in lines[:-1]) + TOKENIZER.count(lines[-1])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_CODE_CHARS, max_size=700), min_size=1, max_size=8))
def test_counts_kept_in_a_content_memo_equal_fresh_counts_and_stay_bounded(texts):
    from pruning.content_memo import ContentMemo

    class Costly:  # the approximation under another name
        name = "costly"

        def count(self, text: str) -> int:
            return TOKENIZER.count(text)

    memo = ContentMemo(size=16)
    counting = memo.tokenizer(Costly())
    for _ in range(2):  # the second round reads what the first kept
        for pieces in texts:
            text = "".join(pieces)
            assert counting.count(text) == TOKENIZER.count(text)
    assert len(memo) <= 16


def test_a_content_memo_keeps_long_texts_by_digest_not_by_text():
    from pruning.content_memo import MAX_KEY_CHARS, ContentMemo

    memo = ContentMemo()
    counting = memo.tokenizer(TOKENIZER)
    long_text = "value = compute(alpha, beta)\n" * 100
    assert counting.count(long_text) == TOKENIZER.count(long_text)
    assert counting.count(long_text + "x") == TOKENIZER.count(long_text + "x")
    misses = memo.misses
    assert counting.count(long_text) == TOKENIZER.count(long_text)
    assert memo.misses == misses  # kept by its digest
    assert all(len(part) <= MAX_KEY_CHARS for key in memo._items for part in key if isinstance(part, str))


def test_a_long_text_that_misses_is_counted_by_its_lines_where_counts_add_up():
    from pruning.content_memo import ContentMemo

    calls: list[str] = []

    class Additive:
        name = "additive"
        lines_add_up = True

        def count(self, text: str) -> int:
            calls.append(text)
            return TOKENIZER.count(text)

    counting = ContentMemo().tokenizer(Additive())
    body = "".join(f"    total += item_{i}.price * item_{i}.quantity\n" for i in range(40))
    assert counting.count("class Order:\n" + body) == TOKENIZER.count("class Order:\n" + body)
    calls.clear()
    edited = "class Order:\n" + body + "    retur"  # typed one line further
    assert counting.count(edited) == TOKENIZER.count(edited)
    assert calls == ["    retur"]  # every other line was counted before


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_CODE_CHARS, max_size=700), min_size=1, max_size=8))
def test_line_by_line_counts_in_a_content_memo_equal_fresh_counts(texts):
    from pruning.content_memo import ContentMemo

    counting = ContentMemo(size=64).tokenizer(TOKENIZER)
    for _ in range(2):
        for pieces in texts:
            text = "".join(pieces)
            assert counting.count(text) == TOKENIZER.count(text)


def test_a_content_memo_counts_a_long_text_whole():
    from pruning.content_memo import ContentMemo

    class Whole:
        name = "whole"

        def count(self, text: str) -> int:
            return 1 if text else 0

    text = "x\n" * 400
    assert ContentMemo().tokenizer(Whole()).count(text) == 1


def test_a_long_single_line_with_its_newline_is_counted_whole():
    from pruning.content_memo import ContentMemo

    counting = ContentMemo().tokenizer(TOKENIZER)
    for text in ("(" * 1000 + "\n", "(" * 1000 + "\n\n", "x = [" + "1, " * 400 + "]\n"):
        assert counting.count(text) == TOKENIZER.count(text)
