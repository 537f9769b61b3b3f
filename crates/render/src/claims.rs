//! The validation outcome a page shows for each `[[claims]]` entry: the latest recorded one
//! when it is proven to be about the sources as rendered, "not evaluated" otherwise — never a
//! guessed outcome.

use std::collections::HashMap;

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

/// Recorded outcomes by (document path, claim position in the document).
#[derive(Clone, Debug, Default)]
pub struct Claims {
    outcomes: HashMap<(String, usize), Outcome>,
    /// Why a claim without a recorded outcome is not evaluated.
    missing: String,
}

impl Claims {
    /// No recorded outcome: every claim is "not evaluated", for `why`.
    pub fn none(why: impl Into<String>) -> Claims {
        Claims { outcomes: HashMap::new(), missing: why.into() }
    }

    pub fn with(outcomes: HashMap<(String, usize), Outcome>, missing: impl Into<String>) -> Claims {
        Claims { outcomes, missing: missing.into() }
    }

    pub fn outcome(&self, path: &str, position: usize, _claim: &docforge_docs::Claim) -> Outcome {
        self.outcomes
            .get(&(path.to_string(), position))
            .cloned()
            .unwrap_or_else(|| Outcome::NotEvaluated { why: self.missing.clone() })
    }
}
