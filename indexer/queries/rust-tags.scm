; arbor-ls tags query for Rust (tree-sitter-rust 0.24). Captures: see indexer/tags.py.

; ---- definitions
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.function

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

; ---- identifiers (fingerprint)
[(identifier) (field_identifier) (type_identifier) (shorthand_field_identifier)] @identifier

; ---- imports
(use_declaration argument: (_) @import.path) @import
(mod_item name: (identifier) @import.module !body) @mod
