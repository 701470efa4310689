"""llama.vim's /infill request and its rendering of the answer, rebuilt as pure functions."""

from benchmarks.typing.llamavim_typist import infill_request, render

LINES = ["def f(a):", "    if a:", "        ", "    return 2", "", "x = 1"]


def test_request_on_a_whitespace_only_line():
    body = infill_request(LINES, 2, 8)
    assert body["input_prefix"] == "def f(a):\n    if a:\n"
    assert body["prompt"] == "" and body["n_indent"] == 0
    assert body["input_suffix"] == "\n    return 2\n\nx = 1\n"
    assert body["cache_prompt"] and body["n_predict"] == 128 and body["input_extra"] == []
    assert body["t_max_predict_ms"] == 250 and body["t_max_prompt_ms"] == 500


def test_request_mid_line_and_window_bounds():
    lines = [f"l{i}" for i in range(400)]
    lines[300] = "    return x"
    body = infill_request(lines, 300, 11)
    assert body["prompt"] == "    return " and body["n_indent"] == 4
    assert body["input_prefix"].count("\n") == 256 and body["input_prefix"].startswith("l44\n")
    assert body["input_suffix"].startswith("x\nl301\n") and body["input_suffix"].count("\n") == 65


def test_render_trims_the_lines_indentation_and_drops_repeats():
    assert render("        return 1\n\n", LINES, 2, 8) == "return 1"
    assert render("", LINES, 2, 8) is None
    assert render("   \n", LINES, 2, 8) is None
    lines = ["    ret", "    return 2"]
    assert render("urn 2", lines, 0, 7) is None  # repeats the next line
    assert render("urn 3", lines, 0, 7) == "urn 3"
