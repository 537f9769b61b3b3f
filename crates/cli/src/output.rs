//! JSON rendering of index records.

use docforge_index::{EdgeRecord, NodeRecord, Publication, SearchHit, Stats};
use docforge_model::{Diagnostic, Location};
use serde_json::{json, Value};

/// Print one JSON document. A reader that went away (`| head`) ends the process quietly
/// with the status a SIGPIPE death would give, instead of a panic.
pub fn print_json(value: &Value) {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialise");
    crate::stdout::outln!("{text}");
}

fn location_json(l: &Option<Location>) -> Value {
    match l {
        Some(l) => json!({ "path": l.path, "line": l.line, "column": l.column }),
        None => Value::Null,
    }
}

pub fn hit_json(h: &SearchHit, snippet: &str) -> Value {
    json!({
        "id": h.id, "kind": h.kind, "title": h.title, "location": location_json(&h.location), "rank": h.rank,
        "exact_id": h.exact_id, "snippet": snippet,
    })
}

fn edge_json(e: &EdgeRecord) -> Value {
    json!({
        "source": e.source, "relation": e.relation, "class": e.class.as_str(), "target": e.target,
        "location": location_json(&e.location), "attrs": e.attrs,
    })
}

pub fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({ "severity": d.severity, "code": d.code, "message": d.message, "location": location_json(&d.location), "node": d.node })
}

pub fn node_json(r: &NodeRecord) -> Value {
    json!({
        "schema_version": "docforge.node.v1",
        "node": {
            "id": r.node.id, "kind": r.node.kind, "title": r.node.title,
            "location": location_json(&r.node.location), "attrs": r.node.attrs,
        },
        "outgoing": r.outgoing.iter().map(edge_json).collect::<Vec<_>>(),
        "incoming": r.incoming.iter().map(edge_json).collect::<Vec<_>>(),
        "diagnostics": r.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
    })
}

pub fn stats_json(s: &Stats, p: Option<&Publication>) -> Value {
    json!({
        "schema_version": "docforge.stats.v1",
        "generation": s.generation,
        "nodes": s.nodes,
        "edges": s.edges,
        "logic": s.logic,
        "owners": s.owners,
        "nodes_by_kind": s.nodes_by_kind,
        "edges_by_relation": s.edges_by_relation,
        "edges_by_class": s.edges_by_class,
        "files_by_kind": s.files_by_kind,
        "files_by_status": s.files_by_status,
        "diagnostics_by_severity": s.diagnostics_by_severity,
        "meta": s.meta,
        "publication": p.map(|p| json!({
            "path": p.path.display().to_string(), "dev": p.dev, "inode": p.inode, "generation": p.generation,
            "source_fingerprint": p.source_fingerprint, "schema_version": p.schema_version,
            "published_at": p.published_at, "graph_digest": p.graph_digest,
        })),
    })
}
