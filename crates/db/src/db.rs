//! The database type and the execution log used to test incrementality.

use docforge_syntax::{AstGate, AstPolicy};
use std::sync::{Arc, Mutex};

/// The database interface every query is written against.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The AST-policy gate of this process (immutable for the life of the database).
    fn gate(&self) -> &AstGate;
    /// Recent Go trees for incremental re-parsing (an optimisation, never an input).
    fn trees(&self) -> &crate::trees::TreeCache;
    /// Facts of documents the host already parsed for a change (an optimisation, never an
    /// input).
    fn prepared_docs(&self) -> &crate::docs_q::PreparedDocs;
}

/// Names of the queries salsa executed, recorded only while enabled (tests, diagnostics).
#[derive(Clone, Default)]
pub struct ExecutionLog {
    enabled: Arc<std::sync::atomic::AtomicBool>,
    entries: Arc<Mutex<Vec<String>>>,
}

impl ExecutionLog {
    pub fn enable(&self, on: bool) {
        self.enabled.store(on, std::sync::atomic::Ordering::SeqCst);
    }
    /// Take the recorded executions, e.g. `go_facts(Id(3))`, and deep validations of
    /// memoised values, e.g. `validated dir_chunk(Id(7))`.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.entries.lock().unwrap())
    }
    fn record(&self, entry: String) {
        self.entries.lock().unwrap().push(entry);
    }
    fn is_enabled(&self) -> bool {
        self.enabled.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    gate: Arc<AstGate>,
    log: ExecutionLog,
    trees: Arc<crate::trees::TreeCache>,
    prepared_docs: Arc<crate::docs_q::PreparedDocs>,
}

impl RootDatabase {
    pub fn new(policy: AstPolicy) -> Self {
        let log = ExecutionLog::default();
        RootDatabase {
            storage: salsa::Storage::default(),
            gate: Arc::new(AstGate::new(policy)),
            log,
            trees: Default::default(),
            prepared_docs: Default::default(),
        }
    }

    /// A database that records executed queries and validated memos into its
    /// [`ExecutionLog`] while the log is enabled.
    pub fn with_execution_log(policy: AstPolicy) -> Self {
        let log = ExecutionLog::default();
        let storage = salsa::Storage::new(Some(Box::new({
            let log = log.clone();
            move |event: salsa::Event| {
                if !log.is_enabled() {
                    return;
                }
                match event.kind {
                    salsa::EventKind::WillExecute { database_key } => log.record(format!("{database_key:?}")),
                    salsa::EventKind::DidValidateMemoizedValue { database_key } => {
                        log.record(format!("validated {database_key:?}"))
                    }
                    _ => {}
                }
            }
        })));
        RootDatabase {
            storage,
            gate: Arc::new(AstGate::new(policy)),
            log,
            trees: Default::default(),
            prepared_docs: Default::default(),
        }
    }

    pub fn execution_log(&self) -> &ExecutionLog {
        &self.log
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn gate(&self) -> &AstGate {
        &self.gate
    }
    fn trees(&self) -> &crate::trees::TreeCache {
        &self.trees
    }
    fn prepared_docs(&self) -> &crate::docs_q::PreparedDocs {
        &self.prepared_docs
    }
}
