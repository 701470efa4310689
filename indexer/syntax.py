"""What each grammar's trees mean to the pruner: node types of scopes, imports, comments, bodies,
the language's builtin names, and the node types shared across grammars.

These are facts about the grammars (node and field names) and the languages, not about the
tree-sitter Python API: nothing here parses. `indexer.languages` attaches each table to its
`Grammar` (`GRAMMARS[name].syntax`) and maps LSP language ids to them (`syntax_for`).

Invariants:
- `SYNTAXES` has one table per language of `indexer.languages.LANGUAGES`, keyed by its `name`.
- Every node type a table names is a named node type of that language's grammar, and every type of
  a cross-grammar set is one of at least one grammar (tests/unit/indexer/test_syntax.py).
- `builtins` of every table holds `RECEIVER_WORDS`; a name in a language's `builtins` is never
  looked up as a definition in a file of that language, whatever other languages predefine,
  unless that file's imports bind it to a workspace file (`pruning.index_lookup.IndexLookup.builtins`).
"""

from __future__ import annotations

import builtins as _python_builtins
import keyword
from dataclasses import dataclass

RECEIVER_WORDS = frozenset({"self", "this", "cls", "super"})  # the object a method runs on: never a use


@dataclass(frozen=True, slots=True)
class Syntax:
    """What the pruner needs to know about one grammar.

    `scopes` maps a node type to the scope kind it opens ("function", "method", "class", ...).
    `wrappers` are node types that wrap a definition and belong to it (decorators, `export`).
    `placeholder` is the language's own "body elided" text, valid where a body would go.
    `members` are the body node types that hold a class's (struct's, ...) members.
    `builtins` are names a file uses without defining or importing them (predeclared names, the
    standard globals, and `RECEIVER_WORDS`): their definitions are not looked for, unless an
    import binds the name to a workspace file (a crate's own `Result`).
    """

    name: str
    scopes: dict[str, str]
    imports: frozenset[str]
    builtins: frozenset[str]
    comments: frozenset[str] = frozenset({"comment"})
    wrappers: frozenset[str] = frozenset()
    placeholder: str = "{ /* ... */ }"
    line_comment: str = "//"
    indent_blocks: bool = False  # Python: blocks are opened by ':' and closed by dedent
    members: frozenset[str] = frozenset()


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split()) | RECEIVER_WORDS


_JS_BUILTINS = _names("""
    console window document globalThis Promise Array Object String Number Boolean Symbol BigInt JSON Math
    Date RegExp Error TypeError Map Set WeakMap WeakSet parseInt parseFloat isNaN undefined NaN Infinity
    var let const
""")
_TS_BUILTINS = _JS_BUILTINS | _names("""
    string number boolean any unknown never void object symbol bigint
    Partial Required Readonly Record Pick Omit Exclude Extract NonNullable ReturnType Parameters
""")
_GO_BUILTINS = _names("""
    any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune
    string uint uint8 uint16 uint32 uint64 uintptr true false iota nil
    append cap clear close complex copy delete imag len make max min new panic print println real recover
    err fmt
""")  # the Go specification's predeclared identifiers, plus `err` and `fmt`, which Go code uses as such
_JAVA_BUILTINS = _names("""
    String Object Integer Long Short Byte Double Float Boolean Character Number Math System Thread
    StringBuilder Exception RuntimeException Error Throwable Override Deprecated Class Void Iterable
    Comparable Runnable IllegalArgumentException IllegalStateException NullPointerException List Map
""")  # java.lang, plus java.util's List and Map
_RUST_BUILTINS = _names("""
    Self Option Some None Result Ok Err Vec String Box Clone Copy Send Sync Sized Drop Fn FnMut FnOnce
    Iterator IntoIterator Default Eq PartialEq Ord PartialOrd AsRef AsMut Into From ToString ToOwned
    println print eprintln format vec panic assert assert_eq write writeln
""")  # the standard prelude and the common macros
_C_BUILTINS = _names("""
    NULL size_t bool true false errno stdin stdout stderr printf fprintf sprintf snprintf
    malloc calloc realloc free memcpy memmove memset memcmp strlen strcmp strncmp strcpy strncpy exit assert
""")  # the C standard library's most used names (each needs its header, never the workspace)
_CPP_BUILTINS = _C_BUILTINS | _names("std string vector map cout cerr endl")

_C_COMMENTS = frozenset({"line_comment", "block_comment"})

PYTHON = Syntax(
    name="python",
    scopes={"function_definition": "function", "class_definition": "class"},
    imports=frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
    builtins=frozenset(dir(_python_builtins)) | RECEIVER_WORDS,
    wrappers=frozenset({"decorated_definition"}),
    placeholder="...",
    line_comment="#",
    indent_blocks=True,
    members=frozenset({"block"}),
)

