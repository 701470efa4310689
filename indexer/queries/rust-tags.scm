; arbor-ls tags query for Rust (tree-sitter-rust 0.24). Captures: see indexer/tags.py.

; ---- definitions
(function_item name: (identifier) @name.function) @definition.function
(function_signature_item name: (identifier) @name.function) @definition.function
(struct_item name: (type_identifier) @name.struct) @definition.struct
(union_item name: (type_identifier) @name.struct) @definition.struct
(enum_item name: (type_identifier) @name.enum) @definition.enum
(trait_item name: (type_identifier) @name.interface) @definition.interface
(type_item name: (type_identifier) @name.type) @definition.type
(const_item name: (identifier) @name.constant) @definition.constant
(static_item name: (identifier) @name.constant) @definition.constant
(mod_item name: (identifier) @name.module body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name.function) @definition.function

; methods: functions inside `impl T` / `impl Trait for T` belong to T
(impl_item type: [(type_identifier) @scope.name
                  (generic_type type: (type_identifier) @scope.name)
                  (scoped_type_identifier name: (type_identifier) @scope.name)]) @scope

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(macro_invocation macro: (identifier) @reference.call)
(type_identifier) @reference.type
(field_expression field: (field_identifier) @reference.attribute)

; ---- comments and strings: left out of the fingerprint
[(line_comment) (block_comment) (string_literal) (raw_string_literal) (char_literal)] @skip

; ---- imports
(use_declaration argument: (_) @import.path) @import
(mod_item name: (identifier) @import.module !body) @mod
