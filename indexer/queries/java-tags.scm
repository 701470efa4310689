; arbor-ls tags query for Java (tree-sitter-java 0.23). Captures: see indexer/tags.py.

; ---- package
(package_declaration [(identifier) (scoped_identifier)] @package.name)

; ---- definitions
(class_declaration name: (identifier) @name.class) @definition.class
(record_declaration name: (identifier) @name.class) @definition.class
(interface_declaration name: (identifier) @name.interface) @definition.interface
(annotation_type_declaration name: (identifier) @name.interface) @definition.interface
(enum_declaration name: (identifier) @name.enum) @definition.enum
(method_declaration name: (identifier) @name.method) @definition.method
(constructor_declaration name: (identifier) @name.method) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name.variable) @definition.variable)
(constant_declaration declarator: (variable_declarator name: (identifier) @name.constant) @definition.constant)

; ---- references
(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: (type_identifier) @reference.call)
(type_identifier) @reference.type
(field_access field: (identifier) @reference.attribute)

; ---- comments and strings: left out of the fingerprint
[(line_comment) (block_comment) (string_literal) (character_literal)] @skip

; ---- imports
(import_declaration [(identifier) (scoped_identifier)] @import.path) @import
(import_declaration [(identifier) (scoped_identifier)] @import.path (asterisk) @import.wildcard) @import
