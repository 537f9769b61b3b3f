//! Front matter and TOML node files: good keys, bad inputs, and what survives them.

use docforge_docs::{parse_markdown_document, parse_toml_node, Claim};
use docforge_model::{Location, Severity};

/// (code, severity, line, column, message fragment) of every diagnostic.
fn diags(f: &docforge_docs::DocFacts) -> Vec<(String, Severity, u32, u32, String)> {
    f.diagnostics
        .iter()
        .map(|d| {
            let loc = d.location.clone().unwrap_or_default();
            (d.code.clone(), d.severity, loc.line, loc.column, d.message.clone())
        })
        .collect()
}

#[test]
fn known_keys_become_id_title_and_attrs() {
    let text = "+++\nid = \"arch.auth\"\nkind = \"decision\"\nfamily = \"architecture\"\nauthority = \"normative\"\n\
                status = \"accepted\"\ntags = [\"security\", \"auth\"]\ntitle = \"Auth\"\n+++\n# Heading\n";
    let f = parse_markdown_document("docs/auth.md", text);
    assert_eq!(f.id, "arch.auth");
    assert!(!f.id_from_path);
    assert_eq!(f.id_location, Location::new("docs/auth.md", 2, 6));
    assert_eq!(f.node.kind, "document");
    assert_eq!(f.node.title, "Auth");
    let attrs: Vec<(&str, &str)> = f.node.attrs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        attrs,
        [
            ("authority", "normative"),
            ("family", "architecture"),
            ("kind", "decision"),
            ("status", "accepted"),
            ("tags", "security,auth")
        ]
    );
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    assert_eq!(f.sections[0].id, "arch.auth#heading");
}

#[test]
fn bad_front_matter_is_reported_and_the_document_survives() {
    struct Case {
        name: &'static str,
        text: &'static str,
        id: &'static str,
        diags: Vec<(&'static str, Severity, u32, u32, &'static str)>,
        sections: usize,
    }
    let cases = [
        Case {
            name: "broken TOML keeps the body and takes the ID from the path",
            text: "+++\nid = \"x\"\ntags = [\"a\"\n+++\n# Body\n\nSee [[other]].\n",
            id: "docs/d",
            diags: vec![("front_matter_invalid", Severity::Error, 3, 12, "not valid TOML: unclosed array")],
            sections: 1,
        },
        Case {
            name: "unclosed front matter is read as Markdown",
            text: "+++\nid = \"x\"\n# Body\n",
            id: "docs/d",
            diags: vec![("front_matter_invalid", Severity::Error, 1, 1, "never closed")],
            sections: 1,
        },
        Case {
            name: "wrong types name the key and drop only that value",
            text: "+++\nid = \"x\"\ntags = 3\nstatus = true\ntitle = [\"t\"]\n+++\n",
            id: "x",
            diags: vec![
                (
                    "front_matter_wrong_type",
                    Severity::Error,
                    4,
                    10,
                    "`status` must be a string, found boolean",
                ),
                ("front_matter_wrong_type", Severity::Error, 3, 8, "`tags` must be an array of strings"),
                ("front_matter_wrong_type", Severity::Error, 5, 9, "`title` must be a string"),
            ],
            sections: 0,
        },
        Case {
            name: "non-string tag items are reported one by one",
            text: "+++\ntags = [\"ok\", 1]\n+++\n",
            id: "docs/d",
            diags: vec![("front_matter_wrong_type", Severity::Error, 2, 15, "`tags`")],
            sections: 0,
        },
        Case {
            name: "unknown keys are kept and reported",
            text: "+++\nid = \"x\"\nowner = \"team-a\"\npriority = 2\n+++\n",
            id: "x",
            diags: vec![
                ("front_matter_unknown_key", Severity::Warning, 3, 1, "`owner`"),
                ("front_matter_unknown_key", Severity::Warning, 4, 1, "`priority`"),
            ],
            sections: 0,
        },
        Case {
            name: "an invalid id falls back to the path",
            text: "+++\nid = \"has space\"\n+++\n",
            id: "docs/d",
            diags: vec![("front_matter_invalid_value", Severity::Error, 2, 6, "whitespace")],
            sections: 0,
        },
        Case {
            name: "a non-string id is a wrong type",
            text: "+++\nid = 7\n+++\n",
            id: "docs/d",
            diags: vec![("front_matter_wrong_type", Severity::Error, 2, 6, "`id` must be a string")],
            sections: 0,
        },
        Case {
            name: "relation names must be identifiers, targets strings",
            text: "+++\n[relations]\n\"bad name\" = [\"a\"]\ngoverns = [1]\ndepends_on = \"b\"\nx = 3\n+++\n",
            id: "docs/d",
            diags: vec![
                ("front_matter_wrong_type", Severity::Error, 4, 12, "`relations.governs`"),
                ("front_matter_wrong_type", Severity::Error, 6, 5, "`relations.x`"),
                ("relation_name_invalid", Severity::Error, 3, 1, "`bad name`"),
            ],
            sections: 0,
        },
        Case {
            name: "an empty file is a document with no diagnostics",
            text: "",
            id: "docs/d",
            diags: vec![],
            sections: 0,
        },
    ];
    for case in cases {
        let f = parse_markdown_document("docs/d.md", case.text);
        assert_eq!(f.id, case.id, "{}", case.name);
        assert_eq!(f.sections.len(), case.sections, "{}", case.name);
        let mut got = diags(&f);
        got.sort_by(|a, b| (&a.0, &a.4).cmp(&(&b.0, &b.4)));
        assert_eq!(got.len(), case.diags.len(), "{}: {got:#?}", case.name);
        for (g, want) in got.iter().zip(&case.diags) {
            assert_eq!((g.0.as_str(), g.1), (want.0, want.1), "{}: {g:?}", case.name);
            assert_eq!((g.2, g.3), (want.2, want.3), "{}: location of {g:?}", case.name);
            assert!(g.4.contains(want.4), "{}: {:?} should mention {:?}", case.name, g.4, want.4);
        }
        for d in &f.diagnostics {
            assert_eq!(d.node.as_deref(), Some(case.id), "{}: diagnostic node", case.name);
        }
    }
}

