//! `docforge_apply_changeset`: registered only when the process was started with
//! `--canonical-applier` and the project declares that applier. Every decision is
//! `docforge_proposals::apply`'s; this module decodes the arguments and fits the answer.

use super::{args, Call};
use crate::reply::ToolError;
use docforge_proposals::apply::Applied;
use docforge_proposals::Action;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyArgs {
    /// The changeset's ID (`cs-…`).
    pub changeset_id: String,
    /// Its exact SHA-256, as reviewed: any other changeset (or a changed one) is refused.
    pub changeset_sha256: String,
}

/// The compact receipt of an application: the lifecycle, the hash, the changed-source counts
/// and a summary of the derived refresh.
fn compact(a: &Applied) -> Value {
    let count = |action: Action| a.changed.iter().filter(|c| c.action == action).count();
    json!({
        "receipt_version": 1,
        "compact": true,
        "outcome": "applied",
        "lifecycle": "applied",
        "changeset_id": a.changeset_id,
        "changeset_sha256": a.changeset_sha256,
        "receipt_path": a.receipt_path,
        "changed_sources": { "total": a.changed.len(), "created": count(Action::Create), "modified": count(Action::Modify), "deleted": count(Action::Delete) },
        "derived_refresh": {
            "state": a.refresh.state,
            "generation": a.refresh.generation,
            "problems": a.refresh.problems.len(),
            "remediation": if a.refresh.state == "ok" { Value::Null } else { json!("docforge_sync, then docforge render for the views named by docforge_render_status") },
        },
    })
}

pub fn apply_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: ApplyArgs = args(a)?;
    if a.changeset_id.is_empty() || a.changeset_id.len() > 128 {
        return Err(ToolError::invalid("changeset_id must be 1..128 characters"));
    }
    if a.changeset_sha256.len() != 64 || !a.changeset_sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ToolError::invalid("changeset_sha256 must be 64 hexadecimal digits"));
    }
    let applier = call.server.opts.canonical_applier.clone().expect("registered only with an applier");
    // Preflight: the smallest success answer must fit before anything is written.
    let minimum = json!({
        "receipt_version": 1, "compact": true, "outcome": "applied", "lifecycle": "applied",
        "changeset_id": "c".repeat(23), "changeset_sha256": "0".repeat(64),
        "receipt_path": format!("{}/{}/applied.json", call.engine.project().config.proposals.changeset_root, "c".repeat(23)),
        "changed_sources": { "total": 99_999, "created": 99_999, "modified": 99_999, "deleted": 99_999 },
        "derived_refresh": { "state": "degraded", "generation": 99_999_999, "problems": 999, "remediation": "docforge_sync, then docforge render for the views named by docforge_render_status" },
    });
    let size = minimum.to_string().len();
    if size > call.budget {
        return Err(ToolError::new(
            "result_too_large",
            "the minimum application receipt cannot fit the response limit; nothing was written",
        )
        .details(json!({ "stage": "preflight", "mutation_committed": false }))
        .remediation(call.raise_limit(size)));
    }
    let applied = docforge_proposals::apply::apply(
        call.engine,
        call.server.integrations.applier(),
        &applier,
        &a.changeset_id,
        &a.changeset_sha256,
        std::time::SystemTime::now(),
    )?;
    // The binding re-synchronised: the envelope names the generation the documents are in now.
    if let Some(g) = call.engine.generation() {
        call.envelope.insert("revision".into(), json!(g.revision));
        call.envelope.insert("source_hash".into(), json!(g.source_hash));
        call.envelope.insert("graph_digest".into(), json!(g.graph_digest));
    }
    let mut full = serde_json::to_value(&applied).expect("serialises");
    full["outcome"] = json!("applied");
    if full.to_string().len() <= call.budget {
        return Ok(full);
    }
    Ok(compact(&applied))
}
