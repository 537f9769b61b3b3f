//! Resolution of a file's identifier uses ([`crate::FileUses`]) to package-level symbols.

use crate::fragment::FileImports;
use crate::{FileFacts, FileUses, PackageSymbols, Pos};
use std::sync::Arc;

/// A use of a package-level func, type, var or const.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedUse {
    /// Position of the name; the use spans `len` bytes.
    pub pos: Pos,
    pub len: u32,
    /// The import path as written in the file (or the file's own import path) and the name:
    /// the symbol is `<path>::<name>`.
    pub path: String,
    pub name: String,
}

/// Resolve the uses of one file of package `import_path` (`own`: its symbol table; `lookup`:
/// the symbol table of an imported path, `None` outside the project):
/// - `Name` declared at package level (func, type, var, const) → `<import path>::Name`;
/// - an exported `Name` declared by no package-level declaration but by a dot-imported
///   package of the project → `<that path>::Name`;
/// - `x.Name` where `x` is no package-level name but names an import whose package the
///   project has and declares `Name` → `<path>::Name`.
///
/// Everything else (universe names, packages outside the project, fields and methods) is
/// left out.
pub fn resolve_uses(
    import_path: &str,
    facts: &FileFacts,
    uses: &FileUses,
    own: &PackageSymbols,
    lookup: &dyn Fn(&str) -> Option<Arc<PackageSymbols>>,
) -> Vec<ResolvedUse> {
    let mut imports = FileImports::new(facts, lookup);
    let mut out = Vec::new();
    for u in &uses.uses {
        let path = match u.qualifier.as_deref() {
            None if own.declares(&u.name) => Some(import_path),
            None => imports.dot_import_of(&u.name, |s| s.declares(&u.name)),
            Some(x) if own.declares(x) => None,
            Some(x) => match imports.import_of(x) {
                Some((path, Some(syms))) if syms.declares(&u.name) => Some(path),
                _ => None,
            },
        };
        if let Some(path) = path {
            out.push(ResolvedUse {
                pos: u.pos,
                len: u.name.len() as u32,
                path: path.to_string(),
                name: u.name.clone(),
            });
        }
    }
    out
}
