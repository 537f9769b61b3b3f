//! Call resolution over body facts ([`crate::body`]) and the package's [`TypeCtx`].
//!
//! [`resolve_file_calls`] classifies every call site of every function of one file:
//! a static call to a package-level function or a declared method (possibly promoted
//! through embedding, or through a method expression), an interface method call (expand it
//! with [`ChaIndex::targets`]), a builtin, a conversion, a call of a function literal of the
//! same declaration (no edge), or [`CallTarget::Unresolved`] with a [`Reason`]. Nothing is
//! guessed: a call whose receiver or callee type is not established is unresolved.
//!
//! Generic callees resolve at declaration identity (`pkg::F`, `pkg::(*T).M`).

mod cha;
mod infer;
mod lookup;
mod values;

use crate::body::{ExprId, FileBodies, FuncBody};
use crate::sig::FuncDeclSig;
use crate::types::{Key, Type, TypeCtx};
use crate::Pos;
use infer::FieldOf;
use std::fmt;

pub use cha::{ChaIndex, ChaTarget};

/// Why a call site is unresolved. Stable codes ([`Reason::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// The callee is a variable, parameter, field, element or result of function type.
    FunctionValue,
    /// The callee is a method value stored in a variable.
    MethodValue,
    /// The callee or receiver type could not be inferred (see the detail).
    UnknownType,
    /// The type comes from a package the source does not have.
    ExternalType,
    /// A method of a type-parameter-typed value, or a type depending on an uninstantiated
    /// type parameter.
    TypeParam,
    /// A package-level variable whose type is only given by its initializer.
    PackageVarType,
    /// A locally declared type.
    LocalType,
    /// The selector is ambiguous, or names nothing in a type that may be incomplete.
    Selector,
    /// The callee names nothing that is declared: a selector absent from a type whose
    /// fields and methods are all known, `pkg.Name` that a package of the source does not
    /// declare, an identifier declared nowhere. The code does not type-check.
    Undefined,
    /// An interface method expression (`I.M(x)`).
    InterfaceMethodExpr,
    /// The function's body IR hit its caps.
    Truncated,
    /// The function has a syntax error: sites in the damaged region may be missing.
    SyntaxError,
    /// An expression shape the IR does not model (or a syntax error).
    Unsupported,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::FunctionValue => "function_value",
            Reason::MethodValue => "method_value",
            Reason::UnknownType => "unknown_type",
            Reason::ExternalType => "external_type",
            Reason::TypeParam => "type_param",
            Reason::PackageVarType => "package_var_type",
            Reason::LocalType => "local_type",
            Reason::Selector => "selector",
            Reason::Undefined => "undefined",
            Reason::InterfaceMethodExpr => "interface_method_expr",
            Reason::Truncated => "truncated",
            Reason::SyntaxError => "syntax_error",
            Reason::Unsupported => "unsupported",
        }
    }
}

/// How a static edge arises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StaticKind {
    /// A package-level function.
    Func,
    /// A method declared on the receiver's own type.
    Method,
    /// A method promoted through embedded fields (the edge goes to the declaring method;
    /// go/ssa calls it directly, so the edge is not synthetic).
    Promoted,
    /// A method expression `T.M(x)` / `(*T).M(x)`: go/ssa calls a synthetic thunk.
    MethodExpr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallTarget {
    /// `callee` is a Gograph symbol ID (`pkg::F`, `pkg::(*T).M`, `pkg::(T).M`).
    Static {
        callee: String,
        kind: StaticKind,
    },
    /// A dynamically dispatched call of `method` on a value of interface type `iface`.
    Interface {
        iface: Type,
        method: Key,
    },
    /// A builtin (`len`, `append`, `unsafe.Sizeof`...): not a call edge.
    Builtin(String),
    /// `T(x)`: not a call.
    Conversion,
    /// A call inside the operand of `unsafe.Sizeof`/`Alignof`/`Offsetof`: never evaluated.
    NotEvaluated,
    /// A call of a function literal of the same declaration (directly, or through a local
    /// never reassigned): its calls already belong to this declaration.
    Closure,
    Unresolved {
        reason: Reason,
        detail: String,
    },
}

