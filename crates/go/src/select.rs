//! File selection under a build context, without tree-sitter (works under `--no-ast`):
//! file-name rules, `_GOOS`/`_GOARCH` suffixes, `//go:build` / `// +build` headers,
//! `import "C"` when cgo is off, and `package documentation`.

use crate::constraint::{eval_go_build, eval_plus_build, plus_build_text};
use crate::context::{KNOWN_ARCH, KNOWN_OS};
use crate::header::scan_header;
use crate::BuildContext;

/// Whether a `.go` file belongs to the build.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileSelection {
    Included,
    Excluded { reason: String },
}

fn excluded(reason: impl Into<String>) -> FileSelection {
    FileSelection::Excluded { reason: reason.into() }
}

/// Decide whether a `.go` file belongs to the build under `ctx`, as `go/build` does
/// (`Context.Import` with tests included; callers skip `_test.go` files themselves when
/// they do not want tests). `file_name` is the base name (a path is accepted; only its
/// last component counts).
pub fn select_file(ctx: &BuildContext, file_name: &str, source: &[u8]) -> FileSelection {
    if let Some(reason) = excluded_by_name(ctx, file_name) {
        return excluded(reason);
    }
    let header = scan_header(source);
    if let Some(e) = &header.error {
        return excluded(format!("invalid build constraint: {e}"));
    }
    if let Some(line) = &header.go_build {
        match eval_go_build(ctx, line) {
            Ok(true) => {}
            Ok(false) => return excluded(format!("build constraint not satisfied: {line}")),
            Err(e) => return excluded(format!("invalid //go:build line: {e}")),
        }
    } else {
        for line in &header.plus_build {
            if let Some(text) = plus_build_text(line) {
                // go/build ignores malformed +build lines.
                if let Ok(false) = eval_plus_build(ctx, text) {
                    return excluded(format!("build constraint not satisfied: {line}"));
                }
            }
        }
    }
    if header.package.as_deref() == Some("documentation") {
        return excluded("package documentation");
    }
    if header.imports_c && !ctx.cgo_enabled {
        return excluded("imports \"C\" and cgo is disabled");
    }
    FileSelection::Included
}

/// Why [`select_file`] excludes a file by its name alone (without reading it), if it does.
pub fn excluded_by_name(ctx: &BuildContext, file_name: &str) -> Option<String> {
    name_exclusion(ctx, file_name).map(|e| match e {
        NameExclusion::NotGo => "not a .go file".into(),
        NameExclusion::Hidden => "file name starts with _ or .".into(),
        NameExclusion::Suffix => format!("file name suffix does not match {}/{}", ctx.goos, ctx.goarch),
    })
}

/// Whether [`excluded_by_name`] excludes `file_name` (without making the reason).
pub fn is_excluded_by_name(ctx: &BuildContext, file_name: &str) -> bool {
    name_exclusion(ctx, file_name).is_some()
}

enum NameExclusion {
    NotGo,
    Hidden,
    Suffix,
}

fn name_exclusion(ctx: &BuildContext, file_name: &str) -> Option<NameExclusion> {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    if !name.ends_with(".go") {
        return Some(NameExclusion::NotGo);
    }
    if name.starts_with('_') || name.starts_with('.') {
        return Some(NameExclusion::Hidden);
    }
    (!good_os_arch_file(ctx, name)).then_some(NameExclusion::Suffix)
}

/// `go/build`'s `goodOSArchFile`: `name_GOOS`, `name_GOARCH`, `name_GOOS_GOARCH`, each
/// optionally followed by `_test`, constrain the file.
pub(crate) fn good_os_arch_file(ctx: &BuildContext, name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    let Some(i) = stem.find('_') else { return true };
    // The `_`-separated parts of `stem[i..]` from the end, a final `test` dropped.
    let mut parts = stem[i..].rsplit('_');
    let mut last = parts.next();
    if last == Some("test") {
        last = parts.next();
    }
    if let (Some(os), Some(arch)) = (parts.next(), last) {
        if KNOWN_OS.contains(&os) && KNOWN_ARCH.contains(&arch) {
            return ctx.match_tag(arch) && ctx.match_tag(os);
        }
    }
    match last {
        Some(l) if KNOWN_OS.contains(&l) || KNOWN_ARCH.contains(&l) => ctx.match_tag(l),
        _ => true,
    }
}
