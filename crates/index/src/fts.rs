//! Search terms: identifier parts for the index and user text turned into an FTS5 query that
//! can only ever mean "these words".
//!
//! The FTS table tokenizes with `porter unicode61` (case folded, diacritics removed, English
//! stems: `rendering` finds `render`). What unicode61 keeps as one token, `ServeHTTP` or
//! `newParser`, is also indexed in parts (`Serve HTTP`, `new Parser`) in the derived `keys`
//! (the ID, and the parts of the ID and title: [`keys`]) and `words` (of the text) columns, so
//! `serve` or `new parser` find it; `snake_case` is split by unicode61 itself (`_` separates
//! tokens).

/// Words a question is made of that say nothing about what it looks for. Kept short: words
/// that are also Go keywords or common identifiers (`go`, `for`, `if`, `new`, `not`, `all`)
/// are searched.
const STOP_WORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "are", "as", "at", "be", "been", "being", "by", "can", "could", "did",
    "do", "does", "doing", "done", "from", "had", "has", "have", "how", "i", "in", "into", "is", "it", "its",
    "me", "my", "of", "on", "or", "our", "should", "so", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "to", "was", "we", "were", "what", "when", "where", "which",
    "who", "why", "will", "with", "would", "you", "your",
];

/// What a node's ID and title say besides the title itself: the ID without its scheme
/// (`go:`, `file:`: in every ID of their kind, they would match every node; a Go symbol's
/// without its package path but the last element), then the [`identifier_parts`] of both.
pub fn keys(id: &str, title: &str) -> String {
    let bare = id.strip_prefix("go:").or_else(|| id.strip_prefix("file:")).unwrap_or(id);
    // A Go symbol's ID repeats its package's import path, which its package node holds: the
    // last element names the package (`ssa::(*Value).Op`), the rest would only be indexed
    // again for every symbol of the package.
    let bare = match bare.split_once("::") {
        Some((path, symbol)) if id.starts_with("go:") => {
            let last = path.rsplit('/').next().unwrap_or(path);
            &bare[bare.len() - symbol.len() - 2 - last.len()..]
        }
        _ => bare,
    };
    let parts = identifier_parts(&format!("{bare} {title}"));
    if parts.is_empty() {
        bare.to_string()
    } else {
        format!("{bare} {parts}")
    }
}

/// The parts of every identifier in `text` that unicode61 keeps whole but that a reader
/// splits: case changes (`ServeHTTP` → `Serve HTTP`, `HTTPServer` → `HTTP Server`,
/// `newParser` → `new Parser`), each once. Space-separated; empty when no word splits.
pub fn identifier_parts(text: &str) -> String {
    let mut out = String::new();
    // Each part once: the column says which parts a node has (its text says how often).
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.len() < 2 || !word.chars().any(char::is_uppercase) {
            continue;
        }
        let parts = camel_parts(word);
        if parts.len() > 1 {
            for p in parts {
                if !seen.insert(p) {
                    continue;
                }
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(p);
            }
        }
    }
    out
}

/// `word` cut at its case changes: before an upper-case letter that follows a lower-case one
/// or a digit, and before the last of a run of upper-case letters followed by a lower-case
/// one (`HTTPServer` → `HTTP`, `Server`).
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|&(_, n)| n.is_lowercase());
        let cut = c.is_uppercase()
            && (prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower));
        if cut {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    if start < word.len() {
        parts.push(&word[start..]);
    }
    parts
}

/// At most this many distinct words of a query are searched (each adds up to three terms).
const MAX_QUERY_WORDS: usize = 64;

/// The words of a query: its alphanumeric runs, stop words left out unless nothing else is
/// left, and whether the last one is still being typed (the input does not end after it).
#[derive(Debug)]
pub(crate) struct QueryWords {
    pub(crate) words: Vec<String>,
    pub(crate) last_is_open: bool,
}

impl QueryWords {
    pub(crate) fn of(input: &str) -> QueryWords {
        let words: Vec<&str> =
            input.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let is_stop = |w: &str| STOP_WORDS.contains(&w.to_lowercase().as_str());
        let content: Vec<&str> = words.iter().copied().filter(|w| !is_stop(w)).collect();
        // Still being typed: the input ends inside its last word, and that word is searched.
        let open = input.chars().last().is_some_and(char::is_alphanumeric)
            && (content.is_empty() || words.last().is_some_and(|w| !is_stop(w)));
        let words = if content.is_empty() { words } else { content };
        // A long description (a task's) is searched by its first distinct words.
        let mut kept: Vec<String> = Vec::new();
        for w in words {
            if kept.len() == MAX_QUERY_WORDS {
                break;
            }
            if !kept.iter().any(|k| k.to_lowercase() == w.to_lowercase()) {
                kept.push(w.to_string());
            }
        }
        QueryWords { words: kept, last_is_open: open }
    }

