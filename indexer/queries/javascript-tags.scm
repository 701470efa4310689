; arbor-ls tags query for JavaScript / JSX (tree-sitter-javascript 0.25).
; Captures: see indexer/tags.py.

; ---- definitions
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name
  value: (class)) @definition.class))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)))

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(class_heritage (identifier) @reference.type)
(member_expression property: (property_identifier) @reference.attribute)
(jsx_opening_element name: (identifier) @reference.call)
(jsx_self_closing_element name: (identifier) @reference.call)

; ---- identifiers (fingerprint)
[(identifier) (property_identifier) (shorthand_property_identifier)
 (shorthand_property_identifier_pattern) (private_property_identifier)] @identifier

; ---- imports
(import_statement source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.module)) @import
(export_statement source: (string (string_fragment) @import.module)) @reexport
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.module)) @reexport
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.module)) @reexport
((call_expression function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module))) @import)
(variable_declarator name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))) @import)
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module))) @import
