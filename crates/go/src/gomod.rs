//! `go.mod` / `go.work` parsing (the directives DocForge needs) and import paths.

/// What DocForge needs from a `go.mod` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoMod {
    pub module: String,
    pub go_version: Option<String>,
    /// Filesystem targets of `replace` directives (`=> ./x`, `=> ../x`, `=> /abs/x`), as
    /// written: module source the go command would read from that directory.
    pub local_replaces: Vec<String>,
    /// `require` directives: (module path, version), in file order.
    pub requires: Vec<(String, String)>,
    /// `replace` directives whose target is another module version:
    /// `old [old_version] => new new_version`.
    pub module_replaces: Vec<ModuleReplace>,
    /// The modules (`old [old_version]`) that `replace` directives send to a directory.
    pub dir_replaced: Vec<(String, Option<String>)>,
}

/// `replace old [old_version] => new new_version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleReplace {
    pub old: String,
    /// `None`: every version of `old`.
    pub old_version: Option<String>,
    pub new: String,
    pub new_version: String,
}

impl GoMod {
    /// The module version the build uses for module path `path`: its requirement, through a
    /// matching module replacement. `None` when `path` is not required, or is replaced by a
    /// directory.
    pub fn selected(&self, path: &str) -> Option<(String, String)> {
        let (_, version) = self.requires.iter().find(|(p, _)| p == path)?;
        let replaced = self
            .module_replaces
            .iter()
            .find(|r| r.old == path && r.old_version.as_ref().is_none_or(|v| v == version));
        if let Some(r) = replaced {
            return Some((r.new.clone(), r.new_version.clone()));
        }
        (!self.replaced_by_directory(path, version)).then(|| (path.to_string(), version.clone()))
    }

    fn replaced_by_directory(&self, path: &str, version: &str) -> bool {
        self.dir_replaced.iter().any(|(old, v)| old == path && v.as_deref().is_none_or(|v| v == version))
    }
}

/// What DocForge needs from a `go.work` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoWork {
    pub uses: Vec<String>,
}

/// Strip a `//` comment, respecting quoted strings.
fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        match (quote, b[i]) {
            (None, b'"') | (None, b'`') => quote = Some(b[i]),
            (Some(b'"'), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, b'/') if b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// Split a directive line into tokens (quoted strings unquoted).
fn tokens(line: &str, lineno: usize) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('"') {
            let mut s = String::new();
            let mut chars = r.char_indices();
            let mut closed = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, e)) => s.push(e),
                        None => break,
                    },
                    '"' => {
                        closed = Some(i);
                        break;
                    }
                    c => s.push(c),
                }
            }
            let Some(i) = closed else { return Err(format!("line {lineno}: unterminated quoted string")) };
            out.push(s);
            rest = r[i + 1..].trim_start();
        } else if let Some(r) = rest.strip_prefix('`') {
            let Some(i) = r.find('`') else { return Err(format!("line {lineno}: unterminated raw string")) };
            out.push(r[..i].to_string());
            rest = r[i + 1..].trim_start();
        } else {
            let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = rest[end..].trim_start();
        }
    }
    Ok(out)
}

/// Visit every directive of a go.mod/go.work file as `(line number, verb, args)`; block
/// forms `verb ( ... )` yield one call per inner line.
fn directives(
    text: &str,
    mut each: impl FnMut(usize, &str, &[String]) -> Result<(), String>,
) -> Result<(), String> {
    let mut block: Option<(String, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let toks = tokens(strip_comment(raw), lineno)?;
        if toks.is_empty() {
            continue;
        }
        if let Some((verb, _)) = &block {
            if toks.len() == 1 && toks[0] == ")" {
                block = None;
                continue;
            }
            let verb = verb.clone();
            each(lineno, &verb, &toks)?;
            continue;
        }
        if toks.len() == 2 && toks[1] == "(" {
            block = Some((toks[0].clone(), lineno));
            continue;
        }
        if toks[0].ends_with('(') && toks.len() == 1 {
            block = Some((toks[0].trim_end_matches('(').to_string(), lineno));
            continue;
        }
        each(lineno, &toks[0], &toks[1..])?;
    }
    match block {
        Some((verb, line)) => Err(format!("line {line}: unterminated {verb} block")),
        None => Ok(()),
    }
}

fn valid_version(v: &str) -> bool {
    // go 1.21, 1.21.3, 1.21rc1, 1.22.0
    let mut parts = v.splitn(2, |c: char| !c.is_ascii_digit() && c != '.');
    let nums = parts.next().unwrap_or("");
    !nums.is_empty()
        && nums.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && nums.starts_with("1.")
}

