//! Heading anchors are the engine's section slugs: for every section the index holds for a
//! selected document, the document's page has exactly one element with that `id`, and every
//! `href="…#fragment"` on every page of a view lands on a page of the view that has that `id`.

mod common;

use common::{hrefs, ids, resolve_href, shop_copy, write, Indexed};
use docforge_index::NodeFilter;
use std::collections::{BTreeMap, BTreeSet};

/// Headings that are easy to get wrong: duplicates, setext, an explicit `{#id}`, inline markup,
/// non-ASCII and punctuation-only text, HTML anchors (one spelling a heading's slug), headings
/// inside a quote and a list, a `#` line in a fence, footnotes (and raw HTML spelling a
/// footnote's id), and CRLF line endings.
const HEADINGS: &str =
    "+++\r\nid = \"arch.headings\"\r\nkind = \"design\"\r\nfamily = \"architecture\"\r\n+++\r\n\
# Headings\r\n\r\nIntro with a footnote.[^note] <span id=\"fn-note\">A forged footnote id.</span>\r\n\r\n\
## Overview\r\n\r\ntext\r\n\r\n## Overview\r\n\r\nagain\r\n\r\n## Overview\r\n\r\n\
Setext heading\r\n--------------\r\n\r\n\
## Pinned {#pinned}\r\n\r\n\
## The `Repository` *interface* and [a link](storage.md)\r\n\r\n\
## Äpfel & Birnen — größer\r\n\r\n\
## ???\r\n\r\n\
<a id=\"overview\"></a>\r\n\r\n## After an anchor\r\n\r\n<a name=\"named\"></a>\r\n\r\n\
> ## Quoted heading\r\n\r\n\
- ## Listed heading\r\n\r\n\
```md\r\n# not a heading\r\n```\r\n\r\n\
## Links here\r\n\r\n[first](#overview) [second](#overview-1) [setext](#setext-heading) [pinned](#pinned) \
[umlauts](#äpfel--birnen--größer) [named](#named) [storage](storage.md#cache)\r\n\r\n\
[^note]: The footnote, with a [link](#links-here).\r\n";

#[test]
fn anchors_are_the_engines_slugs_and_every_fragment_lands() {
    let dir = shop_copy();
    write(dir.path(), "docs/arch/headings.md", HEADINGS);
    // Lone CR line endings (no front matter: in the pages view only).
    write(dir.path(), "docs/arch/cr.md", "# CR only\r\r## One\r\rTo [two](#two).\r\r## Two\r\r## One\r");
    let ix = Indexed::new(dir.path());
    let index = ix.workspace.index();
    let mut sections: Vec<(String, String)> = Vec::new(); // (document id, slug)
    let filter = NodeFilter { kind: Some("section".into()), ..Default::default() };
    for n in index.filter_nodes(&filter, None, 100_000).unwrap() {
        let (doc, slug) = n.id.split_once('#').expect("a section ID is doc#slug");
        assert_eq!(n.attrs.get("document").map(String::as_str), Some(doc), "{}", n.id);
        sections.push((doc.to_string(), slug.to_string()));
    }
    assert!(sections.iter().any(|(d, s)| d == "arch.headings" && s == "overview-2"), "{sections:?}");
    assert!(sections.iter().any(|(d, s)| d == "docs/arch/cr" && s == "one-1"), "{sections:?}");
    for view in ["architecture", "pages"] {
        let view = ix.view(view);
        let rendered = ix.render(&view);
        let pages: BTreeMap<&str, &str> = rendered
            .files
            .iter()
            .filter(|(p, _)| p.ends_with(".html"))
            .map(|(p, b)| (p.as_str(), std::str::from_utf8(b).unwrap()))
            .collect();
        let page_of: BTreeMap<String, String> = docforge_render::view::all_documents(index)
            .unwrap()
            .into_iter()
            .map(|d| (d.id, d.page))
            .filter(|(_, page)| pages.contains_key(page.as_str()))
            .collect();
        let mut checked = 0;
        for (doc, slug) in &sections {
            let Some(page) = page_of.get(doc) else { continue };
            let ids = ids(pages[page.as_str()]);
            let n = ids.iter().filter(|id| *id == slug).count();
            assert_eq!(n, 1, "{}: {page} has {n} elements with id {slug:?} (ids: {ids:?})", view.id);
            checked += 1;
        }
        assert!(checked >= 20, "{}: {checked} sections checked", view.id);
        let ids_of: BTreeMap<&str, BTreeSet<String>> =
            pages.iter().map(|(p, html)| (*p, ids(html).into_iter().collect())).collect();
        let mut fragments = 0;
        for (from, html) in &pages {
            for href in hrefs(html) {
                let Some((to, Some(frag))) = resolve_href(from, &href) else { continue };
                let to_ids = ids_of
                    .get(to.as_str())
                    .unwrap_or_else(|| panic!("{}: {from}: {href:?} is not a page of the view", view.id));
                let frag = percent_decode(&frag);
                assert!(to_ids.contains(&frag), "{}: {from}: {href:?}: {to} has no id {frag:?}", view.id);
                fragments += 1;
            }
        }
        assert!(fragments >= 30, "{}: {fragments} fragment links checked", view.id);
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).expect("hex"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}
