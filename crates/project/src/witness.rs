//! A walk's witness: what lets a later process tell, without walking, that a walk of the
//! project would classify exactly the files one walk classified, with the same stamps.
//!
//! A walk's result depends on the configuration, on the entries of every directory it
//! listed, on the ignore files it read there, and on each classified file's stamp. The
//! witness records all of them: the configuration's hash; per directory its stamp and its
//! entries (name and type; hidden names and derived directories are left out, as the walk
//! never enters them, except the `.git`, `.gitignore` and `.ignore` it consults); the state
//! of each ignore file read
//! ([`ignore_witnesses`]); each classified file's stamp.
//!
//! It is taken between two walks that must agree ([`take`]): a change while it is taken
//! makes them differ, and then there is no witness. Later, [`WalkWitness::holds`] compares:
//! a directory whose stamp is unchanged and was settled when the witness was taken (see
//! `stamp.rs`: its times then lie before any change after it) is not listed again; a
//! directory whose stamp was not settled, or that holds a derived directory (DocForge's own
//! writes change its stamp), is listed and its entries compared with the ones recorded for
//! it; another settled directory whose stamp changed does not hold (its entries changed). A symlink with a source-file name
//! (classified through its target), a refused entry or a walk error leaves no witness.

use crate::discover::{walk, Inventory, Seen};
use crate::{EntryStatus, FileStamp, PathState, Project, SourceReader};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One directory the walk listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirWitness {
    /// Project-relative (`""`: the root).
    pub path: String,
    pub stamp: PathState,
    /// Its entries as `d:NAME`, `f:NAME`, `l:NAME` (symlink) or `o:NAME`, sorted; recorded
    /// only when its stamp was not settled (a settled stamp stands for them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<String>>,
}

/// See the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkWitness {
    /// SHA-256 of the `docforge.toml` text the walk ran under.
    pub config_sha256: String,
    /// When the witness began to be taken, in nanoseconds since the epoch.
    pub taken_ns: i64,
    pub dirs: Vec<DirWitness>,
    /// The ignore files read and the witnesses of their absence ([`ignore_witnesses`]).
    pub ignore_files: Vec<(String, PathState)>,
    /// Every classified file with a stamp.
    pub files: Vec<(String, FileStamp)>,
}

fn config_sha256(project: &Project) -> String {
    hex::encode(Sha256::digest(project.config_text.as_bytes()))
}

/// The paths whose states stand for the ignore rules a walk reads in directory `dir`, with
/// their states now: each ignore file present (`.gitignore`, `.ignore`), and for a directory
/// holding a `.git` directory its `info/exclude` or, when that is absent, the innermost
/// existing directory on the way to it (which would gain an entry if it appeared). An absent
/// ignore file needs none: its creation changes `dir`'s entries. `None` when the rules
/// cannot be witnessed: a `.git` file (a worktree's exclude file lives elsewhere), or an
/// ignore file, `.git/info` or `.git` that is a symlink or not of its kind (the rules would
/// be read through a target no stamp here covers).
pub fn ignore_witnesses(reader: &SourceReader, dir: &str) -> Option<Vec<(String, PathState)>> {
    let at = |name: &str| if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
    let mut out = Vec::new();
    for name in [".gitignore", ".ignore"] {
        match reader.path_state(&at(name)) {
            PathState::Absent => {}
            // The rules are read through a symlink: no stamp here covers its target.
            state @ PathState::File(_) => out.push((at(name), state)),
            PathState::Dir(_) | PathState::Other => return None,
        }
    }
    match reader.path_state(&at(".git")) {
        PathState::Absent => {}
        git @ PathState::Dir(_) => {
            // Outer first, so that nothing is looked up through a symlink.
            let info = reader.path_state(&at(".git/info"));
            let exclude = reader.path_state(&at(".git/info/exclude"));
            let (witness, state) = match (info, exclude) {
                (PathState::Absent, _) => (".git", git),
                (PathState::Dir(_), PathState::Absent) => (".git/info", info),
                (PathState::Dir(_), PathState::File(_)) => (".git/info/exclude", exclude),
                _ => return None,
            };
            out.push((at(witness), state));
        }
        _ => return None,
    }
    Some(out)
}

/// The entries of directory `rel` as a witness records them (`None`: it cannot be listed):
/// not the ones a walk never enters by name (hidden entries but the ignore files and `.git`,
/// and the derived directories: the state directory, view outputs, proposal roots — as
/// directories; a file at such a path is an entry like any other).
fn entries(project: &Project, derived: &[String], rel: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(project.root.join(rel)).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && !matches!(&*name, ".git" | ".gitignore" | ".ignore") {
            continue;
        }
        let t = entry.file_type().ok()?;
        let path = if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
        // The walk skips a derived directory, not a file at a derived path.
        if t.is_dir() && derived.contains(&path) {
            continue;
        }
        let tag = if t.is_symlink() {
            'l'
        } else if t.is_dir() {
            'd'
        } else if t.is_file() {
            'f'
        } else {
            'o'
        };
        out.push(format!("{tag}:{name}"));
    }
    out.sort();
    Some(out)
}

