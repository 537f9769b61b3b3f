//! Argument value types. Each one validates while it is deserialized and describes the same
//! rule in its JSON Schema, so `tools/list` and the server cannot disagree.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::fmt;

/// `Display` and `ToSql` as the inner string, for the string newtypes.
macro_rules! string_newtype {
    ($t:ident $(<const $n:ident: usize>)?) => {
        impl$(<const $n: usize>)? fmt::Display for $t$(<$n>)? {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl$(<const $n: usize>)? rusqlite::ToSql for $t$(<$n>)? {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }
    };
}
string_newtype!(Id);
string_newtype!(Text<const MAX: usize>);
string_newtype!(CommitId);
string_newtype!(Sha256Hex);

/// An identifier: letters, digits, `.`, `_`, `:`, `/` or `-`, 1 to 128 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Id(pub String);

pub const ID_PATTERN: &str = "^[A-Za-z0-9._:/-]{1,128}$";

pub fn is_valid_id(s: &str) -> bool {
    (1..=128).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'/' | b'-'))
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if is_valid_id(&s) {
            Ok(Id(s))
        } else {
            Err(serde::de::Error::custom(format!(
                "invalid ID {s:?}: use letters, digits, '.', '_', ':', '/' or '-', 1 to 128 characters"
            )))
        }
    }
}

impl JsonSchema for Id {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Id".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": ID_PATTERN, "minLength": 1, "maxLength": 128})
    }
}

impl std::ops::Deref for Id {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// Non-empty text of at most `MAX` characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Text<const MAX: usize>(pub String);

/// A title or a subject.
pub type Title = Text<200>;
/// A description, a summary, comments, a rationale.
pub type Body = Text<20000>;

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let chars = s.chars().count();
        if s.trim().is_empty() {
            Err(serde::de::Error::custom("text must not be empty"))
        } else if chars > MAX {
            Err(serde::de::Error::custom(format!("text of {chars} characters; at most {MAX}")))
        } else {
            Ok(Text(s))
        }
    }
}

impl<const MAX: usize> JsonSchema for Text<MAX> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Text{MAX}").into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "minLength": 1, "maxLength": MAX})
    }
}

impl<const MAX: usize> std::ops::Deref for Text<MAX> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// A Git object ID: 40 (SHA-1) or 64 (SHA-256) hexadecimal digits; kept in lower case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CommitId(pub String);

impl<'de> Deserialize<'de> for CommitId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(CommitId(s.to_ascii_lowercase()))
        } else {
            Err(serde::de::Error::custom(format!(
                "invalid commit ID {s:?}: expected 40 or 64 hexadecimal digits (a full Git object ID)"
            )))
        }
    }
}

impl JsonSchema for CommitId {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "CommitId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$"})
    }
}

/// A SHA-256 digest: 64 hexadecimal digits; kept in lower case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Sha256Hex(pub String);

impl<'de> Deserialize<'de> for Sha256Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Sha256Hex(s.to_ascii_lowercase()))
        } else {
            Err(serde::de::Error::custom(format!("invalid sha256 {s:?}: expected 64 hexadecimal digits")))
        }
    }
}

impl JsonSchema for Sha256Hex {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Sha256Hex".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^[0-9a-fA-F]{64}$"})
    }
}

/// A project role: PO (product owner), PM (project manager), PA (project assistant: takes
/// part and requests reviews, never records decisions), ARCHITECT, LEAD_ENGINEER, IMPLEMENTER
/// (the roles that claim work), REVIEWER.
// (No per-variant doc comments: they would turn the schema's plain `enum` into a `oneOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    Po,
    Pm,
    Pa,
    Architect,
    LeadEngineer,
    Implementer,
    Reviewer,
}

impl Role {
    pub const ALL: [Role; 7] = [
        Role::Po,
        Role::Pm,
        Role::Pa,
        Role::Architect,
        Role::LeadEngineer,
        Role::Implementer,
        Role::Reviewer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Po => "PO",
            Role::Pm => "PM",
            Role::Pa => "PA",
            Role::Architect => "ARCHITECT",
            Role::LeadEngineer => "LEAD_ENGINEER",
            Role::Implementer => "IMPLEMENTER",
            Role::Reviewer => "REVIEWER",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_allow_exactly_the_contract_alphabet_up_to_128() {
        for ok in ["WP-001", "a.b_c:d/e-f", "x", &"a".repeat(128)] {
            assert!(is_valid_id(ok), "{ok}");
        }
        for bad in ["", "a b", "ü", "a#b", "a\\b", &"a".repeat(129), "a\n"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn role_names_round_trip() {
        for role in Role::ALL {
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(json, format!("\"{}\"", role.as_str()));
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
    }
}
