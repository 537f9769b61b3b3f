//! [`Index::search`]: bm25 over the query's words joined by OR, a node whose ID is the query
//! first, the words so common in this index that they cost much and say little left out.

use crate::error::SqlContext;
use crate::fts::QueryWords;
use crate::query::location_at;
use crate::{Index, IndexError, SearchHit};

/// A token in more than this share of the nodes is common: matching it means ranking most of
/// the index (on the Go standard library `func`, `type`, `string`, `error`, `return` are; a
/// question's `typing` is `type` to the stemmer) while its bm25 weight is near nothing. It is
/// left out of a query that has any other token, as high-frequency terms are in Lucene's
/// common-terms query — unless the other tokens find nothing.
const COMMON_SHARE: f64 = 0.05;

/// A query as [`Index::search`] reads it on one index: its words, and the words so common
/// there that the search leaves them out ([`COMMON_SHARE`]). Made once for a search and the
/// snippets of its page ([`Index::search_query`]).
pub struct SearchQuery<'q> {
    text: &'q str,
    words: QueryWords,
    common: Vec<String>,
}

impl Index {
    /// `query` read for [`Index::search_with`] and [`Index::snippets_with`].
    pub fn search_query<'q>(&self, query: &'q str) -> Result<SearchQuery<'q>, IndexError> {
        let words = QueryWords::of(query);
        let common = self.common_tokens(&words.tokens())?;
        Ok(SearchQuery { text: query, words, common })
    }

    /// [`Index::search_with`] for `query`.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, IndexError> {
        self.search_with(&self.search_query(query)?, limit)
    }

    /// Lexical search over node titles, IDs and text, ranked by bm25 over the query's words
    /// joined by OR ([`QueryWords::fts`]: stems, identifier parts, a prefix for the last
    /// word, stop words left out, neighbouring words as a phrase and joined; see [`COMMON_SHARE`]
    /// for the words left out), a title word weighing twice, an unexported Go symbol or a
    /// test's ranked lower ([`prior`]). A node whose ID is exactly the
    /// query (trimmed) comes first, marked [`SearchHit::exact_id`]. `query` is data, never FTS5
    /// syntax; an empty query or `limit == 0` returns nothing.
    pub fn search_with(&self, query: &SearchQuery<'_>, limit: usize) -> Result<Vec<SearchHit>, IndexError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut out: Vec<SearchHit> = Vec::new();
        let exact = query.text.trim();
        if !exact.is_empty() {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT id, kind, title, path, line, col, 0.0, rid FROM nodes WHERE id = ?1 ORDER BY rid LIMIT 1",
                )
                .ctx(&self.path)?;
            let rows = stmt.query_map([exact], hit_of).ctx(&self.path)?;
            for h in rows {
                out.push(SearchHit { exact_id: true, ..h.ctx(&self.path)? });
            }
        }
        let (words, common) = (&query.words, &query.common);
        let Some(fts) = words.fts(common) else { return Ok(out) };
        let fetch = limit.saturating_add(out.len());
        let mut ranked = self.ranked(&fts, fetch)?;
        if ranked.is_empty() && !common.is_empty() {
            // Nothing without the common words (`func zzqx`): they are searched after all.
            if let Some(all) = words.fts(&[]) {
                ranked = self.ranked(&all, fetch)?;
            }
        }
        for h in ranked {
            match out.first_mut() {
                Some(first) if first.exact_id && first.row == h.row => first.rank = h.rank,
                _ => out.push(h),
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// The first `fetch` nodes `fts` matches, best first: by bm25 times the node's
    /// [`prior`]. Column weights (title, text, keys, words): a title word counts twice;
    /// identifier parts of the text half, as they repeat what the text's identifiers already
    /// say. Ties are ordered by row, so a longer list starts with a shorter one (pages of the
    /// same query never repeat or skip a hit).
    ///
    /// The best rows by bm25 alone are found in the FTS index and only they are joined with
    /// their nodes. A prior only lowers a rank, so a row after the last one read cannot come
    /// before a row read whose rank is at most that last bm25 (on a tie, the row read comes
    /// first: ties keep the bm25 order): the rows read are ranked, and more are read until
    /// `fetch` of them are certain (or none is left).
    fn ranked(&self, fts: &str, fetch: usize) -> Result<Vec<SearchHit>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT n.id, n.kind, n.title, n.path, n.line, n.col, t.rank, t.rowid FROM \
                 (SELECT rowid, bm25(nodes_fts, 2.0, 1.0, 1.0, 0.5) AS rank FROM nodes_fts \
                  WHERE nodes_fts MATCH ?1 ORDER BY rank, rowid LIMIT ?2) t \
                 JOIN nodes n ON n.rid = t.rowid ORDER BY t.rank, t.rowid",
            )
            .ctx(&self.path)?;
        let mut read = fetch.saturating_mul(4).saturating_add(40);
        loop {
            let limit = i64::try_from(read).unwrap_or(i64::MAX);
            let rows = stmt.query_map(rusqlite::params![fts, limit], hit_of).ctx(&self.path)?;
            // (hit, its order among the rows read: the row order of equal bm25 ranks).
            let mut hits: Vec<(SearchHit, usize)> = Vec::new();
            for (i, h) in rows.enumerate() {
                hits.push((h.ctx(&self.path)?, i));
            }
            let all = hits.len() < read;
            let last = hits.last().map(|(h, _)| h.rank);
            for (h, _) in &mut hits {
                h.rank *= prior(h);
            }
            hits.sort_by(|(a, i), (b, j)| a.rank.total_cmp(&b.rank).then(i.cmp(j)));
            let certain = match (all, last) {
                (true, _) | (_, None) => hits.len(),
                (false, Some(last)) => hits.iter().take_while(|(h, _)| h.rank <= last).count(),
            };
            if certain >= fetch || all {
                hits.truncate(fetch.min(certain));
                return Ok(hits.into_iter().map(|(h, _)| h).collect());
            }
            read = read.saturating_mul(4);
        }
    }

    /// [`Index::snippets_with`] for `query`.
    pub fn snippets(&self, query: &str, hits: &[SearchHit]) -> Result<Vec<String>, IndexError> {
        self.snippets_with(&self.search_query(query)?, hits)
    }

    /// A short excerpt of each hit's text, in order: the words of its text around where the
    /// query's words are (as [`Index::search`] matches them, the common words it leaves out
    /// left out), else around the first of the query's words or identifier parts the text
    /// holds (`parser` in `BlockParser`), else its text's start; lines joined by spaces, at
    /// most [`SNIPPET_BYTES`] bytes, `…` where text is left out. Asked for the hits a page
    /// shows, not for every hit ranked; each from the hit's own row.
    pub fn snippets_with(
        &self,
        query: &SearchQuery<'_>,
        hits: &[SearchHit],
    ) -> Result<Vec<String>, IndexError> {
        let rows: Vec<i64> = hits.iter().map(|h| h.row).collect();
        let list = serde_json::to_string(&rows).map_err(|e| IndexError::Malformed {
            path: self.path.clone(),
            detail: format!("node rows: {e}"),
        })?;
        let (words, common) = (&query.words, &query.common);
        let tokens = words.tokens();
        let mut found: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
        // As the search: without the common words, then (for what that finds nothing in, as
        // the search does when the other words find nothing) with them.
        let forms: &[&[String]] = if common.is_empty() { &[&[]] } else { &[common.as_slice(), &[]] };
        for fts in forms.iter().filter_map(|c| words.fts(c)) {
            if rows.iter().all(|r| found.contains_key(r)) {
                break;
            }
            // The matches marked (\u{1} … \u{2}): a window without one matched elsewhere
            // than in the text (its title, ID or identifier parts).
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT rowid, snippet(nodes_fts, 1, char(1), char(2), '…', 24) FROM nodes_fts \
                     WHERE nodes_fts MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))",
                )
                .ctx(&self.path)?;
            let got = stmt
                .query_map(rusqlite::params![fts, list], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
                })
                .ctx(&self.path)?;
            for row in got {
                let (rid, snippet) = row.ctx(&self.path)?;
                if snippet.contains('\u{1}') && !found.contains_key(&rid) {
                    found.insert(rid, snippet.replace(['\u{1}', '\u{2}'], ""));
                }
            }
        }
        let rest: Vec<i64> = rows.iter().copied().filter(|r| !found.contains_key(r)).collect();
        if !rest.is_empty() {
            let rest = serde_json::to_string(&rest).expect("integers");
            let mut stmt = self
                .conn
                .prepare_cached("SELECT rid, text FROM nodes WHERE rid IN (SELECT value FROM json_each(?1))")
                .ctx(&self.path)?;
            let got = stmt
                .query_map([rest], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                .ctx(&self.path)?;
            // The words the search ranked by first, then the common ones.
            let (rare, usual): (Vec<&String>, Vec<&String>) =
                tokens.iter().filter(|t| t.len() >= 2).partition(|t| !common.contains(t));
            for row in got {
                let (rid, text) = row.ctx(&self.path)?;
                found.insert(rid, window(&text, &rare, &usual));
            }
        }
        Ok(hits.iter().map(|h| found.get(&h.row).map(|t| excerpt(t)).unwrap_or_default()).collect())
    }

    /// The `tokens` (lower-case) found in more than [`COMMON_SHARE`] of the nodes, as the FTS
    /// index stems them; none when every token is (the query is then searched as it is).
    fn common_tokens(&self, tokens: &[String]) -> Result<Vec<String>, IndexError> {
        if tokens.len() < 2 {
            return Ok(Vec::new());
        }
        let rows = self.fts_rows()?;
        // Below this many nodes every token costs little: nothing is left out.
        if rows < 10_000 {
            return Ok(Vec::new());
        }
        let conn = &self.conn;
        // Prepared once per connection: after the first query the tables exist and each
        // `CREATE … IF NOT EXISTS` does nothing.
        for sql in [
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.docforge_query USING fts5(\
             w, tokenize = 'porter unicode61 remove_diacritics 2')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.docforge_query_terms \
             USING fts5vocab(temp, docforge_query, 'instance')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.docforge_vocab USING fts5vocab(main, nodes_fts, 'row')",
            "DELETE FROM temp.docforge_query",
        ] {
            conn.prepare_cached(sql).ctx(&self.path)?.execute([]).ctx(&self.path)?;
        }
        let mut insert = conn
            .prepare_cached("INSERT INTO temp.docforge_query(rowid, w) VALUES (?1, ?2)")
            .ctx(&self.path)?;
        for (i, t) in tokens.iter().enumerate() {
            insert.execute(rusqlite::params![i as i64, t]).ctx(&self.path)?;
        }
        // Each token's stem (a token unicode61 splits further gives several: its first).
        let mut stems: Vec<Option<String>> = vec![None; tokens.len()];
        let mut stmt = conn
            .prepare_cached("SELECT doc, term FROM temp.docforge_query_terms ORDER BY doc, offset")
            .ctx(&self.path)?;
        let found =
            stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))).ctx(&self.path)?;
        for row in found {
            let (doc, term) = row.ctx(&self.path)?;
            if let Some(slot) = usize::try_from(doc).ok().and_then(|i| stems.get_mut(i)) {
                slot.get_or_insert(term);
            }
        }
        let mut df =
            conn.prepare_cached("SELECT doc FROM temp.docforge_vocab WHERE term = ?1").ctx(&self.path)?;
        let limit = (rows as f64 * COMMON_SHARE) as i64;
        let mut common = Vec::new();
        for (token, stem) in tokens.iter().zip(&stems) {
            let Some(stem) = stem else { continue };
            let n: i64 = df
                .query_row([stem], |r| r.get(0))
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(0),
                    e => Err(e),
                })
                .ctx(&self.path)?;
            if n > limit {
                common.push(token.clone());
            }
        }
        if common.len() == tokens.len() {
            common.clear();
        }
        Ok(common)
    }

    /// The number of rows in the FTS index: the first varint of its averages record (the
    /// `nodes_fts_data` row 1: the row count, then each column's token count), read instead of
    /// counting the nodes (milliseconds on a large index).
    fn fts_rows(&self) -> Result<u64, IndexError> {
        let block: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT block FROM nodes_fts_data WHERE id = 1")
            .ctx(&self.path)?
            .query_row([], |r| r.get(0))
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .ctx(&self.path)?;
        Ok(block.map_or(0, |b| varint(&b)))
    }
}

