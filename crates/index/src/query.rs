//! Reads of the committed generation.

use crate::error::{IndexError, SqlContext};
use crate::{
    relation_class, EdgeRecord, FileRecord, Index, LogicRecord, NodeRecord, OwnerChange, Publication,
    References, Stats, SCHEMA_VERSION,
};
use docforge_model::{Attrs, Diagnostic, Location, Node, Severity};
use rusqlite::{OptionalExtension, Row};
use std::collections::BTreeMap;

pub(crate) fn file_from_row(r: &Row<'_>) -> rusqlite::Result<FileRecord> {
    Ok(FileRecord {
        path: r.get(0)?,
        size: r.get::<_, i64>(1)?.max(0) as u64,
        mtime_ns: r.get(2)?,
        ctime_ns: r.get(3)?,
        ino: r.get::<_, i64>(4)? as u64,
        racy: r.get(5)?,
        sha256: r.get(6)?,
        kind: r.get(7)?,
        status: r.get(8)?,
    })
}

/// A location from three nullable columns starting at `i`.
pub(crate) fn location_at(r: &Row<'_>, i: usize) -> rusqlite::Result<Option<Location>> {
    let path: Option<String> = r.get(i)?;
    Ok(match path {
        Some(path) => Some(Location {
            path,
            line: r.get::<_, Option<u32>>(i + 1)?.unwrap_or(0),
            column: r.get::<_, Option<u32>>(i + 2)?.unwrap_or(0),
        }),
        None => None,
    })
}

/// An edge from the columns `source, relation, target, path, line, col, owner key, attrs`
/// starting at `i`; `outgoing` says which end is the other one.
fn edge_at(r: &Row<'_>, i: usize, outgoing: bool) -> rusqlite::Result<EdgeRecord> {
    let source: String = r.get(i)?;
    let relation: String = r.get(i + 1)?;
    let target: String = r.get(i + 2)?;
    Ok(EdgeRecord {
        class: relation_class(&relation),
        other: if outgoing { target.clone() } else { source.clone() },
        source,
        relation,
        target,
        location: location_at(r, i + 3)?,
        attrs: attrs_at(r, i + 7)?,
        owner: r.get(i + 6)?,
    })
}

/// A JSON attribute object column (`NULL` = none); malformed JSON is a conversion error.
pub(crate) fn attrs_at(r: &Row<'_>, i: usize) -> rusqlite::Result<Attrs> {
    match r.get::<_, Option<String>>(i)? {
        None => Ok(Attrs::new()),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
        }),
    }
}

fn severity_from(s: &str) -> Option<Severity> {
    match s {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "info" => Some(Severity::Info),
        _ => None,
    }
}

const DIAG_COLUMNS: &str = "severity, code, message, node, path, line, col";

