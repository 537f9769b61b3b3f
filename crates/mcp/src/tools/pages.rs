//! Pages that fit the response limit: records taken while the page stays inside the budget
//! the envelope leaves, a summary for a record too large to travel alone, and
//! `canonical_json_chunk` pages for a payload that only travels in pieces.

use crate::cursor::{self, CursorV1};
use serde_json::{json, Value};

/// Room for the `next_cursor` string a page may carry.
const CURSOR_ROOM: usize = 1200;

/// Take records from `start`: at most `limit`, while `base` (the page without records)
/// plus the records stays within `budget` bytes. Returns the end index. At least one record
/// is taken when one exists, fitting or not (the caller replaces an oversized one).
pub fn take_fitting(records: &[Value], start: usize, limit: usize, base: usize, budget: usize) -> usize {
    let mut used = base + CURSOR_ROOM;
    let mut end = start;
    while end < records.len() && end - start < limit {
        let size = records[end].to_string().len() + 1;
        if end > start && used + size > budget {
            break;
        }
        used += size;
        end += 1;
    }
    end
}

/// Whether one record alone overflows the page.
pub fn oversized(record: &Value, base: usize, budget: usize) -> bool {
    base + CURSOR_ROOM + record.to_string().len() > budget
}

/// The canonical JSON of `v` with every non-ASCII character escaped (`\uXXXX`, surrogate
/// pairs beyond the BMP): ASCII bytes that decode to the same value.
pub fn ascii_canonical(v: &Value) -> String {
    let text = docforge_proposals::canonical_json(v);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// One `canonical_json_chunk` page of `payload` (ASCII) from byte `offset`: as many bytes
/// as fit `budget` once embedded in a JSON string (quotes and backslashes count twice).
/// `Err`: the result bytes the smallest page needs, when `budget` is less.
pub fn chunk_page(payload: &str, offset: usize, base: usize, budget: usize) -> Result<(usize, usize), usize> {
    let room = budget.saturating_sub(base + CURSOR_ROOM);
    if room < 64 {
        return Err(base + CURSOR_ROOM + 64);
    }
    let bytes = payload.as_bytes();
    let mut used = 0;
    let mut end = offset;
    while end < bytes.len() {
        let cost = match bytes[end] {
            b'"' | b'\\' => 2,
            b if b < 0x20 => 6,
            _ => 1,
        };
        if used + cost > room {
            break;
        }
        used += cost;
        end += 1;
    }
    Ok((offset, end))
}

/// The next cursor of a page ending at `end` of `total` (`None` on the last page).
pub fn next_cursor(expect: &CursorV1, end: usize, total: usize, after: &str) -> Option<String> {
    (end < total).then(|| {
        cursor::encode(&CursorV1 { position: end as u64, after: after.to_string(), ..expect.clone() })
    })
}

/// A summary standing for a record too large for a page: what it is and how to check it.
pub fn summary(index: usize, record: &Value, keep: &[&str]) -> Value {
    let text = docforge_proposals::canonical_json(record);
    let mut s = json!({
        "index": index,
        "summary": true,
        "sha256": docforge_proposals::sha256_hex(text.as_bytes()),
        "chars": text.chars().count(),
    });
    for k in keep {
        if let Some(v) = record.get(*k) {
            s[*k] = v.clone();
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_payloads_decode_to_the_same_value() {
        let v = json!({"b": "é😀\"\\\n", "a": [1, "x"]});
        let text = ascii_canonical(&v);
        assert!(text.is_ascii());
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
        assert!(text.starts_with("{\"a\""));
    }

    #[test]
    fn chunks_cover_the_payload_once_and_fit() {
        let payload = ascii_canonical(&json!({"t": "x\"y\\z".repeat(500)}));
        let (base, budget) = (300, 2000);
        let mut offset = 0;
        let mut joined = String::new();
        while offset < payload.len() {
            let (start, end) = chunk_page(&payload, offset, base, budget).unwrap();
            let chunk = &payload[start..end];
            assert!(serde_json::to_string(chunk).unwrap().len() <= budget - base - CURSOR_ROOM + 2);
            joined.push_str(chunk);
            offset = end;
        }
        assert_eq!(joined, payload);
    }

    #[test]
    fn pages_take_what_fits_and_at_least_one() {
        let records: Vec<Value> = (0..10).map(|i| json!({"i": i, "pad": "p".repeat(100)})).collect();
        let each = records[0].to_string().len() + 1;
        let end = take_fitting(&records, 0, 100, 100, 100 + CURSOR_ROOM + 3 * each + each / 2);
        assert_eq!(end, 3);
        assert_eq!(take_fitting(&records, 0, 2, 0, usize::MAX), 2);
        assert_eq!(take_fitting(&records, 9, 5, 0, 10), 10);
    }
}
