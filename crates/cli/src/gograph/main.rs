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
#[command(name = "gograph", about = "Structural validation of Go repositories (gograph contract v1)", after_help = EXIT_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The injected build identifier.
    Version {
        #[arg(long)]
        json: bool,
    },
    /// Analyse the repository and atomically write the trusted snapshot .gograph/graph.json.
    Build {
        /// Repository root (default: the current directory).
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Request precise Go semantics (not available in this build: the graph is then
        /// precise_fallback, with a warning).
        #[arg(long)]
        precise: bool,
        #[arg(long)]
        json: bool,
    },
    /// Schema, precision, completeness and counts of the trusted snapshot.
    Stats {
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Compare the snapshot with the current sources (exit 0 current, 2 stale, 1 error).
    Stale {
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
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
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let rendered = e.render().to_string();
            let line = rendered.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            eprintln!("gograph: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
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
