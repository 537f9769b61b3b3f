//! A page's size does not grow with the site's: a site of more than 100 documents lists, on
//! every page, each family and kind (a link to its list on the index page, with its count)
//! and of the page's own kind the 40 documents around it, with links to the rest.

mod common;

use common::{ids, page, resolve_href, shop_copy, write, Indexed};
use expect_test::expect;

/// The `<nav class="site-nav">` of a page.
fn nav(page: &str) -> &str {
    let start = page.find("<nav class=\"site-nav\">").expect("a site navigation");
    let end = page[start..].find("</nav>").expect("closed") + start + "</nav>".len();
    &page[start..end]
}

#[test]
fn a_large_site_lists_the_groups_and_the_documents_around_the_page() {
    let dir = shop_copy();
    for n in 1..=150 {
        let text = format!(
            "+++\nid = \"note.n{n:03}\"\nkind = \"note\"\nfamily = \"architecture\"\n+++\n# Note {n:03}\n"
        );
        write(dir.path(), &format!("docs/arch/notes/n{n:03}.md"), &text);
    }
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    let middle = page(&site, "docs/arch/notes/n075.html");
    let items: Vec<&str> = nav(middle).lines().filter(|l| l.starts_with("<li")).collect();
    expect![[r#"
        (
            [
                "<nav class=\"site-nav\">",
                "<section class=\"family\"><h2>architecture</h2>",
                "<h3><a href=\"../../../index.html#group-1\">decision</a> <small>2</small></h3>",
                "<h3><a href=\"../../../index.html#group-2\">design</a> <small>2</small></h3>",
                "<h3><a href=\"../../../index.html#group-3\">note</a> <small>150</small></h3>",
                "<ul>",
                "</ul>",
                "</section>",
                "</nav>",
            ],
            Some(
                "<li class=\"more\"><a href=\"../../../index.html#group-3\">… 54 more</a></li>",
            ),
            Some(
                "<li class=\"more\"><a href=\"../../../index.html#group-3\">… 56 more</a></li>",
            ),
            42,
        )
    "#]]
    .assert_debug_eq(&(
        nav(middle).lines().filter(|l| !l.starts_with("<li")).collect::<Vec<_>>(),
        items.first(),
        items.last(),
        items.len(),
    ));
    // Every page lists as many: the first and the last of the group too.
    for n in [1, 150] {
        let p = page(&site, &format!("docs/arch/notes/n{n:03}.html"));
        let listed = nav(p).lines().filter(|l| l.starts_with("<li") && !l.contains("class=\"more\"")).count();
        assert_eq!(listed, 40, "n{n:03}");
        assert!(nav(p).contains(&format!("<li class=\"current\"><a href=\"n{n:03}.html\">")), "n{n:03}");
    }
    // The groups' links land on their lists on the index page.
    let index = page(&site, "index.html");
    for href in common::hrefs(nav(middle)) {
        let (target, fragment) = resolve_href("docs/arch/notes/n075.html", &href).expect("a local link");
        if let Some(fragment) = fragment {
            assert_eq!(target, "index.html", "{href}");
            assert!(ids(index).contains(&fragment), "{href} lands on the index page");
        }
    }
    // A design page of the same site lists the notes as a group, not one by one.
    let storage = page(&site, "docs/arch/storage.html");
    assert!(!nav(storage).contains("n001.html"), "{}", nav(storage));
}
