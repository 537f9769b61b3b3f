//! `docforge`: the command-line front. It translates arguments into engine calls and the
//! answers into text or JSON; it never parses a source file itself.

mod commands;
mod output;
mod staged;
mod stdout;
mod validate;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const EXIT_HELP: &str = "\
Exit codes:
  0  success
  1  the operation failed (project root missing, invalid docforge.toml, unreadable or
     incompatible index, node not found); one line on stderr says why
  2  bad arguments (one line on stderr)";

const VALIDATE_HELP: &str = "\
Exit codes:
  0  every claim passes
  1  at least one claim fails
  2  at least one claim cannot be evaluated and none fails (also: the project cannot be
     analysed; one line on stderr), or bad arguments";

#[derive(Parser, Debug)]
#[command(name = "docforge", about = "A knowledge graph of a project's documents and Go code", version, after_help = EXIT_HELP)]
struct Cli {
    /// The project root (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    project_root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build or incrementally update the index in <root>/.docforge/index.sqlite.
    #[command(after_help = EXIT_HELP)]
    Index {
        /// Never analyse Go code with an AST: Go files are inventoried and hashed only.
        #[arg(long)]
        no_ast: bool,
        /// Also run the Go semantic layer (types, method sets, `implements` edges): precision
        /// `precise` instead of `ast`.
        #[arg(long, conflicts_with = "no_ast")]
        precise: bool,
        /// Print one JSON document instead of a summary line.
        #[arg(long)]
        json: bool,
        /// Worker threads for analysis (default: available cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Counts of the published index.
    #[command(after_help = EXIT_HELP)]
    Stats {
        #[arg(long)]
        json: bool,
    },
    /// Lexical search over node IDs, titles and text.
    #[command(after_help = EXIT_HELP)]
    Search {
        query: String,
        /// At most this many results (1..=1000).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// One node with its incoming and outgoing edges and its diagnostics.
    #[command(after_help = EXIT_HELP)]
    Node {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// The Logic of one Go func or method: its possible static control paths (steps and
    /// labelled edges), as stored by `docforge index --precise`.
    #[command(after_help = EXIT_HELP)]
    Logic {
        /// The exact node ID, e.g. `go:example.com/m/pkg::(*T).M`.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Evaluate every [[claims]] entry of the documents (exit 0 all pass, 1 any fail,
    /// 2 any cannot_evaluate and none fails).
    #[command(after_help = VALIDATE_HELP)]
    Validate {
        /// Print a JSON array of gograph.validation.v1 results instead of a table.
        #[arg(long)]
        json: bool,
        /// Validate the content staged in the Git index (what `git commit` records) instead of
        /// the working tree: the pre-commit hook's mode.
        #[arg(long)]
        staged: bool,
    },
    /// Serve the MCP read surface over stdio, bound to --project-root (required).
    Mcp {
        /// Never analyse Go code with an AST; Logic is never extracted or returned.
        #[arg(long)]
        no_ast: bool,
        /// Run the Go semantic layer (precise calls, implements, Logic).
        #[arg(long, conflicts_with = "no_ast")]
        precise: bool,
        /// Attach version-1 request diagnostics (stage timings, counters) to responses.
        #[arg(long)]
        diagnostics: bool,
        /// read | proposal | application | operator (only read and operator are available).
        #[arg(long, value_name = "MODE", default_value = "read")]
        capability_mode: String,
        #[arg(long, value_name = "ID")]
        proposal_writer: Option<String>,
        #[arg(long, value_name = "ID")]
        canonical_applier: Option<String>,
    },
    /// The coordination server (MCP over stateless Streamable HTTP) and its credentials.
    Coord {
        #[command(subcommand)]
        command: docforge_coord::CoordCommand,
    },
    /// Serve the Language Server Protocol over stdin/stdout (for editors). Every workspace
    /// folder of the client is served as its own project; an explicit --project-root serves
    /// that root only.
    Lsp {
        /// Never analyse Go code with an AST: documents only (Go files inventoried).
        #[arg(long)]
        no_ast: bool,
        /// Skip the Go semantic layer (no implementation / call hierarchy, precise claims
        /// cannot pass).
        #[arg(long)]
        no_precise: bool,
        /// The Go installation whose standard library definition, hover and references
        /// read (default: $GOROOT, else the one of the `go` on PATH; Go is never run).
        #[arg(long, value_name = "DIR", conflicts_with = "no_goroot")]
        goroot: Option<PathBuf>,
        /// Never read a Go installation (standard-library names do not navigate).
        #[arg(long)]
        no_goroot: bool,
        /// The Go module cache whose copies of the required modules definition, hover and
        /// references read (default: $GOMODCACHE, else $GOPATH/pkg/mod, else ~/go/pkg/mod).
        #[arg(long, value_name = "DIR", conflicts_with = "no_gomodcache")]
        gomodcache: Option<PathBuf>,
        /// Never read a module cache (names of required modules do not navigate).
        #[arg(long)]
        no_gomodcache: bool,
        /// Worker threads (default: available cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Record salsa executions for `docforge/debugExecutions` (tests).
        #[arg(long, hide = true)]
        debug_execution_log: bool,
    },
    /// The engine version.
    Version {
        #[arg(long)]
        json: bool,
    },
}

/// `--FLAG DIR` / `--no-FLAG` as a [`docforge_lsp::GoDir`]: off, the directory (refused
/// unless `valid`), else discovered.
fn go_dir(
    flag: &str,
    dir: Option<PathBuf>,
    off: bool,
    valid: impl Fn(&Path) -> bool,
    what: &str,
) -> Result<docforge_lsp::GoDir, String> {
    match (dir, off) {
        (_, true) => Ok(docforge_lsp::GoDir::Off),
        (Some(dir), false) if !valid(&dir) => Err(format!("--{flag} {} is not {what}", dir.display())),
        (Some(dir), false) => Ok(docforge_lsp::GoDir::At(dir)),
        (None, false) => Ok(docforge_lsp::GoDir::Discover),
    }
}

#[global_allocator]
static GLOBAL: docforge_syntax::alloc::GlobalAllocator = docforge_syntax::alloc::GlobalAllocator;

fn main() -> ExitCode {
    docforge_syntax::alloc::use_for_tree_sitter();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let rendered = e.render().to_string();
            let line = rendered.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            eprintln!("docforge: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    if let Command::Mcp {
        no_ast,
        precise,
        diagnostics,
        capability_mode,
        proposal_writer,
        canonical_applier,
    } = cli.command
    {
        let Some(project_root) = cli.project_root else {
            eprintln!("docforge: mcp needs an explicit --project-root DIR");
            return ExitCode::from(2);
        };
        let Some(mode) = docforge_mcp::CapabilityMode::parse(&capability_mode) else {
            eprintln!("docforge: --capability-mode must be read, proposal, application or operator");
            return ExitCode::from(2);
        };
        let opts = docforge_mcp::Options {
            project_root,
            no_ast,
            diagnostics,
            mode,
            proposal_writer,
            canonical_applier,
        };
        return match docforge_mcp::run(opts, precise) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("docforge: {message}");
                ExitCode::from(1)
            }
        };
    }
    if let Command::Lsp {
        no_ast,
        no_precise,
        goroot,
        no_goroot,
        gomodcache,
        no_gomodcache,
        threads,
        debug_execution_log,
    } = cli.command
    {
        let dirs = (|| {
            let installation = "a Go installation (no src/runtime)";
            let goroot = go_dir("goroot", goroot, no_goroot, docforge_db::is_goroot, installation)?;
            Ok::<_, String>((
                goroot,
                go_dir("gomodcache", gomodcache, no_gomodcache, Path::is_dir, "a directory")?,
            ))
        })();
        let (goroot, gomodcache) = match dirs {
            Ok(dirs) => dirs,
            Err(message) => {
                eprintln!("docforge: {message}");
                return ExitCode::from(2);
            }
        };
        let opts = docforge_lsp::Options {
            project_root: cli.project_root,
            no_ast,
            no_precise,
            goroot,
            gomodcache,
            threads,
            execution_log: debug_execution_log,
            test_hooks: false,
        };
        return match docforge_lsp::run(opts) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("docforge: lsp: {e}");
                ExitCode::from(1)
            }
        };
    }
    let root = cli.project_root.unwrap_or_else(|| PathBuf::from("."));
    let result = match cli.command {
        Command::Index { no_ast, precise, json, threads } => {
            commands::index(&root, no_ast, precise, json, threads)
        }
        Command::Stats { json } => commands::stats(&root, json),
        Command::Search { query, limit, json } => commands::search(&root, &query, limit as usize, json),
        Command::Node { id, json } => commands::node(&root, &id, json),
        Command::Logic { id, json } => commands::logic(&root, &id, json),
        Command::Version { json } => commands::version(json),
        Command::Validate { json, staged } => return ExitCode::from(validate::validate(&root, json, staged)),
        Command::Mcp { .. } => unreachable!("handled above"),
        Command::Coord { command } => return docforge_coord::run(command),
        Command::Lsp { .. } => unreachable!("handled above"),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("docforge: {message}");
            ExitCode::from(1)
        }
    }
}
