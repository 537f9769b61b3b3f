//! `implements` over a set of packages: every (named non-interface non-generic type `T`,
//! named basic non-generic non-empty interface `I`) pair where `T` or `*T` implements `I`,
//! three-valued.

use super::identical::identical_sigs;
use super::methods::{Found, MethodSet};
use super::resolve::TypeCtx;
use super::{Key, Signature, Tri, Type, Unresolved};
use std::collections::HashMap;
use std::sync::Arc;

/// How `T` implements `I`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// `T` (and so `*T`) implements `I`.
    Value,
    /// Only `*T` implements `I`.
    Pointer,
    /// Depends on something unresolved: may or may not implement.
    Unknown(Unresolved),
}

/// One pair; IDs are Gograph symbol IDs (`<import path>::Name`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImplementsPair {
    pub ty: String,
    pub iface: String,
    pub verdict: Verdict,
}

struct Concrete {
    id: String,
    set: MethodSet,
}

struct Iface {
    id: String,
    methods: Vec<(Key, Signature)>,
    incomplete: Option<Unresolved>,
}

/// Every pair of named types of `packages` (import paths the context's source has) where
/// `T` or `*T` implements `I` or may ([`Verdict::Unknown`]). Generic types, aliases, empty
/// interfaces and constraint interfaces take no part. Sorted by `(ty, iface)`.
pub fn implements(ctx: &TypeCtx<'_>, packages: &[&str]) -> Vec<ImplementsPair> {
    let (concretes, ifaces) = collect(ctx, packages);
    let mut index: HashMap<&Key, Vec<usize>> = HashMap::new();
    let mut open = Vec::new();
    for (i, c) in concretes.iter().enumerate() {
        for (k, f) in &c.set.entries {
            if matches!(f, Found::Method(_) | Found::Unknown(_)) {
                index.entry(k).or_default().push(i);
            }
        }
        if c.set.rest.is_some() {
            open.push(i);
        }
    }
    let all: Vec<usize> = (0..concretes.len()).collect();
    let mut out = Vec::new();
    for iface in &ifaces {
        let rarest = iface
            .methods
            .iter()
            .map(|(k, _)| index.get(k).map_or(&[][..], Vec::as_slice))
            .min_by_key(|c| c.len());
        let mut cands: Vec<usize> = match rarest {
            Some(c) => c.iter().chain(&open).copied().collect(),
            None => all.clone(),
        };
        cands.sort_unstable();
        cands.dedup();
        for i in cands {
            if let Some(verdict) = verdict(&concretes[i].set, iface) {
                out.push(ImplementsPair { ty: concretes[i].id.clone(), iface: iface.id.clone(), verdict });
            }
        }
    }
    out.sort_by(|a, b| (&a.ty, &a.iface).cmp(&(&b.ty, &b.iface)));
    out
}

fn collect(ctx: &TypeCtx<'_>, packages: &[&str]) -> (Vec<Concrete>, Vec<Iface>) {
    let (mut concretes, mut ifaces) = (Vec::new(), Vec::new());
    for &path in packages {
        let Some(sigs) = ctx.package(path) else { continue };
        let path: Arc<str> = path.into();
        for (_, d) in sigs.type_decls() {
            if d.alias || !d.type_params.is_empty() || d.name == "_" {
                continue;
            }
            let name: Arc<str> = d.name.as_str().into();
            let id = format!("{path}::{name}");
            let info = match ctx.named_info(&path, &name) {
                Ok(info) => info,
                Err(u) => {
                    concretes.push(Concrete { id, set: MethodSet { rest: Some(u), ..MethodSet::default() } });
                    continue;
                }
            };
            match &info.underlying {
                Type::Interface(it) if it.constraint => {}
                Type::Interface(it) if it.methods.is_empty() && it.incomplete.is_none() => {}
                Type::Interface(it) => {
                    ifaces.push(Iface { id, methods: it.methods.clone(), incomplete: it.incomplete.clone() })
                }
                _ => concretes
                    .push(Concrete { id, set: ctx.method_set(&Type::named(&path, &name, Vec::new())) }),
            }
        }
    }
    (concretes, ifaces)
}

/// `None` when neither `T` nor `*T` implements `I`.
fn verdict(set: &MethodSet, iface: &Iface) -> Option<Verdict> {
    let (mut ptr, mut val) = (Tri::Yes, Tri::Yes);
    for (k, sig) in &iface.methods {
        match set.get(k) {
            None | Some(Found::Blocked) => return None,
            Some(Found::Unknown(u)) => {
                ptr = ptr.and(|| Tri::Unknown(u.clone()));
                val = val.and(|| Tri::Unknown(u.clone()));
            }
            Some(Found::Method(sel)) => {
                let same = identical_sigs(&sel.sig, sig);
                if same == Tri::No {
                    return None;
                }
                ptr = ptr.and(|| same.clone());
                val = val.and(|| if sel.in_value_set() { same } else { Tri::No });
            }
        }
    }
    if let Some(u) = &iface.incomplete {
        ptr = ptr.and(|| Tri::Unknown(u.clone()));
        val = val.and(|| Tri::Unknown(u.clone()));
    }
    match (ptr, val) {
        (_, Tri::Yes) => Some(Verdict::Value),
        (Tri::No, _) => None,
        (Tri::Yes, Tri::No) => Some(Verdict::Pointer),
        (Tri::Unknown(u), _) | (_, Tri::Unknown(u)) => Some(Verdict::Unknown(u)),
    }
}
