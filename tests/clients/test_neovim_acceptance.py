"""Acceptance as the Neovim plugin reports it, end to end: headless Neovim 0.11 + the plugin + the
real arbor-ls + a fake model. Each test does what a user does with a completion (takes it, takes a
word and dismisses the rest, types through it, moves away) and reads `arbor/stats` back: the
`arbor/shown` / `arbor/accepted` / `arbor/rejected` events and the acceptance figures."""

from __future__ import annotations

from tests.clients.test_neovim_plugin import (  # noqa: F401  (fixtures)
    GHOST_SHOWN,
    editor,
    fake,
    start,
    stats,
    wait_for_counter,
)


def acceptance(ed) -> dict:
    return stats(ed)["acceptance"]


def test_shown_then_accepted_whole_counts_characters_not_bytes(editor, fake):
    fake.reply.default = "größe + 1"  # 9 characters, 11 bytes in UTF-8
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    counters = wait_for_counter(editor, "shown", 1)
    assert counters["shown_chars"] == 9
    editor.type("<Tab>")
    editor.wait_for("not require('arbor').visible()")
    assert editor.lines()[1] == "    return größe + 1"
    counters = wait_for_counter(editor, "accepted_full", 1)
    assert counters["accepted_chars"] == 9 and counters["accepted_completions"] == 1
    figures = acceptance(editor)
    assert figures["rate"] == 1.0 and figures["charsPerShownChar"] == 1.0


def test_word_accepted_then_the_rest_dismissed_is_one_shown_completion_accepted_in_part(editor, fake):
    fake.reply.default = "compute_total(items, tax)"  # 25 characters
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<M-w>")
    editor.wait_for("vim.api.nvim_get_current_line() == '    return compute_total'", what="word accepted")
    assert editor.marks()[0]["virt_text"] == "(items, tax)"
    editor.type("<C-]>")
    editor.wait_for("not require('arbor').visible()")
    counters = wait_for_counter(editor, "rejected_dismissed", 1)
    assert counters["shown"] == 1, "the rest after a partial accept is the same completion"
    assert counters["accepted_word"] == 1 and counters["accepted_chars"] == 13
    figures = acceptance(editor)
    assert (figures["shown"], figures["shownChars"], figures["acceptedCompletions"]) == (1, 25, 1)
    assert (figures["partialAccepts"], figures["fullAccepts"], figures["rejected"]) == (1, 0, 1)
    assert figures["rate"] == 1.0 and figures["charsPerShownChar"] == 0.52


def test_typing_through_is_not_a_new_completion_and_typed_characters_are_not_accepted(editor, fake):
    fake.reply.default = "a + b"
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    responses = len(editor.events("response"))
    editor.type("a")
    editor.wait_for("vim.api.nvim_get_current_line() == '    return a'")
    # the server answers the typed-through position again (from its cache): still the same completion
    editor.wait_for(f"#vim.tbl_filter(function(e) return e.kind == 'response' end, "
                    f"require('arbor.completion').events(0)) > {responses}", what="the answer after typing")
    assert editor.marks()[0]["virt_text"] == " + b"
    editor.type("<Tab>")
    editor.wait_for("not require('arbor').visible()")
    counters = wait_for_counter(editor, "accepted_full", 1)
    assert counters["shown"] == 1 and counters["shown_chars"] == 5
    assert counters["accepted_chars"] == 4  # " + b": the typed "a" is the user's own
    assert acceptance(editor)["rate"] == 1.0 and acceptance(editor)["charsPerShownChar"] == 0.8


def test_a_completion_moved_away_from_is_shown_and_not_accepted(editor, fake):
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<Left>")
    editor.wait_for("#require('arbor.ghost').marks(0) == 0", what="ghost cleared by the cursor move")
    counters = wait_for_counter(editor, "rejected_cleared", 1)
    assert counters["shown"] == 1 and "accepted" not in counters
    figures = acceptance(editor)
    assert figures["rate"] == 0.0 and figures["charsPerShownChar"] == 0.0


def test_arbor_status_shows_the_acceptance_line(editor, fake):
    start(editor, fake)
    editor.type("Go    return ")
    editor.wait_for(GHOST_SHOWN)
    editor.type("<Tab>")
    wait_for_counter(editor, "accepted_full", 1)
    editor.nvim.command("ArborStatus")
    line = "acceptance: 1 of 1 shown (100%) · 1.00 accepted chars per shown char"
    editor.wait_for(f"vim.fn.execute('messages'):find('{line}', 1, true) ~= nil", what=":ArborStatus acceptance line")
