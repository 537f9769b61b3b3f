//! Operand rules of local inference: range, unary operators, index expressions, builtins.

use super::{unknown, value, Infer, Val};
use crate::body::{ExprId, LitKind, UnOp};
use crate::calls::Reason;
use crate::types::{subst_sig, Basic, Type};
use std::sync::Arc;

impl Infer<'_, '_> {
    pub(super) fn range(&self, x: ExprId, second: bool) -> Val {
        let t = match self.eval(x) {
            Val::Value(t) => t,
            Val::Untyped(LitKind::String) => Type::Basic(Basic::String),
            Val::Untyped(LitKind::Int) => Type::Basic(Basic::Int),
            other => return self.not_value(other),
        };
        let under = match self.under(&t) {
            Ok(u) => u,
            Err(w) => return Val::Unknown(w),
        };
        let int = Type::Basic(Basic::Int);
        let (k, v) = match under {
            Type::Basic(Basic::String) => (int, Type::Basic(Basic::Int32)),
            Type::Basic(_) => (t.clone(), Type::unresolved("range", "integer has no value")),
            Type::Slice(e) | Type::Array { elem: e, .. } => (int, (*e).clone()),
            Type::Pointer(p) => match self.under(&p) {
                Ok(Type::Array { elem, .. }) => (int, (*elem).clone()),
                _ => return unknown(Reason::UnknownType, "range over pointer"),
            },
            Type::Map(k, v) => ((*k).clone(), (*v).clone()),
            Type::Chan(_, e) => ((*e).clone(), Type::unresolved("range", "channel has one value")),
            Type::Func(sig) => {
                let yield_params = match sig.params.first() {
                    Some(Type::Func(y)) => y.params.clone(),
                    _ => return unknown(Reason::UnknownType, "range over func"),
                };
                let get = |i: usize| {
                    yield_params.get(i).cloned().unwrap_or(Type::unresolved("range", "no such value"))
                };
                (get(0), get(1))
            }
            _ => return unknown(Reason::UnknownType, "range operand"),
        };
        value(if second { v } else { k })
    }

    pub(super) fn unary(&self, op: UnOp, x: ExprId) -> Val {
        match (op, self.eval(x)) {
            (UnOp::Addr, Val::Value(t)) => Val::Value(Type::Pointer(Arc::new(t))),
            (UnOp::Deref, Val::Type(t)) => Val::Type(Type::Pointer(Arc::new(t))),
            (UnOp::Deref, Val::Value(t)) => match self.under(&t) {
                Ok(Type::Pointer(e)) => value((*e).clone()),
                Ok(_) => unknown(Reason::UnknownType, "deref of non-pointer"),
                Err(w) => Val::Unknown(w),
            },
            (UnOp::Recv, Val::Value(t)) => match self.under(&t) {
                Ok(Type::Chan(_, e)) => value((*e).clone()),
                Ok(_) => unknown(Reason::UnknownType, "receive from non-channel"),
                Err(w) => Val::Unknown(w),
            },
            (UnOp::Not, _) => Val::UntypedBool,
            (UnOp::Arith, v @ (Val::Value(_) | Val::Untyped(_))) => v,
            (_, other) => self.not_value(other),
        }
    }

    pub(super) fn index(&self, x: ExprId, index: &[ExprId]) -> Val {
        match self.eval(x) {
            Val::Func { id, sig, generic: Some((owner, n)) } => {
                let args: Vec<Type> = index
                    .iter()
                    .filter_map(|i| match self.eval(*i) {
                        Val::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect();
                if args.len() == n && args.len() == index.len() {
                    Val::Func { id, sig: subst_sig(&sig, &owner, &args), generic: None }
                } else {
                    // Partial instantiation: still the same function, results unknown.
                    Val::Func { id, sig, generic: Some((owner, n)) }
                }
            }
            Val::Type(Type::Named(n)) if n.args.is_empty() => {
                let mut args = Vec::new();
                for i in index {
                    match self.eval(*i) {
                        Val::Type(t) => args.push(t),
                        Val::Unknown(w) => return Val::Unknown(w),
                        _ => return unknown(Reason::UnknownType, "type argument"),
                    }
                }
                Val::Type(Type::Named(Arc::new(crate::types::NamedRef {
                    path: n.path.clone(),
                    name: n.name.clone(),
                    args,
                })))
            }
            Val::Value(t) => match self.under(&t) {
                Ok(Type::Slice(e)) | Ok(Type::Array { elem: e, .. }) => value((*e).clone()),
                Ok(Type::Map(_, v)) => value((*v).clone()),
                Ok(Type::Basic(Basic::String)) => Val::Value(Type::Basic(Basic::Uint8)),
                Ok(Type::Pointer(p)) => match self.under(&p) {
                    Ok(Type::Array { elem, .. }) => value((*elem).clone()),
                    _ => unknown(Reason::UnknownType, "index of pointer"),
                },
                Ok(_) => unknown(Reason::UnknownType, "index operand"),
                Err(w) => Val::Unknown(w),
            },
            Val::Untyped(LitKind::String) => Val::Value(Type::Basic(Basic::Uint8)),
            other => self.not_value(other),
        }
    }

    pub(super) fn builtin_result(&self, b: &str, args: &[ExprId]) -> Val {
        let first = || args.first().map(|a| self.eval(*a));
        match b {
            "len" | "cap" | "copy" => Val::Value(Type::Basic(Basic::Int)),
            "new" => match first() {
                Some(Val::Type(t)) => Val::Value(Type::Pointer(Arc::new(t))),
                Some(Val::Unknown(w)) => Val::Unknown(w),
                _ => unknown(Reason::UnknownType, "new"),
            },
            "make" => match first() {
                Some(Val::Type(t)) => Val::Value(t),
                Some(Val::Unknown(w)) => Val::Unknown(w),
                _ => unknown(Reason::UnknownType, "make"),
            },
            "append" => match first() {
                Some(Val::Value(t)) => Val::Value(t),
                Some(other) => self.not_value(other),
                None => unknown(Reason::UnknownType, "append"),
            },
            "recover" => Val::Value(Type::Interface(Arc::default())),
            "min" | "max" => match args.iter().map(|a| self.eval(*a)).find(|v| matches!(v, Val::Value(_))) {
                Some(v) => v,
                None => unknown(Reason::UnknownType, "untyped min/max"),
            },
            b if b.starts_with("unsafe.") => match b {
                "unsafe.Sizeof" | "unsafe.Alignof" | "unsafe.Offsetof" => {
                    Val::Value(Type::Basic(Basic::Uintptr))
                }
                "unsafe.String" => Val::Value(Type::Basic(Basic::String)),
                "unsafe.StringData" => Val::Value(Type::Pointer(Arc::new(Type::Basic(Basic::Uint8)))),
                _ => unknown(Reason::UnknownType, b.to_string()),
            },
            _ => unknown(Reason::UnknownType, format!("result of {b}")),
        }
    }
}
