//! GitHub-style heading slugs.

use std::collections::{HashMap, HashSet};

/// The GitHub slug of a heading text: lowercase; letters, digits, `_` and `-` kept; each
/// space becomes `-`; everything else is removed. An empty result becomes `section`.
pub fn slugify(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        if c == ' ' {
            out.push('-');
        } else if c.is_alphanumeric() || c == '_' || c == '-' {
            out.extend(c.to_lowercase());
        }
    }
    if out.is_empty() {
        out.push_str("section");
    }
    out
}

/// Hands out unique slugs for the headings of one document: the second `Intro` becomes
/// `intro-1`, the third `intro-2`, as on GitHub.
#[derive(Debug, Default)]
pub struct Slugger {
    seen: HashSet<String>,
    counters: HashMap<String, usize>,
}

impl Slugger {
    pub fn slug(&mut self, text: &str) -> String {
        let base = slugify(text);
        let mut slug = base.clone();
        while self.seen.contains(&slug) {
            let n = self.counters.entry(base.clone()).or_insert(0);
            *n += 1;
            slug = format!("{base}-{n}");
        }
        self.seen.insert(slug.clone());
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_github_rules() {
        let cases = [
            ("Token Rotation", "token-rotation"),
            ("  Hello, World!  ", "hello-world"),
            ("The `foo()` API", "the-foo-api"),
            ("snake_case and kebab-case", "snake_case-and-kebab-case"),
            ("Two  spaces", "two--spaces"),
            ("Ünïcödé Straße", "ünïcödé-straße"),
            ("日本語 見出し", "日本語-見出し"),
            ("v1.2 (beta)", "v12-beta"),
            ("!!!", "section"),
            ("", "section"),
        ];
        for (text, want) in cases {
            assert_eq!(slugify(text), want, "{text:?}");
        }
    }

    #[test]
    fn duplicate_slugs_are_numbered() {
        let mut s = Slugger::default();
        let got: Vec<String> =
            ["Intro", "Intro", "Intro-1", "Intro", "Other"].iter().map(|t| s.slug(t)).collect();
        assert_eq!(got, ["intro", "intro-1", "intro-1-1", "intro-2", "other"]);
    }
}
