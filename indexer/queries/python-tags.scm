; arbor-ls tags query for Python (tree-sitter-python 0.25).
; Captures: see indexer/tags.py.

; ---- definitions
(class_definition name: (identifier) @name.class) @definition.class
(decorated_definition definition: (class_definition name: (identifier) @name.class)) @definition.class
(function_definition name: (identifier) @name.function) @definition.function
(decorated_definition definition: (function_definition name: (identifier) @name.function)) @definition.function
(module (expression_statement (assignment left: (identifier) @name.variable) @definition.variable))
(module (expression_statement (assignment left: (pattern_list (identifier) @name.variable @definition.variable))))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name.variable) @definition.variable)))
(module (type_alias_statement left: (type (identifier) @name.type)) @definition.type)

; ---- references
(call function: (identifier) @reference.call)
(call function: (attribute attribute: (identifier) @reference.call))
(attribute attribute: (identifier) @reference.attribute)
(type (identifier) @reference.type)
(type (generic_type (identifier) @reference.type))
(class_definition superclasses: (argument_list (identifier) @reference.type))
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @reference.type)))
(decorator (identifier) @reference.call)

; ---- comments and strings: left out of the fingerprint
[(comment) (string)] @skip

; ---- imports
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias) @import.pair) @import
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias) @import.pair) @import
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.wildcard) @import
(future_import_statement name: (dotted_name) @import.name) @import
