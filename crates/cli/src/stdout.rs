//! Writing to stdout when the reader may go away (`docforge search x | head`): instead of
//! panicking like `println!`, the process ends quietly with the status a SIGPIPE death gives
//! (141). Any other write error is one line on stderr and exit 1. Shared by both binaries.

use std::io::Write;

/// Status of a process killed by SIGPIPE, as a shell reports it.
pub const BROKEN_PIPE_EXIT: i32 = 141;

/// Write `args` followed by `end` to stdout and flush.
pub fn write(args: std::fmt::Arguments<'_>, end: &str) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| out.write_all(end.as_bytes())).and_then(|()| out.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        eprintln!("{}: cannot write to stdout: {e}", env!("CARGO_BIN_NAME"));
        std::process::exit(1);
    }
}

/// `println!` through [`write`].
macro_rules! outln {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*), "\n") };
}

/// `print!` through [`write`].
#[allow(unused_macros)]
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*), "") };
}

#[allow(unused_imports)]
pub(crate) use {out, outln};
