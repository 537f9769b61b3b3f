//! Method sets with promotion through embedded fields, as go/types' `LookupFieldOrMethod`
//! decides each name: the shallowest depth wins; two candidates (fields or methods) of a
//! name at the same depth, or one reached through the same embedded type twice, cancel out
//! and block deeper ones; a field blocks deeper methods; a named type already visited at a
//! shallower depth is not visited again.

use super::resolve::TypeCtx;
use super::{Key, NamedRef, Signature, Type, Unresolved};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// A method reached from a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub sig: Signature,
    /// Declared with a pointer receiver (interface methods: `false`).
    pub ptr_recv: bool,
    /// An embedded pointer lies on the path: the method is callable on a value too.
    pub indirect: bool,
    /// 0 for declared methods, the embedding depth for promoted ones.
    pub depth: u32,
}

impl Selection {
    /// Whether the method belongs to the method set of the value type (not only `*T`).
    pub fn in_value_set(&self) -> bool {
        !self.ptr_recv || self.indirect
    }
}

/// What a name denotes in a type's field-and-method namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    Method(Selection),
    /// A field, or an ambiguous name (collision at the shallowest depth).
    Blocked,
    /// Depends on something unresolved.
    Unknown(Unresolved),
}

/// The names reachable from a type (value and pointer method sets both derive from it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodSet {
    pub entries: BTreeMap<Key, Found>,
    /// Set when an unresolved type was reached: names not in `entries` are unknown rather
    /// than absent.
    pub rest: Option<Unresolved>,
}

impl MethodSet {
    /// What `key` denotes; `None` when it is certainly absent.
    pub fn get(&self, key: &Key) -> Option<Found> {
        match (self.entries.get(key), &self.rest) {
            (Some(f), _) => Some(f.clone()),
            (None, Some(u)) => Some(Found::Unknown(u.clone())),
            (None, None) => None,
        }
    }

    /// The methods (value set when `pointer` is false, else the `*T` set), certain only.
    pub fn methods(&self, pointer: bool) -> impl Iterator<Item = (&Key, &Selection)> {
        self.entries.iter().filter_map(move |(k, f)| match f {
            Found::Method(s) if pointer || s.in_value_set() => Some((k, s)),
            _ => None,
        })
    }
}

/// Embedding depth beyond which lookup gives up (only reachable with infinitely growing
/// generic instantiations).
const MAX_DEPTH: u32 = 64;

struct Entry {
    ty: Type,
    indirect: bool,
    multiples: bool,
}

#[derive(Default)]
struct Cand {
    count: u32,
    method: Option<Selection>,
}

fn add(cands: &mut HashMap<Key, Cand>, key: &Key, method: Option<Selection>, multiples: bool) {
    let c = cands.entry(key.clone()).or_default();
    c.count += if multiples { 2 } else { 1 };
    c.method = method;
}

fn deref(t: &Type) -> (Type, bool) {
    match t {
        Type::Pointer(inner) => ((**inner).clone(), true),
        t => (t.clone(), false),
    }
}

/// Same types at one depth become one entry marked `multiples` (first entry's flags kept).
fn consolidate(next: Vec<Entry>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(next.len());
    let mut index: HashMap<Type, usize> = HashMap::new();
    for e in next {
        match index.get(&e.ty) {
            Some(&i) => out[i].multiples = true,
            None => {
                index.insert(e.ty.clone(), out.len());
                out.push(e);
            }
        }
    }
    out
}

/// Declared methods, underlying type and incompleteness of a defined type.
type Declared = (Vec<(Key, Selection)>, Type, Option<Unresolved>);

impl TypeCtx<'_> {
    /// The declared methods of a (possibly instantiated) defined type.
    fn declared(&self, n: &NamedRef) -> Result<Declared, Unresolved> {
        let info = self.named_info(&n.path, &n.name)?;
        let methods = info
            .methods
            .iter()
            .map(|(k, m)| {
                let sig = match self.instantiate(n, &info, &Type::Func(Arc::new(m.sig.clone()))) {
                    Type::Func(s) => (*s).clone(),
                    _ => m.sig.clone(),
                };
                (k.clone(), Selection { sig, ptr_recv: m.ptr_recv, indirect: false, depth: 0 })
            })
            .collect();
        Ok((methods, self.instantiate(n, &info, &info.underlying), info.incomplete.clone()))
    }

    /// The field-and-method namespace of `t` (a defined type or a struct; a pointer is
    /// dereferenced, and then every method counts as reachable through a pointer).
    pub fn method_set(&self, t: &Type) -> MethodSet {
        let (start, ptr) = deref(t);
        let mut current = vec![Entry { ty: start, indirect: ptr, multiples: false }];
        let mut seen: HashSet<Arc<NamedRef>> = HashSet::new();
        let mut set = MethodSet::default();
        let mut depth = 0u32;
        while !current.is_empty() {
            if depth > MAX_DEPTH {
                set.rest = Some(Unresolved::other("embedding too deep", format!("{t:?}")));
                break;
            }
            let mut cands: HashMap<Key, Cand> = HashMap::new();
            let mut unknown: Option<Unresolved> = None;
            let mut next = Vec::new();
            for e in current {
                let under = match &e.ty {
                    Type::Named(n) => {
                        if !seen.insert(n.clone()) {
                            continue;
                        }
                        match self.declared(n) {
                            Ok((methods, under, incomplete)) => {
                                for (k, mut sel) in methods {
                                    sel.indirect = e.indirect;
                                    sel.depth = depth;
                                    add(&mut cands, &k, Some(sel), e.multiples);
                                }
                                if incomplete.is_some() {
                                    unknown = unknown.or(incomplete);
                                }
                                under
                            }
                            Err(u) => Type::Unresolved(u),
                        }
                    }
                    t => t.clone(),
                };
                match &under {
                    Type::Struct(fields) => {
                        for f in fields.iter() {
                            add(&mut cands, &f.key, None, e.multiples);
                            if f.embedded {
                                let (ty, ptr) = deref(&f.ty);
                                next.push(Entry { ty, indirect: e.indirect || ptr, multiples: e.multiples });
                            }
                        }
                    }
                    Type::Interface(it) => {
                        for (k, sig) in &it.methods {
                            let sel =
                                Selection { sig: sig.clone(), ptr_recv: false, indirect: e.indirect, depth };
                            add(&mut cands, k, Some(sel), e.multiples);
                        }
                        if let Some(u) = &it.incomplete {
                            unknown = unknown.or(Some(u.clone()));
                        }
                    }
                    Type::Unresolved(u) => unknown = unknown.or(Some(u.clone())),
                    _ => {}
                }
            }
            for (k, c) in cands {
                if set.entries.contains_key(&k) {
                    continue;
                }
                let found = match (&unknown, c.count, c.method) {
                    (Some(u), _, _) => Found::Unknown(u.clone()),
                    (None, 1, Some(sel)) => Found::Method(sel),
                    _ => Found::Blocked,
                };
                set.entries.insert(k, found);
            }
            if unknown.is_some() {
                set.rest = unknown;
                break;
            }
            current = consolidate(next);
            depth += 1;
        }
        set
    }
}
