//! Render status, fail closed. The cheap status reads the view's bounded receipt, stats the
//! sources and the outputs and lists the output directory (a file the render did not write
//! there makes it stale): it never opens the index, parses, renders, hashes an output or
//! writes. The deep status renders the view in memory from the published index and
//! compares every output's SHA-256 with the receipt and the files on disk; it writes nothing.

use crate::receipt::{declaration_sha256, receipt_path, RenderReceipt};
use crate::{render_view, Claims, RenderError};
use docforge_index::Index;
use docforge_project::{PathState, Project, View};
use docforge_workspace::receipts::read_verified;
use docforge_workspace::ReceiptState;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
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
    /// How the sources were checked.
    pub sources_checked: SourcesCheck,
}

fn verdict(
    view: &View,
    state: ReceiptState,
    reason: impl Into<String>,
    receipt: Option<RenderReceipt>,
) -> ViewStatus {
    ViewStatus {
        view_id: view.id.clone(),
        state,
        reason: reason.into(),
        receipt,
        sources_checked: SourcesCheck::NotReached,
    }
}

/// [`docforge_project::stat_beneath`], its failure as a state and a reason (`missing`,
/// `unsafe`, or `unverified` when it cannot be inspected).
fn stat_confined(
    root: &Path,
    rel: &str,
    dirs: &mut HashSet<PathBuf>,
    last_is_dir: bool,
) -> Result<std::fs::Metadata, (ReceiptState, String)> {
    use docforge_project::NotBeneath;
    docforge_project::stat_beneath(root, rel, last_is_dir, dirs).map_err(|e| match e {
        NotBeneath::Missing => (ReceiptState::Missing, format!("{rel} does not exist")),
        NotBeneath::Symlink(at) => (ReceiptState::Unsafe, format!("{at} is a symlink")),
        NotBeneath::WrongType(at) => {
            (ReceiptState::Unsafe, format!("{at} is not a regular file or directory"))
        }
        NotBeneath::Io(e) => (ReceiptState::Unverified, format!("{rel} cannot be inspected: {e}")),
    })
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

/// How the cheap status established that the sources are the ones the receipt binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourcesCheck {
    /// Not reached: the receipt decided the verdict.
    NotReached,
    /// The receipt's walk witness held ([`docforge_project::WalkWitness`]): no walk.
    Witness,
    /// The project was walked (the receipt has no witness, or it did not hold).
    Walk,
}

/// The cheap status of `view` (see the module documentation).
pub fn status(project: &Project, view: &View) -> ViewStatus {
    use ReceiptState::*;
    let path = receipt_path(&project.root, &view.id);
    let (receipt, written) = match read_verified::<RenderReceipt>(&project.root, &path) {
        Ok((r, s)) => (r, (s.dev, i128::from(s.mtime_ns))),
        Err(s) if s.state == Missing => {
            return verdict(
                view,
                Unverified,
                "no render receipt: the view was never rendered (`docforge render`)",
                None,
            )
        }
        // A receipt DocForge cannot vouch for (an older format, a changed byte): only a new
        // render writes one it can.
        Err(s) if s.state == Unverified => {
            let why = format!(
                "the render receipt: {}; render the view again (`docforge render --view {}`) to write a current one",
                s.reason, view.id
            );
            return verdict(view, s.state, why, None);
        }
        Err(s) => return verdict(view, s.state, format!("the render receipt: {}", s.reason), None),
    };
    if let Some((state, why, keep)) = early_verdict(project, view, &receipt) {
        return verdict(view, state, why, keep.then_some(receipt));
    }
    // The outputs and the sources are independent: each on its own thread.
    let (outputs, (sources, checked)) = std::thread::scope(|s| {
        let outputs = s.spawn(|| check_outputs(&project.root, view, &receipt, written));
        let sources = check_sources(project, &receipt);
        (outputs.join().expect("the output check does not panic"), sources)
    });
    let (state, why) = match outputs.or(sources) {
        Some(problem) => problem,
        None => (Current, "the sources and the outputs are the ones the receipt binds".to_string()),
    };
    let mut status = verdict(view, state, why, Some(receipt));
    status.sources_checked = checked;
    status
}

