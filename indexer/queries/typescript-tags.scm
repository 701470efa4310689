; arbor-ls tags query for TypeScript and TSX (tree-sitter-typescript 0.23; tsx uses this file).
; Captures: see indexer/tags.py.

; ---- definitions
(function_declaration name: (identifier) @name.function) @definition.function
(generator_function_declaration name: (identifier) @name.function) @definition.function
(function_signature name: (identifier) @name.function) @definition.function
(class_declaration name: (type_identifier) @name.class) @definition.class
(abstract_class_declaration name: (type_identifier) @name.class) @definition.class
(interface_declaration name: (type_identifier) @name.interface) @definition.interface
(type_alias_declaration name: (type_identifier) @name.type) @definition.type
(enum_declaration name: (identifier) @name.enum) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name.module) @definition.module
(module name: [(identifier) (nested_identifier)] @name.module) @definition.module
(method_definition name: [(property_identifier) (private_property_identifier)] @name.method) @definition.method
(method_signature name: (property_identifier) @name.method) @definition.method
(abstract_method_signature name: (property_identifier) @name.method) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name.function
  value: [(arrow_function) (function_expression)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name.function
  value: [(arrow_function) (function_expression)]) @definition.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable)))
(program (variable_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable)))

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(extends_clause value: (identifier) @reference.type)
(type_identifier) @reference.type
(member_expression property: (property_identifier) @reference.attribute)

; ---- comments and strings: left out of the fingerprint
[(comment) (string) (template_string) (regex)] @skip

; ---- imports
(import_statement source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias) @import.pair))
  source: (string (string_fragment) @import.module)) @import
(export_statement source: (string (string_fragment) @import.module)) @reexport
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias) @import.pair)
  source: (string (string_fragment) @import.module)) @reexport
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.module)) @reexport
(import_alias (identifier) @import.alias (nested_identifier) @import.module) @import
(expression_statement (call_expression function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module))) @import)
(variable_declarator name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module)))) @import
(expression_statement (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))) @import
(await_expression (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))) @import