impl CallTarget {
    /// Whether the site is resolved within the static call model (static, interface,
    /// builtin, conversion, closure).
    pub fn is_resolved(&self) -> bool {
        !matches!(self, CallTarget::Unresolved { .. })
    }

    /// Whether the site is a call at all (builtins and conversions are not).
    pub fn is_call(&self) -> bool {
        !matches!(self, CallTarget::Builtin(_) | CallTarget::Conversion | CallTarget::NotEvaluated)
    }
}

impl fmt::Display for CallTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallTarget::Static { callee, kind } => write!(f, "static {callee} ({kind:?})"),
            CallTarget::Interface { iface, method } => write!(f, "interface {method} on {iface:?}"),
            CallTarget::Builtin(b) => write!(f, "builtin {b}"),
            CallTarget::Conversion => f.write_str("conversion"),
            CallTarget::NotEvaluated => f.write_str("not evaluated"),
            CallTarget::Closure => f.write_str("closure"),
            CallTarget::Unresolved { reason, detail } => {
                write!(f, "unresolved {}: {detail}", reason.as_str())
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SiteCall {
    /// Position of the call's `(`.
    pub pos: Pos,
    pub target: CallTarget,
}

/// The call sites of one function or method.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncCalls {
    /// Index into the file's [`ItemSigs::funcs`](crate::ItemSigs::funcs).
    pub func: u32,
    /// The caller's Gograph symbol ID (`None` for `_` and methods with unreadable receivers).
    pub caller: Option<String>,
    pub sites: Vec<SiteCall>,
    /// Every call site is resolved (no [`CallTarget::Unresolved`]).
    pub complete: bool,
}

/// Resolve the call sites of every function of file `file` of package `import_path`
/// (`bodies` must be [`extract_bodies`](crate::body::extract_bodies) of the file whose
/// summary is `ctx.package(import_path).files[file]`).
pub fn resolve_file_calls(
    ctx: &TypeCtx<'_>,
    import_path: &str,
    file: usize,
    bodies: &FileBodies,
) -> Vec<FuncCalls> {
    let Some(env) = ctx.env(import_path) else { return Vec::new() };
    let Some(sigs) = env.sigs.files.get(file).cloned() else { return Vec::new() };
    let mut out = Vec::with_capacity(bodies.funcs.len());
    for (i, body) in bodies.funcs.iter().enumerate() {
        let Some(decl) = sigs.funcs.get(i) else { break };
        out.push(resolve_func(ctx, &env, file, i as u32, decl, body));
    }
    out
}

fn resolve_func(
    ctx: &TypeCtx<'_>,
    env: &std::sync::Arc<crate::types::PkgEnv>,
    file: usize,
    index: u32,
    decl: &FuncDeclSig,
    body: &FuncBody,
) -> FuncCalls {
    let caller = caller_id(env, decl);
    let sites: Vec<SiteCall> = if body.truncated {
        let target = CallTarget::Unresolved { reason: Reason::Truncated, detail: body.name.clone() };
        body.calls.iter().map(|c| SiteCall { pos: c.pos, target: target.clone() }).collect()
    } else {
        let inf = infer::Infer::new(ctx, env, file, decl, body);
        let mut sites: Vec<SiteCall> =
            body.calls.iter().map(|c| SiteCall { pos: c.pos, target: inf.classify(c.expr) }).collect();
        not_evaluated(body, &mut sites);
        if let Some(at) = body.syntax_error {
            // A site for the region the parser could not read: the known sites are kept,
            // but the function's calls are not complete.
            let target = CallTarget::Unresolved { reason: Reason::SyntaxError, detail: body.name.clone() };
            sites.push(SiteCall { pos: at, target });
        }
        sites
    };
    let complete = sites.iter().all(|s| s.target.is_resolved());
    FuncCalls { func: index, caller, sites, complete }
}

