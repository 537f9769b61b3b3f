//! Rename of document IDs and headings: every reference is updated in one `WorkspaceEdit`,
//! or the rename is refused with the reason when any reference cannot be updated safely.

use crate::handlers::{json, refuse, Answer, Ctx, Failure};
use crate::nav::{is_structural, node_at};
use docforge_db::Span;
use docforge_model::Node;
use lsp_types::{
    PrepareRenameResponse, RenameParams, TextDocumentPositionParams, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::HashMap;

pub(crate) fn prepare(ctx: &Ctx<'_>, p: TextDocumentPositionParams) -> Answer {
    let Some(m) = ctx.mention_at(&p.text_document.uri, p.position)? else {
        return Err(refuse("nothing to rename here: only document IDs and headings can be renamed"));
    };
    let node = renamable(ctx, node_at(ctx, &p.text_document.uri, p.position)?)?;
    let placeholder = match node.kind.as_str() {
        "section" => node.title.clone(),
        _ => node.id.clone(),
    };
    json(PrepareRenameResponse::RangeWithPlaceholder { range: ctx.range(&m.span)?, placeholder })
}

pub(crate) fn rename(ctx: &Ctx<'_>, p: RenameParams) -> Answer {
    let tp = p.text_document_position;
    let node = renamable(ctx, node_at(ctx, &tp.text_document.uri, tp.position)?)?;
    let mut plan = Plan { ctx, edits: HashMap::new() };
    match node.kind.as_str() {
        "section" => plan.heading(&node, p.new_name.trim())?,
        _ => plan.document(&node, p.new_name.trim())?,
    }
    json(WorkspaceEdit { changes: Some(plan.edits), ..Default::default() })
}

fn renamable(ctx: &Ctx<'_>, node: Option<Node>) -> Result<Node, Failure> {
    let Some(node) = node else {
        return Err(refuse("nothing to rename here: only document IDs and headings can be renamed"));
    };
    if !matches!(node.kind.as_str(), "document" | "toml_node" | "section") {
        return Err(refuse(format!(
            "`{}` is a {}: only document IDs and headings can be renamed",
            node.id, node.kind
        )));
    }
    let facts = doc_path(&node).map(|p| ctx.analysis.doc_facts(p)).transpose()?.flatten();
    let Some(facts) = facts else {
        return Err(refuse(format!("the document of `{}` is not loaded", node.id)));
    };
    if node.kind != "section" && facts.id_from_path {
        return Err(refuse(format!(
            "`{}` has no front-matter `id` (its ID comes from its path {}); add `id = \"…\"` to rename it",
            node.id, facts.path
        )));
    }
    let ide = ctx.analysis.ide()?;
    let doc_id = node.id.split('#').next().unwrap_or(&node.id);
    if ide.nodes().filter(|n| n.id == doc_id).count() > 1 {
        return Err(refuse(format!("`{doc_id}` is declared by several files; fix the duplicate ID first")));
    }
    Ok(node)
}

fn doc_path(node: &Node) -> Option<&str> {
    node.location.as_ref().map(|l| l.path.as_str())
}

struct Plan<'a, 'b> {
    ctx: &'a Ctx<'b>,
    edits: HashMap<Uri, Vec<TextEdit>>,
}

impl Plan<'_, '_> {
    fn line(&self, path: &str, line: u32) -> Result<String, Failure> {
        Ok(self.ctx.lines_of(path)?.get(line as usize - 1).unwrap_or("").to_string())
    }

    /// Replace the bytes `[start, end)` (1-based columns) of one line.
    fn replace(&mut self, path: &str, line: u32, start: u32, end: u32, new: &str) -> Result<(), Failure> {
        let range = self.ctx.range(&Span { path: path.to_string(), line, start, end })?;
        self.edits.entry(self.ctx.uri(path)).or_default().push(TextEdit::new(range, new.to_string()));
        Ok(())
    }

    fn document(&mut self, node: &Node, new: &str) -> Result<(), Failure> {
        let old = node.id.as_str();
        if new.is_empty() || new.contains(|c: char| c.is_whitespace() || "#[]|\"'".contains(c)) {
            return Err(refuse(format!(
                "`{new}` is not a valid document ID (no spaces, `#`, brackets, `|` or quotes)"
            )));
        }
        if new.starts_with("go:") || new.starts_with("file:") {
            return Err(refuse(format!("`{new}`: document IDs cannot use the `go:` or `file:` prefix")));
        }
        let ide = self.ctx.analysis.ide()?;
        if ide.node(new).is_some() {
            return Err(refuse(format!("`{new}` already names a node")));
        }
        let path = doc_path(node).unwrap_or_default().to_string();
        let facts = self.ctx.analysis.doc_facts(&path)?.expect("checked by renamable");
        let l = &facts.id_location;
        let text = self.line(&path, l.line)?;
        let inner = l.column + 1;
        if !text.get(inner as usize - 1..).is_some_and(|t| t.starts_with(old)) {
            return Err(refuse(format!(
                "the `id` of {path} is not written as a plain string; rename it by hand"
            )));
        }
        self.replace(&path, l.line, inner, inner + old.len() as u32, new)?;
        let targets: Vec<String> =
            std::iter::once(old.to_string()).chain(facts.sections.iter().map(|s| s.id.clone())).collect();
        for target in &targets {
            for e in ide.incoming(target).filter(|e| !is_structural(e)) {
                let Some(span) = self.ctx.edge_span(e)? else { continue };
                let written = self.line(&span.path, span.line)?;
                let token = written.get(span.start as usize - 1..span.end as usize - 1).unwrap_or("");
                let at = if token.starts_with("[[") {
                    span.start + 2
                } else if token.starts_with(['"', '\'']) {
                    span.start + 1
                } else if token.starts_with('[') || token.starts_with('<') {
                    continue; // a Markdown link names a path, not the ID: unaffected
                } else {
                    return Err(unsafe_ref(&span, token));
                };
                let rest = written.get(at as usize - 1..).unwrap_or("");
                let follows = rest.get(old.len()..).and_then(|r| r.chars().next());
                if !rest.starts_with(old) || !matches!(follows, Some(']' | '#' | '|' | '"' | '\'')) {
                    return Err(unsafe_ref(&span, token));
                }
                self.replace(&span.path, span.line, at, at + old.len() as u32, new)?;
            }
        }
        Ok(())
    }

    fn heading(&mut self, node: &Node, new: &str) -> Result<(), Failure> {
        let path = doc_path(node).unwrap_or_default().to_string();
        let facts = self.ctx.analysis.doc_facts(&path)?.expect("checked by renamable");
        let Some(section) = facts.section(&node.id) else { return Err(refuse("the heading is not loaded")) };
        if new.is_empty() || new.contains('\n') {
            return Err(refuse("a heading needs a one-line, non-empty text"));
        }
        let slugify = docforge_docs::slugify;
        if section.slug != slugify(&section.title) {
            return Err(refuse(format!(
                "the heading's anchor `#{}` is de-duplicated (another heading has the same text); rename it by hand",
                section.slug
            )));
        }
        let new_slug = slugify(new);
        if facts
            .sections
            .iter()
            .any(|s| s.id != section.id && (s.slug == new_slug || slugify(&s.title) == new_slug))
        {
            return Err(refuse(format!("another heading of {path} already has the anchor `#{new_slug}`")));
        }
        let l = &section.location;
        let text = self.line(&path, l.line)?;
        let Some(at) = text.find(&section.title) else {
            return Err(refuse("the heading text has inline markup; rename it by hand"));
        };
        let start = at as u32 + 1;
        self.replace(&path, l.line, start, start + section.title.len() as u32, new)?;
        if new_slug == section.slug {
            return Ok(());
        }
        let ide = self.ctx.analysis.ide()?;
        let old = format!("#{}", section.slug);
        for e in ide.incoming(&node.id).filter(|e| !is_structural(e)) {
            let Some(span) = self.ctx.edge_span(e)? else { continue };
            let written = self.line(&span.path, span.line)?;
            let token = written.get(span.start as usize - 1..span.end as usize - 1).unwrap_or("");
            let found = token.match_indices(&old).find(|(i, _)| {
                matches!(token[i + old.len()..].chars().next(), Some(')' | ']' | '|' | '"' | '\'' | '>'))
            });
            let Some((i, _)) = found else { return Err(unsafe_ref(&span, token)) };
            let at = span.start + i as u32 + 1;
            self.replace(&span.path, span.line, at, at + section.slug.len() as u32, &new_slug)?;
        }
        Ok(())
    }
}

fn unsafe_ref(span: &Span, token: &str) -> Failure {
    refuse(format!(
        "rename refused: the reference `{token}` at {}:{} does not spell the name exactly, so it cannot be updated safely",
        span.path, span.line
    ))
}
