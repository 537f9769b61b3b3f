//! Render status, fail closed. The cheap status reads the view's bounded receipt, stats the
//! sources and the outputs and lists the output directory (a file the render did not write
//! there makes it stale): it never opens the index, parses, renders, hashes an output or
//! writes. The deep status renders the view in memory from the published index and
//! compares every output's SHA-256 with the receipt and the files on disk; it writes nothing.

use crate::receipt::{declaration_sha256, receipt_path, RenderReceipt};
use crate::{render_view, Claims, RenderError};
use docforge_index::Index;
use docforge_project::{Project, View};
use docforge_workspace::receipts::read_verified;
use docforge_workspace::ReceiptState;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The state of one view's published output.
#[derive(Clone, Debug)]
pub struct ViewStatus {
    pub view_id: String,
    /// `current`, `stale`, `missing`, `unverified` or `unsafe`.
    pub state: ReceiptState,
    pub reason: String,
    /// The verified receipt, when there is one.
    pub receipt: Option<RenderReceipt>,
}

fn verdict(
    view: &View,
    state: ReceiptState,
    reason: impl Into<String>,
    receipt: Option<RenderReceipt>,
) -> ViewStatus {
    ViewStatus { view_id: view.id.clone(), state, reason: reason.into(), receipt }
}

/// Every component below `root` must be a real directory and the last a regular file.
/// `Err(state, why)` when it is not (`missing` or `unsafe`). `dirs` holds the directories
/// already found to be real ones by this status (each is inspected once, not once per file
/// below it).
fn stat_confined(
    root: &Path,
    rel: &str,
    dirs: &mut HashSet<PathBuf>,
) -> Result<std::fs::Metadata, (ReceiptState, String)> {
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let last = i + 1 == parts.len();
        if !last && dirs.contains(&at) {
            continue;
        }
        let m = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err((ReceiptState::Missing, format!("{rel} does not exist")))
            }
            Err(e) => return Err((ReceiptState::Unverified, format!("{rel} cannot be inspected: {e}"))),
        };
        if m.file_type().is_symlink() {
            return Err((ReceiptState::Unsafe, format!("{} is a symlink", parts[..=i].join("/"))));
        }
        if last && !m.file_type().is_file() || !last && !m.is_dir() {
            return Err((
                ReceiptState::Unsafe,
                format!("{} is not a regular file or directory", parts[..=i].join("/")),
            ));
        }
        if last {
            return Ok(m);
        }
        dirs.insert(at.clone());
    }
    Err((ReceiptState::Missing, format!("{rel} does not exist")))
}

/// Every entry below the directory `rel` that is not a directory (files, symlinks, anything
/// else), as paths inside it, in order; symlinks are not followed. `None` when `rel` cannot be
/// listed.
fn entries_below(root: &Path, rel: &str) -> Option<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            if entry.file_type()?.is_dir() {
                walk(&entry.path(), &path, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(&root.join(rel), "", &mut out).ok()?;
    out.sort();
    Some(out)
}

/// The entries below the output that are not files of the render (the owner's marker is its).
fn foreign_outputs(root: &Path, output: &str, rendered: &BTreeSet<&str>) -> Vec<String> {
    entries_below(root, output)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p != crate::OUTPUT_MARKER && !rendered.contains(p.as_str()))
        .collect()
}

fn mtime_ns(m: &std::fs::Metadata) -> i64 {
    m.mtime() * 1_000_000_000 + m.mtime_nsec()
}

