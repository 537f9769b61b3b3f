//! Credentials: bearer tokens stored only as SHA-256 hashes. A token is shown once, when it
//! is created; the database cannot give it back.

use crate::args::is_valid_id;
use crate::store::{begin_write, new_id, now_rfc3339, Store};
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

/// Who a valid bearer token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// The administrative credential: creates projects and appoints their first members.
    System,
    /// An actor; its role comes from its membership in the project a call names.
    Actor(String),
}

/// The principal name used for the SYSTEM credential in events and idempotency records.
pub const SYSTEM_PRINCIPAL: &str = "SYSTEM";

impl Principal {
    /// A name unique across kinds (actor IDs cannot contain `@`): the idempotency scope.
    pub fn key(&self) -> String {
        match self {
            Principal::System => "@system".to_string(),
            Principal::Actor(id) => format!("actor:{id}"),
        }
    }
}

pub fn token_sha256(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A freshly created credential: the token is in memory only here.
pub struct NewCredential {
    pub credential_id: String,
    pub token: String,
}

fn new_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    format!("dfc_{}", hex::encode(bytes))
}

fn insert(
    conn: &Connection,
    kind: &str,
    principal: &str,
    label: Option<&str>,
) -> Result<NewCredential, String> {
    let token = new_token();
    let credential_id = new_id("cred");
    conn.execute(
        "INSERT INTO credentials(credential_id, token_sha256, kind, principal, label, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![credential_id, token_sha256(&token), kind, principal, label, now_rfc3339()],
    )
    .map_err(|e| e.to_string())?;
    Ok(NewCredential { credential_id, token })
}

/// Creates the SYSTEM credential. There is at most one unrevoked SYSTEM credential;
/// `replace` revokes the current one in the same transaction.
pub fn create_system(store: &Store, replace: bool) -> Result<NewCredential, String> {
    let mut conn = store.lock();
    let tx = begin_write(&mut conn).map_err(|e| e.to_string())?;
    let active: i64 = tx
        .query_row("SELECT count(*) FROM credentials WHERE kind = 'system' AND revoked_at IS NULL", [], |r| {
            r.get(0)
        })
        .map_err(|e| e.to_string())?;
    if active > 0 && !replace {
        return Err("a SYSTEM credential exists already (use --replace to revoke it and create a new one)"
            .to_string());
    }
    tx.execute(
        "UPDATE credentials SET revoked_at = ?1 WHERE kind = 'system' AND revoked_at IS NULL",
        [now_rfc3339()],
    )
    .map_err(|e| e.to_string())?;
    let created = insert(&tx, "system", SYSTEM_PRINCIPAL, Some("SYSTEM"))?;
    tx.commit().map_err(|e| e.to_string())?;
    Ok(created)
}

/// Creates a token for an actor. The actor needs a membership (`register_actor`) before it
/// can act in a project; the token only proves who it is.
pub fn create_actor(store: &Store, actor_id: &str, label: Option<&str>) -> Result<NewCredential, String> {
    if !is_valid_id(actor_id) {
        return Err(format!(
            "invalid actor ID {actor_id:?}: use letters, digits, '.', '_', ':', '/' or '-', 1 to 128 characters"
        ));
    }
    if actor_id.eq_ignore_ascii_case(SYSTEM_PRINCIPAL) {
        return Err("the actor ID SYSTEM is reserved".to_string());
    }
    insert(&store.lock(), "actor", actor_id, label)
}

pub fn revoke(store: &Store, credential_id: &str) -> Result<(), String> {
    let changed = store
        .lock()
        .execute(
            "UPDATE credentials SET revoked_at = ?1 WHERE credential_id = ?2 AND revoked_at IS NULL",
            params![now_rfc3339(), credential_id],
        )
        .map_err(|e| e.to_string())?;
    if changed == 1 {
        Ok(())
    } else {
        Err(format!("no unrevoked credential {credential_id}"))
    }
}

/// One line per credential: id, kind, principal, label, created, revoked (never the token).
pub fn list(store: &Store) -> Result<Vec<[String; 6]>, String> {
    let conn = store.lock();
    let mut stmt = conn
        .prepare(
            "SELECT credential_id, kind, principal, coalesce(label, ''), created_at, coalesce(revoked_at, '')
             FROM credentials ORDER BY created_at, credential_id",
        )
        .map_err(|e| e.to_string())?;
    let rows = stmt
        .query_map([], |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?]))
        .map_err(|e| e.to_string())?;
    rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
}

/// The principal of an `Authorization` header value, or `None` (missing, malformed, unknown
/// or revoked: all answered with HTTP 401).
pub fn authenticate(store: &Store, authorization: Option<&str>) -> Option<Principal> {
    let value = authorization?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return None;
    }
    let conn = store.lock();
    let row: Option<(String, String)> = conn
        .query_row(
            "SELECT kind, principal FROM credentials WHERE token_sha256 = ?1 AND revoked_at IS NULL",
            [token_sha256(token)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .ok()?;
    match row? {
        (kind, _) if kind == "system" => Some(Principal::System),
        (_, actor) => Some(Principal::Actor(actor)),
    }
}
