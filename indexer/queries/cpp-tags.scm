; arbor-ls tags query for C++ (tree-sitter-cpp 0.23). Captures: see indexer/tags.py.

; ---- definitions
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name.function)) @definition.function
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @container.name name: (identifier) @name.method))) @definition.method
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) name: (qualified_identifier scope: (_) @container.name name: (identifier) @name.method)))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.function))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name.function))) @definition.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name.method)) @definition.method
(declaration declarator: (function_declarator declarator: (identifier) @name.function)) @definition.function
(class_specifier name: (type_identifier) @name.class body: (field_declaration_list)) @definition.class
(struct_specifier name: (type_identifier) @name.struct body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name.struct body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name.enum body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name.type) @definition.type
(alias_declaration name: (type_identifier) @name.type) @definition.type
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name.module) @definition.module
; file- and namespace-level variables, also inside include guards
(translation_unit (declaration declarator: (identifier) @name.variable) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name.variable)) @definition.variable)
(preproc_ifdef (declaration declarator: (identifier) @name.variable) @definition.variable)
(preproc_ifdef (declaration declarator: (init_declarator declarator: (identifier) @name.variable)) @definition.variable)
(preproc_if (declaration declarator: (identifier) @name.variable) @definition.variable)
(preproc_if (declaration declarator: (init_declarator declarator: (identifier) @name.variable)) @definition.variable)
(preproc_else (declaration declarator: (identifier) @name.variable) @definition.variable)
(preproc_else (declaration declarator: (init_declarator declarator: (identifier) @name.variable)) @definition.variable)
(declaration_list (declaration declarator: (identifier) @name.variable) @definition.variable)
(declaration_list (declaration declarator: (init_declarator declarator: (identifier) @name.variable)) @definition.variable)
(preproc_def name: (identifier) @name.constant) @definition.constant
(preproc_function_def name: (identifier) @name.function) @definition.function
(enumerator name: (identifier) @name.constant) @definition.constant

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(type_identifier) @reference.type
(field_expression field: (field_identifier) @reference.attribute)

; ---- comments and strings: left out of the fingerprint
[(comment) (string_literal) (char_literal) (raw_string_literal)] @skip

; ---- imports
(preproc_include path: [(string_literal (string_content) @import.module) (system_lib_string) @import.module]) @include