/// What the receipt alone decides: another project, root or view (`unverified`, the receipt
/// not given), another DocForge version or another declaration of the view (`stale`).
fn early_verdict(
    project: &Project,
    view: &View,
    receipt: &RenderReceipt,
) -> Option<(ReceiptState, &'static str, bool)> {
    use ReceiptState::*;
    if receipt.project_id != project.id
        || receipt.root != project.root.display().to_string()
        || receipt.view.id != view.id
        || receipt.receipt_kind != "render_publication"
    {
        return Some((Unverified, "the receipt belongs to another project, root or view", false));
    }
    if receipt.adapter_version != docforge_db::ENGINE_VERSION {
        return Some((Stale, "the receipt was written by another DocForge version", true));
    }
    if receipt.code != crate::receipt::code_fingerprint() {
        return Some((Stale, "the receipt was written by another build of DocForge", true));
    }
    if receipt.view.declaration_sha256 != declaration_sha256(view) {
        return Some((Stale, "the view's declaration in docforge.toml changed since the render", true));
    }
    None
}

/// The first problem with the view's output: of its files in the receipt's order (gone,
/// changed, a symlink or special file, or one on the way to them), else the first file the
/// render did not write. Every directory and file is stat'ed; a directory is listed only when
/// its stamp changed or was not older than the receipt (`written`: its device and
/// modification time), since an unchanged older one holds only what the render put there.
fn check_outputs(
    root: &Path,
    view: &View,
    receipt: &RenderReceipt,
    written: (u64, i128),
) -> Option<(ReceiptState, String)> {
    use ReceiptState::*;
    let output = view.output_dir();
    if let Err(problem) = stat_confined(root, &output, &mut HashSet::new(), true) {
        return Some(problem);
    }
    let at = |rel: &str| if rel.is_empty() { output.clone() } else { format!("{output}/{rel}") };
    // Paths inside the output, looked up from it (its own components were checked above).
    let base = root.join(&output);
    let reader = docforge_project::SourceReader::new(&base);
    // Each directory on the way to the outputs, with the first output below it.
    let mut below: HashMap<&str, usize> = HashMap::new();
    for (i, o) in receipt.outputs.iter().enumerate() {
        let mut p = o.path.as_str();
        while let Some((parent, _)) = p.rsplit_once('/') {
            below.entry(parent).or_insert(i);
            p = parent;
        }
    }
    let not_file = |rel: &str| not_a_file(root, rel);
    let mut problems: BTreeMap<usize, (ReceiptState, String)> = BTreeMap::new();
    let mut to_list = Vec::new();
    for d in &receipt.output_dirs {
        match reader.path_state(&d.path) {
            PathState::Dir(now) if now == d.stamp => {}
            PathState::Dir(_) => to_list.push(d.path.as_str()),
            // Its files are missing.
            PathState::Absent => {}
            PathState::File(_) | PathState::Other => {
                let i = below.get(d.path.as_str()).copied().unwrap_or(0);
                problems.entry(i).or_insert((Unsafe, not_file(&at(&d.path))));
            }
        }
    }
    for (i, o) in receipt.outputs.iter().enumerate() {
        let rel = at(&o.path);
        let problem = match reader.path_state(&o.path) {
            PathState::File(s) if s.file_stamp() == o.stamp() => continue,
            PathState::File(_) => (Stale, format!("{rel} changed since the render")),
            PathState::Absent => (Missing, format!("{rel} does not exist")),
            PathState::Dir(_) | PathState::Other => (Unsafe, not_file(&rel)),
        };
        problems.entry(i).or_insert(problem);
    }
    if let Some((_, problem)) = problems.into_iter().next() {
        return Some(problem);
    }
    // What may hold a file the render did not write: the directories that changed or were
    // written in the receipt's clock tick.
    let (dev, time) = written;
    for d in &receipt.output_dirs {
        if d.stamp.dev() != dev || !d.stamp.before(time) {
            to_list.push(d.path.as_str());
        }
    }
    let files: HashSet<&str> = receipt.outputs.iter().map(|o| o.path.as_str()).collect();
    let dirs: HashSet<&str> = receipt.output_dirs.iter().map(|d| d.path.as_str()).collect();
    let mut foreign: Option<String> = None;
    to_list.sort_unstable();
    to_list.dedup();
    for dir in to_list {
        let listed = match std::fs::read_dir(root.join(at(dir))) {
            Ok(listed) => listed,
            Err(e) => return Some((Unverified, format!("{} cannot be listed: {e}", at(dir)))),
        };
        for entry in listed {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => return Some((Unverified, format!("{} cannot be listed: {e}", at(dir)))),
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            if files.contains(rel.as_str()) || dirs.contains(rel.as_str()) || rel == crate::OUTPUT_MARKER {
                continue;
            }
            // A directory the render did not make holds a foreign file when it holds any file.
            let found = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                entries_below(root, &at(&rel))
                    .and_then(|e| e.into_iter().next())
                    .map(|f| format!("{rel}/{f}"))
            } else {
                Some(rel)
            };
            if let Some(f) = found.filter(|f| foreign.as_ref().is_none_or(|g| f < g)) {
                foreign = Some(f);
            }
        }
    }
    foreign.map(|f| (Stale, format!("{output}/{f} is not a file of the render")))
}

