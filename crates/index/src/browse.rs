//! Bounded reads for fronts that page and traverse: exact attribute filters and one node's
//! neighbours with an explicit row budget (never a scan of the whole edge table).

use crate::error::{IndexError, SqlContext};
use crate::query::{attrs_at, location_at};
use crate::{relation_class, Index};
use docforge_model::{Attrs, Location, RelationClass};

/// An exact node filter. Every set field must match; `tag` matches one element of the
/// comma-separated `tags` attribute; `path_prefix` matches the node's location path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeFilter {
    pub kind: Option<String>,
    pub family: Option<String>,
    pub status: Option<String>,
    pub authority: Option<String>,
    pub tag: Option<String>,
    pub path_prefix: Option<String>,
}

/// A node row without its text (cheap to list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSummary {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub location: Option<Location>,
    pub attrs: Attrs,
}

/// A node, briefly ([`Index::node_briefs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeBrief {
    pub id: String,
    pub title: String,
    pub line: Option<u32>,
    /// The values of the attributes asked for, in their order (`None`: the node has none).
    pub values: Vec<Option<String>>,
}

/// Which end of an edge a traversal follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the node to the edge's target.
    Outgoing,
    /// From the node to the edge's source.
    Incoming,
}

/// One edge seen from the node asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Neighbour {
    pub relation: String,
    pub class: RelationClass,
    /// The other end.
    pub id: String,
    pub attrs: Attrs,
}

/// A node summary from the columns `id, kind, title, path, line, col, attrs` starting at `i`.
fn summary_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<NodeSummary> {
    Ok(NodeSummary {
        id: r.get(i)?,
        kind: r.get(i + 1)?,
        title: r.get(i + 2)?,
        location: location_at(r, i + 3)?,
        attrs: attrs_at(r, i + 6)?,
    })
}

fn like_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 1);
    for c in s.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// The longest ID (in characters) [`Index::closest_ids`] suggests for.
pub const CLOSEST_MAX_CHARS: usize = 256;

impl Index {
    /// Nodes matching `filter`, ordered by ID, starting after `after` (exclusive), at most
    /// `limit`. Returns one row per distinct ID (IDs declared twice are reported as diagnostics).
    pub fn filter_nodes(
        &self,
        filter: &NodeFilter,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<NodeSummary>, IndexError> {
        let mut sql = String::from("SELECT id, kind, title, path, line, col, attrs FROM nodes WHERE id > ?1");
        let mut params: Vec<String> = vec![after.unwrap_or("").to_string()];
        let mut add = |clause: &str, value: String| {
            params.push(value);
            sql.push_str(&clause.replace('?', &format!("?{}", params.len())));
        };
        if let Some(v) = &filter.kind {
            // The node kind (`document`, `func`, …) or a document's declared kind (`design`, …).
            add(" AND (kind = ? OR json_extract(attrs, '$.kind') = ?)", v.clone());
        }
        for (key, value) in
            [("family", &filter.family), ("status", &filter.status), ("authority", &filter.authority)]
        {
            if let Some(v) = value {
                add(&format!(" AND json_extract(attrs, '$.{key}') = ?"), v.clone());
            }
        }
        if let Some(v) = &filter.tag {
            add(
                " AND instr(',' || coalesce(json_extract(attrs, '$.tags'), '') || ',', ?) > 0",
                format!(",{v},"),
            );
        }
        if let Some(v) = &filter.path_prefix {
            add(" AND path LIKE ? ESCAPE '\\'", like_escape(v));
        }
        params.push(i64::try_from(limit).unwrap_or(i64::MAX).to_string());
        sql.push_str(&format!(" GROUP BY id ORDER BY id LIMIT CAST(?{} AS INTEGER)", params.len()));
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params.iter()), |r| summary_at(r, 0))
            .ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// Every node whose node kind is one of `kinds` (`document`, `section`, …), ordered by
    /// ID, one row per ID (the lexically first owner's, as [`Index::node`] reads it): one scan,
    /// where [`Index::filter_nodes`] would also match a document's declared kind.
    pub fn nodes_of_kinds(&self, kinds: &[&str]) -> Result<Vec<NodeSummary>, IndexError> {
        let marks = (1..=kinds.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT n.owner, n.rid, n.id, n.kind, n.title, n.path, n.line, n.col, n.attrs \
             FROM nodes n WHERE n.kind IN ({marks})"
        );
        let rows = self.owned_rows(&sql, kinds, |r| summary_at(r, 2))?;
        self.first_per_id(rows, |n| &n.id)
    }

