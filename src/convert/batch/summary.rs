//! What each job came to and what the run adds up to: its outcome or failure, its
//! `--manifest` line, and the summary line.

use super::super::Converted;
use super::plan::{Destination, Job};
use super::plural;
use crate::manifest::Stored;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Default)]
pub(super) struct Summary {
    pub(super) files: usize,
    /// Jobs taken by a worker (the rest were not started: interrupted).
    pub(super) started: usize,
    pub(super) written: usize,
    /// In place: the conversion was the file's own bytes; left alone.
    pub(super) unchanged: usize,
    pub(super) conversations: usize,
    pub(super) messages: usize,
    pub(super) calls: usize,
    pub(super) results: usize,
    pub(super) warnings: usize,
    pub(super) failed: usize,
    /// Files whose conversion --verify found lossy.
    pub(super) lossy: usize,
    /// `--out-dir` outputs that exist and were kept.
    pub(super) skipped: usize,
    /// Of those, outputs older than their input (`--update` replaces them).
    pub(super) stale: usize,
    /// Files in a directory that hold no conversation.
    pub(super) not_conversations: usize,
    /// Binary files found in a directory.
    pub(super) binary: usize,
    /// Compressed files found in a directory of an in-place run.
    pub(super) compressed: usize,
    pub(super) backups_not_read: usize,
    pub(super) outputs_not_read: usize,
    /// The `-o` file could not be written (exit 2).
    pub(super) output_failed: bool,
    /// `--manifest`: the line of every job done, by position.
    pub(super) lines: BTreeMap<usize, Line>,
}

impl Summary {
    pub(super) fn line(&self, dry_run: bool) -> String {
        let mut s = format!(
            "{}, {}, {}, {}, {}, {}, {} failed",
            plural(self.files, "file", "files"),
            plural(self.conversations, "conversation", "conversations"),
            plural(self.messages, "message", "messages"),
            plural(self.calls, "call", "calls"),
            plural(self.results, "result", "results"),
            plural(self.warnings, "warning", "warnings"),
            self.failed
        );
        let mut add = |n: usize, text: String| {
            if n > 0 {
                s.push_str(", ");
                s.push_str(&text);
            }
        };
        add(self.lossy, format!("{} would lose something", self.lossy));
        add(
            self.unchanged,
            format!("{} unchanged (left as they are)", self.unchanged),
        );
        add(
            self.not_conversations,
            format!(
                "{} (plain text)",
                plural(
                    self.not_conversations,
                    "not a conversation",
                    "not conversations"
                )
            ),
        );
        add(self.binary, format!("{} binary skipped", self.binary));
        add(
            self.compressed,
            format!("{} compressed skipped (in place)", self.compressed),
        );
        add(
            self.skipped,
            match self.stale {
                0 => format!("{} skipped (output exists; --force)", self.skipped),
                stale => format!(
                    "{} skipped (output exists; --force), {stale} of them older than their input (--update)",
                    self.skipped
                ),
            },
        );
        add(
            self.backups_not_read,
            format!("{} backups not read", self.backups_not_read),
        );
        add(
            self.outputs_not_read,
            format!(
                "{} under --out-dir not read",
                plural(self.outputs_not_read, "file", "files")
            ),
        );
        if dry_run {
            s.push_str(&format!(", {} would be written (dry run)", self.written));
        }
        s
    }
}

/// What became of one job.
pub(super) enum Outcome {
    Written,
    /// Standard output (written in input order by the caller).
    Stdout,
    /// In place: its conversion is its own bytes.
    Unchanged,
    /// The output exists (`stale`: it is older than the input).
    Kept {
        stale: bool,
    },
    /// Found in a directory: binary data.
    Binary,
    /// Found in a directory of an in-place run: compressed.
    Compressed,
}

/// One input's manifest line (`--manifest`): the fields of `extract`'s manifest that
/// apply, then what convert did.
#[derive(Serialize)]
pub(super) struct Line {
    #[serde(flatten)]
    stored: Stored,
    pub(super) status: String,
    /// Where its output goes (null: standard output), written or not.
    output: Option<String>,
    /// `kept` only: the output is older than its input.
    #[serde(skip_serializing_if = "Option::is_none")]
    stale: Option<bool>,
    conversations: usize,
    calls: usize,
    results: usize,
    /// `--verify` only: the rules of the target's API the output breaks (null when the
    /// file was not converted).
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<Option<usize>>,
}

impl Line {
    pub(super) fn new(
        job: &Job,
        stored: Stored,
        outcome: &Result<(Option<Converted>, Outcome), Failure>,
        verify: bool,
    ) -> Line {
        let (status, stale) = match outcome {
            Ok((_, Outcome::Written | Outcome::Stdout)) => ("written".to_owned(), None),
            Ok((_, Outcome::Unchanged)) => ("unchanged".to_owned(), None),
            Ok((_, Outcome::Kept { stale })) => ("kept".to_owned(), Some(*stale)),
            Ok((_, Outcome::Binary)) => ("skipped: binary".to_owned(), None),
            Ok((_, Outcome::Compressed)) => ("skipped: compressed".to_owned(), None),
            Err(Failure::NotAConversation(_)) => ("skipped: not a conversation".to_owned(), None),
            Err(Failure::Convert(message)) => (format!("failed: {message}"), None),
            Err(Failure::Io { message, .. }) => (format!("error: {message}"), None),
        };
        let converted = match outcome {
            Ok((Some(c), _)) => Some(c),
            _ => None,
        };
        Line {
            stored,
            status,
            output: output_of(job),
            stale,
            conversations: converted.map_or(0, |c| c.conversations),
            calls: converted.map_or(0, |c| c.calls),
            results: converted.map_or(0, |c| c.results),
            refused: verify.then(|| converted.map(|c| c.refused)),
        }
    }

    /// A job no worker took: the run was interrupted (or standard output closed).
    pub(super) fn not_started(job: &Job, verify: bool) -> Line {
        Line {
            stored: Stored {
                path: job.name.clone(),
                size: None,
                mtime: None,
                xxh3: None,
            },
            status: "not started".to_owned(),
            output: output_of(job),
            stale: None,
            conversations: 0,
            calls: 0,
            results: 0,
            refused: verify.then_some(None),
        }
    }
}

fn output_of(job: &Job) -> Option<String> {
    match &job.destination {
        Destination::Stdout => None,
        Destination::File(p) => Some(p.to_string_lossy().into_owned()),
    }
}

/// Why a job did not finish.
pub(super) enum Failure {
    /// The input could not be read, or its output written (exit 3; 2 for the `-o`
    /// file, which ends the run).
    Io { message: String, output: bool },
    /// The file could not be converted, or converting it would destroy something
    /// (exit 1).
    Convert(String),
    /// Plain text found in a directory: no conversation, skipped.
    NotAConversation(String),
}
