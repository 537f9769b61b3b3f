//! The validation outcome a page shows for each `[[claims]]` entry: the latest one `docforge
//! validate` recorded, when it is proven to be about the claim as written and the Go sources
//! as rendered; "not evaluated" otherwise — never a guessed outcome.
//!
//! docforge validate (on the working tree) records its outcomes in a hash-bound version-1
//! receipt, `.docforge/receipts/claims.v1.json`, with the Go side it evaluated them against
//! (every selected Go file and module file with its SHA-256) and the `docforge.toml` it read.
//! A render shows a recorded outcome only when that receipt verifies, the configuration is
//! the same, the published index holds exactly those Go sources (same paths, same SHA-256),
//! and the claim at that position of that document is the same claim.

use docforge_index::Index;
use docforge_project::{Durability, Project, ProjectWriter, WriteError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};

/// One claim's outcome as a page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail { reason: String },
    CannotEvaluate { reason: String },
    NotEvaluated { why: String },
}

impl Outcome {
    pub fn label(&self) -> &str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail { .. } => "fail",
            Outcome::CannotEvaluate { .. } => "cannot_evaluate",
            Outcome::NotEvaluated { .. } => "not evaluated",
        }
    }

    pub fn class(&self) -> &str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail { .. } => "fail",
            Outcome::CannotEvaluate { .. } => "cannot-evaluate",
            Outcome::NotEvaluated { .. } => "not-evaluated",
        }
    }

    pub fn reason(&self) -> Option<&str> {
        match self {
            Outcome::Pass => None,
            Outcome::Fail { reason } | Outcome::CannotEvaluate { reason } => Some(reason),
            Outcome::NotEvaluated { why } => Some(why),
        }
    }
}

/// One recorded claim and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedClaim {
    /// The document's path.
    pub path: String,
    /// The claim's position among the document's `[[claims]]` entries (0-based).
    pub position: usize,
    pub predicate: String,
    pub subject: String,
    pub object: Option<String>,
    pub required_precision: Option<String>,
    /// `pass`, `fail` or `cannot_evaluate`.
    pub outcome: String,
    /// The reason code of the evaluation.
    pub reason: String,
}

/// A Go-side source an outcome depends on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceHash {
    pub path: String,
    pub sha256: String,
}

/// The version-1 claim outcomes receipt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsReceipt {
    pub receipt_schema_version: u32,
    pub receipt_kind: String,
    pub project_id: String,
    pub root: String,
    pub adapter_version: String,
    /// The code that evaluated the outcomes ([`crate::receipt::code_fingerprint`]); absent in
    /// receipts of earlier builds.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub code: String,
    pub config_sha256: String,
    pub go_sources: Vec<SourceHash>,
    pub claims: Vec<RecordedClaim>,
    pub receipt_hash: String,
}

impl docforge_workspace::HashBound for ClaimsReceipt {
    const SCHEMA_VERSION: u32 = 1;
    const MAX_FILE_BYTES: u64 = 64 << 20;
    fn schema_version(&self) -> u32 {
        self.receipt_schema_version
    }
    fn hash_slot(&mut self) -> &mut String {
        &mut self.receipt_hash
    }
}

/// The receipt's project-relative path.
pub fn claims_receipt_rel() -> String {
    format!("{}/receipts/claims.v1.json", docforge_project::STATE_DIR)
}

fn config_sha256(project: &Project) -> String {
    hex::encode(Sha256::digest(project.config_text.as_bytes()))
}

/// Record the outcomes of one docforge validate run through the project writer: each of
/// `claims` (in document order) with its `(outcome, reason code)`, numbered by its position
/// among its document's claims, and the run's Go side (`go_sources`, path → SHA-256).
pub fn record<'o>(
    project: &Project,
    go_sources: &[(String, String)],
    claims: &[docforge_db::DocClaim],
    outcomes: impl IntoIterator<Item = (&'o str, &'o str)>,
) -> Result<(), WriteError> {
    let mut position: HashMap<&str, usize> = HashMap::new();
    let claims = claims
        .iter()
        .zip(outcomes)
        .map(|(c, (outcome, reason))| {
            let n = position.entry(c.path.as_str()).or_default();
            let at = *n;
            *n += 1;
            RecordedClaim {
                path: c.path.clone(),
                position: at,
                predicate: c.predicate.clone(),
                subject: c.subject.clone(),
                object: c.object.clone(),
                required_precision: c.required_precision.clone(),
                outcome: outcome.to_string(),
                reason: reason.to_string(),
            }
        })
        .collect();
    let mut receipt = ClaimsReceipt {
        receipt_schema_version: 1,
        receipt_kind: "claim_outcomes".into(),
        project_id: project.id.clone(),
        root: project.root.display().to_string(),
        adapter_version: docforge_db::ENGINE_VERSION.into(),
        code: crate::receipt::code_fingerprint(),
        config_sha256: config_sha256(project),
        go_sources: go_sources
            .iter()
            .map(|(p, s)| SourceHash { path: p.clone(), sha256: s.clone() })
            .collect(),
        claims,
        receipt_hash: String::new(),
    };
    receipt.receipt_hash = docforge_db::receipt::canonical_hash(&mut receipt, |r| &mut r.receipt_hash);
    let json = serde_json::to_vec(&receipt).expect("receipt serialises");
    ProjectWriter::new(&project.root).write(&claims_receipt_rel(), &json, Durability::Atomic).map(|_| ())
}

