//! The changeset store: one directory per changeset under the configured changeset root,
//! written only through the project writer (temp file, fsync, rename, directory fsync), and
//! an OS file lock (`flock` on `<root>/.lock`) that serialises every mutation across
//! processes.

use crate::model::{canonical_json, Changeset, SCHEMA_VERSION};
use crate::ProposalError;
use docforge_project::{Durability, FileLock, Project, ProjectWriter};
use sha2::{Digest, Sha256};

/// The largest changeset record read back (a changeset holds whole files' after bytes).
const MAX_RECORD_BYTES: u64 = 256 * 1024 * 1024;

/// What [`Store::load_all`] found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub changesets: Vec<Changeset>,
    /// Records that exist but do not read as a version-1 changeset: (ID, why).
    pub unreadable: Vec<(String, String)>,
}

impl Loaded {
    /// The changesets, when every record read: a mutation cannot prove it overlaps none
    /// of the others otherwise.
    pub fn all_readable(self) -> Result<Vec<Changeset>, ProposalError> {
        match self.unreadable.first() {
            None => Ok(self.changesets),
            Some((id, why)) => Err(ProposalError::new(
                "store_error",
                format!("changeset {id} cannot be read ({why}); overlap with it cannot be ruled out"),
            )
            .detail("changeset_id", id.as_str())
            .remediation("repair or remove that record under the changeset root")),
        }
    }
}

pub struct Store<'p> {
    project: &'p Project,
    writer: ProjectWriter,
    /// The changeset root, project-relative.
    root: String,
}

fn store_err(e: impl std::fmt::Display) -> ProposalError {
    ProposalError::new("store_error", format!("the changeset store: {e}"))
}

/// Whether `id` can name a changeset directory: `cs-` and lowercase hex, as [`Store::new_id`]
/// makes them.
pub fn is_changeset_id(id: &str) -> bool {
    id.len() == 23
        && id.starts_with("cs-")
        && id[3..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl<'p> Store<'p> {
    pub fn new(project: &'p Project) -> Store<'p> {
        let root = project
            .config
            .proposals
            .changeset_root
            .trim_end_matches('/')
            .trim_start_matches("./")
            .to_string();
        Store { project, writer: ProjectWriter::new(&project.root), root }
    }

    pub fn root(&self) -> &str {
        &self.root
    }

    /// Hold the store's lock (blocks until no other process or thread holds it).
    pub fn lock(&self) -> Result<FileLock, ProposalError> {
        self.writer.lock(&format!("{}/.lock", self.root)).map_err(store_err)
    }

    /// A new, unused changeset ID: `cs-` + 20 hex digits from the time, the process and a
    /// counter.
    pub fn new_id(&self, now: std::time::SystemTime, salt: &str) -> Result<String, ProposalError> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let existing = self.ids()?;
        loop {
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let nanos = now.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
            let mut h = Sha256::new();
            h.update(format!("{nanos}\0{}\0{n}\0{salt}", std::process::id()));
            let id = format!("cs-{}", &hex::encode(h.finalize())[..20]);
            if !existing.contains(&id) {
                return Ok(id);
            }
        }
    }

    /// The IDs of every stored changeset, sorted.
    pub fn ids(&self) -> Result<Vec<String>, ProposalError> {
        let names = self.writer.list_dir(&self.root).map_err(store_err)?;
        Ok(names.into_iter().filter(|n| is_changeset_id(n)).collect())
    }

    fn record_path(&self, id: &str) -> String {
        format!("{}/{id}/changeset.json", self.root)
    }

    /// Read one changeset; its stored hash must be its content's.
    pub fn load(&self, id: &str) -> Result<Changeset, ProposalError> {
        let not_found = || {
            ProposalError::new("changeset_not_found", format!("no changeset {id:?}"))
                .detail("changeset_id", id)
                .remediation("list the changesets (docforge_list_changesets with history=true)")
        };
        if !is_changeset_id(id) {
            return Err(not_found());
        }
        let rel = self.record_path(id);
        if !self.writer.is_regular(&rel) {
            return Err(not_found());
        }
        let bytes =
            docforge_project::read_source(&self.project.root, &rel, MAX_RECORD_BYTES).map_err(store_err)?;
        let cs: Changeset = serde_json::from_slice(&bytes)
            .map_err(|e| store_err(format!("{rel} is not a version-1 changeset: {e}")))?;
        if cs.schema_version != SCHEMA_VERSION || cs.changeset_id != id {
            return Err(store_err(format!("{rel} is not a version-{SCHEMA_VERSION} record of {id}")));
        }
        if cs.compute_hash() != cs.changeset_sha256 {
            return Err(store_err(format!(
                "{rel}: its content does not match its changeset_sha256; refused"
            )));
        }
        Ok(cs)
    }

    /// Every stored changeset, and the records that do not read (ID, why).
    pub fn load_all(&self) -> Result<Loaded, ProposalError> {
        let mut out = Loaded::default();
        for id in self.ids()? {
            match self.load(&id) {
                Ok(cs) => out.changesets.push(cs),
                Err(e) if e.code == "changeset_not_found" => {}
                Err(e) => out.unreadable.push((id, e.message)),
            }
        }
        Ok(out)
    }

    /// The record's path and bytes as [`Store::save`] writes them.
    pub fn record_bytes(&self, cs: &Changeset) -> Result<(String, Vec<u8>), ProposalError> {
        let v = serde_json::to_value(cs).map_err(store_err)?;
        let mut text = canonical_json(&v);
        text.push('\n');
        Ok((self.record_path(&cs.changeset_id), text.into_bytes()))
    }

    /// The stored record's bytes, as they are.
    pub fn record_file(&self, id: &str) -> Result<Vec<u8>, ProposalError> {
        docforge_project::read_source(&self.project.root, &self.record_path(id), MAX_RECORD_BYTES)
            .map_err(store_err)
    }

    /// Write a changeset record durably (call with the lock held).
    pub fn save(&self, cs: &Changeset) -> Result<(), ProposalError> {
        let (path, bytes) = self.record_bytes(cs)?;
        self.writer.write(&path, &bytes, Durability::Durable).map_err(store_err)?;
        Ok(())
    }

    /// Where a receipt of the changeset `id` is kept.
    pub fn receipt_path(&self, id: &str, name: &str) -> String {
        format!("{}/{id}/{name}", self.root)
    }

    /// A receipt of the changeset `id`, when it reads as JSON.
    pub fn read_receipt(&self, id: &str, name: &str) -> Option<serde_json::Value> {
        let rel = self.receipt_path(id, name);
        let bytes = docforge_project::read_source(&self.project.root, &rel, MAX_RECORD_BYTES).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Write an audit receipt beside the changeset record (call with the lock held, before
    /// the record that commits what it attests: a terminal changeset never gets another).
    pub fn write_receipt(
        &self,
        id: &str,
        name: &str,
        receipt: &serde_json::Value,
    ) -> Result<String, ProposalError> {
        let rel = self.receipt_path(id, name);
        let mut text = canonical_json(receipt);
        text.push('\n');
        self.writer.write(&rel, text.as_bytes(), Durability::Durable).map_err(store_err)?;
        Ok(rel)
    }
}
