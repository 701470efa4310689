"""`arbor-ls index DIR [--json]`."""

from __future__ import annotations

import json

from lsp_server.cli import main


def test_index_json_summary(tmp_path, capsys):
    (tmp_path / "a.py").write_text("def f():\n    pass\n\nclass C:\n    pass\n")
    (tmp_path / "b.ts").write_text("export function g(): number { return 1; }\n")
    (tmp_path / "blob.c").write_bytes(b"\x00\x01binary")
    (tmp_path / "README.md").write_text("# not indexed\n")
    assert main(["index", str(tmp_path), "--json", "--no-snapshot"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == 2
    assert report["symbols"] == 3
    assert report["bytes"] == len("def f():\n    pass\n\nclass C:\n    pass\n") + len(
        "export function g(): number { return 1; }\n")
    assert report["languages"] == {"python": 1, "typescript": 1}
    assert report["skipped"]["by_reason"] == {"binary": 1}
    assert report["seconds"] >= 0


def test_index_text_summary_and_config(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "other.py").write_text("y = 1\n")
    config = tmp_path / "arbor.json"
    config.write_text(json.dumps({"index": {"include": ["src/**"]}}))
    assert main(["index", str(tmp_path), "--config", str(config), "--no-snapshot"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("files: 1  symbols: 1")
    assert "python: 1" in out


def test_index_of_a_missing_directory_is_a_usage_error(tmp_path, capsys):
    assert main(["index", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err