_JS_SCOPES = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "function_expression": "function",
    "arrow_function": "function",
    "method_definition": "method",
    "class_declaration": "class",
    "class": "class",
}
_TS_SCOPES = _JS_SCOPES | {
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "internal_module": "namespace",
}
_JS_IMPORTS = frozenset({"import_statement"})
_JS_MEMBERS = frozenset({"class_body", "statement_block"})
_TS_MEMBERS = _JS_MEMBERS | {"interface_body", "object_type", "enum_body"}
_EXPORT = frozenset({"export_statement"})

TYPESCRIPT = Syntax(name="typescript", scopes=_TS_SCOPES, imports=_JS_IMPORTS, builtins=_TS_BUILTINS,
                    wrappers=_EXPORT, members=_TS_MEMBERS)
TSX = Syntax(name="tsx", scopes=_TS_SCOPES, imports=_JS_IMPORTS, builtins=_TS_BUILTINS,
             wrappers=_EXPORT, members=_TS_MEMBERS)
JAVASCRIPT = Syntax(name="javascript", scopes=_JS_SCOPES, imports=_JS_IMPORTS, builtins=_JS_BUILTINS,
                    wrappers=_EXPORT, members=_JS_MEMBERS)

GO = Syntax(
    name="go",
    scopes={
        "function_declaration": "function",
        "method_declaration": "method",
        "func_literal": "function",
        "type_spec": "type",
    },
    imports=frozenset({"import_declaration"}),
    builtins=_GO_BUILTINS,
    wrappers=frozenset({"type_declaration"}),
    members=frozenset({"field_declaration_list", "interface_type"}),
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
    builtins=_JAVA_BUILTINS,
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
    builtins=_RUST_BUILTINS,
    comments=_C_COMMENTS,
    members=frozenset({"declaration_list", "field_declaration_list"}),
)

C = Syntax(
    name="c",
    scopes={"function_definition": "function", "struct_specifier": "struct"},
    imports=frozenset({"preproc_include"}),
    builtins=_C_BUILTINS,
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
    builtins=_CPP_BUILTINS,
    wrappers=frozenset({"template_declaration"}),
    members=frozenset({"field_declaration_list", "declaration_list"}),
)

SYNTAXES: dict[str, Syntax] = {
    s.name: s for s in (PYTHON, TYPESCRIPT, TSX, JAVASCRIPT, GO, JAVA, RUST, C, CPP)
}

# Node types shared across grammars: a node of one of these types means the same in every grammar
# that has it (a grammar lacking one never produces it).

IDENTIFIER_NODES = frozenset({  # a name as written: what uses and declared types are read from
    "identifier", "type_identifier", "property_identifier", "field_identifier",
    "package_identifier", "shorthand_property_identifier",
})
CALL_NODES = frozenset({"call", "call_expression", "method_invocation", "new_expression",
                        "object_creation_expression", "composite_literal"})
MEMBER_ACCESS_FIELDS = {  # node type of `object.member` -> (object field, member field)
    "attribute": ("object", "attribute"),
    "member_expression": ("object", "property"),
    "selector_expression": ("operand", "field"),
    "field_access": ("object", "field"),
    "method_invocation": ("object", "name"),
    "field_expression": ("argument", "field"),
    "scoped_identifier": ("path", "name"),  # Rust's `module::name` (Java's, in imports, names a package)
}
TYPE_CONTEXT_NODES = frozenset({"type", "type_annotation", "generic_type", "type_arguments",
                                "pointer_type", "qualified_type", "array_type", "slice_type"})
FIELD_MEMBER_NODES = frozenset({  # class members that may declare a field's type
    "expression_statement", "field_declaration", "public_field_definition", "property_signature",
})
DECLARATION_NODES = frozenset({  # nodes that may declare a name's type (read by pruning.local_types)
    "typed_parameter", "typed_default_parameter", "assignment", "required_parameter", "optional_parameter",
    "public_field_definition", "variable_declarator", "field_declaration", "local_variable_declaration",
    "formal_parameter", "parameter_declaration", "constant_declaration", "short_var_declaration",
})

# Keywords of all the languages: read from text the tree does not reflect, a word among them is
# never a name use (one set for all: a few names are skipped in languages lacking the keyword).
TEXT_KEYWORDS = frozenset(keyword.kwlist) | frozenset({
    "function", "const", "let", "var", "new", "typeof", "instanceof", "void", "delete", "this", "func",
    "package", "type", "struct", "interface", "map", "chan", "go", "defer", "select", "switch", "case",
    "default", "fn", "impl", "mut", "pub", "use", "mod", "match", "loop", "where", "public", "private",
    "protected", "static", "final", "abstract", "extends", "implements", "throws", "throw", "catch",
    "export", "extern", "typedef", "sizeof", "enum", "union", "unsigned", "signed", "do", "goto",
})
