//! Strict `gograph.binding.v1` decoding, the canonical form and its fingerprint.
//!
//! Decoding is strict, never normalising: invalid UTF-8, malformed or trailing JSON,
//! duplicate keys, unknown fields (also inside references), `null` where a value or an
//! absence is required, empty values, invalid enums and malformed IDs are refused. A
//! predicate outside the v1 set is `unsupported_predicate`, a language other than Go
//! `unsupported_language`, a machine-local pseudo import path `symbol_identity_unstable`.

use crate::report::Reason;
use serde::{Deserialize, Deserializer, Serialize};

pub const BINDING_SCHEMA: &str = "gograph.binding.v1";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Predicate {
    SymbolExists,
    PackageImports,
    CallEdgeExists,
    TypeImplements,
}

impl Predicate {
    pub const ALL: [Predicate; 4] = [
        Predicate::SymbolExists,
        Predicate::PackageImports,
        Predicate::CallEdgeExists,
        Predicate::TypeImplements,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Predicate::SymbolExists => "symbol_exists",
            Predicate::PackageImports => "package_imports",
            Predicate::CallEdgeExists => "call_edge_exists",
            Predicate::TypeImplements => "type_implements",
        }
    }
    pub fn parse(s: &str) -> Option<Predicate> {
        Predicate::ALL.into_iter().find(|p| p.as_str() == s)
    }
    /// The reference kind of the subject and (when there is one) the object.
    pub fn reference_kind(self) -> RefKind {
        match self {
            Predicate::PackageImports => RefKind::Package,
            _ => RefKind::Symbol,
        }
    }
    pub fn has_object(self) -> bool {
        self != Predicate::SymbolExists
    }
    /// The minimum precision the predicate can be evaluated at.
    pub fn minimum_precision(self) -> Precision {
        match self {
            Predicate::SymbolExists | Predicate::PackageImports => Precision::Ast,
            Predicate::CallEdgeExists | Predicate::TypeImplements => Precision::Precise,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefKind {
    Symbol,
    Package,
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Symbol => "symbol",
            RefKind::Package => "package",
        }
    }
}

/// The binding's `required_precision` (the graph's actual precision has a third state,
/// `precise_fallback`, which never satisfies `precise`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Precision {
    Ast,
    Precise,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Ast => "ast",
            Precision::Precise => "precise",
        }
    }
}

/// A typed reference (the language is always Go in v1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reference {
    pub kind: RefKind,
    /// Bare Gograph ID: `<import path>::<decl>` or an import path.
    pub id: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub predicate: Predicate,
    pub subject: Reference,
    pub object: Option<Reference>,
    pub required_precision: Precision,
}

/// The canonical binding as echoed in results: fixed field order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CanonicalBinding {
    pub schema_version: &'static str,
    pub predicate: &'static str,
    pub subject: CanonicalRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<CanonicalRef>,
    pub required_precision: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CanonicalRef {
    pub language: &'static str,
    pub kind: &'static str,
    pub id: String,
}

impl Binding {
    pub fn canonical(&self) -> CanonicalBinding {
        let r = |r: &Reference| CanonicalRef { language: "go", kind: r.kind.as_str(), id: r.id.clone() };
        CanonicalBinding {
            schema_version: BINDING_SCHEMA,
            predicate: self.predicate.as_str(),
            subject: r(&self.subject),
            object: self.object.as_ref().map(r),
            required_precision: self.required_precision.as_str(),
        }
    }
    /// UTF-8, fixed field order, no insignificant whitespace, a final newline.
    pub fn canonical_json(&self) -> String {
        serde_json::to_string(&self.canonical()).expect("the binding serialises") + "\n"
    }
    /// SHA-256 of [`Binding::canonical_json`].
    pub fn fingerprint(&self) -> String {
        crate::sha256_hex(self.canonical_json().as_bytes())
    }
}

/// Why a binding was refused: a reason code and a human message (not API).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingError {
    pub reason: Reason,
    pub message: String,
    /// The binding, when it was well-formed enough to be echoed (an unstable identity).
    pub binding: Option<Binding>,
}

