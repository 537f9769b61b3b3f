//! `docforge_get_context`: one deterministic stream per node — the node and its direct
//! neighbours first, explicit omission evidence second — packed into pages that respect both
//! the page limit and the response size limit. An entry that cannot fit even alone becomes
//! a hash-identified `response_limit` omission, so pagination always advances.

use super::graph::index_err;
use super::{args, limit, Call};
use crate::cursor::{encode, hash_json, CursorV1};
use crate::reply::ToolError;
use docforge_index::Direction;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    pub node_id: String,
    /// Page size (default and maximum: the project's max_results).
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// Bytes of every response kept for the envelope and the page receipt.
pub const ENVELOPE_RESERVE: usize = 4096;

/// Room for the page object around a context page's items (counts, hash, cursor).
const PAGE_OBJECT: usize = 1024;

/// Take items from `stream[pos..]` while they fit `limit` and `budget` bytes. An item that
/// does not fit an empty page is replaced by its omission and still advances.
pub fn pack(stream: &[Value], pos: usize, limit: usize, budget: usize) -> (Vec<Value>, usize) {
    let mut page = Vec::new();
    let mut used = 0;
    let mut at = pos;
    while at < stream.len() && page.len() < limit {
        let item = &stream[at];
        let size = item.to_string().len() + 1;
        if used + size > budget {
            if page.is_empty() {
                page.push(json!({
                    "type": "omission",
                    "id": item.get("id").cloned().unwrap_or(Value::Null),
                    "reason": "response_limit",
                    "item_hash": hash_json(item),
                    "item_bytes": size,
                    "remediation": "read the node directly with docforge_get_node",
                }));
                at += 1;
            }
            break;
        }
        used += size;
        page.push(item.clone());
        at += 1;
    }
    (page, at)
}

/// Bytes of a node's text an entry carries; the rest is read with `docforge_get_node`.
pub const ENTRY_TEXT_BYTES: usize = 2000;

fn entry(node: &docforge_model::Node, relation: Option<(&str, &str)>) -> Value {
    let mut e = json!({
        "type": "entry",
        "id": node.id,
        "kind": node.kind,
        "title": node.title,
        "path": node.location.as_ref().map(|l| &l.path),
        "via": relation.map(|(rel, dir)| json!({ "relation": rel, "direction": dir })),
        "content_hash": hash_json(&json!(node.text)),
    });
    cut_text(&mut e, "text", &node.id, &node.text, ENTRY_TEXT_BYTES);
    e
}

/// `item[key]` = the first `max` bytes of `text` (cut on a character boundary); when that is
/// not all of it, `text_truncated`, `text_bytes` and `read_rest` (the `docforge_get_node` call
/// that reads on from the cut) say so.
pub fn cut_text(item: &mut Value, key: &str, id: &str, text: &str, max: usize) {
    let end = super::graph::utf8_window(text.as_bytes(), 0, max);
    item[key] = json!(text[..end]);
    if end < text.len() {
        item["text_truncated"] = json!(true);
        item["text_bytes"] = json!(text.len());
        item["read_rest"] =
            json!({ "tool": "docforge_get_node", "arguments": { "node_id": id, "text_offset": end } });
    }
}

