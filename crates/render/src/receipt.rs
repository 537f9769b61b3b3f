//! The version-1 render publication receipt: what a view's output was rendered from and what
//! it holds, bound by its own canonical hash. One per view, at
//! `.docforge/receipts/render/<view id>.v1.json`.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The version of the built-in renderers' output format (the `@1` of `html-page@1`).
pub const RENDERER_VERSION: u32 = 1;

/// Readers refuse a larger receipt file as `unverified`.
pub const MAX_RENDER_RECEIPT_BYTES: u64 = 16 << 20;

/// One file a view was rendered from: a document, as the index recorded it, or the claim
/// outcomes receipt the pages show (an empty SHA-256: there was none, and there must still be
/// none for the view to be current).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputFile {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
    /// Status-change time (0 in receipts written without it: such an input reads as changed).
    #[serde(default)]
    pub ctime_ns: i64,
    pub sha256: String,
}

/// One file of the output, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputFile {
    /// The path inside the view's output directory.
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
    /// Status-change time (0 in receipts written without it: such a file reads as changed).
    #[serde(default)]
    pub ctime_ns: i64,
    /// (device, inode) of the file written.
    pub file: (u64, u64),
    pub sha256: String,
}

impl OutputFile {
    /// The stamp the file had when written.
    pub fn stamp(&self) -> docforge_project::FileStamp {
        docforge_project::FileStamp {
            size: self.size,
            mtime_ns: self.mtime_ns,
            dev: self.file.0,
            ino: self.file.1,
            ctime_ns: self.ctime_ns,
        }
    }
}

/// One directory of the output, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputDir {
    /// The path inside the view's output directory (`""`: the output directory).
    pub path: String,
    pub stamp: docforge_project::ReadStamp,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewStamp {
    pub id: String,
    /// `html-page@1` or `html-site@1`.
    pub renderer: String,
    pub renderer_version: u32,
    /// The project-relative output directory written ([`docforge_project::View::output_dir`]).
    pub output: String,
    /// SHA-256 of the view's declaration (renderer, select, output).
    pub declaration_sha256: String,
}

/// The index generation the pages were rendered from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexStamp {
    pub generation: u64,
    pub graph_digest: String,
    pub source_fingerprint: String,
    pub precision: String,
}

impl IndexStamp {
    /// What a receipt records of the published generation `g`.
    pub fn of(g: &docforge_workspace::Generation) -> IndexStamp {
        IndexStamp {
            generation: g.revision,
            graph_digest: g.graph_digest.clone(),
            source_fingerprint: g.source_hash.clone(),
            precision: g.precision.clone(),
        }
    }
}

/// The code a receipt's pages or outcomes come from: the engine's derivation fingerprint (the
/// graph pages are made of) and this crate's (the pages, and the validation whose outcomes
/// they show; see `build.rs`). Two builds of one version may differ in either.
pub fn code_fingerprint() -> String {
    format!("{}.{}", docforge_db::DERIVATION, env!("DOCFORGE_RENDER_CODE"))
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderReceipt {
    pub receipt_schema_version: u32,
    pub receipt_kind: String,
    pub project_id: String,
    pub root: String,
    pub adapter_version: String,
    /// The code that rendered it ([`code_fingerprint`]); absent in receipts of earlier builds.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub code: String,
    pub view: ViewStamp,
    pub index: IndexStamp,
    /// The cheap identity (paths, sizes, modification times) of every source of the project
    /// at the render: pages also show what other documents and the Go code say (backlinks,
    /// symbol places), so any source change may change them.
    pub source_identity: String,
    pub inputs: Vec<InputFile>,
    pub outputs: Vec<OutputFile>,
    /// Every directory of the output (`""`: the output directory itself) as written, in
    /// path order: unchanged and older than the receipt, a directory holds only what the
    /// render put there, and the cheap status does not list it.
    pub output_dirs: Vec<OutputDir>,
    /// What lets the cheap status tell, without walking the project, that its sources are
    /// still the ones `source_identity` binds; absent when it could not be taken at the
    /// publication (then the status walks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources_witness: Option<docforge_project::WalkWitness>,
    /// SHA-256 of the canonical receipt with this field empty.
    pub receipt_hash: String,
}

impl RenderReceipt {
    /// How many documents the view was rendered from (the inputs but the claim outcomes
    /// receipt, which lives in the state directory).
    pub fn documents(&self) -> usize {
        self.inputs.iter().filter(|i| !i.path.starts_with(docforge_project::STATE_DIR)).count()
    }
}

impl docforge_workspace::HashBound for RenderReceipt {
    const SCHEMA_VERSION: u32 = 1;
    const MAX_FILE_BYTES: u64 = MAX_RENDER_RECEIPT_BYTES;
    fn schema_version(&self) -> u32 {
        self.receipt_schema_version
    }
    fn hash_slot(&mut self) -> &mut String {
        &mut self.receipt_hash
    }
}

/// The receipt directory inside the state directory.
pub const RECEIPT_DIR: &str = "receipts/render";

/// The project-relative path of view `id`'s receipt.
pub fn receipt_rel(id: &str) -> String {
    format!("{}/{RECEIPT_DIR}/{id}.v1.json", docforge_project::STATE_DIR)
}

/// Where view `id`'s receipt lives under `root`.
pub fn receipt_path(root: &Path, id: &str) -> PathBuf {
    root.join(receipt_rel(id))
}

/// SHA-256 of a view's declaration: a receipt binds the declaration it was rendered for.
pub fn declaration_sha256(view: &docforge_project::View) -> String {
    let s = &view.select;
    let canonical = serde_json::json!({
        "id": view.id, "renderer": view.renderer.as_str(), "output": view.output,
        "select": { "family": s.family, "authority": s.authority, "status": s.status,
                    "tag": s.tag, "kind": s.kind, "paths": s.paths },
    });
    hex::encode(Sha256::digest(serde_json::to_vec(&canonical).expect("serialises")))
}
