//! Row-level writes shared by full and delta publishes: one owner's rows in, one owner's rows
//! out, transition records.

use crate::error::{IndexError, SqlContext};
use crate::relation_class;
use docforge_model::{Fragment, Location};
use rusqlite::{params, OptionalExtension, Transaction};
use std::path::Path;

/// What is stored for one owner before the publish.
pub(crate) struct StoredOwner {
    pub(crate) id: i64,
    pub(crate) digest: Vec<u8>,
    pub(crate) ranges: Ranges,
}

/// The rid range `[lo, hi]` an owner occupies in nodes, edges and diagnostics.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ranges {
    pub(crate) nodes: Option<(i64, i64)>,
    pub(crate) edges: Option<(i64, i64)>,
    pub(crate) diags: Option<(i64, i64)>,
    pub(crate) logic: Option<(i64, i64)>,
}

pub(crate) fn range_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<(i64, i64)>> {
    Ok(r.get::<_, Option<i64>>(i)?.zip(r.get::<_, Option<i64>>(i + 1)?))
}

/// Delete one owner's rows by their rid ranges; `fts` false skips the FTS deletes (a bulk
/// publish rebuilds the FTS index).
pub(crate) fn delete_owner_rows(
    tx: &Transaction<'_>,
    path: &Path,
    owner: &StoredOwner,
    fts: bool,
) -> Result<(), IndexError> {
    let ranges = owner.ranges;
    let mut steps: Vec<(&str, Option<(i64, i64)>)> = Vec::with_capacity(4);
    if fts {
        // External-content FTS: remove the exact indexed values before the content rows go.
        steps.push((
            "INSERT INTO nodes_fts(nodes_fts, rowid, title, text, keys, words) \
             SELECT 'delete', rid, title, text, keys, words FROM nodes WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1",
            ranges.nodes,
        ));
    }
    steps.push(("DELETE FROM nodes WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.nodes));
    steps.push(("DELETE FROM edges WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.edges));
    steps.push(("DELETE FROM diagnostics WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.diags));
    steps.push(("DELETE FROM logic WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.logic));
    for (sql, range) in steps {
        if let Some((lo, hi)) = range {
            tx.prepare_cached(sql).ctx(path)?.execute(params![owner.id, lo, hi]).ctx(path)?;
        }
    }
    Ok(())
}

pub(crate) fn record_transition(
    tx: &Transaction<'_>,
    path: &Path,
    key: &str,
    change: &str,
    old: Option<&[u8]>,
    new: Option<&[u8; 32]>,
) -> Result<(), IndexError> {
    tx.prepare_cached(
        "INSERT INTO transition(owner_key, change, old_digest, new_digest) VALUES (?1, ?2, ?3, ?4)",
    )
    .ctx(path)?
    .execute(params![key, change, old, new.map(|d| &d[..])])
    .ctx(path)?;
    Ok(())
}

fn loc(location: &Option<Location>) -> (Option<&str>, Option<u32>, Option<u32>) {
    match location {
        Some(l) => (Some(l.path.as_str()), Some(l.line), Some(l.column)),
        None => (None, None, None),
    }
}

/// Where an owner's edge rows go.
#[derive(Clone, Copy)]
pub(crate) enum EdgeRows {
    /// Inserted here, with the next rids.
    Here,
    /// Written elsewhere (a side database copied in later, see `split.rs`) at this rid range.
    Elsewhere(Option<(i64, i64)>),
}

/// Insert one owner's rows; returns their rid ranges.
pub(crate) fn insert_fragment(
    tx: &Transaction<'_>,
    path: &Path,
    owner: i64,
    fragment: &Fragment,
    fts: bool,
    edges: EdgeRows,
) -> Result<Ranges, IndexError> {
    let mut ranges = Ranges::default();
    let mut node_stmt = tx
        .prepare_cached(
            "INSERT INTO nodes(owner, id, kind, title, path, line, col, text, attrs, keys, words) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )
        .ctx(path)?;
    let mut fts_stmt = tx
        .prepare_cached("INSERT INTO nodes_fts(rowid, title, text, keys, words) VALUES (?1, ?2, ?3, ?4, ?5)")
        .ctx(path)?;
    for node in &fragment.nodes {
        let (p, line, col) = loc(&node.location);
        let attrs = attrs_json(path, &node.attrs, &node.id)?;
        let mut keys = crate::fts::keys(&node.id, &node.title);
        // A section is about its document's subject: the document's title is a key of it.
        if let Some(doc) = node.attrs.get("document").filter(|_| node.kind == "section") {
            if let Some(d) = fragment.nodes.iter().find(|n| &n.id == doc) {
                keys.push(' ');
                keys.push_str(&d.title);
            }
        }
        let words = crate::fts::identifier_parts(&node.text);
        let rid = node_stmt
            .insert(params![
                owner, node.id, node.kind, node.title, p, line, col, node.text, attrs, keys, words
            ])
            .ctx(path)?;
        extend(&mut ranges.nodes, rid);
        if fts {
            fts_stmt.execute(params![rid, node.title, node.text, keys, words]).ctx(path)?;
        }
    }
    ranges.edges = match edges {
        EdgeRows::Here => insert_edges(tx, path, owner, fragment, None)?,
        EdgeRows::Elsewhere(range) => range,
    };
    let mut diag_stmt = tx
        .prepare_cached(
            "INSERT INTO diagnostics(owner, severity, code, message, node, path, line, col) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .ctx(path)?;
    for d in &fragment.diagnostics {
        let (p, line, col) = loc(&d.location);
        let rid = diag_stmt
            .insert(params![owner, d.severity.as_str(), d.code, d.message, d.node, p, line, col])
            .ctx(path)?;
        extend(&mut ranges.diags, rid);
    }
    if !fragment.logic.is_empty() {
        let mut logic_stmt = tx
            .prepare_cached("INSERT INTO logic(owner, node, steps, body) VALUES (?1, ?2, ?3, ?4)")
            .ctx(path)?;
        for l in &fragment.logic {
            let rid = logic_stmt.insert(params![owner, l.node, l.steps, l.json]).ctx(path)?;
            extend(&mut ranges.logic, rid);
        }
    }
    Ok(ranges)
}

/// Extend a rid range by the next rid.
fn extend(range: &mut Option<(i64, i64)>, rid: i64) {
    *range = Some(range.map_or((rid, rid), |(lo, _)| (lo, rid)));
}

/// Insert one owner's edges, with rids from `first_rid` on when given (else the next ones);
/// returns their rid range.
pub(crate) fn insert_edges(
    conn: &rusqlite::Connection,
    path: &Path,
    owner: i64,
    fragment: &Fragment,
    first_rid: Option<i64>,
) -> Result<Option<(i64, i64)>, IndexError> {
    let mut stmt = conn
        .prepare_cached(
            "INSERT INTO edges(rid, owner, source, relation, class, target, path, line, col, attrs) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )
        .ctx(path)?;
    let mut range: Option<(i64, i64)> = None;
    for (i, edge) in fragment.edges.iter().enumerate() {
        let (p, line, col) = loc(&edge.location);
        let class = relation_class(&edge.relation).as_str();
        let attrs = attrs_json(path, &edge.attrs, &edge.source)?;
        let rid = first_rid.map(|r| r + i as i64);
        let rid = stmt
            .insert(params![rid, owner, edge.source, edge.relation, class, edge.target, p, line, col, attrs])
            .ctx(path)?;
        extend(&mut range, rid);
    }
    Ok(range)
}

/// Attributes as a JSON object, `NULL` when there are none.
fn attrs_json(path: &Path, attrs: &docforge_model::Attrs, of: &str) -> Result<Option<String>, IndexError> {
    if attrs.is_empty() {
        return Ok(None);
    }
    serde_json::to_string(attrs).map(Some).map_err(|e| IndexError::InvalidBatch {
        path: path.to_path_buf(),
        reason: format!("attrs of `{of}`: {e}"),
    })
}

pub(crate) fn fragment_rows(f: &Fragment) -> usize {
    f.nodes.len() + f.edges.len() + f.diagnostics.len() + f.logic.len()
}

/// The columns [`stored_from_row`] reads, in order.
pub(crate) const STORED_COLUMNS: &str =
    "key, id, digest, node_lo, node_hi, edge_lo, edge_hi, diag_lo, diag_hi, logic_lo, logic_hi";

pub(crate) fn stored_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(String, StoredOwner)> {
    let ranges = Ranges {
        nodes: range_at(r, 3)?,
        edges: range_at(r, 5)?,
        diags: range_at(r, 7)?,
        logic: range_at(r, 9)?,
    };
    Ok((r.get::<_, String>(0)?, StoredOwner { id: r.get(1)?, digest: r.get(2)?, ranges }))
}

/// The stored row of one owner, by key (one unique-index lookup).
pub(crate) fn load_owner(
    tx: &Transaction<'_>,
    path: &Path,
    key: &str,
) -> Result<Option<StoredOwner>, IndexError> {
    tx.prepare_cached(&format!("SELECT {STORED_COLUMNS} FROM owners WHERE key = ?1"))
        .ctx(path)?
        .query_row([key], stored_from_row)
        .optional()
        .ctx(path)
        .map(|o| o.map(|(_, s)| s))
}