pub fn get_context(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: ContextArgs = args(a)?;
    super::graph::check_id(&a.node_id)?;
    let (page_size, clamped) = limit(a.limit, call.max_results())?;
    let cap = call.max_results() as usize;
    let index = call.engine.index();
    let focus = index
        .node_only(&a.node_id)
        .map_err(index_err)?
        .ok_or_else(|| super::graph::not_found(index, &a.node_id))?;
    // A project integration's provider selects the stream itself; it is paginated below.
    if let Some(provider) = call.server.integrations.context.clone() {
        let limits = crate::ContextLimits { max_results: cap, edge_budget: super::graph::EDGE_BUDGET };
        let mut stream = provider.context(&focus, &limits, index).map_err(|e| {
            ToolError::new("context_provider_failed", format!("the project's context provider failed: {e}"))
        })?;
        for (i, item) in stream.iter_mut().enumerate() {
            let ok = match item.get("type").and_then(Value::as_str) {
                Some("entry") => item.get("id").is_some_and(Value::is_string),
                // An omission names its item when it can (`id`: a string, else `null`).
                Some("omission") => {
                    item.get("reason").is_some_and(Value::is_string)
                        && item.get("id").is_none_or(|id| id.is_string() || id.is_null())
                }
                _ => false,
            };
            if ok && item.get("id").is_none() {
                item["id"] = Value::Null;
            }
            if !ok {
                return Err(ToolError::new(
                    "context_provider_failed",
                    format!("the project's context provider gave item {i} that is neither an entry with an `id` nor an omission with a `reason`"),
                ));
            }
        }
        let entries = stream.iter().filter(|i| i["type"] == "entry").count();
        return page_of(call, &a, stream, entries, clamped, page_size);
    }
    // Selection: the focus, then neighbours (outgoing, then incoming) up to the cap.
    let mut entries = vec![entry(&focus, None)];
    let mut omissions = Vec::new();
    let mut seen = std::collections::HashSet::from([focus.id.clone()]);
    for (dir, label) in [(Direction::Outgoing, "outgoing"), (Direction::Incoming, "incoming")] {
        let edges = index.neighbours(&focus.id, dir, super::graph::EDGE_BUDGET + 1).map_err(index_err)?;
        if edges.len() > super::graph::EDGE_BUDGET {
            omissions.push(
                json!({ "type": "omission", "id": Value::Null, "reason": "edge_budget", "direction": label }),
            );
        }
        for e in edges.iter().take(super::graph::EDGE_BUDGET) {
            if !seen.insert(e.id.clone()) {
                continue;
            }
            if entries.len() >= cap {
                omissions.push(json!({ "type": "omission", "id": e.id, "reason": "result_limit", "relation": e.relation }));
                continue;
            }
            match index.node_only(&e.id).map_err(index_err)? {
                Some(n) => entries.push(entry(&n, Some((&e.relation, label)))),
                None => omissions.push(json!({ "type": "omission", "id": e.id, "reason": "unresolved_target", "relation": e.relation })),
            }
        }
    }
    call.diag.count("rows_read", (entries.len() + omissions.len()) as u64);
    let total_entries = entries.len();
    let stream: Vec<Value> = entries.into_iter().chain(omissions).collect();
    page_of(call, &a, stream, total_entries, clamped, page_size)
}

/// One page of a context stream (the server's or a provider's), with its cursor.
fn page_of(
    call: &mut Call<'_>,
    a: &ContextArgs,
    stream: Vec<Value>,
    total_entries: usize,
    clamped: bool,
    page_size: usize,
) -> Result<Value, ToolError> {
    let collection = hash_json(&Value::Array(
        stream.iter().map(|i| json!([i["id"], i.get("content_hash"), i["reason"]])).collect(),
    ));
    let params = json!({ "node_id": a.node_id });
    let expect = CursorV1 { ..call.cursor_for("docforge_get_context", &params, &collection) };
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let pos = pos as usize;
    if pos > stream.len() {
        return Err(ToolError::new("invalid_cursor", "cursor position is past the end")
            .remediation("restart_pagination"));
    }
    // What the envelope leaves, less the page object around the items.
    let budget = call.budget.saturating_sub(PAGE_OBJECT);
    let (page, next) = pack(&stream, pos, page_size, budget);
    let more = next < stream.len();
    Ok(json!({
        "node_id": a.node_id,
        "items": page,
        "page": {
            "returned": page.len(),
            "total": stream.len(),
            "selected_entries": total_entries,
            "omissions": stream.len() - total_entries,
            "has_more": more,
            "next_cursor": more.then(|| encode(&CursorV1 { position: next as u64, ..expect })),
            "collection_hash": collection,
            "limit_clamped": clamped,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_item_advances_as_an_omission() {
        let stream = vec![
            json!({"id": "a", "text": "x".repeat(50)}),
            json!({"id": "b", "text": "y"}),
            json!({"id": "c"}),
        ];
        let (page, next) = pack(&stream, 0, 10, 30);
        assert_eq!(next, 1);
        assert_eq!(page[0]["reason"], "response_limit");
        assert_eq!(page[0]["item_hash"], hash_json(&stream[0]));
        let (page, next) = pack(&stream, 1, 10, 60);
        assert_eq!((page.len(), next), (2, 3));
        let (page, next) = pack(&stream, 1, 1, 60);
        assert_eq!((page.len(), next), (1, 2));
    }
}
