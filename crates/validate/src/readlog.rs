//! What a scan read, so that the scan after evaluation in the same operation (the recheck)
//! can skip what provably did not change.
//!
//! Two levels, both resting on [`ReadStamp`]s settled before the operation began (see
//! `docforge_project::stamp` for why an unchanged settled stamp means unchanged content):
//!
//! - **The walk's result.** It depends on the project's configuration, the entries of every
//!   directory the walk listed, the ignore files it could read there (`.gitignore`, `.ignore`,
//!   `.git/info/exclude`), the size of every file classified by size alone, and the Go-side
//!   files read. When each of those still has its stamp (an absent ignore file is witnessed
//!   by its directory's entries), the scan would produce the same inventory, and the recheck
//!   is [`Recheck::Unchanged`] without walking. A symlink with a source-file name (classified
//!   through a target that may lie anywhere), a `.git` file (a worktree's exclude file lives
//!   elsewhere), a refused entry or a read error turns this level off.
//! - **Each file.** Otherwise the recheck walks again and reads every Go-side file, except a
//!   `.go` file whose settled stamp is unchanged: its selection and digest are kept.

use crate::validator::SourceState;
use docforge_go::FileSelection;
use docforge_project::{Config, PathState, Project, ReadStamp, SourceReader};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// The outcome of the scan after evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recheck {
    /// Nothing the first scan's inventory depends on changed (no walk was needed).
    Unchanged,
    /// A fresh scan (its fingerprint decides).
    Scanned(Box<SourceState>),
}

/// What a `.go` file read gave: its stamp before reading, its selection, its digest (empty
/// when not selected).
pub(crate) type Kept = (ReadStamp, FileSelection, String);

/// What one scan read: when it began, and for each `.go` file it read, the stamp taken
/// before reading and what the bytes gave (the selection, and the digest when selected).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadLog {
    pub(crate) began: Option<SystemTime>,
    pub(crate) files: HashMap<String, Kept>,
    /// The rest of what the walk's result depends on; `None` when it cannot be vouched for.
    pub(crate) walk: Option<WalkDeps>,
    /// How many Go-side files the scan read (the rest were stamp-checked or name-excluded).
    pub read: usize,
}

/// The walk's dependencies besides the `.go` files read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WalkDeps {
    root: PathBuf,
    config: Config,
    /// Paths that must still be in this state (every stamp in them settled).
    states: Vec<(String, PathState)>,
}

impl ReadLog {
    /// How many files a recheck may take from this log without reading them (those whose
    /// stamps are settled).
    #[cfg(test)]
    pub(crate) fn settled(&self) -> usize {
        let Some(began) = self.began else { return 0 };
        self.files.values().filter(|(s, _, _)| s.settled_before(began)).count()
    }

    /// Whether the recheck can skip the walk (every dependency was settled).
    #[cfg(test)]
    pub(crate) fn walk_vouched(&self) -> bool {
        self.walk.is_some()
    }

    /// The kept outcome of `rel` when its stamp, taken now, vouches for the bytes read.
    pub(crate) fn unchanged(&self, reader: &SourceReader, rel: &str) -> Option<Kept> {
        let began = self.began?;
        let (stamp, selection, digest) = self.files.get(rel)?;
        (stamp.settled_before(began) && reader.stamp(rel) == Some(*stamp))
            .then(|| (*stamp, selection.clone(), digest.clone()))
    }

    /// Whether nothing the walk's result and the files read depend on changed, checked on
    /// `threads` threads. `false` when this log cannot vouch for the walk.
    pub(crate) fn walk_unchanged(&self, project: &Project, reader: &SourceReader, threads: usize) -> bool {
        let Some(w) = &self.walk else { return false };
        if w.root != project.root || w.config != project.config {
            return false;
        }
        let files: Vec<(&str, PathState)> =
            self.files.iter().map(|(rel, (s, _, _))| (rel.as_str(), PathState::File(*s))).collect();
        let states: Vec<(&str, PathState)> = w.states.iter().map(|(rel, s)| (rel.as_str(), *s)).collect();
        let all = [files, states].concat();
        let chunk = all.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|s| {
            let parts: Vec<_> = all
                .chunks(chunk)
                .map(|part| s.spawn(move || part.iter().all(|(rel, state)| reader.path_state(rel) == *state)))
                .collect();
            parts.into_iter().all(|p| p.join().unwrap_or(false))
        })
    }
}

/// A dependency of the walk to examine.
pub(crate) enum Probe {
    /// A directory the walk listed: its entries and the ignore files it could read there.
    Dir(String),
    /// A file classified by its size alone.
    File(String),
    /// Something no stamp can vouch for (a refused entry).
    Unvouchable,
}

/// What a first scan gathers for [`WalkDeps`] (on each worker, then merged).
#[derive(Default)]
pub(crate) struct Deps {
    /// Paths and their settled states.
    states: Vec<(String, PathState)>,
    /// Something was met that cannot be vouched for (then the states do not matter).
    unvouchable: bool,
}

impl Deps {
    pub(crate) fn unvouchable(&mut self) {
        self.unvouchable = true;
    }

    pub(crate) fn merge(&mut self, other: Deps) {
        self.unvouchable |= other.unvouchable;
        if !self.unvouchable {
            self.states.extend(other.states);
        }
    }

    /// A Go-side file read with this stamp (`go.mod`, `go.work`).
    pub(crate) fn read(&mut self, rel: String, stamp: ReadStamp, began: SystemTime) {
        if stamp.settled_before(began) {
            self.states.push((rel, PathState::File(stamp)));
        } else {
            self.unvouchable = true;
        }
    }

    /// Examine `probe` now (any time after the operation began will do: a change after it
    /// leaves a stamp that is not settled).
    pub(crate) fn probe(&mut self, reader: &SourceReader, probe: &Probe, began: SystemTime) {
        if self.unvouchable {
            return;
        }
        let ok = match probe {
            Probe::Dir(dir) => self.dir(reader, dir, began).is_some(),
            Probe::File(rel) => self.need(reader, rel.clone(), began).is_some(),
            Probe::Unvouchable => false,
        };
        self.unvouchable |= !ok;
    }

    /// Record the settled state of `rel` (`None`: absent, unsettled or neither file nor
    /// directory).
    fn need(&mut self, reader: &SourceReader, rel: String, began: SystemTime) -> Option<()> {
        let state = reader.path_state(&rel);
        self.settled(rel, state, began)
    }

    /// Record `state` of `rel` when it is settled.
    fn settled(&mut self, rel: String, state: PathState, began: SystemTime) -> Option<()> {
        let settled = match state {
            PathState::File(s) | PathState::Dir(s) => s.settled_before(began),
            PathState::Absent | PathState::Other => false,
        };
        settled.then(|| self.states.push((rel, state)))
    }

    fn dir(&mut self, reader: &SourceReader, dir: &str, began: SystemTime) -> Option<()> {
        self.need(reader, dir.to_string(), began)?;
        for (rel, state) in docforge_project::ignore_witnesses(reader, dir)? {
            self.settled(rel, state, began)?;
        }
        Some(())
    }

    /// The walk's dependencies, when every one was settled and so is every `.go` file read.
    pub(crate) fn finish(
        self,
        project: &Project,
        began: SystemTime,
        files: &HashMap<String, Kept>,
    ) -> Option<WalkDeps> {
        if self.unvouchable || !files.values().all(|(s, _, _)| s.settled_before(began)) {
            return None;
        }
        Some(WalkDeps { root: project.root.clone(), config: project.config.clone(), states: self.states })
    }
}
