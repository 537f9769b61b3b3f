//! A file's outline (headings of a document, declarations of a Go file) and the project's
//! symbols matching a query.

use crate::target::{LineRange, NavigationTarget};
use crate::Ide;
use docforge_db::Cancellable;

/// One entry of a file's outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentSymbol {
    pub name: String,
    /// The node's ID.
    pub node: String,
    /// The node's kind (`section` for a heading).
    pub kind: String,
    /// In the outlined file: a heading's whole line, a declaration's name.
    pub range: LineRange,
    /// Nested headings, in document order.
    pub children: Vec<DocumentSymbol>,
}

impl Ide<'_> {
    /// The headings of a document, nested; the declarations of a Go file (not its package),
    /// in graph order. Empty for any other file.
    pub fn document_symbols(&self, path: &str) -> Cancellable<Vec<DocumentSymbol>> {
        if let Some(facts) = self.analysis.doc_facts(path)? {
            let lines = self.lines(path)?;
            let mut built: Vec<Option<DocumentSymbol>> = Vec::new();
            for s in &facts.sections {
                let line = lines.line(s.location.line).unwrap_or("");
                let range = LineRange { line: s.location.line.max(1) - 1, start: 0, end: line.len() as u32 };
                built.push(Some(DocumentSymbol {
                    name: s.title.clone(),
                    node: s.id.clone(),
                    kind: docforge_docs::SECTION_KIND.to_string(),
                    range,
                    children: Vec::new(),
                }));
            }
            // Children first (reverse document order), so each heading is complete when moved.
            for i in (0..facts.sections.len()).rev() {
                if let Some(parent) = facts.sections[i].parent {
                    let child = built[i].take();
                    if let (Some(child), Some(p)) = (child, built[parent].as_mut()) {
                        p.children.insert(0, child);
                    }
                }
            }
            return Ok(built.into_iter().flatten().collect());
        }
        let ide = self.analysis.ide()?;
        let mut out = Vec::new();
        for n in ide.nodes_in(path).filter(|n| n.id.starts_with("go:") && n.kind != "package") {
            if let Some(span) = self.decl_span(n)? {
                out.push(DocumentSymbol {
                    name: n.title.clone(),
                    node: n.id.clone(),
                    kind: n.kind.clone(),
                    range: LineRange::of_span(&span),
                    children: Vec::new(),
                });
            }
        }
        Ok(out)
    }

    /// Nodes (not files) whose ID or title matches `query` fuzzily, best first (at most 200),
    /// each where it is declared; nodes without a place are left out.
    pub fn workspace_symbols(&self, query: &str) -> Cancellable<Vec<NavigationTarget>> {
        let ide = self.analysis.ide()?;
        let mut out = Vec::new();
        for n in ide.fuzzy(query, 200) {
            out.extend(self.node_target(n)?);
        }
        Ok(out)
    }
}
