"""Post-processing cases with expected outputs (block truncation, suffix dedupe, brackets, modes)."""

import pytest

from pruning.blocks import block_end, wants_multiline
from pruning.postprocess import balance_brackets, drop_suffix_repeats, postprocess

CASES = [
    # (name, language, prefix, suffix, completion, multiline, expected)
    ("python block ends at dedent", "python", "def f(x):\n    ", "\n\ndef other():\n    pass\n",
     "return x + 1\n\ndef g():\n    pass", None, "return x + 1"),
    ("python new def stops after its block", "python", "", "",
     "def g():\n    return 1\n\ndef h():\n    pass", None, "def g():\n    return 1"),
    ("python if/else kept whole, then stops", "python", "def f(x):\n    ", "\n",
     "if x:\n        a()\n    else:\n        b()\n    return 3\nprint(1)", None,
     "if x:\n        a()\n    else:\n        b()"),
    ("typescript closer the prefix opened is dropped", "typescript", "function f(x: number) {\n  ", "\n}\n",
     "return x;\n}\n\nfunction g() {}", None, "return x;"),
    ("typescript block keeps its own closer", "typescript", "function f(x: number) {\n  ", "\n}\n",
     "if (x) {\n    y();\n  } else {\n    z();\n  }\n  return 1;\n}", None,
     "if (x) {\n    y();\n  } else {\n    z();\n  }"),
    ("go statements until the function closes", "go", "func f() int {\n\t", "\n}\n",
     "x := 1\n\treturn x\n}\n\nfunc g() {}", None, "x := 1\n\treturn x"),
    ("java method body", "java", "class A {\n  int f() {\n    ", "\n  }\n}\n",
     "int y = 2;\n    return y;\n  }\n\n  int g() { return 1; }", None, "int y = 2;\n    return y;"),
    ("suffix repeat dropped", "python", "def f():\n    ", "\n    return x\n",
     "x = compute()\n    return x\n", None, "x = compute()"),
    ("bracket already in suffix", "python", "print(foo(", "))\n", "a, b))", None, "a, b"),
    ("own brackets kept", "python", "x = ", ")\n", "foo(bar))", False, "foo(bar)"),
    ("single line mode cuts", "python", "x = ", "\n", "compute()\ny = 2", False, "compute()"),
    ("special token cut", "python", "x = ", "\n", "compute()<|endoftext|>garbage", False, "compute()"),
    ("only whitespace becomes empty", "python", "x = ", "\n", "   \n\t  ", None, ""),
    ("inline overlap with rest of line", "python", "if x", ":\n", " > 0:", False, " > 0"),
]


@pytest.mark.parametrize("name,language,prefix,suffix,completion,multiline,expected", CASES,
                         ids=[c[0] for c in CASES])
def test_postprocess_cases(name, language, prefix, suffix, completion, multiline, expected):
    kwargs = {} if multiline is None else {"multiline": multiline}
    assert postprocess(completion, prefix=prefix, suffix=suffix, language=language, **kwargs) == expected


def test_never_mode_forces_one_line():
    assert postprocess("a\nb", prefix="def f():\n    ", suffix="\n", language="python",
                       multiline_mode="never") == "a"


@pytest.mark.parametrize("prefix,suffix,language,expected", [
    ("def f(x):\n    ", "\n", "python", True),  # empty block body after ':'
    ("function f() {", "}\n", "typescript", True),  # auto-closed brace
    ("x = foo(", ")\n", "python", False),  # mid-line
    ("x = 1  # note ", "\n", "python", False),  # in a comment
    ("def f():\n    a = 1\n    ", "\n    b = 2\n", "python", False),  # between statements
    ("def f():\n    a = 1\n    ", "\nprint()\n", "python", True),  # end of the block
])
def test_wants_multiline_from_syntax(prefix, suffix, language, expected):
    assert wants_multiline(prefix, suffix, language) is expected


def test_block_end_prefers_fewer_syntax_errors():
    # The indentation cut would keep an unfinished call; re-parsing picks the last complete line.
    completion = "a = 1\n    b = foo(\n"
    cut = block_end(completion, "def f():\n    ", "\n", "python")
    assert completion[:cut] == "a = 1"


def test_helpers():
    assert drop_suffix_repeats("a\n  b\n  c", "\n  b\n  c\n") == "a"
    assert drop_suffix_repeats("a\n  }", "\n}\n") == "a\n  }"  # a closer at another depth stays
    assert balance_brackets("x]", "]") == "x"
    assert balance_brackets("[x]", "]") == "[x]"


def test_statements_after_a_nested_block_in_a_body_are_kept():
    body = "    total = 0\n    for x in items:\n        total += x\n    return total"
    assert postprocess(body, prefix="def total(items):\n", suffix="", language="python", multiline=True) == body


@pytest.mark.parametrize("multiline", [True, False])
def test_indentation_the_cursor_sits_after_is_not_repeated(multiline):
    prefix = "def f(points):\n    "
    assert postprocess("    distance = len(points)", prefix=prefix, suffix="\n", language="python",
                       multiline=multiline) == "distance = len(points)"
    # At column 0 the model's indentation is needed and kept.
    assert postprocess("    distance = 1", prefix="def f():\n", suffix="\n", language="python",
                       multiline=multiline) == "    distance = 1"


def test_single_line_copy_of_the_next_line_is_dropped():
    prefix = "def f(x):\n    "
    suffix = "\n    return x\n"
    assert postprocess("return x", prefix=prefix, suffix=suffix, language="python", multiline=False) == ""
    assert postprocess("x += 1", prefix=prefix, suffix=suffix, language="python", multiline=False) == "x += 1"


# ---- length bounds: whatever a backend sends


def test_bound_length_cuts_to_the_token_and_line_bounds():
    from pruning.postprocess import CHARS_PER_TOKEN, MAX_CHARS, bound_length

    assert bound_length("x" * 10_000, max_tokens=4) == "x" * (4 * CHARS_PER_TOKEN)
    assert len(bound_length("x" * (MAX_CHARS * 3))) == MAX_CHARS
    assert bound_length("a\nb\nc\nd", max_lines=2) == "a\nb"
    assert bound_length("a\nb", max_lines=2) == "a\nb"
    short = "return a + b"
    assert bound_length(short, max_tokens=48, max_lines=1) is short


def test_postprocess_bounds_a_huge_reply():
    huge_line = "x" * (10 * 1024 * 1024)
    single = postprocess(huge_line, prefix="v = ", multiline=False, max_tokens=48)
    assert 0 < len(single) <= 48 * 32
    many_lines = "    y = 1\n" * 1_000_000
    multi = postprocess(many_lines, prefix="def f():\n", language="python", multiline=True,
                        max_tokens=128, max_lines=12)
    assert 0 < len(multi) <= 128 * 32 and multi.count("\n") < 12
