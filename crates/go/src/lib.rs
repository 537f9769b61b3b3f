//! Go facts from syntax alone (no Go toolchain at runtime).
//!
//! Pure data in, data out:
//! - [`select_file`]: whether a `.go` file belongs to the build under a [`BuildContext`]
//!   (file-name suffixes, `//go:build` / `// +build`, `import "C"` without cgo). No tree-sitter,
//!   so it works under `--no-ast`.
//! - [`parse_go_mod`], [`parse_go_work`], [`import_path`]: module identity.
//! - [`extract_file`]: declarations, imports and call sites of one file, through the AST gate
//!   ([`docforge_syntax::GoSyntax`]).
//! - [`symbol_id`]: Gograph symbol IDs (`<import path>::Name`, `<import path>::(*T).M`);
//!   [`package_symbol_id`] also maps methods declared on same-package aliases to the aliased
//!   type, as go/types does (use it whenever the package's symbols are at hand).
//! - [`package_symbols`], [`package_fragment`]: the graph projection of one package.
//! - [`extract_uses`], [`resolve_uses`]: identifier uses of package-level names (for editor
//!   navigation; never graph edges).
//! - [`extract_sigs`]: the signature summary ([`FileSigs`]) of one file, body-free.
//! - [`types`]: resolution of those summaries into Go types, method sets and `implements`.
//! - [`extract_logic`]: Logic, the possible static control paths of each func/method, through
//!   the AST gate (kept beside the graph, never inside it).
//!
//! External test packages (`package foo_test` in the directory of `foo`) are separate
//! packages with import path `<import path>_test`: split a directory's files by package
//! clause and call [`package_fragment`] once per package.

pub mod body;
pub mod calls;
mod constraint;
mod context;
mod extract;
mod facts;
mod fragment;
mod gomod;
mod header;
mod logic;
mod outline;
mod select;
pub(crate) mod sig;
mod symbols;
pub mod types;
mod uses;

pub use constraint::{eval_go_build, eval_plus_build};
pub use context::{BuildContext, DEFAULT_TOOL_TAGS};
pub use extract::{
    extract_declarations, extract_file, extract_tree, extract_uses, in_place_types, struct_fields, FieldDecl,
    InPlaceType, MAX_CALLEE_LEN, MAX_SYNTAX_ERRORS,
};
pub use facts::{
    CallSite, Callee, Decl, DeclKind, Field, FileFacts, FileUses, IdentUse, Import, LocalUse, MethodSpec,
    Pos, Receiver,
};
pub use fragment::{
    declaration_and_doc, file_fragment, package_fragment, package_node_fragment, PackageFile,
};
pub use gomod::{
    go_list_excluded, import_path, is_import_path, parse_go_mod, parse_go_work, GoMod, GoWork, ModuleReplace,
};
pub use logic::{
    extract_file_logic, extract_logic, Edge, EdgeLabel, FunctionLogic, Step, StepKind, MAX_LOGIC_DEPTH,
    MAX_LOGIC_STEPS, MAX_STEP_TEXT,
};
pub use outline::outline_text;
pub use select::{excluded_by_name, is_excluded_by_name, select_file, FileSelection};
pub use sig::{
    extract_sigs, ChanDir, ConstExpr, FieldExpr, FileSigs, FuncDeclSig, FuncSig, ImportSig, InterfaceElem,
    ItemSigs, Param, ReceiverSig, SigPositions, Term, TypeDeclSig, TypeExpr, TypeParamSig, ValueInit,
    ValueKind, ValueSig,
};
pub use symbols::{package_symbol_id, package_symbols, symbol_id, PackageSymbols, BUILTINS as PREDECLARED};
pub use uses::{resolve_uses, ResolvedUse};
