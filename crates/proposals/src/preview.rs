//! `docforge_preview_changeset`: one declared view rendered over a changeset's projected
//! sources into one HTML file below the preview root.
//!
//! The projected files are laid over the binding's analysis as unsaved edits, the graph is
//! published whole into a scratch index outside the project, the view is rendered from it in
//! memory and the pages of the touched documents are written as one file through the project
//! writer (atomic: temporary file, fsync, rename). The project's index, its files and the
//! view's declared output are never touched.

use crate::{Action, ProposalError, Proposals, Status};
use docforge_project::{Durability, ProjectWriter};
use docforge_workspace::{Generation, Workspace};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::SystemTime;

/// A written preview.
#[derive(Clone, Debug, Serialize)]
pub struct Preview {
    pub changeset_id: String,
    pub changeset_sha256: String,
    pub status: Status,
    pub view_id: String,
    pub renderer: String,
    /// The file written, project-relative.
    pub path: String,
    pub bytes: usize,
    pub sha256: String,
    /// The touched documents, and whether the view selects them.
    pub documents: Vec<PreviewDocument>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PreviewDocument {
    pub path: String,
    pub action: Action,
    pub in_view: bool,
}

/// Whether `view_id` could name a declared view at all: a view ID, not a renderer name, a
/// path or a command.
fn check_view_id(view_id: &str) -> Result<(), ProposalError> {
    let renderer = view_id.contains('@');
    let plain = !view_id.is_empty()
        && view_id.len() <= 128
        && view_id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && !view_id.starts_with('.');
    if renderer || !plain {
        return Err(ProposalError::invalid(format!(
            "view_id {view_id:?}: a preview takes the ID of a view declared in docforge.toml, never a renderer name, path or command"
        )));
    }
    Ok(())
}

fn failed(e: impl std::fmt::Display) -> ProposalError {
    ProposalError::new("preview_failed", format!("the preview could not be rendered: {e}"))
}

/// Render `view_id` over the changeset's projected sources into
/// `<preview root>/<changeset id>/<view id>.html`.
pub fn preview(
    workspace: &mut Workspace,
    generation: &Generation,
    changeset_id: &str,
    view_id: &str,
    now: SystemTime,
) -> Result<Preview, ProposalError> {
    check_view_id(view_id)?;
    let project = workspace.project().clone();
    let view = project.config.views.iter().find(|v| v.id == view_id).cloned().ok_or_else(|| {
        let declared: Vec<&str> = project.config.views.iter().map(|v| v.id.as_str()).collect();
        ProposalError::new(
            "unknown_view",
            format!("no view {view_id:?} is declared in docforge.toml (declared: {declared:?})"),
        )
        .detail("declared_views", declared)
    })?;
    let current = Proposals::of(workspace, generation, None, now).get(changeset_id)?;
    let cs = &current.changeset;
    let overlay: Vec<(String, Option<Vec<u8>>)> =
        cs.changes.iter().map(|c| (c.path.clone(), c.after_bytes())).collect();
    let projected: BTreeMap<&str, Option<&Vec<u8>>> =
        overlay.iter().map(|(p, b)| (p.as_str(), b.as_ref())).collect();
    let scratch = tempfile::Builder::new().prefix("docforge-preview-").tempdir().map_err(failed)?;
    let index_path = scratch.path().join("index.sqlite");
    let disk = docforge_render::project_reader(&project);
    let read = |rel: &str| -> Result<Vec<u8>, String> {
        match projected.get(rel) {
            Some(Some(b)) => Ok((*b).clone()),
            Some(None) => Err(format!("{rel} is deleted by the changeset")),
            None => disk(rel),
        }
    };
    let rendered = workspace
        .with_overlay(&overlay, |host| -> Result<docforge_render::Rendered, ProposalError> {
            let mut index = docforge_index::Index::open(&index_path).map_err(failed)?;
            host.publish_detached(&mut index).map_err(|e| failed(format!("{e:?}")))?;
            drop(index);
            let index = docforge_index::Index::open_read_only(&index_path).map_err(failed)?;
            let claims = docforge_render::Claims::recorded(&project, &index);
            docforge_render::render_view(&project.id, &index, &view, &read, &claims).map_err(failed)
        })
        .map_err(|e| ProposalError::new("preview_failed", e.to_string()))??;
    let documents: Vec<PreviewDocument> = cs
        .changes
        .iter()
        .map(|c| {
            let page = docforge_render::view::page_of(&c.path);
            PreviewDocument {
                path: c.path.clone(),
                action: c.action,
                in_view: rendered.files.iter().any(|(p, _)| *p == page),
            }
        })
        .collect();
    let touched: Vec<docforge_render::Touched> = cs
        .changes
        .iter()
        .map(|c| docforge_render::Touched {
            path: c.path.clone(),
            action: match c.action {
                Action::Create => "created",
                Action::Modify => "modified",
                Action::Delete => "deleted",
            },
        })
        .collect();
    let title = format!("Preview of changeset {} — {} (not applied)", cs.changeset_id, cs.title);
    let facts = vec![
        format!("changeset_sha256 {}", cs.changeset_sha256),
        format!("status {} · base generation {}", current.status.as_str(), cs.base.revision),
        format!(
            "view {} ({}) rendered over the changeset's projected sources; no document was changed",
            view.id,
            view.renderer.as_str()
        ),
        "links lead to pages of the view's output, which are not part of this file".to_string(),
    ];
    let html = docforge_render::preview_html(&view.id, &rendered, &title, &facts, &touched);
    let root = project.config.proposals.preview_root.trim_end_matches('/').trim_start_matches("./");
    let path = format!("{root}/{}/{}.html", cs.changeset_id, view.id);
    ProjectWriter::new(&project.root)
        .write(&path, html.as_bytes(), Durability::Durable)
        .map_err(|e| ProposalError::new("store_error", format!("the preview cannot be written: {e}")))?;
    Ok(Preview {
        changeset_id: cs.changeset_id.clone(),
        changeset_sha256: cs.changeset_sha256.clone(),
        status: current.status,
        view_id: view.id.clone(),
        renderer: view.renderer.as_str().to_string(),
        bytes: html.len(),
        sha256: crate::sha256_hex(html.as_bytes()),
        path,
        documents,
    })
}
