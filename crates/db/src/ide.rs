//! Editor queries over already-extracted facts: what is at a place in a file, which nodes and
//! edges a file holds, a node's incoming and outgoing edges. For interactive fronts (the LSP).
//!
//! Nothing here parses: spans are the facts' start locations (links, relation targets, call
//! sites, declarations) extended over the token the location points at in the file's text
//! (a `[[wiki]]` link, a `[text](dest)` link, a quoted string, the callee name before `(`).

use crate::go_q::GoDir;
use crate::host::{Analysis, Cancellable};
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_docs::DocFacts;
use docforge_model::{Edge, Fragment, Node};
use salsa::Cancelled;
use std::collections::HashMap;
use std::sync::Arc;

/// A place in one file: 1-based line, 1-based byte columns `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub path: String,
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn contains(&self, line: u32, column: u32) -> bool {
        self.line == line && self.start <= column && column <= self.end
    }
}

/// A node mention at a place: where a node is declared, or an edge stated there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    pub span: Span,
    /// The node declared or referenced.
    pub target: String,
    /// The edge stating the reference (`None` for a declaration or a use).
    pub edge: Option<Edge>,
    /// An identifier use of a package-level Go symbol (not an edge: see
    /// [`Analysis::go_uses_in`]).
    pub use_site: bool,
}

type Ref = (u32, u32);

/// Lookup tables over one revision's graph: one part per directory chunk (memoised, so an
/// edit rebuilds only its directory's part) plus one for the project-level owners.
pub struct IdeIndex {
    parts: Vec<Arc<Part>>,
}

/// The lookup tables of some owners.
struct Part {
    owners: Vec<Arc<Fragment>>,
    nodes: HashMap<String, Ref>,
    incoming: HashMap<String, Vec<Ref>>,
    outgoing: HashMap<String, Vec<Ref>>,
    nodes_at: HashMap<String, Vec<Ref>>,
    edges_at: HashMap<String, Vec<Ref>>,
}

#[salsa::tracked(returns(ref), no_eq)]
fn chunk_part(db: &dyn Db, d: GoDir<'_>) -> Arc<Part> {
    let chunk = crate::assemble::dir_chunk(db, d);
    Arc::new(Part::build(chunk.owners.iter().map(|o| o.fragment.clone()).collect()))
}

#[salsa::tracked(returns(ref), no_eq)]
pub(crate) fn ide_index(db: &dyn Db, ws: Workspace) -> Arc<IdeIndex> {
    let mut parts: Vec<Arc<Part>> = crate::assemble::all_dirs(db, ws)
        .keys()
        .map(|dir| chunk_part(db, GoDir::new(db, ws, dir.clone())).clone())
        .collect();
    let extra = &crate::assemble::graph(db, ws).extra;
    parts.push(Arc::new(Part::build(extra.iter().map(|o| o.fragment.clone()).collect())));
    Arc::new(IdeIndex { parts })
}

impl Part {
    fn build(owners: Vec<Arc<Fragment>>) -> Self {
        let mut ix = Part {
            owners,
            nodes: HashMap::new(),
            incoming: HashMap::new(),
            outgoing: HashMap::new(),
            nodes_at: HashMap::new(),
            edges_at: HashMap::new(),
        };
        for (o, f) in ix.owners.iter().enumerate() {
            let o = o as u32;
            for (i, n) in f.nodes.iter().enumerate() {
                ix.nodes.entry(n.id.clone()).or_insert((o, i as u32));
                if let Some(l) = n.location.as_ref().filter(|l| l.line > 0) {
                    push(&mut ix.nodes_at, &l.path, (o, i as u32));
                }
            }
            for (i, e) in f.edges.iter().enumerate() {
                let r = (o, i as u32);
                push(&mut ix.incoming, &e.target, r);
                push(&mut ix.outgoing, &e.source, r);
                if let Some(l) = e.location.as_ref().filter(|l| l.line > 0) {
                    push(&mut ix.edges_at, &l.path, r);
                }
            }
        }
        ix
    }

