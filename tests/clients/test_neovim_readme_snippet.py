"""The README's plain `vim.lsp.config` snippet works as written in Neovim 0.11: the server starts for
a Python buffer and answers `textDocument/completion` (the fallback for clients without inline
completion, such as nvim-cmp) with the model's completion as a `textEdit`."""

from __future__ import annotations

import re
from pathlib import Path

from tests.clients.neovim_harness import EmbeddedNeovim, backend_settings, require_nvim, server_command
from tests.fakes.openai_server import FakeOpenAIServer

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_snippet() -> str:
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(), flags=re.S)
    [snippet] = [b for b in blocks if "vim.lsp.config('arbor', {" in b and "vim.lsp.enable('arbor')" in b]
    return snippet


def test_plain_vim_lsp_config_snippet_serves_completion(tmp_path):
    require_nvim()
    (tmp_path / "main.py").write_text("def add(a, b):\n    return \n")
    with FakeOpenAIServer("a + b") as fake:
        ed = EmbeddedNeovim(tmp_path)
        try:
            ed.lua(readme_snippet())
            # Point the README's placeholders at this test's server and fake backend.
            ed.lua("vim.lsp.config('arbor', {cmd = ..., init_options = select(2, ...)})",
                   server_command(), backend_settings(fake.url))
            ed.nvim.command("edit main.py")
            ed.wait_for("vim.lsp.get_clients({bufnr=0, name='arbor'})[1] ~= nil "
                        "and vim.lsp.get_clients({bufnr=0, name='arbor'})[1].initialized", what="arbor attached")
            result = ed.lua("""
                local client = vim.lsp.get_clients({bufnr=0, name='arbor'})[1]
                local params = {textDocument = {uri = vim.uri_from_bufnr(0)}, position = {line = 1, character = 11}}
                local response = client:request_sync('textDocument/completion', params, 10000, 0)
                return response and response.result""")
        finally:
            ed.close()
    [item] = result["items"]
    assert item["textEdit"]["newText"] == "a + b"
    assert item["textEdit"]["range"]["start"] == {"line": 1, "character": 11}


def test_neovim_012_inline_completion_snippet_is_valid_lua(tmp_path):
    """Neovim 0.12's built-in inline completion is not run here (the suite has 0.11), but the
    README's lines for it must at least be Lua that uses that API."""
    require_nvim()
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(), flags=re.S)
    [snippet] = [b for b in blocks if "vim.lsp.inline_completion.enable(" in b]
    assert "vim.lsp.inline_completion.get()" in snippet
    ed = EmbeddedNeovim(tmp_path)
    try:
        assert ed.lua("local f, err = loadstring(...); return err or 'ok'", snippet) == "ok"
    finally:
        ed.close()
