//! Publishing a rendered view: the output directory replaced whole through the project
//! writer (staged beside it, swapped in with one rename; a directory DocForge did not write
//! is never replaced), and the view's receipt written before the old output is removed (it is
//! swapped back when the receipt cannot be written).

use crate::receipt::{
    declaration_sha256, receipt_rel, IndexStamp, OutputDir, OutputFile, RenderReceipt, ViewStamp,
    RENDERER_VERSION,
};
use crate::{RenderError, Rendered};
use docforge_project::{Durability, Owner, Project, ProjectWriter, View};
use sha2::{Digest, Sha256};

/// The marker file a rendered output directory holds (`docforge view <id>`): without it an
/// existing directory is never replaced.
pub const OUTPUT_MARKER: &str = ".docforge-output";

/// What a publication wrote.
#[derive(Clone, Debug)]
pub struct Published {
    pub receipt: RenderReceipt,
    /// Bytes written (every output file).
    pub bytes: u64,
}

fn marker(view: &View) -> Vec<u8> {
    format!("docforge view {}\n", view.id).into_bytes()
}

/// Replace `view`'s output with `rendered` and write its receipt.
pub fn publish(
    project: &Project,
    view: &View,
    rendered: &Rendered,
    index: IndexStamp,
    source_identity: String,
) -> Result<Published, RenderError> {
    publish_failing_after(project, view, rendered, index, source_identity, usize::MAX)
}

/// [`publish`] whose tree replacement fails as an I/O error would after staging `budget`
/// files (tests: a failed publication must leave the previous output and receipt as they were).
#[doc(hidden)]
pub fn publish_failing_after(
    project: &Project,
    view: &View,
    rendered: &Rendered,
    index: IndexStamp,
    source_identity: String,
    budget: usize,
) -> Result<Published, RenderError> {
    let writer = ProjectWriter::new(&project.root);
    let marker = marker(view);
    let owner = Owner { file: OUTPUT_MARKER, bytes: &marker };
    let output = view.output_dir();
    // The receipt is written while the new output is in place and the old one still kept
    // aside: when it cannot be written, the old output is put back, so a failed publication
    // leaves the previous output and receipt as they were.
    let write_receipt = || -> Result<Published, docforge_project::WriteError> {
        let out_dir = project.root.join(&output);
        let mut outputs = Vec::with_capacity(rendered.files.len());
        let mut bytes = 0u64;
        for (path, content) in &rendered.files {
            let m = std::fs::symlink_metadata(out_dir.join(path)).map_err(|e| {
                docforge_project::WriteError::Io { path: format!("{output}/{path}"), message: e.to_string() }
            })?;
            bytes += content.len() as u64;
            let s = docforge_project::FileStamp::of(&m);
            outputs.push(OutputFile {
                path: path.clone(),
                size: s.size,
                mtime_ns: s.mtime_ns,
                ctime_ns: s.ctime_ns,
                file: (s.dev, s.ino),
                sha256: hex::encode(Sha256::digest(content)),
            });
        }
        let reader = docforge_project::SourceReader::new(&project.root);
        let mut dirs: std::collections::BTreeSet<&str> = [""].into();
        for (path, _) in &rendered.files {
            let mut p = path.as_str();
            while let Some((parent, _)) = p.rsplit_once('/') {
                dirs.insert(parent);
                p = parent;
            }
        }
        // What each directory must hold: the render's files and directories (and the marker).
        let mut expected: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
            dirs.iter().map(|d| (*d, Default::default())).collect();
        let entries = rendered.files.iter().map(|(p, _)| p.as_str()).chain(dirs.iter().copied());
        for path in entries.filter(|p| !p.is_empty()).chain([OUTPUT_MARKER]) {
            let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
            expected.entry(parent).or_default().insert(name);
        }
        let mut output_dirs = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let rel = if dir.is_empty() { output.clone() } else { format!("{output}/{dir}") };
            let fail = |message: String| docforge_project::WriteError::Io { path: rel.clone(), message };
            // The stamp before the listing: an entry added after it changes the stamp, so the
            // status, seeing the stamp unchanged, knows the directory holds what was listed.
            let docforge_project::PathState::Dir(stamp) = reader.path_state(&rel) else {
                return Err(fail("is not the directory just written".into()));
            };
            let listed = std::fs::read_dir(project.root.join(&rel)).map_err(|e| fail(e.to_string()))?;
            for entry in listed {
                let name = entry.map_err(|e| fail(e.to_string()))?.file_name();
                let name = name.to_string_lossy();
                if !expected.get(dir).is_some_and(|names| names.contains(&*name)) {
                    return Err(fail(format!(
                        "holds {name}, which the render did not write (written there while the view was published)"
                    )));
                }
            }
            output_dirs.push(OutputDir { path: dir.to_string(), stamp });
        }
        // Taken with the new output in place: the status compares the project as it is now.
        let (walked, witness) = docforge_project::witness::take(project);
        let mut witness = witness.filter(|_| docforge_db::cheap_identity(&walked) == source_identity);
        // The status checks the inputs against their own records.
        let inputs: std::collections::HashMap<&str, (u64, i64)> =
            rendered.inputs.iter().map(|i| (i.path.as_str(), (i.size, i.mtime_ns))).collect();
        if let Some(w) = &mut witness {
            w.leave_out(|rel, s| inputs.get(rel) == Some(&(s.size, s.mtime_ns)));
        }
        let mut receipt = RenderReceipt {
            receipt_schema_version: 1,
            receipt_kind: "render_publication".into(),
            project_id: project.id.clone(),
            root: project.root.display().to_string(),
            adapter_version: docforge_db::ENGINE_VERSION.into(),
            code: crate::receipt::code_fingerprint(),
            view: ViewStamp {
                id: view.id.clone(),
                renderer: view.renderer.as_str().into(),
                renderer_version: RENDERER_VERSION,
                output: output.clone(),
                declaration_sha256: declaration_sha256(view),
            },
            index,
            source_identity,
            inputs: rendered.inputs.clone(),
            outputs,
            output_dirs,
            sources_witness: witness,
            receipt_hash: String::new(),
        };
        receipt.receipt_hash = docforge_db::receipt::canonical_hash(&mut receipt, |r| &mut r.receipt_hash);
        let json = serde_json::to_vec(&receipt).expect("receipt serialises");
        writer.write(&receipt_rel(&view.id), &json, Durability::Durable)?;
        Ok(Published { receipt, bytes })
    };
    Ok(writer.replace_tree_then_failing_after(&output, &rendered.files, owner, budget, write_receipt)?)
}
