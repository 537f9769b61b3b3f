//! Which package-level interface declaration spells a method of a method set, as go/types
//! keeps the method object: for a selector of an interface method (definition, references,
//! hover), including a method of a type parameter's constraint.

use super::resolve::Scope;
use super::{Key, Type, TypeCtx};
use crate::sig::{InterfaceElem, TypeExpr};
use std::sync::Arc;

/// Where a method spec of an interface's method set is spelled.
enum Declarer {
    Found(Arc<str>, Arc<str>),
    Absent,
    /// Behind a type this tree does not declare, or in an interface literal (no declaration
    /// of the tree has it).
    Unknown,
}

impl Declarer {
    fn found(self) -> Option<(Arc<str>, Arc<str>)> {
        match self {
            Declarer::Found(p, name) => Some((p, name)),
            Declarer::Absent | Declarer::Unknown => None,
        }
    }
}

impl TypeCtx<'_> {
    /// The defined interface type whose declaration spells the method spec `key` of the
    /// method set of the interface `n`, as go/types keeps it: `n` itself when its
    /// `interface { … }` lists the method, else the first embedded interface, in declaration
    /// order and depth first, that has it (`type J I` follows to I). `None` when the method
    /// is not there, or when an embedded type this tree does not declare comes first (it
    /// may be the one that has it).
    pub fn interface_declarer(&self, n: &super::NamedRef, key: &Key) -> Option<(Arc<str>, Arc<str>)> {
        self.iface_declarer_in(&n.path, &n.name, key, 0).found()
    }

    /// The same for the method `key` of a value of the `index`-th type parameter of `owner`
    /// (`<import path>::Name` of a generic function or type): its method set is its
    /// constraint's (`[T Stringer]`, `[T interface{ Stringer; ~int }]`, a constraint that
    /// mentions the other type parameters). A method the constraint literal itself lists has
    /// no package-level declaration: `None`.
    pub fn type_param_declarer(&self, owner: &str, index: u32, key: &Key) -> Option<(Arc<str>, Arc<str>)> {
        let (path, name) = owner.rsplit_once("::")?;
        let env = self.env(path)?;
        let (file, params) = match env.sigs.decl(name)? {
            super::source::DeclRef::Type(f, i) => {
                (f, &env.sigs.files[f as usize].types[i as usize].type_params)
            }
            super::source::DeclRef::Func(f, i) => {
                (f, &env.sigs.files[f as usize].funcs[i as usize].type_params)
            }
            super::source::DeclRef::Value(..) => return None,
        };
        let constraint = &params.get(index as usize)?.constraint;
        let tparams = self.tparam_env(path, name, params);
        let sc = Scope { pkg: &env, file: file as usize, tparams: &tparams };
        let path: Arc<str> = path.into();
        match constraint {
            TypeExpr::Interface(elems) => self.elems_declarer(sc, &path, None, elems, key, 0),
            t => self.follow(sc, t, key, 0),
        }
        .found()
    }

    fn iface_declarer_in(&self, path: &Arc<str>, name: &Arc<str>, key: &Key, depth: u32) -> Declarer {
        if path.is_empty() {
            // The universe's `error`: its `Error` is no method of this tree.
            return if *key.name == *"Error" && key.pkg.is_none() {
                Declarer::Unknown
            } else {
                Declarer::Absent
            };
        }
        let Some(env) = self.env(path).filter(|_| depth <= 16) else { return Declarer::Unknown };
        let Some((file, d)) = env.sigs.type_decl(name).filter(|(_, d)| !d.alias) else {
            return Declarer::Unknown;
        };
        let tparams = self.tparam_env(path, name, &d.type_params);
        let sc = Scope { pkg: &env, file, tparams: &tparams };
        match &d.ty {
            TypeExpr::Interface(elems) => self.elems_declarer(sc, path, Some(name), elems, key, depth),
            TypeExpr::Name(_) | TypeExpr::Qualified { .. } | TypeExpr::Generic { .. } => {
                self.follow(sc, &d.ty, key, depth)
            }
            _ => Declarer::Absent,
        }
    }

    /// The elements of an `interface { … }` in package `path`: the declaration `name` when
    /// it lists the method itself (`None`: a literal, which no declaration spells), else
    /// the first embedded interface that has it.
    fn elems_declarer(
        &self,
        sc: Scope<'_>,
        path: &Arc<str>,
        name: Option<&Arc<str>>,
        elems: &[InterfaceElem],
        key: &Key,
        depth: u32,
    ) -> Declarer {
        let own = key.pkg.as_deref().is_none_or(|p| p == &**path);
        let spelled =
            elems.iter().any(|e| matches!(e, InterfaceElem::Method { name, .. } if *name == *key.name));
        if own && spelled {
            return match name {
                Some(name) => Declarer::Found(path.clone(), name.clone()),
                None => Declarer::Unknown,
            };
        }
        for e in elems {
            if let InterfaceElem::Embed(t) = e {
                match self.follow(sc, t, key, depth) {
                    Declarer::Absent => {}
                    found_or_unknown => return found_or_unknown,
                }
            }
        }
        Declarer::Absent
    }

    /// An embedded element (or a constraint) written as a type name.
    fn follow(&self, sc: Scope<'_>, e: &TypeExpr, key: &Key, depth: u32) -> Declarer {
        match self.resolve_in(sc, e) {
            Type::Named(m) => self.iface_declarer_in(&m.path, &m.name, key, depth + 1),
            // An interface literal that has the method spells it itself (no declaration);
            // `any` and basic types have none.
            Type::Interface(it) if it.methods.iter().any(|(k, _)| k == key) => Declarer::Unknown,
            Type::Interface(_) | Type::Basic(_) => Declarer::Absent,
            _ => Declarer::Unknown,
        }
    }
}
