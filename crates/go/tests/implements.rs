//! `implements` as a specification.
//!
//! 1. Trees checked by go/types: `tests/oracle/testdata/implements` (a module covering
//!    value vs pointer receivers, struct/pointer/interface embedding, depth and ambiguity
//!    cancel-out, field shadowing, embedded interfaces across packages, unexported methods
//!    across packages, aliases, dot/blank/alias imports, generics (skipped and embedded
//!    instantiations), variadic mismatch, same-named types, tags, channel directions,
//!    array lengths through consts) and `fixtures/shop`. The expected lists are the oracle's
//!    output; regenerate with
//!    `cd tests/oracle && CGO_ENABLED=0 go run . -implements -root testdata/implements > testdata/implements.pairs`
//!    (and `-root ../../fixtures/shop > testdata/shop.implements`).
//! 2. In-memory packages for what go/types cannot show: unresolved parts give Unknown,
//!    never yes or no.

mod support;
#[path = "../examples/ids/walk.rs"]
mod walk;

use docforge_go::types::{implements, PackageSigs, TypeCtx, Verdict};
use docforge_go::BuildContext;
use docforge_syntax::{AstGate, AstPolicy};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use support::{mem, Mem};

fn render(source: &Mem, paths: &[&str]) -> String {
    let ctx = TypeCtx::new(source);
    let mut out = String::new();
    for p in implements(&ctx, paths) {
        let v = match &p.verdict {
            Verdict::Value => "value".to_string(),
            Verdict::Pointer => "pointer".to_string(),
            Verdict::Unknown(u) => format!("unknown({})", u.kind()),
        };
        out.push_str(&format!("{} {} {v}\n", p.ty, p.iface));
    }
    out
}

/// The walker's packages of a tree (same selection as the oracle).
fn walk_tree(root: &Path) -> (Mem, Vec<String>) {
    let gate = AstGate::new(AstPolicy::Allow);
    let mut w = walk::Walk {
        root: root.to_path_buf(),
        ctx: BuildContext::default(),
        ids: BTreeSet::new(),
        files: 0,
        bytes: 0,
        parse_only: false,
        keep: false,
        packages: Vec::new(),
        sigs: true,
        sig_packages: Vec::new(),
    };
    w.dir(&gate, root, None);
    let mut mem = Mem(HashMap::new());
    let mut paths = Vec::new();
    for (ip, _, files) in w.sig_packages {
        let sigs = PackageSigs::new(ip.clone(), files.into_iter().map(Arc::new).collect());
        mem.0.insert(ip.clone(), Arc::new(sigs));
        paths.push(ip);
    }
    (mem, paths)
}

#[test]
fn trees_match_go_types() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let oracle = repo.join("tests/oracle/testdata");
    for (tree, want) in
        [("tests/oracle/testdata/implements", "implements.pairs"), ("fixtures/shop", "shop.implements")]
    {
        let (mem, paths) = walk_tree(&repo.join(tree));
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let got = render(&mem, &paths);
        let want = std::fs::read_to_string(oracle.join(want)).unwrap();
        assert_eq!(got, want, "{tree}");
    }
}

#[test]
fn unresolved_parts_are_unknown() {
    // (case, packages, expected pairs of package "p"); "io", "ext" are not available.
    type Case<'a> = (&'a str, &'a [(&'a str, &'a [&'a str])], &'a str);
    let cases: &[Case<'_>] = &[
        (
            "the same external type name is identical to itself",
            &[("p", &["package p\nimport \"io\"\ntype I interface{ W(io.Writer) }\ntype T struct{}\nfunc (T) W(io.Writer) {}\n"])],
            "p::T p::I value\n",
        ),
        (
            "two imports of unknown name: the qualifier's package is unknown",
            &[("p", &["package p\nimport (\"io\"; \"ext\")\ntype I interface{ W(io.Writer) }\ntype T struct{}\nfunc (T) W(io.Writer) {}\nvar _ ext.X\n"])],
            "p::T p::I unknown(external package)\n",
        ),
        (
            "different external names may be aliases of one type",
            &[("p", &["package p\nimport \"io\"\ntype I interface{ W(io.Writer) }\ntype T struct{}\nfunc (T) W(io.Reader) {}\n"])],
            "p::T p::I unknown(external package)\n",
        ),
        (
            "a definite mismatch elsewhere decides despite an external part",
            &[("p", &["package p\nimport \"io\"\ntype I interface{ W(io.Writer) int }\ntype T struct{}\nfunc (T) W(io.Reader) string { return \"\" }\n"])],
            "",
        ),
        (
            "an embedded external type may promote anything",
            &[("p", &["package p\nimport \"io\"\ntype I interface{ Read([]byte) (int, error) }\ntype T struct{ io.Reader }\n"])],
            "p::T p::I unknown(external package)\n",
        ),
        (
            "a shallower field still blocks, whatever is embedded",
            &[("p", &["package p\nimport \"io\"\ntype I interface{ Read([]byte) (int, error) }\ntype T struct{ Read int; io.Reader }\n"])],
            "",
        ),
        (
            "a declared method at depth 0 is certain even next to an external embedding",
            &[("p", &["package p\nimport \"ext\"\ntype I interface{ M() }\ntype T struct{ ext.Base }\nfunc (*T) M() {}\n"])],
            "p::T p::I pointer\n",
        ),
        (
            "an unevaluable array length",
            &[("p", &["package p\nimport \"unsafe\"\nvar x int\ntype I interface{ M() [unsafe.Sizeof(x)]byte }\ntype T struct{}\nfunc (T) M() [8]byte { return [8]byte{} }\n"])],
            "p::T p::I unknown(unevaluated constant)\n",
        ),
        (
            "an unknown identifier",
            &[("p", &["package p\ntype I interface{ M() Missing }\ntype T struct{}\nfunc (T) M() Missing { return nil }\n"])],
            "p::T p::I unknown(unknown identifier)\n",
        ),
        (
            "an interface embedding an external interface: known methods still filter",
            &[("p", &["package p\nimport \"io\"\ntype I interface{ io.Closer; M() }\ntype T struct{}\nfunc (T) M() {}\ntype U struct{}\n"])],
            "p::T p::I unknown(external package)\n",
        ),
        (
            "a dot import of an absent package",
            &[("p", &["package p\nimport . \"ext\"\ntype I interface{ M() Thing }\ntype T struct{}\nfunc (T) M() Thing { return Thing{} }\n"])],
            "p::T p::I unknown(external dot import)\n",
        ),
        (
            "syntax errors make the package's method sets incomplete",
            &[("p", &["package p\ntype I interface{ M() }\ntype T struct{}\nfunc (T) N() {\n"])],
            "p::T p::I unknown(syntax errors in package)\n",
        ),
        (
            "aliases across packages and chains resolve to one type",
            &[
                ("p", &["package p\nimport \"q\"\ntype I interface{ M(q.A) }\ntype T struct{}\nfunc (T) M(x q.B) {}\n"]),
                ("q", &["package q\nimport \"r\"\ntype A = r.C\ntype B = A\n"]),
                ("r", &["package r\ntype C struct{}\n"]),
            ],
            "p::T p::I value\n",
        ),
        (
            "generic alias instantiation",
            &[("p", &["package p\ntype L[T any] = []T\ntype I interface{ M(L[int]) }\ntype T struct{}\nfunc (T) M([]int) {}\n"])],
            "p::T p::I value\n",
        ),
    ];
    for (name, pkgs, want) in cases {
        let got = render(&mem(pkgs), &["p"]);
        assert_eq!(got, *want, "{name}");
    }
}
