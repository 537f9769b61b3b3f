//! Hash-bound, versioned receipts: one state machine and one fail-closed reader.
//!
//! A receipt is evidence DocForge wrote about a derived state (an index publication, later a
//! render or a changeset). A reader never trusts it more than it can prove: the file must be
//! reached through real directories (no symlink), be a regular file within the size its
//! writer can produce, stay the same file while it is read, parse as the expected version and
//! carry the hash of its own canonical content. Anything less is a state with a reason —
//! never `current`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;

/// What a receipt proves about the state it describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptState {
    /// The receipt verifies and binds exactly the current sources and derived files.
    Current,
    /// The receipt verifies, but what it binds changed since.
    Stale,
    /// There is no receipt.
    Missing,
    /// The receipt is reached through a symlink or is not a regular file: not read.
    Unsafe,
    /// The receipt exists but cannot be trusted (unreadable, torn, another version, a hash
    /// that does not match, another project or index).
    Unverified,
    /// The receipt verifies but cannot prove currency either way.
    Unknown,
}

impl ReceiptState {
    /// Every state.
    pub const ALL: [ReceiptState; 6] = [
        ReceiptState::Current,
        ReceiptState::Stale,
        ReceiptState::Missing,
        ReceiptState::Unsafe,
        ReceiptState::Unverified,
        ReceiptState::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReceiptState::Current => "current",
            ReceiptState::Stale => "stale",
            ReceiptState::Missing => "missing",
            ReceiptState::Unsafe => "unsafe",
            ReceiptState::Unverified => "unverified",
            ReceiptState::Unknown => "unknown",
        }
    }
}

/// A verdict on a receipt, with why, and the receipt when it verified.
#[derive(Clone, Debug)]
pub struct ReceiptStatus<R> {
    pub state: ReceiptState,
    pub reason: String,
    pub receipt: Option<R>,
}

impl<R> ReceiptStatus<R> {
    pub fn new(state: ReceiptState, reason: impl Into<String>) -> Self {
        ReceiptStatus { state, reason: reason.into(), receipt: None }
    }

    pub fn with(state: ReceiptState, reason: impl Into<String>, receipt: R) -> Self {
        ReceiptStatus { state, reason: reason.into(), receipt: Some(receipt) }
    }
}

/// A receipt format: versioned, and carrying the hash of its own canonical content
/// ([`docforge_db::receipt::canonical_hash`]).
pub trait HashBound: DeserializeOwned + serde::Serialize {
    /// The version this build reads.
    const SCHEMA_VERSION: u32;
    /// The largest file a writer of this format produces; larger files are `unverified`.
    const MAX_FILE_BYTES: u64;
    fn schema_version(&self) -> u32;
    /// The field holding the receipt's own hash.
    fn hash_slot(&mut self) -> &mut String;
}

impl HashBound for docforge_db::receipt::Receipt {
    const SCHEMA_VERSION: u32 = 1;
    const MAX_FILE_BYTES: u64 = docforge_db::receipt::MAX_RECEIPT_FILE_BYTES;
    fn schema_version(&self) -> u32 {
        self.receipt_schema_version
    }
    fn hash_slot(&mut self) -> &mut String {
        &mut self.receipt_hash
    }
}

use docforge_project::FileStamp;

/// Every component from the root down must be a real directory (no symlink) and the receipt
/// a regular file; `Ok(None)` when something on the way does not exist.
fn confined(root: &Path, path: &Path) -> Result<Option<std::fs::Metadata>, String> {
    use docforge_project::NotBeneath;
    let rel = path.strip_prefix(root).map_err(|_| "the receipt path leaves the project root".to_string())?;
    let rel = rel.to_str().ok_or("the receipt path is not UTF-8")?;
    match docforge_project::stat_beneath(root, rel, false, &mut Default::default()) {
        Ok(m) => Ok(Some(m)),
        Err(NotBeneath::Missing) => Ok(None),
        Err(NotBeneath::Io(e)) => Err(format!("cannot inspect the receipt path: {e}")),
        Err(NotBeneath::Symlink(_) | NotBeneath::WrongType(_)) => {
            Err("a receipt path component is a symlink or not the expected file type".into())
        }
    }
}

/// Read and verify the receipt at `path` (under `root`). `Err` is the state it is in when it
/// cannot be trusted: `missing`, `unsafe` or `unverified`, with the reason.
pub fn read_verified<R: HashBound>(root: &Path, path: &Path) -> Result<(R, FileStamp), ReceiptStatus<R>> {
    read_verified_bytes(root, path).map(|(receipt, stamp, _)| (receipt, stamp))
}

/// [`read_verified`], with the bytes the receipt was parsed from (for a caller that records
/// which receipt file it used).
pub fn read_verified_bytes<R: HashBound>(
    root: &Path,
    path: &Path,
) -> Result<(R, FileStamp, Vec<u8>), ReceiptStatus<R>> {
    use ReceiptState::*;
    let before = match confined(root, path) {
        Err(why) => return Err(ReceiptStatus::new(Unsafe, why)),
        Ok(None) => return Err(ReceiptStatus::new(Missing, "no receipt has been written")),
        Ok(Some(m)) => m,
    };
    if before.len() > R::MAX_FILE_BYTES {
        return Err(ReceiptStatus::new(Unverified, "the receipt is larger than any receipt DocForge writes"));
    }
    let Ok(bytes) = docforge_project::read_regular_file(path, R::MAX_FILE_BYTES) else {
        return Err(ReceiptStatus::new(Unverified, "the receipt could not be read"));
    };
    match std::fs::symlink_metadata(path) {
        Ok(after) if FileStamp::of(&after) == FileStamp::of(&before) => {}
        _ => return Err(ReceiptStatus::new(Unverified, "the receipt changed while it was read")),
    }
    let Ok(mut receipt) = serde_json::from_slice::<R>(&bytes) else {
        return Err(ReceiptStatus::new(
            Unverified,
            format!("the receipt is not a version-{} receipt of its kind", R::SCHEMA_VERSION),
        ));
    };
    let computed = docforge_db::receipt::canonical_hash(&mut receipt, R::hash_slot);
    if receipt.schema_version() != R::SCHEMA_VERSION || computed != *receipt.hash_slot() {
        return Err(ReceiptStatus::new(Unverified, "the receipt hash does not match its content"));
    }
    Ok((receipt, FileStamp::of(&before), bytes))
}
