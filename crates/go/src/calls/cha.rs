//! Class-hierarchy expansion of interface method calls: every named concrete (generic ones at
//! declaration identity) type of the given packages whose value or pointer method set implements the interface
//! contributes the method it selects (the declaring method, through promotion).
//!
//! As go/ssa + `callgraph/cha` classify them, an edge is `synthetic` when only a wrapper
//! reaches the method: a promoted method, or a value-receiver method reached through `*T`
//! because only `*T` implements the interface. Types declared inside function bodies are
//! not seen (they can only add synthetic edges to methods of their embedded types).

use super::lookup::{interface_methods, lookup, Lookup};
use super::method_id;
use crate::types::{identical_sigs, Found, Key, MethodSet, Tri, Type, TypeCtx, Unresolved};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// One possible target of an interface call.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChaTarget {
    /// Symbol ID of the declaring method.
    pub callee: String,
    /// Only reached through a go/ssa wrapper.
    pub synthetic: bool,
}

struct Concrete {
    ty: Type,
    set: MethodSet,
}

/// The concrete named types of a set of packages, indexed by method name.
pub struct ChaIndex {
    types: Vec<Concrete>,
    by_method: HashMap<Key, Vec<usize>>,
    /// Types whose method set is not fully known (they might implement anything).
    open: Vec<usize>,
    /// Expansions already computed, by interface and method. An expansion depends only on
    /// the signatures the index was built from (type parameters are named by their owner,
    /// so an interface type means the same thing in every caller), so it is shared by every
    /// call site of the same method of the same interface.
    memo: Mutex<HashMap<(Type, Key), Arc<ChaExpansion>>>,
}

/// The expansion of one interface call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChaExpansion {
    pub targets: Vec<ChaTarget>,
    /// Why some types may implement the interface without being counted (never guessed).
    pub unknown: Vec<Unresolved>,
}

impl ChaIndex {
    /// Index the named non-interface types of `packages` (import paths); a generic type is
    /// taken uninstantiated, so it implements an interface only when its methods match
    /// whatever the type arguments.
    pub fn new(ctx: &TypeCtx<'_>, packages: &[&str]) -> ChaIndex {
        let mut idx = ChaIndex {
            types: Vec::new(),
            by_method: HashMap::new(),
            open: Vec::new(),
            memo: Mutex::default(),
        };
        for &path in packages {
            let Some(sigs) = ctx.package(path) else { continue };
            let path: Arc<str> = path.into();
            for (_, d) in sigs.type_decls() {
                if d.alias || d.name == "_" {
                    continue;
                }
                let ty = Type::named(&path, &d.name.as_str().into(), Vec::new());
                if let Some(Ok(_) | Err(_)) = interface_methods(ctx, &ty) {
                    continue;
                }
                let set = ctx.method_set(&ty);
                let i = idx.types.len();
                for (k, f) in &set.entries {
                    if matches!(f, Found::Method(_) | Found::Unknown(_)) {
                        idx.by_method.entry(k.clone()).or_default().push(i);
                    }
                }
                if set.rest.is_some() {
                    idx.open.push(i);
                }
                idx.types.push(Concrete { ty, set });
            }
        }
        idx
    }

    /// The possible targets of calling `method` on a value of interface type `iface`.
    /// `ctx` must read the same signatures the index was built from.
    pub fn targets(&self, ctx: &TypeCtx<'_>, iface: &Type, method: &Key) -> Arc<ChaExpansion> {
        let key = (iface.clone(), method.clone());
        if let Some(done) = self.memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return done.clone();
        }
        let out = Arc::new(self.expand(ctx, iface, method));
        self.memo.lock().unwrap_or_else(|e| e.into_inner()).insert(key, out.clone());
        out
    }

    fn expand(&self, ctx: &TypeCtx<'_>, iface: &Type, method: &Key) -> ChaExpansion {
        let mut out = ChaExpansion::default();
        let methods = match interface_methods(ctx, iface) {
            Some(Ok(m)) => m,
            Some(Err(u)) => {
                out.unknown.push(u);
                return out;
            }
            None => {
                out.unknown.push(Unresolved::Other {
                    kind: "not an interface",
                    detail: format!("{iface:?}").into(),
                });
                return out;
            }
        };
        let mut found: BTreeMap<String, bool> = BTreeMap::new();
        let cands = self.by_method.get(method).map_or(&[][..], Vec::as_slice);
        for &i in cands.iter().chain(&self.open) {
            let c = &self.types[i];
            let (ptr, val) = implements(&c.set, &methods);
            match (&ptr, &val) {
                (Tri::Unknown(u), _) | (_, Tri::Unknown(u)) if ptr != Tri::Yes => {
                    out.unknown.push(u.clone());
                    continue;
                }
                (Tri::No, _) => continue,
                _ => {}
            }
            let Lookup::Method { owner, ptr_recv, depth, .. } = lookup(ctx, &c.ty, method) else { continue };
            let synthetic = depth > 0 || (val != Tri::Yes && !ptr_recv);
            let e = found.entry(method_id(&owner, ptr_recv, &method.name)).or_insert(true);
            *e &= synthetic;
        }
        out.targets = found.into_iter().map(|(callee, synthetic)| ChaTarget { callee, synthetic }).collect();
        out.unknown.sort();
        out.unknown.dedup();
        out
    }
}

/// Whether `*T` and `T` implement an interface with `methods`, given `T`'s method set.
fn implements(set: &MethodSet, methods: &[(Key, crate::types::Signature)]) -> (Tri, Tri) {
    let (mut ptr, mut val) = (Tri::Yes, Tri::Yes);
    for (k, sig) in methods {
        match set.get(k) {
            None | Some(Found::Blocked) => return (Tri::No, Tri::No),
            Some(Found::Unknown(u)) => {
                ptr = ptr.and(|| Tri::Unknown(u.clone()));
                val = val.and(|| Tri::Unknown(u.clone()));
            }
            Some(Found::Method(sel)) => {
                let same = identical_sigs(&sel.sig, sig);
                if same == Tri::No {
                    return (Tri::No, Tri::No);
                }
                ptr = ptr.and(|| same.clone());
                val = val.and(|| if sel.in_value_set() { same } else { Tri::No });
            }
        }
    }
    (ptr, val)
}
