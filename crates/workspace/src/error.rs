//! What binding or synchronising a project can fail with. Each error has a stable code the
//! fronts report (the MCP error code; the CLI prints the message).

use docforge_index::IndexError;

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The root or `docforge.toml` cannot be used.
    #[error("{0}")]
    Project(#[from] docforge_project::ProjectError),
    /// The front asked for precise analysis and the project declares less.
    #[error(
        "the project declares [analysis] precision = \"{declared}\" in docforge.toml; precise analysis \
         would publish another precision into the project's index. Set precision = \"precise\" there \
         (or leave out --precise)"
    )]
    PrecisionNotDeclared { declared: &'static str },
    /// The executable or `docforge.toml` changed since the binding was made.
    #[error(
        "the docforge executable or docforge.toml changed since this server started; the binding is \
         stale and cannot be synchronised in this process"
    )]
    BindingChanged,
    /// The index could not be opened, built or read.
    #[error("the derived index could not be used: {0}")]
    Index(#[from] IndexError),
    /// A read of the published index found none.
    #[error("no index at {path}; run `docforge index` first")]
    NoIndex { path: String },
    /// A newer change cancelled the analysis.
    #[error("synchronisation was interrupted; retry the call")]
    Cancelled,
    /// Under `--no-ast` an index or an analysis held Logic.
    #[error("{0}")]
    PolicyForbidsLogic(&'static str),
    /// An unsaved overlay named a file that is no document of the project.
    #[error("{0}")]
    Overlay(String),
    /// A canonical application a killed process left could not be finished or undone.
    #[error("a pending canonical application cannot be recovered: {0}")]
    Recovery(String),
}

impl WorkspaceError {
    /// The stable code of the error.
    pub fn code(&self) -> &'static str {
        match self {
            WorkspaceError::Project(_) => "project_unavailable",
            WorkspaceError::PrecisionNotDeclared { .. } => "precision_not_declared",
            WorkspaceError::BindingChanged => "adapter_restart_required",
            WorkspaceError::Index(_) | WorkspaceError::NoIndex { .. } => "index_unavailable",
            WorkspaceError::Cancelled => "sync_cancelled",
            WorkspaceError::PolicyForbidsLogic(_) => "adapter_policy_forbids_logic",
            WorkspaceError::Overlay(_) => "invalid_arguments",
            WorkspaceError::Recovery(_) => "application_recovery_failed",
        }
    }
}
