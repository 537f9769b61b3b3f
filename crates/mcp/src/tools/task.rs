//! `docforge_get_task_context`: evidence for one closed task kind from a *derived* version-1
//! plan (exact or lexical focus, bounded outgoing and incoming traversal, metadata
//! hydration). The plan cannot name SQL, paths, relations or Logic. Fixed ceilings apply
//! whatever the project limits say. The evidence stream is immutable per generation and
//! paged without changing its request, plan, collection or capsule hashes.

use super::context::{pack, ENVELOPE_RESERVE};
use super::graph::index_err;
use super::{args, limit, Call};
use crate::cursor::{encode, hash_json, CursorV1};
use crate::reply::ToolError;
use docforge_index::{Direction, Index, TraverseLimits, Truncation};
use docforge_model::{RelationClass, RELATION_ALIASES_V1};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub const MAX_EVIDENCE: usize = 1_000;
pub const MAX_CANDIDATE_EDGES: usize = 100_000;
pub const MAX_QUERY_CHARS: usize = 10_000;
const DEFAULT_TOKEN_BUDGET: u32 = 20_000;
const MAX_TOKEN_BUDGET: u32 = 200_000;
const EXCERPT_BYTES: usize = 600;

pub fn ceilings() -> Value {
    json!({ "evidence_items": MAX_EVIDENCE, "candidate_edges": MAX_CANDIDATE_EDGES, "query_chars": MAX_QUERY_CHARS })
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Change,
    Implementation,
    Failure,
    Ownership,
    Test,
    Operation,
    Release,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    pub task: TaskKind,
    /// What the task is about (at most 10,000 characters).
    pub description: String,
    /// An exact node ID to focus on instead of a lexical search of the description.
    pub focus_node_id: Option<String>,
    /// Approximate token budget for evidence excerpts (default 20,000, at most 200,000).
    #[schemars(range(min = 1, max = MAX_TOKEN_BUDGET))]
    pub budget: Option<u32>,
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    #[serde(skip_serializing)]
    pub cursor: Option<String>,
}

/// The relation classes a task needs evidence from, and the traversal depths.
fn shape(kind: TaskKind) -> (&'static [RelationClass], u32, u32) {
    use RelationClass::*;
    match kind {
        TaskKind::Change => (&[Dependency, Evidence], 2, 2),
        TaskKind::Implementation => (&[Implementation, Structure], 2, 1),
        TaskKind::Failure => (&[Execution, Dependency], 2, 2),
        TaskKind::Ownership => (&[Evidence, Structure], 1, 2),
        TaskKind::Test => (&[Evidence], 1, 2),
        TaskKind::Operation => (&[Execution, Context], 2, 1),
        TaskKind::Release => (&[Evidence, Dependency, Context], 1, 2),
    }
}

fn vocabulary_hash() -> String {
    hash_json(&Value::Array(RELATION_ALIASES_V1.iter().map(|(r, c)| json!([r, c.as_str()])).collect()))
}

/// What the generation says about itself that the plan's gap rules need.
struct Facts<'a> {
    precision: Option<&'a str>,
    /// Relation classes that at least one stored edge has.
    declared: &'a std::collections::BTreeSet<String>,
}

struct Built {
    stream: Vec<Value>,
    gaps: Vec<Value>,
    evidence: usize,
    edges_examined: usize,
}

