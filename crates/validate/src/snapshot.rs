//! The trusted persisted graph `.gograph/graph.json` (graph schema `2`, source policy 1):
//! what `gograph build` writes and validation reads, strictly.
//!
//! Strict loading refuses what navigation readers would tolerate: unknown schema versions
//! (`graph_schema_unsupported`), a missing or different source-policy marker
//! (`source_policy_unsupported`), unknown fields, legacy graphs without build metadata,
//! without a source fingerprint or with a file lacking its digest, and a recorded
//! fingerprint that does not match the recorded inventory (`graph_invalid`). The serialized
//! repository root is never trusted: no root is stored, paths are repository-relative.

use crate::manifest::{self, SelectionPolicy};
pub use crate::records::{Attrs, SnapEdge, SnapLocation, SnapNode};
use crate::report::Reason;
use docforge_db::GoInventory;
use docforge_go::BuildContext;
use serde::{Deserialize, Serialize};

pub const GRAPH_SCHEMA_VERSION: &str = "2";
/// The snapshot's place under the repository root.
pub const GRAPH_DIR: &str = ".gograph";
pub const GRAPH_FILE: &str = "graph.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot<'a> {
    pub schema_version: String,
    pub source_policy_version: u32,
    /// The SHA-256 of the `graph.index` written with this snapshot (the only way an index is
    /// bound to it: [`crate::index`]); third, so that a reader finds it in the first bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_sha256: Option<String>,
    /// The gograph build identifier that wrote the snapshot.
    pub generator: String,
    pub generated_at: String,
    pub build: BuildMeta,
    /// Go package and symbol nodes (bare IDs, without `go:`).
    #[serde(borrow, deserialize_with = "crate::records::records")]
    pub nodes: Vec<SnapNode<'a>>,
    /// `imports`, `calls` and `implements` edges between bare IDs.
    #[serde(borrow, deserialize_with = "crate::records::records")]
    pub edges: Vec<SnapEdge<'a>>,
    /// Go-side diagnostics that evaluation needs (duplicate symbols, …).
    pub diagnostics: Vec<SnapDiagnostic>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildMeta {
    /// The requested mode: `ast` or `precise`.
    pub mode: String,
    /// The actual precision: `ast`, `precise` or `precise_fallback`.
    pub precision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_reason: Option<String>,
    /// `complete` or `partial`.
    pub completeness: String,
    pub completeness_reasons: Vec<String>,
    pub build_context: BuildContext,
    pub build_context_fingerprint: String,
    pub source_manifest_version: String,
    pub source_fingerprint: String,
    pub policy: SelectionPolicy,
    pub modules: Vec<ModuleRecord>,
    pub files: Vec<FileRecord>,
    pub metadata: Vec<MetaRecord>,
    pub excluded: Vec<PathReason>,
    pub skipped: Vec<PathReason>,
    /// `go.mod`/`go.work` files enclosing the Go roots from outside them (relative spellings).
    pub enclosing: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleRecord {
    pub dir: String,
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRecord {
    pub path: String,
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetaRecord {
    pub path: String,
    pub kind: String,
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathReason {
    pub path: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapDiagnostic {
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_id: Option<String>,
}

/// Why a snapshot cannot be trusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    pub reason: Reason,
    pub code: &'static str,
    pub message: String,
}

fn invalid(code: &'static str, message: impl Into<String>) -> SnapshotError {
    SnapshotError { reason: Reason::GraphInvalid, code, message: message.into() }
}

/// Only the version markers, read before the full strict decode.
#[derive(Deserialize)]
struct Head {
    schema_version: Option<serde_json::Value>,
    source_policy_version: Option<serde_json::Value>,
}

/// The schema and source-policy markers (as JSON values; absent when `None`).
fn check_markers(
    schema_version: Option<&serde_json::Value>,
    source_policy_version: Option<&serde_json::Value>,
) -> Result<(), SnapshotError> {
    match schema_version {
        Some(serde_json::Value::String(v)) if v == GRAPH_SCHEMA_VERSION => {}
        Some(v) => {
            return Err(SnapshotError {
                reason: Reason::GraphSchemaUnsupported,
                code: "graph_schema_unsupported",
                message: format!("graph schema {v} is not supported (expected {GRAPH_SCHEMA_VERSION:?})"),
            })
        }
        None => return Err(invalid("graph_legacy", "graph.json has no schema_version; rebuild it")),
    }
    match source_policy_version {
        Some(serde_json::Value::Number(n)) if n.as_u64() == Some(manifest::SOURCE_POLICY_VERSION as u64) => {
            Ok(())
        }
        other => Err(SnapshotError {
            reason: Reason::SourcePolicyUnsupported,
            code: "source_policy_unsupported",
            message: match other {
                None => "graph.json lacks the source-policy marker; rebuild it".to_string(),
                Some(v) => {
                    format!(
                        "source policy {v} is not supported (expected {})",
                        manifest::SOURCE_POLICY_VERSION
                    )
                }
            },
        }),
    }
}

fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl<'a> Snapshot<'a> {
    /// Strictly decode the exact bytes of a persisted graph. The version markers decide
    /// first: a graph of another schema or source policy is reported as such, whatever else
    /// it contains (when the strict decode fails, the markers alone are read to say why).
    /// Node and edge strings borrow from `bytes`.
    pub fn decode(bytes: &'a [u8]) -> Result<Snapshot<'a>, SnapshotError> {
        // The shortest record (`{"id":"p","kind":"package"}`) has 26 bytes.
        let bound = bytes.len() / 26;
        // UTF-8 is checked once for the whole document rather than string by string; bytes
        // that are not UTF-8 take the byte decoder, which says where.
        let decoded = crate::records::with_record_bound(bound, || match std::str::from_utf8(bytes) {
            Ok(text) => serde_json::from_str::<Snapshot<'a>>(text),
            Err(_) => serde_json::from_slice::<Snapshot<'a>>(bytes),
        });
        let snap = match decoded {
            Ok(snap) => snap,
            Err(e) => {
                let head: Head = serde_json::from_slice(bytes).map_err(|e| {
                    invalid("graph_undecodable", format!("graph.json cannot be decoded: {e}"))
                })?;
                check_markers(head.schema_version.as_ref(), head.source_policy_version.as_ref())?;
                let code =
                    if e.to_string().contains("missing field") { "graph_legacy" } else { "graph_invalid" };
                return Err(invalid(
                    code,
                    format!("graph.json violates graph schema {GRAPH_SCHEMA_VERSION}: {e}"),
                ));
            }
        };
        snap.checked()
    }

    /// This snapshot when its version markers are supported and its recorded digests and
    /// fingerprints are consistent (the checks after a strict decode).
    pub(crate) fn checked(self) -> Result<Self, SnapshotError> {
        check_markers(
            Some(&serde_json::Value::from(self.schema_version.as_str())),
            Some(&serde_json::Value::from(self.source_policy_version)),
        )?;
        self.check()?;
        Ok(self)
    }

    fn check(&self) -> Result<(), SnapshotError> {
        let b = &self.build;
        if let Some(f) = b.files.iter().find(|f| !is_digest(&f.sha256)) {
            return Err(invalid(
                "digest_missing",
                format!("{} has no content digest; rebuild the graph", f.path),
            ));
        }
        if let Some(f) = b.metadata.iter().find(|f| !is_digest(&f.sha256)) {
            return Err(invalid(
                "digest_missing",
                format!("{} has no content digest; rebuild the graph", f.path),
            ));
        }
        if b.source_manifest_version != manifest::SOURCE_MANIFEST_SCHEMA {
            return Err(invalid(
                "source_manifest_unsupported",
                format!(
                    "source manifest {:?} is not {}",
                    b.source_manifest_version,
                    manifest::SOURCE_MANIFEST_SCHEMA
                ),
            ));
        }
        if !matches!(b.precision.as_str(), "ast" | "precise" | "precise_fallback")
            || !matches!(b.mode.as_str(), "ast" | "precise")
            || !matches!(b.completeness.as_str(), "complete" | "partial")
        {
            return Err(invalid("graph_invalid", "unknown mode, precision or completeness value"));
        }
        let inv = self.inventory();
        if manifest::source_fingerprint(&inv, &b.policy) != b.source_fingerprint {
            return Err(invalid(
                "source_fingerprint_inconsistent",
                "the recorded source fingerprint does not match the recorded inventory",
            ));
        }
        if manifest::build_context_fingerprint(&inv.build, &inv.modules) != b.build_context_fingerprint {
            return Err(invalid(
                "build_context_fingerprint_inconsistent",
                "the recorded build-context fingerprint does not match the recorded build context",
            ));
        }
        Ok(())
    }

    /// The recorded inventory, in the engine's shape.
    pub fn inventory(&self) -> GoInventory {
        let b = &self.build;
        GoInventory {
            build: b.build_context.clone(),
            modules: b.modules.iter().map(|m| (m.dir.clone(), m.path.clone())).collect(),
            files: b.files.iter().map(|f| (f.path.clone(), f.sha256.clone())).collect(),
            excluded: b.excluded.iter().map(|e| (e.path.clone(), e.reason.clone())).collect(),
            metadata: b
                .metadata
                .iter()
                .map(|m| (m.path.clone(), meta_kind(&m.kind), m.sha256.clone()))
                .collect(),
            skipped: b.skipped.iter().map(|e| (e.path.clone(), e.reason.clone())).collect(),
            enclosing: b.enclosing.clone(),
            ..Default::default()
        }
    }

    /// The same snapshot, owning its strings.
    pub fn into_owned(self) -> Snapshot<'static> {
        Snapshot {
            schema_version: self.schema_version,
            source_policy_version: self.source_policy_version,
            index_sha256: self.index_sha256,
            generator: self.generator,
            generated_at: self.generated_at,
            build: self.build,
            nodes: self.nodes.into_iter().map(SnapNode::into_owned).collect(),
            edges: self.edges.into_iter().map(SnapEdge::into_owned).collect(),
            diagnostics: self.diagnostics,
        }
    }

    /// The bytes that are written: compact JSON (one line) with a final newline. Every
    /// validation reads, hashes and decodes all of it, so no indentation (a third of the
    /// bytes of the standard library's snapshot); `jq .` shows it indented.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec(self).expect("the snapshot serialises");
        v.push(b'\n');
        v
    }
}

fn meta_kind(kind: &str) -> &'static str {
    match kind {
        "gomod" => "gomod",
        "gowork" => "gowork",
        "govendor" => "govendor",
        _ => "other",
    }
}

/// The build metadata of an inventory.
pub fn build_meta(inv: &GoInventory, policy: &SelectionPolicy) -> BuildMeta {
    let pr = |(path, reason): &(String, String)| PathReason { path: path.clone(), reason: reason.clone() };
    BuildMeta {
        mode: "ast".into(),
        precision: "ast".into(),
        precision_reason: None,
        completeness: "complete".into(),
        completeness_reasons: Vec::new(),
        build_context: inv.build.clone(),
        build_context_fingerprint: manifest::build_context_fingerprint(&inv.build, &inv.modules),
        source_manifest_version: manifest::SOURCE_MANIFEST_SCHEMA.into(),
        source_fingerprint: manifest::source_fingerprint(inv, policy),
        policy: policy.clone(),
        modules: inv
            .modules
            .iter()
            .map(|(dir, path)| ModuleRecord { dir: dir.clone(), path: path.clone() })
            .collect(),
        files: inv
            .files
            .iter()
            .map(|(path, sha)| FileRecord { path: path.clone(), sha256: sha.clone() })
            .collect(),
        metadata: inv
            .metadata
            .iter()
            .map(|(path, kind, sha)| MetaRecord {
                path: path.clone(),
                kind: kind.to_string(),
                sha256: sha.clone(),
            })
            .collect(),
        excluded: inv.excluded.iter().map(pr).collect(),
        skipped: inv.skipped.iter().map(pr).collect(),
        enclosing: inv.enclosing.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> Snapshot<'static> {
        let inv = GoInventory {
            modules: vec![(String::new(), "example.com/m".into())],
            files: vec![("a.go".into(), "1".repeat(64))],
            metadata: vec![("go.mod".into(), "gomod", "2".repeat(64))],
            ..Default::default()
        };
        Snapshot {
            schema_version: GRAPH_SCHEMA_VERSION.into(),
            source_policy_version: manifest::SOURCE_POLICY_VERSION,
            index_sha256: None,
            generator: "test".into(),
            generated_at: "2026-01-01T00:00:00Z".into(),
            build: build_meta(&inv, &SelectionPolicy::default()),
            nodes: vec![],
            edges: vec![],
            diagnostics: vec![],
        }
    }

    fn edit(f: impl Fn(&mut serde_json::Value)) -> Vec<u8> {
        let mut v: serde_json::Value = serde_json::from_slice(&sample().encode()).unwrap();
        f(&mut v);
        serde_json::to_vec(&v).unwrap()
    }

    #[test]
    fn round_trip() {
        let s = sample();
        assert_eq!(Snapshot::decode(&s.encode()).unwrap(), s);
    }

    #[test]
    fn strict_loading_refuses_untrusted_graphs() {
        use serde_json::json;
        let cases: Vec<(&str, Vec<u8>, Reason, &str)> = vec![
            ("not JSON", b"{".to_vec(), Reason::GraphInvalid, "graph_undecodable"),
            (
                "unknown schema",
                edit(|v| v["schema_version"] = json!("3")),
                Reason::GraphSchemaUnsupported,
                "graph_schema_unsupported",
            ),
            (
                "numeric schema",
                edit(|v| v["schema_version"] = json!(2)),
                Reason::GraphSchemaUnsupported,
                "graph_schema_unsupported",
            ),
            (
                "no schema (legacy)",
                edit(|v| {
                    v.as_object_mut().unwrap().remove("schema_version");
                }),
                Reason::GraphInvalid,
                "graph_legacy",
            ),
            (
                "no policy marker",
                edit(|v| {
                    v.as_object_mut().unwrap().remove("source_policy_version");
                }),
                Reason::SourcePolicyUnsupported,
                "source_policy_unsupported",
            ),
            (
                "other policy",
                edit(|v| v["source_policy_version"] = json!(3)),
                Reason::SourcePolicyUnsupported,
                "source_policy_unsupported",
            ),
            (
                // Version 1 let ignore files drop compiled Go files: its graphs must be rebuilt.
                "the previous policy",
                edit(|v| v["source_policy_version"] = json!(1)),
                Reason::SourcePolicyUnsupported,
                "source_policy_unsupported",
            ),
            (
                "no build metadata (legacy v2)",
                edit(|v| {
                    v.as_object_mut().unwrap().remove("build");
                }),
                Reason::GraphInvalid,
                "graph_legacy",
            ),
            (
                "no source fingerprint",
                edit(|v| {
                    v["build"].as_object_mut().unwrap().remove("source_fingerprint");
                }),
                Reason::GraphInvalid,
                "graph_legacy",
            ),
            (
                "missing digest",
                edit(|v| v["build"]["files"][0]["sha256"] = json!("")),
                Reason::GraphInvalid,
                "digest_missing",
            ),
            (
                "file without digest field",
                edit(|v| {
                    v["build"]["files"][0].as_object_mut().unwrap().remove("sha256");
                }),
                Reason::GraphInvalid,
                "graph_legacy",
            ),
            (
                "unknown field",
                edit(|v| v["root"] = json!("/elsewhere")),
                Reason::GraphInvalid,
                "graph_invalid",
            ),
            (
                "nested unknown field",
                edit(|v| v["build"]["mtime_fallback"] = json!(true)),
                Reason::GraphInvalid,
                "graph_invalid",
            ),
            (
                "tampered fingerprint",
                edit(|v| v["build"]["source_fingerprint"] = json!("0".repeat(64))),
                Reason::GraphInvalid,
                "source_fingerprint_inconsistent",
            ),
            (
                "tampered inventory",
                edit(|v| v["build"]["files"][0]["sha256"] = json!("3".repeat(64))),
                Reason::GraphInvalid,
                "source_fingerprint_inconsistent",
            ),
            (
                "unknown precision",
                edit(|v| v["build"]["precision"] = json!("exact")),
                Reason::GraphInvalid,
                "graph_invalid",
            ),
        ];
        for (name, bytes, reason, code) in cases {
            let e = Snapshot::decode(&bytes).expect_err(name);
            assert_eq!((e.reason, e.code), (reason, code), "{name}: {}", e.message);
        }
    }
}
