//! `docforge_get_generation_diff`: pages of the one latest version-1 transition receipt.
//!
//! This status path never repairs: it does not open SQLite, analyse, parse, synchronise,
//! build or write. It proves `current` from the cheap source identity (a stat walk) and the
//! exact index and receipt file identities; anything else is an explicit state.

use super::context::{pack, ENVELOPE_RESERVE};
use super::{args, limit, Call};
use crate::cursor::{encode, hash_json};
use crate::reply::ToolError;
use docforge_db::receipt::{receipt_path, Receipt, MAX_RECEIPT_FILE_BYTES};
use docforge_db::{cheap_identity, ENGINE_VERSION};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// Page size (default and maximum: the project's max_results).
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// `current | stale | missing | unsafe | unverified | unknown`, with why.
pub struct Status {
    pub state: &'static str,
    pub reason: String,
    pub receipt: Option<Receipt>,
}

fn status(state: &'static str, reason: impl Into<String>) -> Status {
    Status { state, reason: reason.into(), receipt: None }
}

fn identity(m: &std::fs::Metadata) -> (u64, u64, u64, i64, i64) {
    (m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec())
}

/// Every component from the root down must be a real directory (no symlink) and the
/// receipt a regular file.
fn confined(root: &Path, path: &Path) -> Result<Option<std::fs::Metadata>, String> {
    let rel = path.strip_prefix(root).map_err(|_| "the receipt path leaves the project root".to_string())?;
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, c) in parts.iter().enumerate() {
        at.push(c);
        let m = match std::fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot inspect the receipt path: {e}")),
        };
        let last = i + 1 == parts.len();
        if m.file_type().is_symlink() || (last && !m.file_type().is_file()) || (!last && !m.is_dir()) {
            return Err("a receipt path component is a symlink or not the expected file type".into());
        }
        if last {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

pub fn receipt_status(call: &Call<'_>) -> Status {
    let b = &call.engine.binding;
    let root = &b.project.root;
    let path = receipt_path(&b.index_path);
    let before = match confined(root, &path) {
        Err(why) => return status("unsafe", why),
        Ok(None) => return status("missing", "no transition receipt has been published"),
        Ok(Some(m)) => m,
    };
    if before.len() > MAX_RECEIPT_FILE_BYTES {
        return status("unverified", "the receipt is larger than any receipt DocForge writes");
    }
    let Ok(bytes) = std::fs::read(&path) else {
        return status("unverified", "the receipt could not be read");
    };
    match std::fs::symlink_metadata(&path) {
        Ok(after) if identity(&after) == identity(&before) => {}
        _ => return status("unverified", "the receipt changed while it was read"),
    }
    let Ok(receipt) = serde_json::from_slice::<Receipt>(&bytes) else {
        return status("unverified", "the receipt is not a version-1 transition receipt");
    };
    if receipt.receipt_schema_version != 1 || receipt.compute_hash() != receipt.receipt_hash {
        return status("unverified", "the receipt hash does not match its content");
    }
    if receipt.project_id != call.server.project_id
        || receipt.root != call.server.root
        || receipt.adapter_version != ENGINE_VERSION
        || receipt.index_schema_version != docforge_index::SCHEMA_VERSION
    {
        return status("unverified", "the receipt belongs to another project, root, adapter or index schema");
    }
    let Some(source_identity) = receipt.to.source_identity.clone() else {
        return Status {
            state: "unknown",
            reason: "the receipt's generation has no cheap source identity (it came from editor buffers)"
                .into(),
            receipt: Some(receipt),
        };
    };
    match std::fs::metadata(&b.index_path) {
        Ok(m) if (m.dev(), m.ino()) == receipt.index_file => {}
        _ => return status("unverified", "the index file is not the one the receipt was written for"),
    }
    let inventory = docforge_project::discover(&b.project);
    let (state, reason) = if cheap_identity(&inventory) == source_identity {
        ("current", "the sources and the index file are the ones the receipt binds".to_string())
    } else {
        ("stale", "the sources changed since the receipt's generation".to_string())
    };
    Status { state, reason, receipt: Some(receipt) }
}

pub fn get_generation_diff(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: DiffArgs = args(a)?;
    let (page_size, clamped) = limit(a.limit, call.max_results())?;
    let st = receipt_status(call);
    if let Some(r) = &st.receipt {
        call.envelope.insert("revision".into(), json!(r.to.generation));
        call.envelope.insert("source_hash".into(), json!(r.to.source_fingerprint));
    }
    call.envelope.insert("staleness".into(), json!(st.state));
    let receipt = match (st.state, st.receipt) {
        ("current", Some(r)) => r,
        (state, _) => {
            return Ok(
                json!({ "page_schema_version": 1, "receipt_state": state, "reason": st.reason, "page": Value::Null }),
            )
        }
    };
    let mut header = serde_json::to_value(&receipt).expect("receipt serialises");
    let items: Vec<Value> = header["items"].as_array().cloned().unwrap_or_default();
    header.as_object_mut().expect("object").remove("items");
    header["stored_receipt_hash"] = json!(receipt.receipt_hash);
    let expect =
        call.cursor_for("docforge_get_generation_diff", &json!({}), &receipt.retained_collection_hash);
    let expect = crate::cursor::CursorV1 { generation: receipt.receipt_hash.clone(), ..expect };
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let pos = pos as usize;
    if pos > items.len() {
        return Err(ToolError::new("invalid_cursor", "cursor position is past the end")
            .remediation("restart_pagination"));
    }
    let header_bytes = header.to_string().len();
    let space = ((call.server.max_response_bytes as usize).saturating_sub(ENVELOPE_RESERVE) / 2)
        .saturating_sub(header_bytes);
    let (page, next) = pack(&items, pos, page_size, space);
    let (page_items, omissions): (Vec<Value>, Vec<Value>) =
        page.into_iter().partition(|i| i.get("type") != Some(&json!("omission")));
    let more = next < items.len();
    let pagination = json!({
        "returned": page_items.len() + omissions.len(),
        "retained_total": items.len(),
        "has_more": more,
        "next_cursor": more.then(|| encode(&crate::cursor::CursorV1 { position: next as u64, ..expect })),
        "details_permanently_omitted": receipt.retained.omitted,
        "limit_clamped": clamped,
    });
    let page_hash = hash_json(&json!([header, page_items, omissions, "current", pagination]));
    Ok(json!({
        "page_schema_version": 1,
        "receipt_state": "current",
        "receipt_header": header,
        "items": page_items,
        "omissions": omissions,
        "pagination": pagination,
        "page_hash": page_hash,
    }))
}
