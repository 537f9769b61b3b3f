//! Version-1 cursors: canonical JSON, base64url, with a domain-separated SHA-256 checksum
//! that detects corruption (not an authorisation token). A cursor binds the project, the
//! adapter (engine) version, the source generation, the operation and its parameters, the
//! collection hash and the position; any mismatch fails closed.

use crate::reply::ToolError;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

const DOMAIN: &[u8] = b"docforge.mcp.cursor.v1\0";
const MAX_CURSOR_BYTES: usize = 4096;

/// The decoded content of a cursor. Field order is the canonical order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CursorV1 {
    pub v: u32,
    pub project: String,
    pub adapter: String,
    pub generation: String,
    pub operation: String,
    /// SHA-256 of the canonical operation parameters (without limit and cursor).
    pub params: String,
    pub collection: String,
    pub position: u64,
    /// The last key returned (for keyset pagination), empty when positions are offsets.
    pub after: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    c: CursorV1,
    sum: String,
}

fn checksum(c: &CursorV1) -> String {
    let canonical = serde_json::to_vec(c).expect("cursor serialises");
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(&canonical);
    hex::encode(h.finalize())
}

pub fn encode(c: &CursorV1) -> String {
    let env = Envelope { sum: checksum(c), c: c.clone() };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&env).expect("cursor serialises"))
}

fn corrupt(why: &str) -> ToolError {
    ToolError::new("invalid_cursor", format!("the cursor is not valid: {why}"))
        .remediation("restart_pagination")
}

/// Decode and check a cursor against what this call expects. A cursor from another
/// operation, parameter set or project is `invalid_cursor`; one from another generation or
/// collection is `stale_cursor`.
pub fn decode(text: &str, expect: &CursorV1) -> Result<(u64, String), ToolError> {
    if text.len() > MAX_CURSOR_BYTES {
        return Err(corrupt("too long"));
    }
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| corrupt("not base64url"))?;
    let env: Envelope = serde_json::from_slice(&bytes).map_err(|_| corrupt("not a version-1 cursor"))?;
    if env.sum != checksum(&env.c) {
        return Err(corrupt("checksum mismatch"));
    }
    // Canonical form: re-encoding must reproduce the exact text.
    if encode(&env.c) != text {
        return Err(corrupt("not in canonical form"));
    }
    let c = env.c;
    if c.v != 1 {
        return Err(corrupt("unsupported version"));
    }
    if c.project != expect.project || c.operation != expect.operation || c.params != expect.params {
        return Err(corrupt("issued for another project, operation or parameters"));
    }
    if c.adapter != expect.adapter || c.generation != expect.generation || c.collection != expect.collection {
        return Err(ToolError::new(
            "stale_cursor",
            "the project changed since this cursor was issued; pagination does not combine generations",
        )
        .remediation("restart_pagination"));
    }
    Ok((c.position, c.after))
}

/// SHA-256 (hex) of a canonical JSON value.
pub fn hash_json(v: &serde_json::Value) -> String {
    hex::encode(Sha256::digest(v.to_string().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> CursorV1 {
        CursorV1 {
            v: 1,
            project: "p".into(),
            adapter: "0.1.0".into(),
            generation: "g1".into(),
            operation: "docforge_search".into(),
            params: "h".into(),
            collection: "c".into(),
            position: 20,
            after: "k".into(),
        }
    }

    #[test]
    fn round_trip_and_every_failure_mode() {
        let c = base();
        let text = encode(&c);
        assert_eq!(decode(&text, &c), Ok((20, "k".to_string())));
        let code = |text: &str, expect: &CursorV1| decode(text, expect).unwrap_err().code;
        assert_eq!(code(&text, &CursorV1 { generation: "g2".into(), ..base() }), "stale_cursor");
        assert_eq!(code(&text, &CursorV1 { collection: "d".into(), ..base() }), "stale_cursor");
        assert_eq!(code(&text, &CursorV1 { params: "x".into(), ..base() }), "invalid_cursor");
        assert_eq!(code(&text, &CursorV1 { operation: "other".into(), ..base() }), "invalid_cursor");
        assert_eq!(code("not*base64", &c), "invalid_cursor");
        assert_eq!(code(&"A".repeat(5000), &c), "invalid_cursor");
        // Flip one character of the payload: the checksum catches it.
        let mut bytes = URL_SAFE_NO_PAD.decode(&text).unwrap();
        let pos = String::from_utf8_lossy(&bytes).find("\"position\":20").unwrap() + 12;
        bytes[pos] = b'9';
        assert_eq!(code(&URL_SAFE_NO_PAD.encode(&bytes), &c), "invalid_cursor");
        let stale = decode(&text, &CursorV1 { generation: "g2".into(), ..base() }).unwrap_err();
        assert_eq!(stale.remediation.as_deref(), Some("restart_pagination"));
    }
}
