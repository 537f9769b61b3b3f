//! The facts of one Go file, as plain serialisable data.

use serde::{Deserialize, Serialize};

/// A 1-based position; `column` counts bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// Facts of one Go file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileFacts {
    /// The package clause name, when there is one.
    pub package: Option<String>,
    /// The doc comment of the package clause, without comment markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_doc: Option<String>,
    pub imports: Vec<Import>,
    /// Package-level declarations in source order (grouped specs are one `Decl` per name).
    pub decls: Vec<Decl>,
    /// Call sites in source order.
    pub calls: Vec<CallSite>,
    /// The first [`MAX_SYNTAX_ERRORS`](crate::MAX_SYNTAX_ERRORS) `ERROR`/`MISSING` positions.
    pub syntax_errors: Vec<Pos>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Import {
    pub path: String,
    /// The alias, `.` or `_`, when given.
    pub name: Option<String>,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclKind {
    Func,
    Method,
    Struct,
    Interface,
    /// Any other named (defined) type.
    Type,
    Alias,
    Var,
    Const,
}

impl DeclKind {
    /// The graph node kind: `func`, `method`, `struct`, `interface`, `type`, `alias`, `var`, `const`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeclKind::Func => "func",
            DeclKind::Method => "method",
            DeclKind::Struct => "struct",
            DeclKind::Interface => "interface",
            DeclKind::Type => "type",
            DeclKind::Alias => "alias",
            DeclKind::Var => "var",
            DeclKind::Const => "const",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Decl {
    pub name: String,
    pub kind: DeclKind,
    /// Methods only.
    pub receiver: Option<Receiver>,
    /// Position of the declared name.
    pub pos: Pos,
    /// Type parameter names (generic funcs and types; for methods, the receiver's).
    pub type_params: Vec<String>,
    /// Struct fields: names, or the type name for embedded fields.
    pub fields: Vec<Field>,
    /// Embedded type expressions (structs and interfaces), source text.
    pub embeds: Vec<String>,
    /// Interface methods.
    pub methods: Vec<MethodSpec>,
    /// Normalized source text of parameters and results (funcs/methods; also interface methods).
    pub signature: Option<String>,
    /// The doc comment ([`crate::extract`] reads it as go/doc does), without comment markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Receiver {
    /// The receiver's base type name, without type parameters or package.
    pub type_name: String,
    pub pointer: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Field {
    /// Field name; for an embedded field, the embedded type's name (`Mutex` for `sync.Mutex`).
    pub name: String,
    /// Normalized type text.
    pub type_text: String,
    pub embedded: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MethodSpec {
    pub name: String,
    /// Normalized `(params) results` text.
    pub signature: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CallSite {
    /// Index into `decls` of the enclosing func/method (anonymous funcs belong to their
    /// enclosing declaration); `None` for package-level initialisers.
    pub caller: Option<u32>,
    /// Callee expression source text, bounded to [`MAX_CALLEE_LEN`](crate::MAX_CALLEE_LEN) bytes.
    pub callee: String,
    pub shape: Callee,
    /// Whether the callee's root identifier (the `Ident` name, or the selector's `x`) is bound
    /// by a local declaration (parameter, receiver, result, local var/const/type, range or
    /// closure parameter) in scope at the call site — so it cannot be the package-level or
    /// imported name it spells.
    pub shadowed: bool,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Callee {
    Ident(String),
    /// `x.sel(...)` where `x` is a plain identifier.
    Selector {
        x: String,
        sel: String,
    },
    Other,
}

/// An identifier that no local declaration binds (the candidates for uses of package-level
/// names): `name` alone, or `qualifier.name` where `qualifier` is an identifier no local
/// declaration binds (an import name, or a package-level variable with a field or method).
/// Declaring identifiers, field and method names, composite-literal keys that may be field
/// names, labels and the blank identifier are never recorded.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IdentUse {
    pub qualifier: Option<String>,
    pub name: String,
    /// Position of `name` (its length is `name.len()` bytes).
    pub pos: Pos,
}

/// The identifier uses of one Go file, in source order ([`extract_uses`](crate::extract_uses)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileUses {
    pub uses: Vec<IdentUse>,
    /// Identifiers bound by a local declaration (parameters, receivers, results, `:=`, local
    /// `var`/`const`/`type`, range and type-switch variables), with where that declaration
    /// names them; by position.
    pub locals: Vec<LocalUse>,
}

/// A use of a locally declared name: `len` bytes at `pos`, declared at `decl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LocalUse {
    pub pos: Pos,
    pub len: u32,
    pub decl: Pos,
}