fn refuse(reason: Reason, message: impl Into<String>) -> BindingError {
    BindingError { reason, message: message.into(), binding: None }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBinding {
    schema_version: String,
    predicate: String,
    subject: RawRef,
    #[serde(default, deserialize_with = "present")]
    object: Option<RawRef>,
    required_precision: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRef {
    language: String,
    kind: String,
    id: String,
}

/// An optional field that, when present, must not be `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawRef>, D::Error> {
    RawRef::deserialize(d).map(Some)
}

/// Decode one binding document from the exact received bytes.
pub fn decode_binding(bytes: &[u8]) -> Result<Binding, BindingError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| refuse(Reason::InvalidRequest, format!("binding is not valid UTF-8: {e}")))?;
    let raw: RawBinding = serde_json::from_str(text).map_err(|e| {
        refuse(Reason::InvalidRequest, format!("binding is not a strict {BINDING_SCHEMA} document: {e}"))
    })?;
    if raw.schema_version != BINDING_SCHEMA {
        return Err(refuse(
            Reason::InvalidRequest,
            format!("schema_version must be {BINDING_SCHEMA:?}, found {:?}", raw.schema_version),
        ));
    }
    nonempty("predicate", &raw.predicate)?;
    let Some(predicate) = Predicate::parse(&raw.predicate) else {
        return Err(refuse(
            Reason::UnsupportedPredicate,
            format!("predicate {:?} is outside the closed v1 set", raw.predicate),
        ));
    };
    nonempty("required_precision", &raw.required_precision)?;
    let required_precision = match raw.required_precision.as_str() {
        "ast" => Precision::Ast,
        "precise" => Precision::Precise,
        other => {
            return Err(refuse(
                Reason::InvalidRequest,
                format!("required_precision must be \"ast\" or \"precise\", found {other:?}"),
            ))
        }
    };
    let subject = reference("subject", &raw.subject, predicate)?;
    let object = match (&raw.object, predicate.has_object()) {
        (Some(_), false) => {
            return Err(refuse(Reason::InvalidRequest, format!("{} takes no object", predicate.as_str())))
        }
        (None, true) => {
            return Err(refuse(Reason::InvalidRequest, format!("{} requires an object", predicate.as_str())))
        }
        (Some(o), true) => Some(reference("object", o, predicate)?),
        (None, false) => None,
    };
    if required_precision < predicate.minimum_precision() {
        return Err(refuse(
            Reason::InvalidRequest,
            format!(
                "{} requires required_precision {:?}",
                predicate.as_str(),
                predicate.minimum_precision().as_str()
            ),
        ));
    }
    let binding = Binding { predicate, subject, object, required_precision };
    let unstable = std::iter::once(&binding.subject)
        .chain(binding.object.as_ref())
        .find(|r| is_machine_local(&r.id))
        .map(|r| r.id.clone());
    if let Some(id) = unstable {
        return Err(BindingError {
            reason: Reason::SymbolIdentityUnstable,
            message: format!(
                "{id:?} uses a machine-local pseudo import path; v1 requires module-backed identities"
            ),
            binding: Some(binding),
        });
    }
    Ok(binding)
}

fn nonempty(field: &str, value: &str) -> Result<(), BindingError> {
    if value.is_empty() {
        return Err(refuse(Reason::InvalidRequest, format!("{field} must not be empty")));
    }
    Ok(())
}

fn reference(field: &str, raw: &RawRef, predicate: Predicate) -> Result<Reference, BindingError> {
    nonempty(&format!("{field}.language"), &raw.language)?;
    if raw.language != "go" {
        return Err(refuse(
            Reason::UnsupportedLanguage,
            format!("{field}.language {:?} is not supported (v1: \"go\")", raw.language),
        ));
    }
    nonempty(&format!("{field}.kind"), &raw.kind)?;
    let kind = match raw.kind.as_str() {
        "symbol" => RefKind::Symbol,
        "package" => RefKind::Package,
        other => {
            return Err(refuse(
                Reason::InvalidRequest,
                format!("{field}.kind must be \"symbol\" or \"package\", found {other:?}"),
            ))
        }
    };
    if kind != predicate.reference_kind() {
        return Err(refuse(
            Reason::InvalidRequest,
            format!("{} needs a {} {field}", predicate.as_str(), predicate.reference_kind().as_str()),
        ));
    }
    nonempty(&format!("{field}.id"), &raw.id)?;
    if !is_machine_local(&raw.id) {
        let ok = match kind {
            RefKind::Package => is_import_path(&raw.id),
            RefKind::Symbol => is_symbol_id(&raw.id),
        };
        if !ok {
            return Err(refuse(
                Reason::InvalidRequest,
                format!("{field}.id {:?} is not a well-formed {} ID", raw.id, kind.as_str()),
            ));
        }
    }
    Ok(Reference { kind, id: raw.id.clone() })
}

