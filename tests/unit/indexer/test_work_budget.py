"""`work_budget`: tree-sitter parses, queries and partitions give up once their budget is spent,
leave the parser usable, and run unbounded outside any budget."""

from __future__ import annotations

import pytest

from indexer import languages, work_budget
from indexer.work_budget import BudgetExceeded, limit


class FakeClock:
    """Seconds that advance by `step` at every reading."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_nested_budget_ends_no_later_than_its_caller():
    clock = FakeClock()
    with limit(100, clock) as outer:
        with limit(1000, clock) as inner:
            assert inner.deadline == outer.deadline
        with limit(10, clock) as short:
            assert short.deadline < outer.deadline


def test_check_raises_only_once_the_budget_is_spent():
    clock = FakeClock()
    work_budget.check()  # no budget: nothing is bounded
    with limit(100, clock):
        work_budget.check()
        clock.now += 0.2
        with pytest.raises(BudgetExceeded):
            work_budget.check()


def test_a_parse_past_its_budget_is_abandoned_and_the_parser_stays_usable():
    source = b"x = [" * 20000
    with pytest.raises(BudgetExceeded), limit(1, FakeClock(step=0.01)):
        languages.parse("python", source)
    tree = languages.parse("python", b"def f():\n    return 1\n")
    assert languages.root_sexp(tree).startswith("(module (function_definition")
    with limit(60_000):  # a budget that holds: the same tree as without one
        assert languages.root_sexp(languages.parse("python", source)) == languages.root_sexp(
            languages.parse("python", source))


def test_queries_past_their_budget_and_error_fanouts_raise():
    tree = languages.parse("python", b"(" * 20000)
    source = b"(" * 20000
    with pytest.raises(BudgetExceeded), limit(1, FakeClock(step=0.01)):
        languages.tag_captures("python", tree)
    with pytest.raises(BudgetExceeded), limit(1, FakeClock(step=0.01)):
        languages.nodes_of_types("python", tree.root_node, frozenset({"identifier"}), (0, len(source)))
    big = b"def f(a):\n    return a\n\n" + b"(" * 20000
    big_tree = languages.parse("python", big)
    with pytest.raises(BudgetExceeded), limit(60_000):  # time left, but 20,000 error children
        languages.partition("python", big_tree, big, 512)
    leaves, _ = languages.partition("python", big_tree, big, 512)  # unbounded: completes
    assert leaves[0][0] == 0 and leaves[-1][1] == len(big)