    fn node_ref(&self, r: Ref) -> &Node {
        &self.owners[r.0 as usize].nodes[r.1 as usize]
    }
    fn edges<'a>(
        &'a self,
        map: &'a HashMap<String, Vec<Ref>>,
        key: &str,
    ) -> impl Iterator<Item = &'a Edge> + 'a {
        map.get(key).into_iter().flatten().map(move |&(o, i)| &self.owners[o as usize].edges[i as usize])
    }
}

impl IdeIndex {
    /// One index over a whole graph (without memoised parts).
    pub fn new(graph: &crate::Graph) -> Self {
        IdeIndex { parts: vec![Arc::new(Part::build(graph.owners().map(|o| o.fragment.clone()).collect()))] }
    }

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.parts.iter().find_map(|p| p.nodes.get(id).map(|&r| p.node_ref(r)))
    }
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.parts.iter().flat_map(|p| p.owners.iter()).flat_map(|f| f.nodes.iter())
    }
    /// Edges pointing at `id`.
    pub fn incoming<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Edge> + 'a {
        self.parts.iter().flat_map(move |p| p.edges(&p.incoming, id))
    }
    /// Edges leaving `id`.
    pub fn outgoing<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Edge> + 'a {
        self.parts.iter().flat_map(move |p| p.edges(&p.outgoing, id))
    }
    /// Nodes declared in the file at `path`, in graph order.
    pub fn nodes_in<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.parts
            .iter()
            .flat_map(move |p| p.nodes_at.get(path).into_iter().flatten().map(move |&r| p.node_ref(r)))
    }
    /// Edges stated in the file at `path`.
    pub fn edges_in<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Edge> + 'a {
        self.parts.iter().flat_map(move |p| p.edges(&p.edges_at, path))
    }

    /// Nodes whose ID or title contains `query`'s characters in order (case-insensitive),
    /// best first: a contiguous match, then a shorter ID.
    pub fn fuzzy(&self, query: &str, limit: usize) -> Vec<&Node> {
        let query = query.to_lowercase();
        let q: Vec<char> = query.chars().collect();
        let mut scored: Vec<(u8, usize, &Node)> = self
            .nodes()
            .filter(|n| n.kind != "file")
            .filter_map(|n| {
                let id = n.id.to_lowercase();
                let title = n.title.to_lowercase();
                let contiguous = id.contains(&query) || title.contains(&query);
                let matches = contiguous || subsequence(&q, &id) || subsequence(&q, &title);
                matches.then_some((u8::from(!contiguous), n.id.len(), n))
            })
            .collect();
        scored.sort_by(|a, b| (a.0, a.1, &a.2.id).cmp(&(b.0, b.1, &b.2.id)));
        scored.into_iter().take(limit).map(|(_, _, n)| n).collect()
    }
}

/// Append to a key's list, allocating the key only the first time it is seen.
fn push(map: &mut HashMap<String, Vec<Ref>>, key: &str, r: Ref) {
    match map.get_mut(key) {
        Some(list) => list.push(r),
        None => {
            map.insert(key.to_string(), vec![r]);
        }
    }
}

fn subsequence(q: &[char], s: &str) -> bool {
    let mut it = q.iter().peekable();
    for c in s.chars() {
        if it.peek() == Some(&&c) {
            it.next();
        }
    }
    it.peek().is_none()
}

