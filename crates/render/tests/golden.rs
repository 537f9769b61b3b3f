//! Golden output of the two views `fixtures/shop` declares, rendered from the engine's index:
//! the files of each view with their sizes, whole pages of both renderers and the site index,
//! and determinism (the same sources give the same bytes, in any copy of the project).

mod common;

use common::{page, shop_copy, Indexed};
use expect_test::{expect, Expect};

fn listing(rendered: &docforge_render::Rendered) -> String {
    rendered.files.iter().map(|(p, b)| format!("{p} {}\n", b.len())).collect()
}

fn check(actual: &str, expect: Expect) {
    expect.assert_eq(actual);
}

#[test]
fn the_files_of_both_views() {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    check(
        &listing(&site),
        expect![[r#"
            assets/docforge.css 3006
            docs/arch/service.html 5073
            docs/arch/storage.html 6189
            docs/decisions/pointer-receivers.html 4177
            docs/decisions/value-receivers.html 2401
            index.html 1146
        "#]],
    );
    let pages = ix.render(&ix.view("pages"));
    check(
        &listing(&pages),
        expect![[r#"
            assets/docforge.css 3006
            docs/arch/service.html 4535
            docs/arch/storage.html 5593
            docs/decisions/pointer-receivers.html 3673
            docs/decisions/value-receivers.html 1897
            docs/glossary.toml.html 1748
            docs/guide/getting-started.html 4042
            docs/notes.html 1874
        "#]],
    );
    // What each view was rendered from: its selected documents, as the index recorded them.
    let inputs = |r: &docforge_render::Rendered| r.inputs.iter().map(|i| i.path.clone()).collect::<Vec<_>>();
    check(
        &inputs(&site).join("\n"),
        expect![[r#"
        docs/arch/service.md
        docs/arch/storage.md
        docs/decisions/pointer-receivers.md
        docs/decisions/value-receivers.md"#]],
    );
    check(
        &inputs(&pages).join("\n"),
        expect![[r#"
        docs/arch/service.md
        docs/arch/storage.md
        docs/decisions/pointer-receivers.md
        docs/decisions/value-receivers.md
        docs/notes.md
        docs/glossary.toml
        docs/guide/getting-started.md"#]],
    );
}

#[test]
fn a_site_page_whole() {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    check(
        page(&site, "docs/arch/storage.html"),
        expect![[r##"
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'">
            <meta name="generator" content="docforge html-site@1 architecture">
            <title>Storage · architecture</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="../../assets/docforge.css">
            </head>
            <body>
            <header class="site"><a href="../../index.html">shop · architecture</a></header>
            <div class="layout">
            <nav class="site-nav">
            <section class="family"><h2>architecture</h2>
            <h3>decision</h3>
            <ul>
            <li><a href="../decisions/pointer-receivers.html">Pointer receivers for stores</a></li>
            <li><a href="../decisions/value-receivers.html">Value receivers everywhere</a></li>
            </ul>
            <h3>design</h3>
            <ul>
            <li><a href="service.html">Order service</a></li>
            <li class="current"><a href="storage.html">Storage</a></li>
            </ul>
            </section>
            </nav>
            <main>
            <p class="doc-id"><code>arch.storage</code> · design · <span class="source">docs/arch/storage.md</span></p>
            <nav class="toc"><h2>Contents</h2>
            <ul><li><a href="#storage">Storage</a><ul><li><a href="#interfaces">Interfaces</a></li>
            <li><a href="#implementations">Implementations</a><ul><li><a href="#memory">Memory</a></li>
            <li><a href="#cache">Cache</a></li></ul></li></ul></li></ul>
            </nav>
            <article class="document">
            <h1 id="storage">Storage</h1>
            <p>Products are stored behind the <span class="go-symbol" title="go:example.com/shop/storage::Repository"><code>Repository</code> <small class="place">storage/storage.go:24</small></span>
            interface. The order service in <a href="service.html" data-wikilink="true">arch.service</a> only ever talks to that interface.</p>
            <h2 id="interfaces">Interfaces</h2>
            <p><code>Repository</code> embeds <code>Reader</code> and <code>Writer</code> and adds <code>List</code>. See
            <span class="go-symbol" title="go:example.com/shop/storage::Reader">go:example.com/shop/storage::Reader <small class="place">storage/storage.go:14</small></span> for the read side.</p>
            <h2 id="implementations">Implementations</h2>
            <h3 id="memory">Memory</h3>
            <p>The in-memory store uses pointer receivers throughout; why is recorded in
            <a href="../decisions/pointer-receivers.html#decision">the receiver decision</a>.</p>
            <h3 id="cache">Cache</h3>
            <p><code>cache.Snapshot</code> is a read-only copy with value receivers. It satisfies <code>Reader</code>, not
            <code>Repository</code>. Terms are defined in the <span class="out-of-view" title="glossary is not in this view">glossary</span>.</p>
            </article>
            </main>
            <aside class="graph">
            <section class="fields"><h2>Fields</h2>
            <dl>
            <dt>authority</dt><dd>normative</dd>
            <dt>family</dt><dd>architecture</dd>
            <dt>kind</dt><dd>design</dd>
            <dt>status</dt><dd>accepted</dd>
            <dt>tags</dt><dd>storage, interfaces</dd>
            </dl></section>
            <section class="relations"><h2>Relations</h2>
            <h3 class="category">implementation</h3>
            <dl>
            <dt>implemented_by</dt><dd><code class="go-symbol" title="go:example.com/shop/storage/memory::Repo">Repo</code> <small class="place">storage/memory/memory.go:14</small></dd>
            </dl>
            <h3 class="category">evidence</h3>
            <dl>
            <dt>documents</dt><dd><code class="go-symbol" title="go:example.com/shop/storage::Reader">Reader</code> <small class="place">storage/storage.go:14</small></dd><dd><code class="go-symbol" title="go:example.com/shop/storage::Repository">Repository</code> <small class="place">storage/storage.go:24</small></dd>
            <dt>governs</dt><dd><code class="go-symbol" title="go:example.com/shop/storage::Repository">Repository</code> <small class="place">storage/storage.go:24</small></dd>
            </dl>
            <h3 class="category">context</h3>
            <dl>
            <dt>relates_to</dt><dd><a href="service.html" title="arch.service">Order service</a></dd><dd><a href="../decisions/pointer-receivers.html#decision" title="decision.pointer-receivers#decision">Decision</a></dd><dd><span class="out-of-view" title="glossary is not in this view">Glossary</span></dd>
            </dl>
            </section>
            <section class="referenced-by"><h2>Referenced by</h2>
            <h3 class="category">dependency</h3>
            <dl>
            <dt>depends_on</dt><dd><a href="service.html" title="arch.service">Order service</a></dd>
            </dl>
            <h3 class="category">context</h3>
            <dl>
            <dt>relates_to</dt><dd><a href="service.html#order-service" title="arch.service#order-service">Order service</a></dd><dd><a href="../decisions/pointer-receivers.html#context" title="decision.pointer-receivers#context">Context</a></dd><dd><a href="../decisions/pointer-receivers.html#decision" title="decision.pointer-receivers#decision">Decision</a></dd><dd><span class="out-of-view" title="glossary is not in this view">Glossary</span></dd><dd><span class="out-of-view" title="guide.getting-started is not in this view">Getting started</span></dd>
            </dl>
            </section>
            <section class="backlinks"><h2>Backlinks</h2>
            <ul>
            <li><a href="service.html" title="arch.service">Order service</a></li>
            <li><a href="../decisions/pointer-receivers.html" title="decision.pointer-receivers">Pointer receivers for stores</a></li>
            <li><span class="out-of-view" title="glossary is not in this view">Glossary</span></li>
            <li><span class="out-of-view" title="guide.getting-started is not in this view">Getting started</span></li>
            </ul></section>
            <section class="claims"><h2>Claims</h2>
            <ul>
            <li class="claim not-evaluated"><code>symbol_exists</code> <code>example.com/shop/storage/memory::(*Repo).Get</code>: <strong>not evaluated</strong> <small>(no `docforge validate` outcome is recorded for these sources)</small></li>
            <li class="claim not-evaluated"><code>type_implements</code> <code>example.com/shop/cache::Snapshot</code> <code>example.com/shop/storage::Reader</code>: <strong>not evaluated</strong> <small>(no `docforge validate` outcome is recorded for these sources)</small></li>
            <li class="claim not-evaluated"><code>type_implements</code> <code>example.com/shop/cache::Snapshot</code> <code>example.com/shop/storage::Repository</code>: <strong>not evaluated</strong> <small>(no `docforge validate` outcome is recorded for these sources)</small></li>
            </ul></section>
            </aside>
            </div>
            </body>
            </html>
        "##]],
    );
}

#[test]
fn the_site_index_whole() {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    let site = ix.render(&ix.view("architecture"));
    check(
        page(&site, "index.html"),
        expect![[r#"
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'">
            <meta name="generator" content="docforge html-site@1 architecture">
            <title>shop · architecture</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="assets/docforge.css">
            </head>
            <body>
            <header class="site"><a href="index.html">shop · architecture</a></header>
            <main class="index">
            <h1>architecture</h1>
            <p>4 documents.</p>
            <h2>architecture</h2>
            <h3 id="group-1">decision</h3>
            <ul>
            <li><a href="docs/decisions/pointer-receivers.html">Pointer receivers for stores</a> <small>accepted</small></li>
            <li><a href="docs/decisions/value-receivers.html">Value receivers everywhere</a> <small>superseded</small></li>
            </ul>
            <h3 id="group-2">design</h3>
            <ul>
            <li><a href="docs/arch/service.html">Order service</a> <small>accepted</small></li>
            <li><a href="docs/arch/storage.html">Storage</a> <small>accepted</small></li>
            </ul>
            </main>
            </body>
            </html>
        "#]],
    );
}

#[test]
fn a_single_page_whole() {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    let pages = ix.render(&ix.view("pages"));
    check(
        page(&pages, "docs/guide/getting-started.html"),
        expect![[r##"
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'">
            <meta name="generator" content="docforge html-page@1 pages">
            <title>Getting started · pages</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="../../assets/docforge.css">
            </head>
            <body>
            <div class="layout single">
            <main>
            <p class="doc-id"><code>guide.getting-started</code> · guide · <span class="source">docs/guide/getting-started.md</span></p>
            <nav class="toc"><h2>Contents</h2>
            <ul><li><a href="#getting-started">Getting started</a><ul><li><a href="#wiring-a-hook">Wiring a hook</a></li>
            <li><a href="#further-reading">Further reading</a></li></ul></li></ul>
            </nav>
            <article class="document">
            <h1 id="getting-started">Getting started</h1>
            <p>Run the demo with <code>go run ./cmd/shop</code>. Read the <a href="../arch/service.html">service design</a> first.</p>
            <h2 id="wiring-a-hook">Wiring a hook</h2>
            <p>Set <code>OnPlaced</code> on the service, as <code>main</code> does with
            <span class="go-symbol" title="go:example.com/shop/cmd/shop::logOrder"><code>logOrder</code> <small class="place">cmd/shop/main.go:14</small></span>:</p>
            <pre><code class="language-go">svc.OnPlaced = logOrder // [[not-a-link]] and [nor this](../arch/storage.md)
            </code></pre>
            <p>Code spans like <code>[[arch.storage]]</code> are not links either.</p>
            <h2 id="further-reading">Further reading</h2>
            <ul>
            <li><span class="broken-link" title="broken link `../arch/deployment.md`: no document at `docs/arch/deployment.md`">Deployment</span> is not written yet (BROKEN: missing document).</li>
            <li><span class="broken-link" title="broken link `../arch/storage.md#transactions`: document `arch.storage` (docs/arch/storage.md) has no heading `#transactions`">Storage transactions</span> (BROKEN: missing heading).</li>
            <li>The <a href="../notes.html" data-wikilink="true">docs/notes</a> page has no ID of its own: its ID is its path, and <a href="../notes.html">notes</a> works too.</li>
            </ul>
            </article>
            </main>
            <aside class="graph">
            <section class="fields"><h2>Fields</h2>
            <dl>
            <dt>authority</dt><dd>informative</dd>
            <dt>family</dt><dd>guide</dd>
            <dt>kind</dt><dd>guide</dd>
            <dt>status</dt><dd>draft</dd>
            <dt>tags</dt><dd>onboarding</dd>
            </dl></section>
            <section class="relations"><h2>Relations</h2>
            <h3 class="category">evidence</h3>
            <dl>
            <dt>documents</dt><dd><code class="go-symbol" title="go:example.com/shop/cmd/shop::logOrder">logOrder</code> <small class="place">cmd/shop/main.go:14</small></dd>
            </dl>
            <h3 class="category">context</h3>
            <dl>
            <dt>relates_to</dt><dd><a href="../arch/service.html" title="arch.service">Order service</a></dd><dd><a href="../arch/storage.html#implementations" title="arch.storage#implementations">Implementations</a></dd><dd><a href="../notes.html" title="docs/notes">Notes</a></dd>
            </dl>
            </section>
            <section class="referenced-by"><h2>Referenced by</h2>
            <h3 class="category">context</h3>
            <dl>
            <dt>relates_to</dt><dd><a href="../arch/service.html#hooks" title="arch.service#hooks">Hooks</a></dd><dd><a href="../notes.html#notes" title="docs/notes#notes">Notes</a></dd>
            </dl>
            </section>
            <section class="backlinks"><h2>Backlinks</h2>
            <ul>
            <li><a href="../arch/service.html" title="arch.service">Order service</a></li>
            <li><a href="../notes.html" title="docs/notes">Notes</a></li>
            </ul></section>
            <section class="diagnostics"><h2>Diagnostics</h2>
            <ul>
            <li class="error"><code>broken_link</code> broken link `../arch/deployment.md`: no document at `docs/arch/deployment.md` <small class="place">docs/guide/getting-started.md:29</small></li>
            <li class="error"><code>broken_link</code> broken link `../arch/storage.md#transactions`: document `arch.storage` (docs/arch/storage.md) has no heading `#transactions` <small class="place">docs/guide/getting-started.md:30</small></li>
            </ul></section>
            </aside>
            </div>
            </body>
            </html>
        "##]],
    );
    check(
        page(&pages, "docs/glossary.toml.html"),
        expect![[r#"
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'">
            <meta name="generator" content="docforge html-page@1 pages">
            <title>Glossary · pages</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="../assets/docforge.css">
            </head>
            <body>
            <div class="layout single">
            <main>
            <p class="doc-id"><code>glossary</code> · glossary · <span class="source">docs/glossary.toml</span></p>
            <article class="document">
            <p>Repository: the full product store interface (Reader + Writer + List).
            Snapshot: a read-only, value-receiver copy of some products.
            Hook: a func(catalog.Order) error run after an order is placed.</p>
            </article>
            </main>
            <aside class="graph">
            <section class="fields"><h2>Fields</h2>
            <dl>
            <dt>family</dt><dd>reference</dd>
            <dt>kind</dt><dd>glossary</dd>
            <dt>tags</dt><dd>terms</dd>
            </dl></section>
            <section class="relations"><h2>Relations</h2>
            <h3 class="category">context</h3>
            <dl>
            <dt>relates_to</dt><dd><a href="arch/storage.html" title="arch.storage">Storage</a></dd>
            </dl>
            </section>
            <section class="referenced-by"><h2>Referenced by</h2>
            <h3 class="category">context</h3>
            <dl>
            <dt>relates_to</dt><dd><a href="arch/storage.html#cache" title="arch.storage#cache">Cache</a></dd><dd><a href="notes.html#notes" title="docs/notes#notes">Notes</a></dd>
            </dl>
            </section>
            <section class="backlinks"><h2>Backlinks</h2>
            <ul>
            <li><a href="arch/storage.html" title="arch.storage">Storage</a></li>
            <li><a href="notes.html" title="docs/notes">Notes</a></li>
            </ul></section>
            </aside>
            </div>
            </body>
            </html>
        "#]],
    );
}

/// Rendering is a function of the sources: twice in one project, and in two copies of it
/// indexed separately, every file is byte for byte the same.
#[test]
fn rendering_is_deterministic() {
    let a = shop_copy();
    let b = shop_copy();
    let ia = Indexed::new(a.path());
    let ib = Indexed::new(b.path());
    for view in ["architecture", "pages"] {
        let first = ia.render(&ia.view(view));
        let again = ia.render(&ia.view(view));
        let other = ib.render(&ib.view(view));
        assert_eq!(first.files, again.files, "{view}: twice in one project");
        assert_eq!(first.files, other.files, "{view}: two copies of the project");
        // Published files are the rendered bytes.
        ia.publish(&ia.view(view));
        let out = ia.root().join(&ia.view(view).output);
        for (path, bytes) in &first.files {
            assert_eq!(&std::fs::read(out.join(path)).unwrap(), bytes, "{view}: {path} as published");
        }
    }
}
