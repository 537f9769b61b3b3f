//! Rename of document IDs and headings: `docforge_ide`'s plan as one `WorkspaceEdit`, or its
//! refusal, with the reason, as an error.

use crate::handlers::{json, refuse, Answer, Ctx, Failure};
use docforge_ide::RenameRefusal;
use lsp_types::{PrepareRenameResponse, RenameParams, TextDocumentPositionParams, TextEdit, WorkspaceEdit};
use std::collections::HashMap;

pub(crate) fn prepare(ctx: &Ctx<'_>, p: TextDocumentPositionParams) -> Answer {
    let Some(pos) = ctx.position(&p.text_document.uri, p.position)? else {
        return Err(refuse(RenameRefusal::NothingHere.to_string()));
    };
    match ctx.ide.prepare_rename(&pos)? {
        Ok(r) => json(PrepareRenameResponse::RangeWithPlaceholder {
            range: ctx.range(&r.range)?,
            placeholder: r.placeholder,
        }),
        Err(why) => Err(refuse(why.to_string())),
    }
}

pub(crate) fn rename(ctx: &Ctx<'_>, p: RenameParams) -> Answer {
    let tp = p.text_document_position;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else {
        return Err(refuse(RenameRefusal::NothingHere.to_string()));
    };
    let change = match ctx.ide.rename(&pos, &p.new_name)? {
        Ok(change) => change,
        Err(why) => return Err(refuse(why.to_string())),
    };
    let file_edits = |(path, edits): (&String, &Vec<docforge_ide::TextEdit>)| {
        let converted =
            edits.iter().map(|e| Ok(TextEdit::new(ctx.line_range(path, &e.range)?, e.new_text.clone())));
        Ok((ctx.uri(path), converted.collect::<Result<Vec<_>, Failure>>()?))
    };
    let changes = change.files.iter().map(file_edits).collect::<Result<HashMap<_, _>, Failure>>();
    json(WorkspaceEdit { changes: Some(changes?), ..Default::default() })
}
