; arbor-ls tags query for JavaScript / JSX (tree-sitter-javascript 0.25).
; Captures: see indexer/tags.py.

; ---- definitions
(function_declaration name: (identifier) @name.function) @definition.function
(generator_function_declaration name: (identifier) @name.function) @definition.function
(class_declaration name: (identifier) @name.class) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name.method) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name.function
  value: [(arrow_function) (function_expression)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name.function
  value: [(arrow_function) (function_expression)]) @definition.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name.class
  value: (class)) @definition.class))
(program (lexical_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable)))
(program (variable_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name.variable) @definition.variable)))

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(class_heritage (identifier) @reference.type)
(member_expression property: (property_identifier) @reference.attribute)
(jsx_opening_element name: (identifier) @reference.call)
(jsx_self_closing_element name: (identifier) @reference.call)

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
(export_statement (export_clause (export_specifier "default" alias: (_) @import.default))
  source: (string (string_fragment) @import.module)) @reexport
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.module)) @reexport
(expression_statement (call_expression function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module))) @import)
(variable_declarator name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module)))) @import
(expression_statement (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))) @import
(await_expression (call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))) @import