/// What a node's bm25 rank is multiplied by (ranks are negative: a factor below 1 ranks it
/// lower). What a question about a module looks for is its API and its documentation, so:
/// a Go symbol that is not exported (or a method of a type that is not) 0.7; a node declared
/// in a `_test.go` file 0.5, unless it is an example (`ExampleX`: documentation). Everything
/// else 1.
fn prior(hit: &SearchHit) -> f64 {
    let mut f = 1.0;
    if let Some(symbol) = hit.id.strip_prefix("go:").and_then(|s| s.split_once("::")).map(|(_, s)| s) {
        // `Name`, `T.M` or `(*T).M` (a generic receiver's parameters after `[`).
        let (receiver, name) = match symbol.rsplit_once(").") {
            Some((r, m)) => (Some(r.trim_start_matches(['(', '*'])), m),
            None => match symbol.split_once('.') {
                Some((r, m)) => (Some(r), m),
                None => (None, symbol),
            },
        };
        let exported = |n: &str| n.chars().next().is_some_and(char::is_uppercase);
        if !exported(name) || receiver.is_some_and(|r| !exported(r)) {
            f *= 0.7;
        }
        let in_test = hit.location.as_ref().is_some_and(|l| l.path.ends_with("_test.go"));
        if in_test && !name.starts_with("Example") {
            f *= 0.5;
        }
    } else if hit.location.as_ref().is_some_and(|l| l.path.ends_with("_test.go")) {
        f *= 0.5;
    }
    f
}