impl Analysis {
    /// The lookup tables of this revision (built on first use, then shared).
    pub fn ide(&self) -> Cancellable<Arc<IdeIndex>> {
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| ide_index(db, ws).clone()))
    }

    pub(crate) fn source(&self, rel: &str) -> Cancellable<Option<SourceFile>> {
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            ws.files(db).binary_search_by(|f| f.rel(db).as_str().cmp(rel)).ok().map(|i| ws.files(db)[i])
        }))
    }

    /// The text of a loaded file as the engine sees it (the editor's buffer for open files).
    pub fn file_text(&self, rel: &str) -> Cancellable<Option<Arc<[u8]>>> {
        let (db, _) = self.parts();
        Ok(self.source(rel)?.and_then(|f| match f.content(db) {
            Content::Bytes(b) => Some(b.clone()),
            Content::Unreadable { .. } => None,
        }))
    }

    /// The document facts (sections, links, relations, claims) of a Markdown/TOML file.
    pub fn doc_facts(&self, rel: &str) -> Cancellable<Option<Arc<DocFacts>>> {
        let (db, _) = self.parts();
        let Some(file) = self.source(rel)? else { return Ok(None) };
        Cancelled::catch(std::panic::AssertUnwindSafe(|| match file.kind(db) {
            docforge_project::FileKind::Markdown | docforge_project::FileKind::TomlNode => {
                Some(crate::docs_q::doc_facts(db, file).clone())
            }
            _ => None,
        }))
    }

    /// Every node mention in the file at `rel`: declarations, then edges stated there, each
    /// with its span.
    pub fn mentions(&self, rel: &str) -> Cancellable<Vec<Mention>> {
        let ide = self.ide()?;
        let Some(text) = self.file_text(rel)? else { return Ok(Vec::new()) };
        let text = String::from_utf8_lossy(&text);
        let lines: Vec<&str> = text.split('\n').collect();
        let facts = self.doc_facts(rel)?;
        let mut out = Vec::new();
        for n in ide.nodes_in(rel) {
            let Some(loc) = &n.location else { continue };
            let (line, col) = match &facts {
                Some(f) if n.id == f.id && !f.id_from_path => (f.id_location.line, f.id_location.column),
                _ => (loc.line, loc.column),
            };
            let Some(l) = lines.get(line as usize - 1) else { continue };
            let end = if n.kind == docforge_docs::SECTION_KIND {
                l.trim_end().len() as u32 + 1
            } else if facts.as_ref().is_some_and(|f| f.id_from_path) {
                col
            } else if facts.is_some() {
                extent(l, col).unwrap_or(col)
            } else {
                (col + n.title.len() as u32).min(l.len() as u32 + 1)
            };
            let span = Span { path: rel.to_string(), line, start: col, end };
            out.push(Mention { span, target: n.id.clone(), edge: None, use_site: false });
        }
        for e in ide.edges_in(rel) {
            if let Some(span) = edge_span(&lines, e) {
                out.push(Mention { span, target: e.target.clone(), edge: Some(e.clone()), use_site: false });
            }
        }
        Ok(out)
    }

    /// Where an edge is stated, over the token its location points at (`None` for the tree's
    /// edges, [`Edge::is_tree`], and edges without a place).
    pub fn edge_span(&self, e: &Edge) -> Cancellable<Option<Span>> {
        let Some(loc) = &e.location else { return Ok(None) };
        let Some(text) = self.file_text(&loc.path)? else { return Ok(None) };
        let text = String::from_utf8_lossy(&text);
        Ok(edge_span(&text.split('\n').collect::<Vec<_>>(), e))
    }

    /// The kind of a loaded file.
    pub fn file_kind(&self, rel: &str) -> Cancellable<Option<docforge_project::FileKind>> {
        let (db, _) = self.parts();
        Ok(self.source(rel)?.map(|f| f.kind(db)))
    }

    /// The innermost mention covering a 1-based line and byte column: a declaration or an
    /// edge stated there, else a use of a Go symbol (computed only then: a declaration or
    /// call edge covers the same identifier).
    pub fn mention_at(&self, rel: &str, line: u32, column: u32) -> Cancellable<Option<Mention>> {
        let mut found: Vec<Mention> =
            self.mentions(rel)?.into_iter().filter(|m| m.span.contains(line, column)).collect();
        if found.is_empty() && self.file_kind(rel)? == Some(docforge_project::FileKind::Go) {
            found.extend(self.go_uses_in(rel)?.into_iter().filter(|m| m.span.contains(line, column)));
        }
        found.sort_by_key(|m| (m.span.end - m.span.start, m.edge.is_none()));
        Ok(found.into_iter().next())
    }

    /// Test hook for cancellation: keeps reading the database until this snapshot is
    /// cancelled by a write (then `Err(Cancelled)`) or `max` elapses (then `Ok`).
    pub fn wait_for_cancellation(&self, max: std::time::Duration) -> Cancellable<()> {
        let (db, ws) = self.parts();
        let until = std::time::Instant::now() + max;
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            while std::time::Instant::now() < until {
                let _ = crate::docs_q::doc_index(db, ws);
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }))
    }
}

