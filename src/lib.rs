//! toolsift: sift tool calls out of LLM transcripts.
//!
//! The `toolsift` binary is the product. This library is its engine, with a small
//! surface for embedding it and for its tests and fuzz targets: a [`Reader`] frames
//! input (text, JSON, JSON Lines, SSE, YAML cassettes, HTTP recordings) into
//! [`Event`]s, turns of a conversation; an [`Engine`] finds the calls of each turn on
//! the channels tool, json and text, in that order, and writes them as JSONL records
//! on an [`Output`]. Everything else is internal and free to change; `ARCHITECTURE.md`
//! maps it.
//!
//! ```
//! use std::io::Cursor;
//! use toolsift::{Channel, Diag, Engine, Framing, Options, Output, Reader, Reasoning, Registry, Role};
//!
//! let mut out = Output::new(Box::new(Vec::new()), false);
//! let diag = Diag::new(true);
//! {
//!     let options = Options {
//!         formats: Channel::ALL.to_vec(),
//!         all: false,
//!         with_results: false,
//!         with_text: false,
//!         roles: vec![Role::Assistant],
//!         dialects: None,
//!         contracts: Default::default(),
//!         registry: Registry::builtin(),
//!         strict: false,
//!         reasoning: Reasoning::Include,
//!         manifest: None,
//!     };
//!     let mut engine = Engine::new(options, &mut out);
//!     engine.start_source("example");
//!     let mut sink = |event| engine.event(event);
//!     let text = br#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>"#;
//!     Reader::new("example", &diag, &mut sink)
//!         .read(&mut Cursor::new(&text[..]), Framing::Text)
//!         .unwrap();
//! }
//! out.flush().unwrap();
//! ```
#![warn(missing_docs, unreachable_pub)]

pub use contracts::Contracts;
pub use diag::Diag;
pub use dialects::{Channel, Registry};
pub use engine::{Engine, Options, Reasoning};
pub use input::{Framing, Reader};
pub use model::{Call, Event, Role, Text, ToolResult, Turn, Window};
pub use output::Output;
pub use tools::Tool;

/// Internals the integration tests reach, outside the documented surface.
#[doc(hidden)]
pub mod testing {
    pub use crate::cli::Cli;
    pub use crate::convert::model::Format;
    pub use crate::convert::rules::{ACCEPTED, check};
    pub use crate::dialects::{DialectRow, all_rows};
    pub use crate::docs::{cli_command, man_pages};
    pub use crate::input::{LEAST_WINDOW, MAX_OVERLAP, TEXT_WINDOW};
}

mod atomic;
mod cli;
mod config_file;
mod contracts;
mod convert;
mod diag;
mod dialects;
mod docs;
mod engine;
mod formats;
#[doc(hidden)]
pub mod fuzzing;
mod input;
mod json;
mod manifest;
mod model;
mod output;
mod pipeline;
mod pyliteral;
mod recent;
mod scan;
mod style;
mod tile;
mod tools;
mod transcript;
mod typing;
mod walk;

mod check;
mod commands;
#[cfg(test)]
mod module_graph;
mod render;

use std::ffi::OsString;
use std::io;

/// The documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    /// Done, with nothing to report.
    Success = 0,
    /// `check` findings; a file `convert` could not convert (or `--verify` found lossy).
    Findings = 1,
    /// Usage error, or a failure that stops the run (an output that cannot be written:
    /// `-o`, standard output).
    Error = 2,
    /// Some inputs could not be read (or, for `convert`, some outputs written);
    /// everything else was done. Wins over [`ExitCode::Findings`]: the verdict of a
    /// partial run is incomplete.
    Partial = 3,
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
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
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

/// The command line, parsed with the hints of [`docs::cli_command`] (they show in help
/// and completions, and accept any word).
fn parse() -> Result<cli::Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut command = docs::cli_command();
    let matches = command.try_get_matches_from_mut(std::env::args_os())?;
    cli::Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
}

