//! The types of package-level constants and variables declared without one: what the
//! expression says (`const c = T(1)` is a `T`, `const d = c + 1` too, `const s = "x"` an
//! untyped string; `var v = New()` has `New`'s result type, inferred as for `v := New()`).

use super::infer::{Infer, Val};
use crate::body::{ExprId, FuncBody, LitKind};
use crate::sig::{ConstExpr, FuncDeclSig, TypeExpr, ValueInit, ValueKind};
use crate::types::{PkgEnv, Scope, Type, TypeCtx};
use std::sync::Arc;

/// How deep constants may refer to constants before the answer is unknown (a cycle is
/// invalid Go; this bounds it).
const MAX_DEPTH: u32 = 32;

/// The kind or type of the constant expression `e` in file `file` of `env`; `None` when
/// it cannot be told (calls of builtins, unknown names, anything not written as a constant).
pub(super) fn const_val(
    ctx: &TypeCtx<'_>,
    env: &Arc<PkgEnv>,
    file: usize,
    e: &ConstExpr,
    depth: u32,
) -> Option<Val> {
    if depth > MAX_DEPTH {
        return None;
    }
    let sub = |x: &ConstExpr| const_val(ctx, env, file, x, depth + 1);
    match e {
        ConstExpr::Int(_) => Some(Val::Untyped(LitKind::Int)),
        ConstExpr::Lit(s) => Some(Val::Untyped(match s.as_bytes().first()? {
            b'"' | b'`' => LitKind::String,
            b'\'' => LitKind::Rune,
            _ if s.ends_with('i') => LitKind::Imag,
            _ => LitKind::Float,
        })),
        ConstExpr::Ident(n) => match n.as_str() {
            "true" | "false" => Some(Val::UntypedBool),
            "iota" => Some(Val::Untyped(LitKind::Int)),
            _ => named_const(ctx, env, n, depth),
        },
        ConstExpr::Qualified { pkg, name } => {
            let sc = Scope { pkg: env, file, tparams: &[] };
            let other = ctx.qualified_env(sc, pkg).ok()?;
            named_const(ctx, &other, name, depth)
        }
        ConstExpr::Unary { op, x } => match op.as_str() {
            "!" => Some(Val::UntypedBool).filter(|_| matches!(sub(x), Some(Val::UntypedBool))),
            "-" | "+" | "^" => sub(x).filter(|v| matches!(v, Val::Untyped(_) | Val::Value(_))),
            _ => None,
        },
        ConstExpr::Binary { op, x, y } => match op.as_str() {
            "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" => Some(Val::UntypedBool),
            "<<" | ">>" => sub(x).filter(|v| matches!(v, Val::Untyped(_) | Val::Value(_))),
            _ => match (sub(x)?, sub(y)?) {
                (t @ Val::Value(_), _) | (_, t @ Val::Value(_)) => Some(t),
                // Mixed untyped operands take the later kind: int < rune < float < complex.
                (Val::Untyped(a), Val::Untyped(b)) if a == b => Some(Val::Untyped(a)),
                (Val::Untyped(a), Val::Untyped(b)) => {
                    Some(Val::Untyped(if rank(a)? >= rank(b)? { a } else { b }))
                }
                _ => None,
            },
        },
        ConstExpr::Call { fun, args } if args.len() == 1 => {
            // A conversion `T(x)` or `pkg.T(x)`: the name resolved as a type in the
            // constant's file (a function or builtin is no type).
            let ty = match fun.split_once('.') {
                None => TypeExpr::Name(fun.clone()),
                Some((pkg, name)) => TypeExpr::Qualified { pkg: pkg.into(), name: name.into() },
            };
            match ctx.resolve_in(Scope { pkg: env, file, tparams: &[] }, &ty) {
                Type::Unresolved(_) => None,
                t => Some(Val::Value(t)),
            }
        }
        ConstExpr::Call { .. } | ConstExpr::Other(_) => None,
    }
}

/// The type of the package variable `name` (file `file` of `env`) initialized by the
/// expression `at` of `body` (its `index`-th result for `var a, b = f()`), memoised in the
/// context; `None` when inference does not establish it (generic results, comma-ok forms,
/// untyped constants, `nil`, an initialization cycle).
pub(super) fn var_type(
    ctx: &TypeCtx<'_>,
    env: &Arc<PkgEnv>,
    file: usize,
    name: &str,
    body: &FuncBody,
    at: ExprId,
    index: Option<u32>,
) -> Option<Type> {
    ctx.var_type(&env.path, name, || {
        let decl = FuncDeclSig {
            name: name.into(),
            receiver: None,
            type_params: Vec::new(),
            sig: crate::sig::FuncSig::default(),
        };
        match (Infer::new(ctx, env, file, &decl, body).eval(at), index) {
            (Val::Value(t), None) => Some(t),
            (Val::Tuple(ts), Some(i)) => ts.get(i as usize).cloned(),
            (Val::FuncLit(sig), None) => Some(Type::Func(Arc::new(sig))),
            (Val::Func { sig, generic: None, .. }, None) => Some(Type::Func(Arc::new(sig))),
            _ => None,
        }
    })
}

/// A constant of package `env` by name: its declared type, or its expression's.
fn named_const(ctx: &TypeCtx<'_>, env: &Arc<PkgEnv>, name: &str, depth: u32) -> Option<Val> {
    let (file, v) = env.sigs.value_decl(name)?;
    if v.kind != ValueKind::Const {
        return None;
    }
    let sc = Scope { pkg: env, file, tparams: &[] };
    match (&v.ty, &v.init) {
        (Some(t), _) => match ctx.resolve_in(sc, t) {
            Type::Unresolved(_) => None,
            t => Some(Val::Value(t)),
        },
        (None, ValueInit::Const { expr, .. }) => const_val(ctx, env, file, expr, depth + 1),
        _ => None,
    }
}

fn rank(k: LitKind) -> Option<u8> {
    match k {
        LitKind::Int => Some(0),
        LitKind::Rune => Some(1),
        LitKind::Float => Some(2),
        LitKind::Imag => Some(3),
        LitKind::String => None,
    }
}
