"""Names the workspace expects a file to define (pruning.expected_names): other files' imports of
names the file does not define are candidates; defined, bound and module names are not."""

import pytest

from pruning.candidates import local_definitions
from pruning.context import build_context
from pruning.expected_names import expected_pieces, written_in
from pruning.index_lookup import IndexLookup
from indexer import parse, syntax_for

THROTTLE = """export interface ThrottleOptions {
  leading?: boolean;
}

export function throttle(config?: ThrottleConfig) {
  return config;
}
"""

USER = """import { throttle, ThrottleConfig } from './throttle';

export const defaults: ThrottleConfig = { leading: true };
"""

LONG_IMPORT = """import {
  a,
  b,
  c,
  d,
  ThrottleConfig,
  e,
  f,
  throttle,
} from './throttle';
"""


def _expected(index, path, text, language="typescript"):
    index.did_open(path, text, language)
    index.flush(path)
    source = text.encode()
    syntax = syntax_for(language)
    local = local_definitions(parse(syntax.name, source).root_node, syntax, source)
    return expected_pieces(IndexLookup(index.snapshot_for(path), path), local, text)


def test_an_imported_name_the_file_does_not_define_is_offered_with_the_importers_statement(
        tmp_path, write_workspace, without_similar_windows):
    index = write_workspace(tmp_path, {"src/throttle.ts": THROTTLE, "src/user.ts": USER})
    path = str(tmp_path / "src/throttle.ts")
    pieces = _expected(index, path, THROTTLE)
    assert [(p.path, p.symbol, p.text) for p in pieces] == [
        (str(tmp_path / "src/user.ts"), "ThrottleConfig", "import { throttle, ThrottleConfig } from './throttle';\n")]
    text = THROTTLE + "\n"
    parts = build_context(path, text, len(text), language="typescript", index=index, workspace_root=str(tmp_path))
    assert ("src/user.ts", "expected") in {(s.path, s.kind) for s in parts.snippets}


def test_nothing_is_expected_once_the_file_defines_the_name(tmp_path, write_workspace):
    defined = THROTTLE + "\nexport type ThrottleConfig = ThrottleOptions;\n"
    index = write_workspace(tmp_path, {"src/throttle.ts": defined, "src/user.ts": USER})
    assert _expected(index, str(tmp_path / "src/throttle.ts"), defined) == []


def test_a_name_the_file_re_exports_or_a_whole_module_re_export_expects_nothing(tmp_path, write_workspace):
    bound = "export { ThrottleConfig } from './config';\n" + THROTTLE
    index = write_workspace(tmp_path, {"src/throttle.ts": bound, "src/user.ts": USER,
                                       "src/config.ts": "export type ThrottleConfig = {};\n"})
    assert _expected(index, str(tmp_path / "src/throttle.ts"), bound) == []
    star = "export * from './config';\n" + THROTTLE
    assert _expected(index, str(tmp_path / "src/throttle.ts"), star) == []


def test_a_long_statement_shows_its_first_line_the_expected_names_and_its_last(tmp_path, write_workspace):
    defines_the_rest = THROTTLE + "".join(f"export function {name}() {{}}\n" for name in "abcdef")
    index = write_workspace(tmp_path, {"src/throttle.ts": defines_the_rest, "src/user.ts": LONG_IMPORT})
    pieces = _expected(index, str(tmp_path / "src/throttle.ts"), defines_the_rest)
    assert [p.text for p in pieces] == ["import {\n  ThrottleConfig,\n} from './throttle';\n"]
    assert (pieces[0].start_line, pieces[0].end_line) == (0, 9)


def test_python_submodules_imported_from_a_package_are_not_expected_of_it(tmp_path, write_workspace):
    index = write_workspace(tmp_path, {
        "pkg/__init__.py": "from .models import Model\n",
        "pkg/models.py": "class Base:\n    pass\n",
        "app.py": "from pkg import models\nfrom pkg.models import Model, Base\n",
    })
    init = str(tmp_path / "pkg/__init__.py")
    assert _expected(index, init, "from .models import Model\n", "python") == []
    models = str(tmp_path / "pkg/models.py")
    pieces = _expected(index, models, "class Base:\n    pass\n", "python")
    assert {p.symbol for p in pieces} == {"Model"}
    assert {p.text for p in pieces} == {"from .models import Model\n", "from pkg.models import Model, Base\n"}


def test_a_type_named_after_its_file_is_expected_of_it(tmp_path, write_workspace):
    """`import { ThrottleConfig } from './ThrottleConfig'`: the name is the file's main export."""
    index = write_workspace(tmp_path, {
        "src/ThrottleConfig.ts": "export const defaults = {};\n",
        "src/user.ts": "import { ThrottleConfig } from './ThrottleConfig';\n",
    })
    pieces = _expected(index, str(tmp_path / "src/ThrottleConfig.ts"), "export const defaults = {};\n")
    assert [p.symbol for p in pieces] == ["ThrottleConfig"]


@pytest.mark.parametrize(("text", "name", "written"), [
    ("def Model(x):\n", "Model", True),
    ("class Model(Base):\n", "Model", True),
    ("if TYPE_CHECKING:\n    Model = None\n", "Model", True),
    ("BUFFER_SIZE: Final[int] = 8 * 1024\n", "BUFFER_SIZE", True),
    ("from a import (\n    settings as Settings,\n)\n", "settings", True),
    ("from a import Model\n", "Model", True),
    ("export const Model = 1;\n", "Model", True),
    ("export default class Model {}\n", "Model", True),
    ("export { Model } from './model';\n", "Model", True),
    ("export type { Model } from './model';\n", "Model", True),
    ("type Model struct {}\n", "Model", True),
    ("model := NewModel()\n", "model", True),
    ("pub(crate) fn model() {}\n", "model", True),
    ("pub use crate::models::Model;\n", "Model", True),
    ("x = Model(1)\n", "Model", False),
    ("if Model == 3:\n", "Model", False),
    ("export function build(m: Model) {}\n", "Model", False),
    ("# Model is made below\n", "Model", False),
    ("class Models:\n", "Model", False),
])
def test_written_in_finds_a_definition_or_import_on_a_line_of_its_own(text, name, written):
    assert written_in(text, name) is written


def test_a_definition_the_tree_does_not_show_is_still_defined(tmp_path, write_workspace):
    """A module-level `if` hides an assignment from the index's tags, and a half-written line
    can hide a whole class from the buffer's tree: the text still defines both names."""
    models = ("import sys\n\nif sys.version_info >= (3, 11):\n    Real = float\nelse:\n    Real = int\n\n\n"
              "def helper(value):\n        return value\n    if value:\n\nclass Model:\n    pass\n")
    app = "from pkg.models import Model, Real, helper\n"
    index = write_workspace(tmp_path, {"pkg/__init__.py": "", "pkg/models.py": models, "app.py": app})
    assert _expected(index, str(tmp_path / "pkg/models.py"), models, "python") == []
    used_only = models.replace("class Model:\n    pass\n", "print(Model(1))\n")
    pieces = _expected(index, str(tmp_path / "pkg/models.py"), used_only, "python")
    assert [p.symbol for p in pieces] == ["Model"]
