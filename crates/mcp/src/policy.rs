//! The process policy chosen at startup: capability mode, AST policy, limits. Immutable for
//! the life of the process; changing it means starting a new server.

use serde::Serialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// `--capability-mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapabilityMode {
    Read,
    Proposal,
    Application,
    Operator,
}

impl CapabilityMode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "read" => Self::Read,
            "proposal" => Self::Proposal,
            "application" => Self::Application,
            "operator" => Self::Operator,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Proposal => "proposal",
            Self::Application => "application",
            Self::Operator => "operator",
        }
    }
}

/// The startup options of `docforge mcp`.
#[derive(Clone, Debug)]
pub struct Options {
    pub project_root: PathBuf,
    pub no_ast: bool,
    pub diagnostics: bool,
    pub mode: CapabilityMode,
    pub proposal_writer: Option<String>,
    pub canonical_applier: Option<String>,
    /// Set at binding: the `--canonical-applier` matches the project's `[application]`
    /// declaration, so `docforge_apply_changeset` is registered.
    pub application_bound: bool,
    /// Why application is not bound although an applier was given (reported by capabilities).
    pub application_reason: Option<String>,
}

/// Why the server refuses to start. The message is printed; nothing is served or written.
#[derive(Debug, PartialEq, Eq)]
pub struct StartupError {
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for StartupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// Operations a `--no-ast` binding excludes, named in the effective policy.
pub const NO_AST_EXCLUDED: &[&str] = &["adapter_ast_upgrade", "function_logic_extraction"];

/// Operations the normal server never exposes.
pub const ALWAYS_EXCLUDED: &[&str] = &[
    "shell_execution",
    "arbitrary_read",
    "arbitrary_write",
    "arbitrary_renderer_execution",
    "git_mutation",
    "project_build",
    "deployment",
    "publication",
    "external_http_binding",
    "global_project_selection",
    "cross_project_retrieval",
    "canonical_application",
];

/// Check the startup options alone (the project's declaration is checked at binding,
/// [`check_application`]). Nothing is read or written.
pub fn check_startup(opts: &Options) -> Result<(), StartupError> {
    for (flag, id) in
        [("--proposal-writer", &opts.proposal_writer), ("--canonical-applier", &opts.canonical_applier)]
    {
        if let Some(w) = id {
            if !docforge_proposals::is_writer_id(w) {
                return Err(StartupError {
                    code: "invalid_arguments",
                    message: format!(
                        "{flag} {w:?}: a writer ID is 1–128 characters of letters, digits, `.`, `_`, `:`, `/`, `-`"
                    ),
                });
            }
        }
    }
    match opts.mode {
        CapabilityMode::Application if opts.canonical_applier.is_none() => Err(StartupError {
            code: "canonical_applier_required",
            message: "--capability-mode application needs --canonical-applier WRITER_ID; refusing to start"
                .into(),
        }),
        CapabilityMode::Read if opts.proposal_writer.is_some() || opts.canonical_applier.is_some() => {
            Err(StartupError {
                code: "invalid_arguments",
                message:
                    "--proposal-writer and --canonical-applier bind write access, but --capability-mode read \
                      registers no proposal or application tool; drop one of them"
                        .into(),
            })
        }
        _ => Ok(()),
    }
}

/// Bind canonical application when `--canonical-applier` matches the project's
/// `[application]` declaration. In `application` mode a mismatch or a missing declaration
/// refuses to start; in the other modes no application tool is registered and capabilities
/// say why.
pub fn check_application(
    opts: &mut Options,
    project: &docforge_project::Project,
    applier_name: &str,
) -> Result<(), StartupError> {
    let Some(applier) = opts.canonical_applier.clone() else { return Ok(()) };
    match docforge_proposals::apply::check_declaration(project, &applier, applier_name) {
        Ok(()) => {
            opts.application_bound = true;
            Ok(())
        }
        Err(e) if opts.mode == CapabilityMode::Application => {
            Err(StartupError { code: e.code, message: format!("{}; refusing to start", e.message) })
        }
        Err(e) => {
            opts.application_reason = Some(format!("{}: {}", e.code, e.message));
            Ok(())
        }
    }
}

impl Options {
    /// Whether the proposal tools are registered (every mode but `read`).
    pub fn proposal_surface(&self) -> bool {
        self.mode != CapabilityMode::Read
    }
}

/// The versioned effective policy (schema version 1).
pub fn effective_policy(opts: &Options, max_results: u32, max_response_bytes: u64) -> Value {
    let mut excluded: Vec<&str> = ALWAYS_EXCLUDED.to_vec();
    if opts.application_bound {
        excluded.retain(|e| *e != "canonical_application");
    }
    if opts.no_ast {
        excluded.extend_from_slice(NO_AST_EXCLUDED);
    }
    json!({
        "schema_version": 1,
        "capability_mode": opts.mode.as_str(),
        "ast_policy": if opts.no_ast { "no_ast" } else { "allow" },
        "ast_analysis": !opts.no_ast,
        "logic_indexing": !opts.no_ast,
        "adapter_evolution": !opts.no_ast,
        "diagnostics": opts.diagnostics,
        "limits": { "max_results": max_results, "max_response_bytes": max_response_bytes },
        "excluded_operations": excluded,
        "policy_change": "restart_project_server",
    })
}

/// The legacy `adapter_policy` object: a projection of the effective policy.
pub fn adapter_policy(opts: &Options) -> Value {
    json!({
        "no_ast": opts.no_ast,
        "ast_analysis": !opts.no_ast,
        "logic_indexing": !opts.no_ast,
    })
}

/// What is actually registered and bound.
pub fn capabilities(opts: &Options, tools: &[&str], applier: &str) -> Value {
    let proposal_access = match (&opts.proposal_writer, opts.proposal_surface()) {
        (Some(w), true) => json!({ "enabled": true, "writer": w, "reason": Value::Null }),
        (None, true) => json!({
            "enabled": false,
            "writer": Value::Null,
            "reason": "no --proposal-writer: mutation tools answer proposal_access_disabled; list, get, validate and diff work on existing changesets",
        }),
        (_, false) => json!({
            "enabled": false,
            "writer": Value::Null,
            "reason": "--capability-mode read registers no proposal tool",
        }),
    };
    json!({
        "schema_version": 1,
        "registered_tools": tools,
        "proposal_surface": opts.proposal_surface(),
        "proposal_access": proposal_access,
        "application_access": {
            "enabled": opts.application_bound,
            "applier": opts.canonical_applier,
            "serializer": opts.application_bound.then_some(applier),
            "reason": if opts.application_bound {
                None
            } else {
                Some(opts.application_reason.clone().unwrap_or_else(|| "no --canonical-applier: canonical application is off".into()))
            },
        },
        "network_listener": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(mode: CapabilityMode) -> Options {
        Options {
            project_root: PathBuf::from("/p"),
            no_ast: false,
            diagnostics: false,
            mode,
            proposal_writer: None,
            canonical_applier: None,
            application_bound: false,
            application_reason: None,
        }
    }

    #[test]
    fn startup_modes_fail_closed() {
        let writer = |w: &str, mode| Options { proposal_writer: Some(w.into()), ..opts(mode) };
        let applier = |w: &str, mode| Options { canonical_applier: Some(w.into()), ..opts(mode) };
        let cases = [
            (opts(CapabilityMode::Read), None),
            (opts(CapabilityMode::Operator), None),
            (opts(CapabilityMode::Proposal), None),
            (writer("agent-1", CapabilityMode::Proposal), None),
            (writer("team/agent:1.x", CapabilityMode::Operator), None),
            (applier("docs-applier", CapabilityMode::Application), None),
            (applier("docs-applier", CapabilityMode::Proposal), None),
            (opts(CapabilityMode::Application), Some("canonical_applier_required")),
            (writer("w", CapabilityMode::Read), Some("invalid_arguments")),
            (applier("w", CapabilityMode::Read), Some("invalid_arguments")),
            (writer("has space", CapabilityMode::Proposal), Some("invalid_arguments")),
            (applier("", CapabilityMode::Application), Some("invalid_arguments")),
            (writer(&"x".repeat(129), CapabilityMode::Proposal), Some("invalid_arguments")),
        ];
        for (o, want) in cases {
            assert_eq!(check_startup(&o).err().map(|e| e.code), want, "{:?} {:?}", o.mode, o.proposal_writer);
        }
    }

    #[test]
    fn no_ast_names_the_excluded_operations() {
        let o = Options { no_ast: true, ..opts(CapabilityMode::Read) };
        let p = effective_policy(&o, 200, 1000);
        let ex: Vec<&str> =
            p["excluded_operations"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert!(ex.contains(&"adapter_ast_upgrade") && ex.contains(&"function_logic_extraction"));
        assert_eq!(p["logic_indexing"], false);
        let allow = effective_policy(&opts(CapabilityMode::Read), 200, 1000);
        assert!(!allow["excluded_operations"].as_array().unwrap().iter().any(|v| v == "adapter_ast_upgrade"));
    }
}
