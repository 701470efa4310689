"""The pipeline builds each context in a buffer with the previous one's snippets as `previous`:
a snippet shown at the last pause is still there at the next (an engine's prefix cache keeps it)."""

from indexer import WorkspaceIndex
from lsp_server.config import load_settings
from lsp_server.pipeline import CompletionPipeline
from pruning.file_uses import MAX_FILE_NAMES


def test_the_next_context_in_a_buffer_keeps_the_snippet_the_last_one_showed(tmp_path):
    names = [f"far_{i:02d}" for i in range(MAX_FILE_NAMES + 4)]
    (tmp_path / "util.py").write_text("".join(f"def {name}(x):\n    return x\n\n\n" for name in names))
    main = f"from util import {', '.join(names)}\n\n\ndef first():\n"
    main += "".join(f"    {name}(1)\n    {name}(2)\n    {name}(3)\n" for name in names)
    main += "".join(f"\n\ndef filler_{i}(x):\n    return x + {i}\n" for i in range(30)) + "\n\ndef here():\n    \n"
    (tmp_path / "main.py").write_text(main)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    path = str(tmp_path / "main.py")
    index.did_open(path, main, "python")
    settings, _ = load_settings(None)
    typing_on = CompletionPipeline(settings, str(tmp_path), index=index)
    symbols = lambda parts: {s.symbol for s in parts.snippets}  # noqa: E731
    assert "far_00" in symbols(typing_on.build_context(path, main, main.index("far_00(3)"), language="python"))
    assert "far_00" in symbols(typing_on.build_context(path, main, len(main) - 1, language="python"))
    fresh = CompletionPipeline(settings, str(tmp_path), index=index)
    assert "far_00" not in symbols(fresh.build_context(path, main, len(main) - 1, language="python"))
    index.close()