fn edge_span(lines: &[&str], e: &Edge) -> Option<Span> {
    let loc = e.location.as_ref().filter(|l| l.line > 0)?;
    edge_span_on_line(lines.get(loc.line as usize - 1)?, e)
}

/// [`Analysis::edge_span`] given the text of the edge's line (for callers that cache lines).
pub fn edge_span_on_line(line: &str, e: &Edge) -> Option<Span> {
    let loc = e.location.as_ref().filter(|l| l.line > 0)?;
    if e.is_tree() {
        return None;
    }
    let (start, end) = if e.relation == "calls" {
        (callee_start(line, loc.column), loc.column)
    } else {
        (loc.column, extent(line, loc.column).unwrap_or(loc.column))
    };
    Some(Span { path: loc.path.clone(), line: loc.line, start, end })
}

/// The end column of the token a fact's location points at in `line`: a `[[wiki]]` link,
/// a `[text](dest)` / `[text][label]` link, an `<autolink>`, a quoted string, or a word.
pub fn extent(line: &str, column: u32) -> Option<u32> {
    let start = (column as usize).checked_sub(1)?;
    let rest = line.get(start..)?;
    let end = if let Some(body) = rest.strip_prefix("[[") {
        body.find("]]").map(|i| i + 4)?
    } else if rest.starts_with('[') {
        let close = rest.find(']')?;
        match rest[close + 1..].chars().next() {
            Some('(') => close + 1 + rest[close + 1..].find(')')? + 1,
            Some('[') => close + 1 + rest[close + 1..].find(']')? + 1,
            _ => close + 1,
        }
    } else if rest.starts_with('<') {
        rest.find('>')? + 1
    } else if let Some(q) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        rest[1..].find(q)? + 2
    } else {
        rest.find(|c: char| c.is_whitespace() || matches!(c, ',' | ')' | ']')).unwrap_or(rest.len())
    };
    Some(column + end as u32)
}

/// The first column of the callee name that ends just before the `(` at `column`.
fn callee_start(line: &str, column: u32) -> u32 {
    let end = (column as usize).saturating_sub(1).min(line.len());
    let before = &line.as_bytes()[..end];
    let len =
        before.iter().rev().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b >= 0x80).count();
    column - len as u32
}

#[cfg(test)]
mod tests {
    use super::extent;

    #[test]
    fn extents_cover_the_token_at_a_fact_location() {
        let line = r#"see [[a.b#c]], [x](y.md#z), [r][lab], <go:p::X>, "arch.storage", word."#;
        let at = |s: &str| line.find(s).unwrap() as u32 + 1;
        let cases = [
            ("[[a.b", "[[a.b#c]]"),
            ("[x]", "[x](y.md#z)"),
            ("[r]", "[r][lab]"),
            ("<go", "<go:p::X>"),
            ("\"arch", "\"arch.storage\""),
            ("word", "word."),
        ];
        for (from, token) in cases {
            let end = extent(line, at(from)).unwrap();
            assert_eq!(&line[at(from) as usize - 1..end as usize - 1], token);
        }
        assert_eq!(super::callee_start("\ts.placed.Add(x)", 14), 11);
    }
}
