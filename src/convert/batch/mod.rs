//! `convert` over many files: which inputs, where each output goes, the workers, atomic
//! writes and backups, Ctrl-C, and the summary line.
//!
//! The rules that keep a migration from losing data: a backup of an in-place run is
//! never an input and never replaced; an output is never one of the inputs; a file
//! whose conversion is its own bytes is left alone; every write is atomic; an
//! interrupted run finishes the files under way and starts no other.
//!
//! [`run`] checks the arguments, handles Ctrl-C and ends with the summary line and the
//! exit code; `plan` picks the inputs and each one's output, `workers` converts them,
//! `disk` writes atomically and keeps backups, `summary` counts what each job came to,
//! `progress` draws the bar.

mod disk;
mod plan;
mod progress;
mod summary;
mod workers;

use super::request::WriteOptions;
use super::{Settings, format_of, options};
use crate::ExitCode;
use crate::cli::ConvertArgs;
use crate::diag::Diag;
use anyhow::Result;
use disk::sweep_stale_temporaries;
use plan::plan;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;
use summary::Line;
use workers::execute;

pub(crate) fn run(args: ConvertArgs) -> Result<ExitCode> {
    let diag = Diag::new(args.quiet);
    let started = SystemTime::now();
    if args.in_place && args.backup.is_none() && !args.no_backup {
        diag.fail("--in-place needs --backup SUFFIX or --no-backup");
        return Ok(ExitCode::Error);
    }
    match args.backup.as_deref() {
        Some("") => {
            diag.fail("--backup needs a non-empty suffix");
            return Ok(ExitCode::Error);
        }
        Some(s) if s.contains('/') => {
            diag.fail(format!(
                "--backup {s}: a suffix is added to the file's name; it cannot hold '/'"
            ));
            return Ok(ExitCode::Error);
        }
        _ => {}
    }
    let options = match options(&args) {
        Ok(o) => {
            for (file, note) in &o.contracts.notes {
                diag.warn(file, None, note);
            }
            o
        }
        Err(e) => {
            diag.fail(crate::diag::without_os_error(&format!("{e:#}")));
            return Ok(ExitCode::Error);
        }
    };
    let threads = match crate::pipeline::threads(args.jobs) {
        Ok(n) => n,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    let settings = Settings {
        to: format_of(args.to),
        from: args.from.map(format_of),
        write: WriteOptions {
            wrap: args.wrap,
            rename: args.rename_tools.map(|how| match how {
                crate::cli::RenameTools::Dots => super::request::Rename::Dots,
                crate::cli::RenameTools::Safe => super::request::Rename::Safe,
            }),
            unanswered: match args.unanswered {
                crate::cli::UnansweredCalls::Placeholder => super::request::Unanswered::Placeholder,
                crate::cli::UnansweredCalls::Keep => super::request::Unanswered::Keep,
            },
        },
        compact: args.compact,
        verify: args.verify,
        options,
    };
    let plan = match plan(&args, &diag) {
        Ok(plan) => plan,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    if let (true, Some(shard)) = (plan.jobs.is_empty() && plan.found > 0, args.batch.shard) {
        diag.warn(
            "convert",
            None,
            format!(
                "shard {}/{} holds none of the {} found",
                shard.index,
                shard.count,
                plural(plan.found, "file", "files")
            ),
        );
    } else if plan.jobs.is_empty() {
        let mut names: Vec<String> = args
            .files
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect();
        if let Some(list) = &args.batch.files_from {
            names.push(format!("--files-from {}", list.to_string_lossy()));
        }
        diag.report(
            &names.join(", "),
            None,
            "nothing to convert: no file found (hidden files are not read)",
        );
    }
    if !args.dry_run {
        sweep_stale_temporaries(&plan.jobs, started, &diag);
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupted);
        // A second signal ends the run at once (the files under way keep their old
        // content: writes are atomic).
        let _ = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::SeqCst) {
                std::process::exit(ExitCode::Interrupted as i32);
            }
        });
    }
    let threads = threads.clamp(1, plan.jobs.len().max(1));
    let mut summary = execute(&plan.jobs, &settings, &args, threads, &diag, &interrupted);
    summary.backups_not_read = plan.backups_not_read;
    summary.outputs_not_read = plan.outputs_not_read;
    if let Some(path) = &args.manifest {
        let shown = path.to_string_lossy();
        if args.dry_run {
            diag.warn(
                &shown,
                None,
                format!(
                    "would write the manifest ({}); a dry run writes none",
                    plural(plan.jobs.len(), "line", "lines")
                ),
            );
        } else {
            let mut lines = std::mem::take(&mut summary.lines);
            let lines = plan.jobs.iter().enumerate().map(|(i, job)| {
                lines
                    .remove(&i)
                    .unwrap_or_else(|| Line::not_started(job, args.verify))
            });
            crate::manifest::write_lines(path, lines, &diag);
        }
    }
    let stopped = interrupted.load(Ordering::SeqCst);
    if stopped
        || plan.jobs.len() != 1
        || plan.walked_a_directory
        || args.verify
        || args.dry_run
        || args.in_place
        || summary.failed > 0
    {
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "toolsift: {}", summary.line(args.dry_run));
        if stopped {
            let _ = writeln!(
                err,
                "toolsift: interrupted: {} written, {} not started",
                summary.written,
                plan.jobs.len() - summary.started
            );
        }
    }
    Ok(if stopped {
        ExitCode::Interrupted
    } else if summary.output_failed {
        ExitCode::Error
    } else {
        diag.exit_code(if summary.failed > 0 || summary.lossy > 0 {
            ExitCode::Findings
        } else {
            ExitCode::Success
        })
    })
}

/// `1 file`, `2 files`.
fn plural(n: usize, one: &str, many: &str) -> String {
    crate::diag::plural(n as u64, one, many)
}
