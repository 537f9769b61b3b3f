//! `docforge coord ...`: the server and the credential admin commands.

use crate::auth;
use crate::http::{router, AppState};
use crate::store::Store;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// The exit codes every `docforge coord` command's help states.
pub const EXIT_HELP: &str = "\
Exit codes:
  0  success (serve: stopped by SIGINT or SIGTERM)
  1  the operation failed (database, address, unknown credential); one line on stderr
  2  bad arguments";

#[derive(clap::Subcommand, Debug)]
pub enum CoordCommand {
    /// Serve the coordination MCP contract at POST http://ADDR/mcp (stateless Streamable
    /// HTTP, JSON responses). Prints `listening http://ADDR/mcp` once bound.
    #[command(after_help = EXIT_HELP)]
    Serve {
        /// Address to listen on; loopback unless --allow-remote.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
        listen: SocketAddr,
        /// The coordination database (SQLite; created if missing).
        #[arg(long, value_name = "PATH")]
        db: PathBuf,
        /// Also accept requests carrying this Origin (exact `scheme://host[:port]`; loopback
        /// origins are always accepted). Repeatable.
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allow_origin: Vec<String>,
        /// Allow a non-loopback listen address (there is no TLS: put a proxy in front).
        #[arg(long)]
        allow_remote: bool,
    },
    /// Create, list and revoke bearer credentials (tokens are shown once, stored as SHA-256).
    #[command(after_help = EXIT_HELP)]
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
}

#[derive(clap::Subcommand, Debug)]
pub enum TokenCommand {
    /// Create the SYSTEM credential (creates projects, appoints first members). Prints the
    /// token alone on stdout.
    #[command(after_help = EXIT_HELP)]
    System {
        /// The coordination database (SQLite; created if missing).
        #[arg(long, value_name = "PATH")]
        db: PathBuf,
        /// Revoke the current SYSTEM credential and create a new one.
        #[arg(long)]
        replace: bool,
    },
    /// Create a token for an actor. Prints the token alone on stdout.
    #[command(after_help = EXIT_HELP)]
    Create {
        /// The coordination database (SQLite; created if missing).
        #[arg(long, value_name = "PATH")]
        db: PathBuf,
        /// The actor ID the token speaks for.
        #[arg(long, value_name = "ID")]
        actor: String,
        /// A note shown by `token list` (e.g. where the token is used).
        #[arg(long)]
        label: Option<String>,
    },
    /// List credentials (never the tokens): id, kind, principal, label, created, revoked.
    #[command(after_help = EXIT_HELP)]
    List {
        /// The coordination database (SQLite; created if missing).
        #[arg(long, value_name = "PATH")]
        db: PathBuf,
    },
    /// Revoke a credential by its ID (`cred_...`).
    #[command(after_help = EXIT_HELP)]
    Revoke {
        /// The coordination database (SQLite; created if missing).
        #[arg(long, value_name = "PATH")]
        db: PathBuf,
        /// The credential ID `token create` printed, e.g. `cred_3f2a...`.
        credential_id: String,
    },
}

/// Runs a `docforge coord` command: exit 0 on success, 1 with one line on stderr otherwise.
pub fn run(command: CoordCommand) -> ExitCode {
    let outcome = match command {
        CoordCommand::Serve { listen, db, allow_origin, allow_remote } => {
            serve(listen, &db, allow_origin, allow_remote)
        }
        CoordCommand::Token { command } => token(command),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("docforge coord: {message}");
            ExitCode::from(1)
        }
    }
}

fn print_token(created: auth::NewCredential) -> Result<(), String> {
    println!("{}", created.token);
    eprintln!("credential {} created; the token above is shown only once", created.credential_id);
    Ok(())
}

fn token(command: TokenCommand) -> Result<(), String> {
    let open = |db: &Path| Store::open(db);
    match command {
        TokenCommand::System { db, replace } => print_token(auth::create_system(&open(&db)?, replace)?),
        TokenCommand::Create { db, actor, label } => {
            print_token(auth::create_actor(&open(&db)?, &actor, label.as_deref())?)
        }
        TokenCommand::List { db } => {
            for row in auth::list(&open(&db)?)? {
                println!("{}", row.join("\t"));
            }
            Ok(())
        }
        TokenCommand::Revoke { db, credential_id } => auth::revoke(&open(&db)?, &credential_id),
    }
}

fn serve(listen: SocketAddr, db: &Path, allow_origin: Vec<String>, allow_remote: bool) -> Result<(), String> {
    if !listen.ip().is_loopback() && !allow_remote {
        return Err(format!("{listen} is not a loopback address (pass --allow-remote to listen on it)"));
    }
    let store = Arc::new(Store::open(db)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        println!("listening http://{bound}/mcp");
        let _ = std::io::stdout().flush();
        let app = router(Arc::new(AppState::new(store, allow_origin)));
        axum::serve(listener, app).with_graceful_shutdown(shutdown()).await.map_err(|e| e.to_string())
    })
}

async fn shutdown() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
    }
}
