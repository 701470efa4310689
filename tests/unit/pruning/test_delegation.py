"""The enclosing function's own name as a likely next name (pruning.delegation)."""

import pytest

from pruning.context import build_context

pytestmark = pytest.mark.usefixtures("without_similar_windows")


def _context(write_files, tmp_path, files, current, language, cursor_after):
    index = write_files(tmp_path, files)
    path = str(tmp_path / current)
    text = (tmp_path / current).read_text()
    index.did_open(path, text, language)
    offset = text.index(cursor_after) + len(cursor_after)
    return build_context(path, text, offset, language=language, index=index, workspace_root=str(tmp_path))


def test_a_trait_method_body_is_offered_the_same_named_function_it_delegates_to(tmp_path, write_files):
    """`fn interleave(self, other)` in a trait: its body is about to call the free function
    `interleave` of another module, which the cursor's surroundings never name."""
    parts = _context(write_files, tmp_path, {
        "src/adaptors.rs": "pub fn interleave<I, J>(i: I, j: J) -> Interleave<I, J> {\n    todo!()\n}\n",
        "src/lib.rs": ("mod adaptors;\n\npub trait Itertools: Iterator {\n"
                       "    fn interleave<J>(self, other: J) -> Interleave<Self, J> {\n        \n    }\n}\n"),
    }, "src/lib.rs", "rust", "J> {\n        ")
    assert ("src/adaptors.rs", "interleave") in {(s.path, s.symbol) for s in parts.snippets}


def test_a_python_facade_is_offered_the_imported_modules_function_of_the_same_name(tmp_path, write_files):
    """A module-level `fetch` is about to call the `fetch` of the module it imports from."""
    parts = _context(write_files, tmp_path, {
        "pkg/__init__.py": "",
        "pkg/transport.py": ("def send(data: bytes) -> None:\n    pass\n\n\n"
                             "def fetch(url: str, timeout: float = 5.0) -> bytes:\n    return b''\n"),
        "pkg/api.py": "from .transport import send\n\n\ndef fetch(url):\n    \n",
    }, "pkg/api.py", "python", "def fetch(url):\n    ")
    assert any(s.path == "pkg/transport.py" and "def fetch(url: str" in s.text for s in parts.snippets)


def test_a_method_name_is_not_looked_for_in_files_the_module_does_not_import(tmp_path, write_files):
    """`def advance(self)` in a class: the workspace's other `advance` methods are not its delegates."""
    parts = _context(write_files, tmp_path, {
        "pkg/__init__.py": "",
        "pkg/other.py": "class Other:\n    def advance(self) -> int:\n        return 1\n",
        "pkg/walk.py": "import os\n\n\nclass Walker:\n    def advance(self):\n        \n",
    }, "pkg/walk.py", "python", "def advance(self):\n        ")
    assert ("pkg/other.py", "advance") not in {(s.path, s.symbol) for s in parts.snippets}
