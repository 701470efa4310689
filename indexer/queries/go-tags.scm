; arbor-ls tags query for Go (tree-sitter-go 0.25). Captures: see indexer/tags.py.

; ---- package
(package_clause (package_identifier) @package.name)

; ---- definitions
(function_declaration name: (identifier) @name.function) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration
    type: [(type_identifier) @container.name
           (pointer_type (type_identifier) @container.name)
           (generic_type type: (type_identifier) @container.name)
           (pointer_type (generic_type type: (type_identifier) @container.name))]))
  name: (field_identifier) @name.method) @definition.method
(type_spec name: (type_identifier) @name.struct type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name.interface type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name.type) @definition.type
(type_alias name: (type_identifier) @name.type) @definition.type
(method_elem name: (field_identifier) @name.method) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name.constant) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name.variable) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name.variable) @definition.variable)))

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression function: (selector_expression field: (field_identifier) @reference.call))
(type_identifier) @reference.type
(qualified_type name: (type_identifier) @reference.type)
(selector_expression field: (field_identifier) @reference.attribute)

; ---- comments and strings: left out of the fingerprint
[(comment) (interpreted_string_literal) (raw_string_literal) (rune_literal)] @skip

; ---- imports
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import
(import_spec name: [(package_identifier) (dot) (blank_identifier)] @import.alias
  path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import
