"""Per-language node-type tables: which tree-sitter nodes are scopes, imports, bodies, comments.

These are facts about each grammar (node and field names), not about the tree-sitter Python API;
all parsing itself goes through `indexer.languages`. Languages are named as the indexer names them
("python", "typescript", "tsx", "javascript", "go", "java", "rust", "c", "cpp").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexer import languages


@dataclass(frozen=True, slots=True)
class Syntax:
    """What the pruner needs to know about one grammar.

    `scopes` maps a node type to the scope kind it opens ("function", "method", "class", ...).
    `wrappers` are node types that wrap a definition and belong to it (decorators, `export`).
    `placeholder` is the language's own "body elided" text, valid where a body would go.
    """

    name: str
    scopes: dict[str, str]
    imports: frozenset[str]
    comments: frozenset[str] = frozenset({"comment"})
    wrappers: frozenset[str] = frozenset()
    placeholder: str = "{ /* ... */ }"
    line_comment: str = "//"
    indent_blocks: bool = False  # Python: blocks are opened by ':' and closed by dedent
    members: frozenset[str] = field(default_factory=frozenset)  # body node types holding members


_C_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})

PYTHON = Syntax(
    name="python",
    scopes={"function_definition": "function", "class_definition": "class"},
    imports=frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
    wrappers=frozenset({"decorated_definition"}),
    placeholder="...",
    line_comment="#",
    indent_blocks=True,
    members=frozenset({"block"}),
)

_TS_SCOPES = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "function_expression": "function",
    "arrow_function": "function",
    "method_definition": "method",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "class": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "internal_module": "namespace",
}
_TS_IMPORTS = frozenset({"import_statement"})
_TS_MEMBERS = frozenset({"class_body", "interface_body", "object_type", "enum_body", "statement_block"})

TYPESCRIPT = Syntax(
    name="typescript", scopes=_TS_SCOPES, imports=_TS_IMPORTS,
    wrappers=frozenset({"export_statement"}), members=_TS_MEMBERS,
)
TSX = Syntax(name="tsx", scopes=_TS_SCOPES, imports=_TS_IMPORTS,
             wrappers=frozenset({"export_statement"}), members=_TS_MEMBERS)
JAVASCRIPT = Syntax(name="javascript", scopes=_TS_SCOPES, imports=_TS_IMPORTS,
                    wrappers=frozenset({"export_statement"}), members=_TS_MEMBERS)

GO = Syntax(
    name="go",
    scopes={
        "function_declaration": "function",
        "method_declaration": "method",
        "func_literal": "function",
        "type_spec": "type",
    },
    imports=frozenset({"import_declaration"}),
    wrappers=frozenset({"type_declaration"}),
    members=frozenset({"field_declaration_list", "method_spec_list", "interface_type"}),
)

JAVA = Syntax(
    name="java",
    scopes={
        "method_declaration": "method",
        "constructor_declaration": "method",
        "lambda_expression": "function",
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "class",
        "annotation_type_declaration": "interface",
    },
    imports=frozenset({"import_declaration", "package_declaration"}),
    comments=_C_COMMENTS,
    members=frozenset({"class_body", "interface_body", "enum_body", "enum_body_declarations"}),
)

RUST = Syntax(
    name="rust",
    scopes={
        "function_item": "function",
        "closure_expression": "function",
        "impl_item": "impl",
        "trait_item": "interface",
        "struct_item": "struct",
        "enum_item": "enum",
        "mod_item": "namespace",
    },
    imports=frozenset({"use_declaration", "extern_crate_declaration"}),
    comments=_C_COMMENTS,
    wrappers=frozenset(),
    members=frozenset({"declaration_list", "field_declaration_list"}),
)

C = Syntax(
    name="c",
    scopes={"function_definition": "function", "struct_specifier": "struct"},
    imports=frozenset({"preproc_include"}),
    members=frozenset({"field_declaration_list"}),
)

CPP = Syntax(
    name="cpp",
    scopes={
        "function_definition": "function",
        "lambda_expression": "function",
        "class_specifier": "class",
        "struct_specifier": "struct",
        "namespace_definition": "namespace",
    },
    imports=frozenset({"preproc_include", "using_declaration"}),
    wrappers=frozenset({"template_declaration"}),
    members=frozenset({"field_declaration_list", "declaration_list"}),
)

SYNTAXES: dict[str, Syntax] = {
    s.name: s for s in (PYTHON, TYPESCRIPT, TSX, JAVASCRIPT, GO, JAVA, RUST, C, CPP)
}
def syntax_for(language: str) -> Syntax | None:
    """The table for `language` (an indexer language name or an LSP language id, mapped by
    `indexer.languages.language_for_id`), or None if unsupported."""
    key = (language or "").lower()
    return SYNTAXES.get(languages.language_for_id(key) or key)
