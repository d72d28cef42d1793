//! Messages on stderr: one line each, `toolsift: FILE:LINE: message`, with control
//! characters from untrusted input made visible so they cannot garble a terminal.

use std::fmt::Display;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Default)]
pub struct Diag {
    errored: AtomicBool,
    quiet: bool,
}

impl Diag {
    pub fn new(quiet: bool) -> Diag {
        Diag {
            errored: AtomicBool::new(false),
            quiet,
        }
    }

    /// A problem in the data: the run goes on and the exit code is unchanged.
    pub fn warn(&self, file: &str, line: Option<u64>, message: impl Display) {
        if !self.quiet {
            emit(file, line, &message.to_string());
        }
    }

    /// What the user asked to be told (`convert --verify`): printed even with `-q`; the
    /// exit code is the caller's.
    pub fn report(&self, file: &str, line: Option<u64>, message: impl Display) {
        emit(file, line, &message.to_string());
    }

    /// An I/O or usage problem: the run goes on, and ends with exit code 2.
    pub fn error(&self, file: &str, line: Option<u64>, message: impl Display) {
        self.errored.store(true, Ordering::Relaxed);
        emit(file, line, &message.to_string());
    }

    pub fn errored(&self) -> bool {
        self.errored.load(Ordering::Relaxed)
    }
}

fn emit(file: &str, line: Option<u64>, message: &str) {
    let location = match line {
        Some(line) => format!("{}:{line}", sanitize(file)),
        None => sanitize(file),
    };
    // A failed write to stderr has nowhere to be reported.
    let _ = writeln!(
        std::io::stderr().lock(),
        "toolsift: {location}: {}",
        sanitize(message)
    );
}

/// Replaces control characters (other than tab) with their escaped form and keeps
/// messages to one line.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
    }
}