/// One walk's inventory and the directories it listed; `None` when something it met cannot
/// be witnessed.
fn walk_listing(project: &Project) -> (Inventory, Option<Vec<String>>) {
    let mut entries = Vec::new();
    let mut dirs = Vec::new();
    let mut vouchable = true;
    let errors = walk(project, None, |e| entries.push(e), &mut |seen| match seen {
        Seen::Dir(rel) => dirs.push(rel.to_string()),
        Seen::Symlink(_) => vouchable = false,
        Seen::Link(_) => {}
    });
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    dirs.sort();
    vouchable &= errors.is_empty()
        && entries.iter().all(|e| e.stamp.is_some() || !matches!(e.status, EntryStatus::Refused(_)));
    let inventory = Inventory { entries, errors, symlinks: Vec::new(), surroundings: Default::default() };
    (inventory, vouchable.then_some(dirs))
}

fn nanos(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64)
}

/// Walk the project and take its witness (see the module documentation). The inventory is
/// the walk's, as [`crate::discover`] gives it except for its [`crate::Surroundings`] (left
/// empty). The witness is `None` when the two walks differ or something cannot be witnessed.
pub fn take(project: &Project) -> (Inventory, Option<WalkWitness>) {
    let began = SystemTime::now();
    let (first, dirs) = walk_listing(project);
    let Some(dirs) = dirs else { return (first, None) };
    let reader = SourceReader::new(&project.root);
    let mut witness = WalkWitness {
        config_sha256: config_sha256(project),
        taken_ns: nanos(began),
        dirs: Vec::with_capacity(dirs.len()),
        ignore_files: Vec::new(),
        files: first.entries.iter().filter_map(|e| Some((e.rel.clone(), e.stamp?))).collect(),
    };
    let derived = project.config.derived_dirs();
    // A directory holding a derived one changes whenever DocForge writes there: its entries
    // are kept whatever its stamp.
    let holds_derived = |dir: &str| derived.iter().any(|d| d.rsplit_once('/').map_or("", |(p, _)| p) == dir);
    for dir in dirs {
        // The stamp before the entries: a change after it changes the stamp.
        let stamp = reader.path_state(&dir);
        let (PathState::Dir(s), Some(listed), Some(ignores)) =
            (stamp, entries(project, &derived, &dir), ignore_witnesses(&reader, &dir))
        else {
            return (first, None);
        };
        witness.ignore_files.extend(ignores);
        let entries = (!s.settled_before(began) || holds_derived(&dir)).then_some(listed);
        witness.dirs.push(DirWitness { path: dir, stamp, entries });
    }
    let (second, again) = walk_listing(project);
    let same_dirs = again.is_some_and(|d| d.iter().eq(witness.dirs.iter().map(|w| &w.path)));
    if !same_dirs || second != first {
        return (second, None);
    }
    (second, Some(witness))
}

impl WalkWitness {
    /// Leave out the files `covered` says the caller records and checks itself (with at
    /// least their size and modification time): [`WalkWitness::holds`] then no longer vouches
    /// for them.
    pub fn leave_out(&mut self, covered: impl Fn(&str, &FileStamp) -> bool) {
        self.files.retain(|(rel, stamp)| !covered(rel, stamp));
    }

    /// Whether a walk of `project` now would classify exactly the files the witnessed walk
    /// did, with the same stamps (see the module documentation; files left out excepted).
    pub fn holds(&self, project: &Project, reader: &SourceReader) -> bool {
        if self.config_sha256 != config_sha256(project) {
            return false;
        }
        let taken = UNIX_EPOCH + Duration::from_nanos(self.taken_ns.max(0) as u64);
        let derived = project.config.derived_dirs();
        let dirs = self.dirs.iter().all(|d| {
            let now = reader.path_state(&d.path);
            let PathState::Dir(recorded) = d.stamp else { return false };
            match (now, &d.entries) {
                (PathState::Dir(_), _) if now == d.stamp && recorded.settled_before(taken) => true,
                (PathState::Dir(_), Some(listed)) => {
                    entries(project, &derived, &d.path).as_ref() == Some(listed)
                }
                _ => false,
            }
        });
        dirs && self.ignore_files.iter().all(|(rel, state)| reader.path_state(rel) == *state)
            && self.files.iter().all(|(rel, stamp)| match reader.path_state(rel) {
                PathState::File(s) => s.file_stamp() == *stamp,
                _ => false,
            })
    }
}
