//! Delta publication: apply only what changed since a known generation.
//!
//! Every read is a lookup by key or path, except the graph digest, which is recomputed from
//! an ordered scan of the owners' keys and digests (no fragment rows are read).

use crate::error::{IndexError, SqlContext};
use crate::publish::{
    apply, is_noop, read_generation, read_meta, validate_parts, write_meta, GraphHasher, Plan,
};
use crate::rows::load_owner;
use crate::{Delta, FileRecord, Index, PublishReport};
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior};
use std::path::Path;

impl Index {
    /// Publish the stored generation plus `delta` as the next generation.
    ///
    /// Same atomicity, no-op and identity rules as [`Index::publish`] (the graph digest is
    /// over *all* owners of the resulting generation). Refuses, writing nothing, when the
    /// stored generation is not `delta.base_generation`
    /// ([`IndexError::GenerationMismatch`]).
    pub fn publish_delta(&mut self, delta: Delta) -> Result<PublishReport, IndexError> {
        let path = self.path.clone();
        if self.read_only {
            return Err(IndexError::InvalidBatch { path, reason: "index was opened read-only".to_string() });
        }
        validate_parts(
            &path,
            delta.upsert_owners.iter().map(|o| o.key.as_str()),
            delta.remove_owners.iter().map(String::as_str),
            &delta.upsert_files,
            delta.remove_files.iter().map(String::as_str),
            &delta.meta,
        )?;
        let mut hook = self.hook.take();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(&path)?;
        let result = write_delta(&tx, &path, &delta, &mut hook);
        self.hook = hook;
        let (report, written) = result?;
        if !written {
            // Dropping the transaction rolls back: nothing was written.
            return Ok(report);
        }
        tx.commit().ctx(&path)?;
        match self.place_if_staged()? {
            true => Ok(report),
            // Another index appeared at the path first: apply the delta to that one (which
            // refuses it unless it is at the delta's base generation).
            false => self.publish_delta(delta),
        }
    }
}

/// Write the generation; the flag is false when nothing was written (a no-op).
fn write_delta(
    tx: &Transaction<'_>,
    path: &Path,
    delta: &Delta,
    hook: &mut Option<crate::PublishHook>,
) -> Result<(PublishReport, bool), IndexError> {
    // Checked under the write lock: nobody can publish between this read and the commit.
    let generation = read_generation(tx, path)?;
    if generation != delta.base_generation {
        return Err(IndexError::GenerationMismatch {
            path: path.to_path_buf(),
            expected: delta.base_generation,
            found: generation,
        });
    }
    let meta = read_meta(tx, path)?;

    let mut plan = Plan::default();
    for owner in &delta.upsert_owners {
        match load_owner(tx, path, &owner.key)? {
            Some(s) if s.digest == owner.digest => plan.unchanged += 1,
            s => plan.to_write.push((owner, s)),
        }
    }
    for key in &delta.remove_owners {
        if let Some(s) = load_owner(tx, path, key)? {
            plan.removed.push((key.clone(), s));
        }
    }
    plan.removed.sort_by(|a, b| a.0.cmp(&b.0));
    for file in &delta.upsert_files {
        if load_file(tx, path, &file.path)?.as_ref() != Some(file) {
            plan.file_upserts.push(file);
        }
    }
    for p in &delta.remove_files {
        if load_file(tx, path, p)?.is_some() {
            plan.file_deletes.push(p.clone());
        }
    }
    plan.file_deletes.sort();

    if is_noop(&plan, generation, &meta, &delta.source_fingerprint, &delta.meta) {
        let report = PublishReport { generation, owners_unchanged: plan.unchanged, ..Default::default() };
        return Ok((report, false));
    }
    let next = generation + 1;
    let report = apply(tx, path, &plan, next, hook, None)?;
    // The owners table now holds the new generation's keys and digests.
    let digest = stored_graph_digest(tx, path)?;
    write_meta(tx, path, &delta.source_fingerprint, &delta.meta, &meta, next, &digest)?;
    Ok((report, true))
}

fn load_file(tx: &Transaction<'_>, path: &Path, file: &str) -> Result<Option<FileRecord>, IndexError> {
    tx.prepare_cached(
        "SELECT path, size, mtime_ns, ctime_ns, ino, racy, sha256, kind, status FROM files WHERE path = ?1",
    )
    .ctx(path)?
    .query_row([file], crate::query::file_from_row)
    .optional()
    .ctx(path)
}

/// [`crate::graph_digest`] of the owners as stored (inside the transaction: as about to be
/// committed), from a scan of their keys and digests in key order.
fn stored_graph_digest(tx: &Transaction<'_>, path: &Path) -> Result<String, IndexError> {
    let mut stmt = tx.prepare_cached("SELECT key, digest FROM owners ORDER BY key").ctx(path)?;
    let mut rows = stmt.query([]).ctx(path)?;
    let mut h = GraphHasher::new();
    let malformed = |e: rusqlite::types::FromSqlError| IndexError::Malformed {
        path: path.to_path_buf(),
        detail: format!("owner key or digest: {e}"),
    };
    while let Some(row) = rows.next().ctx(path)? {
        let key = row.get_ref(0).ctx(path)?.as_str().map_err(malformed)?;
        let digest = row.get_ref(1).ctx(path)?.as_blob().map_err(malformed)?;
        h.push(key, digest);
    }
    Ok(h.finish())
}
