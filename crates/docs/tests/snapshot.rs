//! The full fragment of one realistic document, as a snapshot.

use docforge_docs::{document_fragment, parse_markdown_document, DocIndex};
use expect_test::expect;

const DOC: &str = r#"+++
id = "arch.auth"
kind = "decision"
family = "architecture"
authority = "normative"
status = "accepted"
tags = ["security"]
owner = "team-auth"
[relations]
governs = ["go:example.com/shop/internal/auth::Service"]
depends_on = ["arch.storage"]
[[claims]]
predicate = "type_implements"
subject = "example.com/shop/memory::Repository"
object = "example.com/shop/service::Repository"
required_precision = "precise"
+++
# Authentication

Tokens are checked by [`Service`](go:example.com/shop/internal/auth::Service), which reads
users through [storage](storage.md#read-path).

## Token rotation

Rotate every 24h; see [[arch.storage]] and [the missing page](gone.md).

```sh
curl https://example.com  # [[not-a-link]]
```
"#;

#[test]
fn realistic_document_fragment() {
    let doc = parse_markdown_document("docs/arch/auth.md", DOC);
    let storage = parse_markdown_document(
        "docs/arch/storage.md",
        "+++\nid = \"arch.storage\"\n+++\n# Storage\n## Read path\n",
    );
    let index = DocIndex::new(&[&doc, &storage]);
    let fragment = document_fragment(&doc, &index, &|id| id == "go:example.com/shop/internal/auth::Service");
    expect![[r#"
        Fragment {
            nodes: [
                Node {
                    id: "arch.auth",
                    kind: "document",
                    title: "Authentication",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 1,
                            column: 1,
                        },
                    ),
                    text: "Authentication\nTokens are checked by Service, which reads users through storage.\nToken rotation\nRotate every 24h; see [arch.storage] and the missing page.\ncurl https://example.com  # [[not-a-link]]",
                    attrs: {
                        "authority": "normative",
                        "content_sha256": "3118441895368031e7feb7f85ff30ef694dc4c32674a43893af72cae3619cb65",
                        "family": "architecture",
                        "kind": "decision",
                        "owner": "team-auth",
                        "span": "0..720",
                        "span.body": "418..720",
                        "span.front_matter": "0..418",
                        "status": "accepted",
                        "tags": "security",
                    },
                },
                Node {
                    id: "arch.auth#authentication",
                    kind: "section",
                    title: "Authentication",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 18,
                            column: 1,
                        },
                    ),
                    text: "Tokens are checked by Service, which reads users through storage.",
                    attrs: {
                        "content_sha256": "70241032631fa64b2a2e7351b810d2bc92b301ed6f980aca7a0470b372b491e6",
                        "document": "arch.auth",
                        "level": "1",
                        "span": "418..720",
                        "span.body": "435..575",
                        "span.heading": "418..435",
                    },
                },
                Node {
                    id: "arch.auth#token-rotation",
                    kind: "section",
                    title: "Token rotation",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 23,
                            column: 1,
                        },
                    ),
                    text: "Rotate every 24h; see [arch.storage] and the missing page.\ncurl https://example.com  # [[not-a-link]]",
                    attrs: {
                        "content_sha256": "270ddabd165858bf972752e3aebfec5aee9f40b1c3433a41ba58496a77d19239",
                        "document": "arch.auth",
                        "level": "2",
                        "span": "575..720",
                        "span.body": "593..720",
                        "span.heading": "575..593",
                    },
                },
            ],
            edges: [
                Edge {
                    source: "arch.auth",
                    relation: "contains",
                    target: "arch.auth#authentication",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 18,
                            column: 1,
                        },
                    ),
                    attrs: {},
                },
                Edge {
                    source: "arch.auth#authentication",
                    relation: "contains",
                    target: "arch.auth#token-rotation",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 23,
                            column: 1,
                        },
                    ),
                    attrs: {},
                },
                Edge {
                    source: "arch.auth#authentication",
                    relation: "documents",
                    target: "go:example.com/shop/internal/auth::Service",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 20,
                            column: 23,
                        },
                    ),
                    attrs: {},
                },
                Edge {
                    source: "arch.auth#authentication",
                    relation: "relates_to",
                    target: "arch.storage#read-path",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 21,
                            column: 15,
                        },
                    ),
                    attrs: {},
                },
                Edge {
                    source: "arch.auth#token-rotation",
                    relation: "relates_to",
                    target: "arch.storage",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 25,
                            column: 23,
                        },
                    ),
                    attrs: {},
                },
                Edge {
                    source: "arch.auth",
                    relation: "depends_on",
                    target: "arch.storage",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 11,
                            column: 15,
                        },
                    ),
                    attrs: {},
                },
                Edge {
                    source: "arch.auth",
                    relation: "governs",
                    target: "go:example.com/shop/internal/auth::Service",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 10,
                            column: 12,
                        },
                    ),
                    attrs: {},
                },
            ],
            diagnostics: [
                Diagnostic {
                    severity: Warning,
                    code: "front_matter_unknown_key",
                    message: "unknown front matter key `owner` (kept as an attribute)",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 8,
                            column: 1,
                        },
                    ),
                    node: Some(
                        "arch.auth",
                    ),
                },
                Diagnostic {
                    severity: Error,
                    code: "broken_link",
                    message: "broken link `gone.md`: no document at `docs/arch/gone.md`",
                    location: Some(
                        Location {
                            path: "docs/arch/auth.md",
                            line: 25,
                            column: 44,
                        },
                    ),
                    node: Some(
                        "arch.auth#token-rotation",
                    ),
                },
            ],
            logic: [],
        }
    "#]].assert_debug_eq(&fragment);
}
