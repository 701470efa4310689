"""Workspace scan: ignore rules, globs, size limit, binary and non-UTF-8 files."""

from __future__ import annotations

import logging
import os

from indexer import ScanOptions, WorkspaceIndex
from indexer.ignore import compile_glob, gitignore_verdict, parse_gitignore
from indexer.workspace import is_candidate, read_source


def write(root, rel, data):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return str(path).replace(os.sep, "/")


def indexed(index, root):
    base = str(root).replace(os.sep, "/") + "/"
    return sorted(p[len(base):] for p in index.graph.files)


def test_gitignore_nested_rules_negation_and_directories(tmp_path):
    write(tmp_path, ".gitignore", "build/\n*.gen.py\n!keep.gen.py\n/top_only.py\n# comment\n")
    write(tmp_path, "src/.gitignore", "local.py\n")
    for rel in ["a.py", "build/b.py", "x.gen.py", "keep.gen.py", "top_only.py", "src/top_only.py",
                "src/local.py", "src/ok.py", "deep/build/c.py", "notes.md"]:
        write(tmp_path, rel, "x = 1\n")
    index = WorkspaceIndex(snapshot=False)
    report = index.scan([str(tmp_path)])
    assert indexed(index, tmp_path) == ["a.py", "keep.gen.py", "src/ok.py", "src/top_only.py"]
    assert report.files == 4 and report.languages == {"python": 4}


def test_include_exclude_globs_and_default_excludes(tmp_path):
    for rel in ["src/a.py", "src/b.ts", "src/vendor/c.py", "tests/t.py", "node_modules/m/i.js",
                ".git/hooks/h.py", "src/__pycache__/a.py"]:
        write(tmp_path, rel, "x = 1\n")
    index = WorkspaceIndex(ScanOptions(include=("src/**",), exclude=ScanOptions().exclude + ("**/vendor/**",)),
                           snapshot=False)
    index.scan([str(tmp_path)])
    assert indexed(index, tmp_path) == ["src/a.py", "src/b.ts"]
    root = str(tmp_path).replace(os.sep, "/")
    assert is_candidate(root, f"{root}/src/a.py", index.options)
    assert not is_candidate(root, f"{root}/src/vendor/c.py", index.options)
    assert not is_candidate(root, f"{root}/tests/t.py", index.options)


def test_large_binary_and_invalid_utf8_files_are_skipped_with_a_logged_reason(tmp_path, caplog):
    write(tmp_path, "ok.py", "def f():\n    pass\n")
    big = write(tmp_path, "big.py", b"x = 1\n" * (10 * 1024 * 1024 // 6 + 1))  # > 10 MB
    binary = write(tmp_path, "blob.c", b"int x;\x00\x01\x02")
    latin1 = write(tmp_path, "latin.py", "s = 'caf\xe9'\n".encode("latin-1"))
    index = WorkspaceIndex(snapshot=False)
    with caplog.at_level(logging.INFO, logger="arbor.indexer"):
        report = index.scan([str(tmp_path)])
    assert indexed(index, tmp_path) == ["ok.py"]
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons == {big: "too_large", binary: "binary", latin1: "not_utf8"}
    for path in reasons:
        assert any(path in r.getMessage() for r in caplog.records)
    assert report.to_json()["skipped"]["by_reason"] == {"binary": 1, "not_utf8": 1, "too_large": 1}


def test_max_file_bytes_setting_and_open_buffers_of_large_files(tmp_path):
    small = write(tmp_path, "small.py", "a = 1\n")
    write(tmp_path, "medium.py", "b = 1\n" * 100)
    index = WorkspaceIndex(ScanOptions(max_file_bytes=100), snapshot=False)
    report = index.scan([str(tmp_path)])
    assert indexed(index, tmp_path) == ["small.py"]
    assert [s.reason for s in report.skipped] == ["too_large"]
    assert isinstance(read_source(small, 100), bytes)


def test_rescan_drops_deleted_files_and_keeps_open_buffers(tmp_path):
    a = write(tmp_path, "a.py", "def a():\n    pass\n")
    b = write(tmp_path, "b.py", "def b():\n    pass\n")
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    index.did_open(b, "def b2():\n    pass\n", "python")
    os.remove(a)
    os.remove(b)
    index.scan()
    assert indexed(index, tmp_path) == ["b.py"]
    assert [d.name for d in index.graph.tags(b).definitions] == ["b2"]


def test_workspace_folders_can_be_added_and_removed(tmp_path):
    write(tmp_path, "one/a.py", "x = 1\n")
    write(tmp_path, "two/b.py", "y = 1\n")
    index = WorkspaceIndex(snapshot=False)
    index.add_root(str(tmp_path / "one"))
    index.add_root(str(tmp_path / "two"))
    assert indexed(index, tmp_path) == ["one/a.py", "two/b.py"]
    index.remove_root(str(tmp_path / "one"))
    assert indexed(index, tmp_path) == ["two/b.py"]
    assert index.roots == (str(tmp_path / "two").replace(os.sep, "/"),)


def test_progress_is_reported_from_zero_to_total(tmp_path):
    for i in range(5):
        write(tmp_path, f"m{i}.py", f"v{i} = {i}\n")
    calls: list[tuple[int, int]] = []
    WorkspaceIndex(snapshot=False).scan([str(tmp_path)], progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 5) and calls[-1] == (5, 5)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_glob_syntax():
    assert compile_glob("**/*.py").match("a/b/c.py")
    assert compile_glob("**/*.py").match("c.py")
    assert not compile_glob("*.py").match("a/c.py")
    assert compile_glob("src/**").match("src/x/y.ts")
    assert compile_glob("**/{build,dist}/**").match("pkg/dist/a.js")
    assert compile_glob("file?.[ch]").match("file1.h")
    assert not compile_glob("file?.[!ch]").match("file1.h")


def test_gitignore_rule_semantics():
    rules = parse_gitignore("*.log\n!important.log\ndocs/*.md\n/root.txt\ncache/\n\\#hash\n")
    assert gitignore_verdict(rules, "a/b.log", False) is True
    assert gitignore_verdict(rules, "important.log", False) is False
    assert gitignore_verdict(rules, "docs/a.md", False) is True
    assert gitignore_verdict(rules, "x/docs/a.md", False) is None  # anchored: has a slash
    assert gitignore_verdict(rules, "root.txt", False) is True
    assert gitignore_verdict(rules, "sub/root.txt", False) is None
    assert gitignore_verdict(rules, "cache", True) is True
    assert gitignore_verdict(rules, "cache", False) is None  # directory-only rule
    assert gitignore_verdict(rules, "#hash", False) is True


def test_huge_open_buffer_is_kept_as_text_without_parsing(tmp_path):
    index = WorkspaceIndex(snapshot=False)
    path = str(tmp_path / "huge.py").replace(os.sep, "/")
    text = "x = 1\n" * (10 * 1024 * 1024 // 6 + 1)
    index.did_open(path, text, "python")
    index.flush()
    assert index.text(path) == text
    assert index.tree(path) is None
    assert path not in index.graph.files
