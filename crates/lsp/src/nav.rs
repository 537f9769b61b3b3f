//! Navigation: definition, references, implementation, document and workspace symbols, call
//! hierarchy. Every answer comes from the engine's nodes and edges (`IdeIndex`), the
//! mention spans it computes and its identifier uses of package-level Go symbols.

use crate::handlers::{json, Answer, Ctx, Failure};
use docforge_model::{Edge, Node};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyIncomingCallsParams, CallHierarchyItem,
    CallHierarchyOutgoingCall, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams, DocumentSymbol,
    DocumentSymbolParams, GotoDefinitionParams, Location, Range, ReferenceParams, SymbolInformation,
    SymbolKind, WorkspaceSymbolParams,
};
use std::collections::BTreeMap;

/// Relations that structure the graph rather than refer to a node from a place.
pub(crate) fn is_structural(e: &Edge) -> bool {
    matches!(e.relation.as_str(), "contains" | "defines")
}

/// The node under the cursor (declared or referenced there).
pub(crate) fn node_at(
    ctx: &Ctx<'_>,
    uri: &lsp_types::Uri,
    pos: lsp_types::Position,
) -> Result<Option<Node>, Failure> {
    node_of(ctx, ctx.mention_at(uri, pos)?)
}

/// The node a mention declares or references.
fn node_of(ctx: &Ctx<'_>, m: Option<docforge_db::Mention>) -> Result<Option<Node>, Failure> {
    let Some(m) = m else { return Ok(None) };
    Ok(ctx.analysis.ide()?.node(&m.target).cloned())
}

/// The mention under the cursor that names what a name denotes there (definition,
/// references, hover): every mention but a call site's `calls` edge to one of CHA's possible
/// targets, which is not what the selector denotes (the interface method is: `field_at`).
pub(crate) fn denoting_mention_at(
    ctx: &Ctx<'_>,
    uri: &lsp_types::Uri,
    pos: lsp_types::Position,
) -> Result<Option<docforge_db::Mention>, Failure> {
    let m = ctx.mention_at(uri, pos)?;
    let dynamic = |e: &Edge| {
        e.relation == "calls" && e.attrs.get("classification").map(String::as_str) == Some(DYNAMIC)
    };
    Ok(m.filter(|m| !m.edge.as_ref().is_some_and(dynamic)))
}

/// The `classification` of a call edge to a possible target of an interface method call.
const DYNAMIC: &str = "cha_possible_target";

/// What the name under the cursor denotes: a node of the project, or a declaration outside
/// it (a mention whose target the project does not declare, read from the Go installation
/// or the module cache).
enum Denoted {
    Node(Node),
    External(docforge_db::ExternalNode),
}

/// The node or outside declaration [`denoting_mention_at`] names.
fn denoted_at(
    ctx: &Ctx<'_>,
    uri: &lsp_types::Uri,
    pos: lsp_types::Position,
) -> Result<Option<Denoted>, Failure> {
    let Some(m) = denoting_mention_at(ctx, uri, pos)? else { return Ok(None) };
    if let Some(n) = ctx.analysis.ide()?.node(&m.target) {
        return Ok(Some(Denoted::Node(n.clone())));
    }
    Ok(ctx.analysis.go_external_node(&m.target)?.map(Denoted::External))
}

pub(crate) fn definition(ctx: &Ctx<'_>, p: GotoDefinitionParams) -> Answer {
    let tp = p.text_document_position_params;
    let node = match denoted_at(ctx, &tp.text_document.uri, tp.position)? {
        Some(Denoted::Node(node)) => Some(node),
        Some(Denoted::External(ext)) => return json(ctx.external_location(&ext)),
        None => None,
    };
    let Some(node) = node else {
        if let Some((_, decl)) = local_at(ctx, &tp.text_document.uri, tp.position)? {
            return json(ctx.location(&decl)?);
        }
        let Some(f) = field_at(ctx, &tp.text_document.uri, tp.position)? else { return json(()) };
        return json(field_decl_location(ctx, &f)?);
    };
    json(ctx.decl_location(&node)?)
}