/// The longest [`Index::snippets`] excerpt, in bytes (before its closing `…`).
pub const SNIPPET_BYTES: usize = 300;

/// `text` with each run of white space one space, cut to [`SNIPPET_BYTES`] at a character
/// boundary (and then marked `…`).
fn excerpt(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(SNIPPET_BYTES + 4));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > SNIPPET_BYTES {
            let mut cut = SNIPPET_BYTES;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.truncate(out.trim_end().len());
            out.push('…');
            break;
        }
    }
    out
}

/// The part of `text` around the first place it holds one of `words` (lower-case, matched
/// without regard to ASCII case, inside identifiers too), else one of `then`, else its start:
/// from a word's start, `…` where text is left out before it ([`excerpt`] marks what is left
/// out after it).
fn window(text: &str, words: &[&String], then: &[&String]) -> String {
    let lower = text.to_ascii_lowercase();
    let first = |ws: &[&String]| ws.iter().filter_map(|w| lower.find(w.as_str())).min();
    let at = first(words).or_else(|| first(then)).unwrap_or(0);
    // About a third of the room before the word.
    let mut start = at.saturating_sub(SNIPPET_BYTES / 3);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    if start == 0 {
        return text.to_string();
    }
    // From the next word's start (the word found itself at the latest).
    let from = text[start..at].find(char::is_whitespace).map_or(at, |i| start + i);
    format!("…{}", text[from..].trim_start())
}

/// A hit from a row `(id, kind, title, path, line, col, rank, rid)`.
fn hit_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<SearchHit> {
    Ok(SearchHit {
        id: r.get(0)?,
        kind: r.get(1)?,
        title: r.get(2)?,
        location: location_at(r, 3)?,
        rank: r.get(6)?,
        exact_id: false,
        row: r.get(7)?,
    })
}

/// An SQLite varint (big-endian 7-bit groups, the high bit set on every byte but the last;
/// a ninth byte holds 8 bits). 0 for an empty slice.
fn varint(b: &[u8]) -> u64 {
    let mut v: u64 = 0;
    for (i, &x) in b.iter().take(9).enumerate() {
        if i == 8 {
            return (v << 8) | u64::from(x);
        }
        v = (v << 7) | u64::from(x & 0x7f);
        if x & 0x80 == 0 {
            return v;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn varints_read_as_sqlite_writes_them() {
        let cases: &[(&[u8], u64)] =
            &[(&[], 0), (&[0x05], 5), (&[0x81, 0x00], 128), (&[0x88, 0x9b, 0x1e], 134_558)];
        for (bytes, want) in cases {
            assert_eq!(super::varint(bytes), *want, "{bytes:?}");
        }
    }
}
