//! `docforge.toml` (reference: docs/configuration.md). Unknown keys and bad values are errors
//! naming the key.

use crate::views::{inside_root, normalized, View};
use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub schema_version: u32,
    #[serde(default)]
    pub project: ProjectSection,
    #[serde(default)]
    pub sources: Sources,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub views: Vec<View>,
    #[serde(default)]
    pub proposals: Proposals,
    #[serde(default)]
    pub go: GoConfig,
    #[serde(default)]
    pub analysis: AnalysisSection,
    /// `[application]`: the project's canonical applier, when it declares one.
    #[serde(default)]
    pub application: Option<Application>,
}

/// `[application]`: which built-in applier may write the project's documents, for which
/// `--canonical-applier` writer, and below which directories.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Application {
    /// A built-in applier name (`markdown-toml@1`); checked when application is asked for,
    /// so a project declaring another one still serves every other command.
    pub applier: String,
    /// The writer ID `docforge mcp --canonical-applier` must be started with.
    pub writer: String,
    /// Project-relative directories application may write documents in.
    pub content_roots: Vec<String>,
    /// The proposal writers whose changesets this applier may apply (default: any).
    #[serde(default)]
    pub proposal_writers: Option<Vec<String>>,
}

/// `[analysis]`: how deep the project's published index goes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnalysisSection {
    pub precision: PrecisionSetting,
}

/// The precision the project's index is built at, whatever command builds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionSetting {
    /// Go facts from syntax alone (faster; no types, `implements`, resolved calls or Logic).
    Ast,
    /// The Go semantic layer as well: types, method sets, `implements`, calls with CHA, Logic.
    #[default]
    Precise,
}