/// A struct field or interface method under the cursor: a selector of it (precise analysis)
/// or its declaration.
pub(crate) fn field_at(
    ctx: &Ctx<'_>,
    uri: &lsp_types::Uri,
    pos: lsp_types::Position,
) -> Result<Option<docforge_db::FieldRef>, Failure> {
    let Some((rel, line, col)) = go_pos(ctx, uri, pos)? else { return Ok(None) };
    Ok(ctx.analysis.go_field_at(&rel, line, col)?)
}

/// Where a struct field or interface method spec is declared: in the project, else (a
/// standard-library type) in the Go installation.
fn field_decl_location(ctx: &Ctx<'_>, f: &docforge_db::FieldRef) -> Result<Option<Location>, Failure> {
    if let Some(d) = ctx.analysis.go_field_decl(&f.owner, &f.field)? {
        return Ok(Some(ctx.location(&d)?));
    }
    Ok(ctx.analysis.go_external_field(&f.owner, &f.field)?.map(|e| ctx.external_location(&e)))
}

/// The Go file, 1-based line and byte column of an LSP position (`None` outside Go files).
fn go_pos(
    ctx: &Ctx<'_>,
    uri: &lsp_types::Uri,
    pos: lsp_types::Position,
) -> Result<Option<(String, u32, u32)>, Failure> {
    let Some(rel) = ctx.rel(uri).filter(|r| r.ends_with(".go")) else { return Ok(None) };
    Ok(ctx.byte_pos(&rel, pos)?.map(|(line, col)| (rel, line, col)))
}

/// A Go identifier under the cursor that a local declaration binds: its use and the
/// declaring identifier.
pub(crate) fn local_at(
    ctx: &Ctx<'_>,
    uri: &lsp_types::Uri,
    pos: lsp_types::Position,
) -> Result<Option<(docforge_db::Span, docforge_db::Span)>, Failure> {
    let Some((rel, line, col)) = go_pos(ctx, uri, pos)? else { return Ok(None) };
    Ok(ctx.analysis.go_local_at(&rel, line, col)?)
}

/// Every place that refers to `id` (links, relation targets, call sites, identifier uses of
/// a package-level Go symbol, …), sorted. A call edge stated on a line where a use of the
/// same symbol is recorded is that use (the use's span is the name), so it is listed once.
pub(crate) fn reference_locations(ctx: &Ctx<'_>, id: &str) -> Result<Vec<Location>, Failure> {
    let ide = ctx.analysis.ide()?;
    let uses = ctx.analysis.go_use_spans(id)?;
    let covered = |s: &docforge_db::Span| uses.iter().any(|u| u.path == s.path && u.line == s.line);
    let mut out = Vec::new();
    for e in ide.incoming(id).filter(|e| !is_structural(e)) {
        if let Some(span) = ctx.edge_span(e)? {
            if !(e.relation == "calls" && covered(&span)) {
                out.push(ctx.location(&span)?);
            }
        }
    }
    for span in &uses {
        out.push(ctx.location(span)?);
    }
    out.sort_by(|a, b| (a.uri.as_str(), a.range.start).cmp(&(b.uri.as_str(), b.range.start)));
    out.dedup();
    Ok(out)
}

pub(crate) fn references(ctx: &Ctx<'_>, p: ReferenceParams) -> Answer {
    let tp = p.text_document_position;
    let node = match denoted_at(ctx, &tp.text_document.uri, tp.position)? {
        Some(Denoted::Node(node)) => Some(node),
        Some(Denoted::External(ext)) => {
            // A name outside the project: its uses in the project.
            let mut out = Vec::new();
            if p.context.include_declaration {
                out.push(ctx.external_location(&ext));
            }
            out.extend(reference_locations(ctx, &ext.node.id)?);
            return json(out);
        }
        None => None,
    };
    let Some(node) = node else {
        // A local name: its uses in the file; a struct field or interface method: its selectors.
        let (decl, uses) = if let Some((_, decl)) = local_at(ctx, &tp.text_document.uri, tp.position)? {
            let uses = ctx.analysis.go_local_uses(&decl.path, &decl)?;
            (Some(ctx.location(&decl)?), uses)
        } else if let Some(f) = field_at(ctx, &tp.text_document.uri, tp.position)? {
            (field_decl_location(ctx, &f)?, ctx.analysis.go_field_uses(&f.owner, &f.field)?)
        } else {
            return json(());
        };
        let mut out = Vec::new();
        if p.context.include_declaration {
            out.extend(decl);
        }
        for span in &uses {
            out.push(ctx.location(span)?);
        }
        return json(out);
    };
    let mut out = Vec::new();
    if p.context.include_declaration {
        out.extend(ctx.decl_location(&node)?);
    }
    out.extend(reference_locations(ctx, &node.id)?);
    json(out)
}