    /// Every node of node kind `kind`, briefly: ID, title, line, and the values of the
    /// attributes `keys`; one row per ID as
    /// [`Index::nodes_of_kinds`] reads it, ordered by ID. What an outline of many documents'
    /// sections needs, without the allocations of whole summaries.
    pub fn node_briefs(&self, kind: &str, keys: &[&str]) -> Result<Vec<NodeBrief>, IndexError> {
        // The attributes are picked from their JSON here: one parse per row, keeping only
        // `keys` (SQLite's `json_extract` parses the text again for each key).
        let sql = "SELECT n.owner, n.rid, n.id, n.title, n.line, n.attrs FROM nodes n WHERE n.kind = ?1";
        let rows = self.owned_rows(sql, &[kind], |r| {
            let values = match r.get_ref(5)?.as_str_or_null()? {
                None => vec![None; keys.len()],
                Some(json) => picked_attrs(json, keys).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(5, rusqlite::types::Type::Text, Box::new(e))
                })?,
            };
            Ok(NodeBrief { id: r.get(2)?, title: r.get(3)?, line: r.get(4)?, values })
        })?;
        self.first_per_id(rows, |n| &n.id)
    }

    /// The rows of `sql` (whose first two columns are the owner and the row ID) with `params`,
    /// each made by `row`.
    fn owned_rows<T>(
        &self,
        sql: &str,
        params: &[&str],
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<(T, i64, i64)>, IndexError> {
        let mut row = row;
        let mut stmt = self.conn.prepare_cached(sql).ctx(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| Ok((row(r)?, r.get(0)?, r.get(1)?)))
            .ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// One of each ID's rows, ordered by ID: where several owners declared one ID, the
    /// lexically first owner's (then the first inserted), as [`Index::node`] reads it. Owner
    /// keys are read only for those.
    fn first_per_id<T>(
        &self,
        mut rows: Vec<(T, i64, i64)>,
        id: impl Fn(&T) -> &String,
    ) -> Result<Vec<T>, IndexError> {
        rows.sort_unstable_by(|a, b| id(&a.0).cmp(id(&b.0)).then(a.2.cmp(&b.2)));
        let key_of = |owner: i64| -> Result<String, IndexError> {
            self.conn
                .prepare_cached("SELECT key FROM owners WHERE id = ?1")
                .and_then(|mut s| s.query_row([owner], |r| r.get(0)))
                .ctx(&self.path)
        };
        let mut picks: Vec<usize> = Vec::with_capacity(rows.len());
        let mut i = 0;
        while i < rows.len() {
            let mut j = i + 1;
            while j < rows.len() && id(&rows[j].0) == id(&rows[i].0) {
                j += 1;
            }
            let mut pick = i;
            if j - i > 1 {
                let mut pick_key = key_of(rows[i].1)?;
                for k in i + 1..j {
                    let key = key_of(rows[k].1)?;
                    if (key.as_str(), rows[k].2) < (pick_key.as_str(), rows[pick].2) {
                        (pick, pick_key) = (k, key);
                    }
                }
            }
            picks.push(pick);
            i = j;
        }
        let mut picks = picks.into_iter().peekable();
        Ok(rows
            .into_iter()
            .enumerate()
            .filter(|(i, _)| picks.next_if_eq(i).is_some())
            .map(|(_, r)| r.0)
            .collect())
    }

    /// Up to `limit` edges of `id` in `direction`, ordered by relation then the other end.
    /// The caller asks for one more than it may use to learn whether more exist; the query
    /// reads at most `limit` rows through the `edges(source)`/`edges(target)` index.
    pub fn neighbours(
        &self,
        id: &str,
        direction: Direction,
        limit: usize,
    ) -> Result<Vec<Neighbour>, IndexError> {
        let (this, other) = match direction {
            Direction::Outgoing => ("source", "target"),
            Direction::Incoming => ("target", "source"),
        };
        let sql = format!(
            "SELECT relation, {other}, attrs FROM edges WHERE {this} = ?1 \
             ORDER BY relation, {other}, rid LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.path)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(rusqlite::params![id, limit], |r| {
                let relation: String = r.get(0)?;
                Ok(Neighbour {
                    class: relation_class(&relation),
                    relation,
                    id: r.get(1)?,
                    attrs: attrs_at(r, 2)?,
                })
            })
            .ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// Whether a node with exactly this ID exists in the committed generation.
    pub fn has_node(&self, id: &str) -> Result<bool, IndexError> {
        let mut stmt =
            self.conn.prepare_cached("SELECT 1 FROM nodes WHERE id = ?1 LIMIT 1").ctx(&self.path)?;
        stmt.exists([id]).ctx(&self.path)
    }

    /// Up to `limit` IDs equal to `id` but for ASCII case, in ID order (a scan of the node
    /// table: meant for suggestions after an exact lookup missed).
    pub fn ids_ignoring_case(&self, id: &str, limit: usize) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT id FROM nodes WHERE id = ?1 COLLATE NOCASE ORDER BY id LIMIT ?2")
            .ctx(&self.path)?;
        let rows = stmt.query_map(rusqlite::params![id, limit as i64], |r| r.get(0)).ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }

    /// Up to `n` IDs a person who typed `id` (no node's ID) may have meant, best first: the
    /// same ID in another case, then by edit distance of the whole ID or of its last element
    /// (a name typed for its ID: `OrderService` for `go:…/service::OrderService`), among the
    /// IDs in another case, those sharing the longest prefix with it (a typo or a cut near the
    /// end) and the search hits for it and its last element. Each is within half the length of
    /// edits of the ID, or its last element of the last element (farther ones mislead). An ID
    /// longer than [`CLOSEST_MAX_CHARS`] gets none: no one typed it.
    pub fn closest_ids(&self, id: &str, n: usize) -> Result<Vec<String>, IndexError> {
        if id.chars().count() > CLOSEST_MAX_CHARS {
            return Ok(Vec::new());
        }
        // Each candidate once (a prefix match is often a search hit too), ranked below.
        let mut candidates: std::collections::BTreeSet<String> =
            self.ids_ignoring_case(id, 3)?.into_iter().collect();
        let chars: Vec<(usize, char)> = id.char_indices().collect();
        for keep in (chars.len().div_ceil(2)..=chars.len()).rev() {
            let end = chars.get(keep).map_or(id.len(), |(i, _)| *i);
            let found = self.ids_with_prefix(&id[..end], 20)?;
            if !found.is_empty() {
                candidates.extend(found);
                break;
            }
        }
        // The last element of an ID: a symbol's name, a section's slug, a path's file name.
        fn tail(s: &str) -> &str {
            s.rsplit(['/', ':', '#', '.']).find(|p| !p.is_empty()).unwrap_or(s)
        }
        let last = tail(id);
        for query in [id, last] {
            candidates.extend(self.search(query, 30)?.into_iter().map(|h| h.id));
        }
        let (id_len, last_len) = (id.chars().count(), last.chars().count());
        let mut ranked: Vec<(bool, usize, String)> = candidates
            .into_iter()
            .filter_map(|c| {
                let other_case = !c.eq_ignore_ascii_case(id);
                let whole = strsim::levenshtein(id, &c);
                let end = strsim::levenshtein(last, tail(&c));
                let near = !other_case || whole <= id_len / 2 || end <= last_len / 2;
                near.then(|| (other_case, whole.min(end), c))
            })
            .collect();
        ranked.sort();
        Ok(ranked.into_iter().map(|(_, _, c)| c).take(n).collect())
    }

    /// Up to `limit` IDs that start with `prefix`, in ID order (through the ID index).
    pub fn ids_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<String>, IndexError> {
        // Every UTF-8 string that starts with `prefix` sorts before `prefix` + U+10FFFF.
        let end = format!("{prefix}\u{10FFFF}");
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT id FROM nodes WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3")
            .ctx(&self.path)?;
        let rows =
            stmt.query_map(rusqlite::params![prefix, end, limit as i64], |r| r.get(0)).ctx(&self.path)?;
        rows.collect::<Result<_, _>>().ctx(&self.path)
    }
}

