"""FIM windows that typing at the cursor rarely moves: the suffix window's far bound on line
groups, the prefix window kept from the start the previous prompt showed."""

from hypothesis import given, settings, strategies as st

from pruning.budget import ApproxTokenizer, prefix_window_from, suffix_window
from pruning.context import HELD_WINDOW_SLACK, build_context

TOKENIZER = ApproxTokenizer()
code_lines = st.lists(st.text(alphabet="abcdefgh_ (){}:.,=\t\"'", max_size=60), max_size=60)


@settings(max_examples=200, deadline=None)
@given(code_lines, st.integers(0, 70), st.integers(0, 300))
def test_a_prefix_window_from_a_line_is_that_tail_while_it_fits(lines, start, limit):
    prefix = "\n".join(lines)
    window = prefix_window_from(prefix, start, limit, TOKENIZER)
    cut = 0
    for _ in range(min(start, prefix.count("\n"))):
        cut = prefix.index("\n", cut) + 1
    tail = prefix[cut:]
    if start > prefix.count("\n") or TOKENIZER.count(tail) > limit:
        assert window is None
    else:
        assert window.text == tail and window.start_line == start and window.tokens == TOKENIZER.count(tail)


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


def _typed_contexts(before: str, typed: str, after: str, budget: int):
    """The contexts of typing `typed` one character at a time after `before`, each holding the
    layout of the one before and starting the prefix window on its line (as the server's pipeline
    does)."""
    contexts, layout = [], None
    for n in range(len(typed) + 1):
        parts = build_context("/w/m.py", before + typed[:n] + after, len(before) + n, budget_tokens=budget,
                              holds=(layout,) if layout else (), prefix_start=layout.prefix_start if layout else None)
        layout = parts.layout
        contexts.append(parts)
    return contexts


def _start_line(text_before_cursor: str, parts) -> int:
    return text_before_cursor.count("\n") - parts.prefix.count("\n")


def test_a_fresh_prefix_window_fills_the_room_the_snippets_leave():
    head = "".join(f"value_{i} = compute(value_{i - 1}, limit={i})\n" for i in range(200))
    parts = build_context("/w/m.py", head + "result = ", len(head) + 9, budget_tokens=256)
    one_more = head.splitlines(keepends=True)[_start_line(head + "result = ", parts) - 1]
    assert parts.tokens <= 256 < parts.tokens + TOKENIZER.count(one_more)
    assert parts.layout.prefix_start == _start_line(head + "result = ", parts)


def test_typing_moves_the_prefix_window_start_once_per_slack():
    prefix = "".join(f"value_{i} = compute(value_{i - 1}, limit={i})\n" for i in range(200))
    typed = "".join(f"    result_{i} = combine(result_{i - 1}, {i})\n" for i in range(40))
    budget = 300
    contexts = _typed_contexts(prefix, typed, "", budget)
    starts = [_start_line(prefix + typed[:n], parts) for n, parts in enumerate(contexts)]
    moves = sum(b != a for a, b in zip(starts, starts[1:]))
    slack = int(budget * HELD_WINDOW_SLACK)
    assert 0 < moves <= TOKENIZER.count(typed) // slack + 1
    assert all(parts.tokens <= budget + slack for parts in contexts)
    assert max(parts.tokens for parts in contexts) > budget  # the kept window did run over


def test_typing_a_line_keeps_both_windows_of_the_context():
    head = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(120))
    tail = "".join(f"def after_{i}(y):\n    return y * {i}\n\n" for i in range(60))
    typed = "    total = helper_3(x) + helper_4(x) + helper_5(x)"
    before = head + "def target(x):\n"
    contexts = _typed_contexts(before, typed, "\n\n" + tail, 600)
    for a, b in zip(contexts, contexts[1:]):
        if [s.text for s in a.snippets] == [s.text for s in b.snippets]:  # else the prompt's start moved anyway
            assert _start_line(before, b) == _start_line(before, a)
        else:  # nothing of a fresh choice's prompt is cached: it keeps to the budget
            assert b.tokens <= 600
    assert len({_start_line(before, parts) for parts in contexts}) <= 2
    assert len({parts.suffix for parts in contexts}) == 1


def test_a_cursor_moved_up_past_the_kept_start_gets_a_fresh_window():
    text = "".join(f"value_{i} = compute(value_{i - 1}, limit={i})\n" for i in range(200))
    low = build_context("/w/m.py", text, len(text), budget_tokens=256)
    up = text.index("value_100 =")
    moved = build_context("/w/m.py", text, up, budget_tokens=256, prefix_start=low.layout.prefix_start)
    assert moved.prefix == build_context("/w/m.py", text, up, budget_tokens=256).prefix
    assert moved.layout.prefix_start < low.layout.prefix_start


def test_a_partly_held_layout_keeps_the_prompt_within_the_budget():
    """Held snippets cut to fit (the suffix window grew) change the prompt's beginning: nothing
    of it is cached, so the kept prefix window may not run over the budget behind them."""
    head = "".join(f"def helper_{i}(x, y, z):\n    return x + y * {i} - z\n\n" for i in range(120))
    body = "".join(f"    value_{i} = helper_{i % 7}(value_{i - 1}, {i}, limit)\n" for i in range(60))
    before = head + "def target(limit):\n" + body + "    total = helper_3(1, 2, 3) + helper_4(1, 2, 3)"
    shown = build_context("/w/m.py", before + "\n", len(before), budget_tokens=300)
    typed = before + "\n    more = total + 1\n    again = more * 2"
    tail = "".join(f"    extra_{i} = helper_{i % 9}(total, {i}, limit) + helper_{(i + 1) % 9}(total, 0, 0)\n"
                   for i in range(40))
    parts = build_context("/w/m.py", typed + "\n" + tail, len(typed), budget_tokens=300, holds=(shown.layout,),
                          prefix_start=shown.layout.prefix_start)
    assert 0 < len(parts.snippets) < len(shown.snippets)  # the layout held in part
    assert parts.tokens <= 300