/// A selector `x.f` of a function body that selects a field of a defined struct type, or a
/// key of a composite literal naming one; or a selector `x.M` that selects a method of a
/// defined interface type (`method`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldSel {
    /// Position of the field (method) name.
    pub pos: Pos,
    /// The defined type whose declaration spells the struct (the interface's method spec), as
    /// a symbol ID (`pkg::T`).
    pub owner: String,
    pub field: String,
    pub method: bool,
}

/// A field selector or literal key whose struct type is unnamed (`struct{ … }` spelled in
/// place, as table-driven tests do), or a method selector on a value of an unnamed
/// interface type: which declaration spells the type is for the caller to find (it has no
/// name, so `names` — the struct's field names in order, the interface's method names
/// sorted — stands for it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AnonFieldSel {
    /// Position of the field (method) name.
    pub pos: Pos,
    pub field: String,
    pub names: Vec<String>,
    /// An interface method (not a struct field).
    pub method: bool,
}

/// A selector `x.M` / `T.M` of a function body that denotes a declared method statically
/// (called or not: a method value or method expression counts too).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MethodSel {
    /// Position of the method name.
    pub pos: Pos,
    pub name: String,
    /// The method's symbol ID (`pkg::(*T).M`; the generic method for an instantiation).
    pub callee: String,
}

/// What the selectors of one file's functions select, as far as type inference establishes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Selections {
    /// Field selectors (promoted fields name the embedded type that declares them), keys of
    /// composite literals `T{f: v}` of a defined struct type `T` (and of nested literals
    /// whose type the outer one spells), and interface method selectors (naming the
    /// interface whose declaration spells the method), in source order per function.
    pub fields: Vec<FieldSel>,
    /// Method selectors resolved to a declared method (own, promoted, method expression; not
    /// interface methods), in source order per function.
    pub methods: Vec<MethodSel>,
    /// Field selectors and literal keys of unnamed struct types, in source order per function.
    pub anon_fields: Vec<AnonFieldSel>,
}

