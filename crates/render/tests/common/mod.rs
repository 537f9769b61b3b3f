//! Shared by the render tests: a copy of `fixtures/shop` indexed by the engine, its views
//! rendered and published through the library, and a small scan of the HTML written.
#![allow(dead_code)]

use docforge_project::{Project, View};
use docforge_render::receipt::IndexStamp;
use docforge_render::{Claims, Published, Rendered};
use docforge_workspace::{Options, Synced, Workspace};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A copy of `fixtures/shop` (no state directory, no rendered output).
pub fn shop_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop");
    let status =
        Command::new("cp").arg("-r").arg(format!("{}/.", src.display())).arg(dir.path()).status().unwrap();
    assert!(status.success());
    for derived in [".docforge", "site"] {
        let _ = std::fs::remove_dir_all(dir.path().join(derived));
    }
    dir
}

/// Write `text` at `rel` under `root`, creating directories.
pub fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project bound and indexed by the engine, as `docforge render` does it.
pub struct Indexed {
    pub workspace: Workspace,
    pub synced: Synced,
}

impl Indexed {
    pub fn new(root: &Path) -> Indexed {
        let mut workspace = Workspace::bind(root, Options::default()).expect("bind");
        let synced = workspace.ensure_current(true).expect("index");
        Indexed { workspace, synced }
    }

    pub fn project(&self) -> &Project {
        self.workspace.project()
    }

    pub fn root(&self) -> PathBuf {
        self.project().root.clone()
    }

    pub fn view(&self, id: &str) -> View {
        self.project().config.views.iter().find(|v| v.id == id).cloned().expect("declared view")
    }

    /// `view` rendered in memory from the published index and the files on disk.
    pub fn render(&self, view: &View) -> Rendered {
        let project = self.project();
        let limit = project.config.limits.max_file_bytes;
        let read =
            |rel: &str| docforge_project::read_source(&project.root, rel, limit).map_err(|e| e.to_string());
        docforge_render::render_view(&project.id, self.workspace.index(), view, &read, &claims())
            .expect("render")
    }

    pub fn stamp(&self) -> IndexStamp {
        IndexStamp::of(&self.synced.generation)
    }

    /// Render `view` and publish it into its output with its receipt.
    pub fn publish(&self, view: &View) -> Published {
        let rendered = self.render(view);
        docforge_render::publish(
            self.project(),
            view,
            &rendered,
            self.stamp(),
            self.synced.generation.cheap_identity.clone(),
        )
        .expect("publish")
    }
}

pub fn claims() -> Claims {
    Claims::none("no `docforge validate` outcome is recorded for these sources")
}

/// The file at `path` of a rendered view, as text.
pub fn page<'r>(rendered: &'r Rendered, path: &str) -> &'r str {
    let (_, bytes) = rendered
        .files
        .iter()
        .find(|(p, _)| p == path)
        .unwrap_or_else(|| panic!("no {path} among {:?}", paths(rendered)));
    std::str::from_utf8(bytes).expect("pages are UTF-8")
}

pub fn paths(rendered: &Rendered) -> Vec<&str> {
    rendered.files.iter().map(|(p, _)| p.as_str()).collect()
}

/// The part of a page between `<article class="document">` and `</article>`: the document's
/// own HTML.
pub fn article(page: &str) -> &str {
    let start = page.find("<article class=\"document\">\n").expect("an article") + 27;
    let end = page[start..].find("</article>").expect("closed") + start;
    &page[start..end]
}

/// One start tag of a page: its name and attributes (names lowercased, values with the five
/// entities DocForge and the sanitiser write decoded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub attrs: Vec<(String, String)>,
}

impl Tag {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every start tag of `html` in order (a scanner for the HTML DocForge writes: quoted
/// attribute values, no comments or scripts).
pub fn tags(html: &str) -> Vec<Tag> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(open) = html[i..].find('<').map(|o| o + i) {
        i = open + 1;
        let name_len = b[i..].iter().take_while(|c| c.is_ascii_alphanumeric()).count();
        if name_len == 0 {
            continue;
        }
        let name = html[i..i + name_len].to_ascii_lowercase();
        i += name_len;
        let mut attrs = Vec::new();
        loop {
            while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
                i += 1;
            }
            if i >= b.len() || b[i] == b'>' {
                break;
            }
            let start = i;
            while i < b.len() && !b"=> \n\t/".contains(&b[i]) {
                i += 1;
            }
            let attr = html[start..i].to_ascii_lowercase();
            let mut value = String::new();
            if b.get(i) == Some(&b'=') {
                i += 1;
                if let Some(&q @ (b'"' | b'\'')) = b.get(i) {
                    let end = html[i + 1..].find(q as char).expect("closed value") + i + 1;
                    value = unescape(&html[i + 1..end]);
                    i = end + 1;
                } else {
                    let start = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                        i += 1;
                    }
                    value = unescape(&html[start..i]);
                }
            }
            attrs.push((attr, value));
        }
        out.push(Tag { name, attrs });
    }
    out
}

/// The `id` attributes of a page, in order.
pub fn ids(html: &str) -> Vec<String> {
    tags(html).into_iter().filter_map(|t| t.attr("id").map(str::to_string)).collect()
}

/// The `href` attributes of a page, in order.
pub fn hrefs(html: &str) -> Vec<String> {
    tags(html).into_iter().filter_map(|t| t.attr("href").map(str::to_string)).collect()
}

/// The path inside the output that `href` (relative, written on the page at `from`) names,
/// and its fragment; `None` for an absolute URL.
pub fn resolve_href(from: &str, href: &str) -> Option<(String, Option<String>)> {
    if href.contains("://") || href.starts_with("mailto:") {
        return None;
    }
    let (path, frag) = match href.split_once('#') {
        Some((p, f)) => (p, Some(f.to_string())),
        None => (href, None),
    };
    if path.is_empty() {
        return Some((from.to_string(), frag));
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for c in path.split('/') {
        match c {
            ".." => {
                parts.pop().expect("a relative href stays inside the output");
            }
            "." | "" => {}
            c => parts.push(c),
        }
    }
    Some((parts.join("/"), frag))
}

/// `<tag …>…</tag>` elements of `html` whose start tag contains `needle`, each whole (for
/// spans and anchors without nesting of the same tag).
pub fn elements<'h>(html: &'h str, tag: &str, needle: &str) -> Vec<&'h str> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(s) = html[at..].find(&open).map(|i| i + at) {
        let head_end = html[s..].find('>').map(|i| i + s).expect("start tag closed");
        let end = html[s..].find(&close).map(|i| i + s + close.len()).expect("element closed");
        if html[s..head_end].contains(needle) {
            out.push(&html[s..end]);
        }
        at = s + open.len();
    }
    out
}
