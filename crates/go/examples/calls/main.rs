//! Print the precise call resolution of a directory tree — the Rust side of
//! `tests/oracle/compare.sh --cha`.
//!
//! `cargo run --release -p docforge-go --example calls -- DIR [--std-only] [--time]`
//!
//! The walk and import paths are the `ids` example's (module roots from `go.mod`, `testdata`,
//! `_*`, `.*` and `_test.go` skipped, `select_file` with linux/amd64, `go_list_excluded`);
//! `--std-only` skips `DIR/cmd`. Each file is parsed once; `extract_sigs` and
//! `extract_bodies` read the same tree. One line per resolved edge, sorted:
//!
//! `<file>:<line>:<col>\t<caller>\t<callee>\tstatic|cha\tsynthetic|-`
//!
//! and one per call site without an edge:
//!
//! `<file>:<line>:<col>\t<caller>\t-\tresolved|unresolved\t<class or reason: detail>`
//!
//! `--time` prints timings and the reason summary to stderr.

mod run;

use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |args: &mut Vec<String>, f: &str| {
        let on = args.iter().any(|a| a == f);
        args.retain(|a| a != f);
        on
    };
    let time = flag(&mut args, "--time");
    let std_only = flag(&mut args, "--std-only");
    let root = PathBuf::from(args.first().cloned().unwrap_or_else(|| ".".into()));
    let r = run::run(&root, std_only, time);
    let mut out = r.lines.join("\n");
    out.push('\n');
    print!("{out}");
    if time {
        let s = |d: Duration| d.as_secs_f64();
        eprintln!(
            "{} packages, {} files, {} bytes; {} funcs ({} complete), {} sites, {} calls, \
             {} unresolved ({:.2}% of calls); {} interface expansions with unknown types",
            r.walk.pkg_count,
            r.walk.t.files,
            r.walk.t.bytes,
            r.funcs,
            r.complete,
            r.sites,
            r.calls,
            r.unresolved,
            100.0 * r.unresolved as f64 / r.calls.max(1) as f64,
            r.cha_unknown
        );
        eprintln!(
            "walk {:.3}s = parse {:.3}s + sigs {:.3}s + bodies {:.3}s + today's extract_tree {:.3}s (+ io); \
             index (PackageSigs, CHA) {:.3}s; resolve+expand {:.3}s",
            s(r.walked),
            s(r.walk.t.parse),
            s(r.walk.t.sigs),
            s(r.walk.t.bodies),
            s(r.walk.t.facts),
            s(r.indexed),
            s(r.resolved)
        );
        let mut top: Vec<_> = r.reasons.into_iter().collect();
        top.sort_by_key(|b| std::cmp::Reverse(b.1 .0));
        for (r, (n, details)) in &top {
            let mut d: Vec<_> = details.iter().collect();
            d.sort_by_key(|b| std::cmp::Reverse(*b.1));
            let ex: Vec<String> = d.iter().take(4).map(|(k, v)| format!("{k} ×{v}")).collect();
            eprintln!("  {n:>7} {r}  e.g. {}", ex.join("; "));
        }
    }
}
