; arbor-ls tags query for C (tree-sitter-c 0.24). Captures: see indexer/tags.py.

; ---- definitions
(function_definition declarator: (function_declarator declarator: (identifier) @name.function)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.function))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name.function)) @definition.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.function))) @definition.function
(struct_specifier name: (type_identifier) @name.struct body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name.struct body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name.enum body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name.type) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name.type)) @definition.type
; file-level variables, also inside include guards and extern "C" blocks
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
(type_identifier) @reference.type
(field_expression field: (field_identifier) @reference.attribute)

; ---- comments and strings: left out of the fingerprint
[(comment) (string_literal) (char_literal)] @skip

; ---- imports
(preproc_include path: [(string_literal (string_content) @import.module) (system_lib_string) @import.module]) @include
