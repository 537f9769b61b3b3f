//! Multi-file transactions: every file of a set replaced (or created, or removed), or none —
//! across a crash of the process at any point.
//!
//! [`ProjectWriter::commit`] reads every target's current bytes and checks them against what
//! the caller expects, then records a journal (its path is the caller's, under the root) in
//! state `staging` naming every target, the staged new file beside it and the backup of its
//! old bytes. It writes the staged files and the backups (each fsynced), rewrites the journal
//! in state `committing`, renames each staged file into place (or removes the target) and
//! fsyncs each directory, then marks the journal `committed`, removes the backups and the
//! journal. Before each rename the target is read again: if it changed since it was checked,
//! everything already placed is rolled back and the commit fails with
//! [`TransactionError::Changed`].
//!
//! [`ProjectWriter::recover`] finishes what a killed commit left: in `staging` it removes the
//! staged files and backups (no target was touched); in `committing` it rolls every target
//! back to its old bytes (a target that holds neither its old nor its new bytes is never
//! overwritten: recovery then stops with [`TransactionError::Unrecoverable`] and keeps the
//! journal and every backup); in `committed` it only cleans up. So after `kill -9` at any
//! point the targets hold every old file or every new one, never a mix, once recovery ran.

use crate::write::{create_synced, read_with_mode_at, ProjectWriter, WriteError};
use rustix::fs::{fsync, renameat, unlinkat, AtFlags};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The journal format's version.
pub const JOURNAL_VERSION: u32 = 1;

/// One file of a transaction.
#[derive(Clone, Debug)]
pub struct Change {
    /// The project-relative target.
    pub path: String,
    /// The new bytes; `None` removes the target.
    pub after: Option<Vec<u8>>,
    /// What the target must hold when the transaction commits: `Some(None)` — nothing;
    /// `Some(Some(sha256 hex))` — exactly those bytes; `None` — anything (recorded as found).
    pub expect: Option<Option<String>>,
}

