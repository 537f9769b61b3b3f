; Top-level Go declarations. Run with max_start_depth = Some(1) so that only children of the
; source file (or of a top-level ERROR node's parent) start matches; the extractor reads the
; inside of each declaration through field accessors.
(package_clause (package_identifier) @package)
(import_declaration) @import
(function_declaration) @func
(method_declaration) @method
(type_declaration) @type
(var_declaration) @var
(const_declaration) @const
