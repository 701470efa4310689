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
