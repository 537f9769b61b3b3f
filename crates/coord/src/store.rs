//! The SQLite store: one database file in WAL mode holding the credentials, the current state
//! of every aggregate, the idempotency records and the append-only event log. Every mutation
//! is one `BEGIN IMMEDIATE` transaction that changes state, appends its event and records its
//! idempotency key together, so a crash leaves either all of it or none of it.

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

const SCHEMA_VERSION: &str = "1";

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS credentials(
  credential_id TEXT PRIMARY KEY,
  token_sha256 TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('system', 'actor')),
  principal TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS projects(
  project_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  created_at TEXT NOT NULL,
  created_event_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memberships(
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  actor_id TEXT NOT NULL,
  role TEXT NOT NULL,
  display_name TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  registered_by TEXT NOT NULL,
  registered_at TEXT NOT NULL,
  PRIMARY KEY (project_id, actor_id)
);
CREATE TABLE IF NOT EXISTS work_packages(
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  work_package_id TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL,
  issued_by TEXT NOT NULL,
  issued_at TEXT NOT NULL,
  issued_event_id TEXT NOT NULL,
  claimed_by TEXT,
  claimed_at TEXT,
  claimed_event_id TEXT,
  revision INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, work_package_id)
);
CREATE TABLE IF NOT EXISTS results(
  project_id TEXT NOT NULL,
  work_package_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  summary TEXT NOT NULL,
  submitted_by TEXT NOT NULL,
  submitted_at TEXT NOT NULL,
  event_id TEXT NOT NULL,
  PRIMARY KEY (project_id, work_package_id, revision)
);
CREATE TABLE IF NOT EXISTS reviews(
  review_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  work_package_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  requested_by TEXT NOT NULL,
  reviewer_id TEXT NOT NULL,
  state TEXT NOT NULL,
  verdict TEXT,
  comments TEXT,
  requested_at TEXT NOT NULL,
  requested_event_id TEXT NOT NULL,
  submitted_at TEXT,
  submitted_event_id TEXT
);
CREATE TABLE IF NOT EXISTS decisions(
  decision_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  rationale TEXT,
  work_package_id TEXT,
  decided_by TEXT NOT NULL,
  decided_at TEXT NOT NULL,
  event_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS escalations(
  escalation_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  target_role TEXT NOT NULL,
  subject TEXT NOT NULL,
  details TEXT,
  work_package_id TEXT,
  state TEXT NOT NULL,
  raised_by TEXT NOT NULL,
  raised_at TEXT NOT NULL,
  raised_event_id TEXT NOT NULL,
  resolution TEXT,
  resolved_by TEXT,
  resolved_at TEXT
);
CREATE TABLE IF NOT EXISTS links(
  link_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  work_package_id TEXT NOT NULL,
  link_kind TEXT NOT NULL CHECK (link_kind IN ('commit', 'artifact')),
  target TEXT NOT NULL,
  repository TEXT,
  artifact_kind TEXT,
  sha256 TEXT,
  linked_by TEXT NOT NULL,
  linked_at TEXT NOT NULL,
  event_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS gates(
  gate_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  work_package_id TEXT NOT NULL,
  gate TEXT NOT NULL,
  revision INTEGER NOT NULL,
  approval_review_id TEXT,
  closed_by TEXT NOT NULL,
  closed_at TEXT NOT NULL,
  event_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS baselines(
  project_id TEXT NOT NULL,
  baseline_id TEXT NOT NULL,
  title TEXT NOT NULL,
  released_by TEXT NOT NULL,
  released_at TEXT NOT NULL,
  event_id TEXT NOT NULL,
  PRIMARY KEY (project_id, baseline_id)
);
CREATE TABLE IF NOT EXISTS baseline_items(
  project_id TEXT NOT NULL,
  baseline_id TEXT NOT NULL,
  work_package_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  PRIMARY KEY (project_id, baseline_id, work_package_id)
);
CREATE TABLE IF NOT EXISTS events(
  cursor INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  actor_role TEXT NOT NULL,
  aggregate_type TEXT NOT NULL,
  aggregate_id TEXT NOT NULL,
  correlation_id TEXT,
  causation_event_id TEXT,
  created_at TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_project ON events(project_id, cursor);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TABLE IF NOT EXISTS idempotency(
  principal TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  operation TEXT NOT NULL,
  arguments_sha256 TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (principal, idempotency_key)
);
"#;

/// The database. One connection behind a mutex: SQLite has one writer anyway, and every
/// mutation additionally takes `BEGIN IMMEDIATE` and changes state with conditional updates,
/// so two `Store`s (or two processes) over one file stay correct too.
pub struct Store {
    conn: Mutex<Connection>,
}

pub type StoreError = String;

impl Store {
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(30)).map_err(|e| e.to_string())?;
        let mode: String =
            conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(|e| e.to_string())?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(format!("{}: cannot use WAL mode (journal_mode={mode})", path.display()));
        }
        // FULL: an acknowledged mutation survives a power loss, not just a killed process.
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;").map_err(|e| e.to_string())?;
        conn.execute_batch(SCHEMA).map_err(|e| format!("{}: schema: {e}", path.display()))?;
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
            .optional()
            .map_err(|e| e.to_string())?;
        match version.as_deref() {
            None => {
                conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION])
                    .map_err(|e| e.to_string())?;
            }
            Some(SCHEMA_VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "{}: coordination schema version {other}, this build reads {SCHEMA_VERSION}",
                    path.display()
                ))
            }
        }
        Ok(Store { conn: Mutex::new(conn) })
    }

    pub fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock rolled its transaction back (Transaction's Drop);
        // the connection itself is still usable.
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Starts the one write transaction of a mutation.
pub fn begin_write(conn: &mut Connection) -> rusqlite::Result<Transaction<'_>> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
}