impl PrecisionSetting {
    pub fn as_str(self) -> &'static str {
        match self {
            PrecisionSetting::Ast => "ast",
            PrecisionSetting::Precise => "precise",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectSection {
    pub id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Sources {
    /// Canonical content roots: globs over project-relative paths (Markdown, TOML node files).
    pub docs: Vec<String>,
    /// Go module roots: project-relative directories.
    pub go: Vec<String>,
    /// Globs of project-relative paths never selected.
    pub exclude: Vec<String>,
}

impl Default for Sources {
    fn default() -> Self {
        Sources { docs: vec!["**/*.md".into()], go: vec![".".into()], exclude: vec![] }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    pub max_results: u32,
    pub max_response_bytes: u64,
    /// Files larger than this are refused (recorded, never read).
    pub max_file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_results: 200,
            max_response_bytes: 262_144,
            max_file_bytes: crate::DEFAULT_MAX_FILE_BYTES,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Proposals {
    pub changeset_root: String,
    pub preview_root: String,
}

impl Default for Proposals {
    fn default() -> Self {
        Proposals { changeset_root: ".docforge/changesets".into(), preview_root: ".docforge/previews".into() }
    }
}

/// The Go build context Go files are selected for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GoConfig {
    pub goos: String,
    pub goarch: String,
    pub cgo: bool,
    pub tags: Vec<String>,
}

impl Default for GoConfig {
    fn default() -> Self {
        GoConfig { goos: "linux".into(), goarch: "amd64".into(), cgo: false, tags: vec![] }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            schema_version: 1,
            project: Default::default(),
            sources: Default::default(),
            limits: Default::default(),
            views: vec![],
            proposals: Default::default(),
            go: Default::default(),
            analysis: Default::default(),
            application: None,
        }
    }
}

/// A `docforge.toml` that cannot be used. The message names the file, the key and the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    pub path: String,
    /// The dotted key path at fault, when known (e.g. `limits.max_results`).
    pub key: Option<String>,
    pub message: String,
}

impl Config {
    /// Parse `docforge.toml` text. `path` is only used in messages.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let err = |key: Option<String>, message: String| ConfigError {
            path: path.display().to_string(),
            key,
            message,
        };
        let de = toml::Deserializer::parse(text).map_err(|e| err(None, one_line(&e.to_string())))?;
        let config: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let key = (key != ".").then_some(key);
            let inner = one_line(&e.inner().to_string());
            match &key {
                Some(k) => err(key.clone(), format!("key `{k}`: {inner}")),
                None => err(None, inner),
            }
        })?;
        config.check().map_err(|(key, message)| err(Some(key.clone()), format!("key `{key}`: {message}")))?;
        Ok(config)
    }

    fn check(&self) -> Result<(), (String, String)> {
        if self.schema_version != 1 {
            return Err((
                "schema_version".to_string(),
                format!("unsupported value {}; this DocForge reads 1", self.schema_version),
            ));
        }
        if let Some(id) = &self.project.id {
            if id.trim().is_empty() {
                return Err(("project.id".to_string(), "must not be empty".into()));
            }
        }
        for (key, globs) in [("sources.docs", &self.sources.docs), ("sources.exclude", &self.sources.exclude)]
        {
            for g in globs {
                globset::Glob::new(g).map_err(|e| (key.to_string(), format!("invalid glob {g:?}: {e}")))?;
            }
        }
        for dir in &self.sources.go {
            if Path::new(dir).is_absolute() || dir.split('/').any(|c| c == "..") {
                return Err((
                    "sources.go".to_string(),
                    format!("{dir:?} must be a relative directory inside the project root"),
                ));
            }
        }
        if self.limits.max_results == 0 {
            return Err(("limits.max_results".to_string(), "must be at least 1".into()));
        }
        if self.limits.max_response_bytes < 1024 {
            return Err(("limits.max_response_bytes".to_string(), "must be at least 1024".into()));
        }
        if self.limits.max_file_bytes == 0 {
            return Err(("limits.max_file_bytes".to_string(), "must be at least 1".into()));
        }
        if self.go.goos.is_empty() || self.go.goarch.is_empty() {
            return Err(("go".to_string(), "goos and goarch must not be empty".into()));
        }
        for (key, dir) in [
            ("proposals.changeset_root", &self.proposals.changeset_root),
            ("proposals.preview_root", &self.proposals.preview_root),
        ] {
            inside_root(dir).map_err(|why| (key.to_string(), format!("{dir:?} {why}")))?;
        }
        crate::views::check(self)?;
        if let Some(a) = &self.application {
            let writer_ok = (1..=128).contains(&a.writer.len())
                && a.writer.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:/-".contains(&b));
            if !writer_ok {
                return Err((
                    "application.writer".to_string(),
                    format!(
                        "{:?} is not a writer ID (1–128 letters, digits, `.`, `_`, `:`, `/`, `-`)",
                        a.writer
                    ),
                ));
            }
            if a.content_roots.is_empty() {
                return Err((
                    "application.content_roots".to_string(),
                    "must name at least one directory".into(),
                ));
            }
            let derived = self.derived_dirs();
            for dir in &a.content_roots {
                let key = "application.content_roots".to_string();
                inside_root(dir).map_err(|why| (key.clone(), format!("{dir:?} {why}")))?;
                let d = normalized(dir);
                let clash = derived
                    .iter()
                    .find(|x| d == **x || d.starts_with(&format!("{x}/")) || x.starts_with(&format!("{d}/")));
                if let Some(x) = clash.filter(|_| !d.is_empty()) {
                    return Err((
                        key,
                        format!("{dir:?} overlaps {x:?}, where DocForge writes derived files"),
                    ));
                }
                if d.is_empty() || d == ".git" || d.starts_with(".git/") {
                    return Err((key, format!("{dir:?} must be a directory below the root, outside .git")));
                }
            }
        }
        Ok(())
    }

    /// Whether `rel` lies below one of the declared content roots.
    pub fn in_content_roots(&self, rel: &str) -> bool {
        self.application.as_ref().is_some_and(|a| {
            a.content_roots.iter().map(|d| normalized(d)).any(|d| rel.starts_with(&format!("{d}/")))
        })
    }

    /// The project-relative directories DocForge writes derived files into: the state
    /// directory, the changeset and preview roots, and every declared view output. Discovery
    /// never reads sources from them and the change watcher ignores them.
    pub fn derived_dirs(&self) -> Vec<String> {
        let mut dirs = vec![crate::STATE_DIR.to_string()];
        dirs.push(normalized(&self.proposals.changeset_root));
        dirs.push(normalized(&self.proposals.preview_root));
        dirs.extend(self.views.iter().map(crate::View::output_dir));
        dirs.sort();
        dirs.dedup();
        dirs
    }
}