/// Recorded outcomes by (document path, claim position).
#[derive(Clone, Debug, Default)]
pub struct Claims {
    outcomes: HashMap<(String, usize), RecordedClaim>,
    /// Why a claim without a usable recorded outcome is not evaluated.
    missing: String,
    /// The receipt file as read (an input of every page showing claims): its stamp and
    /// SHA-256, or an empty SHA-256 when there was none.
    input: Option<crate::receipt::InputFile>,
}

/// The Go-side kinds of the index's file records.
const GO_SIDE: [&str; 4] = ["go", "gomod", "gowork", "govendor"];

impl Claims {
    /// No recorded outcome: every claim is "not evaluated", for `why`.
    pub fn none(why: impl Into<String>) -> Claims {
        Claims { outcomes: HashMap::new(), missing: why.into(), input: None }
    }

    /// The claim outcomes receipt as an input of the render (see [`Claims::recorded`]).
    pub fn input(&self) -> Option<&crate::receipt::InputFile> {
        self.input.as_ref()
    }

    /// The outcomes recorded for the sources the published `index` holds (see the module
    /// documentation); nothing recorded or nothing proven applies → every claim is "not
    /// evaluated" with the reason.
    pub fn recorded(project: &Project, index: &Index) -> Claims {
        let rel = claims_receipt_rel();
        let input = |stamp: docforge_project::FileStamp, bytes: &[u8]| crate::receipt::InputFile {
            path: rel.clone(),
            size: stamp.size,
            mtime_ns: stamp.mtime_ns,
            ctime_ns: stamp.ctime_ns,
            sha256: hex::encode(Sha256::digest(bytes)),
        };
        let path = project.root.join(&rel);
        let read = docforge_workspace::receipts::read_verified_bytes::<ClaimsReceipt>(&project.root, &path);
        // What the pages were made with, so the render's status sees a later change of it:
        // the file the outcomes were read from, or whatever is there when none could be (an
        // empty SHA-256: there was nothing).
        let (mut claims, used) = match read {
            Ok((receipt, stamp, bytes)) => (Claims::of(project, index, receipt), Some(input(stamp, &bytes))),
            Err(s) if s.state == docforge_workspace::ReceiptState::Missing => {
                (Claims::none("docforge validate has not recorded an outcome"), None)
            }
            Err(s) => (Claims::none(format!("the recorded outcomes cannot be used: {}", s.reason)), None),
        };
        claims.input = Some(used.unwrap_or_else(|| match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => {
                let max = <ClaimsReceipt as docforge_workspace::HashBound>::MAX_FILE_BYTES;
                let bytes = docforge_project::read_regular_file(&path, max);
                input(docforge_project::FileStamp::of(&m), &bytes.unwrap_or_default())
            }
            _ => crate::receipt::InputFile {
                path: rel.clone(),
                size: 0,
                mtime_ns: 0,
                ctime_ns: 0,
                sha256: String::new(),
            },
        }));
        claims
    }

    /// The outcomes of a verified `receipt` that apply to the published `index`.
    fn of(project: &Project, index: &Index, receipt: ClaimsReceipt) -> Claims {
        if receipt.project_id != project.id
            || receipt.root != project.root.display().to_string()
            || receipt.adapter_version != docforge_db::ENGINE_VERSION
            || receipt.code != crate::receipt::code_fingerprint()
            || receipt.config_sha256 != config_sha256(project)
        {
            return Claims::none(
                "the recorded outcomes are of another project, DocForge version or build, or docforge.toml",
            );
        }
        let Ok(files) = index.files() else { return Claims::none("the index's file records cannot be read") };
        let now: BTreeMap<&str, &str> = files
            .iter()
            .filter(|f| GO_SIDE.contains(&f.kind.as_str()) && f.status == "selected")
            .map(|f| (f.path.as_str(), f.sha256.as_str()))
            .collect();
        let then: BTreeMap<&str, &str> =
            receipt.go_sources.iter().map(|s| (s.path.as_str(), s.sha256.as_str())).collect();
        if now != then {
            return Claims::none("the Go sources changed since docforge validate recorded its outcomes");
        }
        let outcomes = receipt.claims.into_iter().map(|c| ((c.path.clone(), c.position), c)).collect();
        Claims {
            outcomes,
            missing: "docforge validate recorded no outcome for this claim".into(),
            input: None,
        }
    }

    /// The outcome of the claim at `position` of the document at `path`.
    pub fn outcome(&self, path: &str, position: usize, claim: &docforge_docs::Claim) -> Outcome {
        let Some(r) = self.outcomes.get(&(path.to_string(), position)) else {
            return Outcome::NotEvaluated { why: self.missing.clone() };
        };
        if r.predicate != claim.predicate
            || r.subject != claim.subject
            || r.object != claim.object
            || r.required_precision != claim.required_precision
        {
            return Outcome::NotEvaluated { why: "the claim changed since docforge validate ran".into() };
        }
        let reason = r.reason.clone();
        match r.outcome.as_str() {
            "pass" => Outcome::Pass,
            "fail" => Outcome::Fail { reason },
            "cannot_evaluate" => Outcome::CannotEvaluate { reason },
            other => Outcome::NotEvaluated { why: format!("an unknown recorded outcome {other:?}") },
        }
    }
}