    /// Every single token the query searches: each word and each of its identifier parts,
    /// lower-cased, without repeats.
    pub(crate) fn tokens(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for word in &self.words {
            let parts = camel_parts(word);
            let extra = if parts.len() > 1 { parts } else { Vec::new() };
            for t in std::iter::once(word.as_str()).chain(extra) {
                let t = t.to_lowercase();
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }

    /// The FTS5 query: every word, quoted (operators, column filters, `*`, `-`, parentheses
    /// and quotes are matched as plain text), joined by `OR` so that nodes matching more of
    /// the words rank first (bm25). A word unicode61 keeps whole but that has identifier parts
    /// is also searched by its parts; the last word, when still open, also as a prefix
    /// (`Caller` finds `Caller0`, and `Caller` itself first); neighbouring words as a phrase
    /// and joined (`block parser` finds `BlockParser`). Tokens in `common` (lower-case) are
    /// left out, with the phrases and prefix they would be part of. `None`: nothing to search.
    pub(crate) fn fts(&self, common: &[String]) -> Option<String> {
        let is_common = |w: &str| common.iter().any(|c| c == w);
        let mut terms: Vec<String> = Vec::new();
        let mut push = |term: String| {
            if !terms.contains(&term) {
                terms.push(term);
            }
        };
        let words = &self.words;
        for (i, word) in words.iter().enumerate() {
            let lower = word.to_lowercase();
            if !is_common(&lower) {
                push(format!("\"{lower}\""));
                if i + 1 == words.len() && self.last_is_open && lower.chars().count() >= 2 {
                    // Both: a whole-word match scores twice, above words that only start with it.
                    push(format!("\"{lower}\"*"));
                }
            }
            let parts = camel_parts(word);
            if parts.len() > 1 {
                for part in parts.into_iter().map(str::to_lowercase).filter(|p| !is_common(p)) {
                    push(format!("\"{part}\""));
                }
            }
        }
        // `"soft line"` scores where the words stand together; `"blockparser"` names
        // `BlockParser`, one token to unicode61.
        for pair in words.windows(2) {
            let (a, b) = (pair[0].to_lowercase(), pair[1].to_lowercase());
            if !is_common(&a) && !is_common(&b) {
                push(format!("\"{a} {b}\""));
            }
            push(format!("\"{a}{b}\""));
        }
        (!terms.is_empty()).then(|| terms.join(" OR "))
    }
}

/// [`QueryWords::fts`] of `input` with no token left out as common: an FTS5 query that can
/// only ever mean "these words". Returns `None` when nothing searchable is left.
pub fn fts_query(input: &str) -> Option<String> {
    QueryWords::of(input).fts(&[])
}

#[cfg(test)]
mod tests {
    use super::{fts_query, identifier_parts, keys};

    #[test]
    fn keys_leave_out_the_scheme() {
        assert_eq!(
            keys("go:net/http::(*Server).ServeHTTP", "ServeHTTP"),
            "http::(*Server).ServeHTTP Serve HTTP"
        );
        assert_eq!(keys("go:net/http", "net/http"), "net/http");
        assert_eq!(keys("go:fmt::Println", "Println"), "fmt::Println");
        assert_eq!(keys("file:a/b.go", "b.go"), "a/b.go");
        assert_eq!(keys("mcp#limits", "Limits"), "mcp#limits");
    }

    #[test]
    fn queries_are_words_joined_by_or() {
        let cases: &[(&str, Option<&str>)] = &[
            ("", None),
            ("   \t\n", None),
            ("- * : ( )", None),
            ("token", Some(r#""token" OR "token"*"#)),
            ("token ", Some(r#""token""#)),
            ("token rotation ", Some(r#""token" OR "rotation" OR "token rotation" OR "tokenrotation""#)),
            (r#"say "hi""#, Some(r#""say" OR "hi" OR "say hi" OR "sayhi""#)),
            ("foo*", Some(r#""foo""#)),
            ("a:b", Some(r#""b""#)),
            ("NOT", Some(r#""not" OR "not"*"#)),
            ("-x", Some(r#""x""#)),
            ("Größe", Some(r#""größe" OR "größe"*"#)),
            ("a\0b", Some(r#""b""#)),
            (
                "how do I add middleware to a route ",
                Some(
                    r#""add" OR "middleware" OR "route" OR "add middleware" OR "addmiddleware" OR "middleware route" OR "middlewareroute""#,
                ),
            ),
            ("ServeHTTP", Some(r#""servehttp" OR "servehttp"* OR "serve" OR "http""#)),
            ("Caller", Some(r#""caller" OR "caller"*"#)),
            ("snake_case ", Some(r#""snake" OR "case" OR "snake case" OR "snakecase""#)),
            ("how to ", Some(r#""how" OR "to" OR "how to" OR "howto""#)),
            // The prefix goes on the last word only when it is the one being typed.
            ("token rotation the", Some(r#""token" OR "rotation" OR "token rotation" OR "tokenrotation""#)),
            ("token Token", Some(r#""token" OR "token"*"#)),
        ];
        for (input, want) in cases {
            assert_eq!(fts_query(input).as_deref(), *want, "{input:?}");
        }
    }

    #[test]
    fn common_tokens_are_left_out_with_their_phrases_and_prefix() {
        let words = super::QueryWords::of("typing in a function body");
        assert_eq!(words.tokens(), ["typing", "function", "body"]);
        let fts = words.fts(&["typing".to_string(), "body".to_string()]);
        assert_eq!(fts.as_deref(), Some(r#""function" OR "typingfunction" OR "functionbody""#));
    }

    #[test]
    fn identifiers_split_at_case_changes() {
        let cases: &[(&str, &str)] = &[
            ("ServeHTTP", "Serve HTTP"),
            ("HTTPServer", "HTTP Server"),
            ("newParser", "new Parser"),
            ("func (h *Handler) ServeHTTP(w ResponseWriter)", "Serve HTTP Response Writer"),
            ("plain words only", ""),
            ("UTF8Decoder", "UTF8 Decoder"),
            ("parseHTTP2Frame", "parse HTTP2 Frame"),
            ("ÉtéÉcole", "Été École"),
        ];
        for (input, want) in cases {
            assert_eq!(identifier_parts(input), *want, "{input:?}");
        }
    }
}
