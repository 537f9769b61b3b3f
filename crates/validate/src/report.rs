//! The closed `gograph.validation.v1` result document: outcomes, the 19 reason codes, bounded
//! diagnostics and evidence. Field order is the schema order (serde keeps struct order).

use serde::Serialize;

pub const RESULT_SCHEMA: &str = "gograph.validation.v1";
/// At most this many diagnostics per result.
pub const MAX_DIAGNOSTICS: usize = 16;
/// At most this many UTF-8 bytes per diagnostic message.
pub const MAX_MESSAGE_BYTES: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
    CannotEvaluate,
}

impl Outcome {
    /// The process exit code that carries the outcome (transport redundancy).
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::CannotEvaluate => 2,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::CannotEvaluate => "cannot_evaluate",
        }
    }
}

macro_rules! reasons {
    ($($variant:ident => $code:literal),* $(,)?) => {
        /// The closed v1 reason set.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Reason { $($variant),* }
        impl Reason {
            pub const ALL: &'static [Reason] = &[$(Reason::$variant),*];
            pub fn as_str(self) -> &'static str {
                match self { $(Reason::$variant => $code),* }
            }
        }
    };
}

reasons! {
    PredicatePassed => "predicate_passed",
    PredicateFailed => "predicate_failed",
    SymbolNotFound => "symbol_not_found",
    SymbolAmbiguous => "symbol_ambiguous",
    PackageNotFound => "package_not_found",
    RelationNotFound => "relation_not_found",
    GraphMissing => "graph_missing",
    GraphInvalid => "graph_invalid",
    GraphSchemaUnsupported => "graph_schema_unsupported",
    SourcePolicyUnsupported => "source_policy_unsupported",
    GraphStale => "graph_stale",
    PrecisionInsufficient => "precision_insufficient",
    AnalysisIncomplete => "analysis_incomplete",
    SymbolIdentityUnstable => "symbol_identity_unstable",
    UnsupportedPredicate => "unsupported_predicate",
    UnsupportedLanguage => "unsupported_language",
    RepositoryMismatch => "repository_mismatch",
    InvalidRequest => "invalid_request",
    InternalError => "internal_error",
}

