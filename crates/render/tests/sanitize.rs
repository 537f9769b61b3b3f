//! Nothing a document contains can act on its page: a document full of active content is
//! indexed and rendered, and the page holds exactly the cleaned fragment below — no script,
//! event handler, active URL, frame, embed, style, base, refresh or form — while the frame
//! DocForge writes around it has no `<script>` at all.

mod common;

use common::{article, page, shop_copy, tags, write, Indexed};
use expect_test::expect;

const HOSTILE: &str = r#"+++
id = "arch.hostile"
kind = "design"
family = "architecture"
+++
# Hostile

<script>alert(1)</script>

<img src=x onerror=alert(1)>

[lower](javascript:alert(1)) [mixed](JaVaScRiPt:alert(1)) [spaced](<  javascript:alert(1)>) [entity](jav&#x09;ascript:alert(1))

<a href="javascript:alert(1)">raw js</a> <a href="data:text/html,<script>alert(1)</script>">data</a> <a href="vbscript:msgbox(1)">vb</a>

![img js](javascript:alert(1)) ![img data](data:image/svg+xml,<svg onload=alert(1)>)

<svg onload=alert(1)><circle r="1"/></svg>

<iframe src="https://example.com/frame"></iframe>

<object data="x.swf"></object><embed src="x.swf">

<style>body { display: none }</style>

<p style="color: red" onclick="alert(1)">styled</p>

<base href="https://evil.example/">

<meta http-equiv="refresh" content="0; url=https://evil.example/">

<form action="https://evil.example/"><input type="text" name="q"><button formaction="https://evil.example/">go</button></form>

<details open ontoggle=alert(1)><summary>summary</summary>details</details>

<link rel="stylesheet" href="https://evil.example/x.css">

<math><mi xlink:href="javascript:alert(1)">m</mi></math>

<a href="https://example.com/ok" target="_blank" onmouseover="alert(1)">kept</a>
"#;

#[test]
fn active_content_never_reaches_a_page() {
    let dir = shop_copy();
    write(dir.path(), "docs/arch/hostile.md", HOSTILE);
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    let page = page(&site, "docs/arch/hostile.html");
    expect![[r#"
        <h1 id="hostile">Hostile</h1>

        <img>
        <p><span class="unpublished" title="javascript:alert(1) is not published by this view">lower</span> <span class="unpublished" title="JaVaScRiPt:alert(1) is not published by this view">mixed</span> <span class="unpublished" title="javascript:alert(1) is not published by this view">spaced</span> <span class="unpublished" title="jav	ascript:alert(1) is not published by this view">entity</span></p>
        <p><a rel="noopener noreferrer">raw js</a> <a rel="noopener noreferrer">data</a> <a rel="noopener noreferrer">vb</a></p>
        <p><span class="image unpublished" title="javascript:alert(1) is not published by this view">img js</span> ![img data](data:image/svg+xml,)</p>
        <p></p>

        <p></p>

        <p>styled</p>


        <input disabled="">go
        <details><summary>summary</summary>details</details>

        <p>m</p>
        <p><a href="https://example.com/ok" rel="noopener noreferrer">kept</a></p>
    "#]]
    .assert_eq(article(page));
    // Nothing on the whole page (frame included) can run or navigate anywhere unexpected:
    // no active element, no event handler or style attribute, every URL attribute relative
    // or http(s)/mailto, and the only <meta http-equiv> is DocForge's content security policy,
    // which forbids scripts.
    let banned =
        ["script", "iframe", "frame", "object", "embed", "base", "form", "svg", "math", "style", "button"];
    for tag in tags(page) {
        assert!(!banned.contains(&tag.name.as_str()), "<{}> on the page", tag.name);
        for (name, value) in &tag.attrs {
            assert!(!name.starts_with("on"), "<{} {name}={value:?}>", tag.name);
            assert_ne!(name, "style", "<{} style={value:?}>", tag.name);
            // The frame's own empty favicon (`data:,` carries nothing and cannot act).
            let empty_icon = tag.name == "link" && name == "href" && value == "data:,";
            if ["href", "src", "action", "formaction", "data", "xlink:href", "poster", "srcset"]
                .contains(&name.as_str())
                && !empty_icon
            {
                let v = value.trim().to_ascii_lowercase();
                let scheme = v.split_once(':').map(|(s, _)| s).filter(|s| !s.contains(['/', '?', '#']));
                assert!(
                    scheme.is_none_or(|s| ["http", "https", "mailto"].contains(&s)),
                    "<{} {name}={value:?}>",
                    tag.name
                );
                assert!(!v.contains("evil.example"), "<{} {name}={value:?}>", tag.name);
            }
        }
        if tag.name == "meta" {
            if let Some(equiv) = tag.attr("http-equiv") {
                assert_eq!(equiv, "Content-Security-Policy");
                assert!(tag.attr("content").unwrap().starts_with("default-src 'none';"), "{tag:?}");
            }
        }
        if tag.name == "link" {
            // The frame's two links: the stylesheet and an empty favicon.
            let link = (tag.attr("rel"), tag.attr("href"));
            assert!(
                link == (Some("stylesheet"), Some("../../assets/docforge.css"))
                    || link == (Some("icon"), Some("data:,")),
                "{tag:?}"
            );
        }
    }
    assert!(!page.to_ascii_lowercase().contains("<script"), "no script element anywhere");
}

/// Raw HTML that wraps Markdown keeps its shape: an element opened in one raw block and
/// closed in a later one encloses the Markdown between (whose links are still resolved by the
/// engine), inline raw tags enclose their text, and what could act is gone from each.
#[test]
fn raw_html_around_markdown_keeps_its_shape() {
    let dir = shop_copy();
    write(
        dir.path(),
        "docs/arch/folded.md",
        "+++\nid = \"arch.folded\"\nkind = \"design\"\nfamily = \"architecture\"\n+++\n# Folded\n\n\
         <details ontoggle=\"alert(1)\">\n<summary>More</summary>\n\n\
         Read **the** [storage design](storage.md).\n\n</details>\n\n\
         Some <b onclick=\"x()\">bold</b> and <kbd>Ctrl</kbd>+<kbd>C</kbd><!-- a comment -->.\n",
    );
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    expect![[r#"
        <h1 id="folded">Folded</h1>
        <details>
        <summary>More</summary>
        <p>Read <strong>the</strong> <a href="storage.html">storage design</a>.</p>
        </details>
        <p>Some <b>bold</b> and <kbd>Ctrl</kbd>+<kbd>C</kbd>.</p>
    "#]]
    .assert_eq(article(page(&site, "docs/arch/folded.html")));
}
