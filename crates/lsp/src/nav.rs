//! Navigation requests: definition, references, implementation, document and workspace
//! symbols, call hierarchy. The answers are `docforge_ide`'s; this only converts them.

use crate::handlers::{json, Answer, Ctx, Failure};
use docforge_ide::{CallGroup, NavigationTarget};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyIncomingCallsParams, CallHierarchyItem,
    CallHierarchyOutgoingCall, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams, DocumentSymbol,
    DocumentSymbolParams, GotoDefinitionParams, Location, Range, ReferenceParams, SymbolInformation,
    SymbolKind, WorkspaceSymbolParams,
};

fn locations(ctx: &Ctx<'_>, targets: &[NavigationTarget]) -> Result<Vec<Location>, Failure> {
    targets.iter().map(|t| ctx.location(&t.range)).collect()
}

pub(crate) fn definition(ctx: &Ctx<'_>, p: GotoDefinitionParams) -> Answer {
    let tp = p.text_document_position_params;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else { return json(()) };
    match ctx.ide.definition(&pos)? {
        Some(target) => json(ctx.location(&target.range)?),
        None => json(()),
    }
}

pub(crate) fn references(ctx: &Ctx<'_>, p: ReferenceParams) -> Answer {
    let tp = p.text_document_position;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else { return json(()) };
    let Some(found) = ctx.ide.references(&pos, p.context.include_declaration)? else { return json(()) };
    json(found.iter().map(|r| ctx.location(r)).collect::<Result<Vec<_>, _>>()?)
}

pub(crate) fn implementation(ctx: &Ctx<'_>, p: GotoDefinitionParams) -> Answer {
    let tp = p.text_document_position_params;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else { return json(()) };
    match ctx.ide.implementations(&pos)? {
        Some(targets) => json(locations(ctx, &targets)?),
        None => json(()),
    }
}

pub(crate) fn symbol_kind(kind: &str) -> SymbolKind {
    match kind {
        "func" => SymbolKind::FUNCTION,
        "method" => SymbolKind::METHOD,
        "struct" => SymbolKind::STRUCT,
        "interface" => SymbolKind::INTERFACE,
        "type" | "alias" => SymbolKind::CLASS,
        "var" => SymbolKind::VARIABLE,
        "const" => SymbolKind::CONSTANT,
        "package" => SymbolKind::PACKAGE,
        "module" => SymbolKind::MODULE,
        "section" => SymbolKind::NAMESPACE,
        "toml_node" => SymbolKind::OBJECT,
        _ => SymbolKind::FILE,
    }
}

#[allow(deprecated)]
fn doc_symbol(
    ctx: &Ctx<'_>,
    path: &str,
    s: &docforge_ide::DocumentSymbol,
) -> Result<DocumentSymbol, Failure> {
    let range = ctx.line_range(path, &s.range)?;
    let children = s.children.iter().map(|c| doc_symbol(ctx, path, c)).collect::<Result<Vec<_>, _>>()?;
    Ok(DocumentSymbol {
        name: s.name.clone(),
        detail: Some(s.node.clone()),
        kind: symbol_kind(&s.kind),
        tags: None,
        deprecated: None,
        range,
        selection_range: range,
        children: (!children.is_empty()).then_some(children),
    })
}

/// Headings (nested) for documents; declarations for Go files.
pub(crate) fn document_symbols(ctx: &Ctx<'_>, p: DocumentSymbolParams) -> Answer {
    let Some(rel) = ctx.rel(&p.text_document.uri) else { return json(()) };
    let symbols = ctx.ide.document_symbols(&rel)?;
    json(symbols.iter().map(|s| doc_symbol(ctx, &rel, s)).collect::<Result<Vec<_>, _>>()?)
}

/// Fuzzy over every node's ID and title (not files); the node's ID as the container name.
#[allow(deprecated)]
pub(crate) fn workspace_symbols(ctx: &Ctx<'_>, p: WorkspaceSymbolParams) -> Answer {
    let mut out = Vec::new();
    for t in ctx.ide.workspace_symbols(&p.query)? {
        let Some(node) = &t.node else { continue };
        out.push(SymbolInformation {
            name: node.title.clone(),
            kind: symbol_kind(&node.kind),
            tags: None,
            deprecated: None,
            location: ctx.location(&t.range)?,
            container_name: Some(node.id.clone()),
        });
    }
    json(out)
}

/// A call hierarchy item: the node's ID as its `data`.
fn call_item(
    ctx: &Ctx<'_>,
    t: &NavigationTarget,
    detail: String,
) -> Result<Option<CallHierarchyItem>, Failure> {
    let Some(node) = &t.node else { return Ok(None) };
    let loc = ctx.location(&t.range)?;
    Ok(Some(CallHierarchyItem {
        name: node.title.clone(),
        kind: symbol_kind(&node.kind),
        tags: None,
        detail: Some(detail),
        uri: loc.uri,
        range: loc.range,
        selection_range: loc.range,
        data: Some(serde_json::Value::String(node.id.clone())),
    }))
}

pub(crate) fn prepare_call_hierarchy(ctx: &Ctx<'_>, p: CallHierarchyPrepareParams) -> Answer {
    let tp = p.text_document_position_params;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else { return json(()) };
    let Some(target) = ctx.ide.call_hierarchy(&pos)? else { return json(()) };
    let id = target.node.as_ref().map(|n| n.id.clone()).unwrap_or_default();
    json(call_item(ctx, &target, id)?.map(|i| vec![i]))
}

fn item_id(item: &CallHierarchyItem) -> Option<String> {
    item.data.as_ref().and_then(|d| d.as_str()).map(str::to_string)
}

/// The item of a caller or callee (detail: how its calls were resolved) and the call sites.
fn call_group(ctx: &Ctx<'_>, g: &CallGroup) -> Result<Option<(CallHierarchyItem, Vec<Range>)>, Failure> {
    let detail = format!("calls: {}", g.classifications.join(", "));
    let Some(item) = call_item(ctx, &g.target, detail)? else { return Ok(None) };
    let sites = g.sites.iter().map(|s| ctx.range(s)).collect::<Result<Vec<_>, _>>()?;
    Ok(Some((item, sites)))
}

pub(crate) fn incoming_calls(ctx: &Ctx<'_>, p: CallHierarchyIncomingCallsParams) -> Answer {
    let groups = match item_id(&p.item) {
        Some(id) => ctx.ide.incoming_calls(&id)?,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for g in &groups {
        if let Some((from, from_ranges)) = call_group(ctx, g)? {
            out.push(CallHierarchyIncomingCall { from, from_ranges });
        }
    }
    json(out)
}

pub(crate) fn outgoing_calls(ctx: &Ctx<'_>, p: CallHierarchyOutgoingCallsParams) -> Answer {
    let groups = match item_id(&p.item) {
        Some(id) => ctx.ide.outgoing_calls(&id)?,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for g in &groups {
        if let Some((to, from_ranges)) = call_group(ctx, g)? {
            out.push(CallHierarchyOutgoingCall { to, from_ranges });
        }
    }
    json(out)
}