/// Interface → the types implementing it; type → the interfaces it implements (those of the
/// standard library and required modules too, read as navigation reads them).
pub(crate) fn implementation(ctx: &Ctx<'_>, p: GotoDefinitionParams) -> Answer {
    let tp = p.text_document_position_params;
    let Some(node) = node_at(ctx, &tp.text_document.uri, tp.position)? else {
        // An interface outside the project: the project's types that implement it.
        let Some(Denoted::External(ext)) = denoted_at(ctx, &tp.text_document.uri, tp.position)? else {
            return json(());
        };
        let ide = ctx.analysis.ide()?;
        let mut out = Vec::new();
        for id in ctx.analysis.go_external_implements(&ext.node.id)? {
            if let Some(n) = ide.node(&id) {
                out.extend(ctx.decl_location(n)?);
            }
        }
        return json(out);
    };
    let ide = ctx.analysis.ide()?;
    let ids: Vec<&str> = if node.kind == "interface" {
        ide.incoming(&node.id).filter(|e| e.relation == "implements").map(|e| e.source.as_str()).collect()
    } else {
        ide.outgoing(&node.id).filter(|e| e.relation == "implements").map(|e| e.target.as_str()).collect()
    };
    let mut out = Vec::new();
    for id in ids {
        if let Some(n) = ide.node(id) {
            out.extend(ctx.decl_location(n)?);
        }
    }
    if node.kind != "interface" && node.id.starts_with("go:") {
        // The interfaces outside the project (of packages it imports) it implements.
        for id in ctx.analysis.go_external_implements(&node.id)? {
            if let Some(e) = ctx.analysis.go_external_node(&id)? {
                out.push(ctx.external_location(&e));
            }
        }
    }
    json(out)
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
fn doc_symbol(name: String, detail: String, kind: SymbolKind, range: Range) -> DocumentSymbol {
    DocumentSymbol {
        name,
        detail: Some(detail),
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: range,
        children: None,
    }
}

/// Headings (nested) for documents; declarations for Go files.
pub(crate) fn document_symbols(ctx: &Ctx<'_>, p: DocumentSymbolParams) -> Answer {
    let Some(rel) = ctx.rel(&p.text_document.uri) else { return json(()) };
    if let Some(facts) = ctx.analysis.doc_facts(&rel)? {
        let text = ctx.text(&rel)?.unwrap_or_default();
        let lines = crate::convert::lines(&text);
        let mut built: Vec<Option<DocumentSymbol>> = Vec::new();
        for s in &facts.sections {
            let line = lines.get(s.location.line as usize - 1).copied().unwrap_or("");
            let span = docforge_db::Span {
                path: rel.clone(),
                line: s.location.line,
                start: 1,
                end: line.len() as u32 + 1,
            };
            built.push(Some(doc_symbol(
                s.title.clone(),
                s.id.clone(),
                SymbolKind::NAMESPACE,
                ctx.range(&span)?,
            )));
        }
        // Children first (reverse document order), so each heading is complete when moved.
        for i in (0..facts.sections.len()).rev() {
            if let Some(parent) = facts.sections[i].parent {
                let child = built[i].take();
                if let (Some(child), Some(p)) = (child, built[parent].as_mut()) {
                    p.children.get_or_insert_with(Vec::new).insert(0, child);
                }
            }
        }
        return json(built.into_iter().flatten().collect::<Vec<_>>());
    }
    let ide = ctx.analysis.ide()?;
    let mut out = Vec::new();
    for n in ide.nodes_in(&rel).filter(|n| n.id.starts_with("go:") && n.kind != "package") {
        if let Some(span) = ctx.decl_span(n)? {
            out.push(doc_symbol(n.title.clone(), n.id.clone(), symbol_kind(&n.kind), ctx.range(&span)?));
        }
    }
    json(out)
}

/// Fuzzy over every node's ID and title (not files).
#[allow(deprecated)]
pub(crate) fn workspace_symbols(ctx: &Ctx<'_>, p: WorkspaceSymbolParams) -> Answer {
    let ide = ctx.analysis.ide()?;
    let mut out = Vec::new();
    for n in ide.fuzzy(&p.query, 200) {
        let Some(location) = ctx.decl_location(n)? else { continue };
        out.push(SymbolInformation {
            name: n.title.clone(),
            kind: symbol_kind(&n.kind),
            tags: None,
            deprecated: None,
            location,
            container_name: Some(n.id.clone()),
        });
    }
    json(out)
}

fn call_item(ctx: &Ctx<'_>, node: &Node, detail: String) -> Result<Option<CallHierarchyItem>, Failure> {
    let Some(loc) = ctx.decl_location(node)? else { return Ok(None) };
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
    let Some(node) = node_at(ctx, &tp.text_document.uri, tp.position)? else { return json(()) };
    if !matches!(node.kind.as_str(), "func" | "method") {
        return json(());
    }
    json(call_item(ctx, &node, node.id.clone())?.map(|i| vec![i]))
}

fn item_id(item: &CallHierarchyItem) -> Option<String> {
    item.data.as_ref().and_then(|d| d.as_str()).map(str::to_string)
}

/// `calls` edges grouped by the node on the other end, with their call sites and the
/// classification labels (`resolved_static`, `cha_possible_target`, …).
fn grouped<'a>(
    edges: impl Iterator<Item = &'a Edge>,
    other: impl Fn(&Edge) -> &str,
) -> BTreeMap<String, Vec<&'a Edge>> {
    let mut by: BTreeMap<String, Vec<&Edge>> = BTreeMap::new();
    for e in edges.filter(|e| e.relation == "calls") {
        by.entry(other(e).to_string()).or_default().push(e);
    }
    by
}