/// Bounds of one traversal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraverseLimits {
    pub max_depth: u32,
    pub max_results: usize,
    /// Candidate edges the traversal may examine in total.
    pub edge_budget: usize,
}

/// A node a traversal reached, with the edge it was first reached through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reached {
    pub id: String,
    pub depth: u32,
    /// The node this one was reached from.
    pub from: String,
    pub relation: String,
    pub class: RelationClass,
}

/// Why a traversal stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truncation {
    /// Everything within `max_depth` was returned.
    None,
    /// More nodes were reachable than `max_results`.
    ResultLimit,
    /// The candidate-edge work budget ran out before the frontier was exhausted.
    EdgeBudget,
}

/// The outcome of [`Index::traverse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traversal {
    pub reached: Vec<Reached>,
    pub truncation: Truncation,
    pub edges_examined: usize,
}

impl Index {
    /// Breadth-first traversal from `start` in `direction`, in a deterministic order
    /// (depth, then relation and ID as stored), following only `relations` when given. It
    /// reads at most `edge_budget + 1` edge rows in total; it never scans the edge table.
    pub fn traverse(
        &self,
        start: &str,
        direction: Direction,
        relations: Option<&[String]>,
        limits: TraverseLimits,
    ) -> Result<Traversal, IndexError> {
        let mut seen = std::collections::HashSet::from([start.to_string()]);
        let mut frontier = vec![start.to_string()];
        let mut out = Traversal { reached: Vec::new(), truncation: Truncation::None, edges_examined: 0 };
        for depth in 1..=limits.max_depth {
            let mut next = Vec::new();
            for node in &frontier {
                let remaining = limits.edge_budget - out.edges_examined;
                let edges = self.neighbours(node, direction, remaining + 1)?;
                if edges.len() > remaining {
                    out.edges_examined = limits.edge_budget;
                    out.truncation = Truncation::EdgeBudget;
                    return Ok(out);
                }
                out.edges_examined += edges.len();
                for e in edges {
                    if relations.is_some_and(|r| !r.contains(&e.relation)) || seen.contains(&e.id) {
                        continue;
                    }
                    if out.reached.len() == limits.max_results {
                        out.truncation = Truncation::ResultLimit;
                        return Ok(out);
                    }
                    seen.insert(e.id.clone());
                    next.push(e.id.clone());
                    out.reached.push(Reached {
                        id: e.id,
                        depth,
                        from: node.clone(),
                        relation: e.relation,
                        class: e.class,
                    });
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        Ok(out)
    }
}

/// `id, kind, title, path, line, col, text, attrs` columns as a node and its raw attributes.
/// `id, kind, title, path, line, col, text, attrs` columns as a node.
fn node_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<docforge_model::Node> {
    Ok(docforge_model::Node {
        id: r.get(0)?,
        kind: r.get(1)?,
        title: r.get(2)?,
        location: location_at(r, 3)?,
        text: r.get(6)?,
        attrs: attrs_at(r, 7)?,
    })
}

impl Index {
    fn node_where(&self, sql: &str, params: &[&str]) -> Result<Option<docforge_model::Node>, IndexError> {
        use rusqlite::OptionalExtension;
        self.conn
            .prepare_cached(sql)
            .ctx(&self.path)?
            .query_row(rusqlite::params_from_iter(params), node_row)
            .optional()
            .ctx(&self.path)
    }

    /// One node by exact ID without its text or edges (the lexically first owner's row).
    pub fn node_summary(&self, id: &str) -> Result<Option<NodeSummary>, IndexError> {
        use rusqlite::OptionalExtension;
        self.conn
            .prepare_cached(
                "SELECT n.id, n.kind, n.title, n.path, n.line, n.col, n.attrs \
                 FROM nodes n JOIN owners o ON o.id = n.owner WHERE n.id = ?1 ORDER BY o.key, n.rid LIMIT 1",
            )
            .ctx(&self.path)?
            .query_row([id], |r| summary_at(r, 0))
            .optional()
            .ctx(&self.path)
    }

    /// One node row by exact ID without its edges (the lexically first owner's row).
    pub fn node_only(&self, id: &str) -> Result<Option<docforge_model::Node>, IndexError> {
        self.node_where(
            "SELECT n.id, n.kind, n.title, n.path, n.line, n.col, n.text, n.attrs \
             FROM nodes n JOIN owners o ON o.id = n.owner WHERE n.id = ?1 ORDER BY o.key, n.rid LIMIT 1",
            &[id],
        )
    }
}

impl Index {
    /// Whether the committed generation stores any Logic projection (one indexed probe).
    pub fn has_logic(&self) -> Result<bool, IndexError> {
        let mut stmt = self.conn.prepare_cached("SELECT 1 FROM logic LIMIT 1").ctx(&self.path)?;
        stmt.exists([]).ctx(&self.path)
    }
}

/// The rows one owner contributed, for comparing generations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnerContent {
    pub nodes: Vec<docforge_model::Node>,
    /// Edge identities `(source, relation, target)`.
    pub edges: Vec<(String, String, String)>,
}

impl Index {
    /// Every stored owner key with its digest.
    pub fn owner_digests(&self) -> Result<std::collections::HashMap<String, [u8; 32]>, IndexError> {
        let mut stmt = self.conn.prepare_cached("SELECT key, digest FROM owners").ctx(&self.path)?;
        let rows =
            stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))).ctx(&self.path)?;
        let mut out = std::collections::HashMap::new();
        for row in rows {
            let (key, digest) = row.ctx(&self.path)?;
            let digest: [u8; 32] = digest.try_into().map_err(|_| IndexError::Malformed {
                path: self.path.clone(),
                detail: format!("digest of owner `{key}` is not 32 bytes"),
            })?;
            out.insert(key, digest);
        }
        Ok(out)
    }

    /// The nodes and edge identities an owner contributed (empty when it is not stored).
    pub fn owner_content(&self, key: &str) -> Result<OwnerContent, IndexError> {
        let mut out = OwnerContent::default();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT n.id FROM nodes n JOIN owners o ON o.id = n.owner WHERE o.key = ?1 \
                 AND n.rid BETWEEN o.node_lo AND o.node_hi ORDER BY n.rid",
            )
            .ctx(&self.path)?;
        let ids: Vec<String> =
            stmt.query_map([key], |r| r.get(0)).ctx(&self.path)?.collect::<Result<_, _>>().ctx(&self.path)?;
        for id in ids {
            if let Some(n) = self.node_of_owner(key, &id)? {
                out.nodes.push(n);
            }
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT e.source, e.relation, e.target FROM edges e JOIN owners o ON o.id = e.owner \
                 WHERE o.key = ?1 AND e.rid BETWEEN o.edge_lo AND o.edge_hi ORDER BY e.rid",
            )
            .ctx(&self.path)?;
        out.edges = stmt
            .query_map([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .ctx(&self.path)?
            .collect::<Result<_, _>>()
            .ctx(&self.path)?;
        Ok(out)
    }

    fn node_of_owner(&self, key: &str, id: &str) -> Result<Option<docforge_model::Node>, IndexError> {
        self.node_where(
            "SELECT n.id, n.kind, n.title, n.path, n.line, n.col, n.text, n.attrs FROM nodes n \
             JOIN owners o ON o.id = n.owner WHERE o.key = ?1 AND n.id = ?2 ORDER BY n.rid LIMIT 1",
            &[key, id],
        )
    }
}

