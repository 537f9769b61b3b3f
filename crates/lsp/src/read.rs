//! Reading aids: hover (a node card; for a Go local name, struct field or interface method,
//! what it is and its declaring line), completion of node IDs, code lens over claims.

use crate::diagnostics::{claim_label, claim_outcomes};
use crate::handlers::{json, Answer, Ctx, Failure};
use crate::nav::{denoting_mention_at, field_at, is_structural, local_at};
use docforge_model::Node;
use lsp_types::{
    CodeLens, CodeLensParams, Command, CompletionItem, CompletionItemKind, CompletionParams,
    CompletionResponse, CompletionTextEdit, Hover, HoverContents, HoverParams, MarkupContent, MarkupKind,
    Position, Range, TextEdit,
};
use std::collections::BTreeMap;

pub(crate) fn hover(ctx: &Ctx<'_>, p: HoverParams) -> Answer {
    let tp = p.text_document_position_params;
    let Some(m) = denoting_mention_at(ctx, &tp.text_document.uri, tp.position)? else {
        return json(go_name_hover(ctx, &tp.text_document.uri, tp.position)?);
    };
    let ide = ctx.analysis.ide()?;
    let Some(node) = ide.node(&m.target) else {
        // A declaration outside the project (Go installation, module cache).
        let Some(ext) = ctx.analysis.go_external_node(&m.target)? else { return json(()) };
        let mut card = node_card(&ext.node);
        if let Some(doc) = &ext.doc {
            card.push_str(&format!("\n\n{doc}"));
        }
        card.push_str(&format!("\n\n{}: `{}`", ext.origin, ext.file.display()));
        let contents = HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: card });
        return json(Hover { contents, range: Some(ctx.range(&m.span)?) });
    };
    let mut card = node_card(node);
    let count = |edges: Vec<&docforge_model::Edge>| {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for e in edges.into_iter().filter(|e| !is_structural(e)) {
            *by.entry(e.relation.as_str()).or_default() += 1;
        }
        by.iter().map(|(r, n)| format!("{r} {n}")).collect::<Vec<_>>().join(", ")
    };
    let incoming = count(ide.incoming(&node.id).collect());
    let outgoing = count(ide.outgoing(&node.id).collect());
    card.push_str(&format!(
        "\n\nincoming: {}  \noutgoing: {}",
        if incoming.is_empty() { "none" } else { &incoming },
        if outgoing.is_empty() { "none" } else { &outgoing }
    ));
    if node.id.starts_with("go:") {
        let mut docs: Vec<String> = ide
            .incoming(&node.id)
            .filter(|e| !e.source.starts_with("go:") && !e.source.starts_with("file:"))
            .map(|e| format!("`{}` ({})", e.source, e.relation))
            .collect();
        docs.sort();
        docs.dedup();
        if !docs.is_empty() {
            card.push_str(&format!("\n\ngoverned / documented by: {}", docs.join(", ")));
        }
    }
    let hover = Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: card }),
        range: Some(ctx.range(&m.span)?),
    };
    json(hover)
}

/// A Go local name, struct field or interface method under the cursor: what it is, where it
/// is declared and the declaring line.
fn go_name_hover(ctx: &Ctx<'_>, uri: &lsp_types::Uri, pos: Position) -> Result<Option<Hover>, Failure> {
    let mut external = None;
    let (span, title, decl) = if let Some((at, decl)) = local_at(ctx, uri, pos)? {
        let name = ctx
            .lines_of(&decl.path)?
            .get(decl.line as usize - 1)
            .and_then(|l| l.get(decl.start as usize - 1..decl.end as usize - 1).map(str::to_string));
        (at, format!("local `{}`", name.unwrap_or_default()), Some(decl))
    } else if let Some(f) = field_at(ctx, uri, pos)? {
        let owner = f.owner.strip_prefix("go:").unwrap_or(&f.owner);
        let what = if f.method { "method" } else { "field" };
        let of = if f.method { "interface " } else { "" };
        let title = if f.owner.starts_with("anon:") {
            match ctx.analysis.go_local_type_name(&f.owner)? {
                Some(local) => format!("{what} `{}` of local type `{local}`", f.field),
                None => {
                    let of = if f.method { "interface" } else { "struct" };
                    format!("{what} `{}` of an unnamed {of} type", f.field)
                }
            }
        } else {
            format!("{what} `{}` of {of}`{owner}`", f.field)
        };
        let decl = ctx.analysis.go_field_decl(&f.owner, &f.field)?;
        if decl.is_none() {
            // A field or method spec of a standard-library type.
            external = ctx.analysis.go_external_field(&f.owner, &f.field)?;
        }
        (f.span, title, decl)
    } else {
        return Ok(None);
    };
    let mut card = format!("**{title}**");
    if let Some(d) = decl {
        if let Some(line) = ctx.lines_of(&d.path)?.get(d.line as usize - 1) {
            card.push_str(&format!("\n\n```go\n{}\n```\n\ndeclared at `{}:{}`", line.trim(), d.path, d.line));
        }
    }
    if let Some(e) = external {
        let line = e.line_text.trim();
        card.push_str(&format!("\n\n```go\n{line}\n```\n\n{}: `{}:{}`", e.origin, e.file.display(), e.line));
    }
    let contents = HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: card });
    Ok(Some(Hover { contents, range: Some(ctx.range(&span)?) }))
}

