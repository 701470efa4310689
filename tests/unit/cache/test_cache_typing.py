from inference.cache.typing_through import (TypingThroughTier, continuation, safe_partial, suffixes_agree,
                                            typed_since)

from .helpers_cache import request

DEPS = (("/ws/b.py", "1"),)


def test_typed_since_plain_extension():
    assert typed_since("def f(", "def f(x", 10) == "x"
    assert typed_since("def f(", "def f(", 10) == ""
    assert typed_since("def f(", "def g(x", 10) is None
    assert typed_since("ab", "abcdef", 3) is None  # more typed than the completion is long


def test_typed_since_follows_a_sliding_prefix_window():
    lines = [f"line_{i} = {i}\n" for i in range(40)]
    old = "".join(lines[5:30]) + "value = "
    new = "".join(lines[7:30]) + "value = compute("  # window start moved by two lines
    assert typed_since(old, new, 20) == "compute("


def test_typed_since_rejects_a_changed_shared_region():
    lines = [f"line_{i} = {i}\n" for i in range(40)]
    old = "".join(lines[5:30]) + "value = "
    changed = "".join(lines[7:12]) + "line_12 = 999\n" + "".join(lines[13:30]) + "value = compute("
    assert typed_since(old, changed, 20) is None


def test_continuation_and_single_line_cut():
    assert continuation("foo(bar)\n    return 1", "fo", True) == "o(bar)\n    return 1"
    assert continuation("foo(bar)\n    return 1", "fo", False) == "o(bar)"
    assert continuation("foo(bar)\n    return 1", "foo(bar)\n    ", True) == "return 1"
    assert continuation("foo(bar)", "foo(bar)", True) is None
    assert continuation("foo(bar)", "fox", True) is None


def test_safe_partial_and_suffix_agreement():
    assert safe_partial("a = 1\nb = compu") == "a = 1"
    assert safe_partial("result = compu") == "result = "
    assert suffixes_agree(")\nx = 1\n", ")\nx = 1\n")
    assert suffixes_agree(")\nx = 1\n", ")\nx = 1\ny = 2\n")  # the window shrank by a line
    assert not suffixes_agree(")\nx", ")\nxy")  # not a whole-line head
    assert not suffixes_agree(")\n", "]\n")
    assert not suffixes_agree(")", ")]")  # an auto-closed bracket


def test_typing_into_the_shown_completion_serves_the_rest():
    tier = TypingThroughTier(8)
    first = request("def area(r):\n    ", "\n")
    tier.note_shown(first, DEPS, "return 3.14 * r * r")
    assert tier.lookup(request("def area(r):\n    ret", "\n"), DEPS) == "urn 3.14 * r * r"
    assert tier.lookup(request("def area(r):\n    retx", "\n"), DEPS) is None
    assert tier.lookup(request("def area(r):\n    ret", ")\n"), DEPS) is None
    assert tier.lookup(request("def area(r):\n    ret", "\n", path="/ws/other.py"), DEPS) is None
    assert tier.stats.hits == 1 and tier.stats.misses == 3


def test_next_line_is_pre_answered_from_a_multi_line_completion():
    tier = TypingThroughTier(8)
    tier.note_shown(request("def f(x):\n", ""), DEPS, "    y = x + 1\n    return y")
    after_enter = request("def f(x):\n    y = x + 1\n    ", "")
    assert tier.lookup(after_enter, DEPS) == "return y"
    single = request("def f(x):\n    y", "", multiline=False)
    assert tier.lookup(single, DEPS) == " = x + 1"


def test_model_tail_beyond_the_shown_text_is_rechecked_against_the_suffix():
    tier = TypingThroughTier(8)
    first = request("def f(x):\n", "\nprint(f(2))\n")
    tier.note_model_text(first, DEPS, "    y = x + 1\n    return y\n\nprint(f(2))", final=True)
    tier.note_shown(first, DEPS, "    y = x + 1")
    got = tier.lookup(request("def f(x):\n    y = x + 1\n", "\nprint(f(2))\n"), DEPS)
    assert got == "    return y"  # the repeated `print(f(2))` was cut by the suffix re-check
    calls = []
    assert tier.lookup(request("def f(x):\n    y = x + 1\n", "\nprint(f(2))\n"), DEPS,
                       verify=lambda text: calls.append(text)) is None
    assert calls and tier.stats.rejected == 1


def test_a_completion_still_streaming_serves_whole_lines_only():
    tier = TypingThroughTier(8)
    first = request("def f(x):\n", "")
    tier.note_model_text(first, DEPS, "    y = x + 1\n    ret", final=False)
    assert tier.lookup(request("def f(x):\n    y", ""), DEPS) == " = x + 1"
    tier.note_model_text(first, DEPS, "    y = x + 1\n    return y\n", final=True)
    assert tier.lookup(request("def f(x):\n    y = x + 1\n    ", ""), DEPS) == "return y\n"


def test_records_of_an_outdated_dependency_are_dropped_and_never_served():
    tier = TypingThroughTier(8)
    tier.note_shown(request("x = ", ""), DEPS, "helper(1)")
    assert tier.lookup(request("x = h", ""), (("/ws/b.py", "2"),)) is None  # request built from new b.py
    assert tier.invalidate("/ws/b.py", "1") == 0
    assert tier.invalidate("/ws/b.py", "2") == 1
    assert tier.lookup(request("x = h", ""), DEPS) is None


def test_capacity_evicts_the_oldest_record():
    tier = TypingThroughTier(2)
    for i in range(3):
        tier.note_shown(request(f"v{i} = ", ""), (), f"value_{i}")
    assert tier.lookup(request("v0 = val", ""), ()) is None
    assert tier.lookup(request("v2 = val", ""), ()) == "ue_2"
    assert tier.stats.capacity == 1


def test_typed_since_refuses_a_window_reaching_further_back():
    old = "def f(x):\n    "
    assert typed_since(old, "# new comment\n" + old + "ret", 10) is None