/// Help and version go to stdout as clap writes them; a usage error becomes one
/// `toolsift: message` line that says where the help is.
fn usage_error(mut e: clap::Error) -> ExitCode {
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
    let mut root = docs::cli_command();
    // With the `--help` and `--version` clap adds.
    root.build();
    let path = command_path(&root, std::env::args_os().skip(1));
    closest_suggestions(&mut e);
    explain_parent_option(&mut e, &root, &path);
    let command = format!("toolsift {}", path.join(" "));
    diag::Diag::default().fail(clap_message(&e.render().to_string(), command.trim_end()));
    ExitCode::Error
}

/// The subcommands named by the command line (`["tools", "render"]`), as far as they
/// are valid: the command a usage error is about.
fn command_path(root: &clap::Command, args: impl Iterator<Item = OsString>) -> Vec<String> {
    let mut path = Vec::new();
    let mut command = root;
    for arg in args {
        let Some(arg) = arg.to_str() else { break };
        if arg.starts_with('-') {
            // No command with subcommands has an option that takes a value.
            continue;
        }
        match command.find_subcommand(arg) {
            Some(sub) => {
                path.push(sub.get_name().to_owned());
                command = sub;
            }
            None => break,
        }
    }
    path
}

/// clap proposes every name close enough by Jaro similarity, least similar first
/// (`chek`: 'schema', 'check'): only the closest by edit distance are kept.
fn closest_suggestions(e: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue};
    for (suggested, typed) in [
        (
            ContextKind::SuggestedSubcommand,
            ContextKind::InvalidSubcommand,
        ),
        (ContextKind::SuggestedArg, ContextKind::InvalidArg),
        (ContextKind::SuggestedValue, ContextKind::InvalidValue),
    ] {
        let (Some(ContextValue::Strings(names)), Some(ContextValue::String(typed))) =
            (e.get(suggested), e.get(typed))
        else {
            continue;
        };
        let typed = typed.split('=').next().unwrap_or(typed);
        let best = names
            .iter()
            .map(|n| edit_distance(typed, n))
            .min()
            .unwrap_or(0);
        let mut closest: Vec<String> = names
            .iter()
            .filter(|n| edit_distance(typed, n) == best)
            .cloned()
            .collect();
        let value = match closest.len() {
            1 => ContextValue::String(closest.pop().unwrap()),
            _ => ContextValue::Strings(closest),
        };
        e.insert(suggested, value);
    }
}

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// An option of `toolsift` itself given to a subcommand (`toolsift extract
/// --version`): clap would propose a look-alike of the subcommand; say where the option
/// is instead.
fn explain_parent_option(e: &mut clap::Error, root: &clap::Command, path: &[String]) {
    use clap::error::{ContextKind, ContextValue};
    if path.is_empty() || e.kind() != clap::error::ErrorKind::UnknownArgument {
        return;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return;
    };
    let arg = arg.split('=').next().unwrap_or(arg).to_owned();
    let at_root = match (arg.strip_prefix("--"), arg.strip_prefix('-')) {
        (Some(long), _) => root.get_arguments().any(|a| a.get_long() == Some(long)),
        (None, Some(short)) => {
            let mut chars = short.chars();
            let flag = chars.next();
            chars.next().is_none()
                && root
                    .get_arguments()
                    .any(|a| flag.is_some() && a.get_short() == flag)
        }
        _ => false,
    };
    if !at_root {
        return;
    }
    e.remove(ContextKind::SuggestedArg);
    let tip = format!(
        "'toolsift {}' has no {arg}; it is an option of toolsift itself: 'toolsift {arg}'",
        path.join(" ")
    );
    e.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
}

/// clap's rendered error (`error: …`, tips, `Usage: …`, a pointer to `--help`) as one
/// line: the error, its tips, and the help of the command it is about.
fn clap_message(rendered: &str, command: &str) -> String {
    let mut message = String::new();
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