/// The values of `keys` in a node's attributes (a JSON object of strings), in their order;
/// the other attributes are skipped without being kept.
fn picked_attrs(json: &str, keys: &[&str]) -> Result<Vec<Option<String>>, serde_json::Error> {
    struct Picker<'k>(&'k [&'k str]);
    impl<'de> serde::de::DeserializeSeed<'de> for Picker<'_> {
        type Value = Vec<Option<String>>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> serde::de::Visitor<'de> for Picker<'_> {
        type Value = Vec<Option<String>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object of attributes")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut values = vec![None; self.0.len()];
            // As `json_extract` reads: a key's first value; a string as it is, `null` as
            // none, any other value as its JSON text.
            let mut seen = vec![false; self.0.len()];
            while let Some(key) = map.next_key::<String>()? {
                if !self.0.iter().enumerate().any(|(i, k)| *k == key && !seen[i]) {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
                let value = match map.next_value::<serde_json::Value>()? {
                    serde_json::Value::String(s) => Some(s),
                    serde_json::Value::Null => None,
                    other => Some(other.to_string()),
                };
                for (i, k) in self.0.iter().enumerate() {
                    if *k == key && !seen[i] {
                        seen[i] = true;
                        values[i] = value.clone();
                    }
                }
            }
            Ok(values)
        }
    }
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(json);
    let values = Picker(keys).deserialize(&mut de)?;
    de.end()?;
    Ok(values)
}