impl Index {
    fn count_by(&self, sql: &str) -> Result<BTreeMap<String, u64>, IndexError> {
        let mut stmt = self.conn.prepare_cached(sql).ctx(&self.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)))
            .ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// The meta table (reserved keys and batch meta) of the committed generation: one
    /// small read, unlike [`Index::stats`], which counts every table.
    pub fn meta(&self) -> Result<BTreeMap<String, String>, IndexError> {
        let mut stmt = self.conn.prepare_cached("SELECT key, value FROM meta").ctx(&self.path)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// The identity of the committed generation; `None` before the first publish.
    ///
    /// The meta rows are read in one statement, so they always belong to one generation.
    pub fn publication(&self) -> Result<Option<Publication>, IndexError> {
        let meta = self.meta()?;
        let generation: u64 = match meta.get("generation") {
            None => 0,
            Some(g) => g.parse().map_err(|_| IndexError::Malformed {
                path: self.path.clone(),
                detail: format!("meta generation `{g}` is not a number"),
            })?,
        };
        if generation == 0 {
            return Ok(None);
        }
        let (dev, inode) = self.file_identity()?;
        let get = |k: &str| meta.get(k).cloned().unwrap_or_default();
        Ok(Some(Publication {
            path: self.path.clone(),
            dev,
            inode,
            generation,
            source_fingerprint: get("source_fingerprint"),
            schema_version: get("schema_version").parse().unwrap_or(SCHEMA_VERSION),
            published_at: get("published_at"),
            graph_digest: get("graph_digest"),
        }))
    }

    /// Counts of the committed generation, read in one transaction.
    pub fn stats(&self) -> Result<Stats, IndexError> {
        self.read_snapshot(Index::stats_in_snapshot)
    }

    /// Run `read` in one read snapshot: every query it makes sees the same generation, even
    /// when another process publishes meanwhile. Snapshots nest (the outermost one holds).
    pub fn read_snapshot<T, E: From<IndexError>>(
        &self,
        read: impl FnOnce(&Index) -> Result<T, E>,
    ) -> Result<T, E> {
        let path = &self.path;
        self.conn.prepare_cached("SAVEPOINT read_snapshot").and_then(|mut s| s.execute([])).ctx(path)?;
        let result = read(self);
        self.conn.prepare_cached("RELEASE read_snapshot").and_then(|mut s| s.execute([])).ctx(path)?;
        result
    }

    fn stats_in_snapshot(&self) -> Result<Stats, IndexError> {
        let one = |sql: &str| -> Result<u64, IndexError> {
            self.conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64).ctx(&self.path)
        };
        let meta = self.meta()?;
        Ok(Stats {
            generation: meta.get("generation").and_then(|g| g.parse().ok()).unwrap_or(0),
            owners: one("SELECT count(*) FROM owners")?,
            nodes: one("SELECT count(*) FROM nodes")?,
            edges: one("SELECT count(*) FROM edges")?,
            logic: one("SELECT count(*) FROM logic")?,
            nodes_by_kind: self.count_by("SELECT kind, count(*) FROM nodes GROUP BY kind")?,
            edges_by_relation: self.count_by("SELECT relation, count(*) FROM edges GROUP BY relation")?,
            edges_by_class: self.count_by("SELECT class, count(*) FROM edges GROUP BY class")?,
            files_by_kind: self.count_by("SELECT kind, count(*) FROM files GROUP BY kind")?,
            files_by_status: self.count_by("SELECT status, count(*) FROM files GROUP BY status")?,
            diagnostics_by_severity: self
                .count_by("SELECT severity, count(*) FROM diagnostics GROUP BY severity")?,
            meta,
        })
    }

    /// One node (the row of the lexically first owner when several contributed the same ID)
    /// with its outgoing and incoming edges and its diagnostics.
    pub fn node(&self, id: &str) -> Result<Option<NodeRecord>, IndexError> {
        self.read_snapshot(|ix| ix.node_in_snapshot(id))
    }

    /// The references and diagnostics of the node `id` and of every node inside it — the
    /// nodes whose ID is `id#…`, a document's sections — read in one snapshot: outgoing
    /// edges (by source), incoming ones (by target), diagnostics (by node). Tree edges
    /// (`contains`, `defines`: they place a node, see `is_tree_relation`) are left out.
    pub fn references_within(&self, id: &str) -> Result<References, IndexError> {
        Ok(self.references_within_each(&[id])?.remove(id).unwrap_or_default())
    }

    /// [`Index::references_within`] of each of `ids` (each once), in three reads whatever
    /// their number: what a page of every document of a view needs.
    pub fn references_within_each(&self, ids: &[&str]) -> Result<BTreeMap<String, References>, IndexError> {
        let ids: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
        let list = serde_json::to_string(&ids).map_err(|e| IndexError::Malformed {
            path: self.path.clone(),
            detail: format!("node IDs: {e}"),
        })?;
        let mut out: BTreeMap<String, References> =
            ids.iter().map(|id| (id.to_string(), References::default())).collect();
        // [id, id + "$") holds `id` and every `id#…` ('$' follows '#'), and some other IDs
        // (`id!…`), left out here.
        let inside =
            |id: &str, other: &str| other == id || other.strip_prefix(id).is_some_and(|r| r.starts_with('#'));
        let tree = docforge_model::TREE_RELATIONS.map(|r| format!("'{r}'")).join(", ");
        self.read_snapshot(|ix| {
            for (column, other) in [("source", "target"), ("target", "source")] {
                let sql = format!(
                    "SELECT d.value, e.source, e.relation, e.target, e.path, e.line, e.col, o.key, e.attrs \
                     FROM json_each(?1) d JOIN edges e ON e.{column} >= d.value AND e.{column} < d.value || '$' \
                     JOIN owners o ON o.id = e.owner WHERE e.relation NOT IN ({tree}) \
                     ORDER BY d.key, e.relation, e.{other}, e.rid"
                );
                let mut stmt = ix.conn.prepare_cached(&sql).ctx(&ix.path)?;
                let outgoing = column == "source";
                let rows = stmt
                    .query_map([&list], |r| Ok((r.get::<_, String>(0)?, edge_at(r, 1, outgoing)?)))
                    .ctx(&ix.path)?;
                for row in rows {
                    let (id, edge) = row.ctx(&ix.path)?;
                    let refs = out.get_mut(&id).expect("an ID asked for");
                    if outgoing && inside(&id, &edge.source) {
                        refs.outgoing.push(edge);
                    } else if !outgoing && inside(&id, &edge.target) {
                        refs.incoming.push(edge);
                    }
                }
            }
            let diagnostics = ix.diagnostics_with(
                "SELECT g.severity, g.code, g.message, g.node, g.path, g.line, g.col, d.value \
                     FROM json_each(?1) d JOIN diagnostics g ON g.node >= d.value AND g.node < d.value || '$' \
                     ORDER BY d.key, g.path, g.line, g.col, g.code, g.rid",
                &[&list],
                |r| r.get::<_, String>(7),
            )?;
            for (d, id) in diagnostics {
                if d.node.as_deref().is_some_and(|n| inside(&id, n)) {
                    out.get_mut(&id).expect("an ID asked for").diagnostics.push(d);
                }
            }
            Ok(out)
        })
    }

    fn node_in_snapshot(&self, id: &str) -> Result<Option<NodeRecord>, IndexError> {
        let path = &self.path;
        let row = self
            .conn
            .prepare_cached(
                "SELECT n.id, n.kind, n.title, n.path, n.line, n.col, n.text, n.attrs, o.key \
                 FROM nodes n JOIN owners o ON o.id = n.owner WHERE n.id = ?1 ORDER BY o.key, n.rid LIMIT 1",
            )
            .ctx(path)?
            .query_row([id], |r| {
                let node = Node {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    title: r.get(2)?,
                    location: location_at(r, 3)?,
                    text: r.get(6)?,
                    attrs: Attrs::new(),
                };
                Ok((node, r.get::<_, Option<String>>(7)?, r.get::<_, String>(8)?))
            })
            .optional()
            .ctx(path)?;
        let Some((mut node, attrs, owner)) = row else { return Ok(None) };
        if let Some(attrs) = attrs {
            node.attrs = serde_json::from_str(&attrs).map_err(|e| IndexError::Malformed {
                path: path.clone(),
                detail: format!("attrs of node `{id}`: {e}"),
            })?;
        }
        let outgoing = self.edges_where("source", id)?;
        let incoming = self.edges_where("target", id)?;
        let diagnostics = self.diagnostics_sql(
            &format!(
                "SELECT {DIAG_COLUMNS} FROM diagnostics WHERE node = ?1 ORDER BY path, line, col, code, rid"
            ),
            &[id],
        )?;
        Ok(Some(NodeRecord { node, owner, outgoing, incoming, diagnostics }))
    }

    /// The Logic projection stored for the node `id` (exact match), if any. More than one row
    /// for one ID (duplicate declarations) is refused rather than one picked.
    pub fn logic(&self, id: &str) -> Result<Option<LogicRecord>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT l.node, l.steps, l.body, o.key FROM logic l JOIN owners o ON o.id = l.owner \
                 WHERE l.node = ?1 LIMIT 2",
            )
            .ctx(&self.path)?;
        let rows: Vec<LogicRecord> = stmt
            .query_map([id], |r| {
                Ok(LogicRecord { node: r.get(0)?, steps: r.get(1)?, json: r.get(2)?, owner: r.get(3)? })
            })
            .ctx(&self.path)?
            .collect::<Result<_, _>>()
            .ctx(&self.path)?;
        match rows.len() {
            0 => Ok(None),
            1 => Ok(rows.into_iter().next()),
            _ => Err(IndexError::Malformed {
                path: self.path.clone(),
                detail: format!("more than one Logic projection for `{id}`"),
            }),
        }
    }

    fn edges_where(&self, column: &str, id: &str) -> Result<Vec<EdgeRecord>, IndexError> {
        self.edges_sql(column, &format!("e.{column} = ?1"), &[id])
    }

    fn edges_sql(
        &self,
        column: &str,
        condition: &str,
        params: &[&str],
    ) -> Result<Vec<EdgeRecord>, IndexError> {
        let outgoing = column == "source";
        let sql = format!(
            "SELECT e.source, e.relation, e.target, e.path, e.line, e.col, o.key, e.attrs \
             FROM edges e JOIN owners o ON o.id = e.owner WHERE {condition} \
             ORDER BY e.relation, {}, e.rid",
            if outgoing { "e.target" } else { "e.source" }
        );
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| edge_at(r, 0, outgoing))
            .ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    fn diagnostics_sql(&self, sql: &str, params: &[&str]) -> Result<Vec<Diagnostic>, IndexError> {
        Ok(self.diagnostics_with(sql, params, |_| Ok(()))?.into_iter().map(|(d, ())| d).collect())
    }

    /// The diagnostics of `sql` (the columns of [`DIAG_COLUMNS`] first), each with what
    /// `extra` reads of its row.
    fn diagnostics_with<T>(
        &self,
        sql: &str,
        params: &[&str],
        extra: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<(Diagnostic, T)>, IndexError> {
        let mut stmt = self.conn.prepare_cached(sql).ctx(&self.path)?;
        let map = |r: &Row<'_>| {
            Ok((
                r.get::<_, String>(0)?,
                Diagnostic {
                    severity: Severity::Info,
                    code: r.get(1)?,
                    message: r.get(2)?,
                    node: r.get(3)?,
                    location: location_at(r, 4)?,
                },
                extra(r)?,
            ))
        };
        let rows: Vec<(String, Diagnostic, T)> = stmt
            .query_map(rusqlite::params_from_iter(params), map)
            .ctx(&self.path)?
            .collect::<Result<_, _>>()
            .ctx(&self.path)?;
        rows.into_iter()
            .map(|(sev, mut d, t)| {
                d.severity = severity_from(&sev).ok_or_else(|| IndexError::Malformed {
                    path: self.path.clone(),
                    detail: format!("diagnostic severity `{sev}`"),
                })?;
                Ok((d, t))
            })
            .collect()
    }

    /// The owners the latest generation added, changed or removed, by key. Empty before the
    /// first publish; a no-op publish leaves the previous transition in place.
    pub fn last_transition(&self) -> Result<Vec<OwnerChange>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT owner_key, change, old_digest, new_digest FROM transition ORDER BY owner_key",
            )
            .ctx(&self.path)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(OwnerChange {
                    key: r.get(0)?,
                    change: r.get(1)?,
                    old_digest: r.get::<_, Option<Vec<u8>>>(2)?.map(hex::encode),
                    new_digest: r.get::<_, Option<Vec<u8>>>(3)?.map(hex::encode),
                })
            })
            .ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// The file inventory of the committed generation, by path.
    pub fn files(&self) -> Result<Vec<FileRecord>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path, size, mtime_ns, ctime_ns, ino, racy, sha256, kind, status FROM files ORDER BY path",
            )
            .ctx(&self.path)?;
        let rows = stmt.query_map([], file_from_row).ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// Every diagnostic of the committed generation, ordered by place, then code.
    pub fn diagnostics(&self) -> Result<Vec<Diagnostic>, IndexError> {
        self.diagnostics_sql(
            &format!("SELECT {DIAG_COLUMNS} FROM diagnostics ORDER BY path, line, col, code, message, rid"),
            &[],
        )
    }
}
