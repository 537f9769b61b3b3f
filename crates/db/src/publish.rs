//! Publishing the current graph as an index generation: a full batch the first time, then
//! only what changed since this host's last publication.

use crate::go_q::go_selection;
use crate::graph::{file_digest, source_fingerprint, Graph};
use crate::host::{AnalysisHost, Cancellable};
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_go::FileSelection;
use docforge_index::{Batch, Delta, FileRecord, Index, IndexError, Owner, PublishReport};
use docforge_project::FileKind;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

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

/// What a host last published into which index file.
pub(crate) struct Published {
    path: PathBuf,
    generation: u64,
    owners: HashMap<Arc<str>, [u8; 32]>,
    files: HashMap<String, Arc<FileRecord>>,
}

/// The index record of one loaded file (memoised: unchanged files yield the same `Arc`).
#[salsa::tracked(returns(ref))]
pub fn file_record(db: &dyn Db, ws: Workspace, file: SourceFile) -> Arc<FileRecord> {
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
    Arc::new(FileRecord {
        path: file.rel(db).clone(),
        size,
        mtime_ns: file.mtime_ns(db),
        sha256,
        kind: file.kind(db).as_str().into(),
        status,
    })
}

struct Snapshot {
    graph: Arc<Graph>,
    files: Vec<Arc<FileRecord>>,
    fingerprint: String,
    meta: BTreeMap<String, String>,
}

impl AnalysisHost {
    fn snapshot(&self) -> Cancellable<Snapshot> {
        let analysis = self.analysis();
        let graph = analysis.graph()?;
        let (db, ws) = analysis.parts();
        let (files, fingerprint) = salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let mut files: Vec<Arc<FileRecord>> =
                ws.files(db).iter().map(|&f| file_record(db, ws, f).clone()).collect();
            for (rel, kind, status) in &ws.inventory(db).skipped {
                files.push(Arc::new(FileRecord {
                    path: rel.clone(),
                    size: 0,
                    mtime_ns: 0,
                    sha256: String::new(),
                    kind: kind.as_str().into(),
                    status: status.clone(),
                }));
            }
            (files, source_fingerprint(db, ws).clone())
        }))?;
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
        Ok(Snapshot { graph, files, fingerprint, meta })
    }

    /// The full index batch for the current revision.
    pub fn batch(&self) -> Cancellable<Batch> {
        let snap = self.snapshot()?;
        Ok(full_batch(&snap))
    }

    /// Publish the current revision into `index`. After a first full publication, only the
    /// owners and files that changed since this host's last publication are sent; if another
    /// writer published in between, the index refuses the delta and a full batch is sent.
    pub fn publish(&mut self, index: &mut Index) -> Result<PublishReport, PublishError> {
        let snap = self.snapshot().map_err(|_| PublishError::Cancelled)?;
        let path = index.path().to_path_buf();
        let report = match self.published.as_ref().filter(|p| p.path == path) {
            Some(prev) => match index.publish_delta(delta(prev, &snap)) {
                Err(IndexError::GenerationMismatch { .. }) => index.publish(full_batch(&snap)),
                other => other,
            },
            None => index.publish(full_batch(&snap)),
        }
        .map_err(|e| {
            self.published = None;
            PublishError::Index(e)
        })?;
        self.published = Some(Published {
            path,
            generation: report.generation,
            owners: snap.graph.owners.iter().map(|o| (o.key.clone(), o.digest)).collect(),
            files: snap.files.iter().map(|f| (f.path.clone(), f.clone())).collect(),
        });
        Ok(report)
    }
}

fn full_batch(snap: &Snapshot) -> Batch {
    Batch {
        files: snap.files.iter().map(|f| (**f).clone()).collect(),
        owners: snap.graph.owners.iter().map(owner).collect(),
        source_fingerprint: snap.fingerprint.clone(),
        meta: snap.meta.clone(),
    }
}

fn owner(o: &crate::OwnerFragment) -> Owner {
    Owner { key: o.key.to_string(), digest: o.digest, fragment: o.fragment.clone() }
}

fn delta(prev: &Published, snap: &Snapshot) -> Delta {
    let mut d = Delta {
        base_generation: prev.generation,
        source_fingerprint: snap.fingerprint.clone(),
        meta: snap.meta.clone(),
        ..Default::default()
    };
    let mut seen = std::collections::HashSet::with_capacity(snap.graph.owners.len());
    for o in &snap.graph.owners {
        seen.insert(&*o.key);
        if prev.owners.get(&o.key) != Some(&o.digest) {
            d.upsert_owners.push(owner(o));
        }
    }
    d.remove_owners = prev.owners.keys().filter(|k| !seen.contains(&***k)).map(|k| k.to_string()).collect();
    let mut seen_files = std::collections::HashSet::with_capacity(snap.files.len());
    for f in &snap.files {
        seen_files.insert(f.path.as_str());
        match prev.files.get(&f.path) {
            Some(old) if Arc::ptr_eq(old, f) || **old == **f => {}
            _ => d.upsert_files.push((**f).clone()),
        }
    }
    d.remove_files = prev.files.keys().filter(|k| !seen_files.contains(k.as_str())).cloned().collect();
    d
}
