"""Definitions a name cannot mean stay out of the context: a stub's second declaration of what a
source file defines, and another file's class member for a bare local name."""

import pytest

from pruning.context import build_context

pytestmark = pytest.mark.usefixtures("without_similar_windows")


def test_a_stub_declaration_gives_way_to_the_source_definition(tmp_path, write_workspace):
    """`attr/__init__.pyi` re-declares (and overloads) what `attr/_make.py` defines."""
    index = write_workspace(tmp_path, {
        "attr/__init__.py": "from ._make import attrib\n",
        "attr/__init__.pyi": "".join(f"@overload\ndef attrib(default: int = ..., x{i}: int = ...) -> int: ...\n"
                                     for i in range(3)),
        "attr/_make.py": "def attrib(default=None, validator=None):\n    return default\n",
        "attr/validators.py": "from ._make import attrib\n\n\ndef field(x):\n    return attrib(x)\n",
    })
    path = str(tmp_path / "attr/validators.py")
    text = (tmp_path / "attr/validators.py").read_text()
    parts = build_context(path, text, text.index("return attrib"), index=index, workspace_root=str(tmp_path))
    shown = [(s.path, s.symbol) for s in parts.snippets if s.symbol == "attrib"]
    assert shown == [("attr/_make.py", "attrib")]


def test_a_stub_alone_is_still_shown(tmp_path, write_workspace):
    index = write_workspace(tmp_path, {
        "ext/__init__.pyi": "def speedup(n: int) -> int: ...\n",
        "app.py": "from ext import speedup\n\n\ndef run(n):\n    return speedup(n)\n",
    })
    path = str(tmp_path / "app.py")
    text = (tmp_path / "app.py").read_text()
    parts = build_context(path, text, text.index("return speedup"), index=index, workspace_root=str(tmp_path))
    assert ("ext/__init__.pyi", "speedup") in {(s.path, s.symbol) for s in parts.snippets}


def test_a_bare_local_name_is_no_class_member_of_another_file(tmp_path, write_workspace, monkeypatch):
    """`msg` is the function's own variable; `NotCallableError.msg` of the imported file is not it
    (and nothing else brings that class: similar code's names are off here)."""
    monkeypatch.setattr("pruning.similar_code.MIN_SIMILARITY", 2.0)
    index = write_workspace(tmp_path, {
        "attr/exceptions.py": "class NotCallableError(TypeError):\n    msg: str = 'not callable'\n\n\n"
                              "class NotAnAttrsClassError(ValueError):\n    pass\n",
        "attr/_make.py": "from .exceptions import NotAnAttrsClassError\n\n\n"
                         "def fields(cls):\n    msg = f'{cls!r} is not an attrs class'\n    print(msg)\n",
    })
    path = str(tmp_path / "attr/_make.py")
    text = (tmp_path / "attr/_make.py").read_text() + "    "  # the line about to raise it
    parts = build_context(path, text, len(text), index=index, workspace_root=str(tmp_path))
    symbols = {s.symbol for s in parts.snippets if s.path == "attr/exceptions.py"}
    assert symbols == {"NotAnAttrsClassError"}


def _snippets(tmp_path, index, rel, text):
    """The snippets of the context at the end of `text`, opened as `rel`."""
    path = str(tmp_path / rel)
    index.did_open(path, text, "python")
    return build_context(path, text, len(text), index=index, workspace_root=str(tmp_path)).snippets


def test_the_enclosing_class_is_no_namesake_in_another_file(tmp_path, write_workspace):
    """`Shrinker(...)` inside `class Shrinker` is that class (the ladder shows it), not the
    `Shrinker` of a file this one does not import."""
    text = "class Shrinker:\n    def clone(self):\n        copy = Shrinker(self.initial)\n        "
    index = write_workspace(tmp_path, {
        "shrinking/common.py": text,
        "conjecture/shrinker.py": "class Shrinker:\n    def shrink(self):\n        pass\n",
    })
    shown = {(s.path, s.symbol) for s in _snippets(tmp_path, index, "shrinking/common.py", text)}
    assert ("conjecture/shrinker.py", "Shrinker") not in shown


def test_a_member_of_a_known_type_is_no_namesake_of_a_file_not_imported(tmp_path, write_workspace):
    """`self.name` of a class that sets it in its constructor is not `name()` of an unrelated
    file; `self.run()` of an imported base class still resolves there."""
    text = ("from base import Base\n\n\nclass Job(Base):\n    def __init__(self, name):\n        self.name = name\n\n"
            "    def label(self):\n        self.run()\n        return self.name\n        ")
    index = write_workspace(tmp_path, {
        "job.py": text,
        "base.py": "class Base:\n    def run(self):\n        pass\n",
        "far/names.py": "def name(x):\n    return x\n",
    })
    snippets = _snippets(tmp_path, index, "job.py", text)
    assert "far/names.py" not in {s.path for s in snippets}
    assert "def run(self)" in "".join(s.text for s in snippets if s.path == "base.py")


def test_a_name_of_similar_code_resolves_only_through_this_files_imports(tmp_path, write_workspace):
    """`normalize_rows`, which a sibling's like code calls, is defined in a module this file does
    not import: its definition is not offered (the sibling's window may still be shown)."""
    text = "def load_rows(db, query):\n    cursor = db.cursor()\n    cursor.execute(query)\n    "
    index = write_workspace(tmp_path, {
        "pkg/a.py": text,
        "pkg/b.py": "from tools.rows import normalize_rows\n\n\ndef load_cols(db, query):\n    cursor = db.cursor()\n"
                    "    cursor.execute(query)\n    return normalize_rows(cursor.fetchall())\n",
        "tools/rows.py": "def normalize_rows(rows):\n    return rows\n",
    })
    assert ("tools/rows.py", "normalize_rows") not in {(s.path, s.symbol) for s in _snippets(tmp_path, index, "pkg/a.py", text)}


def test_a_method_call_on_an_object_of_unknown_type_is_no_namesake_of_files_not_imported(tmp_path, write_workspace):
    """`seen.add(value)` on a local set is none of the `add` methods of three unrelated files."""
    text = "def unique(values):\n    seen = set()\n    for value in values:\n        seen.add(value)\n        "
    index = write_workspace(tmp_path, {
        "app.py": text,
        **{f"far/m{i}.py": f"class Bag{i}:\n    def add(self, item):\n        pass\n" for i in range(3)},
    })
    assert not any(s.path.startswith("far/") for s in _snippets(tmp_path, index, "app.py", text))
