//! What every kind of link in a document becomes on a page, as a table: one fixture document
//! (written into a copy of `fixtures/shop`, indexed by the engine, rendered as part of the
//! `architecture` view) holds one case per line; the snapshot shows each line's HTML.
//!
//! The rules: a link the engine resolved to a document of the view (or a heading of one) is a
//! relative link to its page (and the heading's slug); to a document outside the view, an
//! `out-of-view` span; a link the engine could not resolve, a `broken-link` span; a `go:` link,
//! the symbol with its `path:line`; an absolute `http(s):` or `mailto:` URL is kept; any other
//! relative URL (a file that is no document, an image) is an `unpublished` span — nothing is
//! loaded or clickable that the view does not publish.

mod common;

use common::{article, page, shop_copy, write, Indexed};
use expect_test::expect;

const LINKS: &str = "+++
id = \"arch.links\"
kind = \"design\"
family = \"architecture\"
+++
# Links

Each case is one list item, its name then the link; each target once in this section.

- page: [the service](service.md)
- heading: [interfaces](storage.md#interfaces)
- heading-explicit: [pinned](#pinned)
- heading-user-content: [cache](storage.md#user-content-cache)
- same-page: [top](#links)
- out-of-view: [getting started](../guide/getting-started.md)
- out-of-view-heading: [a hook](../guide/getting-started.md#wiring-a-hook)
- broken-document: [deployment](deployment.md)
- broken-heading: [transactions](storage.md#transactions)
- go: [Repository](go:example.com/shop/storage::Repository)
- go-unknown: [Nothing](go:example.com/shop/storage::Nothing)
- go-autolink: <go:example.com/shop/storage/memory::Repo>
- wiki: [[decision.value-receivers]]
- wiki-heading: [[arch.service#hooks]]
- wiki-label: [[decision.pointer-receivers|the receiver decision]]
- wiki-out-of-view: [[glossary]]
- wiki-broken: [[arch.nothing]]
- reference: [the storage design][storage]
- reference-collapsed: [Placing][]
- autolink: <https://example.com/auto>
- bare-autolink: https://example.com/bare
- https: [a site](https://example.com/page?q=1&r=2#frag)
- http: [plain](http://example.com/)
- mailto: [write](mailto:team@example.com)
- mail-autolink: <team@example.com>
- file: [the module](../../go.mod)
- source: [main](../../cmd/shop/main.go#L3)
- config: [configuration](../../docforge.toml)
- image: ![a diagram](diagram.png)
- image-https: ![remote](https://example.com/x.png)
- raw-link: <a href=\"../../go.mod\">raw link</a>
- raw-image: <img src=\"diagram.png\" alt=\"raw image\">
- raw-page: <a href=\"storage.html\">raw page</a>
- raw-https: <a href=\"https://example.com/raw\">raw https</a>
- image-page: ![storage](storage.md)
- after-multibyte: é ü — [memory](storage.md#memory)
- after-tab:\t[decision](../decisions/pointer-receivers.md#decision)
- nested:
  - deeper: [consequences](../decisions/pointer-receivers.md#consequences)

[storage]: storage.md
[placing]: service.md#placing-orders

## Pinned {#pinned}

> quoted: [context](../decisions/pointer-receivers.md#context)

| case | link |
| --- | --- |
| table | [promoted](service.md#promoted-methods) |

Continued paragraph, first line,
second line: [Reader](go:example.com/shop/storage::Reader) and [[arch.storage#implementations]].

## Twice

The engine records one edge per section and target: every link below leads where an earlier
one of this section does.

- [the service](service.md), [[arch.service]], [once more](./service.md)
- [pinned from afar](links.md#pinned), [pinned](#pinned)
- [cache](storage.md#cache), [[arch.storage#user-content-cache]]
- [Repository](go:example.com/shop/storage::Repository), <go:example.com/shop/storage::Repository>
- [[guide.getting-started]], [getting started](../guide/getting-started.md)
- [deployment](deployment.md), [deployment](deployment.md)
- [configuration](../../docforge.toml), [configuration](../../docforge.toml)
";

#[test]
fn every_kind_of_link() {
    let dir = shop_copy();
    write(dir.path(), "docs/arch/links.md", LINKS);
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    let html = article(page(&site, "docs/arch/links.html"));
    let table: String = html
        .lines()
        .filter(|l| l.contains("<a ") || l.contains("<span ") || l.contains("<img"))
        .map(|l| format!("{l}\n"))
        .collect();
    expect![[r##"
        <li>page: <a href="service.html">the service</a></li>
        <li>heading: <a href="storage.html#interfaces">interfaces</a></li>
        <li>heading-explicit: <a href="#pinned-pinned">pinned</a></li>
        <li>heading-user-content: <a href="storage.html#cache">cache</a></li>
        <li>same-page: <a href="#links">top</a></li>
        <li>out-of-view: <span class="out-of-view" title="guide.getting-started is not in this view">getting started</span></li>
        <li>out-of-view-heading: <span class="out-of-view" title="guide.getting-started#wiring-a-hook is not in this view">a hook</span></li>
        <li>broken-document: <span class="broken-link" title="broken link `deployment.md`: no document at `docs/arch/deployment.md`">deployment</span></li>
        <li>broken-heading: <span class="broken-link" title="broken link `storage.md#transactions`: document `arch.storage` (docs/arch/storage.md) has no heading `#transactions`">transactions</span></li>
        <li>go: <span class="go-symbol" title="go:example.com/shop/storage::Repository">Repository <small class="place">storage/storage.go:24</small></span></li>
        <li>go-unknown: <span class="broken-link" title="link target `go:example.com/shop/storage::Nothing` is not a known Go node">Nothing</span></li>
        <li>go-autolink: <span class="go-symbol" title="go:example.com/shop/storage/memory::Repo">go:example.com/shop/storage/memory::Repo <small class="place">storage/memory/memory.go:14</small></span></li>
        <li>wiki: <a href="../decisions/value-receivers.html" data-wikilink="true">decision.value-receivers</a></li>
        <li>wiki-heading: <a href="service.html#hooks" data-wikilink="true">arch.service#hooks</a></li>
        <li>wiki-label: <a href="../decisions/pointer-receivers.html" data-wikilink="true">the receiver decision</a></li>
        <li>wiki-out-of-view: <span class="out-of-view" title="glossary is not in this view">glossary</span></li>
        <li>wiki-broken: <span class="broken-link" title="broken link `arch.nothing`: no document with ID `arch.nothing`">arch.nothing</span></li>
        <li>reference: <a href="storage.html">the storage design</a></li>
        <li>reference-collapsed: <a href="service.html#placing-orders">Placing</a></li>
        <li>autolink: <a href="https://example.com/auto">https://example.com/auto</a></li>
        <li>bare-autolink: <a href="https://example.com/bare">https://example.com/bare</a></li>
        <li>https: <a href="https://example.com/page?q=1&amp;r=2#frag">a site</a></li>
        <li>http: <a href="http://example.com/">plain</a></li>
        <li>mailto: <a href="mailto:team@example.com">write</a></li>
        <li>mail-autolink: <a href="mailto:team@example.com">team@example.com</a></li>
        <li>file: <span class="unpublished" title="../../go.mod is not published by this view">the module</span></li>
        <li>source: <span class="unpublished" title="../../cmd/shop/main.go#L3 is not published by this view">main</span></li>
        <li>config: <span class="unpublished" title="../../docforge.toml is not published by this view">configuration</span></li>
        <li>image: <span class="image unpublished" title="diagram.png is not published by this view">a diagram</span></li>
        <li>image-https: <img src="https://example.com/x.png" alt="remote" /></li>
        <li>raw-link: <a rel="noopener noreferrer">raw link</a></li>
        <li>raw-image: <img alt="raw image"></li>
        <li>raw-page: <a rel="noopener noreferrer">raw page</a></li>
        <li>raw-https: <a href="https://example.com/raw" rel="noopener noreferrer">raw https</a></li>
        <li>image-page: <span class="image unpublished" title="storage.md is not published by this view">storage</span></li>
        <li>after-multibyte: é ü — <a href="storage.html#memory">memory</a></li>
        <li>after-tab:	<a href="../decisions/pointer-receivers.html#decision">decision</a></li>
        <li>deeper: <a href="../decisions/pointer-receivers.html#consequences">consequences</a></li>
        <p>quoted: <a href="../decisions/pointer-receivers.html#context">context</a></p>
        <td><a href="service.html#promoted-methods">promoted</a></td>
        second line: <span class="go-symbol" title="go:example.com/shop/storage::Reader">Reader <small class="place">storage/storage.go:14</small></span> and <a href="storage.html#implementations" data-wikilink="true">arch.storage#implementations</a>.</p>
        <li><a href="service.html">the service</a>, <a href="service.html" data-wikilink="true">arch.service</a>, <a href="service.html">once more</a></li>
        <li><a href="#pinned-pinned">pinned from afar</a>, <a href="#pinned-pinned">pinned</a></li>
        <li><a href="storage.html#cache">cache</a>, <a href="storage.html#cache" data-wikilink="true">arch.storage#user-content-cache</a></li>
        <li><span class="go-symbol" title="go:example.com/shop/storage::Repository">Repository <small class="place">storage/storage.go:24</small></span>, <span class="go-symbol" title="go:example.com/shop/storage::Repository">go:example.com/shop/storage::Repository <small class="place">storage/storage.go:24</small></span></li>
        <li><span class="out-of-view" title="guide.getting-started is not in this view">guide.getting-started</span>, <span class="out-of-view" title="guide.getting-started is not in this view">getting started</span></li>
        <li><span class="broken-link" title="broken link `deployment.md`: no document at `docs/arch/deployment.md`">deployment</span>, <span class="broken-link" title="broken link `deployment.md`: no document at `docs/arch/deployment.md`">deployment</span></li>
        <li><span class="unpublished" title="../../docforge.toml is not published by this view">configuration</span>, <span class="unpublished" title="../../docforge.toml is not published by this view">configuration</span></li>
    "##]]
    .assert_eq(&table);
}

/// Line endings and a byte order mark change nothing: the same document with CRLF or lone CR
/// line endings, or a BOM, renders the same links and heading anchors (the engine counts lines
/// by LF only, the Markdown parser ends them at a lone CR too). Without front matter (which
/// the engine reads only up to LF or CRLF line endings), in the `pages` view.
#[test]
fn line_endings_and_a_bom_change_no_link() {
    let body = LINKS.split_once("+++\n# Links").map(|(_, b)| format!("# Links{b}")).unwrap();
    let render = |text: &str| {
        let dir = shop_copy();
        write(dir.path(), "docs/arch/links.md", text);
        let ix = Indexed::new(dir.path());
        let pages = ix.render(&ix.view("pages"));
        let html = article(page(&pages, "docs/arch/links.html")).to_string();
        html.lines()
            .filter(|l| l.contains("<a ") || l.contains("<span ") || l.contains(" id="))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let lf = render(&body);
    // The baseline resolves like the table above: the same six lines with unpublished files.
    assert!(lf.len() > 40, "{lf:#?}");
    assert_eq!(lf.iter().filter(|l| l.contains("unpublished")).count(), 6, "{lf:#?}");
    for (name, text) in [
        ("CRLF", body.replace('\n', "\r\n")),
        ("CR", body.replace('\n', "\r")),
        ("BOM", format!("\u{feff}{body}")),
        ("BOM and CR", format!("\u{feff}{}", body.replace('\n', "\r"))),
    ] {
        let other = render(&text);
        let differ: Vec<(&String, &String)> = lf.iter().zip(&other).filter(|(a, b)| a != b).collect();
        assert!(
            differ.is_empty() && lf.len() == other.len(),
            "{name}: {} lines, differing {differ:#?}",
            other.len()
        );
    }
}
