//! [`TypeCtx`]: resolution of type expressions in a package scope (type parameters,
//! package-level names, file imports including alias, dot and blank imports, the universe),
//! memoised per package-level name.

use super::identical::subst;
use super::source::{DeclRef, PackageSigs, SigSource};
use super::{ArrayLen, Basic, Field, InterfaceType, Key, NamedRef, Signature, Type, Unresolved};
use crate::sig::{FuncSig, InterfaceElem, ItemSigs, TypeExpr, TypeParamSig};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// A declared method of a defined type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MethodInfo {
    pub ptr_recv: bool,
    pub sig: Signature,
}

/// What resolution knows about a defined type (opaque outside this crate: a
/// [`SigSource`] may keep it, see [`SigSource::named_info`] and [`compute_named_info`]).
#[derive(Debug, PartialEq, Eq)]
pub struct NamedInfo {
    pub(crate) tparams: usize,
    /// The underlying type (with this type's [`Type::TypeParam`]s when generic).
    pub(crate) underlying: Type,
    /// Declared methods, in declaration order, first of each key.
    pub(crate) methods: Vec<(Key, MethodInfo)>,
    /// The declared methods may be incomplete (syntax errors in the package).
    pub(crate) incomplete: Option<Unresolved>,
}

impl NamedInfo {
    /// Why the underlying type is unknown (`type E fmt.Stringer` with `fmt` outside the
    /// analysis): then the type may be an interface or not.
    pub fn unresolved_underlying(&self) -> Option<&Unresolved> {
        match &self.underlying {
            Type::Unresolved(u) => Some(u),
            _ => None,
        }
    }

    /// What kind of interface the underlying type is: `constraint` (type terms, `comparable`,
    /// …), `empty` (no methods, nothing unresolved: every type implements it), `methods`
    /// (a basic interface, what `implements` is derived for); `None` when it is none.
    pub fn interface_set(&self) -> Option<&'static str> {
        match &self.underlying {
            Type::Interface(it) if it.constraint => Some("constraint"),
            Type::Interface(it) if it.methods.is_empty() && it.incomplete.is_none() => Some("empty"),
            Type::Interface(_) => Some("methods"),
            _ => None,
        }
    }
}

/// Compute what the defined type `path.name` is, in a type context of its own over
/// `source` (whose [`SigSource::named_info`] must not lead back here, or a type whose
/// declaration names itself through another would recurse without end).
pub fn compute_named_info(
    source: &dyn SigSource,
    path: &str,
    name: &str,
) -> Result<Arc<NamedInfo>, Unresolved> {
    TypeCtx::new(source).named_info(&path.into(), &name.into())
}

enum Slot<T> {
    InProgress,
    Done(T),
}

#[derive(Clone, Debug)]
enum Target {
    Pkg(Arc<str>),
    Absent(Arc<str>),
    Unsafe,
}

#[derive(Default)]
struct FileImports {
    by_name: HashMap<String, Target>,
    dots: Vec<Target>,
    /// Absent packages imported without a name: their local names are unknown.
    unnamed_absent: Vec<Arc<str>>,
}

pub(crate) struct PkgEnv {
    pub path: Arc<str>,
    pub sigs: Arc<PackageSigs>,
    /// Each file's import table, built when a resolution in that file first needs it (a
    /// package's other files are mostly never asked about).
    files: Vec<OnceLock<FileImports>>,
}

/// A resolution scope: a file of a package plus type parameters in scope.
#[derive(Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub pkg: &'a Arc<PkgEnv>,
    pub file: usize,
    pub tparams: &'a [(String, Type)],
}

/// What a (possibly qualified) type name denotes.
enum NameRes {
    Defined(Arc<str>, Arc<str>),
    Alias(Arc<PkgEnv>, Arc<str>),
    Type(Type),
}

type Key2 = (Arc<str>, Arc<str>);
type NamedResult = Result<Arc<NamedInfo>, Unresolved>;

/// Type resolution over the packages of a [`SigSource`], memoised per package-level name.
/// Not `Sync` (interior caches); create one per analysis.
pub struct TypeCtx<'s> {
    source: &'s dyn SigSource,
    pkgs: RefCell<HashMap<Arc<str>, Option<Arc<PkgEnv>>>>,
    named: RefCell<HashMap<Key2, Slot<NamedResult>>>,
    aliases: RefCell<HashMap<Key2, Slot<Type>>>,
    pub(super) consts: RefCell<HashMap<Key2, Option<Result<i128, Unresolved>>>>,
    /// Types of package-level variables that inference gives (`None`: unknown; also the
    /// entry while its inference runs, so an initialization cycle is unknown).
    vars: RefCell<HashMap<Key2, Option<Type>>>,
}

