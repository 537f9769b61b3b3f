//! The `relevance` phase: how often search puts what a person would open in its first five
//! answers, on the questions of `relevance.toml` (this repository's handbook and the Go module
//! github.com/yuin/goldmark v1.4.13) and of the held-out `relevance-heldout.toml` (the Go
//! module github.com/go-chi/chi/v5 v5.2.3; the modules taken from the Go module cache or
//! downloaded into it), and, given a corpus (the Go standard library), the server time of the
//! first set's queries on it.
//!
//! Recall@5: the share of questions with an expected node among the first five hits. MRR: the
//! mean of 1/rank of the first expected node among the first ten (0 when none is). The first
//! set's misses are printed; the held-out set's are not, so that whoever tunes the search on
//! the first set does not read them: its score says whether a change is general.

use crate::render::median;
use docforge_workspace::{Options, Workspace};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

const GOLDMARK: &str = "github.com/yuin/goldmark@v1.4.13";
const CHI: &str = "github.com/go-chi/chi/v5@v5.2.3";

#[derive(Deserialize)]
struct Set {
    question: Vec<Question>,
}

#[derive(Deserialize)]
struct Question {
    corpus: String,
    query: String,
    expect: Vec<String>,
}

/// The repository this bench was built from (its handbook is one corpus).
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// A module's source (`path@version`): the module cache's copy, downloaded first when missing.
fn module(spec: &str) -> PathBuf {
    let out = std::process::Command::new("go")
        .args(["mod", "download", "-json", spec])
        .env("GOFLAGS", "-mod=mod")
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run `go mod download` (Go must be installed)");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("go mod download {spec}: {}", String::from_utf8_lossy(&out.stderr)));
    PathBuf::from(v["Dir"].as_str().unwrap_or_else(|| panic!("go mod download {spec}: {v}")))
}

/// A copy of `from` (its Markdown, Go and go.mod files) as a project with `config`.
fn project(from: &Path, config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(from, dir.path());
    std::fs::write(dir.path().join("docforge.toml"), config).unwrap();
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        let name_s = name.to_string_lossy();
        if name_s.starts_with('.') || name_s == "target" || name_s == "node_modules" {
            continue;
        }
        let path = entry.path();
        let dest = to.join(&name);
        let ty = entry.file_type().unwrap();
        if ty.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&path, &dest);
        } else if ty.is_file() && (name_s.ends_with(".md") || name_s.ends_with(".go") || name_s == "go.mod") {
            std::fs::copy(&path, &dest).unwrap();
            let mut perms = std::fs::metadata(&dest).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&dest, perms).unwrap();
        }
    }
}

fn bind(root: &Path) -> Workspace {
    let mut ws =
        Workspace::bind(root, Options { threads: Some(crate::THREADS), ..Default::default() }).unwrap();
    ws.ensure_current(true).unwrap();
    ws
}

pub fn relevance(std_corpus: Option<&Path>) -> Value {
    let set: Set = toml::from_str(include_str!("../relevance.toml")).expect("relevance.toml");
    let held_out: Set =
        toml::from_str(include_str!("../relevance-heldout.toml")).expect("relevance-heldout.toml");
    let handbook_src = repository();
    let handbook = project(
        &handbook_src,
        "schema_version = 1\n[project]\nid = \"handbook\"\n[sources]\n\
         docs = [\"README.md\", \"ARCHITECTURE.md\", \"docs/**/*.md\", \"editors/*/README.md\"]\ngo = []\n",
    );
    let goldmark = project(
        &module(GOLDMARK),
        // `_benchmark/` and `_test/` hold the CommonMark spec's examples: test data, not
        // documentation (and, as `_` directories, outside the go tool's packages too).
        "schema_version = 1\n[project]\nid = \"goldmark\"\n[sources]\ndocs = [\"**/*.md\"]\ngo = [\".\"]\n\
         exclude = [\"_benchmark/**\", \"_test/**\"]\n",
    );
    let chi = project(
        &module(CHI),
        "schema_version = 1\n[project]\nid = \"chi\"\n[sources]\ndocs = [\"**/*.md\"]\ngo = [\".\"]\n",
    );
    let corpora =
        [("handbook", bind(handbook.path())), ("goldmark", bind(goldmark.path())), ("chi", bind(chi.path()))];
    let tuning = score(&set, &corpora, true);
    let held = score(&held_out, &corpora, false);
    let mut out = json!({
        "phase": "relevance",
        "questions": tuning.questions,
        "recall_at_5": tuning.recall,
        "mrr": tuning.mrr,
        "corpora": tuning.corpora,
        "misses": tuning.misses,
        "held_out": { "questions": held.questions, "recall_at_5": held.recall, "mrr": held.mrr, "corpora": held.corpora },
    });
    if let Some(corpus) = std_corpus {
        out["std_latency"] = latency(corpus, &set);
    }
    out
}

