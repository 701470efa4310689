"""Reference chains: the generated one and one found in a real workspace by following imports."""

from benchmarks.load.chain import GENERATED_VARIANT, find_python_chain, write_generated_chain
from benchmarks.load.traces import apply_change


def test_generated_chain_edits_alternate_between_two_definitions(tmp_path):
    chain = write_generated_chain(tmp_path)
    a, b, c = chain.files
    assert "from chain.geometry import" in b.read_text() and "from chain.layout import" in c.read_text()
    text = a.read_text()
    once = apply_change(text, chain.definition_edit(0))
    assert GENERATED_VARIANT in once and once != text
    assert apply_change(once, chain.definition_edit(1)) == text


def test_finds_a_three_file_python_chain(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "base.py").write_text("import os\n\n\ndef load(path):\n    return os.path.basename(path)\n")
    (tmp_path / "pkg" / "middle.py").write_text("from .base import load\n\n\ndef load_all(paths):\n    return [load(p) for p in paths]\n")
    (tmp_path / "top.py").write_text("from pkg.middle import load_all\n\nprint(load_all(['a']))\n")
    chain = find_python_chain(tmp_path)
    assert chain is not None
    assert [p.name for p in chain.files] == ["base.py", "middle.py", "top.py"]
    assert chain.variants == ("def load(path):", "def load_renamed(path):")
    edited = apply_change(chain.files[0].read_text(), chain.definition_edit(0))
    assert "def load_renamed(path):" in edited


def test_no_chain_when_imports_do_not_chain(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "b.py").write_text("from a import f\n")
    assert find_python_chain(tmp_path) is None