const UNIVERSE_BASIC: &[(&str, Basic)] = &[
    ("bool", Basic::Bool),
    ("int", Basic::Int),
    ("int8", Basic::Int8),
    ("int16", Basic::Int16),
    ("int32", Basic::Int32),
    ("rune", Basic::Int32),
    ("int64", Basic::Int64),
    ("uint", Basic::Uint),
    ("uint8", Basic::Uint8),
    ("byte", Basic::Uint8),
    ("uint16", Basic::Uint16),
    ("uint32", Basic::Uint32),
    ("uint64", Basic::Uint64),
    ("uintptr", Basic::Uintptr),
    ("float32", Basic::Float32),
    ("float64", Basic::Float64),
    ("complex64", Basic::Complex64),
    ("complex128", Basic::Complex128),
    ("string", Basic::String),
];

fn universe(name: &str) -> Option<Type> {
    if let Some((_, b)) = UNIVERSE_BASIC.iter().find(|(n, _)| *n == name) {
        return Some(Type::Basic(*b));
    }
    match name {
        "any" => Some(Type::Interface(Arc::new(InterfaceType::default()))),
        "error" | "comparable" => Some(Type::named(&"".into(), &name.into(), Vec::new())),
        _ => None,
    }
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

impl<'s> TypeCtx<'s> {
    pub fn new(source: &'s dyn SigSource) -> TypeCtx<'s> {
        TypeCtx {
            source,
            pkgs: RefCell::default(),
            named: RefCell::default(),
            aliases: RefCell::default(),
            consts: RefCell::default(),
            vars: RefCell::default(),
        }
    }

    /// The memoised type of the package-level variable `name` of `path` whose initializer
    /// inference types: `infer` runs once per variable; asked again while it runs (an
    /// initialization cycle, or an invalid self-reference), the type is unknown.
    pub(crate) fn var_type(
        &self,
        path: &Arc<str>,
        name: &str,
        infer: impl FnOnce() -> Option<Type>,
    ) -> Option<Type> {
        let key: Key2 = (path.clone(), name.into());
        if let Some(t) = self.vars.borrow().get(&key) {
            return t.clone();
        }
        self.vars.borrow_mut().insert(key.clone(), None);
        let t = infer();
        self.vars.borrow_mut().insert(key, t.clone());
        t
    }

    /// The package with this import path, when the source has it.
    pub fn package(&self, path: &str) -> Option<Arc<PackageSigs>> {
        self.env(path).map(|e| e.sigs.clone())
    }

    pub(crate) fn env(&self, path: &str) -> Option<Arc<PkgEnv>> {
        if let Some(e) = self.pkgs.borrow().get(path) {
            return e.clone();
        }
        let env = self.source.package(path).map(|sigs| Arc::new(self.build_env(path, sigs)));
        self.pkgs.borrow_mut().insert(path.into(), env.clone());
        env
    }

    fn build_env(&self, path: &str, sigs: Arc<PackageSigs>) -> PkgEnv {
        let files = (0..sigs.files.len()).map(|_| OnceLock::new()).collect();
        PkgEnv { path: path.into(), sigs, files }
    }

    /// The import table of file `file` of `env`.
    fn imports<'e>(&self, env: &'e PkgEnv, file: usize) -> &'e FileImports {
        env.files[file].get_or_init(|| self.file_imports(&env.path, &env.sigs.files[file]))
    }

    fn file_imports(&self, path: &str, f: &ItemSigs) -> FileImports {
        let mut fi = FileImports::default();
        for imp in &f.imports {
            let target = match imp.path.as_str() {
                "unsafe" => Target::Unsafe,
                spec => match self.source.resolve_import(path, spec) {
                    Some(p) if self.source.package(&p).is_some() => Target::Pkg(p.into()),
                    Some(p) => Target::Absent(p.into()),
                    None => Target::Absent(spec.into()),
                },
            };
            let local = match (&imp.name, &target) {
                (Some(n), _) if n == "_" => continue,
                (Some(n), _) if n == "." => {
                    fi.dots.push(target);
                    continue;
                }
                (Some(n), _) => n.clone(),
                (None, Target::Unsafe) => "unsafe".to_string(),
                (None, Target::Pkg(p)) => match self.source.package(p).and_then(|s| s.name.clone()) {
                    Some(n) => n,
                    None => continue,
                },
                (None, Target::Absent(p)) => {
                    fi.unnamed_absent.push(p.clone());
                    continue;
                }
            };
            fi.by_name.entry(local).or_insert(target);
        }
        fi
    }

    /// The type a type expression of file `file` of package `path` denotes (no type
    /// parameters in scope).
    pub fn resolve(&self, path: &str, file: usize, expr: &TypeExpr) -> Type {
        match self.env(path) {
            Some(env) => self.resolve_in(Scope { pkg: &env, file, tparams: &[] }, expr),
            None => Type::Unresolved(Unresolved::other("external package", path)),
        }
    }

    /// The type the package-level type name `path.name` denotes (aliases resolved).
    pub fn lookup_type(&self, path: &str, name: &str) -> Type {
        match self.env(path) {
            Some(env) => self.name_type(self.pkg_name(&env, name)),
            None => Type::Unresolved(Unresolved::External { path: path.into(), name: name.into() }),
        }
    }

    pub(crate) fn resolve_in(&self, sc: Scope<'_>, expr: &TypeExpr) -> Type {
        let res = |e: &TypeExpr| Arc::new(self.resolve_in(sc, e));
        match expr {
            TypeExpr::Name(_) | TypeExpr::Qualified { .. } => self.name_type(self.type_name(sc, expr)),
            TypeExpr::Pointer(t) => Type::Pointer(res(t)),
            TypeExpr::Slice(t) => Type::Slice(res(t)),
            TypeExpr::Array { len, elem } => {
                let len = match self.eval_const(sc, len, None) {
                    Ok(n) if n >= 0 && n <= u64::MAX as i128 => ArrayLen::Known(n as u64),
                    Ok(n) => ArrayLen::Unknown(Unresolved::other("invalid array length", n.to_string())),
                    Err(u) => ArrayLen::Unknown(u),
                };
                Type::Array { len, elem: res(elem) }
            }
            TypeExpr::Map { key, value } => Type::Map(res(key), res(value)),
            TypeExpr::Chan { dir, elem } => Type::Chan(*dir, res(elem)),
            TypeExpr::Func(sig) => Type::Func(Arc::new(self.signature(sc, sig))),
            TypeExpr::Struct(fields) => Type::Struct(
                fields
                    .iter()
                    .map(|f| Field {
                        key: Key::new(&f.name, &sc.pkg.path),
                        ty: self.resolve_in(sc, &f.ty),
                        embedded: f.embedded,
                        tag: f.tag.clone(),
                    })
                    .collect(),
            ),
            TypeExpr::Interface(elems) => Type::Interface(Arc::new(self.interface(sc, elems))),
            TypeExpr::Generic { base, args } => {
                let args: Vec<Type> = args.iter().map(|a| self.resolve_in(sc, a)).collect();
                match self.type_name(sc, base) {
                    NameRes::Defined(path, name) => Type::named(&path, &name, args),
                    NameRes::Alias(env, name) => {
                        let target = self.alias_target(&env, &name);
                        let owner: Arc<str> = format!("{}::{name}", env.path).into();
                        match env.sigs.type_decl(&name) {
                            Some((_, d)) if d.type_params.len() == args.len() => {
                                subst(&target, &owner, &args)
                            }
                            _ => Type::unresolved("bad instantiation", format!("{}.{name}", env.path)),
                        }
                    }
                    NameRes::Type(Type::Unresolved(u)) => Type::Unresolved(u),
                    NameRes::Type(t) => Type::unresolved("bad instantiation", format!("{t:?}")),
                }
            }
            TypeExpr::Invalid(text) => Type::unresolved("syntax", text.as_str()),
        }
    }

    pub(crate) fn signature(&self, sc: Scope<'_>, sig: &FuncSig) -> Signature {
        let mut params: Vec<Type> = sig.params.iter().map(|p| self.resolve_in(sc, &p.ty)).collect();
        if sig.variadic {
            if let Some(last) = params.pop() {
                params.push(Type::Slice(Arc::new(last)));
            }
        }
        Signature {
            params,
            results: sig.results.iter().map(|p| self.resolve_in(sc, &p.ty)).collect(),
            variadic: sig.variadic,
        }
    }

    fn interface(&self, sc: Scope<'_>, elems: &[InterfaceElem]) -> InterfaceType {
        let mut it = InterfaceType::default();
        let mut methods: Vec<(Key, Signature)> = Vec::new();
        for e in elems {
            match e {
                InterfaceElem::Method { name, sig } => {
                    methods.push((Key::new(name, &sc.pkg.path), self.signature(sc, sig)))
                }
                InterfaceElem::Union(_) => it.constraint = true,
                InterfaceElem::Embed(t) => {
                    let embedded = match self.resolve_in(sc, t) {
                        Type::Named(n) => self.underlying(&n),
                        other => Ok(other),
                    };
                    match embedded {
                        Ok(Type::Interface(e)) => {
                            methods.extend(e.methods.iter().cloned());
                            it.constraint |= e.constraint;
                            if it.incomplete.is_none() {
                                it.incomplete = e.incomplete.clone();
                            }
                        }
                        Ok(Type::Unresolved(u)) | Err(u) => it.incomplete = it.incomplete.take().or(Some(u)),
                        Ok(Type::TypeParam { .. }) => {
                            it.incomplete = Some(Unresolved::other("type parameter embedded", ""))
                        }
                        Ok(_) => it.constraint = true,
                    }
                }
            }
        }
        // Stable sort keeps the first of duplicate keys (identical duplicates are allowed).
        methods.sort_by(|a, b| a.0.cmp(&b.0));
        methods.dedup_by(|a, b| a.0 == b.0);
        it.methods = methods;
        it
    }

    fn type_name(&self, sc: Scope<'_>, expr: &TypeExpr) -> NameRes {
        match expr {
            TypeExpr::Name(n) => {
                if let Some((_, t)) = sc.tparams.iter().rev().find(|(p, _)| p == n) {
                    return NameRes::Type(t.clone());
                }
                if sc.pkg.sigs.decl(n).is_some() {
                    return self.pkg_name(sc.pkg, n);
                }
                if let Some(found) = self.dot_env(sc, n) {
                    return match found {
                        Ok(env) => self.pkg_name(&env, n),
                        Err(u) => NameRes::Type(Type::Unresolved(u)),
                    };
                }
                match universe(n) {
                    Some(t) => NameRes::Type(t),
                    None => NameRes::Type(Type::unresolved("unknown identifier", n.as_str())),
                }
            }
            TypeExpr::Qualified { pkg, name } => {
                let imports = self.imports(sc.pkg, sc.file);
                match imports.by_name.get(pkg) {
                    Some(Target::Pkg(p)) => match self.env(p) {
                        Some(env) => self.pkg_name(&env, name),
                        None => NameRes::Type(Type::Unresolved(Unresolved::External {
                            path: p.clone(),
                            name: name.as_str().into(),
                        })),
                    },
                    Some(Target::Absent(p)) => NameRes::Type(Type::Unresolved(Unresolved::External {
                        path: p.clone(),
                        name: name.as_str().into(),
                    })),
                    Some(Target::Unsafe) if name == "Pointer" => {
                        NameRes::Type(Type::Basic(Basic::UnsafePointer))
                    }
                    Some(Target::Unsafe) => {
                        NameRes::Type(Type::unresolved("not a type", format!("unsafe.{name}")))
                    }
                    // The only import whose name is unknown: in code that compiles, the
                    // qualifier must denote it.
                    None if imports.unnamed_absent.len() == 1 => {
                        NameRes::Type(Type::Unresolved(Unresolved::External {
                            path: imports.unnamed_absent[0].clone(),
                            name: name.as_str().into(),
                        }))
                    }
                    None if !imports.unnamed_absent.is_empty() => NameRes::Type(Type::unresolved(
                        "external package",
                        format!("{pkg}.{name} (import name unknown)"),
                    )),
                    None => NameRes::Type(Type::unresolved("unknown package", format!("{pkg}.{name}"))),
                }
            }
            other => NameRes::Type(Type::unresolved("not a type name", format!("{other:?}"))),
        }
    }

    /// The dot-imported package that declares the exported `name`, if any (an absent
    /// dot-imported package makes the answer unknown).
    pub(crate) fn dot_env(&self, sc: Scope<'_>, name: &str) -> Option<Result<Arc<PkgEnv>, Unresolved>> {
        if !is_exported(name) {
            return None;
        }
        let mut absent = None;
        for t in &self.imports(sc.pkg, sc.file).dots {
            match t {
                Target::Pkg(p) => match self.env(p) {
                    Some(env) if env.sigs.decl(name).is_some() => return Some(Ok(env)),
                    _ => {}
                },
                Target::Absent(p) => absent = Some(p.clone()),
                Target::Unsafe => {}
            }
        }
        absent.map(|p| Err(Unresolved::other("external dot import", format!("{p}: {name}"))))
    }

    /// The package a file-local package name denotes.
    pub(crate) fn qualified_env(&self, sc: Scope<'_>, pkg: &str) -> Result<Arc<PkgEnv>, Unresolved> {
        let imports = self.imports(sc.pkg, sc.file);
        match imports.by_name.get(pkg) {
            Some(Target::Pkg(p)) => {
                self.env(p).ok_or_else(|| Unresolved::other("external package", p.as_ref()))
            }
            Some(Target::Absent(p)) => Err(Unresolved::other("external package", p.as_ref())),
            Some(Target::Unsafe) => Err(Unresolved::other("unevaluated constant", "unsafe")),
            None if !imports.unnamed_absent.is_empty() => {
                Err(Unresolved::other("external package", format!("{pkg} (import name unknown)")))
            }
            None => Err(Unresolved::other("unknown package", pkg)),
        }
    }

    fn pkg_name(&self, env: &Arc<PkgEnv>, name: &str) -> NameRes {
        match env.sigs.decl(name) {
            Some(DeclRef::Type(f, i)) => {
                let d = &env.sigs.files[f as usize].types[i as usize];
                if d.alias {
                    NameRes::Alias(env.clone(), name.into())
                } else {
                    NameRes::Defined(env.path.clone(), name.into())
                }
            }
            Some(_) => NameRes::Type(Type::unresolved("not a type", format!("{}.{name}", env.path))),
            None => NameRes::Type(Type::unresolved("unknown identifier", format!("{}.{name}", env.path))),
        }
    }

    fn name_type(&self, res: NameRes) -> Type {
        match res {
            NameRes::Defined(path, name) => Type::named(&path, &name, Vec::new()),
            NameRes::Alias(env, name) => match env.sigs.type_decl(&name) {
                Some((_, d)) if !d.type_params.is_empty() => {
                    Type::unresolved("generic alias without instantiation", format!("{}.{name}", env.path))
                }
                _ => self.alias_target(&env, &name),
            },
            NameRes::Type(t) => t,
        }
    }

    /// The type an alias denotes (memoised; a cycle is unresolved).
    fn alias_target(&self, env: &Arc<PkgEnv>, name: &Arc<str>) -> Type {
        let key = (env.path.clone(), name.clone());
        match self.aliases.borrow().get(&key) {
            Some(Slot::Done(t)) => return t.clone(),
            Some(Slot::InProgress) => return Type::unresolved("alias cycle", format!("{}.{name}", env.path)),
            None => {}
        }
        self.aliases.borrow_mut().insert(key.clone(), Slot::InProgress);
        let t = match env.sigs.type_decl(name) {
            Some((file, d)) => {
                let tparams = self.tparam_env(&env.path, name, &d.type_params);
                self.resolve_in(Scope { pkg: env, file, tparams: &tparams }, &d.ty)
            }
            None => Type::unresolved("unknown identifier", format!("{}.{name}", env.path)),
        };
        self.aliases.borrow_mut().insert(key, Slot::Done(t.clone()));
        t
    }

    pub(super) fn tparam_env(&self, path: &str, owner: &str, params: &[TypeParamSig]) -> Vec<(String, Type)> {
        let owner: Arc<str> = format!("{path}::{owner}").into();
        let names = params.iter().map(|p| p.name.clone());
        names
            .enumerate()
            .map(|(i, n)| (n, Type::TypeParam { owner: owner.clone(), index: i as u32 }))
            .collect()
    }

    /// Declared methods and underlying type of a defined type (generic: uninstantiated).
    pub(crate) fn named_info(&self, path: &Arc<str>, name: &Arc<str>) -> Result<Arc<NamedInfo>, Unresolved> {
        let key = (path.clone(), name.clone());
        match self.named.borrow().get(&key) {
            Some(Slot::Done(r)) => return r.clone(),
            Some(Slot::InProgress) => return Err(Unresolved::other("type cycle", format!("{path}.{name}"))),
            None => {}
        }
        if !path.is_empty() {
            if let Some(info) = self.source.named_info(path, name) {
                self.named.borrow_mut().insert(key, Slot::Done(info.clone()));
                return info;
            }
        }
        self.named.borrow_mut().insert(key.clone(), Slot::InProgress);
        let info = self.compute_named(path, name).map(Arc::new);
        self.named.borrow_mut().insert(key, Slot::Done(info.clone()));
        info
    }

    fn compute_named(&self, path: &Arc<str>, name: &Arc<str>) -> Result<NamedInfo, Unresolved> {
        if path.is_empty() {
            return Ok(universe_named(name));
        }
        let env =
            self.env(path).ok_or_else(|| Unresolved::External { path: path.clone(), name: name.clone() })?;
        let (file, d) = env
            .sigs
            .type_decl(name)
            .filter(|(_, d)| !d.alias)
            .ok_or_else(|| Unresolved::other("unknown identifier", format!("{path}.{name}")))?;
        let tparams = self.tparam_env(path, name, &d.type_params);
        let declared = self.resolve_in(Scope { pkg: &env, file, tparams: &tparams }, &d.ty);
        let underlying = match declared {
            Type::Named(n) => self.underlying(&n).unwrap_or_else(Type::Unresolved),
            Type::TypeParam { .. } => {
                Type::unresolved("type parameter as underlying", format!("{path}.{name}"))
            }
            t => t,
        };
        let mut methods: Vec<(Key, MethodInfo)> = Vec::new();
        for (file, m) in env.sigs.methods_of(name) {
            let Some(r) = &m.receiver else { continue };
            if m.name == "_" || methods.iter().any(|(k, _)| *k.name == *m.name) {
                continue;
            }
            let owner: Arc<str> = format!("{path}::{name}").into();
            let rparams: Vec<(String, Type)> = (r.type_params.iter().enumerate())
                .map(|(i, n)| (n.clone(), Type::TypeParam { owner: owner.clone(), index: i as u32 }))
                .collect();
            let sig = self.signature(Scope { pkg: &env, file, tparams: &rparams }, &m.sig);
            methods.push((Key::new(&m.name, path), MethodInfo { ptr_recv: r.pointer, sig }));
        }
        let incomplete = (env.sigs.has_syntax_errors() || env.sigs.unreadable_receivers > 0)
            .then(|| Unresolved::other("syntax errors in package", path.as_ref()));
        Ok(NamedInfo { tparams: d.type_params.len(), underlying, methods, incomplete })
    }

    /// The defined type whose declaration spells the struct type underlying `n`: `n` itself
    /// for `type T struct { … }`, else the type it is declared as, followed (`type U T`,
    /// `type V pkg.T`, `type W G[int]`). `None` when the chain ends elsewhere.
    pub fn struct_declarer(&self, n: &NamedRef) -> Option<(Arc<str>, Arc<str>)> {
        let (mut path, mut name) = (n.path.clone(), n.name.clone());
        for _ in 0..16 {
            let env = self.env(&path)?;
            let (file, d) = env.sigs.type_decl(&name).filter(|(_, d)| !d.alias)?;
            match &d.ty {
                TypeExpr::Struct(_) => return Some((path, name)),
                TypeExpr::Name(_) | TypeExpr::Qualified { .. } | TypeExpr::Generic { .. } => {
                    let tparams = self.tparam_env(&path, &name, &d.type_params);
                    match self.resolve_in(Scope { pkg: &env, file, tparams: &tparams }, &d.ty) {
                        Type::Named(m) => (path, name) = (m.path.clone(), m.name.clone()),
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// The underlying type of a (possibly instantiated) defined type.
    pub fn underlying(&self, n: &NamedRef) -> Result<Type, Unresolved> {
        let info = self.named_info(&n.path, &n.name)?;
        Ok(self.instantiate(n, &info, &info.underlying))
    }

    /// `t` with the type parameters of `n`'s origin replaced by `n`'s type arguments.
    pub(crate) fn instantiate(&self, n: &NamedRef, info: &NamedInfo, t: &Type) -> Type {
        if n.args.is_empty() || info.tparams == 0 {
            return t.clone();
        }
        let owner: Arc<str> = format!("{}::{}", n.path, n.name).into();
        subst(t, &owner, &n.args)
    }
}

fn universe_named(name: &str) -> NamedInfo {
    let underlying = match name {
        "error" => InterfaceType {
            methods: vec![(
                Key { name: "Error".into(), pkg: None },
                Signature { params: Vec::new(), results: vec![Type::Basic(Basic::String)], variadic: false },
            )],
            constraint: false,
            incomplete: None,
        },
        _ => InterfaceType { constraint: true, ..InterfaceType::default() },
    };
    NamedInfo {
        tparams: 0,
        underlying: Type::Interface(Arc::new(underlying)),
        methods: Vec::new(),
        incomplete: None,
    }
}