/// A transaction that was refused, failed or could not be recovered.
#[derive(Debug, thiserror::Error)]
pub enum TransactionError {
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{path} changed since it was read (expected {expected}, found {found}); nothing was written")]
    Changed { path: String, expected: String, found: String },
    #[error("{path} appears twice in one transaction; refused")]
    Duplicate { path: String },
    #[error("a transaction journal is pending at {journal}; recover it first")]
    Pending { journal: String },
    #[error("the journal at {journal} cannot be read: {message}")]
    BadJournal { journal: String, message: String },
    #[error(
        "{path} holds neither its old nor its new bytes; recovery stopped, the journal and backups are kept"
    )]
    Unrecoverable { path: String },
    /// Only from [`ProjectWriter::commit_interrupted`]: the commit stopped as a crash would.
    #[error("interrupted after {steps} steps")]
    Interrupted { steps: usize },
    /// [`ProjectWriter::commit_verified`]: the placed files did not pass the caller's check;
    /// every target holds its old bytes again.
    #[error("{0}; every file was rolled back")]
    Verification(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum State {
    Staging,
    Committing,
    Committed,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    target: String,
    /// The staged new file (beside the target); `None`: the target is removed.
    staged: Option<String>,
    /// The copy of the old bytes (beside the target); `None`: the target did not exist.
    backup: Option<String>,
    before_sha256: Option<String>,
    after_sha256: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    version: u32,
    id: String,
    state: State,
    entries: Vec<Entry>,
    /// The directories the commit creates for new files (none of them was there when it
    /// began), parents first: removed again, when empty, if the commit is undone.
    #[serde(default)]
    created_dirs: Vec<String>,
}

/// What [`ProjectWriter::recover`] found and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// No journal: nothing to do.
    Clean,
    /// A commit had not placed anything; its staged files were removed.
    Discarded,
    /// A commit was interrupted while placing files; every target holds its old bytes again.
    RolledBack,
    /// A commit had placed every file; only its backups were left and are removed.
    Completed,
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn show(h: &Option<String>) -> String {
    h.as_ref().map_or_else(|| "nothing".to_string(), |h| format!("sha256 {}", &h[..12]))
}

/// `dir/name` split at the last `/`.
fn sibling(target: &str, suffix: &str, id: &str) -> String {
    let (dir, name) = target.rsplit_once('/').map_or(("", target), |(d, n)| (d, n));
    let file = format!(".{name}.{id}.{suffix}");
    if dir.is_empty() {
        file
    } else {
        format!("{dir}/{file}")
    }
}

fn new_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("txn-{}-{nanos}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

impl ProjectWriter {
    /// Replace, create or remove every file of `changes` as one transaction journaled at
    /// `journal` (project-relative). Fails with [`TransactionError::Pending`] while an earlier
    /// journal is there.
    pub fn commit(&self, journal: &str, changes: &[Change]) -> Result<(), TransactionError> {
        self.commit_steps(journal, changes, usize::MAX, &|| Ok(()))
    }

    /// [`ProjectWriter::commit`] that runs `verify` once every file is in place, before the
    /// commit is final: when it fails (or the process dies while it runs) every target is
    /// rolled back, as for a crash before the last step.
    pub fn commit_verified(
        &self,
        journal: &str,
        changes: &[Change],
        verify: &dyn Fn() -> Result<(), String>,
    ) -> Result<(), TransactionError> {
        self.commit_steps(journal, changes, usize::MAX, verify)
    }

    /// [`ProjectWriter::commit`] that stops after `steps` durable steps (each staged file,
    /// journal state and placement is one), leaving the files as a killed process would.
    #[doc(hidden)]
    pub fn commit_interrupted(
        &self,
        journal: &str,
        changes: &[Change],
        steps: usize,
        verify: &dyn Fn() -> Result<(), String>,
    ) -> Result<(), TransactionError> {
        self.commit_steps(journal, changes, steps, verify)
    }

    fn read_target(&self, rel: &str) -> Result<Option<Vec<u8>>, WriteError> {
        Ok(self.read_target_with_mode(rel)?.map(|(bytes, _)| bytes))
    }

    /// [`ProjectWriter::read_target`], with the permission bits a file replacing it gets.
    fn read_target_with_mode(&self, rel: &str) -> Result<Option<(Vec<u8>, u32)>, WriteError> {
        let parts = self.components(rel)?;
        let dir = self.parent(rel, &parts, false);
        let dir = match dir {
            Ok(d) => d,
            Err(WriteError::Io { .. }) if !self.root.join(rel).parent().is_some_and(|p| p.exists()) => {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        let name = parts[parts.len() - 1];
        self.check_target(&dir, rel, name)?;
        read_with_mode_at(&dir, name).map_err(|e| self.io(rel, e))
    }

    fn write_journal(&self, rel: &str, j: &Journal) -> Result<(), WriteError> {
        let bytes = serde_json::to_vec_pretty(j).expect("journal serialises");
        self.write(rel, &bytes, crate::write::Durability::Durable).map(|_| ())
    }

    fn commit_steps(
        &self,
        journal: &str,
        changes: &[Change],
        budget: usize,
        verify: &dyn Fn() -> Result<(), String>,
    ) -> Result<(), TransactionError> {
        if self.read_target(journal)?.is_some() {
            return Err(TransactionError::Pending { journal: journal.to_string() });
        }
        let mut seen = std::collections::BTreeSet::new();
        for c in changes {
            if !seen.insert(c.path.as_str()) {
                return Err(TransactionError::Duplicate { path: c.path.clone() });
            }
        }
        let id = new_id();
        let mut entries = Vec::with_capacity(changes.len());
        let mut befores = Vec::with_capacity(changes.len());
        // Each target's permission bits: its new bytes and its backup keep them.
        let mut modes = Vec::with_capacity(changes.len());
        for c in changes {
            let (before, mode) = self.read_target_with_mode(&c.path)?.unzip();
            modes.push(mode);
            let before_sha256 = before.as_deref().map(sha);
            if let Some(expected) = &c.expect {
                if *expected != before_sha256 {
                    return Err(TransactionError::Changed {
                        path: c.path.clone(),
                        expected: show(expected),
                        found: show(&before_sha256),
                    });
                }
            }
            entries.push(Entry {
                target: c.path.clone(),
                staged: c.after.as_ref().map(|_| sibling(&c.path, "new", &id)),
                backup: before.as_ref().map(|_| sibling(&c.path, "old", &id)),
                before_sha256,
                after_sha256: c.after.as_deref().map(sha),
            });
            befores.push(before);
        }
        let created_dirs = self.missing_dirs(changes);
        let mut j = Journal { version: JOURNAL_VERSION, id, state: State::Staging, entries, created_dirs };
        let mut steps = 0usize;
        let mut step = || {
            steps += 1;
            if steps > budget {
                Err(TransactionError::Interrupted { steps: budget })
            } else {
                Ok(())
            }
        };
        step()?;
        self.write_journal(journal, &j)?;
        let staged = (|| -> Result<(), TransactionError> {
            for (((e, c), before), mode) in j.entries.iter().zip(changes).zip(&befores).zip(&modes) {
                if let (Some(b), Some(bytes)) = (&e.backup, before) {
                    step()?;
                    self.create_beside(b, bytes, *mode)?;
                }
                if let (Some(s), Some(bytes)) = (&e.staged, &c.after) {
                    step()?;
                    self.create_beside(s, bytes, *mode)?;
                }
            }
            Ok(())
        })();
        if let Err(e) = staged {
            if !matches!(e, TransactionError::Interrupted { .. }) {
                let _ = self.recover(journal);
            }
            return Err(e);
        }
        j.state = State::Committing;
        step()?;
        self.write_journal(journal, &j)?;
        for e in &j.entries {
            let placed = self.place(e, &mut step);
            match placed {
                Ok(()) => {}
                Err(err @ TransactionError::Interrupted { .. }) => return Err(err),
                Err(err) => {
                    self.recover(journal)?;
                    return Err(err);
                }
            }
        }
        // Every file is in place and the journal still says `committing`: a check that fails
        // here, like a crash, rolls everything back.
        step()?;
        if let Err(why) = verify() {
            self.recover(journal)?;
            return Err(TransactionError::Verification(why));
        }
        j.state = State::Committed;
        step()?;
        if let Err(e) = self.write_journal(journal, &j) {
            // Not final without it: undo now rather than leave it to the next process.
            self.recover(journal)?;
            return Err(e.into());
        }
        step()?;
        self.clean_up(journal, &j, false);
        Ok(())
    }

    fn create_beside(&self, rel: &str, bytes: &[u8], mode: Option<u32>) -> Result<(), WriteError> {
        let parts = self.components(rel)?;
        let dir = self.parent(rel, &parts, true)?;
        create_synced(&dir, parts[parts.len() - 1], bytes, mode).map_err(|e| self.io(rel, e))
    }

    /// Put one entry in place after checking its target still holds the old bytes.
    fn place(
        &self,
        e: &Entry,
        step: &mut impl FnMut() -> Result<(), TransactionError>,
    ) -> Result<(), TransactionError> {
        step()?;
        let now = self.read_target(&e.target)?.as_deref().map(sha);
        if now != e.before_sha256 {
            return Err(TransactionError::Changed {
                path: e.target.clone(),
                expected: show(&e.before_sha256),
                found: show(&now),
            });
        }
        if e.staged.is_none() && e.before_sha256.is_none() {
            // Nothing to remove, nothing to place.
            return Ok(());
        }
        // The directory is there: the staged file is beside the target, or the target is.
        let parts = self.components(&e.target)?;
        let dir = self.parent(&e.target, &parts, false)?;
        let name = parts[parts.len() - 1];
        let io = |err: rustix::io::Errno| self.io(&e.target, err);
        match &e.staged {
            Some(s) => renameat(&dir, base(s), &dir, name).map_err(io)?,
            None if e.before_sha256.is_some() => unlinkat(&dir, name, AtFlags::empty()).map_err(io)?,
            None => {}
        }
        fsync(&dir).map_err(io)?;
        Ok(())
    }

    /// Remove the journal's staged files and backups, then (when `undone`) the directories
    /// the commit created, then the journal (best effort: what cannot be removed is a hidden
    /// file beside its target, or a directory someone else's file is in).
    fn clean_up(&self, journal: &str, j: &Journal, undone: bool) {
        for e in &j.entries {
            for f in [&e.staged, &e.backup].into_iter().flatten() {
                self.remove(f);
            }
        }
        if undone {
            self.remove_created_dirs(j);
        }
        self.remove(journal);
    }

    fn remove(&self, rel: &str) {
        let Ok(parts) = self.components(rel) else { return };
        if let Ok(dir) = self.parent(rel, &parts, false) {
            if unlinkat(&dir, parts[parts.len() - 1], AtFlags::empty()).is_ok() {
                let _ = fsync(&dir);
            }
        }
    }

    /// Finish what an interrupted [`ProjectWriter::commit`] left at `journal` (see the module
    /// documentation). Every process that may write the files of a transaction runs this
    /// before anything else.
    pub fn recover(&self, journal: &str) -> Result<Recovery, TransactionError> {
        let bad = |message: String| TransactionError::BadJournal { journal: journal.to_string(), message };
        // A process killed while it replaced the journal leaves that write's temporary file.
        self.sweep_temporaries(journal);
        let Some(bytes) = self.read_target(journal)? else { return Ok(Recovery::Clean) };
        let j: Journal = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        if j.version != JOURNAL_VERSION {
            return Err(bad(format!("version {} (this build reads {JOURNAL_VERSION})", j.version)));
        }
        let outcome = match j.state {
            State::Staging => Recovery::Discarded,
            State::Committed => Recovery::Completed,
            State::Committing => {
                // Every entry is judged before anything is written: one that holds neither its
                // old nor its new bytes stops recovery with nothing changed.
                let mut back = Vec::new();
                for e in &j.entries {
                    if self.needs_roll_back(e)? {
                        back.push(e);
                    }
                }
                for e in back {
                    self.roll_back(e)?;
                }
                Recovery::RolledBack
            }
        };
        // The directories before the journal: a crash in between leaves the journal, and the
        // next recovery removes them.
        self.clean_up(journal, &j, outcome != Recovery::Completed);
        Ok(outcome)
    }

    /// The directories above the new files of `changes` that are not there yet, parents first.
    fn missing_dirs(&self, changes: &[Change]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in changes.iter().filter(|c| c.after.is_some()) {
            let mut dir = String::new();
            let parents = c.path.rsplit_once('/').map_or("", |(d, _)| d);
            for part in parents.split('/').filter(|p| !p.is_empty()) {
                if !dir.is_empty() {
                    dir.push('/');
                }
                dir.push_str(part);
                let missing = matches!(
                    std::fs::symlink_metadata(self.root.join(&dir)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound
                );
                if missing && !out.contains(&dir) {
                    out.push(dir.clone());
                }
            }
        }
        out
    }

    /// Remove the directories an undone commit created, deepest first, each only if empty
    /// (what another writer put there meanwhile stays, with its directory).
    fn remove_created_dirs(&self, j: &Journal) {
        for dir in j.created_dirs.iter().rev() {
            let Ok(parts) = self.components(dir) else { continue };
            if let Ok(parent) = self.parent(dir, &parts, false) {
                if unlinkat(&parent, parts[parts.len() - 1], AtFlags::REMOVEDIR).is_ok() {
                    let _ = fsync(&parent);
                }
            }
        }
    }

    /// Whether an entry of an interrupted commit was placed (and must go back). One whose
    /// staged file is still there was never placed: its target is not the commit's, whatever
    /// it holds now. A placed one must hold its new bytes (or its old ones: already back).
    fn needs_roll_back(&self, e: &Entry) -> Result<bool, TransactionError> {
        if let Some(staged) = &e.staged {
            if self.read_target(staged)?.is_some() {
                return Ok(false);
            }
        }
        let now = self.read_target(&e.target)?.as_deref().map(sha);
        if now == e.before_sha256 {
            return Ok(false);
        }
        if now != e.after_sha256 {
            return Err(TransactionError::Unrecoverable { path: e.target.clone() });
        }
        Ok(true)
    }

    fn roll_back(&self, e: &Entry) -> Result<(), TransactionError> {
        // The directory is there: the backup is beside the target, or the placed target is.
        let parts = self.components(&e.target)?;
        let dir = self.parent(&e.target, &parts, false)?;
        let name = parts[parts.len() - 1];
        let io = |err: rustix::io::Errno| self.io(&e.target, err);
        match &e.backup {
            Some(b) => renameat(&dir, base(b), &dir, name).map_err(io)?,
            None => unlinkat(&dir, name, AtFlags::empty()).map_err(io)?,
        }
        fsync(&dir).map_err(io)?;
        Ok(())
    }
}

fn base(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, n)| n)
}
