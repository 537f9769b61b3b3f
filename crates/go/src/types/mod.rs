//! Go types over signature summaries: resolution of [`TypeExpr`](crate::TypeExpr)s in a
//! package scope into canonical [`Type`]s, method sets and `implements`.
//!
//! Everything unsupported or unavailable is an explicit [`Unresolved`] with a reason, and
//! every comparison involving one is [`Tri::Unknown`], never a guess.
//!
//! Entry points: [`PackageSigs`] (one package's [`ItemSigs`](crate::ItemSigs)), a
//! [`SigSource`] supplying packages by import path, [`TypeCtx`] (resolution with
//! per-package memoisation), [`TypeCtx::method_set`] and [`implements`].

mod constval;
mod declarer;
mod display;
mod identical;
mod implements;
mod methods;
mod resolve;
mod source;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

pub use crate::sig::ChanDir;
pub use identical::{identical, identical_sigs};
pub use implements::{implements, ImplementsPair, Verdict};
pub use methods::{Found, MethodSet, Selection};
pub use resolve::{compute_named_info, NamedInfo, TypeCtx};
pub use source::{PackageSigs, SigSource};
// For call resolution (crate::calls).
pub(crate) use identical::subst_sig;
pub(crate) use resolve::{PkgEnv, Scope};
pub(crate) use source::DeclRef;

/// A three-valued answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tri {
    Yes,
    No,
    Unknown(Unresolved),
}

impl Tri {
    /// Conjunction: `No` wins over `Unknown`, which wins over `Yes`.
    pub fn and(self, other: impl FnOnce() -> Tri) -> Tri {
        match self {
            Tri::No => Tri::No,
            Tri::Yes => other(),
            Tri::Unknown(u) => match other() {
                Tri::No => Tri::No,
                _ => Tri::Unknown(u),
            },
        }
    }

    pub fn from_bool(b: bool) -> Tri {
        if b {
            Tri::Yes
        } else {
            Tri::No
        }
    }
}

/// Predeclared non-composite types (`byte` is `Uint8`, `rune` is `Int32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basic {
    Bool,
    Int,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uintptr,
    Float32,
    Float64,
    Complex64,
    Complex128,
    String,
    UnsafePointer,
}

/// A canonical type. Aliases are resolved, so structurally equal types are identical
/// (unless an [`Unresolved`] is involved: see [`TypeCtx::identical`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Basic(Basic),
    /// A defined type, possibly instantiated. Universe types (`error`, `comparable`) have
    /// the empty package path.
    Named(Arc<NamedRef>),
    Pointer(Arc<Type>),
    Slice(Arc<Type>),
    Array {
        len: ArrayLen,
        elem: Arc<Type>,
    },
    Map(Arc<Type>, Arc<Type>),
    Chan(ChanDir, Arc<Type>),
    Func(Arc<Signature>),
    Struct(Arc<[Field]>),
    Interface(Arc<InterfaceType>),
    /// The `index`-th type parameter of `owner` (`<import path>::Name` of a generic type,
    /// alias or function).
    TypeParam {
        owner: Arc<str>,
        index: u32,
    },
    Unresolved(Unresolved),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NamedRef {
    pub path: Arc<str>,
    pub name: Arc<str>,
    /// Type arguments of an instantiation (empty for non-generic types).
    pub args: Vec<Type>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArrayLen {
    Known(u64),
    Unknown(Unresolved),
}

/// Parameters and results; a variadic signature's last parameter is a slice.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    pub params: Vec<Type>,
    pub results: Vec<Type>,
    pub variadic: bool,
}

/// A field or method name as Go compares them: unexported names are qualified by the
/// import path of the package that declares them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub name: Arc<str>,
    /// `Some(import path)` for unexported names.
    pub pkg: Option<Arc<str>>,
}

impl Key {
    pub fn new(name: &str, pkg: &Arc<str>) -> Key {
        let exported = name.chars().next().is_some_and(char::is_uppercase);
        Key { name: name.into(), pkg: (!exported).then(|| pkg.clone()) }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pkg {
            Some(p) => write!(f, "{p}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Field {
    pub key: Key,
    pub ty: Type,
    pub embedded: bool,
    pub tag: Option<String>,
}

/// An interface with its embedded interfaces flattened.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InterfaceType {
    /// The full method set, sorted by key (identical duplicates merged).
    pub methods: Vec<(Key, Signature)>,
    /// Has type terms, non-interface embedded types or `comparable`: a constraint, not a
    /// basic interface (not usable for `implements`).
    pub constraint: bool,
    /// An element could not be resolved: the method set may be incomplete.
    pub incomplete: Option<Unresolved>,
}

/// Why a type (or part of one) is not known.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unresolved {
    /// `path.name` of a package the [`SigSource`] does not have: identical to itself only.
    External { path: Arc<str>, name: Arc<str> },
    /// Any other reason: `kind` is a stable category, `detail` the specifics.
    Other { kind: &'static str, detail: Arc<str> },
}

impl Unresolved {
    pub(crate) fn other(kind: &'static str, detail: impl Into<Arc<str>>) -> Unresolved {
        Unresolved::Other { kind, detail: detail.into() }
    }

    /// A stable category for summaries (`external package`, `unknown identifier`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Unresolved::External { .. } => "external package",
            Unresolved::Other { kind, .. } => kind,
        }
    }
}

impl fmt::Display for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unresolved::External { path, name } => write!(f, "external package: {path}.{name}"),
            Unresolved::Other { kind, detail } => write!(f, "{kind}: {detail}"),
        }
    }
}

impl Type {
    pub(crate) fn unresolved(kind: &'static str, detail: impl Into<Arc<str>>) -> Type {
        Type::Unresolved(Unresolved::other(kind, detail))
    }

    pub(crate) fn named(path: &Arc<str>, name: &Arc<str>, args: Vec<Type>) -> Type {
        Type::Named(Arc::new(NamedRef { path: path.clone(), name: name.clone(), args }))
    }
}
