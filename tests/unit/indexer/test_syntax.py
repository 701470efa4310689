"""The language registry's node-type tables (indexer.syntax) agree with the installed grammars."""

import pytest

from indexer import (
    CALL_NODES, DECLARATION_NODES, FIELD_MEMBER_NODES, GRAMMARS, IDENTIFIER_NODES, LANGUAGES,
    MEMBER_ACCESS_FIELDS, RECEIVER_WORDS, TYPE_CONTEXT_NODES, languages, syntax_for,
)
from indexer.syntax import SYNTAXES


def _is_node_type(language: str, node_type: str) -> bool:
    return bool(languages.GRAMMARS[language].language.id_for_node_kind(node_type, True))


def test_every_language_has_its_own_table():
    assert set(SYNTAXES) == set(LANGUAGES)
    for name in LANGUAGES:
        assert GRAMMARS[name].syntax is SYNTAXES[name] and SYNTAXES[name].name == name


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_table_names_only_node_types_of_its_grammar(language):
    syntax = SYNTAXES[language]
    named = set(syntax.scopes) | syntax.imports | syntax.comments | syntax.wrappers | syntax.members
    assert sorted(t for t in named if not _is_node_type(language, t)) == []


@pytest.mark.parametrize("types", [IDENTIFIER_NODES, CALL_NODES, frozenset(MEMBER_ACCESS_FIELDS),
                                   TYPE_CONTEXT_NODES, FIELD_MEMBER_NODES, DECLARATION_NODES])
def test_each_shared_node_type_is_one_of_some_grammar(types):
    assert sorted(t for t in types if not any(_is_node_type(n, t) for n in LANGUAGES)) == []


@pytest.mark.parametrize(("language", "expected"), [
    ("python", "python"), ("PYTHON", "python"), ("typescriptreact", "tsx"), ("javascriptreact", "javascript"),
    ("golang", "go"), ("cpp", "cpp"), ("ruby", None), ("", None),
])
def test_syntax_for_takes_indexer_names_and_lsp_ids(language, expected):
    syntax = syntax_for(language)
    assert (syntax.name if syntax is not None else None) == expected


def test_builtins_are_each_languages_own():
    assert all(RECEIVER_WORDS <= SYNTAXES[name].builtins for name in LANGUAGES)
    python, go, typescript, java = (SYNTAXES[n].builtins for n in ("python", "go", "typescript", "java"))
    assert {"len", "print", "dict"} <= python and {"Map", "List", "String", "err", "console"}.isdisjoint(python)
    assert {"len", "append", "error", "nil", "err"} <= go and {"List", "Map", "dict", "String"}.isdisjoint(go)
    assert {"Map", "Promise", "string", "console"} <= typescript and "len" not in typescript
    assert {"String", "List", "Map"} <= java and "len" not in java and "append" not in java
