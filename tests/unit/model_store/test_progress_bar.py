"""The pull progress bar: pure rendering, and short logs when stderr is not a terminal."""

from __future__ import annotations

import io

from lsp_server.subcommands.progress_bar import ProgressBar, format_bytes, render


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_render_shows_share_and_sizes():
    assert render("assemble", 245_700_032, 491_400_064) == (
        "assemble                         [############............]  50% 246 MB/491 MB")
    assert render("convert tensors", 3, 4).endswith("[##################......]  75% 3/4")
    assert render("hub Qwen/Qwen2.5-Coder-0.5B", 0, None) == "hub Qwen/Qwen2.5-Coder-0.5B ..."
    assert format_bytes(2_520_702_384) == "2.52 GB"


def test_pipe_output_prints_each_tenth_once():
    out = io.StringIO()
    bar = ProgressBar(out)
    for done in range(0, 1_000_001, 10_000):
        bar("assemble", done, 1_000_000)
    lines = out.getvalue().splitlines()
    assert len(lines) == 11 and lines[-1].endswith("100% 1 MB/1 MB")


def test_terminal_output_redraws_in_place_and_keeps_finished_stages():
    out = Terminal()
    bar = ProgressBar(out)
    bar("verify sha256", 0, 1)
    bar("verify sha256", 1, 1)
    bar.message("done")
    text = out.getvalue()
    assert text.count("\r") == 2 and "100% 1/1" in text and text.endswith("\ndone\n")
