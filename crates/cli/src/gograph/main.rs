//! `gograph`: the structural validation contract's binary. `build` writes the trusted
//! snapshot `.gograph/graph.json`; `stats` and `stale` describe it; `validate` evaluates one
//! strict binding against it (read-only: no build, no writes, no shell).

mod commands;
#[path = "../stdout.rs"]
mod stdout;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// The build identifier injected at build time (the git commit, or `unknown`).
pub const VERSION: &str = env!("DOCFORGE_BUILD_ID");

const EXIT_HELP: &str = "\
Exit codes:
  version, build, stats: 0 success, 1 the operation failed, 2 bad arguments
  stale:    0 current, 2 stale, 1 error (missing or invalid graph, scanner errors)
  validate: 0 pass, 1 fail, 2 cannot_evaluate or invalid invocation";

#[derive(Parser, Debug)]
#[command(name = "gograph", about = "Structural validation of Go repositories (gograph contract v1)", after_help = EXIT_HELP, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The injected build identifier.
    Version {
        /// Print `{"schema_version": "gograph.version.v1", "version": ...}`.
        #[arg(long)]
        json: bool,
    },
    /// Analyse the repository and atomically write the trusted snapshot .gograph/graph.json.
    Build {
        /// Repository root (default: the current directory).
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Run the Go semantic layer (types, method sets, implements, call resolution with
        /// CHA): precision `precise`, or `precise_fallback` with a warning naming the packages
        /// it could not analyse.
        #[arg(long)]
        precise: bool,
        /// Print one JSON document instead of a summary line.
        #[arg(long)]
        json: bool,
    },
    /// Schema, precision, completeness and counts of the trusted snapshot.
    Stats {
        /// Repository root (default: the current directory).
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Print one JSON document (the only rendering of v1).
        #[arg(long)]
        json: bool,
    },
    /// Compare the snapshot with the current sources (exit 0 current, 2 stale, 1 error).
    Stale {
        /// Repository root (default: the current directory).
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Print one JSON document (the only rendering of v1).
        #[arg(long)]
        json: bool,
    },
    /// Evaluate one gograph.binding.v1 document: gograph validate --repo PATH
    /// --binding-json JSON --json (exactly one gograph.validation.v1 document on stdout).
    #[command(disable_help_flag = true)]
    Validate {
        #[arg(num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true, value_parser = clap::value_parser!(OsString))]
        args: Vec<OsString>,
    },
}

#[global_allocator]
static GLOBAL: docforge_syntax::alloc::GlobalAllocator = docforge_syntax::alloc::GlobalAllocator;

fn main() -> ExitCode {
    docforge_syntax::alloc::use_for_tree_sitter();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help on stdout (exit 0); every argument error is clap's whole message (what is
            // wrong, the usage line, suggestions) on stderr, exit 2.
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let here = || PathBuf::from(".");
    let code = match cli.command {
        Command::Version { json } => commands::version(json),
        Command::Build { repo, precise, json } => commands::build(&repo.unwrap_or_else(here), precise, json),
        Command::Stats { repo, json } => commands::stats(&repo.unwrap_or_else(here), json),
        Command::Stale { repo, json } => commands::stale(&repo.unwrap_or_else(here), json),
        Command::Validate { args } => commands::validate(args),
    };
    ExitCode::from(code)
}
