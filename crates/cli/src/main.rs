//! `docforge`: the command-line front. It translates arguments into engine calls and the
//! answers into text or JSON; it never parses a source file itself.

mod changeset;
mod commands;
mod init;
mod output;
mod progress;
mod render;
mod staged;
mod stdout;
mod validate;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const EXIT_HELP: &str = "\
Exit codes:
  0  success
  1  the operation failed (project root missing, invalid docforge.toml, no or incompatible
     index, node not found); one line on stderr says why
  2  bad arguments (clap's message and the usage on stderr)";

const VERSION_HELP: &str = "\
Exit codes:
  0  success (it reads no project)
  2  bad arguments (clap's message and the usage on stderr)";

const VALIDATE_HELP: &str = "\
Exit codes:
  0  every claim passes
  1  at least one claim fails
  2  at least one claim cannot be evaluated and none fails (also: the project cannot be
     analysed; one line on stderr), or bad arguments";

const CHANGESET_HELP: &str = "\
Exit codes:
  0  success (validate: the changeset is ready; apply: applied, even when the refresh of the
     index or views was degraded — the output says so; never apply again)
  1  the operation failed or was refused (one line on stderr: the code and why); validate: the
     changeset is a draft (it has errors) or stale
  2  bad arguments";

const SERVER_HELP: &str = "\
Exit codes:
  0  the client closed the connection (or sent exit after shutdown)
  1  the server could not start or failed (one line on stderr says why)
  2  bad arguments";

const ABOUT: &str = "A knowledge graph of a project's documents and Go code";

const LONG_ABOUT: &str = "\
A knowledge graph of a project's documents and Go code.

DocForge reads the Markdown/TOML documents and the Go source under a project root, derives
one graph (documents, sections, links, relations, claims, Go packages, symbols, imports,
calls, implements), publishes it as <root>/.docforge/index.sqlite and serves it: this CLI,
`docforge validate` for pre-commit hooks, an MCP server for agents, a language server for
editors and a coordination server for teams of agents.

Start with `docforge init` (a commented docforge.toml and the ignore entries), then
`docforge index`, then `docforge search WORDS` or `docforge node ID`.";

#[derive(Parser, Debug)]
#[command(
    name = "docforge",
    about = ABOUT,
    long_about = LONG_ABOUT,
    version,
    after_help = EXIT_HELP,
    arg_required_else_help = true
)]
struct Cli {
    /// The project root (default: the current directory); may also follow the command.
    #[arg(long, value_name = "DIR")]
    project_root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// `--project-root` of the commands that read a project.
#[derive(clap::Args, Debug)]
struct Root {
    /// The project root (default: the current directory).
    #[arg(long = "project-root", value_name = "DIR")]
    project_root: Option<PathBuf>,
}

/// `--project-root` of `docforge mcp`, which never guesses its project.
#[derive(clap::Args, Debug)]
struct ServerRoot {
    /// The project root (required; before or after the command).
    #[arg(long = "project-root", value_name = "DIR")]
    project_root: Option<PathBuf>,
}

/// `--json` of the commands that read a project.
#[derive(clap::Args, Debug)]
struct Json {
    /// Print one JSON document on stdout instead of text.
    #[arg(long)]
    json: bool,
}

/// `--no-ast` of the commands that read the published index.
#[derive(clap::Args, Debug)]
struct Binding {
    /// Read the index `docforge index --no-ast` publishes (kept apart from the project's).
    #[arg(long)]
    no_ast: bool,
}

/// `N` for `--threads`: a positive number of worker threads.
fn threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a number of threads")),
    }
}

