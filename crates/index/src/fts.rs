//! Turning user text into an FTS5 query that can only ever mean "these words".

/// Quote every whitespace-separated word of `input` as an FTS5 string (doubling embedded `"`),
/// so operators (`AND`, `OR`, `NOT`, `NEAR`), column filters (`a:b`), prefixes (`foo*`),
/// exclusions (`-x`), parentheses and quotes are all matched as plain text. Words are
/// implicitly AND-ed. Words without a letter or digit (which the tokenizer would drop) are
/// skipped. Returns `None` when nothing searchable is left.
pub fn fts_query(input: &str) -> Option<String> {
    let mut out = String::new();
    for word in input.split_whitespace() {
        if !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push('"');
        for c in word.chars() {
            if c == '"' {
                out.push('"');
            }
            // NUL would end the string for the FTS5 parser: treat it as a separator.
            out.push(if c == '\0' { ' ' } else { c });
        }
        out.push('"');
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::fts_query;

    #[test]
    fn quotes_every_word() {
        let cases: &[(&str, Option<&str>)] = &[
            ("", None),
            ("   \t\n", None),
            ("- * : ( )", None),
            ("token rotation", Some(r#""token" "rotation""#)),
            (r#"say "hi""#, Some(r#""say" """hi""""#)),
            ("foo*", Some(r#""foo*""#)),
            ("a:b", Some(r#""a:b""#)),
            ("NOT x", Some(r#""NOT" "x""#)),
            ("-x", Some(r#""-x""#)),
            ("Größe", Some(r#""Größe""#)),
            ("a\0b", Some("\"a b\"")),
        ];
        for (input, want) in cases {
            assert_eq!(fts_query(input).as_deref(), *want, "{input:?}");
        }
    }
}
