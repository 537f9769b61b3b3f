//! Type identity (three-valued) and type-parameter substitution.

use super::{ArrayLen, Field, InterfaceType, NamedRef, Signature, Tri, Type, Unresolved};
use std::sync::Arc;

/// Whether two types are identical under Go's rules. Parameter and result names do not
/// count; struct fields compare names (package-qualified when unexported), embeddedness
/// and tags; interfaces compare method sets; channels compare directions. A comparison
/// that depends on an [`Unresolved`] part is [`Tri::Unknown`] (the same external
/// `path.Name` is identical to itself).
pub fn identical(a: &Type, b: &Type) -> Tri {
    use Type::*;
    match (a, b) {
        (Unresolved(x @ super::Unresolved::External { .. }), Unresolved(y)) if x == y => Tri::Yes,
        (Unresolved(u), _) | (_, Unresolved(u)) => Tri::Unknown(u.clone()),
        (Basic(x), Basic(y)) => Tri::from_bool(x == y),
        (Named(x), Named(y)) => {
            if x.path != y.path || x.name != y.name || x.args.len() != y.args.len() {
                return Tri::No;
            }
            all(x.args.iter().zip(&y.args))
        }
        (Pointer(x), Pointer(y)) | (Slice(x), Slice(y)) => identical(x, y),
        (Array { len: lx, elem: x }, Array { len: ly, elem: y }) => {
            let len = match (lx, ly) {
                (ArrayLen::Known(m), ArrayLen::Known(n)) => Tri::from_bool(m == n),
                (ArrayLen::Unknown(u), _) | (_, ArrayLen::Unknown(u)) => Tri::Unknown(u.clone()),
            };
            len.and(|| identical(x, y))
        }
        (Map(kx, vx), Map(ky, vy)) => identical(kx, ky).and(|| identical(vx, vy)),
        (Chan(dx, x), Chan(dy, y)) => Tri::from_bool(dx == dy).and(|| identical(x, y)),
        (Func(x), Func(y)) => identical_sigs(x, y),
        (Struct(x), Struct(y)) => {
            if x.len() != y.len()
                || x.iter()
                    .zip(y.iter())
                    .any(|(f, g)| f.key != g.key || f.embedded != g.embedded || f.tag != g.tag)
            {
                return Tri::No;
            }
            all(x.iter().zip(y.iter()).map(|(f, g)| (&f.ty, &g.ty)))
        }
        (Interface(x), Interface(y)) => identical_interfaces(x, y),
        (TypeParam { owner: ox, index: ix }, TypeParam { owner: oy, index: iy }) => {
            Tri::from_bool(ox == oy && ix == iy)
        }
        _ => Tri::No,
    }
}

/// Conjunction over pairs; a definite mismatch anywhere wins over unknown parts.
fn all<'a>(pairs: impl Iterator<Item = (&'a Type, &'a Type)>) -> Tri {
    let mut acc = Tri::Yes;
    for (x, y) in pairs {
        match identical(x, y) {
            Tri::No => return Tri::No,
            Tri::Unknown(u) if acc == Tri::Yes => acc = Tri::Unknown(u),
            _ => {}
        }
    }
    acc
}

/// Signature identity (receivers and parameter names ignored).
pub fn identical_sigs(x: &Signature, y: &Signature) -> Tri {
    if x.variadic != y.variadic || x.params.len() != y.params.len() || x.results.len() != y.results.len() {
        return Tri::No;
    }
    all(x.params.iter().zip(&y.params).chain(x.results.iter().zip(&y.results)))
}

fn identical_interfaces(x: &InterfaceType, y: &InterfaceType) -> Tri {
    let keys_differ =
        x.methods.len() != y.methods.len() || x.methods.iter().zip(&y.methods).any(|(m, n)| m.0 != n.0);
    let methods = if keys_differ {
        Tri::No
    } else {
        let mut acc = Tri::Yes;
        for (m, n) in x.methods.iter().zip(&y.methods) {
            acc = acc.and(|| identical_sigs(&m.1, &n.1));
        }
        acc
    };
    let unknown = |why: &str| Tri::Unknown(Unresolved::other("constraint interface identity", why));
    let rest = match (&x.incomplete, &y.incomplete, x.constraint || y.constraint) {
        (Some(u), _, _) | (_, Some(u), _) => Tri::Unknown(u.clone()),
        (None, None, true) => unknown("type sets are not compared"),
        (None, None, false) => Tri::Yes,
    };
    match (methods, rest) {
        // With an incomplete side, differing known keys prove nothing.
        (Tri::No, Tri::Unknown(u)) if x.incomplete.is_some() || y.incomplete.is_some() => Tri::Unknown(u),
        (m, r) => m.and(|| r),
    }
}

/// `t` with `TypeParam { owner, i }` replaced by `args[i]`.
pub(crate) fn subst(t: &Type, owner: &Arc<str>, args: &[Type]) -> Type {
    let s = |t: &Type| Arc::new(subst(t, owner, args));
    match t {
        Type::TypeParam { owner: o, index } if o == owner => args
            .get(*index as usize)
            .cloned()
            .unwrap_or_else(|| Type::unresolved("bad instantiation", format!("{owner} #{index}"))),
        Type::TypeParam { .. } | Type::Basic(_) | Type::Unresolved(_) => t.clone(),
        Type::Named(n) if n.args.is_empty() => t.clone(),
        Type::Named(n) => Type::Named(Arc::new(NamedRef {
            path: n.path.clone(),
            name: n.name.clone(),
            args: n.args.iter().map(|a| subst(a, owner, args)).collect(),
        })),
        Type::Pointer(x) => Type::Pointer(s(x)),
        Type::Slice(x) => Type::Slice(s(x)),
        Type::Array { len, elem } => Type::Array { len: len.clone(), elem: s(elem) },
        Type::Map(k, v) => Type::Map(s(k), s(v)),
        Type::Chan(d, x) => Type::Chan(*d, s(x)),
        Type::Func(sig) => Type::Func(Arc::new(subst_sig(sig, owner, args))),
        Type::Struct(fields) => Type::Struct(
            fields.iter().map(|f| Field { ty: subst(&f.ty, owner, args), ..f.clone() }).collect(),
        ),
        Type::Interface(it) => Type::Interface(Arc::new(InterfaceType {
            methods: it.methods.iter().map(|(k, sig)| (k.clone(), subst_sig(sig, owner, args))).collect(),
            constraint: it.constraint,
            incomplete: it.incomplete.clone(),
        })),
    }
}

pub(crate) fn subst_sig(sig: &Signature, owner: &Arc<str>, args: &[Type]) -> Signature {
    Signature {
        params: sig.params.iter().map(|t| subst(t, owner, args)).collect(),
        results: sig.results.iter().map(|t| subst(t, owner, args)).collect(),
        variadic: sig.variadic,
    }
}