/// Kind, family, status and the other attributes of a node, with a Go signature when known.
fn node_card(node: &Node) -> String {
    let mut card = format!("**{}** `{}`\n\nkind: {}", node.title, node.id, node.kind);
    for key in ["family", "status", "authority", "kind", "tags", "package", "receiver", "calls_resolved"] {
        if let Some(v) = node.attrs.get(key).filter(|_| !(key == "kind" && node.attrs[key] == node.kind)) {
            let label = if key == "kind" { "document kind" } else { key };
            card.push_str(&format!(" · {label}: {v}"));
        }
    }
    if node.id.starts_with("go:") && !node.text.is_empty() {
        card.push_str(&format!("\n\n```go\n{}\n```", node.text));
    }
    card
}

/// What is being typed: the ID prefix and where it starts (byte offset in the line).
fn typed_id(before: &str) -> Option<(usize, &str, bool)> {
    if let Some(open) = before.rfind("[[") {
        if !before[open..].contains("]]") && !before[open..].contains(char::is_whitespace) {
            let typed = &before[open + 2..];
            return Some((open + 2, typed, typed.starts_with("go:")));
        }
    }
    if let Some(at) = before.rfind("go:") {
        let typed = &before[at..];
        if !typed.contains(|c: char| c.is_whitespace() || matches!(c, '"' | ')' | ']')) {
            return Some((at, typed, true));
        }
    }
    // A quoted front-matter value (a relation target).
    let quote = before.rfind('"')?;
    let typed = &before[quote + 1..];
    (before[..quote].matches('"').count().is_multiple_of(2) && before.contains(['[', '='])).then_some((
        quote + 1,
        typed,
        false,
    ))
}

/// Node IDs after `[[`, after `go:`, and inside quoted front-matter relation targets.
pub(crate) fn completion(ctx: &Ctx<'_>, p: CompletionParams) -> Answer {
    let tp = p.text_document_position;
    let Some(rel) = ctx.rel(&tp.text_document.uri) else { return json(()) };
    let Some(text) = ctx.text(&rel)? else { return json(()) };
    let lines = crate::convert::lines(&text);
    let Some(line) = lines.get(tp.position.line as usize) else { return json(()) };
    let col = crate::convert::column(line, tp.position.character, ctx.shared.enc) as usize;
    let before = &line[..col - 1];
    let in_front_matter =
        lines[..tp.position.line as usize].iter().filter(|l| l.trim_end() == "+++").count() == 1;
    if in_front_matter && before.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return relation_keys(&lines[..tp.position.line as usize], tp.position, before, line, ctx);
    }
    let Some((start, typed, go)) = typed_id(before) else { return json(()) };
    if !go && !before.contains("[[") && !in_front_matter {
        return json(());
    }
    let ide = ctx.analysis.ide()?;
    let range = Range::new(
        Position::new(tp.position.line, crate::convert::character(line, start as u32 + 1, ctx.shared.enc)),
        tp.position,
    );
    let mut items: Vec<CompletionItem> = ide
        .nodes()
        .filter(|n| n.id.starts_with(typed) && n.kind != "file" && n.id.starts_with("go:") == go)
        .take(200)
        .map(|n| CompletionItem {
            label: n.id.clone(),
            kind: Some(match n.kind.as_str() {
                "section" => CompletionItemKind::REFERENCE,
                "document" | "toml_node" => CompletionItemKind::FILE,
                _ => CompletionItemKind::REFERENCE,
            }),
            detail: Some(format!("{} — {}", n.kind, n.title)),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, n.id.clone()))),
            ..Default::default()
        })
        .collect();
    items.sort_by(|a, b| a.label.cmp(&b.label));
    json(CompletionResponse::Array(items))
}

/// One lens over each claim with its current outcome and reason code.
pub(crate) fn code_lens(ctx: &Ctx<'_>, p: CodeLensParams) -> Answer {
    let Some(rel) = ctx.rel(&p.text_document.uri) else { return json(()) };
    let outcomes = claim_outcomes(ctx.shared, ctx.folder, ctx.analysis)?;
    let mut out = Vec::new();
    for c in outcomes.iter().filter(|c| c.claim.location.path == rel) {
        let line = c.claim.location.line.saturating_sub(1);
        let title = format!("claim {}: {} ({})", claim_label(&c.claim), c.outcome.as_str(), c.reason);
        out.push(CodeLens {
            range: Range::new(Position::new(line, 0), Position::new(line, 0)),
            command: Some(Command { title, command: String::new(), arguments: None }),
            data: None,
        });
    }
    json(out)
}

/// Relation names of the v1 vocabulary at the start of a line under `[relations]`.
fn relation_keys(above: &[&str], pos: Position, typed: &str, line: &str, ctx: &Ctx<'_>) -> Answer {
    let table = above.iter().rev().map(|l| l.trim()).find(|l| l.starts_with('['));
    if table != Some("[relations]") {
        return json(());
    }
    let start = Position::new(pos.line, 0);
    let end =
        Position::new(pos.line, crate::convert::character(line, typed.len() as u32 + 1, ctx.shared.enc));
    let items: Vec<CompletionItem> = docforge_model::RELATION_ALIASES_V1
        .iter()
        .filter(|(name, _)| name.starts_with(typed))
        .map(|(name, class)| CompletionItem {
            label: name.to_string(),
            kind: Some(CompletionItemKind::PROPERTY),
            detail: Some(format!("relation ({})", class.as_str())),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                Range::new(start, end),
                format!("{name} = [\"\"]"),
            ))),
            ..Default::default()
        })
        .collect();
    json(CompletionResponse::Array(items))
}