/// Go's pseudo import path for a directory outside any module: `_` + an absolute path.
pub fn is_machine_local(id: &str) -> bool {
    let pkg = id.split("::").next().unwrap_or(id);
    pkg == "_" || pkg.starts_with("_/")
}

pub use docforge_go::is_import_path;

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && s != "_"
}

/// `<import path>::Name`, `<import path>::(T).M` or `<import path>::(*T).M`.
pub fn is_symbol_id(s: &str) -> bool {
    let Some((pkg, decl)) = s.split_once("::") else { return false };
    if !is_import_path(pkg) {
        return false;
    }
    match decl.strip_prefix('(') {
        None => is_ident(decl),
        Some(rest) => {
            let Some((recv, method)) = rest.split_once(").") else { return false };
            is_ident(recv.strip_prefix('*').unwrap_or(recv)) && is_ident(method)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = r#"{"schema_version":"gograph.binding.v1","predicate":"call_edge_exists","subject":{"language":"go","kind":"symbol","id":"example.com/p/http::(*Handler).ServeHTTP"},"object":{"language":"go","kind":"symbol","id":"example.com/p/service::(*Service).Authorize"},"required_precision":"precise"}"#;

    fn reason(doc: &str) -> (Reason, String) {
        match decode_binding(doc.as_bytes()) {
            Ok(b) => panic!("accepted {doc}: {b:?}"),
            Err(e) => (e.reason, e.message),
        }
    }

    #[test]
    fn canonical_form_and_fingerprint() {
        let spaced =
            serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(CALL).unwrap()).unwrap();
        let b = decode_binding(spaced.as_bytes()).unwrap();
        assert_eq!(b.canonical_json(), format!("{CALL}\n"), "fixed order, no whitespace, final newline");
        assert_eq!(b.fingerprint(), crate::sha256_hex(format!("{CALL}\n").as_bytes()));
        // Field order in the request does not change the canonical form.
        let reordered = r#"{"required_precision":"precise","object":{"id":"example.com/p/service::(*Service).Authorize","kind":"symbol","language":"go"},"subject":{"id":"example.com/p/http::(*Handler).ServeHTTP","kind":"symbol","language":"go"},"predicate":"call_edge_exists","schema_version":"gograph.binding.v1"}"#;
        assert_eq!(decode_binding(reordered.as_bytes()).unwrap().fingerprint(), b.fingerprint());
        let exists = r#"{"schema_version":"gograph.binding.v1","predicate":"symbol_exists","subject":{"language":"go","kind":"symbol","id":"example.com/p::F"},"required_precision":"ast"}"#;
        assert_eq!(decode_binding(exists.as_bytes()).unwrap().canonical_json(), format!("{exists}\n"));
    }

    #[test]
    fn strict_decoding_refuses_every_malformed_request() {
        let with = |from: &str, to: &str| {
            assert!(CALL.contains(from), "{from}");
            CALL.replacen(from, to, 1)
        };
        let cases: Vec<(&str, String, Reason, &str)> = vec![
            ("duplicate key", CALL.replacen("{\"schema_version\":\"gograph.binding.v1\",", "{\"schema_version\":\"gograph.binding.v1\",\"predicate\":\"symbol_exists\",", 1), Reason::InvalidRequest, "duplicate field `predicate`"),
            ("duplicate nested key", with("\"kind\":\"symbol\",", "\"kind\":\"symbol\",\"kind\":\"symbol\","), Reason::InvalidRequest, "duplicate field `kind`"),
            ("unknown field", with("{\"schema_version\"", "{\"relation\":\"calls\",\"schema_version\""), Reason::InvalidRequest, "unknown field `relation`"),
            ("nested unknown field", with("\"language\":\"go\",", "\"language\":\"go\",\"repo\":\"/x\","), Reason::InvalidRequest, "unknown field `repo`"),
            ("trailing document", format!("{CALL} {CALL}"), Reason::InvalidRequest, "trailing characters"),
            ("malformed JSON", CALL[..40].to_string(), Reason::InvalidRequest, "EOF while parsing"),
            ("not an object", "[]".into(), Reason::InvalidRequest, "expected struct RawBinding"),
            ("wrong schema", with("gograph.binding.v1", "gograph.binding.v2"), Reason::InvalidRequest, "schema_version must be"),
            ("unknown predicate", with("call_edge_exists", "reachable"), Reason::UnsupportedPredicate, "outside the closed v1 set"),
            ("empty predicate", with("call_edge_exists", ""), Reason::InvalidRequest, "predicate must not be empty"),
            ("predicate of wrong type", with("\"call_edge_exists\"", "3"), Reason::InvalidRequest, "invalid type: integer"),
            ("invalid precision enum", with("\"precise\"", "\"PRECISE\""), Reason::InvalidRequest, "required_precision must be"),
            ("precision below the predicate minimum", with("\"precise\"", "\"ast\""), Reason::InvalidRequest, "requires required_precision \"precise\""),
            ("other language", with("\"language\":\"go\"", "\"language\":\"python\""), Reason::UnsupportedLanguage, "not supported"),
            ("invalid kind enum", with("\"kind\":\"symbol\"", "\"kind\":\"Symbol\""), Reason::InvalidRequest, "kind must be"),
            ("package where a symbol is needed", with("\"kind\":\"symbol\"", "\"kind\":\"package\""), Reason::InvalidRequest, "needs a symbol subject"),
            ("empty id", with("example.com/p/http::(*Handler).ServeHTTP", ""), Reason::InvalidRequest, "subject.id must not be empty"),
            ("go: prefix", with("example.com/p/http::", "go:example.com/p/http::"), Reason::InvalidRequest, "not a well-formed symbol ID"),
            ("display name", with("example.com/p/http::(*Handler).ServeHTTP", "ServeHTTP"), Reason::InvalidRequest, "not a well-formed symbol ID"),
            ("file plus line", with("example.com/p/http::(*Handler).ServeHTTP", "internal/http/handler.go:42"), Reason::InvalidRequest, "not a well-formed symbol ID"),
            ("whitespace", with("(*Handler).ServeHTTP", "(*Handler).ServeHTTP "), Reason::InvalidRequest, "not a well-formed symbol ID"),
            ("null object", with("\"object\":{\"language\":\"go\",\"kind\":\"symbol\",\"id\":\"example.com/p/service::(*Service).Authorize\"}", "\"object\":null"), Reason::InvalidRequest, "invalid type: null"),
            ("missing object", with(",\"object\":{\"language\":\"go\",\"kind\":\"symbol\",\"id\":\"example.com/p/service::(*Service).Authorize\"}", ""), Reason::InvalidRequest, "requires an object"),
            ("machine-local pseudo path", with("example.com/p/http::", "_/home/me/p/http::"), Reason::SymbolIdentityUnstable, "machine-local"),
        ];
        for (name, doc, want, message) in cases {
            let (got, text) = reason(&doc);
            assert_eq!(got, want, "{name}: {text}");
            assert!(text.contains(message), "{name}: {text:?} should mention {message:?}");
        }
        let (got, text) = match decode_binding(b"{\"schema_version\":\"\xff\"}") {
            Err(e) => (e.reason, e.message),
            Ok(_) => unreachable!(),
        };
        assert_eq!((got, text.contains("not valid UTF-8")), (Reason::InvalidRequest, true));
        let object_on_exists = r#"{"schema_version":"gograph.binding.v1","predicate":"symbol_exists","subject":{"language":"go","kind":"symbol","id":"example.com/p::F"},"object":{"language":"go","kind":"symbol","id":"example.com/p::G"},"required_precision":"ast"}"#;
        assert_eq!(reason(object_on_exists).0, Reason::InvalidRequest);
    }

    #[test]
    fn id_syntax() {
        let symbols = [
            ("example.com/p::F", true),
            ("example.com/p::(*T).M", true),
            ("example.com/p::(T).M", true),
            ("net/http::Get", true),
            ("example.com/p::Ünïcode", true),
            ("example.com/p::(**T).M", false),
            ("example.com/p::(T)M", false),
            ("example.com/p::_", false),
            ("example.com/p::", false),
            ("::F", false),
            ("example.com//p::F", false),
            ("example.com/../p::F", false),
            ("example.com/p::F::G", false),
        ];
        for (id, ok) in symbols {
            assert_eq!(is_symbol_id(id), ok, "{id}");
        }
        assert!(is_import_path("example.com/shop/storage"));
        assert!(is_import_path("fmt"));
        assert!(!is_import_path("example.com/shop/"));
        assert!(!is_import_path("Example com"));
        assert!(is_machine_local("_/home/me/p::F") && is_machine_local("_/x"));
        assert!(!is_machine_local("example.com/_/x::F"));
    }
}
