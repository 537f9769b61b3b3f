//! Packages as resolution sees them: [`PackageSigs`] (the signature summaries of a
//! package's selected files, indexed by name) and the [`SigSource`] that supplies them.

use crate::sig::{FuncDeclSig, ItemSigs, TypeDeclSig, TypeExpr, ValueSig};
use std::collections::HashMap;
use std::sync::Arc;

/// Supplies packages lazily (the salsa layer implements it with per-package queries).
pub trait SigSource {
    /// The package with this import path, or `None` when it is not available (external,
    /// not walked): its types are then [`Unresolved`](super::Unresolved), never guessed.
    fn package(&self, import_path: &str) -> Option<Arc<PackageSigs>>;
    /// The import path an import spec of package `from_import_path` denotes (vendoring),
    /// or `None` when it cannot be resolved.
    fn resolve_import(&self, from_import_path: &str, spec: &str) -> Option<String>;
    /// What the defined type `path.name` is (underlying type, declared methods), when the
    /// source keeps it across resolutions (the salsa layer memoises it per type, so each
    /// file's resolution does not recompute the types it touches); `None` lets the
    /// [`TypeCtx`](super::TypeCtx) compute it, which must give the same answer.
    fn named_info(&self, path: &str, name: &str) -> Option<Result<Arc<super::NamedInfo>, super::Unresolved>> {
        let _ = (path, name);
        None
    }
}

/// Where a package-level name is declared: `(file index, index in that file's vector)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeclRef {
    Type(u32, u32),
    Value(u32, u32),
    Func(u32, u32),
}

/// The signature summaries of one package's selected files, indexed by name.
#[derive(Debug, PartialEq, Eq)]
pub struct PackageSigs {
    pub import_path: String,
    /// The package clause name (of the first file that has one).
    pub name: Option<String>,
    pub files: Vec<Arc<ItemSigs>>,
    /// Package-level names (first declaration wins; `_` and `init` left out).
    decls: HashMap<String, DeclRef>,
    /// Methods by receiver base type (same-package alias receivers mapped to the target).
    methods: HashMap<String, Vec<(u32, u32)>>,
    /// Methods whose receiver could not be read (syntax errors).
    pub unreadable_receivers: usize,
}

impl PackageSigs {
    pub fn new(import_path: impl Into<String>, files: Vec<Arc<ItemSigs>>) -> PackageSigs {
        let mut p = PackageSigs {
            import_path: import_path.into(),
            name: files.iter().find_map(|f| f.package.clone()),
            files,
            decls: HashMap::new(),
            methods: HashMap::new(),
            unreadable_receivers: 0,
        };
        for (fi, f) in p.files.iter().enumerate() {
            let fi = fi as u32;
            for (i, t) in f.types.iter().enumerate() {
                p.decls.entry(t.name.clone()).or_insert(DeclRef::Type(fi, i as u32));
            }
            for (i, v) in f.values.iter().enumerate() {
                p.decls.entry(v.name.clone()).or_insert(DeclRef::Value(fi, i as u32));
            }
            for (i, d) in f.funcs.iter().enumerate() {
                if d.receiver.is_none() && d.name != "init" {
                    p.decls.entry(d.name.clone()).or_insert(DeclRef::Func(fi, i as u32));
                }
            }
        }
        p.decls.remove("_");
        let mut methods: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut unreadable = 0;
        for (fi, f) in p.files.iter().enumerate() {
            for (i, d) in f.funcs.iter().enumerate() {
                let Some(r) = &d.receiver else { continue };
                match &r.base {
                    Some(base) => {
                        let base = p.receiver_base(base).to_string();
                        methods.entry(base).or_default().push((fi as u32, i as u32));
                    }
                    None => unreadable += 1,
                }
            }
        }
        p.methods = methods;
        p.unreadable_receivers = unreadable;
        p
    }

    /// Whether any file of the package has syntax errors.
    pub fn has_syntax_errors(&self) -> bool {
        self.files.iter().any(|f| f.has_syntax_errors)
    }

    /// The defined type a receiver name denotes: the end of a chain of same-package,
    /// non-generic aliases to plain names (bounded), or `name` itself.
    fn receiver_base<'a>(&'a self, mut name: &'a str) -> &'a str {
        for _ in 0..8 {
            match self.type_decl(name) {
                Some((_, t)) if t.alias && t.type_params.is_empty() => match &t.ty {
                    TypeExpr::Name(target) => name = target,
                    _ => break,
                },
                _ => break,
            }
        }
        name
    }

    pub(crate) fn decl(&self, name: &str) -> Option<DeclRef> {
        self.decls.get(name).copied()
    }

    /// The type declaration of `name` and the index of its file.
    pub fn type_decl(&self, name: &str) -> Option<(usize, &TypeDeclSig)> {
        match self.decl(name)? {
            DeclRef::Type(f, i) => Some((f as usize, &self.files[f as usize].types[i as usize])),
            _ => None,
        }
    }

    /// The value (var/const) declaration of `name` and the index of its file.
    pub fn value_decl(&self, name: &str) -> Option<(usize, &ValueSig)> {
        match self.decl(name)? {
            DeclRef::Value(f, i) => Some((f as usize, &self.files[f as usize].values[i as usize])),
            _ => None,
        }
    }

    /// The methods declared on the defined type `name` (with their file index), in file
    /// and source order.
    pub fn methods_of(&self, name: &str) -> impl Iterator<Item = (usize, &FuncDeclSig)> {
        self.methods
            .get(name)
            .into_iter()
            .flatten()
            .map(|&(f, i)| (f as usize, &self.files[f as usize].funcs[i as usize]))
    }

    /// Every type declaration (file index, declaration), in file and source order,
    /// first declaration of each name only.
    pub fn type_decls(&self) -> impl Iterator<Item = (usize, &TypeDeclSig)> {
        self.files.iter().enumerate().flat_map(move |(fi, f)| {
            f.types
                .iter()
                .enumerate()
                .filter(move |(i, t)| self.decl(&t.name) == Some(DeclRef::Type(fi as u32, *i as u32)))
                .map(move |(_, t)| (fi, t))
        })
    }
}