/// The figures of one question set.
struct Scores {
    questions: usize,
    recall: f64,
    mrr: f64,
    /// Per corpus: questions, recall@5, MRR.
    corpora: Value,
    /// The questions missed (none listed when the set is not shown).
    misses: Vec<Value>,
}

/// The figures of `set` on `corpora`; `show` names its questions (a missing node, the misses).
fn score(set: &Set, corpora: &[(&str, Workspace)], show: bool) -> Scores {
    let mut per_corpus = serde_json::Map::new();
    let mut misses = Vec::new();
    let mut all = (0usize, 0usize, 0f64);
    for (name, ws) in corpora {
        let index = ws.index();
        let (mut n, mut found, mut rr) = (0usize, 0usize, 0f64);
        for q in set.question.iter().filter(|q| q.corpus == *name) {
            for id in &q.expect {
                let missing = if show { id.as_str() } else { "(held out)" };
                assert!(index.has_node(id).unwrap(), "{name} has no node `{missing}`");
            }
            let hits = index.search(&q.query, 10).unwrap();
            let rank = hits.iter().position(|h| q.expect.contains(&h.id)).map(|i| i + 1);
            n += 1;
            if rank.is_some_and(|r| r <= 5) {
                found += 1;
            } else if show {
                let top: Vec<&str> = hits.iter().take(3).map(|h| h.id.as_str()).collect();
                misses.push(json!({ "corpus": name, "query": q.query, "expect": q.expect, "rank": rank, "top3": top }));
            }
            rr += rank.map_or(0.0, |r| 1.0 / r as f64);
        }
        if n > 0 {
            per_corpus.insert(
                name.to_string(),
                json!({ "questions": n, "recall_at_5": found as f64 / n as f64, "mrr": rr / n as f64 }),
            );
        }
        all = (all.0 + n, all.1 + found, all.2 + rr);
    }
    Scores {
        questions: all.0,
        recall: all.1 as f64 / all.0 as f64,
        mrr: all.2 / all.0 as f64,
        corpora: Value::Object(per_corpus),
        misses,
    }
}

/// Every question's query searched on `corpus` (limit 20, as `docforge_search` defaults):
/// the median over rounds of each query's time, then the median and slowest of those.
fn latency(corpus: &Path, set: &Set) -> Value {
    let ws = bind(corpus);
    let index = ws.index();
    let queries: Vec<&str> = set.question.iter().map(|q| q.query.as_str()).collect();
    let mut per_query: Vec<(f64, &str)> = queries
        .iter()
        .map(|q| {
            let times: Vec<f64> = (0..7)
                .map(|_| {
                    let t = Instant::now();
                    let hits = index.search(q, 20).unwrap();
                    std::hint::black_box(hits);
                    crate::ms(t.elapsed())
                })
                .collect();
            (median(&times), *q)
        })
        .collect();
    per_query.sort_by(|a, b| a.0.total_cmp(&b.0));
    let p = |f: f64| per_query[((per_query.len() - 1) as f64 * f).round() as usize];
    json!({
        "queries": per_query.len(),
        "p50_ms": p(0.5).0,
        "p90_ms": p(0.9).0,
        "slowest": { "ms": p(1.0).0, "query": p(1.0).1 },
    })
}
