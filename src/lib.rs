//! toolsift: sift tool calls out of LLM transcripts.
//!
//! input framing (`input`) -> turns (`transcript`) -> channels and dialects
//! (`engine`, `dialects`) -> records (`output`).

pub mod atomic;
pub mod cli;
pub mod contracts;
pub mod convert;
pub mod diag;
pub mod dialects;
pub mod engine;
pub mod input;
pub mod json;
pub mod model;
pub mod output;
mod pipeline;
pub mod pyliteral;
pub mod recent;
pub mod scan;
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
    /// Reserved for `check` findings.
    Findings = 1,
    /// Usage error, or an input or output that could not be read or written.
    Error = 2,
}

/// Parses the command line, runs it, and turns every outcome into an exit code.
pub fn run() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::Error
            } else {
                ExitCode::Success
            };
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::Success,
        Err(e) => {
            diag::Diag::default().error("error", None, format!("{e:#}"));
            ExitCode::Error
        }
    }
}

/// A closed pipe (`| head`) ends the run quietly.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