/// Whether the sources are the ones the receipt binds: every input as recorded, and the
/// project's sources as a whole (pages also show what other documents and the Go code say).
/// The receipt's walk witness stands for a walk when it holds.
fn check_sources(
    project: &Project,
    receipt: &RenderReceipt,
) -> (Option<(ReceiptState, String)>, SourcesCheck) {
    let reader = docforge_project::SourceReader::new(&project.root);
    let mut dirs = HashSet::new();
    if let Some(witness) = receipt.sources_witness.as_ref().filter(|w| w.holds(project, &reader)) {
        // Every directory the walk listed is still a real one: an input in one is stat'ed
        // alone; another (the claim outcomes, in the state directory) is checked whole.
        let listed: HashSet<&str> = witness.dirs.iter().map(|d| d.path.as_str()).collect();
        for input in &receipt.inputs {
            let parent = input.path.rsplit_once('/').map_or("", |(p, _)| p);
            let problem = if !listed.contains(parent) {
                check_input(project, input, &mut dirs)
            } else {
                let found = match reader.path_state(&input.path) {
                    PathState::File(s) => {
                        let s = s.file_stamp();
                        Ok((s.size, s.mtime_ns, s.ctime_ns))
                    }
                    PathState::Absent => Err((ReceiptState::Missing, String::new())),
                    PathState::Dir(_) | PathState::Other => {
                        Err((ReceiptState::Unsafe, not_a_file(&project.root, &input.path)))
                    }
                };
                judge_input(input, found)
            };
            if problem.is_some() {
                return (problem, SourcesCheck::Witness);
            }
        }
        return (None, SourcesCheck::Witness);
    }
    for input in &receipt.inputs {
        if let Some(problem) = check_input(project, input, &mut dirs) {
            return (Some(problem), SourcesCheck::Walk);
        }
    }
    let inventory = docforge_project::discover(project);
    if docforge_db::cheap_identity(&inventory) != receipt.source_identity {
        let why = "sources outside the view changed since the render (pages also show backlinks, the selection and symbol places)";
        return (Some((ReceiptState::Stale, why.into())), SourcesCheck::Walk);
    }
    (None, SourcesCheck::Walk)
}

/// Why `rel`, where a file should be, is not one.
fn not_a_file(root: &Path, rel: &str) -> String {
    match std::fs::symlink_metadata(root.join(rel)) {
        Ok(m) if m.file_type().is_symlink() => format!("{rel} is a symlink"),
        _ => format!("{rel} is not a regular file or directory"),
    }
}

/// Whether `input` is as the receipt recorded it.
fn check_input(
    project: &Project,
    input: &crate::receipt::InputFile,
    dirs: &mut HashSet<PathBuf>,
) -> Option<(ReceiptState, String)> {
    let found = stat_confined(&project.root, &input.path, dirs, false).map(|m| {
        let s = docforge_project::FileStamp::of(&m);
        (s.size, s.mtime_ns, s.ctime_ns)
    });
    judge_input(input, found)
}

/// The problem with `input`, found now with this size, modification and status-change time
/// (or this problem: `missing` for a file that is not there).
fn judge_input(
    input: &crate::receipt::InputFile,
    found: Result<(u64, i64, i64), (ReceiptState, String)>,
) -> Option<(ReceiptState, String)> {
    use ReceiptState::*;
    match found {
        // An input recorded as absent (no claim outcomes were recorded) is still absent.
        Err((Missing, _)) if input.sha256.is_empty() => None,
        Ok(stamp) if !input.sha256.is_empty() && stamp == (input.size, input.mtime_ns, input.ctime_ns) => {
            None
        }
        Ok(_) | Err((Missing, _)) => Some((Stale, format!("{} changed since the render", input.path))),
        Err(problem) => Some(problem),
    }
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
    let read = crate::project_reader(project);
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
        let disk = stat_confined(root, &format!("{output}/{p}"), &mut dirs, false)
            .ok()
            .and_then(|_| docforge_project::read_regular_file(&root.join(&output).join(p), u64::MAX).ok())
            .map(|b| hex::encode(Sha256::digest(b)));
        let ours = now.get(p);
        if ours.is_none() || receipt.get(p) != ours || disk.as_ref() != ours {
            differing.push(p.clone());
        }
    }
    Ok(DeepStatus { equivalent: differing.is_empty(), differing })
}
