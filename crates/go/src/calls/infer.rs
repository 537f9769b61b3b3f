//! Local type inference over one function's body IR: what each expression denotes, and
//! the classification of each call site.

use super::lookup::{lookup, Lookup};
use super::values;
use super::{method_id, CallTarget, Reason, StaticKind};
use crate::body::{BinOp, Expr, ExprId, FuncBody, LitKind, LocalDef, UnOp};
use crate::sig::{FuncDeclSig, TypeExpr};
use crate::types::{Basic, DeclRef, Key, PkgEnv, Scope, Signature, Type, TypeCtx, Unresolved};
use std::cell::RefCell;

#[path = "ops.rs"]
mod ops;
#[path = "select.rs"]
mod select;
pub(crate) use select::FieldOf;
use std::sync::Arc;

const BUILTINS: &[&str] = &[
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
    "new", "panic", "print", "println", "real", "recover",
];

/// Why something is not known.
#[derive(Clone, Debug)]
pub(crate) struct Why(pub Reason, pub String);

/// What an expression denotes.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Value(Type),
    Untyped(LitKind),
    UntypedBool,
    Nil,
    Type(Type),
    Package(PkgRef),
    Unsafe,
    /// A package-level function; `owner` names its type parameters when generic.
    Func {
        id: String,
        sig: Signature,
        generic: Option<(Arc<str>, usize)>,
    },
    Builtin(String),
    /// `x.M` on a value (bound method).
    Method(CallTarget, Signature),
    /// `T.M` / `(*T).M`: the receiver becomes the first parameter.
    MethodExpr(String, Signature),
    FuncLit(Signature),
    Tuple(Vec<Type>),
    Unknown(Why),
}

/// A package, shown by its path.
#[derive(Clone)]
pub(crate) struct PkgRef(Arc<PkgEnv>);

impl std::fmt::Debug for PkgRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.path)
    }
}

fn unknown(reason: Reason, detail: impl Into<String>) -> Val {
    Val::Unknown(Why(reason, detail.into()))
}

fn from_unresolved(u: &Unresolved) -> Why {
    match u {
        Unresolved::External { .. } => Why(Reason::ExternalType, u.to_string()),
        Unresolved::Other { kind: "type parameter", .. } => Why(Reason::TypeParam, u.to_string()),
        Unresolved::Other { kind: "external package", .. } => Why(Reason::ExternalType, u.to_string()),
        Unresolved::Other { kind: "unknown identifier", .. } => Why(Reason::Undefined, u.to_string()),
        Unresolved::Other { .. } => Why(Reason::UnknownType, u.to_string()),
    }
}

/// A type that is known, or why not (anything containing an unresolved part at the top).
fn value(t: Type) -> Val {
    match &t {
        Type::Unresolved(u) => Val::Unknown(from_unresolved(u)),
        _ => Val::Value(t),
    }
}

fn default_basic(k: LitKind) -> Basic {
    match k {
        LitKind::Int => Basic::Int,
        LitKind::Float => Basic::Float64,
        LitKind::Imag => Basic::Complex128,
        LitKind::Rune => Basic::Int32,
        LitKind::String => Basic::String,
    }
}

pub(crate) struct Infer<'a, 'c> {
    ctx: &'a TypeCtx<'c>,
    env: &'a Arc<PkgEnv>,
    file: usize,
    tparams: Vec<(String, Type)>,
    decl: &'a FuncDeclSig,
    body: &'a FuncBody,
    exprs: RefCell<Vec<Option<Val>>>,
    locals: RefCell<Vec<Option<Option<Val>>>>,
}

