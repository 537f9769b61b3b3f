//! Signature summaries ("item tree") of one Go file: every package-level declaration as
//! structured type expressions, without any body information.
//!
//! [`FileSigs::items`] carries no positions and nothing from function bodies, so it stays
//! equal when a body changes (even when lines are added: positions live apart, in
//! [`FileSigs::positions`]). Syntax errors never panic: a type the extractor cannot read
//! becomes [`TypeExpr::Invalid`] and the file is marked [`ItemSigs::has_syntax_errors`].

mod consts;
mod extract;

use crate::Pos;
use serde::{Deserialize, Serialize};

pub use extract::extract_sigs;
pub(crate) use extract::{errors_outside_bodies, func_sig, literal_type, type_expr};

/// The signature summary of one file plus the positions of its declarations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileSigs {
    /// Position-free summary (equal across body edits).
    pub items: ItemSigs,
    /// Positions, parallel to the vectors of `items`.
    pub positions: SigPositions,
}

/// Position-free declarations of one file, in source order per kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ItemSigs {
    /// The package clause name, when there is one.
    pub package: Option<String>,
    pub imports: Vec<ImportSig>,
    pub types: Vec<TypeDeclSig>,
    /// Functions and methods.
    pub funcs: Vec<FuncDeclSig>,
    /// Package-level vars and consts, one per name.
    pub values: Vec<ValueSig>,
    /// The tree has `ERROR`/`MISSING` nodes: what was read may be incomplete.
    pub has_syntax_errors: bool,
}

/// Positions of the declared names, parallel to [`ItemSigs`]' vectors.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SigPositions {
    pub imports: Vec<Pos>,
    pub types: Vec<Pos>,
    pub funcs: Vec<Pos>,
    pub values: Vec<Pos>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ImportSig {
    pub path: String,
    /// The alias, `.` or `_`, when given.
    pub name: Option<String>,
}

/// `type Name[TypeParams] Type` or `type Name[TypeParams] = Type`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeDeclSig {
    pub name: String,
    pub type_params: Vec<TypeParamSig>,
    pub alias: bool,
    pub ty: TypeExpr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeParamSig {
    pub name: String,
    /// The constraint (a union or `~T` constraint is an [`TypeExpr::Interface`] with one
    /// [`InterfaceElem::Union`]).
    pub constraint: TypeExpr,
}

/// A function or method declaration without its body.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FuncDeclSig {
    pub name: String,
    /// Methods only.
    pub receiver: Option<ReceiverSig>,
    /// Type parameters of a generic function (methods: see [`ReceiverSig::type_params`]).
    pub type_params: Vec<TypeParamSig>,
    pub sig: FuncSig,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReceiverSig {
    /// The receiver base type name (no package, pointer or type arguments); `None` when the
    /// receiver type is not of the form `T`, `*T`, `T[P...]`, `*T[P...]` (a syntax error).
    pub base: Option<String>,
    pub pointer: bool,
    /// The receiver's type parameter names, in order (`_` kept).
    pub type_params: Vec<String>,
}

/// Parameters and results of a function type (names kept for documentation only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FuncSig {
    pub params: Vec<Param>,
    pub results: Vec<Param>,
    /// The last parameter is `...T` (its `ty` is `T`).
    pub variadic: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Param {
    pub name: Option<String>,
    pub ty: TypeExpr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    Var,
    Const,
}

/// One package-level var or const name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ValueSig {
    pub name: String,
    pub kind: ValueKind,
    /// The declared type (for consts in a group, inherited by specs without expressions).
    pub ty: Option<TypeExpr>,
    pub init: ValueInit,
}

/// What the initializer says about a value, without evaluating any function body.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueInit {
    /// No initializer (`var x T`).
    None,
    /// A const's expression (implicit repetition in groups applied) and its `iota`.
    Const { expr: ConstExpr, iota: u32 },
    /// `T{...}` or `&T{...}` (a var whose type is the literal's, or a pointer to it).
    Composite { address: bool, ty: TypeExpr },
    /// An initializer whose type inference decides (calls, conversions, other variables,
    /// operators; `var a, b = f()` is the `index`-th result of `f()`): the expression
    /// `value` of `body`, kept without positions and only when it parsed and has at most
    /// [`MAX_INIT_EXPRS`](crate::body::MAX_INIT_EXPRS) expressions.
    Expr { body: Box<crate::body::FuncBody>, value: crate::body::ExprId, index: Option<u32> },
    /// Any other initializer: type unknown unless declared.
    Unknown,
}

/// A type expression as written (parentheses stripped).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TypeExpr {
    /// An unqualified identifier (a type name, type parameter or predeclared type).
    Name(String),
    /// `pkg.Name` (`pkg` is the file-local package name).
    Qualified {
        pkg: String,
        name: String,
    },
    Pointer(Box<TypeExpr>),
    Slice(Box<TypeExpr>),
    Array {
        len: ConstExpr,
        elem: Box<TypeExpr>,
    },
    Map {
        key: Box<TypeExpr>,
        value: Box<TypeExpr>,
    },
    Chan {
        dir: ChanDir,
        elem: Box<TypeExpr>,
    },
    Func(Box<FuncSig>),
    Struct(Vec<FieldExpr>),
    Interface(Vec<InterfaceElem>),
    /// `Base[Args...]`.
    Generic {
        base: Box<TypeExpr>,
        args: Vec<TypeExpr>,
    },
    /// A node that is not a valid type (syntax error): its source text.
    Invalid(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChanDir {
    Both,
    /// `chan<- T`
    Send,
    /// `<-chan T`
    Recv,
}

/// One struct field name (a declaration `a, b T` gives two).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FieldExpr {
    /// The field name; for an embedded field, the type name (`Mutex` for `*sync.Mutex`).
    pub name: String,
    /// The field type (`*T` for an embedded `*T`).
    pub ty: TypeExpr,
    pub embedded: bool,
    /// The tag's string value (unquoted).
    pub tag: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InterfaceElem {
    Method {
        name: String,
        sig: FuncSig,
    },
    /// An embedded type (an interface, or a non-interface type term).
    Embed(TypeExpr),
    /// `~T | U | ...` (also a single `~T`).
    Union(Vec<Term>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Term {
    pub tilde: bool,
    pub ty: TypeExpr,
}

/// A constant expression as written (enough to evaluate integer array lengths and consts).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ConstExpr {
    /// An integer literal as written (`0x1F`, `1_000`, `0o7`, `07`).
    Int(String),
    /// Any other literal (float, imaginary, rune, string) as written.
    Lit(String),
    /// An identifier (`iota`, `true`, a const name).
    Ident(String),
    Qualified {
        pkg: String,
        name: String,
    },
    Unary {
        op: String,
        x: Box<ConstExpr>,
    },
    Binary {
        op: String,
        x: Box<ConstExpr>,
        y: Box<ConstExpr>,
    },
    /// A call or conversion `f(args)`: `fun` as written.
    Call {
        fun: String,
        args: Vec<ConstExpr>,
    },
    /// Anything else, as written.
    Other(String),
}
