//! Body facts: per function or method, the compact expression IR local type inference needs
//! (locals with how they are defined, expressions, call sites), produced by one walk over
//! the file's function bodies ([`extract_bodies`]).
//!
//! Identifiers are resolved to their binding while walking (lexical scopes as the Go spec
//! defines them), so resolution never deals with scopes: an [`Expr::Local`] is a local
//! variable, an [`Expr::Global`] a package-level, dot-imported or universe name. A type
//! expression mentioning a locally bound name (a local type, or a variable shadowing a
//! package name) is stored as [`TypeExpr::Invalid`] and so never resolves to the
//! package-level type it spells. Function literals belong to their enclosing declaration.
//!
//! Bounded: at most [`MAX_EXPRS`] expressions per function and [`MAX_DEPTH`] nesting;
//! beyond that the body is [`FuncBody::truncated`] and resolution marks all its call sites
//! unresolved.

mod walk;

use crate::sig::{FuncSig, TypeExpr};
use crate::Pos;
use serde::{Deserialize, Serialize};

pub(crate) use walk::var_init;
pub use walk::{extract_bodies, extract_var_inits};

/// Expressions per function beyond which the body is truncated.
pub const MAX_EXPRS: usize = 1 << 16;
/// Expression/statement nesting beyond which the body is truncated.
pub const MAX_DEPTH: usize = 200;

/// The bodies of one file's functions and methods.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileBodies {
    /// One per entry of [`ItemSigs::funcs`](crate::ItemSigs::funcs), same order.
    pub funcs: Vec<FuncBody>,
}

/// Index into [`FuncBody::exprs`].
pub type ExprId = u32;
/// Index into [`FuncBody::locals`].
pub type LocalId = u32;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FuncBody {
    /// Declaration name (for diagnostics; the index in `funcs` is the identity).
    pub name: String,
    pub locals: Vec<Local>,
    pub exprs: Vec<Expr>,
    /// Call sites in source order.
    pub calls: Vec<CallIr>,
    /// The identifier keys of composite literals with an explicit type (`T{f: v}`: field
    /// names when `T` is a struct type), in source order.
    pub keys: Vec<LiteralKey>,
    /// The caps were hit: the IR is incomplete.
    pub truncated: bool,
    /// Where the declaration's first syntax error (`ERROR`/`MISSING` node) is: call sites
    /// may be missing or misread, so its calls are never complete.
    pub syntax_error: Option<Pos>,
}

/// Expressions beyond which a package-level variable's initializer is not kept in its
/// signature ([`ValueInit::Expr`](crate::sig::ValueInit::Expr)).
pub const MAX_INIT_EXPRS: usize = 256;

impl FuncBody {
    /// The IR type inference needs, without what depends on where the code is (selector
    /// and key positions, call sites, the name): a signature-level copy, equal while only
    /// positions move.
    pub(crate) fn without_positions(mut self) -> FuncBody {
        for e in &mut self.exprs {
            if let Expr::Selector { pos, .. } = e {
                *pos = Pos::default();
            }
        }
        self.name.clear();
        self.calls.clear();
        self.keys.clear();
        self.syntax_error = None;
        self
    }
}

/// An identifier key of a composite literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LiteralKey {
    /// The literal's type as written (`T`, `pkg.T`, `T[int]`), or, for a literal whose type
    /// is elided, the type an enclosing literal spells, which `steps` then take apart.
    pub ty: TypeExpr,
    /// How the type of a literal with its type elided follows from `ty` when syntax cannot
    /// tell: `Ts{{f: v}}` for `type Ts []T` is `ty` `Ts`, steps `[Elem]`; the element type
    /// of the (underlying) slice, array or map, a map's key type, and a pointer element
    /// dereferenced (`&T` elided). Empty when `ty` is the literal's type.
    #[serde(default)]
    pub steps: Vec<ElemStep>,
    pub name: String,
    pub pos: Pos,
}