impl<'a, 'c> Infer<'a, 'c> {
    pub(crate) fn new(
        ctx: &'a TypeCtx<'c>,
        env: &'a Arc<PkgEnv>,
        file: usize,
        decl: &'a FuncDeclSig,
        body: &'a FuncBody,
    ) -> Self {
        let (owner, names): (String, Vec<String>) = match &decl.receiver {
            Some(r) => (r.base.clone().unwrap_or_default(), r.type_params.clone()),
            None => (decl.name.clone(), decl.type_params.iter().map(|p| p.name.clone()).collect()),
        };
        let owner: Arc<str> = format!("{}::{owner}", env.path).into();
        let tparams = names
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n, Type::TypeParam { owner: owner.clone(), index: i as u32 }))
            .collect();
        Infer {
            ctx,
            env,
            file,
            tparams,
            decl,
            body,
            exprs: RefCell::new(vec![None; body.exprs.len()]),
            locals: RefCell::new(vec![None; body.locals.len()]),
        }
    }

    fn scope(&self) -> Scope<'_> {
        Scope { pkg: self.env, file: self.file, tparams: &self.tparams }
    }

    fn resolve(&self, t: &TypeExpr) -> Type {
        self.ctx.resolve_in(self.scope(), t)
    }

    /// The classification of the call expression `call`.
    pub(crate) fn classify(&self, call: ExprId) -> CallTarget {
        let Some(Expr::Call { fun, .. }) = self.body.exprs.get(call as usize) else {
            return CallTarget::Unresolved { reason: Reason::Unsupported, detail: "not a call".into() };
        };
        match self.eval(*fun) {
            Val::Func { id, .. } => CallTarget::Static { callee: id, kind: StaticKind::Func },
            Val::Method(t, _) => t,
            Val::MethodExpr(id, _) => CallTarget::Static { callee: id, kind: StaticKind::MethodExpr },
            Val::Type(_) => CallTarget::Conversion,
            Val::Builtin(b) => CallTarget::Builtin(b),
            Val::FuncLit(_) => CallTarget::Closure,
            Val::Unknown(Why(reason, detail)) => CallTarget::Unresolved { reason, detail },
            Val::Value(_) => self.function_value(*fun),
            other => {
                CallTarget::Unresolved { reason: Reason::Unsupported, detail: format!("callee {other:?}") }
            }
        }
    }

    /// A call through a value of function type: a local bound once to a function literal,
    /// never reassigned nor captured by a nested literal (go/ssa then calls the literal
    /// statically), is a closure call; anything else is unresolved.
    fn function_value(&self, fun: ExprId) -> CallTarget {
        if let Some(Expr::Local(id)) = self.body.exprs.get(fun as usize) {
            let local = &self.body.locals[*id as usize];
            if let LocalDef::Value { rhs, tuple: false, .. } = &local.def {
                match self.body.exprs.get(*rhs as usize) {
                    Some(Expr::FuncLit(_)) if !local.reassigned && !local.captured => {
                        return CallTarget::Closure
                    }
                    Some(Expr::Selector { .. }) if matches!(self.eval(*rhs), Val::Method(..)) => {
                        return CallTarget::Unresolved { reason: Reason::MethodValue, detail: String::new() }
                    }
                    _ => {}
                }
            }
        }
        CallTarget::Unresolved { reason: Reason::FunctionValue, detail: String::new() }
    }

    pub(crate) fn eval(&self, id: ExprId) -> Val {
        if let Some(Some(v)) = self.exprs.borrow().get(id as usize) {
            return v.clone();
        }
        let v = self.eval_inner(id);
        if let Some(slot) = self.exprs.borrow_mut().get_mut(id as usize) {
            *slot = Some(v.clone());
        }
        v
    }

    /// The type of a value expression (untyped constants get their default type).
    fn value_type(&self, id: ExprId) -> Result<Type, Why> {
        match self.eval(id) {
            Val::Value(t) => Ok(t),
            Val::Untyped(k) => Ok(Type::Basic(default_basic(k))),
            Val::UntypedBool => Ok(Type::Basic(Basic::Bool)),
            Val::Func { sig, generic: None, .. }
            | Val::FuncLit(sig)
            | Val::Method(_, sig)
            | Val::MethodExpr(_, sig) => Ok(Type::Func(Arc::new(sig))),
            Val::Unknown(w) => Err(w),
            other => Err(Why(Reason::UnknownType, format!("no value type: {}", short(&other)))),
        }
    }

    fn eval_inner(&self, id: ExprId) -> Val {
        let Some(e) = self.body.exprs.get(id as usize) else { return unknown(Reason::Unsupported, "bad id") };
        match e {
            Expr::Local(l) => self.local(*l),
            Expr::Global(name) => self.global(name, false),
            Expr::LocalType(n) => unknown(Reason::LocalType, n.clone()),
            Expr::Selector { x, sel, .. } => self.selector(*x, sel),
            Expr::Call { fun, args, .. } => self.call_result(*fun, args),
            Expr::Index { x, index } => self.index(*x, index),
            Expr::Slice { x } => match self.eval(*x) {
                Val::Untyped(LitKind::String) => Val::Value(Type::Basic(Basic::String)),
                Val::Value(t) => match self.under(&t) {
                    Ok(Type::Basic(Basic::String)) | Ok(Type::Slice(_)) => Val::Value(t),
                    Ok(Type::Array { elem, .. }) => Val::Value(Type::Slice(elem)),
                    Ok(Type::Pointer(p)) => match self.under(&p) {
                        Ok(Type::Array { elem, .. }) => Val::Value(Type::Slice(elem)),
                        _ => unknown(Reason::UnknownType, "slice of pointer"),
                    },
                    Ok(_) => unknown(Reason::UnknownType, "slice operand"),
                    Err(w) => Val::Unknown(w),
                },
                other => self.not_value(other),
            },
            Expr::TypeAssert { ty, .. } => value(self.resolve(ty)),
            Expr::Composite(Some(ty)) => value(self.resolve(ty)),
            Expr::Composite(None) => unknown(Reason::UnknownType, "elided composite type"),
            Expr::FuncLit(sig) => Val::FuncLit(self.ctx.signature(self.scope(), sig)),
            Expr::Unary { op, x } => self.unary(*op, *x),
            Expr::Binary { op, x, y } => match op {
                BinOp::Cmp | BinOp::Logic => Val::UntypedBool,
                BinOp::Shift => self.eval(*x),
                BinOp::Arith => match self.eval(*x) {
                    v @ Val::Value(_) => v,
                    Val::Untyped(_) => match self.eval(*y) {
                        v @ (Val::Value(_) | Val::Untyped(_)) => v,
                        other => self.not_value(other),
                    },
                    other => self.not_value(other),
                },
            },
            Expr::Lit(k) => Val::Untyped(*k),
            Expr::Type(t) => match self.resolve(t) {
                Type::Unresolved(u) => Val::Unknown(from_unresolved(&u)),
                t => Val::Type(t),
            },
            Expr::Conversion { ty, .. } => value(self.resolve(ty)),
            Expr::Other => unknown(Reason::Unsupported, "expression"),
        }
    }

    fn not_value(&self, v: Val) -> Val {
        match v {
            Val::Unknown(w) => Val::Unknown(w),
            other => unknown(Reason::UnknownType, format!("not a value: {}", short(&other))),
        }
    }

    fn under(&self, t: &Type) -> Result<Type, Why> {
        match t {
            Type::Named(n) => self.ctx.underlying(n).map_err(|u| from_unresolved(&u)),
            Type::Unresolved(u) => Err(from_unresolved(u)),
            Type::TypeParam { .. } => Err(Why(Reason::TypeParam, "type parameter operand".into())),
            t => Ok(t.clone()),
        }
    }

    fn local(&self, l: u32) -> Val {
        match self.locals.borrow().get(l as usize) {
            Some(Some(Some(v))) => return v.clone(),
            Some(Some(None)) => return unknown(Reason::UnknownType, "cyclic local"),
            _ => {}
        }
        if let Some(slot) = self.locals.borrow_mut().get_mut(l as usize) {
            *slot = Some(None);
        }
        let v = self.local_inner(l);
        if let Some(slot) = self.locals.borrow_mut().get_mut(l as usize) {
            *slot = Some(Some(v.clone()));
        }
        v
    }

    fn local_inner(&self, l: u32) -> Val {
        let Some(local) = self.body.locals.get(l as usize) else {
            return unknown(Reason::Unsupported, "bad local");
        };
        match &local.def {
            LocalDef::Param { ty, variadic } => {
                let t = self.resolve(ty);
                value(if *variadic { Type::Slice(Arc::new(t)) } else { t })
            }
            LocalDef::Receiver => self.receiver(),
            LocalDef::Typed(ty) => value(self.resolve(ty)),
            LocalDef::Value { rhs, index, tuple } => {
                if !tuple {
                    return match self.value_type(*rhs) {
                        Ok(t) => Val::Value(t),
                        Err(w) => Val::Unknown(w),
                    };
                }
                match self.eval(*rhs) {
                    Val::Tuple(ts) => match ts.get(*index as usize) {
                        Some(t) => value(t.clone()),
                        None => unknown(Reason::UnknownType, "tuple arity"),
                    },
                    Val::Unknown(w) => Val::Unknown(w),
                    // `v, ok := m[k]` / `x.(T)` / `<-ch`
                    v => match (index, self.body.exprs.get(*rhs as usize)) {
                        (
                            1,
                            Some(
                                Expr::Index { .. }
                                | Expr::TypeAssert { .. }
                                | Expr::Unary { op: UnOp::Recv, .. },
                            ),
                        ) => Val::Value(Type::Basic(Basic::Bool)),
                        (
                            0,
                            Some(
                                Expr::Index { .. }
                                | Expr::TypeAssert { .. }
                                | Expr::Unary { op: UnOp::Recv, .. },
                            ),
                        ) => match v {
                            Val::Value(t) => Val::Value(t),
                            other => self.not_value(other),
                        },
                        _ => unknown(Reason::UnknownType, "multi-value assignment"),
                    },
                }
            }
            LocalDef::Range { x, value: second } => self.range(*x, *second),
            LocalDef::Case { x, types } => match types.as_slice() {
                [Some(t)] => value(self.resolve(t)),
                _ => match self.eval(*x) {
                    Val::Value(t) => Val::Value(t),
                    other => self.not_value(other),
                },
            },
            LocalDef::Unknown => unknown(Reason::UnknownType, "local without type or value"),
        }
    }

    fn receiver(&self) -> Val {
        let Some(r) = &self.decl.receiver else { return unknown(Reason::Unsupported, "receiver") };
        let Some(base) = &r.base else { return unknown(Reason::Unsupported, "unreadable receiver") };
        let t = if r.type_params.is_empty() {
            self.ctx.lookup_type(&self.env.path, base)
        } else {
            let args = self.tparams.iter().map(|(_, t)| t.clone()).collect();
            Type::Named(Arc::new(crate::types::NamedRef {
                path: self.env.path.clone(),
                name: base.as_str().into(),
                args,
            }))
        };
        value(if r.pointer { Type::Pointer(Arc::new(t)) } else { t })
    }

    /// A package-level name of `env` (`qualified` when reached as `pkg.Name`).
    fn member(&self, env: &Arc<PkgEnv>, name: &str) -> Val {
        match env.sigs.decl(name) {
            Some(DeclRef::Func(f, i)) => {
                let d = &env.sigs.files[f as usize].funcs[i as usize];
                let owner: Arc<str> = format!("{}::{name}", env.path).into();
                let tparams: Vec<(String, Type)> = (d.type_params.iter().enumerate())
                    .map(|(i, p)| (p.name.clone(), Type::TypeParam { owner: owner.clone(), index: i as u32 }))
                    .collect();
                let sig = self.ctx.signature(Scope { pkg: env, file: f as usize, tparams: &tparams }, &d.sig);
                let generic = (!tparams.is_empty()).then_some((owner, tparams.len()));
                Val::Func { id: format!("{}::{name}", env.path), sig, generic }
            }
            Some(DeclRef::Value(f, i)) => {
                let v = &env.sigs.files[f as usize].values[i as usize];
                let sc = Scope { pkg: env, file: f as usize, tparams: &[] };
                match (&v.ty, &v.init) {
                    (Some(t), _) => value(self.ctx.resolve_in(sc, t)),
                    (None, crate::sig::ValueInit::Composite { address, ty }) => {
                        let t = self.ctx.resolve_in(sc, ty);
                        value(if *address { Type::Pointer(Arc::new(t)) } else { t })
                    }
                    (None, crate::sig::ValueInit::Const { expr, .. }) => {
                        values::const_val(self.ctx, env, f as usize, expr, 0).unwrap_or_else(|| {
                            unknown(Reason::UnknownType, format!("constant {}.{name}", env.path))
                        })
                    }
                    (None, crate::sig::ValueInit::Expr { body, value: at, index }) => {
                        match values::var_type(self.ctx, env, f as usize, name, body, *at, *index) {
                            Some(t) => value(t),
                            None => unknown(Reason::PackageVarType, format!("{}.{name}", env.path)),
                        }
                    }
                    (None, _) => unknown(Reason::PackageVarType, format!("{}.{name}", env.path)),
                }
            }
            Some(DeclRef::Type(..)) => match self.ctx.lookup_type(&env.path, name) {
                Type::Unresolved(u) => Val::Unknown(from_unresolved(&u)),
                t => Val::Type(t),
            },
            None => unknown(Reason::Undefined, format!("{}.{name} not declared", env.path)),
        }
    }

    /// An identifier bound to no local; `qualifier` when it is the operand of a selector
    /// (the only place a package name may appear).
    fn global(&self, name: &str, qualifier: bool) -> Val {
        match name {
            "true" | "false" => return Val::UntypedBool,
            "nil" => return Val::Nil,
            "iota" => return Val::Untyped(LitKind::Int),
            _ => {}
        }
        if self.env.sigs.decl(name).is_some() {
            return self.member(self.env, name);
        }
        if qualifier {
            match self.ctx.qualified_env(self.scope(), name) {
                Ok(env) => return Val::Package(PkgRef(env)),
                Err(Unresolved::Other { kind: "unknown package", .. }) => {}
                Err(Unresolved::Other { kind: "unevaluated constant", detail }) if &*detail == "unsafe" => {
                    return Val::Unsafe
                }
                Err(u) => return Val::Unknown(from_unresolved(&u)),
            }
        }
        if let Some(found) = self.ctx.dot_env(self.scope(), name) {
            return match found {
                Ok(env) => self.member(&env, name),
                Err(u) => Val::Unknown(from_unresolved(&u)),
            };
        }
        if BUILTINS.contains(&name) {
            return Val::Builtin(name.to_string());
        }
        match self.resolve(&TypeExpr::Name(name.to_string())) {
            Type::Unresolved(u) => Val::Unknown(from_unresolved(&u)),
            t => Val::Type(t),
        }
    }

    /// The operand of a selector: a package-level name there may be a package qualifier.
    fn operand(&self, x: ExprId) -> Val {
        match self.body.exprs.get(x as usize) {
            Some(Expr::Global(name)) => self.global(name, true),
            _ => self.eval(x),
        }
    }

    fn selector(&self, x: ExprId, sel: &str) -> Val {
        match self.operand(x) {
            Val::Package(PkgRef(env)) => self.member(&env, sel),
            Val::Unsafe => match sel {
                "Pointer" => Val::Type(Type::Basic(Basic::UnsafePointer)),
                _ => Val::Builtin(format!("unsafe.{sel}")),
            },
            Val::Type(t) => self.method_expr(&t, sel),
            Val::Value(t) => self.value_selector(&t, sel),
            Val::Unknown(w) => Val::Unknown(w),
            other => unknown(Reason::UnknownType, format!("selector .{sel} on {}", short(&other))),
        }
    }

    fn key(&self, t: &Type, sel: &str) -> Key {
        // Unexported names are qualified by the package declaring them; a selector written
        // in this package can only reach unexported names of this package.
        let _ = t;
        Key::new(sel, &self.env.path)
    }

    fn value_selector(&self, t: &Type, sel: &str) -> Val {
        let key = self.key(t, sel);
        match lookup(self.ctx, t, &key) {
            Lookup::Field { ty, .. } => value(ty),
            Lookup::Method { owner, ptr_recv, sig, depth } => {
                let kind = if depth == 0 { StaticKind::Method } else { StaticKind::Promoted };
                Val::Method(CallTarget::Static { callee: method_id(&owner, ptr_recv, sel), kind }, sig)
            }
            Lookup::Interface { iface, sig, .. } => {
                Val::Method(CallTarget::Interface { iface, method: key }, sig)
            }
            Lookup::NotFound => unknown(Reason::Undefined, format!(".{sel} not found")),
            Lookup::Ambiguous => unknown(Reason::Selector, format!(".{sel} ambiguous")),
            Lookup::Unknown(u) => Val::Unknown(from_unresolved(&u)),
        }
    }

    fn method_expr(&self, t: &Type, sel: &str) -> Val {
        let key = self.key(t, sel);
        match lookup(self.ctx, t, &key) {
            Lookup::Method { owner, ptr_recv, sig, .. } => {
                let mut params = vec![t.clone()];
                params.extend(sig.params.iter().cloned());
                let sig = Signature { params, results: sig.results.clone(), variadic: sig.variadic };
                Val::MethodExpr(method_id(&owner, ptr_recv, sel), sig)
            }
            Lookup::Interface { .. } => unknown(Reason::InterfaceMethodExpr, sel),
            Lookup::Unknown(u) => Val::Unknown(from_unresolved(&u)),
            _ => unknown(Reason::Selector, format!("method expression .{sel}")),
        }
    }

    fn results(&self, sig: &Signature) -> Val {
        match sig.results.as_slice() {
            [] => unknown(Reason::UnknownType, "no result"),
            [one] => value(one.clone()),
            many => Val::Tuple(many.to_vec()),
        }
    }

    fn call_result(&self, fun: ExprId, args: &[ExprId]) -> Val {
        match self.eval(fun) {
            Val::Func { generic: Some(_), .. } => unknown(Reason::TypeParam, "result of a generic function"),
            Val::Func { sig, .. } | Val::Method(_, sig) | Val::MethodExpr(_, sig) | Val::FuncLit(sig) => {
                self.results(&sig)
            }
            Val::Type(t) => value(t),
            Val::Builtin(b) => self.builtin_result(&b, args),
            Val::Value(t) => match self.under(&t) {
                Ok(Type::Func(sig)) => self.results(&sig),
                Ok(_) => unknown(Reason::UnknownType, "call of non-function"),
                Err(w) => Val::Unknown(w),
            },
            other => self.not_value(other),
        }
    }
}

fn short(v: &Val) -> &'static str {
    match v {
        Val::Value(_) => "value",
        Val::Untyped(_) | Val::UntypedBool => "untyped constant",
        Val::Nil => "nil",
        Val::Type(_) => "type",
        Val::Package(_) => "package",
        Val::Unsafe => "unsafe",
        Val::Func { .. } => "function",
        Val::Builtin(_) => "builtin",
        Val::Method(..) => "method",
        Val::MethodExpr(..) => "method expression",
        Val::FuncLit(_) => "function literal",
        Val::Tuple(_) => "tuple",
        Val::Unknown(_) => "unknown",
    }
}