fn labels(edges: &[&Edge]) -> String {
    let mut l: Vec<&str> =
        edges.iter().map(|e| e.attrs.get("classification").map_or("unclassified", String::as_str)).collect();
    l.sort();
    l.dedup();
    format!("calls: {}", l.join(", "))
}

fn sites(ctx: &Ctx<'_>, edges: &[&Edge]) -> Result<Vec<Range>, Failure> {
    let mut out = Vec::new();
    for e in edges {
        if let Some(span) = ctx.edge_span(e)? {
            out.push(ctx.range(&span)?);
        }
    }
    Ok(out)
}

pub(crate) fn incoming_calls(ctx: &Ctx<'_>, p: CallHierarchyIncomingCallsParams) -> Answer {
    let calls = calls(ctx, &p.item, true)?;
    json(
        calls
            .into_iter()
            .map(|(from, from_ranges)| CallHierarchyIncomingCall { from, from_ranges })
            .collect::<Vec<_>>(),
    )
}

pub(crate) fn outgoing_calls(ctx: &Ctx<'_>, p: CallHierarchyOutgoingCallsParams) -> Answer {
    let calls = calls(ctx, &p.item, false)?;
    json(
        calls
            .into_iter()
            .map(|(to, from_ranges)| CallHierarchyOutgoingCall { to, from_ranges })
            .collect::<Vec<_>>(),
    )
}

/// Callers (`incoming`) or callees of an item, each with the call sites and labels.
fn calls(
    ctx: &Ctx<'_>,
    item: &CallHierarchyItem,
    incoming: bool,
) -> Result<Vec<(CallHierarchyItem, Vec<Range>)>, Failure> {
    let Some(id) = item_id(item) else { return Ok(Vec::new()) };
    let ide = ctx.analysis.ide()?;
    let by = if incoming {
        grouped(ide.incoming(&id), |e| &e.source)
    } else {
        grouped(ide.outgoing(&id), |e| &e.target)
    };
    let mut out = Vec::new();
    for (other, edges) in by {
        let Some(node) = ide.node(&other) else { continue };
        if let Some(item) = call_item(ctx, node, labels(&edges))? {
            out.push((item, sites(ctx, &edges)?));
        }
    }
    Ok(out)
}