pub fn get_task_context(call: &mut Call<'_>, a: Value) -> Result<Value, ToolError> {
    if call.server.integrations.context.is_some() {
        return Err(ToolError::new(
            "task_context_unavailable",
            "this server's project integration supplies its own context provider: task context is not derived here",
        )
        .remediation("use docforge_get_context on the node"));
    }
    let a: TaskArgs = args(a)?;
    if a.description.trim().is_empty() || a.description.chars().count() > MAX_QUERY_CHARS {
        return Err(ToolError::invalid(format!("description must have 1..{MAX_QUERY_CHARS} characters")));
    }
    let budget = a.budget.unwrap_or(DEFAULT_TOKEN_BUDGET);
    if !(1..=MAX_TOKEN_BUDGET).contains(&budget) {
        return Err(ToolError::invalid(format!("budget must be between 1 and {MAX_TOKEN_BUDGET}")));
    }
    let (page_size, clamped) = limit(a.limit, call.max_results())?;
    let request = serde_json::to_value(&a).expect("request serialises");
    let request_hash = hash_json(&request);
    let (classes, out_depth, in_depth) = shape(a.task);
    let vocab = vocabulary_hash();
    let plan = json!({
        "version": 1,
        "task": a.task,
        "focus": match &a.focus_node_id {
            Some(id) => json!({ "mode": "exact", "node_id": id }),
            None => json!({ "mode": "lexical", "query_hash": hash_json(&json!(a.description)), "max_focus_nodes": 5 }),
        },
        "steps": [
            { "step": "traverse", "direction": "outgoing", "max_depth": out_depth, "relation_vocabulary_hash": vocab },
            { "step": "traverse", "direction": "incoming", "max_depth": in_depth, "relation_vocabulary_hash": vocab },
            { "step": "hydrate", "fields": ["kind", "title", "source_path", "content_hash", "excerpt"] },
        ],
        "required_relation_classes": classes.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        "ceilings": ceilings(),
        "token_budget": budget,
    });
    let plan_hash = hash_json(&plan);
    let stats = call.engine.stats()?;
    let precision = stats.meta.get("precision").cloned();
    let declared: std::collections::BTreeSet<String> =
        stats.edges_by_class.iter().filter(|(_, n)| **n > 0).map(|(c, _)| c.clone()).collect();
    let ctx = Facts { precision: precision.as_deref(), declared: &declared };
    let built = build(call.engine.index(), &a, classes, (out_depth, in_depth), budget, &ctx)?;
    call.diag.count("edges_examined", built.edges_examined as u64);
    let collection_hash = hash_json(&Value::Array(
        built.stream.iter().map(|i| json!([i["id"], i.get("content_hash")])).collect(),
    ));
    let policy_hash = hash_json(&crate::policy::effective_policy(
        &call.server.opts,
        call.server.max_results,
        call.server.max_response_bytes,
    ));
    let capsule_hash = hash_json(&json!([
        request_hash,
        plan_hash,
        collection_hash,
        policy_hash,
        call.generation.graph_digest
    ]));
    let params = json!({ "request": request_hash, "policy": policy_hash, "plan": plan_hash });
    let expect = call.cursor_for("docforge_get_task_context", &params, &collection_hash);
    let (pos, _) = call.position(a.cursor.as_deref(), &expect)?;
    let pos = pos as usize;
    if pos > built.stream.len() {
        return Err(ToolError::new("invalid_cursor", "cursor position is past the end")
            .remediation("restart_pagination"));
    }
    let space = (call.server.max_response_bytes as usize).saturating_sub(ENVELOPE_RESERVE * 2) / 2;
    let (page, next) = pack(&built.stream, pos, page_size, space);
    let more = next < built.stream.len();
    Ok(json!({
        "task": a.task,
        "request_hash": request_hash,
        "plan_hash": plan_hash,
        "collection_hash": collection_hash,
        "capsule_hash": capsule_hash,
        "plan": plan,
        "evidence_gaps": built.gaps,
        "items": page,
        "page": {
            "returned": page.len(),
            "total": built.stream.len(),
            "evidence_items": built.evidence,
            "has_more": more,
            "next_cursor": more.then(|| encode(&CursorV1 { position: next as u64, ..expect })),
            "limit_clamped": clamped,
        },
    }))
}

