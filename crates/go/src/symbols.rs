//! Gograph symbol IDs and per-package symbol tables.

use crate::{Decl, DeclKind, PackageFile};
use std::collections::{BTreeMap, BTreeSet};

/// Gograph symbol ID: `<import path>::Name`; methods `<import path>::(*T).M` or
/// `<import path>::(T).M` (receiver as declared, type parameters dropped: `(*List).Push` for
/// `func (l *List[T]) Push`). `None` for symbols without package-level identity in go/types:
/// the blank identifier `_` (also blank methods) and `init` functions.
pub fn symbol_id(import_path: &str, decl: &Decl) -> Option<String> {
    if decl.name == "_" || decl.name.is_empty() {
        return None;
    }
    match decl.kind {
        DeclKind::Method => {
            let r = decl.receiver.as_ref()?;
            let star = if r.pointer { "*" } else { "" };
            Some(format!("{import_path}::({star}{}).{}", r.type_name, decl.name))
        }
        DeclKind::Func if decl.name == "init" => None,
        _ => Some(format!("{import_path}::{}", decl.name)),
    }
}

/// What other packages need to know about a package to resolve calls into it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackageSymbols {
    /// The package clause name (of the first file that has one).
    pub name: Option<String>,
    /// Package-level funcs (not methods; not `init`, not `_`).
    pub funcs: BTreeSet<String>,
    /// Package-level named types and aliases (calls to them are conversions).
    pub types: BTreeSet<String>,
    /// Package-level vars and consts.
    pub values: BTreeSet<String>,
    /// Package-level aliases whose target is a plain type name of this package
    /// (`type token = Token`): alias name -> target name. Methods declared on such an
    /// alias belong to the target type.
    pub aliases: BTreeMap<String, String>,
    /// Symbol IDs declared in more than one file -> the file whose declaration counts (the
    /// first in file order). Empty for code that compiles.
    pub duplicated_in_files: BTreeMap<String, String>,
}

impl PackageSymbols {
    /// Whether `name` is declared at package level (any kind).
    pub fn declares(&self, name: &str) -> bool {
        self.funcs.contains(name) || self.types.contains(name) || self.values.contains(name)
    }

    /// The defined type a receiver type name denotes: `name` itself, or the end of a chain of
    /// same-package aliases (bounded; cycles stop where they are).
    pub fn receiver_base<'a>(&'a self, mut name: &'a str) -> &'a str {
        for _ in 0..8 {
            match self.aliases.get(name) {
                Some(target) => name = target,
                None => break,
            }
        }
        name
    }
}

/// [`symbol_id`] with package context: a method declared on a same-package alias
/// (`func (t token) String()` with `type token = Token`) gets the ID of the aliased type's
/// method, as go/types reports it (`(Token).String`).
pub fn package_symbol_id(import_path: &str, decl: &Decl, syms: &PackageSymbols) -> Option<String> {
    match &decl.receiver {
        Some(r) if syms.aliases.contains_key(&r.type_name) => {
            let mut d = decl.clone();
            if let Some(r) = d.receiver.as_mut() {
                r.type_name = syms.receiver_base(&r.type_name).to_string();
            }
            symbol_id(import_path, &d)
        }
        _ => symbol_id(import_path, decl),
    }
}

fn is_plain_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The package-level symbol table of a package's (selected) files.
pub fn package_symbols(files: &[PackageFile<'_>]) -> PackageSymbols {
    let mut s = PackageSymbols::default();
    for f in files {
        if s.name.is_none() {
            s.name = f.facts.package.clone();
        }
        for d in &f.facts.decls {
            if d.name == "_" {
                continue;
            }
            let set = match d.kind {
                DeclKind::Func if d.name == "init" => continue,
                DeclKind::Func => &mut s.funcs,
                DeclKind::Method => continue,
                DeclKind::Struct | DeclKind::Interface | DeclKind::Type | DeclKind::Alias => &mut s.types,
                DeclKind::Var | DeclKind::Const => &mut s.values,
            };
            if d.kind == DeclKind::Alias && d.type_params.is_empty() {
                if let Some(target) = d.signature.as_deref().filter(|t| is_plain_ident(t)) {
                    s.aliases.insert(d.name.clone(), target.to_string());
                }
            }
            set.insert(d.name.clone());
        }
    }
    let mut first_file: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for f in files {
        for d in &f.facts.decls {
            let Some(id) = package_symbol_id("", d, &s) else { continue };
            let first = *first_file.entry(id.clone()).or_insert(f.path);
            if first != f.path {
                s.duplicated_in_files.insert(id, first.to_string());
            }
        }
    }
    s
}

/// Predeclared identifiers that are callable without being functions of any package (the
/// universe's builtin functions and types; `true`, `false`, `nil` and `iota` are tokens of
/// their own to the grammar).
pub const BUILTINS: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// Whether `name` is a Go test-harness function name with `prefix` (`TestXxx`: the rest is
/// empty or does not start with a lower-case letter), as `go test` decides.
pub(crate) fn is_test_func(name: &str) -> bool {
    ["Test", "Benchmark", "Fuzz", "Example"].iter().any(|p| match name.strip_prefix(p) {
        Some(rest) => !rest.chars().next().is_some_and(|c| c.is_lowercase()),
        None => false,
    })
}
