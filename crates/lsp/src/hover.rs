//! Hover: `docforge_ide`'s sections rendered as Markdown, one paragraph each.

use crate::handlers::{json, Answer, Ctx};
use docforge_ide::{HoverSection, HoverTitle, MemberOwner, PlaceLabel};
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

pub(crate) fn hover(ctx: &Ctx<'_>, p: HoverParams) -> Answer {
    let tp = p.text_document_position_params;
    let Some(pos) = ctx.position(&tp.text_document.uri, tp.position)? else { return json(()) };
    let Some(found) = ctx.ide.hover(&pos)? else { return json(()) };
    let value = found.sections.iter().map(section).collect::<Vec<_>>().join("\n\n");
    json(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }),
        range: Some(ctx.range(&found.range)?),
    })
}

fn section(s: &HoverSection) -> String {
    match s {
        HoverSection::Title(t) => title(t),
        HoverSection::Kind { kind, attrs } => {
            let mut line = format!("kind: {kind}");
            for (label, value) in attrs {
                line.push_str(&format!(" · {label}: {value}"));
            }
            line
        }
        HoverSection::GoCode(code) => format!("```go\n{code}\n```"),
        HoverSection::Documentation(doc) => doc.clone(),
        HoverSection::Place { label, path, line } => {
            let at = match line {
                Some(l) => format!("`{path}:{l}`"),
                None => format!("`{path}`"),
            };
            match label {
                PlaceLabel::Declared => format!("declared at {at}"),
                PlaceLabel::Origin(origin) => format!("{origin}: {at}"),
            }
        }
        HoverSection::Relations { incoming, outgoing } => {
            format!("incoming: {}  \noutgoing: {}", counts(incoming), counts(outgoing))
        }
        HoverSection::DocumentedBy(by) => {
            // In the order of the rendered text, as this hover has always listed them.
            let mut by: Vec<String> =
                by.iter().map(|(id, relation)| format!("`{id}` ({relation})")).collect();
            by.sort();
            format!("governed / documented by: {}", by.join(", "))
        }
    }
}

fn title(t: &HoverTitle) -> String {
    match t {
        HoverTitle::Node { title, id } => format!("**{title}** `{id}`"),
        HoverTitle::Local { name } => format!("**local `{name}`**"),
        HoverTitle::Member { name, method, owner } => {
            let what = if *method { "method" } else { "field" };
            match owner {
                MemberOwner::Named(owner) => {
                    let of = if *method { "interface " } else { "" };
                    format!("**{what} `{name}` of {of}`{owner}`**")
                }
                MemberOwner::LocalType(local) => format!("**{what} `{name}` of local type `{local}`**"),
                MemberOwner::Unnamed => {
                    let of = if *method { "interface" } else { "struct" };
                    format!("**{what} `{name}` of an unnamed {of} type**")
                }
            }
        }
    }
}

/// `relation n, …`, or `none`.
fn counts(by: &[(String, usize)]) -> String {
    if by.is_empty() {
        return "none".into();
    }
    by.iter().map(|(r, n)| format!("{r} {n}")).collect::<Vec<_>>().join(", ")
}