fn build(
    index: &Index,
    a: &TaskArgs,
    classes: &[RelationClass],
    (out_depth, in_depth): (u32, u32),
    budget: u32,
    facts: &Facts<'_>,
) -> Result<Built, ToolError> {
    let precision = facts.precision;
    let focus: Vec<String> = match &a.focus_node_id {
        Some(id) => {
            super::graph::check_id(id)?;
            if !index.has_node(id).map_err(index_err)? {
                return Err(super::graph::not_found(index, id));
            }
            vec![id.clone()]
        }
        None => index.search(&a.description, 5).map_err(index_err)?.into_iter().map(|h| h.id).collect(),
    };
    // Evidence ID -> (graph path, reasons). BTreeMap keeps the stream deterministic.
    let mut found: BTreeMap<String, (Vec<Value>, Vec<Reason>)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut limits_hit: Vec<&str> = Vec::new();
    let mut examined = 0usize;
    for f in &focus {
        if found.insert(f.clone(), (Vec::new(), vec![Reason::Focus])).is_none() {
            order.push(f.clone());
        }
        for (dir, depth, label) in
            [(Direction::Outgoing, out_depth, "outgoing"), (Direction::Incoming, in_depth, "incoming")]
        {
            let remaining = MAX_CANDIDATE_EDGES.saturating_sub(examined);
            let room = MAX_EVIDENCE.saturating_sub(order.len());
            let t = index
                .traverse(
                    f,
                    dir,
                    None,
                    TraverseLimits { max_depth: depth, max_results: room, edge_budget: remaining },
                )
                .map_err(index_err)?;
            examined += t.edges_examined;
            match t.truncation {
                Truncation::EdgeBudget => limits_hit.push("work"),
                Truncation::ResultLimit => limits_hit.push("result"),
                Truncation::None => {}
            }
            for r in t.reached {
                // Path direction is relative to the preceding node; reasons relative to the item.
                let step = json!({ "from": r.from, "relation": r.relation, "class": r.class.as_str(), "direction": label });
                let reason = Reason::Edge {
                    relation: r.relation,
                    class: r.class,
                    other: r.from,
                    direction: if label == "outgoing" { "incoming" } else { "outgoing" },
                };
                let e = found.entry(r.id.clone()).or_insert_with(|| {
                    order.push(r.id.clone());
                    (vec![step], Vec::new())
                });
                // Two edges of one relation between the same nodes (two calls, two links)
                // are one reason.
                if !e.1.contains(&reason) {
                    e.1.push(reason);
                }
            }
        }
    }
    let mut stream = Vec::new();
    let mut tokens_left = budget as usize;
    let mut seen_classes = std::collections::BTreeSet::new();
    for id in order.iter().take(MAX_EVIDENCE) {
        let Some(node) = index.node_only(id).map_err(index_err)? else { continue };
        let (path, reasons) = &found[id];
        let cost = node.text.len().min(EXCERPT_BYTES) / 4 + 16;
        if cost > tokens_left {
            limits_hit.push("token");
            stream.push(json!({ "type": "omission", "id": id, "reason": "token_budget" }));
            continue;
        }
        tokens_left -= cost;
        let (limitations, classes_seen) = limitations(reasons);
        seen_classes.extend(classes_seen);
        let mut unproven = vec!["text_semantics"];
        if reasons.iter().any(Reason::is_call) && precision != Some("precise") {
            unproven.push("call_resolution_complete");
        }
        let mut item = json!({
            "type": "evidence",
            "id": id,
            "kind": node.kind,
            "title": node.title,
            "source_path": node.location.as_ref().map(|l| &l.path),
            "content_hash": hash_json(&json!(node.text)),
            "graph_path": path,
            "relationship_reasons": reasons.iter().map(Reason::to_json).collect::<Vec<_>>(),
            "limitations": limitations,
            "unproven": unproven,
        });
        super::context::cut_text(&mut item, "excerpt", id, &node.text, EXCERPT_BYTES);
        stream.push(item);
    }
    let evidence = stream.iter().filter(|i| i["type"] == "evidence").count();
    let mut gaps = Vec::new();
    for c in classes {
        if seen_classes.contains(c) {
            continue;
        }
        let gap = if !facts.declared.contains(c.as_str()) {
            json!({ "class": c.as_str(), "gap": "undeclared_relation_category" })
        } else if limits_hit.is_empty() {
            json!({ "class": c.as_str(), "gap": "no_selected_evidence" })
        } else {
            json!({ "class": c.as_str(), "gap": "incomplete_proof", "limits": limits_hit })
        };
        gaps.push(gap);
    }
    Ok(Built { stream, gaps, evidence, edges_examined: examined })
}

/// Why an item is evidence: it is a focus, or an edge joins it to the node it was reached
/// from (`direction` relative to the item).
#[derive(PartialEq)]
enum Reason {
    Focus,
    Edge { relation: String, class: RelationClass, other: String, direction: &'static str },
}

impl Reason {
    /// Reached through a Go call edge, whose completeness depends on call resolution.
    fn is_call(&self) -> bool {
        matches!(self, Reason::Edge { relation, .. } if relation == "calls")
    }

    fn to_json(&self) -> Value {
        match self {
            Reason::Focus => json!({ "reason": "focus" }),
            Reason::Edge { relation, class, other, direction } => json!({
                "relation": relation, "class": class.as_str(), "other": other, "direction": direction,
            }),
        }
    }
}

/// The limitation of each reason whose relation is [`RelationClass::Unclassified`], in
/// order, and the classes of the others.
fn limitations(reasons: &[Reason]) -> (Vec<Value>, Vec<RelationClass>) {
    let mut limitations = Vec::new();
    let mut classes = Vec::new();
    for r in reasons {
        match r {
            Reason::Edge { relation, class: RelationClass::Unclassified, .. } => {
                limitations.push(json!({ "limitation": "unclassified_relation", "relation": relation }))
            }
            Reason::Edge { class, .. } => classes.push(*class),
            Reason::Focus => {}
        }
    }
    (limitations, classes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(relation: &str) -> Reason {
        let class = docforge_model::classify_relation(relation);
        Reason::Edge { relation: relation.into(), class, other: "x".into(), direction: "incoming" }
    }

    #[test]
    fn reasons_name_their_classes_and_unclassified_relations_are_limitations() {
        let reasons = [Reason::Focus, edge("governs"), edge("supersedes"), edge("calls"), edge("Calls")];
        let (limits, classes) = limitations(&reasons);
        assert_eq!(
            limits,
            [
                json!({ "limitation": "unclassified_relation", "relation": "supersedes" }),
                json!({ "limitation": "unclassified_relation", "relation": "Calls" }),
            ]
        );
        assert_eq!(classes, [RelationClass::Evidence, RelationClass::Execution]);
        let calls: Vec<bool> = reasons.iter().map(Reason::is_call).collect();
        assert_eq!(calls, [false, false, false, true, false]);
        assert_eq!(reasons[0].to_json(), json!({ "reason": "focus" }));
        assert_eq!(
            reasons[1].to_json(),
            json!({ "relation": "governs", "class": "evidence", "other": "x", "direction": "incoming" })
        );
    }
}