impl Reason {
    /// Whether `outcome` may carry this reason (the contract's reason table).
    pub fn allows(self, outcome: Outcome) -> bool {
        match self {
            Reason::PredicatePassed => outcome == Outcome::Pass,
            Reason::PredicateFailed => outcome == Outcome::Fail,
            Reason::SymbolNotFound | Reason::PackageNotFound | Reason::RelationNotFound => {
                outcome != Outcome::Pass
            }
            _ => outcome == Outcome::CannotEvaluate,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Freshness {
    Current,
    Stale,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repository {
    pub root: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_fingerprint: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysisInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_schema_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_policy_version: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completeness: Option<String>,
    pub freshness: Freshness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_context_fingerprint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_fingerprint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_generated_at: Option<String>,
}

/// The echoed request: the canonical binding and its fingerprint, or, for a request that
/// cannot be echoed safely, only the SHA-256 of the received bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Request {
    Binding { binding_fingerprint: String, binding: crate::binding::CanonicalBinding },
    Received { received_sha256: String },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Diagnostic {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_id: Option<String>,
}

impl Diagnostic {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Diagnostic { code: code.into(), message: bounded(message.into()), path: None, symbol_id: None }
    }
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(bounded(path.into()));
        self
    }
    pub fn symbol(mut self, id: impl Into<String>) -> Self {
        self.symbol_id = Some(bounded(id.into()));
        self
    }
}

/// `s` cut to at most [`MAX_MESSAGE_BYTES`] bytes on a character boundary.
pub fn bounded(mut s: String) -> String {
    if s.len() > MAX_MESSAGE_BYTES {
        let mut end = MAX_MESSAGE_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    pub outcome: Outcome,
    pub reason: Reason,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SourceLocation {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl SourceLocation {
    pub fn of(l: &crate::snapshot::SnapLocation<'_>) -> Self {
        SourceLocation {
            path: l.path.to_string(),
            line: (l.line > 0).then_some(l.line),
            column: (l.line > 0 && l.column > 0).then_some(l.column),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resolved {
    pub id: String,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    pub locations: Vec<SourceLocation>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct MatchedRelation {
    pub kind: &'static str,
    pub subject_id: String,
    pub object_id: String,
    pub classification: String,
    pub locations: Vec<SourceLocation>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Evidence {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_subject: Option<Resolved>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_object: Option<Resolved>,
    pub matched_relations: Vec<MatchedRelation>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationResult {
    pub schema_version: &'static str,
    pub command: &'static str,
    pub gograph_version: String,
    pub generated_at: String,
    pub repository: Repository,
    pub analysis: AnalysisInfo,
    pub request: Request,
    pub evaluation: Evaluation,
    pub evidence: Evidence,
}

impl ValidationResult {
    pub fn outcome(&self) -> Outcome {
        self.evaluation.outcome
    }
    pub fn exit_code(&self) -> u8 {
        self.evaluation.outcome.exit_code()
    }
    /// The document as one line of JSON (the protocol's stdout form).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the result serialises")
    }
}

/// Diagnostics collected during one validation, bounded on output.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    /// At most [`MAX_DIAGNOSTICS`] entries, in the order they were found; when more were
    /// found, the last slot says how many were left out.
    pub fn finish(self) -> Vec<Diagnostic> {
        let mut v = self.0;
        if v.len() > MAX_DIAGNOSTICS {
            let left_out = v.len() - (MAX_DIAGNOSTICS - 1);
            v.truncate(MAX_DIAGNOSTICS - 1);
            v.push(Diagnostic::new("diagnostics_truncated", format!("{left_out} more diagnostics left out")));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nineteen_reason_codes_with_their_outcomes() {
        let table: String = Reason::ALL
            .iter()
            .map(|r| {
                let outcomes: Vec<&str> = [Outcome::Pass, Outcome::Fail, Outcome::CannotEvaluate]
                    .into_iter()
                    .filter(|o| r.allows(*o))
                    .map(Outcome::as_str)
                    .collect();
                format!("{} -> {}\n", r.as_str(), outcomes.join(" | "))
            })
            .collect();
        expect_test::expect![[r#"
            predicate_passed -> pass
            predicate_failed -> fail
            symbol_not_found -> fail | cannot_evaluate
            symbol_ambiguous -> cannot_evaluate
            package_not_found -> fail | cannot_evaluate
            relation_not_found -> fail | cannot_evaluate
            graph_missing -> cannot_evaluate
            graph_invalid -> cannot_evaluate
            graph_schema_unsupported -> cannot_evaluate
            source_policy_unsupported -> cannot_evaluate
            graph_stale -> cannot_evaluate
            precision_insufficient -> cannot_evaluate
            analysis_incomplete -> cannot_evaluate
            symbol_identity_unstable -> cannot_evaluate
            unsupported_predicate -> cannot_evaluate
            unsupported_language -> cannot_evaluate
            repository_mismatch -> cannot_evaluate
            invalid_request -> cannot_evaluate
            internal_error -> cannot_evaluate
        "#]]
        .assert_eq(&table);
        assert_eq!(Reason::ALL.len(), 19);
        for r in Reason::ALL {
            let json = serde_json::to_value(r).unwrap();
            assert_eq!(json, r.as_str(), "serde and as_str agree");
        }
    }

    #[test]
    fn exit_codes() {
        let codes: Vec<(&str, u8)> = [Outcome::Pass, Outcome::Fail, Outcome::CannotEvaluate]
            .iter()
            .map(|o| (o.as_str(), o.exit_code()))
            .collect();
        assert_eq!(codes, [("pass", 0), ("fail", 1), ("cannot_evaluate", 2)]);
    }

    #[test]
    fn diagnostics_are_bounded_to_16_entries_of_512_bytes() {
        let mut d = Diagnostics::default();
        for i in 0..40 {
            d.push(Diagnostic::new("x", "é".repeat(400 + i)));
        }
        let out = d.finish();
        assert_eq!(out.len(), MAX_DIAGNOSTICS);
        assert!(out.iter().all(|d| d.message.len() <= MAX_MESSAGE_BYTES));
        assert_eq!(out[0].message.len(), 512, "cut on a character boundary: 256 two-byte characters");
        assert_eq!(out[15].code, "diagnostics_truncated");
        assert_eq!(out[15].message, "25 more diagnostics left out");
        let few: Vec<_> = {
            let mut d = Diagnostics::default();
            d.push(Diagnostic::new("a", "b"));
            d.finish()
        };
        assert_eq!(few.len(), 1);
    }
}
