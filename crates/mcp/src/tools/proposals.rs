//! The proposal tools: changesets an agent creates, fills, validates, diffs, rebases and
//! abandons. Every decision is `docforge_proposals`'; this module decodes arguments, binds
//! the call's generation and the process's writer, and fits results to the response limit
//! (pages, operation summaries, `canonical_json_chunk` pages, compact receipts).

use super::pages::{self, ascii_canonical, chunk_page, next_cursor, take_fitting};
use super::{args, limit, Call};
use crate::cursor::{self, CursorV1};
use crate::reply::ToolError;
use docforge_proposals::{
    Changeset, NodeCreate, NodeDelete, NodeMove, NodeUpdate, Operation, ProposalError, Proposals,
    RelationshipUpdate, Status,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

impl From<ProposalError> for ToolError {
    fn from(e: ProposalError) -> Self {
        let mut t = ToolError::new(e.code, e.message);
        t.remediation = e.remediation;
        if !e.details.is_empty() {
            t.details = Some(Value::Object(e.details));
        }
        t
    }
}

fn with<R>(
    call: &mut Call<'_>,
    f: impl FnOnce(&Proposals<'_>) -> Result<R, ProposalError>,
) -> Result<R, ToolError> {
    let p = Proposals::of(
        call.engine,
        &call.generation,
        call.server.opts.proposal_writer.as_deref(),
        std::time::SystemTime::now(),
    );
    f(&p).map_err(ToolError::from)
}

fn disabled() -> ToolError {
    ToolError::new(
        "proposal_access_disabled",
        "this server was started without --proposal-writer: changesets can be read, validated and diffed, not changed",
    )
    .remediation("restart the server with --proposal-writer WRITER_ID")
}

/// Refuse before anything is written when even the smallest success receipt could not be
/// answered (the mutation would commit and its result could not be told).
fn preflight(call: &Call<'_>, outcome: &str) -> Result<(), ToolError> {
    if call.server.opts.proposal_writer.is_none() {
        return Err(disabled());
    }
    preflight_receipt(call, outcome)
}

/// The preflight of every write (a preview needs no writer): the minimum receipt must fit.
fn preflight_receipt(call: &Call<'_>, outcome: &str) -> Result<(), ToolError> {
    let mut minimum = compact_receipt_of(
        &"c".repeat(23),
        &"0".repeat(64),
        Status::Abandoned,
        outcome,
        99_999,
        99_999,
        99_999,
        99_999,
    );
    let root = &call.engine.project().config.proposals.changeset_root;
    minimum["operation_index"] = json!(99_999);
    minimum["rebased"] = json!(false);
    minimum["previous_changeset_sha256"] = json!("0".repeat(64));
    minimum["receipt_path"] = json!(format!("{root}/{}/abandoned.json", "c".repeat(23)));
    let size = minimum.to_string().len();
    if size > call.budget {
        return Err(ToolError::new(
            "result_too_large",
            format!("the minimum success receipt ({size} bytes) cannot fit the response limit; nothing was written"),
        )
        .details(json!({ "stage": "preflight", "mutation_committed": false }))
        .remediation(call.raise_limit(size)));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn compact_receipt_of(
    id: &str,
    hash: &str,
    status: Status,
    outcome: &str,
    operations: usize,
    changes: usize,
    errors: usize,
    warnings: usize,
) -> Value {
    json!({
        "receipt_version": 1,
        "compact": true,
        "outcome": outcome,
        "changeset_id": id,
        "changeset_sha256": hash,
        "status": status,
        "operations": operations,
        "changes": changes,
        "errors": errors,
        "warnings": warnings,
        "remediation": "read the whole changeset with docforge_get_changeset and its findings with docforge_validate_changeset",
    })
}

fn compact_receipt(cs: &Changeset, outcome: &str) -> Value {
    let (errors, warnings) = docforge_proposals::severity_counts(&cs.validation);
    compact_receipt_of(
        &cs.changeset_id,
        &cs.changeset_sha256,
        cs.status,
        outcome,
        cs.operations.len(),
        cs.changes.len(),
        errors,
        warnings,
    )
}

/// The full result of a mutation, or its compact receipt when that does not fit: a
/// committed mutation is never answered with a failure.
fn mutation_result(call: &Call<'_>, cs: &Changeset, outcome: &str, extra: Map<String, Value>) -> Value {
    let (errors, warnings) = docforge_proposals::severity_counts(&cs.validation);
    let mut full = json!({
        "outcome": outcome,
        "changeset_id": cs.changeset_id,
        "changeset_sha256": cs.changeset_sha256,
        "status": cs.status,
        "title": cs.title,
        "writer": cs.writer,
        "base": cs.base,
        "operations": cs.operations.len(),
        "touched_nodes": cs.touched_nodes,
        "changes": cs.changes.iter().map(|c| json!({
            "path": c.path, "action": c.action, "before_sha256": c.before_sha256, "after_sha256": c.after_sha256,
        })).collect::<Vec<_>>(),
        "validation": {
            "errors": errors,
            "warnings": warnings,
            "issues": cs.validation,
        },
    });
    full.as_object_mut().expect("object").extend(extra.clone());
    if full.to_string().len() <= call.budget {
        return full;
    }
    let mut compact = compact_receipt(cs, outcome);
    let bounded = extra.into_iter().filter(|(k, _)| COMPACT_EXTRAS.contains(&k.as_str()));
    compact.as_object_mut().expect("object").extend(bounded);
    compact
}

/// The outcome fields a compact receipt keeps: each of bounded size (preflight counts them).
const COMPACT_EXTRAS: [&str; 4] = ["operation_index", "rebased", "previous_changeset_sha256", "receipt_path"];

// ---- arguments ----

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateArgs {
    /// One line saying what the change is for (at most 200 characters).
    pub title: String,
    pub description: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterArgs {
    pub title: String,
    pub description: Option<String>,
    /// The operations in order, each with its `op`: node_create, node_update, node_move,
    /// node_delete, relationship_update.
    #[schemars(with = "Vec<Operation>")]
    pub operations: Vec<Value>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangesetArgs {
    /// The changeset's ID (`cs-…`).
    pub changeset_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageArgs {
    pub changeset_id: String,
    /// Records per page (default and maximum: the project's max_results).
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Statuses to list (`draft`, `ready`, `stale`, `applied`, `abandoned`). Default: draft and ready.
    pub status: Option<Vec<String>>,
    /// Every status (stale, applied and abandoned too) when `status` is not given.
    pub history: Option<bool>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbandonArgs {
    pub changeset_id: String,
    /// Why (kept in the audit receipt).
    pub reason: String,
}

/// The schema of an operation tool: the operation's fields plus `changeset_id`.
fn op_schema<T: JsonSchema>() -> Value {
    let mut v = super::schema::<T>();
    v["properties"]["changeset_id"] =
        json!({ "type": "string", "description": "The changeset's ID (`cs-…`)." });
    let required = v["required"].as_array().cloned().unwrap_or_default();
    let mut r = vec![json!("changeset_id")];
    r.extend(required);
    v["required"] = Value::Array(r);
    v
}

pub fn node_create_schema() -> Value {
    op_schema::<NodeCreate>()
}
pub fn node_update_schema() -> Value {
    op_schema::<NodeUpdate>()
}
pub fn node_move_schema() -> Value {
    op_schema::<NodeMove>()
}
pub fn node_delete_schema() -> Value {
    op_schema::<NodeDelete>()
}
pub fn relationship_update_schema() -> Value {
    op_schema::<RelationshipUpdate>()
}

fn changeset_id(v: &str) -> Result<(), ToolError> {
    if v.is_empty() || v.len() > 128 {
        return Err(ToolError::invalid("changeset_id must be 1..128 characters"));
    }
    Ok(())
}

// ---- mutations ----

pub fn create_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: CreateArgs = args(a)?;
    preflight(call, "created")?;
    let cs = with(call, |p| p.create(&a.title, a.description.as_deref()))?;
    Ok(mutation_result(call, &cs, "created", Map::new()))
}

pub fn register_changes(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: RegisterArgs = args(a)?;
    let ops = a
        .operations
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            Operation::from_json(v).map_err(|e| {
                ToolError::invalid(format!("operations[{i}]: {e}")).details(json!({ "operation": i }))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    preflight(call, "registered")?;
    let cs = with(call, |p| p.register(&a.title, a.description.as_deref(), ops))?;
    Ok(mutation_result(call, &cs, "registered", Map::new()))
}

fn propose(call: &mut Call<'_>, op: &str, mut a: Value) -> Result<Value, ToolError> {
    let Some(obj) = a.as_object_mut() else { return Err(ToolError::invalid("arguments must be an object")) };
    let id = match obj.remove("changeset_id") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(ToolError::invalid("changeset_id must be a string")),
        None => return Err(ToolError::invalid("missing changeset_id")),
    };
    changeset_id(&id)?;
    let operation =
        Operation::decode(op, a).map_err(|e| ToolError::invalid(format!("invalid arguments: {e}")))?;
    preflight(call, "operation_added")?;
    let (cs, index) = with(call, |p| p.propose(&id, operation))?;
    let extra = Map::from_iter([("operation_index".to_string(), json!(index))]);
    Ok(mutation_result(call, &cs, "operation_added", extra))
}

pub fn propose_node_create(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    propose(call, "node_create", a)
}
pub fn propose_node_update(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    propose(call, "node_update", a)
}
pub fn propose_node_move(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    propose(call, "node_move", a)
}
pub fn propose_node_delete(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    propose(call, "node_delete", a)
}
pub fn propose_relationship_update(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    propose(call, "relationship_update", a)
}

pub fn rebase_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: ChangesetArgs = args(a)?;
    changeset_id(&a.changeset_id)?;
    preflight(call, "rebased")?;
    let r = with(call, |p| p.rebase(&a.changeset_id))?;
    let outcome = if r.rebased { "rebased" } else { "already_current" };
    let extra = Map::from_iter([
        ("rebased".to_string(), json!(r.rebased)),
        ("previous_changeset_sha256".to_string(), json!(r.previous_sha256)),
    ]);
    Ok(mutation_result(call, &r.changeset, outcome, extra))
}

pub fn abandon_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: AbandonArgs = args(a)?;
    changeset_id(&a.changeset_id)?;
    preflight(call, "abandoned")?;
    let r = with(call, |p| p.abandon(&a.changeset_id, &a.reason))?;
    let extra = Map::from_iter([
        ("receipt_path".to_string(), json!(r.receipt_path)),
        ("receipt".to_string(), r.receipt),
    ]);
    Ok(mutation_result(call, &r.changeset, "abandoned", extra))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewArgs {
    pub changeset_id: String,
    /// The ID of a view declared in docforge.toml (never a renderer name or a command).
    pub view_id: String,
}

pub fn preview_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: PreviewArgs = args(a)?;
    changeset_id(&a.changeset_id)?;
    preflight_receipt(call, "previewed")?;
    let generation = call.generation.clone();
    let p = docforge_proposals::preview(
        call.engine,
        &generation,
        &a.changeset_id,
        &a.view_id,
        std::time::SystemTime::now(),
    )?;
    let full = json!({ "outcome": "previewed", "preview": p });
    if full.to_string().len() <= call.budget {
        return Ok(full);
    }
    Ok(json!({
        "receipt_version": 1,
        "compact": true,
        "outcome": "previewed",
        "changeset_id": p.changeset_id,
        "changeset_sha256": p.changeset_sha256,
        "status": p.status,
        "path": p.path,
        "sha256": p.sha256,
    }))
}

// ---- reads ----

fn expect(call: &Call<'_>, tool: &str, params: Value, generation: &str, collection: &str) -> CursorV1 {
    let mut c = call.cursor_for(tool, &params, collection);
    c.generation = generation.to_string();
    c
}

pub fn list_changesets(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: ListArgs = args(a)?;
    let (page, clamped) = limit(a.limit, call.max_results())?;
    let statuses = a
        .status
        .as_ref()
        .map(|list| {
            list.iter()
                .map(|s| {
                    Status::parse(s).ok_or_else(|| {
                        ToolError::invalid(format!(
                            "unknown status {s:?} (draft, ready, stale, applied, abandoned)"
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let history = a.history.unwrap_or(false);
    let (list, unreadable) = with(call, |p| p.listing(statuses.as_deref(), history))?;
    let unreadable: Vec<Value> =
        unreadable.iter().map(|(id, why)| json!({ "changeset_id": id, "message": why })).collect();
    let records: Vec<Value> = list.iter().map(|s| serde_json::to_value(s).expect("serialises")).collect();
    let collection = cursor::hash_json(&Value::Array(records.clone()));
    let params = json!({ "status": a.status, "history": history });
    let expect = expect(call, "docforge_list_changesets", params, "changesets", &collection);
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let start = (pos as usize).min(records.len());
    let base =
        json!({ "items": [], "total": records.len(), "returned": 0, "limit_clamped": clamped, "unreadable": unreadable })
            .to_string()
            .len();
    let end = take_fitting(&records, start, page, base, call.budget);
    Ok(json!({
        "items": records[start..end],
        "total": records.len(),
        "returned": end - start,
        "limit_clamped": clamped,
        "next_cursor": next_cursor(&expect, end, records.len(), ""),
        "unreadable": unreadable,
    }))
}

/// At most this many touched nodes and (latest) events travel in a changeset's header.
const HEADER_LIST: usize = 50;

/// A changeset's header within `budget`: the description, events and touched nodes are cut
/// (and said so) before it would crowd out the page it heads.
fn header(c: &docforge_proposals::Current, budget: usize) -> Value {
    let cs = &c.changeset;
    let events = &cs.events[cs.events.len().saturating_sub(HEADER_LIST)..];
    let mut h = json!({
        "changeset_id": cs.changeset_id,
        "changeset_sha256": cs.changeset_sha256,
        "status": c.status,
        "stored_status": cs.status,
        "stale_sources": c.stale_sources,
        "title": cs.title,
        "description": cs.description,
        "writer": cs.writer,
        "created_at": cs.created_at,
        "updated_at": cs.updated_at,
        "base": cs.base,
        "touched_nodes": &cs.touched_nodes[..cs.touched_nodes.len().min(HEADER_LIST)],
        "touched_nodes_total": cs.touched_nodes.len(),
        "events": events,
        "events_total": cs.events.len(),
        "operation_count": cs.operations.len(),
        "change_count": cs.changes.len(),
        "validation_errors": docforge_proposals::severity_counts(&cs.validation).0,
    });
    // Half the budget at most, so a page of operations still fits beside it.
    for key in ["description", "events", "touched_nodes"] {
        if h.to_string().len() <= budget / 2 {
            break;
        }
        h[key] = Value::Null;
        h[format!("{key}_omitted")] = json!(true);
    }
    h
}

/// Each item as a JSON record with its `index` in the list.
fn indexed<T: serde::Serialize>(items: &[T]) -> Vec<Value> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let mut v = serde_json::to_value(item).expect("serialises");
            v["index"] = json!(i);
            v
        })
        .collect()
}

/// What one paged read returns: `records` (each `{index, …}`) under `key`, inside `head`.
struct Records<'k> {
    tool: &'static str,
    /// The changeset hash the cursor binds to.
    hash: String,
    head: Value,
    key: &'static str,
    records: Vec<Value>,
    /// The fields a summary of an oversized record keeps.
    keep: &'k [&'k str],
}

/// One page of `r`: as many records from the cursor as `limit` and the budget allow.
fn paged(call: &Call<'_>, a: &PageArgs, r: Records<'_>) -> Result<Value, ToolError> {
    let Records { tool, hash, head, key, records, keep } = r;
    let hash = hash.as_str();
    let (page, clamped) = limit(a.limit, call.max_results())?;
    let params = json!({ "changeset_id": a.changeset_id });
    // Bound to the records themselves: findings and notes depend on the current graph and
    // files, so another collection under the same changeset hash is a stale cursor.
    let all = Value::Array(records);
    let collection = format!("{key}:{}", cursor::hash_json(&all));
    let Value::Array(records) = all else { unreachable!("built as an array") };
    let expect = expect(call, tool, params, hash, &collection);
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let start = (pos as usize).min(records.len());
    let mut out = head;
    out[key] = json!([]);
    out["total"] = json!(records.len());
    out["limit_clamped"] = json!(clamped);
    let base = out.to_string().len();
    let end = take_fitting(&records, start, page, base, call.budget);
    let items: Vec<Value> = records[start..end]
        .iter()
        .enumerate()
        .map(|(k, r)| {
            if pages::oversized(r, base, call.budget) {
                pages::summary(start + k, r, keep)
            } else {
                r.clone()
            }
        })
        .collect();
    out[key] = Value::Array(items);
    out["returned"] = json!(end - start);
    out["next_cursor"] = json!(next_cursor(&expect, end, records.len(), ""));
    Ok(out)
}

pub fn get_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: PageArgs = args(a)?;
    changeset_id(&a.changeset_id)?;
    let c = with(call, |p| p.get(&a.changeset_id))?;
    let records = indexed(&c.changeset.operations);
    let hash = c.changeset.changeset_sha256.clone();
    let head = header(&c, call.budget);
    let keep = ["op", "node_id", "index"];
    paged(
        call,
        &a,
        Records { tool: "docforge_get_changeset", hash, head, key: "operations", records, keep: &keep },
    )
}

pub fn validate_changeset(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: PageArgs = args(a)?;
    changeset_id(&a.changeset_id)?;
    let v = with(call, |p| p.validate(&a.changeset_id))?;
    let (errors, warnings) = docforge_proposals::severity_counts(&v.issues);
    let head = json!({
        "changeset_id": v.changeset_id,
        "changeset_sha256": v.changeset_sha256,
        "status": v.status,
        "stored_status": v.stored_status,
        "stale_sources": v.stale_sources,
        "errors": errors,
        "warnings": warnings,
    });
    let records = indexed(&v.issues);
    let keep = ["code", "severity", "index"];
    let hash = v.changeset_sha256.clone();
    paged(
        call,
        &a,
        Records { tool: "docforge_validate_changeset", hash, head, key: "issues", records, keep: &keep },
    )
}

pub fn get_changeset_diff(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: PageArgs = args(a)?;
    changeset_id(&a.changeset_id)?;
    let c = with(call, |p| p.get(&a.changeset_id))?;
    let cs = &c.changeset;
    let hash = cs.changeset_sha256.clone();
    let head = json!({
        "changeset_id": cs.changeset_id,
        "changeset_sha256": hash,
        "status": c.status,
    });
    let mut page_head = head.clone();
    page_head["mode"] = json!("records");
    page_head["records"] = json!([]);
    let base = page_head.to_string().len();
    // Records: the operations, then each change with its unified diff. A record too large
    // for any page is told before a diff is computed (the change alone overflows).
    let mut records: Vec<Value> = cs
        .operations
        .iter()
        .enumerate()
        .map(|(i, o)| json!({ "record": "operation", "index": i, "operation": o }))
        .collect();
    let bare: Vec<Value> = cs
        .changes
        .iter()
        .enumerate()
        .map(|(i, ch)| json!({ "record": "change", "index": i, "change": ch }))
        .collect();
    let mut chunked = records.iter().chain(&bare).any(|r| pages::oversized(r, base, call.budget));
    if !chunked {
        let diffs = with(call, |p| p.diffs(cs))?;
        records.extend(bare.into_iter().zip(&diffs).map(|(mut r, d)| {
            r["unified_diff"] = json!(d.unified_diff);
            r["note"] = json!(d.note);
            r
        }));
        chunked = records.iter().any(|r| pages::oversized(r, base, call.budget));
    }
    if !chunked {
        let mut out = paged(
            call,
            &a,
            Records {
                tool: "docforge_get_changeset_diff",
                hash,
                head: page_head,
                key: "records",
                records,
                keep: &[],
            },
        )?;
        out["mode"] = json!("records");
        return Ok(out);
    }
    // A record too large for any page: the exact arrays as canonical JSON, in ASCII chunks.
    let (payload, payload_sha256) = {
        let mut memo = call.server.chunk_payload.lock().unwrap_or_else(|p| p.into_inner());
        match memo.as_ref() {
            Some((h, payload, sha)) if *h == hash => (payload.clone(), sha.clone()),
            _ => {
                let payload = ascii_canonical(&json!({ "operations": cs.operations, "changes": cs.changes }));
                let sha = docforge_proposals::sha256_hex(payload.as_bytes());
                let payload = std::sync::Arc::new(payload);
                *memo = Some((hash.clone(), payload.clone(), sha.clone()));
                (payload, sha)
            }
        }
    };
    let params = json!({ "changeset_id": a.changeset_id });
    let expect =
        expect(call, "docforge_get_changeset_diff", params, &hash, &format!("chunks:{payload_sha256}"));
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let offset = (pos as usize).min(payload.len());
    let mut out = head;
    out["mode"] = json!("canonical_json_chunk");
    out["payload_sha256"] = json!(payload_sha256);
    out["payload_bytes"] = json!(payload.len());
    out["offset"] = json!(offset);
    out["chunk"] = json!("");
    out["reassembly"] = json!("concatenate the chunks of every page in order; the result is ASCII canonical JSON of {\"changes\": [...], \"operations\": [...]} whose SHA-256 is payload_sha256");
    let base = out.to_string().len();
    let (start, end) = chunk_page(&payload, offset, base, call.budget).map_err(|need| {
        ToolError::new("result_too_large", "the response limit leaves no room for a chunk of the payload")
            .remediation(call.raise_limit(need))
    })?;
    out["chunk"] = json!(&payload[start..end]);
    out["next_cursor"] = json!(next_cursor(&expect, end, payload.len(), ""));
    out["complete"] = json!(end == payload.len());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_tool_schemas_require_the_changeset_and_the_operation_fields() {
        let s = node_update_schema();
        assert_eq!(s["required"], json!(["changeset_id", "node_id"]));
        assert!(s["properties"]["expected_content_hash"].is_object());
        let s = node_create_schema();
        assert_eq!(s["required"], json!(["changeset_id", "node_id", "path", "title"]));
    }
}
