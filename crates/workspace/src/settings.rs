//! Which analysis a binding runs and which index it publishes: the project's declared
//! precision (`[analysis] precision`), restricted — never raised — by the process.
//!
//! The project's index (`.docforge/index.sqlite`) always holds the declared precision,
//! whatever command builds it. A process that restricts the analysis (`--no-ast`, or an
//! editor's `--no-precise`) binds its own index beside it (`index.no-ast.sqlite`,
//! `index.ast.sqlite`), so it never rewrites the project's at another precision; a process
//! that asks for more than the project declares is refused.

use crate::WorkspaceError;
use docforge_db::AstPolicy;
use docforge_project::{PrecisionSetting, Project, STATE_DIR};
use std::path::PathBuf;

/// The project's index file inside the state directory.
pub const INDEX_FILE: &str = "index.sqlite";

/// What a front asks of the binding. Flags only restrict; none raises the precision the
/// project declares.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--no-ast`: Go code is never analysed with an AST (the process policy).
    pub no_ast: bool,
    /// Leave out the Go semantic layer (an editor's `--no-precise`).
    pub no_precise: bool,
    /// The front asked for precise analysis explicitly (`--precise`): refused when the
    /// project declares `ast`.
    pub require_precise: bool,
    /// Watch the tree between calls (inotify), so a quiet tree is proven current without a
    /// walk. For long-lived fronts.
    pub watch: bool,
    /// Analysis threads (default: the available cores).
    pub threads: Option<usize>,
    /// Record salsa executions (tests and diagnostics; it has a cost).
    pub execution_log: bool,
}

/// The precision a binding analyses and publishes at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Go facts with the semantic layer: types, method sets, `implements`, calls with CHA,
    /// Logic.
    Precise,
    /// Go facts from syntax alone.
    Ast,
    /// Go files are inventoried and hashed only (`--no-ast`).
    NoAst,
}

impl Precision {
    /// `precise`, `ast` or `none` (as requests and responses name it).
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Precise => "precise",
            Precision::Ast => "ast",
            Precision::NoAst => "none",
        }
    }

    pub fn policy(self) -> AstPolicy {
        match self {
            Precision::NoAst => AstPolicy::Forbid,
            _ => AstPolicy::Allow,
        }
    }

    /// Whether the Go semantic layer runs.
    pub fn semantic(self) -> bool {
        self == Precision::Precise
    }

    fn of(setting: PrecisionSetting) -> Precision {
        match setting {
            PrecisionSetting::Precise => Precision::Precise,
            PrecisionSetting::Ast => Precision::Ast,
        }
    }
}

/// The resolved settings of one binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// What `docforge.toml` declares.
    pub declared: PrecisionSetting,
    /// What this binding analyses at (the declared precision or less).
    pub precision: Precision,
    /// The index this binding reads and publishes.
    pub index_path: PathBuf,
}

impl Settings {
    /// Whether this binding publishes the project's own index (not a restricted one).
    pub fn is_project_index(&self) -> bool {
        self.precision == Precision::of(self.declared)
    }
}

/// Resolve a front's options against the project's declaration.
pub fn resolve(project: &Project, opts: &Options) -> Result<Settings, WorkspaceError> {
    let declared = project.config.analysis.precision;
    if opts.require_precise && declared != PrecisionSetting::Precise && !opts.no_ast {
        return Err(WorkspaceError::PrecisionNotDeclared { declared: declared.as_str() });
    }
    let precision = match (opts.no_ast, opts.no_precise, declared) {
        (true, _, _) => Precision::NoAst,
        (false, true, _) | (false, false, PrecisionSetting::Ast) => Precision::Ast,
        (false, false, PrecisionSetting::Precise) => Precision::Precise,
    };
    let file = if precision == Precision::of(declared) {
        INDEX_FILE.to_string()
    } else {
        match precision {
            Precision::NoAst => "index.no-ast.sqlite".to_string(),
            other => format!("index.{}.sqlite", other.as_str()),
        }
    };
    Ok(Settings { declared, precision, index_path: project.root.join(STATE_DIR).join(file) })
}
