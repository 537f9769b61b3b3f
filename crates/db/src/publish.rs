//! Publishing the current graph as an index generation.

use crate::go_q::go_selection;
use crate::graph::{file_digest, source_fingerprint};
use crate::host::{AnalysisHost, Cancellable};
use crate::inputs::Content;
use docforge_go::FileSelection;
use docforge_index::{Batch, FileRecord, Index, IndexError, Owner, PublishReport};
use docforge_project::FileKind;
use std::collections::BTreeMap;

/// The engine version recorded in every publication.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Debug)]
pub enum PublishError {
    Cancelled,
    Index(IndexError),
}

impl std::fmt::Display for PublishError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PublishError::Cancelled => f.write_str("publication cancelled by a newer change"),
            PublishError::Index(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for PublishError {}

impl AnalysisHost {
    /// The index batch for the current revision: every owner (the index skips unchanged
    /// ones by digest) and every inventoried file.
    pub fn batch(&self) -> Cancellable<Batch> {
        let analysis = self.analysis();
        let graph = analysis.graph()?;
        let (db, ws) = analysis.parts();
        let mut files = Vec::new();
        let catch = |f: &mut dyn FnMut()| salsa::Cancelled::catch(std::panic::AssertUnwindSafe(f));
        let mut fingerprint = String::new();
        catch(&mut || {
            for (rel, file, stamp) in self.loaded() {
                let (size, sha256, status) = match file.content(db) {
                    Content::Bytes(b) => {
                        let status = match file.kind(db) {
                            FileKind::Go => match go_selection(db, ws, file) {
                                FileSelection::Included => "selected".to_string(),
                                FileSelection::Excluded { reason } => format!("excluded:{reason}"),
                            },
                            _ => "selected".to_string(),
                        };
                        (b.len() as u64, file_digest(db, file).clone().unwrap_or_default(), status)
                    }
                    Content::Unreadable { code, .. } => (0, String::new(), format!("refused:{code}")),
                };
                files.push(FileRecord {
                    path: rel.to_string(),
                    size,
                    mtime_ns: stamp.map_or(0, |s| s.mtime_ns),
                    sha256,
                    kind: file.kind(db).as_str().into(),
                    status,
                });
            }
            for (rel, kind, status) in &ws.inventory(db).skipped {
                files.push(FileRecord {
                    path: rel.clone(),
                    size: 0,
                    mtime_ns: 0,
                    sha256: String::new(),
                    kind: kind.as_str().into(),
                    status: status.clone(),
                });
            }
            fingerprint = source_fingerprint(db, ws).clone();
        })?;
        let s = &graph.summary;
        let mut meta = BTreeMap::new();
        meta.insert("engine_version".into(), ENGINE_VERSION.into());
        meta.insert("project_id".into(), self.project().id.clone());
        meta.insert("ast_policy".into(), if s.precision.is_some() { "allow" } else { "no_ast" }.into());
        meta.insert("precision".into(), s.precision.map_or("none", |p| p.as_str()).into());
        meta.insert(
            "completeness".into(),
            if s.completeness.complete { "complete" } else { "partial" }.into(),
        );
        meta.insert("completeness_reasons".into(), s.completeness.reasons.join(", "));
        let owners = graph
            .owners
            .iter()
            .map(|o| Owner { key: o.key.clone(), digest: o.digest, fragment: o.fragment.clone() })
            .collect();
        Ok(Batch { files, owners, source_fingerprint: fingerprint, meta })
    }

    /// Publish the current revision into `index` (only changed owners are written).
    pub fn publish(&self, index: &mut Index) -> Result<PublishReport, PublishError> {
        let batch = self.batch().map_err(|_| PublishError::Cancelled)?;
        index.publish(batch).map_err(PublishError::Index)
    }
}
