; arbor-ls tags query for Java (tree-sitter-java 0.23). Captures: see indexer/tags.py.

; ---- package
(package_declaration [(identifier) (scoped_identifier)] @package.name)

; ---- definitions
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.variable
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; ---- references
(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: (type_identifier) @reference.call)
(type_identifier) @reference.type
(field_access field: (identifier) @reference.attribute)

; ---- identifiers (fingerprint)
[(identifier) (type_identifier)] @identifier

; ---- imports
(import_declaration [(identifier) (scoped_identifier)] @import.path) @import
(import_declaration [(identifier) (scoped_identifier)] @import.path (asterisk) @import.wildcard) @import
