//! `docforge_render_status`: per declared view, a fail-closed state of its rendered output.
//!
//! A status path: it never synchronises. The default reads the views' bounded receipts and
//! stats sources and outputs (`docforge_render::status`); it does not open the index, parse,
//! render, hash an output or write. `deep = true` renders each view in memory from the
//! published index (opened read-only) and compares the outputs' SHA-256; it writes nothing.

use super::{args, Call};
use crate::reply::ToolError;
use docforge_workspace::ReceiptState;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderStatusArgs {
    /// One declared view (default: every view of docforge.toml).
    pub view_id: Option<String>,
    /// Render in memory and compare every output's SHA-256 with the receipt and the disk.
    pub deep: Option<bool>,
}

/// The result of `docforge_render_status`.
#[derive(Serialize, JsonSchema)]
pub struct RenderStatusResult {
    pub views: Vec<ViewState>,
    /// Whether the deep comparison ran.
    pub deep: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct ViewState {
    pub view_id: String,
    pub renderer: String,
    pub output: String,
    /// `current`, `stale`, `missing`, `unverified` or `unsafe`.
    pub state: String,
    pub reason: String,
    /// What the verified receipt binds (absent when it does not verify).
    pub receipt: Option<ReceiptSummary>,
    /// With `deep = true`: the equivalence of a fresh render with the receipt and the disk.
    pub deep: Option<DeepResult>,
}

#[derive(Serialize, JsonSchema)]
pub struct ReceiptSummary {
    pub receipt_hash: String,
    pub generation: u64,
    pub graph_digest: String,
    pub documents: usize,
    pub outputs: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct DeepResult {
    /// `null` when the comparison could not run (see `reason`).
    pub equivalent: Option<bool>,
    /// Output paths that differ (at most `max_results`).
    pub differing: Vec<String>,
    pub differing_total: usize,
    pub reason: Option<String>,
}

/// The envelope state of several views: `current` only when every one is.
fn overall(states: &[ReceiptState]) -> ReceiptState {
    use ReceiptState::*;
    [Unsafe, Unverified, Missing, Stale, Unknown].into_iter().find(|s| states.contains(s)).unwrap_or(Current)
}

pub fn render_status(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: RenderStatusArgs = args(a)?;
    let project = call.engine.project().clone();
    let views: Vec<&docforge_project::View> = match &a.view_id {
        None => project.config.views.iter().collect(),
        Some(id) => vec![project.config.views.iter().find(|v| &v.id == id).ok_or_else(|| {
            let declared: Vec<&str> = project.config.views.iter().map(|v| v.id.as_str()).collect();
            ToolError::invalid(format!(
                "no view {id:?} is declared in docforge.toml (declared: {declared:?})"
            ))
        })?],
    };
    let deep = a.deep.unwrap_or(false);
    // Deep: the published index as it is, read-only (never synchronised or rebuilt here).
    let index = deep.then(|| docforge_index::Index::open_snapshot(call.engine.index_path()));
    let cap = call.max_results() as usize;
    let mut out = Vec::with_capacity(views.len());
    let mut states = Vec::with_capacity(views.len());
    // The claim outcomes the pages would show, read once for every view.
    let claims =
        index.as_ref().and_then(|i| i.as_ref().ok()).map(|i| docforge_render::Claims::recorded(&project, i));
    for view in views {
        let st = docforge_render::status(&project, view);
        states.push(st.state);
        let deep = index.as_ref().map(|index| match index {
            Err(e) => DeepResult {
                equivalent: None,
                differing: vec![],
                differing_total: 0,
                reason: Some(format!("the published index cannot be read: {e}")),
            },
            Ok(index) => match docforge_render::deep_status(
                &project,
                view,
                index,
                claims.as_ref().expect("read with the index"),
            ) {
                Ok(d) => DeepResult {
                    equivalent: Some(d.equivalent),
                    differing_total: d.differing.len(),
                    differing: d.differing.into_iter().take(cap).collect(),
                    reason: None,
                },
                Err(e) => DeepResult {
                    equivalent: None,
                    differing: vec![],
                    differing_total: 0,
                    reason: Some(e.to_string()),
                },
            },
        });
        out.push(ViewState {
            view_id: view.id.clone(),
            renderer: view.renderer.as_str().into(),
            output: view.output.clone(),
            state: st.state.as_str().into(),
            reason: st.reason,
            receipt: st.receipt.map(|r| ReceiptSummary {
                documents: r.documents(),
                receipt_hash: r.receipt_hash,
                generation: r.index.generation,
                graph_digest: r.index.graph_digest,
                outputs: r.outputs.len(),
            }),
            deep,
        });
    }
    call.envelope.insert("staleness".into(), json!(overall(&states).as_str()));
    Ok(serde_json::to_value(RenderStatusResult { views: out, deep }).expect("serialises"))
}