/// What an event says beyond its position, time and actor.
pub struct NewEvent<'a> {
    pub project_id: &'a str,
    pub event_type: &'a str,
    pub aggregate_type: &'a str,
    pub aggregate_id: &'a str,
    pub correlation_id: Option<&'a str>,
    pub causation_event_id: Option<&'a str>,
    pub payload: Value,
}

/// The actor of an event: its ID and its role in the project (`SYSTEM` for SYSTEM).
pub struct EventActor<'a> {
    pub actor_id: &'a str,
    pub actor_role: &'a str,
}

/// Appends one event inside the caller's transaction; returns its event ID.
pub fn append_event(
    tx: &Transaction<'_>,
    actor: EventActor<'_>,
    event: NewEvent<'_>,
    created_at: &str,
) -> rusqlite::Result<String> {
    let event_id = new_id("evt");
    tx.execute(
        "INSERT INTO events(event_id, project_id, event_type, actor_id, actor_role, aggregate_type,
           aggregate_id, correlation_id, causation_event_id, created_at, payload)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            event_id,
            event.project_id,
            event.event_type,
            actor.actor_id,
            actor.actor_role,
            event.aggregate_type,
            event.aggregate_id,
            event.correlation_id,
            event.causation_event_id,
            created_at,
            event.payload.to_string(),
        ],
    )?;
    Ok(event_id)
}

/// One event in the contract's envelope.
pub fn event_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
    let payload: String = row.get("payload")?;
    Ok(serde_json::json!({
        "cursor": row.get::<_, i64>("cursor")?,
        "event_id": row.get::<_, String>("event_id")?,
        "project_id": row.get::<_, String>("project_id")?,
        "event_type": row.get::<_, String>("event_type")?,
        "actor_id": row.get::<_, String>("actor_id")?,
        "actor_role": row.get::<_, String>("actor_role")?,
        "aggregate_type": row.get::<_, String>("aggregate_type")?,
        "aggregate_id": row.get::<_, String>("aggregate_id")?,
        "correlation_id": row.get::<_, Option<String>>("correlation_id")?,
        "causation_event_id": row.get::<_, Option<String>>("causation_event_id")?,
        "created_at": row.get::<_, String>("created_at")?,
        "payload": serde_json::from_str::<Value>(&payload).unwrap_or(Value::Null),
    }))
}

/// A server-generated identifier: `prefix_` and 24 random hex digits.
pub fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    format!("{prefix}_{}", hex::encode(bytes))
}

/// Now as RFC 3339 UTC with milliseconds, e.g. `2026-07-30T00:00:00.000Z`.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}