/// The cheap status of `view` (see the module documentation).
pub fn status(project: &Project, view: &View) -> ViewStatus {
    use ReceiptState::*;
    let path = receipt_path(&project.root, &view.id);
    let receipt = match read_verified::<RenderReceipt>(&project.root, &path) {
        Ok((r, _)) => r,
        Err(s) if s.state == Missing => {
            return verdict(
                view,
                Unverified,
                "no render receipt: the view was never rendered (`docforge render`)",
                None,
            )
        }
        Err(s) => return verdict(view, s.state, format!("the render receipt: {}", s.reason), None),
    };
    if receipt.project_id != project.id
        || receipt.root != project.root.display().to_string()
        || receipt.view.id != view.id
        || receipt.receipt_kind != "render_publication"
    {
        return verdict(view, Unverified, "the receipt belongs to another project, root or view", None);
    }
    if receipt.adapter_version != docforge_db::ENGINE_VERSION {
        return verdict(view, Stale, "the receipt was written by another DocForge version", Some(receipt));
    }
    if receipt.view.declaration_sha256 != declaration_sha256(view) {
        return verdict(
            view,
            Stale,
            "the view's declaration in docforge.toml changed since the render",
            Some(receipt),
        );
    }
    let mut dirs = HashSet::new();
    for out in &receipt.outputs {
        let rel = format!("{}/{}", view.output_dir(), out.path);
        match stat_confined(&project.root, &rel, &mut dirs) {
            Err((state, why)) => return verdict(view, state, why, Some(receipt)),
            Ok(m) => {
                if m.len() != out.size || mtime_ns(&m) != out.mtime_ns || (m.dev(), m.ino()) != out.file {
                    return verdict(view, Stale, format!("{rel} changed since the render"), Some(receipt));
                }
            }
        }
    }
    let written: BTreeSet<&str> = receipt.outputs.iter().map(|o| o.path.as_str()).collect();
    if let Some(extra) = foreign_outputs(&project.root, &view.output_dir(), &written).first() {
        let why = format!("{}/{extra} is not a file of the render", view.output_dir());
        return verdict(view, Stale, why, Some(receipt));
    }
    for input in &receipt.inputs {
        match stat_confined(&project.root, &input.path, &mut dirs) {
            // An input recorded as absent (no claim outcomes were recorded) is still absent.
            Err((Missing, _)) if input.sha256.is_empty() => {}
            Ok(m) if !input.sha256.is_empty() && m.len() == input.size && mtime_ns(&m) == input.mtime_ns => {}
            Ok(_) | Err((Missing, _)) => {
                return verdict(
                    view,
                    Stale,
                    format!("{} changed since the render", input.path),
                    Some(receipt),
                )
            }
            Err((state, why)) => return verdict(view, state, why, Some(receipt)),
        }
    }
    let inventory = docforge_project::discover(project);
    if docforge_db::cheap_identity(&inventory) != receipt.source_identity {
        return verdict(
            view,
            Stale,
            "sources outside the view changed since the render (pages also show backlinks, the selection and symbol places)",
            Some(receipt),
        );
    }
    verdict(view, Current, "the sources and the outputs are the ones the receipt binds", Some(receipt))
}

/// The deep comparison of a view (see the module documentation).
#[derive(Clone, Debug)]
pub struct DeepStatus {
    /// Whether rendering now gives exactly the files of the receipt, and the disk holds them.
    pub equivalent: bool,
    /// Paths (inside the output) that differ: rendered now vs the receipt or the disk, or
    /// present on one side only (a file on disk the render does not write included).
    pub differing: Vec<String>,
}

/// Render `view` in memory from `index` and compare it with its receipt and its output.
pub fn deep_status(
    project: &Project,
    view: &View,
    index: &Index,
    claims: &Claims,
) -> Result<DeepStatus, RenderError> {
    let root = &project.root;
    let reader = docforge_project::SourceReader::new(root);
    let read = |rel: &str| {
        reader.read_into_vec(rel, project.config.limits.max_file_bytes).map_err(|e| e.to_string())
    };
    let rendered = render_view(&project.id, index, view, &read, claims)?;
    let path = receipt_path(root, &view.id);
    let receipt: BTreeMap<String, String> = read_verified::<RenderReceipt>(root, &path)
        .map(|(r, _)| r.outputs.into_iter().map(|o| (o.path, o.sha256)).collect())
        .unwrap_or_default();
    let now: BTreeMap<String, String> =
        rendered.files.iter().map(|(p, b)| (p.clone(), hex::encode(Sha256::digest(b)))).collect();
    let output = view.output_dir();
    let mut differing = Vec::new();
    let mut dirs = HashSet::new();
    // Every file the receipt or the render names, and whatever else is on disk there.
    let named: BTreeSet<&str> = receipt.keys().chain(now.keys()).map(String::as_str).collect();
    let extra = foreign_outputs(root, &output, &named);
    let paths: BTreeSet<&String> = receipt.keys().chain(now.keys()).chain(&extra).collect();
    for p in paths {
        let disk = stat_confined(root, &format!("{output}/{p}"), &mut dirs)
            .ok()
            .and_then(|_| std::fs::read(root.join(&output).join(p)).ok())
            .map(|b| hex::encode(Sha256::digest(b)));
        let ours = now.get(p);
        if ours.is_none() || receipt.get(p) != ours || disk.as_ref() != ours {
            differing.push(p.clone());
        }
    }
    Ok(DeepStatus { equivalent: differing.is_empty(), differing })
}
