//! Reading aids: completion (decided by `docforge_ide`, converted here), code lens over claims.

use crate::diagnostics::{claim_label, claim_outcomes};
use crate::handlers::{json, Answer, Ctx};
use docforge_ide::CompletionKind;
use lsp_types::{
    CodeLens, CodeLensParams, Command, CompletionItem, CompletionItemKind, CompletionParams,
    CompletionResponse, CompletionTextEdit, Position, Range, TextEdit,
};

/// Node IDs and relation names as `docforge_ide` offers them.
pub(crate) fn completion(ctx: &Ctx<'_>, p: CompletionParams) -> Answer {
    let tp = p.text_document_position;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else { return json(()) };
    let Some(completions) = ctx.ide.completions(&pos)? else { return json(()) };
    let mut items = Vec::new();
    for c in completions {
        let kind = match &c.kind {
            CompletionKind::Relation(_) => CompletionItemKind::PROPERTY,
            CompletionKind::Node(k) if k == "document" || k == "toml_node" => CompletionItemKind::FILE,
            CompletionKind::Node(_) => CompletionItemKind::REFERENCE,
        };
        let range = ctx.line_range(&pos.path, &c.replace)?;
        items.push(CompletionItem {
            label: c.label,
            kind: Some(kind),
            detail: Some(c.detail),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, c.insert))),
            ..Default::default()
        });
    }
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
