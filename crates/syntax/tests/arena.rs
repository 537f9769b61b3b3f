//! One-shot parses from a per-thread arena (`GoSyntax::parse_once`) give the same trees as
//! ordinary parses, fall back cleanly, and give their memory back. This test binary installs
//! DocForge's allocator hooks before any tree-sitter object exists, as the binaries do.

use docforge_syntax::alloc::{arena_slots_in_use, cap_arena_for_tests, use_for_tree_sitter};
use docforge_syntax::{AstGate, AstPolicy};
use std::path::Path;

fn setup() -> AstGate {
    use_for_tree_sitter();
    AstGate::new(AstPolicy::Allow)
}

/// Every `.go` file of the fixtures, and generated sources: a large one (arrays grow by
/// `realloc` while parsing), one with syntax errors, an empty one.
fn sources() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "go") {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    assert!(out.len() >= 10, "fixtures hold Go files");
    let mut big = String::from("package big\n\nimport \"fmt\"\n\n");
    for i in 0..3_000 {
        big.push_str(&format!(
            "// F{i} does things.\nfunc F{i}(a, b int) (int, error) {{\n\tif a > b {{\n\t\treturn a, fmt.Errorf(\"%d\", b)\n\t}}\n\tx := []int{{a, b, {i}}}\n\tfor _, v := range x {{ a += v }}\n\treturn a, nil\n}}\n\n"
        ));
    }
    out.push(("big.go".into(), big.into_bytes()));
    out.push(("broken.go".into(), b"package p\n\nfunc f( {\n\tx := [}\n\ttype T struct{ a int\n".to_vec()));
    out.push(("empty.go".into(), Vec::new()));
    out
}

fn sexp(tree: &docforge_syntax::tree_sitter::Tree) -> String {
    tree.root_node().to_sexp()
}

#[test]
fn a_one_shot_parse_equals_an_ordinary_parse() {
    let gate = setup();
    let go = gate.go().unwrap();
    // Twice over, so the second round reuses arena memory the first one wrote.
    for _ in 0..2 {
        for (name, src) in sources() {
            let want = sexp(&go.parse(&src));
            // SAFETY: the closure keeps nothing of the tree (it returns an owned string).
            let got = unsafe { go.parse_once(&src, sexp) };
            assert_eq!(got, want, "{name}");
        }
    }
    assert!(arena_slots_in_use() >= 1, "this thread parsed from an arena");
}

#[test]
fn a_parse_that_outgrows_the_arena_falls_back_and_stays_exact() {
    let gate = setup();
    let go = gate.go().unwrap();
    assert!(cap_arena_for_tests(64 << 10), "the test thread gets an arena");
    let (_, big) = sources().into_iter().find(|(n, _)| n == "big.go").unwrap();
    let want = sexp(&go.parse(&big));
    for _ in 0..3 {
        // SAFETY: as above.
        assert_eq!(unsafe { go.parse_once(&big, sexp) }, want);
    }
    // The blocks that came from mimalloc are freed, not forgotten with the tree: many such
    // parses do not grow the process (each tree is several MB; other tests add noise).
    let rss = || {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        statm.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).unwrap_or(0) * 4096
    };
    let before = rss();
    for _ in 0..20 {
        // SAFETY: as above.
        unsafe { go.parse_once(&big, |t| t.root_node().child_count()) };
    }
    let grown = rss().saturating_sub(before);
    assert!(grown < 200 << 20, "the process grew by {} MB", grown >> 20);
    // Small files still fit afterwards.
    let small = b"package a\n\nfunc A() { A() }\n";
    // SAFETY: as above.
    assert_eq!(unsafe { go.parse_once(small, sexp) }, sexp(&go.parse(small)));
}

#[test]
fn nested_and_panicking_one_shot_parses_leave_the_arena_usable() {
    let gate = setup();
    let go = gate.go().unwrap();
    let a = b"package a\n\nfunc A() { B() }\n";
    let b = b"package b\n\nvar V = map[string]int{\"x\": 1}\n";
    // SAFETY (all blocks below): the closures return owned strings.
    let (outer, inner) = unsafe {
        go.parse_once(a, |ta| {
            // A window is open: the inner parse is an ordinary one, and the outer tree
            // must be intact after it.
            let inner = go.parse_once(b, sexp);
            (sexp(ta), inner)
        })
    };
    assert_eq!(outer, sexp(&go.parse(a)));
    assert_eq!(inner, sexp(&go.parse(b)));
    let panicked = std::panic::catch_unwind(|| unsafe {
        go.parse_once(a, |_| -> String { panic!("extraction failed") })
    });
    assert!(panicked.is_err());
    assert_eq!(unsafe { go.parse_once(b, sexp) }, sexp(&go.parse(b)));
}

#[test]
fn threads_parse_at_once_and_give_their_arenas_back() {
    let gate = std::sync::Arc::new(setup());
    let sources = std::sync::Arc::new(sources());
    let want: std::sync::Arc<Vec<String>> =
        std::sync::Arc::new(sources.iter().map(|(_, s)| sexp(&gate.go().unwrap().parse(s))).collect());
    // 2 threads at a time, 12 rounds: more threads in all than there are arena slots, so
    // each one gets an arena only if the threads before it gave theirs back on exit
    // (`join` returns once a thread has exited). Other tests hold at most one slot each.
    for _ in 0..12 {
        let handles: Vec<_> = (0..2)
            .map(|t| {
                let (gate, sources, want) = (gate.clone(), sources.clone(), want.clone());
                std::thread::spawn(move || {
                    assert!(cap_arena_for_tests(usize::MAX), "a free arena slot");
                    let go = gate.go().unwrap();
                    for (i, (name, src)) in sources.iter().enumerate().skip(t).step_by(2) {
                        // SAFETY: as above.
                        assert_eq!(unsafe { go.parse_once(src, sexp) }, want[i], "{name}");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

/// A source whose one-shot parse needs more than the 16 MiB an arena keeps between parses.
fn huge() -> Vec<u8> {
    let mut src = String::from("package huge\n\n");
    for i in 0..3_000 {
        src.push_str(&format!(
            "func H{i}(a, b int) int {{\n\tx := []int{{a, b, {i}}}\n\tfor _, v := range x {{ a += v * b }}\n\treturn g(a, b, x[0])\n}}\n\n"
        ));
    }
    src.into_bytes()
}

#[test]
fn a_worker_that_holds_its_arena_keeps_its_pages_between_parses() {
    use docforge_syntax::alloc::{arena_bytes_released, hold_parse_arena};
    let gate = setup();
    let src = huge();
    let want = sexp(&gate.go().unwrap().parse(&src));
    // Each case on a thread of its own: its own arena, its own count.
    let run = |hold: bool| {
        std::thread::scope(|s| {
            s.spawn(|| {
                if hold {
                    hold_parse_arena();
                }
                let go = gate.go().unwrap();
                for _ in 0..2 {
                    // SAFETY: the closure keeps nothing of the tree.
                    assert_eq!(unsafe { go.parse_once(&src, sexp) }, want);
                }
                arena_bytes_released()
            })
            .join()
            .unwrap()
        })
    };
    // An ordinary thread returns what its large parses used beyond 16 MiB, each time.
    let released = run(false);
    assert!(released > 2 * (1 << 20), "the windows outgrew the kept 16 MiB and returned the rest");
    // A worker keeps it (its pages are returned when it exits).
    assert_eq!(run(true), 0);
}
