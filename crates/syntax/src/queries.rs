//! Compiled queries, embedded from `queries/` by the build script and compiled once.

use std::collections::HashMap;
use std::sync::OnceLock;
use tree_sitter::{Language, Query};

include!(concat!(env!("OUT_DIR"), "/queries.rs"));

/// A query name that is not among the embedded `.scm` files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no query named {:?} in queries/", self.0)
    }
}
impl std::error::Error for QueryError {}

pub(crate) fn go_language() -> Language {
    tree_sitter_go::LANGUAGE.into()
}

fn compile(lang: &Language, set: &'static [(&'static str, &'static str)]) -> HashMap<&'static str, Query> {
    set.iter()
        .map(|(name, src)| {
            let q =
                Query::new(lang, src).unwrap_or_else(|e| panic!("queries/{name}.scm does not compile: {e}"));
            (*name, q)
        })
        .collect()
}

pub(crate) fn go_query(name: &str) -> Result<&'static Query, QueryError> {
    static GO: OnceLock<HashMap<&'static str, Query>> = OnceLock::new();
    GO.get_or_init(|| compile(&go_language(), GO_QUERIES))
        .get(name)
        .ok_or_else(|| QueryError(format!("go/{name}")))
}

/// Names of the embedded `queries/go/*.scm` files.
pub fn go_query_names() -> Vec<&'static str> {
    GO_QUERIES.iter().map(|(n, _)| *n).collect()
}

/// A compiled `queries/markdown/<name>.scm` query. Block-grammar queries are named
/// `block_*`, inline-grammar queries `inline_*`.
pub fn markdown_query(name: &str) -> Result<&'static Query, QueryError> {
    static MD: OnceLock<HashMap<&'static str, Query>> = OnceLock::new();
    let set = MD.get_or_init(|| {
        let block: Language = tree_sitter_md::LANGUAGE.into();
        let inline: Language = tree_sitter_md::INLINE_LANGUAGE.into();
        MARKDOWN_QUERIES
            .iter()
            .map(|(name, src)| {
                let lang = if name.starts_with("inline") { &inline } else { &block };
                let q = Query::new(lang, src)
                    .unwrap_or_else(|e| panic!("queries/markdown/{name}.scm does not compile: {e}"));
                (*name, q)
            })
            .collect()
    });
    set.get(name).ok_or_else(|| QueryError(format!("markdown/{name}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_embedded_query_compiles() {
        for name in super::go_query_names() {
            super::go_query(name).unwrap();
        }
        for (name, _) in super::MARKDOWN_QUERIES {
            super::markdown_query(name).unwrap();
        }
    }

    #[test]
    fn unknown_query_is_an_error() {
        assert!(super::go_query("no_such_query").is_err());
        assert!(super::markdown_query("no_such_query").is_err());
    }
}