/// The toml crate renders errors over several lines with a source excerpt; keep the message
/// to its first sentence plus the position so a CLI can print one clear line.
fn one_line(message: &str) -> String {
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('|'));
    let first = lines.next().unwrap_or("invalid TOML").to_string();
    let rest: Vec<_> = lines.filter(|l| !l.chars().next().is_some_and(|c| c.is_ascii_digit())).collect();
    if rest.is_empty() {
        first
    } else {
        format!("{first}: {}", rest.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::Renderer;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("docforge.toml"), text)
    }

    #[test]
    fn design_example_parses() {
        let c = parse(
            r#"schema_version = 1
[project]
id = "shop"
[sources]
docs = ["docs/**/*.md"]
go = ["."]
exclude = ["vendor/**", "**/testdata/**"]
[limits]
max_results = 200
max_response_bytes = 262144
[[views]]
id = "architecture"
renderer = "html-site@1"
select = { family = ["architecture"] }
output = "site/architecture"
[proposals]
changeset_root = ".docforge/changesets"
preview_root = ".docforge/previews"
"#,
        )
        .unwrap();
        assert_eq!(c.project.id.as_deref(), Some("shop"));
        assert_eq!(c.sources.exclude.len(), 2);
        assert_eq!(c.views[0].id, "architecture");
        assert_eq!(c.go, GoConfig::default());
    }

    #[test]
    fn errors_name_the_key() {
        let cases: &[(&str, &str)] = &[
            ("schema_version = 1\nfoo = 1\n", "foo"),
            ("schema_version = 1\n[project]\nname = \"x\"\n", "name"),
            ("schema_version = 1\n[limits]\nmax_results = \"many\"\n", "limits.max_results"),
            ("schema_version = 1\n[limits]\nmax_results = 0\n", "limits.max_results"),
            ("schema_version = 2\n", "schema_version"),
            ("schema_version = 1\n[sources]\ndocs = [\"[\"]\n", "sources.docs"),
            ("schema_version = 1\n[sources]\ngo = [\"../other\"]\n", "sources.go"),
            ("schema_version = 1\n[project]\nid = \"  \"\n", "project.id"),
            ("schema_version = 1\n[go]\ncgo = \"yes\"\n", "go.cgo"),
            ("[project]\nid = \"x\"\n", "schema_version"),
            ("schema_version = 1\n[analysis]\nprecision = \"exact\"\n", "analysis.precision"),
            ("schema_version = 1\n[analysis]\ndepth = 1\n", "depth"),
            ("schema_version = 1\n[proposals]\nchangeset_root = \"../c\"\n", "proposals.changeset_root"),
            ("schema_version = 1\n[proposals]\npreview_root = \"/tmp/p\"\n", "proposals.preview_root"),
            ("schema_version = 1\n[proposals]\npreview_root = \"./\"\n", "proposals.preview_root"),
        ];
        for (text, key) in cases {
            let e = parse(text).unwrap_err();
            assert!(e.message.contains(key), "{text:?}: message {:?} does not name {key}", e.message);
            assert!(!e.message.contains('\n'), "one line: {:?}", e.message);
        }
    }

    #[test]
    fn precision_is_a_project_setting_defaulting_to_precise() {
        assert_eq!(parse("schema_version = 1\n").unwrap().analysis.precision, PrecisionSetting::Precise);
        let ast = parse("schema_version = 1\n[analysis]\nprecision = \"ast\"\n").unwrap();
        assert_eq!(ast.analysis.precision, PrecisionSetting::Ast);
        let e = parse("schema_version = 1\n[analysis]\nprecision = \"none\"\n").unwrap_err();
        assert!(e.message.contains("unknown variant `none`, expected `ast` or `precise`"), "{}", e.message);
    }

    #[test]
    fn derived_directories_are_the_state_dir_the_proposal_roots_and_view_outputs() {
        let c = parse(
            "schema_version = 1\n[proposals]\nchangeset_root = \"work/changesets/\"\n\
             [[views]]\nid = \"a\"\nrenderer = \"html-page@1\"\noutput = \"./site/a\"\n\
             [[views]]\nid = \"b\"\nrenderer = \"html-site@1\"\noutput = \"b/\"\n",
        )
        .unwrap();
        assert_eq!(c.derived_dirs(), [".docforge", ".docforge/previews", "b", "site/a", "work/changesets"]);
        assert_eq!((c.views[0].output.as_str(), c.views[0].output_dir()), ("./site/a", "site/a".to_string()));
        assert_eq!(c.views[1].output_dir(), "b");
        assert_eq!(
            Config::default().derived_dirs(),
            [".docforge", ".docforge/changesets", ".docforge/previews"]
        );
    }

    /// Every invalid view declaration is refused with the key and the reason.
    #[test]
    fn invalid_views_are_errors_naming_the_key() {
        let view = |body: &str| {
            format!("schema_version = 1\n[sources]\ndocs = [\"docs/**/*.md\", \"README.md\"]\n{body}")
        };
        let ok = "[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site/a\"\n";
        let cases: &[(&str, &str)] = &[
            ("[[views]]\nid = \"a\"\noutput = \"site\"\n", "key `views[0]`: TOML parse error at line 4, column 1: missing field `renderer`"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\n", "missing field `output`"),
            ("[[views]]\nid = \"a\"\nrenderer = \"sh -c make\"\noutput = \"site\"\n", "key `views[0].renderer`: TOML parse error at line 6, column 12: unknown variant `sh -c make`, expected `html-page@1` or `html-site@1`"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@2\"\noutput = \"site\"\n", "unknown variant `html-site@2`"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site\"\ncolor = \"red\"\n", "unknown field `color`"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site\"\nselect = { owner = [\"x\"] }\n", "key `views[0].select.owner`: TOML parse error at line 8, column 12: unknown field `owner`, expected one of `family`, `authority`, `status`, `tag`, `kind`, `paths`"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site\"\nselect = { paths = [\"[\"] }\n", "key `views[0].select.paths`: invalid glob \"[\" (view \"a\")"),
            ("[[views]]\nid = \"a/b\"\nrenderer = \"html-site@1\"\noutput = \"site\"\n", "key `views[0].id`: \"a/b\" must be 1 to 64 letters"),
            ("[[views]]\nid = \"..\"\nrenderer = \"html-site@1\"\noutput = \"site\"\n", "key `views[0].id`: \"..\" must not start with `.`"),
            (&format!("{ok}{ok}"), "key `views[1].id`: \"a\" is declared twice"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"../site\"\n", "key `views[0].output`: \"../site\" (view \"a\") must be a relative directory inside the project root"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"/tmp/site\"\n", "must be a relative directory inside the project root"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \".\"\n", "not the root itself"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \".docforge/site\"\n", "overlaps the state directory .docforge"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \".git\"\n", "overlaps the Git directory"),
            ("[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"docs/site\"\n", "key `views[0].output`: \"docs/site\" (view \"a\") overlaps the content root \"docs\" of sources.docs"),
            (&format!("{ok}[[views]]\nid = \"b\"\nrenderer = \"html-page@1\"\noutput = \"site\"\n"), "key `views[1].output`: \"site\" (view \"b\") overlaps the output of view \"a\""),
            ("[proposals]\npreview_root = \"site/previews\"\n[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site\"\n", "overlaps proposals.preview_root"),
        ];
        for (body, says) in cases {
            let e = parse(&view(body)).unwrap_err();
            assert!(e.message.contains(says), "{body:?}: {:?}", e.message);
            assert!(!e.message.contains('\n'), "one line: {:?}", e.message);
        }
        let c = parse(&view(&format!("{ok}[[views]]\nid = \"b\"\nrenderer = \"html-page@1\"\noutput = \"site/b\"\nselect = {{ family = [\"x\"], paths = [\"docs/a/**\"] }}\n"))).unwrap();
        assert_eq!(c.views[1].renderer, Renderer::HtmlPage1);
        assert_eq!(c.views[1].select.family, ["x"]);
    }

    #[test]
    fn broken_toml_is_an_error_with_position() {
        let e = parse("schema_version = \n").unwrap_err();
        assert!(e.message.contains("line 1"), "{}", e.message);
    }
}
