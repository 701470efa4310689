"""Quantised FIM windows: far bounds on line groups, so that typing at the cursor rarely moves them."""

from hypothesis import given, settings, strategies as st

from pruning.budget import ApproxTokenizer, prefix_window, suffix_window
from pruning.context import WINDOW_QUANTUM, build_context

TOKENIZER = ApproxTokenizer()
code_lines = st.lists(st.text(alphabet="abcdefgh_ (){}:.,=\t\"'", max_size=60), max_size=60)


@settings(max_examples=200, deadline=None)
@given(code_lines, st.integers(0, 200), st.integers(1, 12))
def test_quantised_prefix_window_starts_on_a_line_group(lines, budget, quantum):
    prefix = "\n".join(lines)
    full = prefix_window(prefix, budget, TOKENIZER)
    window = prefix_window(prefix, budget, TOKENIZER, quantum=quantum)
    assert prefix.endswith(window.text) and full.text.endswith(window.text)
    assert window.tokens == TOKENIZER.count(window.text) <= budget
    assert window.start_line == prefix.count("\n", 0, len(prefix) - len(window.text))
    if window.start_line != full.start_line:
        assert window.start_line % quantum == 0
        assert window.start_line - full.start_line < quantum


@settings(max_examples=200, deadline=None)
@given(code_lines, st.integers(0, 200), st.integers(1, 12))
def test_quantised_suffix_window_ends_after_a_line_group(lines, budget, quantum):
    suffix = "\n".join(lines)
    full = suffix_window(suffix, budget, TOKENIZER)
    window = suffix_window(suffix, budget, TOKENIZER, quantum=quantum)
    assert full.text.startswith(window.text)
    assert window.tokens == TOKENIZER.count(window.text) <= budget
    after_cursor_line = window.text.count("\n") - 1
    if window.text != full.text:
        assert after_cursor_line % quantum == 0 and full.text.count("\n") - window.text.count("\n") < quantum


def test_typing_moves_the_prefix_window_start_once_per_line_group():
    prefix = "".join(f"value_{i} = compute(value_{i - 1}, limit={i})\n" for i in range(200))
    typed = "".join(f"    result_{i} = combine(result_{i - 1}, {i})\n" for i in range(40))
    starts = []
    for n in range(len(typed) + 1):
        text = prefix + typed[:n]
        starts.append(prefix_window(text, 300, TOKENIZER, quantum=8).start_line)
    moves = [b - a for a, b in zip(starts, starts[1:]) if b != a]
    assert moves and all(move == 8 for move in moves)
    assert len(moves) <= 40 // 8 + 1
    assert all(start % 8 == 0 for start in starts)


def test_typing_a_line_keeps_both_windows_of_the_context():
    head = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(120))
    tail = "".join(f"def after_{i}(y):\n    return y * {i}\n\n" for i in range(60))
    typed = "    total = helper_3(x) + helper_4(x) + helper_5(x)"
    before = head + "def target(x):\n"
    contexts = [build_context("/w/m.py", before + typed[:n] + "\n\n" + tail, len(before) + n, budget_tokens=600)
                for n in range(len(typed) + 1)]
    starts = [before.count("\n") - parts.prefix.count("\n") for parts in contexts]
    assert all(start % WINDOW_QUANTUM == 0 for start in starts)
    moves = 0
    for (a, start_a), (b, start_b) in zip(zip(contexts, starts), zip(contexts[1:], starts[1:])):
        assert b.suffix == a.suffix
        if start_b != start_a and [s.text for s in a.snippets] == [s.text for s in b.snippets]:
            assert start_b - start_a == WINDOW_QUANTUM  # an overflow: the start jumps one group forward
            moves += 1
    assert moves <= len(typed) // 20  # the typed line is ~25 tokens; a group of these lines ~50
