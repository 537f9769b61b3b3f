//! `[[views]]`: declared, named renderings of a selection of documents (reference:
//! docs/configuration.md). Checked when `docforge.toml` is read: every error names the key.

use serde::Deserialize;

/// A renderer of the fixed built-in registry: a name and a version, never a command or a
/// path. Unknown names are refused when the configuration is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum Renderer {
    /// One page per selected document.
    #[serde(rename = "html-page@1")]
    HtmlPage1,
    /// The selected documents as one site: an index page, navigation by family and kind, a
    /// table of contents on every page.
    #[serde(rename = "html-site@1")]
    HtmlSite1,
}

impl Renderer {
    /// `name@version`, as `docforge.toml` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Renderer::HtmlPage1 => "html-page@1",
            Renderer::HtmlSite1 => "html-site@1",
        }
    }
}

/// What a view selects: every given filter must match (each filter is a list of exact
/// values, any of which matches); `paths` are globs over project-relative document paths.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Select {
    pub family: Vec<String>,
    pub authority: Vec<String>,
    pub status: Vec<String>,
    pub tag: Vec<String>,
    pub kind: Vec<String>,
    pub paths: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// The view's name: letters, digits, `.`, `_` and `-` (it names its receipt file).
    pub id: String,
    pub renderer: Renderer,
    #[serde(default)]
    pub select: Select,
    /// The project-relative directory the view is rendered into: the declared project
    /// output, never read as sources.
    pub output: String,
}

impl View {
    /// The output directory as a plain project-relative path (`./site//a/` → `site/a`): the
    /// directory written, whatever the spelling of [`View::output`].
    pub fn output_dir(&self) -> String {
        normalized(&self.output)
    }
}

/// `dir` without a trailing slash or `./` components.
pub(crate) fn normalized(dir: &str) -> String {
    dir.split('/').filter(|c| !c.is_empty() && *c != ".").collect::<Vec<_>>().join("/")
}

/// Why `dir` is not a directory strictly inside the project root (`Ok`: it is).
pub(crate) fn inside_root(dir: &str) -> Result<(), &'static str> {
    if std::path::Path::new(dir).is_absolute() || dir.split('/').any(|c| c == "..") {
        return Err("must be a relative directory inside the project root");
    }
    if normalized(dir).is_empty() {
        return Err("must name a directory below the project root, not the root itself");
    }
    Ok(())
}

/// `a` is `b` or inside it, or the other way round (both normalized).
fn overlaps(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| x == y || x.starts_with(&format!("{y}/"));
    inside(a, b) || inside(b, a)
}

/// The literal directory a docs glob starts with (`docs/**/*.md` → `docs`); `None` when the
/// glob matches at the root (`**/*.md`, `README.md`).
fn glob_root(glob: &str) -> Option<String> {
    let dirs: Vec<&str> = glob.split('/').collect();
    let literal: Vec<&str> = dirs[..dirs.len().saturating_sub(1)]
        .iter()
        .take_while(|c| !c.contains(['*', '?', '[', '{']))
        .copied()
        .collect();
    let root = normalized(&literal.join("/"));
    (!root.is_empty()).then_some(root)
}

/// Check the views of a configuration: `(key, message)` of the first error.
pub(crate) fn check(config: &crate::Config) -> Result<(), (String, String)> {
    let mut seen: Vec<(&str, String)> = Vec::new();
    let content_roots: Vec<String> = config.sources.docs.iter().filter_map(|g| glob_root(g)).collect();
    let derived = [
        (crate::STATE_DIR.to_string(), "the state directory .docforge"),
        (".git".to_string(), "the Git directory"),
        (normalized(&config.proposals.changeset_root), "proposals.changeset_root"),
        (normalized(&config.proposals.preview_root), "proposals.preview_root"),
    ];
    for (i, view) in config.views.iter().enumerate() {
        let id = &view.id;
        let key = |k: &str| format!("views[{i}].{k}");
        if id.is_empty()
            || id.len() > 64
            || !id.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err((
                key("id"),
                format!(
                    "{id:?} must be 1 to 64 letters, digits, `.`, `_` or `-` (it names the view's receipt)"
                ),
            ));
        }
        if id.starts_with('.') {
            return Err((key("id"), format!("{id:?} must not start with `.`")));
        }
        if seen.iter().any(|(other, _)| other == id) {
            return Err((key("id"), format!("{id:?} is declared twice")));
        }
        for glob in &view.select.paths {
            globset::Glob::new(glob)
                .map_err(|e| (key("select.paths"), format!("invalid glob {glob:?} (view {id:?}): {e}")))?;
        }
        let output = &view.output;
        inside_root(output).map_err(|why| (key("output"), format!("{output:?} (view {id:?}) {why}")))?;
        let out = normalized(output);
        for (dir, what) in &derived {
            if overlaps(&out, dir) {
                return Err((key("output"), format!("{output:?} (view {id:?}) overlaps {what}")));
            }
        }
        if let Some(root) = content_roots.iter().find(|r| overlaps(&out, r)) {
            return Err((
                key("output"),
                format!("{output:?} (view {id:?}) overlaps the content root {root:?} of sources.docs"),
            ));
        }
        if let Some((other, _)) = seen.iter().find(|(_, o)| overlaps(&out, o)) {
            return Err((
                key("output"),
                format!("{output:?} (view {id:?}) overlaps the output of view {other:?}"),
            ));
        }
        seen.push((id, out));
    }
    Ok(())
}
