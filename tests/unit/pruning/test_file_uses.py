"""Likely next names (pruning.file_uses): imported names ranked by their nearest use to the cursor
and how often the file uses them."""

import pytest

from pruning.context import build_context
from pruning.file_uses import MAX_FILE_NAMES, file_uses
from pruning.index_lookup import IndexLookup

pytestmark = pytest.mark.usefixtures("without_similar_windows")


def _busy_file(far_names: list[str]) -> str:
    """Imports `far_names` and `nearby`; each far name is used three times at the top, `nearby`
    once, in the function just above the (empty) function at the end."""
    head = f"from .util import {', '.join(far_names)}, nearby\n\n\ndef first():\n"
    head += "".join(f"    {name}(1)\n    {name}(2)\n    {name}(3)\n" for name in far_names)
    filler = "".join(f"\n\ndef filler_{i}(x):\n    return x + {i}\n" for i in range(30))
    return head + filler + "\n\ndef sibling():\n    return nearby(0)\n\n\ndef cursor_here():\n    \n"


def test_an_import_the_sibling_function_uses_ranks_above_ones_used_often_far_away(tmp_path, write_files):
    """More imported names than are looked up: the one used just above the cursor's function is
    looked up and offered, though names used more often (at the other end of the file) fill the
    other places."""
    far = [f"far_{i:02d}" for i in range(MAX_FILE_NAMES + 4)]
    util = "".join(f"def {name}(x):\n    return x\n\n\n" for name in far + ["nearby"])
    index = write_files(tmp_path, {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/main.py": _busy_file(far)})
    path = str(tmp_path / "pkg/main.py")
    text = (tmp_path / "pkg/main.py").read_text()
    index.did_open(path, text, "python")
    parts = build_context(path, text, len(text) - 1, index=index, workspace_root=str(tmp_path))
    assert ("pkg/util.py", "nearby") in {(s.path, s.symbol) for s in parts.snippets}
    assert "nearby" in {name for name, _ in parts.lookups}


def test_file_uses_are_nearest_first_with_their_nearest_uses(tmp_path, write_files):
    far = ["far_a", "far_b"]
    util = "".join(f"def {name}(x):\n    return x\n\n\n" for name in far + ["nearby"])
    index = write_files(tmp_path, {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/main.py": _busy_file(far)})
    path = str(tmp_path / "pkg/main.py")
    text = (tmp_path / "pkg/main.py").read_text()
    index.did_open(path, text, "python")
    lookup = IndexLookup(index.snapshot_for(path), path)
    cursor_line = text.count("\n") - 1
    uses = file_uses(lookup, text.encode(), lookup.module_aliases(), cursor_line)
    assert uses[0].name == "nearby" and uses[0].distance == 4
    assert [u.distance for u in uses if u.name == "far_a"] == sorted(u.distance for u in uses if u.name == "far_a")
    assert len([u for u in uses if u.name == "far_a"]) == 3


def test_a_go_package_name_used_elsewhere_in_the_file_is_offered_for_a_new_line(tmp_path, write_files):
    """A Go file sees its package's names without importing them: `FlagSet`, defined in a sibling
    file and used far above, is a likely next name in an empty function below (builtins are not)."""
    filler = "".join(f"\n\nfunc helper{i}(x int) int {{\n\treturn x + {i}\n}}\n" for i in range(30))
    index = write_files(tmp_path, {
        "go.mod": "module example.com/app\n",
        "app/flagset.go": "package app\n\ntype FlagSet struct {\n\tname string\n}\n",
        "app/use.go": ("package app\n\nfunc first() *FlagSet {\n\treturn new(FlagSet)\n}\n" + filler
                       + "\n\nfunc second() int {\n\t\n}\n"),
    })
    path = str(tmp_path / "app/use.go")
    text = (tmp_path / "app/use.go").read_text()
    index.did_open(path, text, "go")
    offset = text.rindex("{\n\t\n}") + 3
    parts = build_context(path, text, offset, language="go", index=index, workspace_root=str(tmp_path))
    assert ("app/flagset.go", "FlagSet") in {(s.path, s.symbol) for s in parts.snippets}
    assert "new" not in {name for name, _ in parts.lookups}


def test_an_import_spelled_like_a_call_near_the_cursor_is_a_likely_next_name(tmp_path, write_files):
    """`adaptors::dedup(self)` below the cursor: `Dedup`, one of many names imported and not used
    yet, is the type the line being written (the method's header) is likely to name."""
    types = [f"Type{i:02d}" for i in range(MAX_FILE_NAMES + 4)] + ["Dedup"]
    adaptors = "".join(f"pub struct {name} {{\n    n: usize,\n}}\n\n" for name in types)
    adaptors += "pub fn dedup<I>(iter: I) -> Dedup {\n    todo!()\n}\n"
    lib = (f"mod adaptors;\nuse crate::adaptors::{{{', '.join(types)}}};\n\npub trait Itertools {{\n"
           "    \n        where Self: Sized,\n    {\n        adaptors::dedup(self)\n    }\n}\n")
    index = write_files(tmp_path, {"src/adaptors.rs": adaptors, "src/lib.rs": lib})
    path = str(tmp_path / "src/lib.rs")
    text = (tmp_path / "src/lib.rs").read_text()
    index.did_open(path, text, "rust")
    parts = build_context(path, text, text.index("    \n") + 4, language="rust", index=index,
                          workspace_root=str(tmp_path))
    assert any(s.path == "src/adaptors.rs" and "pub struct Dedup {" in s.text for s in parts.snippets)


def test_a_name_used_often_counts_as_nearer_than_its_nearest_use(tmp_path, write_files):
    """`often` is used ten times at the top of the file, `once` once a little nearer the cursor:
    the name used often ranks first (FREQUENCY_WEIGHT)."""
    head = "from .util import often, once\n\n\ndef first():\n" + "".join(f"    often({i})\n" for i in range(10))
    filler = "".join(f"\n\ndef filler_{i}(x):\n    return x + {i}\n" for i in range(12))
    text = head + "    once(0)\n" + filler + "\n\ndef cursor_here():\n    \n"
    util = "def often(x):\n    return x\n\n\ndef once(x):\n    return x\n"
    index = write_files(tmp_path, {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/main.py": text})
    path = str(tmp_path / "pkg/main.py")
    index.did_open(path, text, "python")
    lookup = IndexLookup(index.snapshot_for(path), path)
    uses = file_uses(lookup, text.encode(), lookup.module_aliases(), text.count("\n") - 1)
    assert uses[0].name == "often"
    nearest_once = min(u.distance for u in uses if u.name == "once")
    assert min(u.distance for u in uses if u.name == "often") < nearest_once


def test_an_import_not_used_yet_ranks_above_a_name_used_a_few_lines_away(tmp_path, write_files):
    """A name the file imports and uses nowhere is about to be used: it comes before `nearby`,
    used once four lines above the cursor."""
    util = "".join(f"def {name}(x):\n    return x\n\n\n" for name in ("fresh", "nearby"))
    main = ("from .util import fresh, nearby\n\n\ndef sibling():\n    return nearby(0)\n\n\n"
            "def cursor_here():\n    \n")
    index = write_files(tmp_path, {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/main.py": main})
    path = str(tmp_path / "pkg/main.py")
    index.did_open(path, main, "python")
    lookup = IndexLookup(index.snapshot_for(path), path)
    uses = file_uses(lookup, main.encode(), lookup.module_aliases(), main.count("\n") - 1)
    assert [u.name for u in uses][:2] == ["fresh", "nearby"]
