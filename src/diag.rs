//! Messages on stderr, all through this one funnel: one line each, `toolsift: FILE:LINE:
//! message` for a problem at a place, `toolsift: message` for one that is not, with
//! characters from untrusted input escaped so they cannot forge a line or garble a
//! terminal.

use std::fmt::Display;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The one funnel for messages to standard error: warnings (unless quiet) and errors,
/// one line each, naming the file and line; it remembers whether any error was told.
#[derive(Default)]
pub struct Diag {
    errored: AtomicBool,
    /// A usage error or a failure that stops the run was told.
    failed: AtomicBool,
    quiet: bool,
    /// With [`Diag::recording`]: every error, by file, for a report that must name them.
    recorded: Option<Mutex<Vec<(String, String)>>>,
    /// With [`Diag::recording`]: every part of an input passed over unread.
    skips: Option<Mutex<Vec<Skip>>>,
}

/// A part of an input passed over unread (see [`Diag::skipped`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skip {
    pub(crate) file: String,
    pub(crate) line: Option<u64>,
    pub(crate) message: String,
}

impl Diag {
    /// A funnel for messages; `quiet` keeps warnings off standard error (errors still count).
    pub fn new(quiet: bool) -> Diag {
        Diag {
            errored: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            quiet,
            recorded: None,
            skips: None,
        }
    }

    /// Also keeps each error about a file, for [`Diag::take_errors`], and each part of
    /// an input passed over unread, for [`Diag::take_skipped`].
    pub(crate) fn recording(quiet: bool) -> Diag {
        Diag {
            recorded: Some(Mutex::default()),
            skips: Some(Mutex::default()),
            ..Diag::new(quiet)
        }
    }

    /// A problem in the data: the run goes on and the exit code is unchanged.
    pub(crate) fn warn(&self, file: &str, line: Option<u64>, message: impl Display) {
        if !self.quiet {
            emit(Some((file, line)), &message.to_string());
        }
    }

    /// A part of an input passed over unread: a line over the limit, binary data, a
    /// body that cannot be decoded. Told as a warning is (`shown` false: only kept, once
    /// an input's warnings are over their limit), and the exit code is unchanged; when
    /// recording, kept for the report, which makes it a finding (`check`).
    pub(crate) fn skipped(
        &self,
        file: &str,
        line: Option<u64>,
        message: impl Display,
        shown: bool,
    ) {
        let message = message.to_string();
        if shown {
            self.warn(file, line, &message);
        }
        if let Some(skips) = &self.skips {
            let mut skips = skips.lock().unwrap_or_else(|e| e.into_inner());
            skips.push(Skip {
                file: file.to_owned(),
                line,
                message,
            });
        }
    }

    /// What the user asked to be told (`convert --verify`): printed even with `-q`; the
    /// exit code is the caller's.
    pub(crate) fn report(&self, file: &str, line: Option<u64>, message: impl Display) {
        emit(Some((file, line)), &message.to_string());
    }

    /// An I/O problem with a file: the run goes on, and ends with exit code 3 (or 2,
    /// when the caller's output is what failed).
    pub(crate) fn error(&self, file: &str, line: Option<u64>, message: impl Display) {
        self.errored.store(true, Ordering::Relaxed);
        let message = message.to_string();
        emit(Some((file, line)), &message);
        if let Some(recorded) = &self.recorded {
            let mut recorded = recorded.lock().unwrap_or_else(|e| e.into_inner());
            recorded.push((file.to_owned(), message));
        }
    }

    /// An error that is not about a place in a file (a usage error, a bad option); the
    /// message names any file itself. The exit code is 2.
    pub(crate) fn fail(&self, message: impl Display) {
        self.errored.store(true, Ordering::Relaxed);
        self.failed.store(true, Ordering::Relaxed);
        emit(None, &message.to_string());
    }

    /// Whether an error of any kind was told.
    pub(crate) fn errored(&self) -> bool {
        self.errored.load(Ordering::Relaxed)
    }

    /// Whether a usage error or a failure that stops the run was told ([`Diag::fail`]).
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The exit code of a run that went to its end: 2 after [`Diag::fail`], 3 after an
    /// error about a file (some input not read), else `otherwise`.
    pub(crate) fn exit_code(&self, otherwise: crate::ExitCode) -> crate::ExitCode {
        if self.failed() {
            crate::ExitCode::Error
        } else if self.errored() {
            crate::ExitCode::Partial
        } else {
            otherwise
        }
    }

    /// The errors recorded since the last call: (file, message).
    pub(crate) fn take_errors(&self) -> Vec<(String, String)> {
        self.recorded.as_ref().map_or_else(Vec::new, |r| {
            std::mem::take(&mut *r.lock().unwrap_or_else(|e| e.into_inner()))
        })
    }

    /// The parts passed over unread since the last call, in the order told.
    pub(crate) fn take_skipped(&self) -> Vec<Skip> {
        self.skips.as_ref().map_or_else(Vec::new, |s| {
            std::mem::take(&mut *s.lock().unwrap_or_else(|e| e.into_inner()))
        })
    }
}

fn emit(at: Option<(&str, Option<u64>)>, message: &str) {
    let location = match at {
        Some((file, Some(line))) => format!("{}:{line}: ", escape(file)),
        Some((file, None)) => format!("{}: ", escape(file)),
        None => String::new(),
    };
    // A failed write to stderr has nowhere to be reported.
    let _ = writeln!(
        std::io::stderr().lock(),
        "toolsift: {location}{}",
        escape(message)
    );
}

/// `1 file`, `2 files`: a count with its noun in the right number.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The text with what could act on a terminal or a log reader made visible: control
/// characters other than tab (line breaks, escape sequences) and the Unicode line
/// separators and bidirectional controls become `\n`, `\u{1b}`, `\u{202e}`.
pub(crate) fn escape(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

pub(crate) fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'
                ..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// An I/O error's reason without the "(os error N)" suffix, wherever it sits in a
/// message.
pub(crate) fn without_os_error(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" (os error ") {
        out.push_str(&rest[..at]);
        rest = match rest[at..].find(')') {
            Some(end) => &rest[at + end + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// The reason of an I/O error without the "(os error N)" suffix.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape("a\nb\u{1b}[31m\tc"), "a\\nb\\u{1b}[31m\tc");
        assert_eq!(escape("a\u{202e}b\u{2028}"), "a\\u{202e}b\\u{2028}");
    }

    #[test]
    fn one_is_singular() {
        assert_eq!(plural(0, "file", "files"), "0 files");
        assert_eq!(plural(1, "file", "files"), "1 file");
        assert_eq!(plural(2, "file", "files"), "2 files");
    }

    #[test]
    fn skips_are_kept_when_recording_shown_or_not() {
        let diag = Diag::recording(true);
        diag.skipped("a.jsonl", Some(2), "line longer than 64 MiB; skipped", true);
        diag.skipped("a.jsonl", None, "binary data; skipped", false);
        assert!(!diag.errored());
        let skips = diag.take_skipped();
        assert_eq!(skips.len(), 2);
        assert_eq!(skips[0].line, Some(2));
        assert_eq!(skips[1].message, "binary data; skipped");
        assert!(diag.take_skipped().is_empty());
        // Not recording: told only.
        let diag = Diag::new(true);
        diag.skipped("a.jsonl", None, "binary data; skipped", true);
        assert!(diag.take_skipped().is_empty());
    }

    #[test]
    fn os_error_suffixes_are_dropped() {
        assert_eq!(
            without_os_error("a: No such file (os error 2); b (os error 13)"),
            "a: No such file; b"
        );
    }
}
