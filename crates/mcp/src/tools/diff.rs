//! `docforge_get_generation_diff`: pages of the one latest version-1 transition receipt.
//!
//! This status path never repairs: it does not open SQLite, analyse, parse, synchronise,
//! build or write. The binding's one fail-closed receipt reader
//! (`Workspace::generation_receipt`) proves `current` from the cheap source identity (a stat
//! walk) and the exact index and receipt file identities; anything else is an explicit state.

use super::context::{pack, ENVELOPE_RESERVE};
use super::{args, limit, Call};
use crate::cursor::{encode, hash_json};
use crate::reply::ToolError;
use docforge_workspace::ReceiptState;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// Page size (default and maximum: the project's max_results).
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

pub fn get_generation_diff(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: DiffArgs = args(a)?;
    let (page_size, clamped) = limit(a.limit, call.max_results())?;
    let st = call.engine.generation_receipt();
    if let Some(r) = &st.receipt {
        call.envelope.insert("revision".into(), json!(r.to.generation));
        call.envelope.insert("source_hash".into(), json!(r.to.source_fingerprint));
    }
    call.envelope.insert("staleness".into(), json!(st.state.as_str()));
    let receipt = match (st.state, st.receipt) {
        (ReceiptState::Current, Some(r)) => r,
        (state, _) => {
            return Ok(json!({
                "page_schema_version": 1, "receipt_state": state.as_str(), "reason": st.reason, "page": Value::Null,
            }))
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
