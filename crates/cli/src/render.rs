//! `docforge render`: every declared view (or one) rendered from the current published index
//! into its declared output, with its receipt.

use crate::output::print_json;
use crate::stdout::outln;
use docforge_render::receipt::IndexStamp;
use docforge_workspace::{Options, Workspace};
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

/// The declared views `only` names (all without it), or why none is.
fn selected<'p>(
    project: &'p docforge_project::Project,
    only: Option<&str>,
) -> Result<Vec<&'p docforge_project::View>, String> {
    let views: Vec<&docforge_project::View> = match only {
        None => project.config.views.iter().collect(),
        Some(id) => match project.config.views.iter().find(|v| v.id == id) {
            Some(v) => vec![v],
            None => {
                let declared: Vec<&str> = project.config.views.iter().map(|v| v.id.as_str()).collect();
                return Err(format!(
                    "no view {id:?} in docforge.toml ({})",
                    if declared.is_empty() {
                        "it declares none".to_string()
                    } else {
                        format!("declared: {}", declared.join(", "))
                    }
                ));
            }
        },
    };
    if views.is_empty() {
        return Err(
            "docforge.toml declares no [[views]]; nothing to render (see the rendering page of the handbook)"
                .into(),
        );
    }
    Ok(views)
}

/// `docforge render --status`: each view's receipt state and why, as the cheap status reads
/// it (the receipt, the output's and sources' stamps; nothing is rendered, synchronised or
/// written).
pub fn status(root: &Path, only: Option<&str>, json: bool) -> Result<(), String> {
    let project = docforge_project::Project::load(root).map_err(|e| e.to_string())?;
    let statuses: Vec<docforge_render::ViewStatus> =
        selected(&project, only)?.into_iter().map(|v| docforge_render::status(&project, v)).collect();
    if json {
        print_json(&json!({
            "schema_version": "docforge.render_status.v1",
            "views": statuses.iter().map(|s| json!({
                "id": s.view_id,
                "state": s.state.as_str(),
                "reason": s.reason,
                "receipt": docforge_render::receipt::receipt_rel(&s.view_id),
            })).collect::<Vec<_>>(),
        }));
    } else {
        for s in &statuses {
            outln!("{}\t{}\t{}", s.view_id, s.state.as_str(), s.reason);
        }
    }
    Ok(())
}

pub fn render(root: &Path, only: Option<&str>, json: bool) -> Result<(), String> {
    let started = Instant::now();
    let mut workspace = Workspace::bind(root, Options::default()).map_err(|e| e.to_string())?;
    let project = workspace.project().clone();
    let views = selected(&project, only)?;
    // Synchronise first, as `docforge index` does: pages are rendered from a current index.
    let progress = crate::progress::Progress::new(!json && std::io::stderr().is_terminal());
    let counters = workspace.progress();
    let synced = progress.track(&counters, || workspace.ensure_current(true)).map_err(|e| e.to_string())?;
    let generation = synced.generation;
    let stamp = IndexStamp::of(&generation);
    let claims = docforge_render::Claims::recorded(&project, workspace.index());
    let read = docforge_render::project_reader(&project);
    let mut reports = Vec::new();
    for view in views {
        progress.message(&format!("rendering view {}", view.id));
        let rendered = docforge_render::render_view(&project.id, workspace.index(), view, &read, &claims)
            .map_err(|e| format!("view {:?}: {e}", view.id))?;
        let published = docforge_render::publish(
            &project,
            view,
            &rendered,
            stamp.clone(),
            generation.cheap_identity.clone(),
        )
        .map_err(|e| format!("view {:?}: {e}", view.id))?;
        reports.push((view, rendered.documents, published));
    }
    progress.finish();
    if json {
        print_json(&json!({
            "schema_version": "docforge.render.v1",
            "generation": generation.revision,
            "graph_digest": generation.graph_digest,
            "views": reports.iter().map(|(v, documents, p)| json!({
                "id": v.id,
                "renderer": v.renderer.as_str(),
                "output": v.output,
                "documents": documents,
                "files": p.receipt.outputs.len(),
                "bytes": p.bytes,
                "receipt": docforge_render::receipt::receipt_rel(&v.id),
                "receipt_hash": p.receipt.receipt_hash,
            })).collect::<Vec<_>>(),
            "elapsed_ms": started.elapsed().as_millis() as u64,
        }));
    } else {
        let parts: Vec<String> = reports
            .iter()
            .map(|(v, documents, p)| {
                format!("{} -> {} ({documents} documents, {} files)", v.id, v.output, p.receipt.outputs.len())
            })
            .collect();
        outln!(
            "rendered {} view{} from generation {}: {} in {:.2}s",
            reports.len(),
            if reports.len() == 1 { "" } else { "s" },
            generation.revision,
            parts.join(", "),
            started.elapsed().as_secs_f64()
        );
    }
    workspace.exit_fast();
    Ok(())
}
