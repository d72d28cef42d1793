//! toolsift: sift tool calls out of LLM transcripts.
//!
//! input framing (`input`) -> turns (`transcript`) -> channels and dialects
//! (`engine`, `dialects`) -> records (`output`).

pub mod atomic;
pub mod cli;
pub mod config_file;
pub mod contracts;
pub mod convert;
pub mod diag;
pub mod dialects;
pub mod docs;
pub mod engine;
#[doc(hidden)]
pub mod fuzzing;
pub mod input;
pub mod json;
pub mod model;
pub mod output;
mod pipeline;
pub mod pyliteral;
pub mod recent;
pub mod scan;
pub mod style;
pub mod tile;
pub mod tools;
pub mod transcript;
pub mod typing;
pub mod walk;

mod check;
mod commands;
mod render;

use clap::Parser;
use std::io;

/// The documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    Success = 0,
    /// `check` findings; a file `convert` could not convert (or `--verify` found lossy).
    Findings = 1,
    /// Usage error, or an input or output that could not be read or written.
    Error = 2,
    /// Stopped by SIGINT or SIGTERM (`convert`: the files under way were finished).
    Interrupted = 130,
}

/// Parses the command line, runs it, and turns every outcome into an exit code.
pub fn run() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        diag::Diag::default().fail(format!("internal error{at}: {what} (please report it)"));
    }));
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::Success,
        Err(e) => {
            diag::Diag::default().fail(diag::without_os_error(&format!("{e:#}")));
            ExitCode::Error
        }
    }
}

/// Help and version go to stdout as clap writes them; a usage error becomes one
/// `toolsift: message` line that says where the help is.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::Success;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // `toolsift` alone: the help is the answer.
        let _ = e.print();
        return ExitCode::Error;
    }
    diag::Diag::default().fail(clap_message(&e.render().to_string()));
    ExitCode::Error
}

/// clap's rendered error (`error: …`, tips, `Usage: …`, a pointer to `--help`) as one
/// line: the error, its tips, and the help of the command it is about.
fn clap_message(rendered: &str) -> String {
    let mut message = String::new();
    let mut command = "toolsift".to_owned();
    for paragraph in rendered.split("\n\n") {
        let joined = paragraph
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(error) = joined.strip_prefix("error: ") {
            message = error.to_owned();
        } else if let Some(tip) = joined.strip_prefix("tip: ") {
            message += &format!("; {tip}");
        } else if let Some(usage) = joined.strip_prefix("Usage: ") {
            let words: Vec<&str> = usage
                .split(' ')
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect();
            command = words.join(" ");
        }
    }
    format!("{message} (see '{command} --help')")
}

/// A closed pipe (`| head`) ends the run quietly.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