#[test]
fn unknown_keys_are_kept_as_attributes() {
    let text = "+++\nowner = \"team-a\"\nlimits = [1, 2]\n[extra]\nk = \"v\"\n+++\n";
    let f = parse_markdown_document("d.md", text);
    assert_eq!(f.node.attrs.get("owner").map(String::as_str), Some("team-a"));
    assert_eq!(f.node.attrs.get("limits").map(String::as_str), Some("1,2"));
    assert_eq!(f.node.attrs.get("extra").map(String::as_str), Some("{k = v}"));
}

#[test]
fn relations_accept_arrays_and_single_strings() {
    let text = "+++\n[relations]\ngoverns = [\"go:m/p::T\", \"arch.x#y\"]\nsupersedes = \"old\"\n+++\n";
    let f = parse_markdown_document("d.md", text);
    let got: Vec<(&str, &str, u32)> =
        f.relations.iter().map(|r| (r.name.as_str(), r.target.as_str(), r.location.line)).collect();
    assert_eq!(got, [("governs", "go:m/p::T", 3), ("governs", "arch.x#y", 3), ("supersedes", "old", 4)]);
}

#[test]
fn claims_are_structured_and_checked_loosely() {
    let text = r#"+++
[[claims]]
predicate = "type_implements"
subject = "m/a::T"
object = "m/b::I"
required_precision = "precise"

[[claims]]
predicate = "symbol_exists"
subject = "m/a::T"
object = "m/b::I"

[[claims]]
predicate = "reaches"
subject = "m/a::F"
object = "m/a::G"
required_precision = "exact"
note = "x"

[[claims]]
predicate = "call_edge_exists"
+++
"#;
    let f = parse_markdown_document("d.md", text);
    assert_eq!(f.claims.len(), 4, "malformed claims are kept");
    assert_eq!(
        f.claims[0],
        Claim {
            predicate: "type_implements".into(),
            subject: "m/a::T".into(),
            object: Some("m/b::I".into()),
            required_precision: Some("precise".into()),
            location: Location::new("d.md", 2, 1),
            problems: vec![],
        }
    );
    assert_eq!(f.claims[2].predicate, "reaches");
    assert_eq!(f.claims[2].problems, ["unknown claim key `note`"], "an unknown key makes the claim invalid");
    let got: Vec<(&str, &str, u32)> = f
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.message.as_str(), d.location.as_ref().unwrap().line))
        .collect();
    let want_fragments = [
        ("claim_invalid", "`symbol_exists` claims take no `object`", 8),
        ("claim_invalid", "unknown claim key `note`", 18),
        ("claim_invalid", "unknown claim predicate `reaches`", 13),
        ("claim_invalid", "`required_precision` must be `ast` or `precise`, found `exact`", 13),
        ("claim_invalid", "claim has no `subject`", 20),
        ("claim_invalid", "`call_edge_exists` claims need an `object`", 20),
    ];
    assert_eq!(got.len(), want_fragments.len(), "{got:#?}");
    for (code, fragment, line) in want_fragments {
        assert!(
            got.iter().any(|(c, m, l)| *c == code && m.contains(fragment) && *l == line),
            "missing {code} {fragment:?} at line {line}: {got:#?}"
        );
    }
}

#[test]
fn toml_node_files_are_single_nodes() {
    let text = "id = \"glossary\"\ntitle = \"Glossary\"\nfamily = \"reference\"\ntext = \"\"\"\nTerm: meaning.\n\"\"\"\n\
                tags = [\"t\"]\nextra = 1\n[relations]\nrelates_to = [\"arch.storage\"]\n";
    let f = parse_toml_node("docs/glossary.toml", text);
    assert_eq!(f.id, "glossary");
    assert_eq!(f.node.kind, "toml_node");
    assert_eq!(f.node.title, "Glossary");
    assert_eq!(f.node.text, "Term: meaning.");
    assert_eq!(f.node.attrs.get("extra").map(String::as_str), Some("1"));
    assert!(f.sections.is_empty() && f.links.is_empty());
    assert_eq!(f.relations.len(), 1);
    let codes: Vec<&str> = f.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["front_matter_unknown_key"]);

    let broken = parse_toml_node("docs/bad.toml", "\u{feff}title = \n");
    assert_eq!(broken.id, "docs/bad");
    assert_eq!(broken.node.title, "bad");
    assert_eq!(broken.diagnostics[0].code, "front_matter_invalid");
    assert_eq!(broken.diagnostics[0].location.as_ref().unwrap().line, 1);

    let md_text_key = parse_markdown_document("d.md", "+++\ntext = \"x\"\n+++\n");
    assert_eq!(md_text_key.diagnostics[0].code, "front_matter_unknown_key");
}
