//! Reading aids: completion of node IDs and relation keys, code lens over claims.

use crate::diagnostics::{claim_label, claim_outcomes};
use crate::handlers::{json, Answer, Ctx};
use lsp_types::{
    CodeLens, CodeLensParams, Command, CompletionItem, CompletionItemKind, CompletionParams,
    CompletionResponse, CompletionTextEdit, Position, Range, TextEdit,
};

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
    let Some(text) = ctx.ide.loaded(&rel)? else { return json(()) };
    let lines = crate::convert::lines(text.text());
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
