//! Field-and-method lookup of one name, as go/types' `LookupFieldOrMethod` decides it, but
//! remembering which defined type declares the method found (the call edge's target) and
//! whether it was reached through an embedded interface.

use crate::types::{Key, NamedRef, Signature, Type, TypeCtx, Unresolved};
use std::collections::HashSet;
use std::sync::Arc;

/// What a selector `x.name` denotes on a value of some type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// A field, declared by the struct type underlying the defined type `owner` (`None` for
    /// a struct literal type).
    Field {
        ty: Type,
        owner: Option<Arc<NamedRef>>,
    },
    /// A method declared on the defined type `owner` (instantiated signature).
    Method {
        owner: Arc<NamedRef>,
        ptr_recv: bool,
        sig: Signature,
        depth: u32,
    },
    /// A method of an interface type (`iface` is the interface: the value's own type, or an
    /// embedded field's).
    Interface {
        iface: Type,
        sig: Signature,
        depth: u32,
    },
    /// Absent, or ambiguous at the shallowest depth.
    NotFound,
    Ambiguous,
    Unknown(Unresolved),
}

const MAX_DEPTH: u32 = 64;

fn deref(t: &Type) -> Type {
    match t {
        Type::Pointer(inner) => (**inner).clone(),
        t => t.clone(),
    }
}

/// The interface methods of `t` when `t` is an interface (named or literal).
pub(crate) fn interface_methods(
    ctx: &TypeCtx<'_>,
    t: &Type,
) -> Option<Result<Vec<(Key, Signature)>, Unresolved>> {
    let under = match t {
        Type::Named(n) => match ctx.underlying(n) {
            Ok(u) => u,
            Err(u) => return Some(Err(u)),
        },
        t => t.clone(),
    };
    match under {
        Type::Interface(it) => Some(match &it.incomplete {
            Some(u) => Err(u.clone()),
            None => Ok(it.methods.clone()),
        }),
        _ => None,
    }
}

pub(crate) fn lookup(ctx: &TypeCtx<'_>, t: &Type, key: &Key) -> Lookup {
    let start = deref(t);
    if let Type::TypeParam { .. } = start {
        return Lookup::Unknown(Unresolved::Other { kind: "type parameter", detail: "".into() });
    }
    // Interfaces (named or literal) at depth 0: their own method set.
    if let Some(methods) = interface_methods(ctx, &start) {
        return match methods {
            Err(u) => Lookup::Unknown(u),
            Ok(ms) => match ms.into_iter().find(|(k, _)| k == key) {
                Some((_, sig)) => Lookup::Interface { iface: start, sig, depth: 0 },
                None => Lookup::NotFound,
            },
        };
    }
    let mut current: Vec<(Type, bool)> = vec![(start, false)];
    let mut seen: HashSet<Arc<NamedRef>> = HashSet::new();
    for depth in 0..=MAX_DEPTH {
        if current.is_empty() {
            return Lookup::NotFound;
        }
        let mut found: Option<Lookup> = None;
        let mut count = 0u32;
        let mut unknown: Option<Unresolved> = None;
        let mut next: Vec<(Type, bool)> = Vec::new();
        for (ty, multiples) in current {
            let weight = if multiples { 2 } else { 1 };
            let under = match &ty {
                Type::Named(n) => {
                    if !seen.insert(n.clone()) {
                        continue;
                    }
                    let info = match ctx.named_info(&n.path, &n.name) {
                        Ok(i) => i,
                        Err(u) => {
                            unknown = unknown.or(Some(u));
                            continue;
                        }
                    };
                    if let Some(u) = &info.incomplete {
                        unknown = unknown.or(Some(u.clone()));
                    }
                    if let Some((_, m)) = info.methods.iter().find(|(k, _)| k == key) {
                        let sig = match ctx.instantiate(n, &info, &Type::Func(Arc::new(m.sig.clone()))) {
                            Type::Func(s) => (*s).clone(),
                            _ => m.sig.clone(),
                        };
                        count += weight;
                        found = Some(Lookup::Method { owner: n.clone(), ptr_recv: m.ptr_recv, sig, depth });
                    }
                    ctx.instantiate(n, &info, &info.underlying)
                }
                t => t.clone(),
            };
            match &under {
                Type::Struct(fields) => {
                    for f in fields.iter() {
                        if &f.key == key {
                            count += weight;
                            let owner = match &ty {
                                Type::Named(n) => Some(n.clone()),
                                _ => None,
                            };
                            found = Some(Lookup::Field { ty: f.ty.clone(), owner });
                        }
                        if f.embedded {
                            next.push((deref(&f.ty), multiples));
                        }
                    }
                }
                Type::Interface(it) if depth > 0 => {
                    if let Some(u) = &it.incomplete {
                        unknown = unknown.or(Some(u.clone()));
                    }
                    if let Some((_, sig)) = it.methods.iter().find(|(k, _)| k == key) {
                        count += weight;
                        found = Some(Lookup::Interface { iface: ty.clone(), sig: sig.clone(), depth });
                    }
                }
                Type::Unresolved(u) => unknown = unknown.or(Some(u.clone())),
                Type::TypeParam { .. } => {
                    unknown =
                        unknown.or(Some(Unresolved::Other { kind: "type parameter", detail: "".into() }))
                }
                _ => {}
            }
        }
        if let Some(u) = unknown {
            return Lookup::Unknown(u);
        }
        match (count, found) {
            (1, Some(f)) => return f,
            (0, _) => {}
            _ => return Lookup::Ambiguous,
        }
        // Same types at one depth merge into one entry marked `multiples`.
        let mut merged: Vec<(Type, bool)> = Vec::with_capacity(next.len());
        for (t, m) in next {
            match merged.iter_mut().find(|(u, _)| *u == t) {
                Some(e) => e.1 = true,
                None => merged.push((t, m)),
            }
        }
        current = merged;
    }
    Lookup::Unknown(Unresolved::Other { kind: "embedding too deep", detail: "".into() })
}