/// Parse a `go.mod` file. Errors name the problem and the 1-based line.
pub fn parse_go_mod(text: &str) -> Result<GoMod, String> {
    let mut module: Option<(String, usize)> = None;
    let mut go_version = None;
    let mut local_replaces = Vec::new();
    let (mut requires, mut module_replaces, mut dir_replaced) = (Vec::new(), Vec::new(), Vec::new());
    directives(text, |line, verb, args| {
        match verb {
            "require" => {
                if args.len() != 2 {
                    return Err(format!("line {line}: usage: require module/path v1.2.3"));
                }
                requires.push((args[0].clone(), args[1].clone()));
            }
            "replace" => {
                let Some(arrow) = args.iter().position(|a| a == "=>") else {
                    return Err(format!(
                        "line {line}: usage: replace module/path [v1.2.3] => other/module v1.4"
                    ));
                };
                let target =
                    args.get(arrow + 1).ok_or_else(|| format!("line {line}: replace without a target"))?;
                // The go command's rule: a replacement is a directory when it is an absolute
                // path or starts with ./ or ../ (then it has no version).
                let old = (args[0].clone(), (arrow == 2).then(|| args[1].clone()));
                if target.starts_with("./")
                    || target.starts_with("../")
                    || target.starts_with('/')
                    || target == "."
                    || target == ".."
                {
                    local_replaces.push(target.clone());
                    dir_replaced.push(old);
                } else if let Some(v) = args.get(arrow + 2) {
                    let (old, old_version) = old;
                    module_replaces.push(ModuleReplace {
                        old,
                        old_version,
                        new: target.clone(),
                        new_version: v.clone(),
                    });
                }
            }
            "module" => {
                if let Some((_, first)) = &module {
                    return Err(format!("line {line}: repeated module statement (first on line {first})"));
                }
                if args.len() != 1 || args[0].is_empty() {
                    return Err(format!("line {line}: usage: module module/path"));
                }
                module = Some((args[0].clone(), line));
            }
            "go" => {
                if go_version.is_some() {
                    return Err(format!("line {line}: repeated go statement"));
                }
                if args.len() != 1 || !valid_version(&args[0]) {
                    return Err(format!("line {line}: invalid go version {:?}", args.join(" ")));
                }
                go_version = Some(args[0].clone());
            }
            "toolchain" | "exclude" | "retract" | "godebug" | "tool" | "ignore" => {}
            other => return Err(format!("line {line}: unknown directive: {other}")),
        }
        Ok(())
    })?;
    let Some((module, _)) = module else { return Err("no module statement".into()) };
    Ok(GoMod { module, go_version, local_replaces, requires, module_replaces, dir_replaced })
}

/// Parse a `go.work` file: its `use` directories (as written, `./` prefix kept).
pub fn parse_go_work(text: &str) -> Result<GoWork, String> {
    let mut uses = Vec::new();
    directives(text, |line, verb, args| {
        match verb {
            "use" => {
                if args.len() != 1 || args[0].is_empty() {
                    return Err(format!("line {line}: usage: use local/dir"));
                }
                uses.push(args[0].clone());
            }
            "go" => {
                if args.len() != 1 || !valid_version(&args[0]) {
                    return Err(format!("line {line}: invalid go version {:?}", args.join(" ")));
                }
            }
            "toolchain" | "replace" | "godebug" => {}
            other => return Err(format!("line {line}: unknown directive: {other}")),
        }
        Ok(())
    })?;
    Ok(GoWork { uses })
}

/// An exact import path: `/`-separated non-empty elements of `A-Za-z0-9-._~+`, none of them
/// `.` or `..`, no leading dot or dash in an element.
pub fn is_import_path(s: &str) -> bool {
    s.len() <= 1024
        && s.split('/').all(|e| {
            !e.is_empty()
                && !e.starts_with('.')
                && !e.starts_with('-')
                && e.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+".contains(&b))
        })
}

/// Import path of a package directory. `module_dir_rel` / `pkg_dir_rel` are project-relative
/// directories (`""` for the root). Module `std` (GOROOT/src) has no prefix: dir `net/http`
/// is `net/http`. A package outside its module directory yields the module path joined with
/// the package directory as given (callers only pass nested directories).
pub fn import_path(module_path: &str, module_dir_rel: &str, pkg_dir_rel: &str) -> String {
    let norm = |s: &str| s.trim_matches('/').trim_start_matches("./").trim_end_matches('/').to_string();
    let module_dir = norm(module_dir_rel);
    let pkg_dir = norm(pkg_dir_rel);
    let rel = if module_dir.is_empty() || module_dir == "." {
        if pkg_dir == "." {
            String::new()
        } else {
            pkg_dir
        }
    } else if pkg_dir == module_dir {
        String::new()
    } else {
        match pkg_dir.strip_prefix(&module_dir).and_then(|r| r.strip_prefix('/')) {
            Some(r) => r.to_string(),
            None => pkg_dir,
        }
    };
    match (module_path, rel.is_empty()) {
        (m, true) => m.to_string(),
        ("std", false) => rel,
        (m, false) => format!("{m}/{rel}"),
    }
}

/// Whether `go list` leaves a package out of the `std` / `cmd` patterns even though its
/// directory has selected Go files, and why: the documentation pseudo-package `builtin`,
/// `runtime/cgo` when cgo is disabled, and vendored commands (`package main` under
/// `cmd/vendor/`). These import paths only exist in GOROOT, so the rule is safe to apply
/// to every tree.
pub fn go_list_excluded(
    ctx: &crate::BuildContext,
    import_path: &str,
    package_name: Option<&str>,
) -> Option<&'static str> {
    match import_path {
        "builtin" => Some("builtin is a documentation pseudo-package"),
        "runtime/cgo" if !ctx.cgo_enabled => Some("runtime/cgo is not listed when cgo is disabled"),
        p if p.starts_with("cmd/vendor/") && package_name == Some("main") => Some("vendored command"),
        _ => None,
    }
}
