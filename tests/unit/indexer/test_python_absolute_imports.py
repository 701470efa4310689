"""Absolute Python imports name a module from a directory on the search path: a package's own
module that shares a name with the standard library's (`collections`, `types`, `json`) is not
what `import collections` names."""

from __future__ import annotations

from indexer.resolve import ModuleIndex, resolve_import
from indexer.tags import Import

FILES = (
    "/w/hypothesis/__init__.py",
    "/w/hypothesis/control.py",
    "/w/hypothesis/strategies/__init__.py",
    "/w/hypothesis/strategies/_internal/__init__.py",
    "/w/hypothesis/strategies/_internal/collections.py",
    "/w/hypothesis/strategies/_internal/core.py",
    "/w/src/mylib/__init__.py",
    "/w/src/mylib/types.py",
    "/w/scripts/helpers.py",
    "/w/scripts/run.py",
    "/w/ns/plugins/loader.py",
)


def _index() -> ModuleIndex:
    index = ModuleIndex()
    for path in FILES:
        index.add(path, lang="python")
    return index


def _targets(importer: str, module: str, *names: str) -> tuple[str, ...]:
    return resolve_import(_index(), importer, "python", Import(module, names=names, local_names=names))


def test_a_standard_library_name_is_not_a_packages_module_of_that_name():
    assert _targets("/w/hypothesis/control.py", "collections", "defaultdict") == ()
    assert _targets("/w/hypothesis/strategies/_internal/core.py", "collections") == ()
    assert _targets("/w/hypothesis/control.py", "types") == ()


def test_the_full_dotted_path_still_names_it():
    assert _targets("/w/hypothesis/control.py", "hypothesis.strategies._internal.collections") == (
        "/w/hypothesis/strategies/_internal/collections.py",)
    assert _targets("/w/hypothesis/control.py", "hypothesis.strategies._internal", "collections") == (
        "/w/hypothesis/strategies/_internal/__init__.py", "/w/hypothesis/strategies/_internal/collections.py")


def test_a_package_under_a_source_directory_is_named_from_it():
    assert _targets("/w/scripts/run.py", "mylib.types") == ("/w/src/mylib/types.py",)
    assert _targets("/w/scripts/run.py", "mylib") == ("/w/src/mylib/__init__.py",)
    assert _targets("/w/scripts/run.py", "types") == ()  # mylib is a package: types is its module


def test_modules_of_directories_that_are_not_packages_are_named_bare():
    assert _targets("/w/scripts/run.py", "helpers") == ("/w/scripts/helpers.py",)
    # a namespace package (no __init__.py anywhere) is named from any directory above it
    assert _targets("/w/scripts/run.py", "plugins.loader") == ("/w/ns/plugins/loader.py",)
    assert _targets("/w/scripts/run.py", "loader") == ("/w/ns/plugins/loader.py",)
