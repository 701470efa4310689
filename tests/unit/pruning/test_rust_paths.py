"""Rust's `module::name`: a module bound by `use crate::module;` or `mod module;` qualifies the
names used through it, as `module.name` does in Python."""

from indexer import WorkspaceIndex
import pytest

from pruning.context import build_context
from pruning.names_near import owner_before

pytestmark = pytest.mark.usefixtures("without_similar_windows")


def test_owner_before_reads_rust_paths():
    source = b"size_hint::add(a, b) + x.len() + y: z"
    assert owner_before(source, source.index(b"add")) == "size_hint"
    assert owner_before(source, source.index(b"len")) == "x"
    assert owner_before(source, source.index(b"z")) is None


def test_a_name_used_through_a_used_module_is_that_modules_definition(tmp_path):
    files = {
        "src/lib.rs": "mod size_hint;\nmod other;\nmod adaptors;\n",
        "src/size_hint.rs": "pub fn add(a: usize, b: usize) -> usize {\n    a + b\n}\n",
        "src/other.rs": "pub fn add(x: f64) -> f64 {\n    x\n}\n",
        "src/adaptors.rs": ("use crate::size_hint;\n\npub fn first(a: usize) -> usize {\n"
                            "    size_hint::add(a, 1)\n}\n"
                            + "".join(f"\npub fn filler{i}(x: usize) -> usize {{\n    x + {i}\n}}\n" for i in range(30))
                            + "\npub fn second(a: usize) -> usize {\n    \n}\n"),
    }
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    path = str(tmp_path / "src/adaptors.rs")
    text = (tmp_path / "src/adaptors.rs").read_text()
    index.did_open(path, text, "rust")
    offset = text.rindex("{\n    \n}") + 6
    parts = build_context(path, text, offset, language="rust", index=index, workspace_root=str(tmp_path))
    shown = {(s.path, s.symbol) for s in parts.snippets}
    assert ("src/size_hint.rs", "add") in shown
    assert ("src/other.rs", "add") not in shown


def _context_at_marker(tmp_path, files, path, language):
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body.replace("<|>", ""))
    index = WorkspaceIndex(snapshot=False)
    index.scan([str(tmp_path)])
    text = files[path]
    offset = text.index("<|>")
    text = text.replace("<|>", "")
    index.did_open(str(tmp_path / path), text, language)
    return index, build_context(str(tmp_path / path), text, offset, language=language, index=index,
                                workspace_root=str(tmp_path))


ERROR_RS = ("use std::fmt;\n\npub struct Error {\n    code: u8,\n}\n\n"
            "pub type Result<T> = std::result::Result<T, Error>;\n")


def test_a_predeclared_name_the_file_imports_from_the_crate_is_the_crates_definition(tmp_path):
    files = {
        "src/lib.rs": "mod error;\nmod ser;\n",
        "src/error.rs": ERROR_RS,
        "src/ser.rs": ("use crate::error::{Error, Result};\n\npub struct Serializer;\n\nimpl Serializer {\n"
                       "    fn serialize_u8(&mut self, value: u8) -> Result<()> {\n        Ok(())\n    }\n\n"
                       "<|>\n}\n"),
    }
    index, parts = _context_at_marker(tmp_path, files, "src/ser.rs", "rust")
    assert ("src/error.rs", "Result") in {(s.path, s.symbol) for s in parts.snippets}
    assert index.snapshot_for(str(tmp_path / "src/ser.rs")).workspace_bound_names(
        str(tmp_path / "src/ser.rs")) == frozenset({"Error", "Result"})


def test_a_predeclared_name_imported_from_outside_the_workspace_is_not_looked_up(tmp_path):
    files = {
        "src/lib.rs": "mod error;\nmod fmt_impl;\n",
        "src/error.rs": ERROR_RS,
        "src/fmt_impl.rs": ("use std::fmt::{self, Result};\n\npub struct Shown;\n\nimpl fmt::Display for Shown {\n"
                            "    fn fmt(&self, f: &mut fmt::Formatter) -> Result {\n        Ok(())\n    }\n\n"
                            "<|>\n}\n"),
    }
    index, parts = _context_at_marker(tmp_path, files, "src/fmt_impl.rs", "rust")
    assert ("src/error.rs", "Result") not in {(s.path, s.symbol) for s in parts.snippets}
    assert index.snapshot_for(str(tmp_path / "src/fmt_impl.rs")).workspace_bound_names(
        str(tmp_path / "src/fmt_impl.rs")) == frozenset()