/// One step from an enclosing composite literal's type to the type of an element literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ElemStep {
    /// The element type of a slice or array, the value type of a map.
    Elem,
    /// The key type of a map.
    Key,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Local {
    pub def: LocalDef,
    /// Assigned with `=`/op-assign, incremented, or its address taken after declaration.
    pub reassigned: bool,
    /// Referenced from a function literal nested inside the one declaring it (go/ssa then
    /// keeps it in a heap cell, so a call through it is dynamic there).
    pub captured: bool,
    /// Function-literal nesting depth of the declaration (0: the declaration's own body).
    pub depth: u32,
}

/// How a local variable gets its (fixed) type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalDef {
    /// A parameter, receiver or named result of the declaration (`index` into its params,
    /// results follow the params; receiver is [`LocalDef::Receiver`]).
    Param {
        ty: TypeExpr,
        variadic: bool,
    },
    Receiver,
    /// `var x T` / `var x T = e` / `const x T = e`.
    Typed(TypeExpr),
    /// `x := e`, `var x = e`: the `index`-th value of `rhs`; `tuple` when one expression
    /// gives all values (`a, b := f()`, `v, ok := m[k]`).
    Value {
        rhs: ExprId,
        index: u32,
        tuple: bool,
    },
    /// `for k, v := range x`: `value` is the second variable.
    Range {
        x: ExprId,
        value: bool,
    },
    /// The variable a type switch binds in one clause: `x` is the guard's operand, `types`
    /// the clause's types (`None` for `nil`; empty for `default`).
    Case {
        x: ExprId,
        types: Vec<Option<TypeExpr>>,
    },
    /// A local const without its own expression, or anything the walk does not type.
    Unknown,
}

/// A call site: `expr` is the [`Expr::Call`]; `pos` the position of its `(` (go/ssa's
/// call position).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CallIr {
    pub expr: ExprId,
    pub pos: Pos,
    /// The end of the call expression (exclusive).
    pub end: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnOp {
    /// `&x`
    Addr,
    /// `*x` (also a pointer type in `(*T)(x)`)
    Deref,
    /// `<-x`
    Recv,
    /// `!x`
    Not,
    /// `-x`, `+x`, `^x`
    Arith,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`
    Cmp,
    /// `&&`, `||`
    Logic,
    /// `<<`, `>>`
    Shift,
    /// Other arithmetic.
    Arith,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LitKind {
    Int,
    Float,
    Imag,
    Rune,
    String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Expr {
    Local(LocalId),
    /// An identifier bound to no local: package-level, dot-imported or universe.
    Global(String),
    /// A locally declared type name (never resolved).
    LocalType(String),
    /// `x.sel`; `pos` is the position of `sel`.
    Selector {
        x: ExprId,
        sel: String,
        pos: Pos,
    },
    /// `fun(args)`; `spread` for `f(xs...)`.
    Call {
        fun: ExprId,
        args: Vec<ExprId>,
        spread: bool,
    },
    /// `x[i]`, or an instantiation `F[T1, T2]` (several indices).
    Index {
        x: ExprId,
        index: Vec<ExprId>,
    },
    /// `x[a:b]`
    Slice {
        x: ExprId,
    },
    /// `x.(T)`
    TypeAssert {
        x: ExprId,
        ty: TypeExpr,
    },
    /// `T{...}`; `None` when the type is elided inside another literal.
    Composite(Option<TypeExpr>),
    FuncLit(Box<FuncSig>),
    Unary {
        op: UnOp,
        x: ExprId,
    },
    Binary {
        op: BinOp,
        x: ExprId,
        y: ExprId,
    },
    Lit(LitKind),
    /// An expression that is syntactically a type (`[]byte`, `map[K]V`, `func()`...).
    Type(TypeExpr),
    /// `T(x)` written with a non-identifier type (`[]byte(s)`, `pkg.T[int](x)`).
    Conversion {
        ty: TypeExpr,
        x: ExprId,
    },
    /// Anything else (also syntax errors).
    Other,
}
