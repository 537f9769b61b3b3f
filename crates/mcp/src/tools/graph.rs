//! Reads of the graph: one node, its Logic, lexical search, exact filters, backlinks and
//! bounded traversals. Every collection is capped by the project's `max_results`.

use super::{args, limit, Call};
use crate::reply::ToolError;
use docforge_index::{Direction, EdgeRecord, IndexError, NodeFilter, TraverseLimits, Truncation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub(crate) fn index_err(e: IndexError) -> ToolError {
    ToolError::new("index_unavailable", format!("reading the index failed: {e}"))
}

/// `node_not_found`, naming in `details.closest` the IDs the caller may have meant
/// ([`docforge_index::Index::closest_ids`]: another case, a typo, a name typed for its ID).
pub(crate) fn not_found(index: &docforge_index::Index, id: &str) -> ToolError {
    let closest = index.closest_ids(id, 5).unwrap_or_default();
    let remediation = if closest.is_empty() {
        "use docforge_search to find the exact ID"
    } else {
        "IDs are exact and case-sensitive: one of details.closest, or docforge_search to find another"
    };
    ToolError::new("node_not_found", format!("no node has the exact ID `{id}`"))
        .remediation(remediation)
        .details(json!({ "closest": closest }))
}

pub(crate) fn check_id(id: &str) -> Result<(), ToolError> {
    if id.is_empty() || id.len() > 4096 || id.chars().any(char::is_control) {
        return Err(ToolError::invalid("node_id must be 1..4096 bytes without control characters"));
    }
    Ok(())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeArgs {
    /// The exact node ID (e.g. `arch.auth`, `go:example.com/m/p::Type`).
    pub node_id: String,
}

fn edge_json(e: &EdgeRecord) -> Value {
    let mut v = json!({ "relation": e.relation, "class": e.class.as_str(), "node_id": e.other });
    if !e.attrs.is_empty() {
        v["attrs"] = json!(e.attrs);
    }
    if let Some(l) = &e.location {
        v["location"] = json!({ "path": l.path, "line": l.line });
    }
    v
}

fn capped(edges: &[EdgeRecord], cap: usize) -> Value {
    json!({
        "total": edges.len(),
        "truncated": edges.len() > cap,
        "items": edges.iter().take(cap).map(edge_json).collect::<Vec<_>>(),
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetNodeArgs {
    /// The exact node ID (e.g. `arch.auth`, `go:example.com/m/p::Type`).
    pub node_id: String,
    /// Where to start in the node's text, in bytes (`node.text_next_offset` of a previous call).
    pub text_offset: Option<u64>,
    /// At most this many bytes of text (default: as many as fit the response).
    #[schemars(range(min = 1))]
    pub text_limit: Option<u32>,
    /// Where to start in the node's source bytes (`source.next_offset` of a previous call).
    pub source_offset: Option<u64>,
    /// At most this many bytes of source (default: as many as fit the response).
    #[schemars(range(min = 1))]
    pub source_limit: Option<u32>,
}

/// The largest prefix of `bytes[from..]` of at most `max` bytes that ends on a UTF-8
/// character boundary (at least one character when any is left).
pub(crate) fn utf8_window(bytes: &[u8], from: usize, max: usize) -> usize {
    let end = (from + max).min(bytes.len());
    let mut cut = end;
    while cut > from && cut < bytes.len() && (bytes[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    if cut == from && end > from {
        // One character longer than `max`: take it whole rather than stall.
        cut = from + 1;
        while cut < bytes.len() && (bytes[cut] & 0xC0) == 0x80 {
            cut += 1;
        }
    }
    cut
}

/// One page `[offset, end)` of `bytes`: from `offset` (default 0), at most `limit` bytes and
/// at most `room`, ending on a character boundary.
fn page(
    bytes: &[u8],
    offset: Option<u64>,
    limit: Option<u32>,
    room: usize,
    what: &str,
) -> Result<(usize, usize), ToolError> {
    let offset = offset.unwrap_or(0) as usize;
    if offset > bytes.len() {
        return Err(ToolError::invalid(format!(
            "{what}_offset {offset} is past the end ({} bytes)",
            bytes.len()
        )));
    }
    let max = limit.map_or(room, |l| (l as usize).min(room)).max(1);
    let mut end = utf8_window(bytes, offset, max);
    // `room` is for the page as JSON: escapes (`\u001b` for a control byte) can take six
    // bytes for one, so the page shrinks until its JSON fits (at least one character).
    let json_len = |end: usize| {
        serde_json::to_string(&String::from_utf8_lossy(&bytes[offset..end])).map_or(0, |j| j.len())
    };
    while end > offset && json_len(end) > room {
        let shorter = utf8_window(bytes, offset, ((end - offset) / 2).max(1));
        if shorter >= end {
            break;
        }
        end = shorter;
    }
    Ok((offset, end))
}

pub fn get_node(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: GetNodeArgs = args(a)?;
    check_id(&a.node_id)?;
    let rec = call
        .engine
        .index()
        .node(&a.node_id)
        .map_err(index_err)?
        .ok_or_else(|| not_found(call.engine.index(), &a.node_id))?;
    let cap = call.max_results() as usize;
    call.diag.count("rows_read", (1 + rec.outgoing.len() + rec.incoming.len()) as u64);
    let n = &rec.node;
    let source = call.engine.node_source(n).map_err(|e| {
        ToolError::new("source_changed", format!("{e}; retry"))
            .remediation("call again (the next call re-synchronises)")
    })?;
    let mut out = json!({
        "node": {
            "id": n.id, "kind": n.kind, "title": n.title, "attrs": n.attrs,
            "location": n.location.as_ref().map(|l| json!({"path": l.path, "line": l.line, "column": l.column})),
            "text": "",
            "content_hash": crate::cursor::hash_json(&json!(n.text)),
        },
        "owner": rec.owner,
        "outgoing": capped(&rec.outgoing, cap),
        "incoming": capped(&rec.incoming, cap),
        "diagnostics": rec.diagnostics.iter().take(cap).map(|d| json!({
            "severity": format!("{:?}", d.severity).to_lowercase(), "code": d.code, "message": d.message,
        })).collect::<Vec<_>>(),
    });
    // The edge lists give way (each said `truncated`) before the answer would not fit.
    for key in ["incoming", "outgoing"] {
        while out.to_string().len() + 1024 > call.budget {
            let items = out[key]["items"].as_array_mut().expect("items");
            if items.is_empty() {
                break;
            }
            items.truncate(items.len() / 2);
            out[key]["truncated"] = json!(true);
        }
    }
    // The node's whole text and its own source bytes, each in pages whose JSON fits beside the
    // rest (512 spare); with both, the text takes half the room.
    let room = call.budget.saturating_sub(out.to_string().len() + 512);
    let text_room = if source.is_some() { room / 2 } else { room };
    let text = n.text.as_bytes();
    let (offset, end) = page(text, a.text_offset, a.text_limit, text_room, "text")?;
    if !n.text.is_char_boundary(offset) {
        return Err(ToolError::invalid(format!(
            "text_offset {offset} is inside a character: give a text_next_offset of a previous call"
        )));
    }
    let node = &mut out["node"];
    node["text"] = json!(n.text[offset..end]);
    node["text_bytes"] = json!(text.len());
    node["text_offset"] = json!(offset);
    // As `source.truncated` and a context entry's: more of the text follows this page (a
    // client reading on while it is true stops at the last page).
    node["text_truncated"] = json!(end < text.len());
    node["text_next_offset"] = json!((end < text.len()).then_some(end));
    if let Some(bytes) = source {
        let room = call.budget.saturating_sub(out.to_string().len() + 512);
        let (offset, end) = page(&bytes, a.source_offset, a.source_limit, room, "source")?;
        out["source"] = json!({
            "bytes": bytes.len(),
            "offset": offset,
            "text": String::from_utf8_lossy(&bytes[offset..end]),
            "truncated": end < bytes.len(),
            "next_offset": (end < bytes.len()).then_some(end),
        });
    }
    Ok(out)
}

pub fn get_logic(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: NodeArgs = args(a)?;
    check_id(&a.node_id)?;
    if call.engine.precision() == docforge_workspace::Precision::NoAst {
        return Err(ToolError::new(
            "adapter_policy_forbids_logic",
            "this server was started with --no-ast: function Logic is never extracted or returned",
        )
        .remediation("start a new server without --no-ast to read Logic"));
    }
    let index = call.engine.index();
    if let Some(rec) = index.logic(&a.node_id).map_err(index_err)? {
        let logic: Value = serde_json::from_str(&rec.json)
            .map_err(|e| ToolError::new("index_unavailable", format!("stored Logic is not JSON: {e}")))?;
        return Ok(json!({ "node_id": rec.node, "steps": rec.steps, "logic": logic }));
    }
    if !index.has_node(&a.node_id).map_err(index_err)? {
        return Err(not_found(index, &a.node_id));
    }
    if !call.engine.precision().semantic() {
        return Err(ToolError::new(
            "logic_not_indexed",
            "Logic is extracted by precise analysis; the project declares [analysis] precision = \"ast\"",
        )
        .remediation("set [analysis] precision = \"precise\" in docforge.toml and restart the server"));
    }
    Err(ToolError::new(
        "logic_not_found",
        format!("`{}` has no Logic projection (not a Go function or method with a body)", a.node_id),
    ))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for (data, never query syntax). At most 1,000 characters.
    pub query: String,
    /// Page size (default and maximum: the project's max_results).
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// The `next_cursor` of a previous page.
    pub cursor: Option<String>,
}

/// The deepest result position search pages reach.
const MAX_SEARCH_POSITION: usize = 10_000;

pub fn search(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: SearchArgs = args(a)?;
    if a.query.trim().is_empty() || a.query.chars().count() > 1000 {
        return Err(ToolError::invalid("query must have 1..1000 characters"));
    }
    let (page, clamped) = limit(a.limit, call.max_results())?;
    let params = json!({ "query": a.query });
    let expect = call.cursor_for("docforge_search", &params, &call.generation.graph_digest.clone());
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let pos = pos as usize;
    let want = (pos + page + 1).min(MAX_SEARCH_POSITION + 1);
    let index = call.engine.index();
    let query = index.search_query(&a.query).map_err(index_err)?;
    let hits = index.search_with(&query, want).map_err(index_err)?;
    let shown = &hits[pos.min(hits.len())..(pos + page).min(hits.len())];
    let snippets = index.snippets_with(&query, shown).map_err(index_err)?;
    call.diag.count("rows_read", hits.len() as u64);
    let mut items: Vec<Value> = shown
        .iter()
        .zip(snippets)
        .map(|(h, snippet)| {
            let mut item = json!({
                "id": h.id, "kind": h.kind, "title": h.title,
                "path": h.location.as_ref().map(|l| &l.path), "snippet": snippet,
            });
            if h.exact_id {
                item["exact_id"] = json!(true);
            }
            item
        })
        .collect();
    // A page holds what fits the response: fewer items rather than `result_too_large`.
    let fits = super::pages::take_fitting(&items, 0, items.len(), PAGE_FRAME, call.budget);
    items.truncate(fits);
    let end = pos + items.len();
    let more = hits.len() > end;
    let next = (more && end < MAX_SEARCH_POSITION)
        .then(|| crate::cursor::encode(&crate::cursor::CursorV1 { position: end as u64, ..expect }));
    Ok(json!({
        "items": items,
        "returned": items.len(),
        "truncated": more,
        "limit_clamped": clamped,
        "next_cursor": next,
    }))
}

/// Room for what frames a page of items (counts, flags, the cursor's own room is counted by
/// `take_fitting`).
const PAGE_FRAME: usize = 256;

fn filter_item(n: &docforge_index::NodeSummary) -> Value {
    json!({ "id": n.id, "kind": n.kind, "title": n.title, "attrs": n.attrs, "path": n.location.as_ref().map(|l| &l.path) })
}

#[derive(Deserialize, JsonSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct FilterArgs {
    pub kind: Option<String>,
    pub family: Option<String>,
    pub status: Option<String>,
    pub authority: Option<String>,
    /// One tag the node carries.
    pub tag: Option<String>,
    /// A project-relative path prefix of the node's location.
    pub path_prefix: Option<String>,
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    #[serde(skip_serializing)]
    pub cursor: Option<String>,
}

pub fn filter_nodes(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: FilterArgs = args(a)?;
    let (page, clamped) = limit(a.limit, call.max_results())?;
    let params = serde_json::to_value(&a).expect("filter serialises");
    if params.as_object().is_some_and(|o| o.values().all(Value::is_null)) {
        return Err(ToolError::invalid(
            "give at least one filter (kind, family, status, authority, tag, path_prefix)",
        ));
    }
    let expect = call.cursor_for("docforge_filter_nodes", &params, &call.generation.graph_digest.clone());
    let (pos, after) = call.position(a.cursor.as_deref(), &expect)?;
    let filter = NodeFilter {
        kind: a.kind,
        family: a.family,
        status: a.status,
        authority: a.authority,
        tag: a.tag,
        path_prefix: a.path_prefix,
    };
    let after = (!after.is_empty()).then_some(after);
    let mut rows =
        call.engine.index().filter_nodes(&filter, after.as_deref(), page + 1).map_err(index_err)?;
    call.diag.count("rows_read", rows.len() as u64);
    let mut more = rows.len() > page;
    rows.truncate(page);
    // A page holds what fits the response: fewer rows rather than `result_too_large`.
    let sized: Vec<Value> = rows.iter().map(filter_item).collect();
    let fits = super::pages::take_fitting(&sized, 0, sized.len(), PAGE_FRAME, call.budget);
    if fits < rows.len() {
        rows.truncate(fits);
        more = true;
    }
    let next = match (more, rows.last()) {
        (true, Some(last)) => Some(crate::cursor::encode(&crate::cursor::CursorV1 {
            position: pos + rows.len() as u64,
            after: last.id.clone(),
            ..expect
        })),
        _ => None,
    };
    let items: Vec<Value> = rows.iter().map(filter_item).collect();
    Ok(
        json!({ "items": items, "returned": items.len(), "truncated": more, "limit_clamped": clamped, "next_cursor": next }),
    )
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BacklinkArgs {
    pub node_id: String,
    /// Keep only these relations (exact names).
    pub relations: Option<Vec<String>>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

pub fn backlinks(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    let a: BacklinkArgs = args(a)?;
    check_id(&a.node_id)?;
    let (page, clamped) = limit(a.limit, call.max_results())?;
    let index = call.engine.index();
    if !index.has_node(&a.node_id).map_err(index_err)? {
        return Err(not_found(index, &a.node_id));
    }
    // Read one more row than a page of the matching relation (bounded by the edge index).
    let budget = page * 4 + 1;
    let edges = index.neighbours(&a.node_id, Direction::Incoming, budget).map_err(index_err)?;
    let scanned_all = edges.len() < budget;
    let matching: Vec<_> =
        edges.into_iter().filter(|e| a.relations.as_ref().is_none_or(|r| r.contains(&e.relation))).collect();
    let more = matching.len() > page || !scanned_all;
    let items: Vec<Value> = matching
        .iter()
        .take(page)
        .map(|e| json!({ "source": e.id, "relation": e.relation, "class": e.class.as_str() }))
        .collect();
    Ok(json!({
        "node_id": a.node_id,
        "items": items,
        "returned": items.len(),
        "truncated": more,
        "truncation": if !more { Value::Null } else if matching.len() > page { json!("result_limit") } else { json!("edge_budget") },
        "limit_clamped": clamped,
    }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraverseArgs {
    pub node_id: String,
    /// Depth, 1..=5 (default 2).
    #[schemars(range(min = 1, max = 5))]
    pub depth: Option<u32>,
    /// Follow only these relations (exact names).
    pub relations: Option<Vec<String>>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

/// Candidate edges one traversal may examine.
pub const EDGE_BUDGET: usize = 10_000;

fn traverse(call: &mut Call<'_>, a: Value, direction: Direction) -> Result<Value, ToolError> {
    let a: TraverseArgs = args(a)?;
    check_id(&a.node_id)?;
    let depth = a.depth.unwrap_or(2);
    if !(1..=5).contains(&depth) {
        return Err(ToolError::invalid("depth must be between 1 and 5"));
    }
    let (page, clamped) = limit(a.limit, call.max_results())?;
    let index = call.engine.index();
    if !index.has_node(&a.node_id).map_err(index_err)? {
        return Err(not_found(index, &a.node_id));
    }
    let limits = TraverseLimits { max_depth: depth, max_results: page, edge_budget: EDGE_BUDGET };
    let t = index.traverse(&a.node_id, direction, a.relations.as_deref(), limits).map_err(index_err)?;
    call.diag.count("edges_examined", t.edges_examined as u64);
    let items: Vec<Value> = t
        .reached
        .iter()
        .map(|r| json!({ "id": r.id, "depth": r.depth, "via": { "from": r.from, "relation": r.relation, "class": r.class.as_str() } }))
        .collect();
    Ok(json!({
        "node_id": a.node_id,
        "direction": if direction == Direction::Outgoing { "outgoing" } else { "incoming" },
        "items": items,
        "returned": items.len(),
        "truncated": t.truncation != Truncation::None,
        "truncation": match t.truncation {
            Truncation::None => Value::Null,
            Truncation::ResultLimit => json!("result_limit"),
            Truncation::EdgeBudget => json!("edge_budget"),
        },
        "edges_examined": t.edges_examined,
        "edge_budget": EDGE_BUDGET,
        "limit_clamped": clamped,
    }))
}

pub fn dependencies(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    traverse(call, a, Direction::Outgoing)
}

pub fn impact(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    traverse(call, a, Direction::Incoming)
}

#[cfg(test)]
mod tests {
    use crate::{CapabilityMode, Options, Server};
    use docforge_model::{Attrs, NodeSpan};
    use expect_test::expect;
    use serde_json::json;
    use sha2::{Digest, Sha256};

    #[test]
    fn get_node_serves_a_sections_span_and_content_hash_as_attributes() {
        let dir = tempfile::tempdir().unwrap();
        let config = "schema_version = 1\n[project]\nid = \"t\"\n[sources]\ndocs = [\"*.md\"]\ngo = []\n";
        std::fs::write(dir.path().join("docforge.toml"), config).unwrap();
        let doc = "+++\nid = \"a\"\n+++\n# One\n\nfirst\n\n## Two\n\nsecond\n";
        std::fs::write(dir.path().join("a.md"), doc).unwrap();
        let opts = Options {
            project_root: dir.path().to_path_buf(),
            no_ast: false,
            diagnostics: false,
            mode: CapabilityMode::Read,
            proposal_writer: None,
            canonical_applier: None,
            application_bound: false,
            application_reason: None,
        };
        let server = Server::bind(opts, false).unwrap();
        let spec = super::super::SPECS.iter().find(|s| s.name == "docforge_get_node").unwrap();
        let reply = crate::server::execute(&server, spec, json!({ "node_id": "a#two" }));
        let body = reply.structured_content.unwrap();
        let attrs = &body["result"]["node"]["attrs"];
        expect![[r#"
            {
              "content_sha256": "ced9a282729ac85939608ed649d7050153b8468ea756678a0ce6aba9816daefe",
              "document": "a",
              "level": "2",
              "span": "31..46",
              "span.body": "38..46",
              "span.heading": "31..38"
            }"#]]
        .assert_eq(&serde_json::to_string_pretty(attrs).unwrap());
        let attrs: Attrs = serde_json::from_value(attrs.clone()).unwrap();
        let span = NodeSpan::from_attrs(&attrs).unwrap().unwrap();
        let bytes = &doc.as_bytes()[span.span.range()];
        assert_eq!(bytes, b"## Two\n\nsecond\n");
        assert_eq!(<[u8; 32]>::from(Sha256::digest(bytes)), span.content_sha256);
    }
}
