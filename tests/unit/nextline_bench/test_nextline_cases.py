"""Case sampling: which lines qualify, masking exactly one line, and the seeded sample."""

from benchmarks.nextline.cases import Candidate, candidates_in, literal_lines, mask, qualifies, sample

TEXT = "import os\n\ndef f(a):\n    total = helper(a)\n    return total\n"


def test_mask_removes_exactly_one_line_and_puts_the_cursor_after_its_indentation():
    m = mask(TEXT, 3)
    assert m.truth == "total = helper(a)"
    assert m.text == "import os\n\ndef f(a):\n    \n    return total\n"
    assert m.text[:m.offset] == "import os\n\ndef f(a):\n    "
    assert m.text[m.offset:] == "\n    return total\n"  # the rest of the file kept after the cursor
    before, after = TEXT.split("\n"), m.text.split("\n")
    assert len(before) == len(after)
    assert [i for i, (x, y) in enumerate(zip(before, after)) if x != y] == [3]


def test_mask_of_a_tab_indented_line_and_out_of_range():
    m = mask("func f() {\n\treturn x + 1\n}\n", 1)
    assert (m.truth, m.text[m.offset - 1:m.offset + 1]) == ("return x + 1", "\t\n")
    try:
        mask("a\n", 5)
    except ValueError:
        pass
    else:
        raise AssertionError("an out-of-range line must be refused")


def test_only_lines_of_real_code_qualify():
    assert qualifies("    total = helper(a)")
    for line in ("", "    ", "# a comment line", "// comment here", "  }) ;", '    """Docstring.', "x = 1"):
        assert not qualifies(line), line


def test_lines_inside_strings_and_comments_are_found_by_the_tree():
    py = 'def f():\n    """Doc.\n    :param x: a thing\n    """\n    return 1\n'
    assert literal_lines(py, "python") == {1, 2, 3}
    go = "package p\nvar s = `\nprintf \"%s\" foo\n`\nfunc f() {\n\treturn\n}\n"
    assert 2 in literal_lines(go, "go") and 4 not in literal_lines(go, "go")


def test_candidates_skip_imports_literals_and_carry_cross_file_names():
    got = candidates_in("pkg", "m.py", TEXT, import_lines={0}, crossfile={3: {"helper"}}, language="python")
    assert [(c.line, c.names) for c in got] == [(2, ()), (3, ("helper",)), (4, ())]
    assert got[1].crossfile and not got[0].crossfile
    assert got[1].case_id == "pkg:m.py:4"


def _pool() -> list[Candidate]:
    return [Candidate("p", f"f{i % 7}.py", i, ("n",) if i % 3 == 0 else ()) for i in range(300)]


def test_sample_is_deterministic_and_keeps_the_cross_file_share():
    pool = _pool()
    a = sample(pool, 40, seed=1, language="python", crossfile_share=0.5)
    assert a == sample(list(pool), 40, seed=1, language="python", crossfile_share=0.5)
    assert a != sample(pool, 40, seed=2, language="python", crossfile_share=0.5)
    assert len(a) == 40 and len(set(a)) == 40
    assert sum(c.crossfile for c in a) == 20


def test_sample_fills_from_the_other_kind_when_one_runs_short():
    pool = [Candidate("p", "a.py", i, ("n",) if i < 3 else ()) for i in range(10)]
    got = sample(pool, 8, seed=0, language="go", crossfile_share=0.5)
    assert len(got) == 8 and sum(c.crossfile for c in got) == 3