/// A search word: one with nothing but white space is a usage error, not a query that finds
/// nothing.
fn query_word(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("a query word must not be empty".into());
    }
    Ok(s.to_string())
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Create a commented docforge.toml and ignore the derived state (.docforge/, .gograph/).
    #[command(after_help = EXIT_HELP)]
    Init {
        #[command(flatten)]
        root: Root,
    },
    /// Build or incrementally update the index in <root>/.docforge/index.sqlite, at the
    /// precision docforge.toml declares ([analysis] precision; default precise).
    #[command(after_help = EXIT_HELP)]
    Index {
        #[command(flatten)]
        root: Root,
        /// Never analyse Go code with an AST: Go files are inventoried and hashed only, into an
        /// index of its own (.docforge/index.no-ast.sqlite; the project's is left as it is).
        #[arg(long)]
        no_ast: bool,
        /// Require precise analysis (types, method sets, `implements`, calls with CHA,
        /// Logic): fails when docforge.toml declares [analysis] precision = "ast".
        #[arg(long, conflicts_with = "no_ast")]
        precise: bool,
        #[command(flatten)]
        json: Json,
        /// Worker threads for analysis (default: available cores; at least 1).
        #[arg(long, value_name = "N", value_parser = threads)]
        threads: Option<usize>,
    },
    /// Counts of the published index: nodes, edges, files, diagnostics, its meta.
    #[command(after_help = EXIT_HELP)]
    Stats {
        #[command(flatten)]
        root: Root,
        #[command(flatten)]
        binding: Binding,
        #[command(flatten)]
        json: Json,
    },
    /// Lexical search over node IDs, titles and text.
    #[command(after_help = EXIT_HELP)]
    Search {
        #[command(flatten)]
        root: Root,
        #[command(flatten)]
        binding: Binding,
        /// Words to look for (data, never query syntax), e.g. `Repository` or `storage design`;
        /// several arguments are one query, as if quoted.
        #[arg(required = true, num_args = 1.., value_parser = query_word)]
        query: Vec<String>,
        /// At most this many results (1..=1000).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
        limit: u32,
        #[command(flatten)]
        json: Json,
    },
    /// One node: its location, attributes, incoming and outgoing edges and diagnostics.
    #[command(after_help = EXIT_HELP)]
    Node {
        #[command(flatten)]
        root: Root,
        #[command(flatten)]
        binding: Binding,
        /// The exact, case-sensitive node ID, e.g. `arch.storage`, `guide#install`,
        /// `go:example.com/shop/storage::Repository` or `file:docs/notes.md`.
        id: String,
        /// List every edge (the text output shows the first 20 of each direction).
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        json: Json,
    },
    /// The diagnostics of the published index (broken links, unknown relation targets, Go
    /// syntax errors, ...), in place order.
    #[command(after_help = EXIT_HELP)]
    Diagnostics {
        #[command(flatten)]
        root: Root,
        #[command(flatten)]
        binding: Binding,
        /// Only diagnostics of this severity.
        #[arg(long, value_name = "SEVERITY", value_parser = ["error", "warning", "info"])]
        severity: Option<String>,
        /// Only diagnostics with this code, e.g. `broken_link` (repeatable).
        #[arg(long, value_name = "CODE")]
        code: Vec<String>,
        #[command(flatten)]
        json: Json,
    },
    /// The Logic of one Go func or method: its possible static control paths (steps and
    /// labelled edges), as stored by `docforge index` at precision precise.
    #[command(after_help = EXIT_HELP)]
    Logic {
        #[command(flatten)]
        root: Root,
        /// The exact node ID, e.g. `go:example.com/m/pkg::(*T).M`.
        id: String,
        #[command(flatten)]
        json: Json,
    },
    /// Render every declared view (or one) to HTML into its output directory, from the
    /// current index (synchronised first), with a publication receipt per view.
    #[command(after_help = EXIT_HELP)]
    Render {
        #[command(flatten)]
        root: Root,
        /// Only the view with this ID (as declared in docforge.toml).
        #[arg(long, value_name = "ID")]
        view: Option<String>,
        /// Render nothing: print each view's state (current, stale, missing, unverified,
        /// unsafe) and why, from its receipt.
        #[arg(long)]
        status: bool,
        #[command(flatten)]
        json: Json,
    },
    /// Evaluate every [[claims]] entry of the documents (exit 0 all pass, 1 any fail,
    /// 2 any cannot_evaluate and none fails).
    #[command(after_help = VALIDATE_HELP)]
    Validate {
        #[command(flatten)]
        root: Root,
        /// Print a JSON array of gograph.validation.v1 results instead of a table.
        #[arg(long)]
        json: bool,
        /// Validate the content staged in the Git index (what `git commit` records) instead of
        /// the working tree: the pre-commit hook's mode.
        #[arg(long)]
        staged: bool,
    },
    /// Serve MCP over stdio, bound to --project-root (required): the read tools and, unless
    /// --capability-mode read, the proposal tools.
    #[command(after_help = SERVER_HELP)]
    Mcp {
        #[command(flatten)]
        root: ServerRoot,
        /// Never analyse Go code with an AST; Logic is never extracted or returned.
        #[arg(long)]
        no_ast: bool,
        /// Require precise analysis: refuses to start when docforge.toml declares
        /// [analysis] precision = "ast" (the server analyses at the declared precision).
        #[arg(long, conflicts_with = "no_ast")]
        precise: bool,
        /// Attach version-1 request diagnostics (stage timings, counters) to responses.
        #[arg(long)]
        diagnostics: bool,
        /// `proposal` (the read tools and the proposal tools), `read` (the read tools only),
        /// `application` (as proposal, and refuses to start unless --canonical-applier matches
        /// docforge.toml's [application]) or `operator` (as proposal; its policy says so).
        #[arg(long, value_name = "MODE", default_value = "proposal")]
        capability_mode: String,
        /// Bind proposal access to this writer ID (letters, digits, `.`, `_`, `:`, `/`, `-`):
        /// without it, the proposal tools only read changesets.
        #[arg(long, value_name = "ID")]
        proposal_writer: Option<String>,
        /// Bind canonical application to this applier writer: registers docforge_apply_changeset
        /// when docforge.toml declares [application] with this writer (else none; in
        /// --capability-mode application, refuses to start).
        #[arg(long, value_name = "ID")]
        canonical_applier: Option<String>,
    },
    /// Changesets agents proposed (stored under the changeset root): list, show, diff,
    /// validate, apply, abandon. Complete results, never paginated.
    #[command(after_help = CHANGESET_HELP)]
    Changeset {
        /// The project root (default: the current directory).
        #[arg(long = "project-root", value_name = "DIR", global = true)]
        project_root: Option<PathBuf>,
        /// Print one JSON document on stdout instead of text.
        #[arg(long, global = true)]
        json: bool,
        #[command(subcommand)]
        command: changeset::ChangesetCommand,
    },
    /// The coordination server (MCP over stateless Streamable HTTP) and its credentials.
    #[command(after_help = docforge_coord::EXIT_HELP)]
    Coord {
        #[command(subcommand)]
        command: docforge_coord::CoordCommand,
    },
    /// Serve the Language Server Protocol over stdin/stdout (for editors). Every workspace
    /// folder of the client is served as its own project; an explicit --project-root serves
    /// that root only.
    #[command(after_help = SERVER_HELP)]
    Lsp {
        #[command(flatten)]
        root: Root,
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
        /// Worker threads (default: available cores; at least 1).
        #[arg(long, value_name = "N", value_parser = threads)]
        threads: Option<usize>,
        /// Record salsa executions for `docforge/debugExecutions` (tests).
        #[arg(long, hide = true)]
        debug_execution_log: bool,
    },
    /// The engine version and build (the git commit it was built from).
    #[command(after_help = VERSION_HELP)]
    Version {
        /// Print `{"schema_version": "docforge.version.v1", "version": ..., "build": ...}`.
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

/// The project root of a command: `--project-root` before or after the command (not both
/// with different values), else the current directory.
fn project_root(top: &Option<PathBuf>, root: Root) -> Result<PathBuf, String> {
    match (top, root.project_root) {
        (Some(a), Some(b)) if *a != b => {
            Err(format!("--project-root given twice ({} and {})", a.display(), b.display()))
        }
        (_, Some(dir)) => Ok(dir),
        (Some(dir), None) => Ok(dir.clone()),
        (None, None) => Ok(PathBuf::from(".")),
    }
}

/// A command that reads or writes the project at a root.
type ProjectCommand = dyn FnOnce(&Path) -> Result<(), String>;

fn bad_arguments(message: &str) -> ExitCode {
    eprintln!("docforge: {message}");
    ExitCode::from(2)
}

fn failed(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("docforge: {message}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    docforge_syntax::alloc::use_for_tree_sitter();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version on stdout (exit 0); every argument error is clap's whole
            // message (what is wrong, the usage line, suggestions) on stderr, exit 2.
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let top = cli.project_root;
    match cli.command {
        Command::Coord { .. } | Command::Version { .. } if top.is_some() => {
            bad_arguments("--project-root means nothing for `coord` and `version`")
        }
        Command::Coord { command } => docforge_coord::run(command),
        Command::Version { json } => failed(commands::version(json)),
        Command::Mcp {
            root,
            no_ast,
            precise,
            diagnostics,
            capability_mode,
            proposal_writer,
            canonical_applier,
        } => {
            if top.is_none() && root.project_root.is_none() {
                return bad_arguments("mcp needs an explicit --project-root DIR");
            }
            let project_root = match project_root(&top, Root { project_root: root.project_root }) {
                Ok(dir) => dir,
                Err(message) => return bad_arguments(&message),
            };
            let Some(mode) = docforge_mcp::CapabilityMode::parse(&capability_mode) else {
                return bad_arguments("--capability-mode must be read, proposal, application or operator");
            };
            let opts = docforge_mcp::Options {
                project_root,
                no_ast,
                diagnostics,
                mode,
                proposal_writer,
                canonical_applier,
                application_bound: false,
                application_reason: None,
            };
            failed(docforge_mcp::run(opts, precise))
        }
        Command::Lsp {
            root,
            no_ast,
            no_precise,
            goroot,
            no_goroot,
            gomodcache,
            no_gomodcache,
            threads,
            debug_execution_log,
        } => {
            let explicit = match (&top, &root.project_root) {
                (None, None) => None,
                _ => match project_root(&top, root) {
                    Ok(dir) => Some(dir),
                    Err(message) => return bad_arguments(&message),
                },
            };
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
                Err(message) => return bad_arguments(&message),
            };
            let opts = docforge_lsp::Options {
                project_root: explicit,
                no_ast,
                no_precise,
                goroot,
                gomodcache,
                threads,
                execution_log: debug_execution_log,
                test_hooks: false,
            };
            failed(docforge_lsp::run(opts).map_err(|e| format!("lsp: {e}")))
        }
        Command::Changeset { project_root: root, json, command } => {
            match project_root(&top, Root { project_root: root }) {
                Ok(dir) => match changeset::run(&dir, &command, json) {
                    Ok(true) => ExitCode::SUCCESS,
                    Ok(false) => ExitCode::from(1),
                    Err(message) => failed(Err(message)),
                },
                Err(message) => bad_arguments(&message),
            }
        }
        Command::Validate { root, json, staged } => match project_root(&top, root) {
            Ok(dir) => ExitCode::from(validate::validate(&dir, json, staged)),
            Err(message) => bad_arguments(&message),
        },
        command => {
            let (root, run): (Root, Box<ProjectCommand>) = match command {
                Command::Init { root } => (root, Box::new(init::init)),
                Command::Index { root, no_ast, precise, json, threads } => {
                    (root, Box::new(move |dir| commands::index(dir, no_ast, precise, json.json, threads)))
                }
                Command::Stats { root, binding, json } => {
                    (root, Box::new(move |dir| commands::stats(dir, binding.no_ast, json.json)))
                }
                Command::Search { root, binding, query, limit, json } => (
                    root,
                    Box::new(move |dir| {
                        commands::search(dir, binding.no_ast, &query.join(" "), limit as usize, json.json)
                    }),
                ),
                Command::Node { root, binding, id, all, json } => {
                    (root, Box::new(move |dir| commands::node(dir, binding.no_ast, &id, all, json.json)))
                }
                Command::Diagnostics { root, binding, severity, code, json } => (
                    root,
                    Box::new(move |dir| {
                        commands::diagnostics(dir, binding.no_ast, severity.as_deref(), &code, json.json)
                    }),
                ),
                Command::Render { root, view, status, json } => (
                    root,
                    Box::new(move |dir| match status {
                        true => render::status(dir, view.as_deref(), json.json),
                        false => render::render(dir, view.as_deref(), json.json),
                    }),
                ),
                Command::Logic { root, id, json } => {
                    (root, Box::new(move |dir| commands::logic(dir, &id, json.json)))
                }
                _ => unreachable!("handled above"),
            };
            match project_root(&top, root) {
                Ok(dir) => failed(run(&dir)),
                Err(message) => bad_arguments(&message),
            }
        }
    }
}