/// The selections of the functions of file `file` of package `import_path` (`bodies` as for
/// [`resolve_file_calls`]) and of its package-level variable initializers (`inits`, from
/// [`extract_var_inits`](crate::body::extract_var_inits)).
pub fn resolve_file_selectors(
    ctx: &TypeCtx<'_>,
    import_path: &str,
    file: usize,
    bodies: &FileBodies,
    inits: &[FuncBody],
) -> Selections {
    let mut out = Selections::default();
    let Some(env) = ctx.env(import_path) else { return out };
    let Some(sigs) = env.sigs.files.get(file).cloned() else { return out };
    // The defined type whose declaration spells the struct, as a symbol ID.
    let defined_owner = |f: &FieldOf| match f {
        FieldOf::Defined(o) => ctx.struct_declarer(o).map(|(p, n)| format!("{p}::{n}")),
        FieldOf::Unnamed(_) => None,
    };
    // The initializers have no declaration: no parameters, receiver or type parameters.
    let no_decl = FuncDeclSig {
        name: "_".into(),
        receiver: None,
        type_params: Vec::new(),
        sig: crate::sig::FuncSig::default(),
    };
    let funcs = bodies.funcs.iter().zip(sigs.funcs.iter());
    for (body, decl) in funcs.chain(inits.iter().map(|b| (b, &no_decl))) {
        let inf = infer::Infer::new(ctx, &env, file, decl, body);
        let mut fields = Vec::new();
        let mut anon = Vec::new();
        // A truncated body's expressions may refer to ones never recorded; its literal keys
        // are typed by syntax alone (the literal's type as written, guarded against local
        // names, which stay bound past the truncation) and so still hold.
        let exprs = if body.truncated { &[][..] } else { &body.exprs[..] };
        for (id, e) in exprs.iter().enumerate() {
            let crate::body::Expr::Selector { x, sel, pos } = e else { continue };
            let field = inf.selected_field(*x, sel);
            if let Some(owner) = field.as_ref().and_then(&defined_owner) {
                fields.push(FieldSel { pos: *pos, owner, field: sel.clone(), method: false });
            } else if let Some(FieldOf::Unnamed(names)) = field {
                anon.push(AnonFieldSel { pos: *pos, field: sel.clone(), names, method: false });
            } else if let Some(callee) = inf.static_method(id as ExprId) {
                out.methods.push(MethodSel { pos: *pos, name: sel.clone(), callee });
            } else if let Some((p, n)) = (inf.interface_method(id as ExprId))
                .and_then(|(iface, key)| ctx.interface_declarer(&iface, &key))
                .or_else(|| {
                    let (owner, index, key) = inf.type_param_method(id as ExprId)?;
                    ctx.type_param_declarer(&owner, index, &key)
                })
            {
                fields.push(FieldSel {
                    pos: *pos,
                    owner: format!("{p}::{n}"),
                    field: sel.clone(),
                    method: true,
                });
            } else if let Some(names) = inf.anon_interface_method(id as ExprId) {
                anon.push(AnonFieldSel { pos: *pos, field: sel.clone(), names, method: true });
            }
        }
        for k in &body.keys {
            let field = inf.key_field(&k.ty, &k.steps, &k.name);
            if let Some(owner) = field.as_ref().and_then(&defined_owner) {
                fields.push(FieldSel { pos: k.pos, owner, field: k.name.clone(), method: false });
            } else if let Some(FieldOf::Unnamed(names)) = field {
                anon.push(AnonFieldSel { pos: k.pos, field: k.name.clone(), names, method: false });
            }
        }
        fields.sort_by_key(|f| f.pos);
        out.fields.extend(fields);
        anon.sort_by_key(|f| f.pos);
        out.anon_fields.extend(anon);
    }
    out
}

/// Calls inside the operands of `unsafe.Sizeof`/`Alignof`/`Offsetof` are never evaluated.
fn not_evaluated(body: &FuncBody, sites: &mut [SiteCall]) {
    let unsafe_op = |t: &CallTarget| matches!(t, CallTarget::Builtin(b) if matches!(b.as_str(), "unsafe.Sizeof" | "unsafe.Alignof" | "unsafe.Offsetof"));
    let ranges: Vec<(Pos, Pos)> = (body.calls.iter().zip(sites.iter()))
        .filter(|(_, s)| unsafe_op(&s.target))
        .map(|(c, _)| (c.pos, c.end))
        .collect();
    for (c, s) in body.calls.iter().zip(sites.iter_mut()) {
        if ranges.iter().any(|(from, to)| *from < c.pos && c.pos < *to) {
            s.target = CallTarget::NotEvaluated;
        }
    }
}

/// `pkg::F`, `pkg::(*T).M`; a same-package alias receiver names its target type.
fn caller_id(env: &crate::types::PkgEnv, decl: &FuncDeclSig) -> Option<String> {
    if decl.name == "_" {
        return None;
    }
    let Some(r) = &decl.receiver else { return Some(format!("{}::{}", env.path, decl.name)) };
    let mut base = r.base.as_deref()?;
    for _ in 0..8 {
        match env.sigs.type_decl(base) {
            Some((_, t)) if t.alias && t.type_params.is_empty() => match &t.ty {
                crate::sig::TypeExpr::Name(target) => base = target,
                _ => break,
            },
            _ => break,
        }
    }
    let star = if r.pointer { "*" } else { "" };
    Some(format!("{}::({star}{base}).{}", env.path, decl.name))
}

/// The symbol ID of a method declared on `owner`.
pub(crate) fn method_id(owner: &crate::types::NamedRef, ptr_recv: bool, name: &str) -> String {
    let star = if ptr_recv { "*" } else { "" };
    format!("{}::({star}{}).{name}", owner.path, owner.name)
}
