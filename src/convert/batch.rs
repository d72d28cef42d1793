//! `convert` over many files: which inputs, where each output goes, the workers, atomic
//! writes and backups, Ctrl-C, and the summary line.
//!
//! The rules that keep a migration from losing data: a backup of an in-place run is
//! never an input and never replaced; an output is never one of the inputs; a file
//! whose conversion is its own bytes is left alone; every write is atomic; an
//! interrupted run finishes the files under way and starts no other.

use super::request::WriteOptions;
use super::{Converted, NotAConversation, Settings, convert_bytes, format_of, options, read_input};
use crate::ExitCode;
use crate::atomic::AtomicFile;
use crate::cli::ConvertArgs;
use crate::diag::Diag;
use crate::manifest::{Stored, Watch};
use crate::walk::{self, FileId, WalkOptions};
use anyhow::{Result, bail};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// Where one input's output goes.
enum Destination {
    Stdout,
    File(PathBuf),
}

struct Job {
    input: PathBuf,
    /// Found in a directory argument, not named.
    walked: bool,
    /// Shown in messages.
    name: String,
    destination: Destination,
    /// With --in-place --backup: where the original goes first.
    backup: Option<PathBuf>,
}

/// The jobs, and what the walk left out.
struct Plan {
    jobs: Vec<Job>,
    /// Files ending in the backup suffix, found in a directory of an in-place run.
    backups_not_read: usize,
    /// Files already under `--out-dir`, found in a directory argument that holds it.
    outputs_not_read: usize,
    /// A directory argument was given (the summary is always said then).
    walked_a_directory: bool,
    /// Files found, before `--shard` kept its own.
    found: usize,
}

pub fn run(args: ConvertArgs) -> Result<ExitCode> {
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

/// The inputs and where each goes; an error when the run could destroy an input.
fn plan(args: &ConvertArgs, diag: &Diag) -> Result<Plan> {
    let mut plan = Plan {
        jobs: Vec::new(),
        backups_not_read: 0,
        outputs_not_read: 0,
        walked_a_directory: false,
        found: 0,
    };
    let named = crate::pipeline::named(&args.files, &args.batch)?;
    let opts = WalkOptions {
        follow: args.follow,
        globs: walk::exclude_globs(&args.exclude)?,
        ..Default::default()
    };
    let (walked, found) = crate::pipeline::select(walk::walk(&named, &opts, diag), &args.batch)?;
    plan.found = found;
    plan.walked_a_directory = named.iter().any(|f| f.as_os_str() != "-" && f.is_dir());
    let out_dir = args.out_dir.as_ref().map(|d| (d, canonical(d)));
    if let (Some((shown, Some(out))), true) = (&out_dir, named.iter().any(|f| f.is_dir())) {
        for root in named.iter().filter(|f| f.is_dir()) {
            if canonical(root).as_ref() == Some(out) {
                bail!(
                    "--out-dir {}: it is the directory {} being converted; each output would replace its input (use --in-place, or another --out-dir)",
                    shown.display(),
                    root.display()
                );
            }
        }
    }
    // The directory arguments that hold the --out-dir (each resolved once).
    let holding_out_dir: HashSet<&PathBuf> = match &out_dir {
        Some((_, Some(out))) => args
            .files
            .iter()
            .filter(|f| canonical(f).is_some_and(|r| out.starts_with(&r) && *out != r))
            .collect(),
        _ => HashSet::new(),
    };
    let suffix = args.backup.as_deref().filter(|_| args.in_place);
    let mut inputs_seen = HashSet::new();
    for w in walked {
        let name = crate::pipeline::source_name(&w.path, &args.batch).into_owned();
        let stdin = w.path.as_os_str() == "-";
        if stdin && (args.in_place || args.out_dir.is_some()) {
            bail!("standard input cannot be converted with --in-place or --out-dir");
        }
        if let Some(suffix) = suffix
            && w.path
                .as_os_str()
                .as_encoded_bytes()
                .ends_with(suffix.as_bytes())
        {
            if w.root.is_some() {
                plan.backups_not_read += 1;
                continue;
            }
            bail!(
                "{name}: ends in the backup suffix {suffix}; an in-place run never converts a backup"
            );
        }
        // Outputs of an earlier run, under an --out-dir inside the directory read.
        if let (Some((_, Some(out))), Some(root)) = (&out_dir, &w.root)
            && holding_out_dir.contains(root)
            && canonical(&w.path).is_some_and(|p| p.starts_with(out))
        {
            plan.outputs_not_read += 1;
            continue;
        }
        // One file named twice (or by two paths) is converted once.
        if !stdin
            && let Ok(id) = FileId::of(&w.path)
            && !inputs_seen.insert(id)
        {
            continue;
        }
        let (destination, backup) = if let Some(out) = &args.output {
            (Destination::File(out.clone()), None)
        } else if let Some((dir, _)) = &out_dir {
            let relative = match &w.root {
                Some(root) => w.path.strip_prefix(root).unwrap_or(&w.path).to_path_buf(),
                None => as_given(&w.path),
            };
            (Destination::File(dir.join(relative)), None)
        } else if args.in_place {
            let backup = suffix.map(|suffix| {
                let mut b = w.path.clone().into_os_string();
                b.push(suffix);
                PathBuf::from(b)
            });
            (Destination::File(w.path.clone()), backup)
        } else {
            (Destination::Stdout, None)
        };
        plan.jobs.push(Job {
            walked: w.root.is_some(),
            input: w.path,
            name,
            destination,
            backup,
        });
    }
    if let Some(out) = &args.output {
        if plan.jobs.len() > 1 {
            bail!(
                "-o takes one input ({} given); use --out-dir for several",
                plan.jobs.len()
            );
        }
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.is_dir()
        {
            bail!(
                "-o {}: the directory {} does not exist",
                out.display(),
                parent.display()
            );
        }
    }
    // Several documents on standard output would run together: one per line only.
    let to_stdout = plan
        .jobs
        .iter()
        .filter(|j| matches!(j.destination, Destination::Stdout))
        .count();
    if to_stdout > 1 && !args.compact && !args.dry_run {
        bail!(
            "{to_stdout} inputs to standard output would run together; use --out-dir DIR (one output per input), or --compact (one conversation per line)"
        );
    }
    // No output may be an input of the run (except in place), and no two inputs may
    // write one output.
    let input_ids: HashMap<FileId, &str> = plan
        .jobs
        .iter()
        .filter_map(|j| Some((FileId::of(&j.input).ok()?, j.name.as_str())))
        .collect();
    let mut seen = HashSet::new();
    for j in &plan.jobs {
        let Destination::File(p) = &j.destination else {
            continue;
        };
        if !args.in_place
            && let Some(input) = FileId::of(p).ok().and_then(|id| input_ids.get(&id))
        {
            let flag = if args.output.is_some() {
                "-o"
            } else {
                "--out-dir"
            };
            bail!(
                "{}: {flag} would write over the input {input}; write the output elsewhere",
                p.display()
            );
        }
        if !seen.insert(p.clone()) {
            bail!(
                "{}: two inputs would be written to this one output",
                p.display()
            );
        }
    }
    // The manifest replaces neither an input nor an output.
    if let Some(manifest) = &args.manifest {
        let shown = manifest.display();
        if let Some(input) = FileId::of(manifest).ok().and_then(|id| input_ids.get(&id)) {
            bail!("--manifest {shown}: it is the input {input}; write the manifest elsewhere");
        }
        if let Some(j) = plan
            .jobs
            .iter()
            .find(|j| matches!(&j.destination, Destination::File(p) if p == manifest))
        {
            bail!(
                "--manifest {shown}: it is the output of {}; write the manifest elsewhere",
                j.name
            );
        }
    }
    Ok(plan)
}

/// A named file's path under `--out-dir`: the path as given, as `cp --parents` keeps
/// it (`tasks/a/history.json` stays `tasks/a/history.json`, so files of one name in
/// several folders stay apart), less what cannot be inside a directory (a leading `/`,
/// `..`, `.`).
fn as_given(path: &Path) -> PathBuf {
    use std::path::Component;
    path.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect()
}

/// The canonical path, `None` when it does not exist.
fn canonical(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

/// Removes the hidden temporary files (`.NAME.XXXXXX.toolsift-tmp`) that a killed run
/// left beside the outputs this run writes, when they are older than this run.
fn sweep_stale_temporaries(jobs: &[Job], started: SystemTime, diag: &Diag) {
    let mut by_dir: BTreeMap<PathBuf, HashSet<Vec<u8>>> = BTreeMap::new();
    for j in jobs {
        let Destination::File(p) = &j.destination else {
            continue;
        };
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(name) = p.file_name() {
            by_dir
                .entry(dir)
                .or_default()
                .insert(name.as_encoded_bytes().to_vec());
        }
    }
    let mut removed = 0;
    for (dir, names) in by_dir {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(target) = temporary_of(file_name.as_encoded_bytes()) else {
                continue;
            };
            let stale = entry
                .metadata()
                .ok()
                .filter(fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .is_some_and(|m| m < started);
            if names.contains(target) && stale && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
    }
    if removed > 0 {
        diag.warn(
            "convert",
            None,
            format!(
                "removed {} of an earlier run that was stopped",
                plural(removed, "temporary file", "temporary files")
            ),
        );
    }
}

/// The file a temporary of [`AtomicFile`] was to replace: `.NAME.XXXXXX.toolsift-tmp`
/// gives `NAME`.
fn temporary_of(name: &[u8]) -> Option<&[u8]> {
    let inner = name.strip_prefix(b".")?.strip_suffix(b".toolsift-tmp")?;
    let dot = inner.len().checked_sub(7)?;
    (inner.get(dot) == Some(&b'.')).then(|| &inner[..dot])
}

#[derive(Default)]
struct Summary {
    files: usize,
    /// Jobs taken by a worker (the rest were not started: interrupted).
    started: usize,
    written: usize,
    /// In place: the conversion was the file's own bytes; left alone.
    unchanged: usize,
    conversations: usize,
    messages: usize,
    calls: usize,
    results: usize,
    warnings: usize,
    failed: usize,
    /// Files whose conversion --verify found lossy.
    lossy: usize,
    /// `--out-dir` outputs that exist and were kept.
    skipped: usize,
    /// Of those, outputs older than their input (`--update` replaces them).
    stale: usize,
    /// Files in a directory that hold no conversation.
    not_conversations: usize,
    /// Binary files found in a directory.
    binary: usize,
    /// Compressed files found in a directory of an in-place run.
    compressed: usize,
    backups_not_read: usize,
    outputs_not_read: usize,
    /// The `-o` file could not be written (exit 2).
    output_failed: bool,
    /// `--manifest`: the line of every job done, by position.
    lines: BTreeMap<usize, Line>,
}

impl Summary {
    fn line(&self, dry_run: bool) -> String {
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
enum Outcome {
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
struct Line {
    #[serde(flatten)]
    stored: Stored,
    status: String,
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
    fn new(
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
    fn not_started(job: &Job, verify: bool) -> Line {
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
enum Failure {
    /// The input could not be read, or its output written (exit 3; 2 for the `-o`
    /// file, which ends the run).
    Io { message: String, output: bool },
    /// The file could not be converted, or converting it would destroy something
    /// (exit 1).
    Convert(String),
    /// Plain text found in a directory: no conversation, skipped.
    NotAConversation(String),
}

/// Converts every job on `threads` workers; stdout output comes in input order.
fn execute(
    jobs: &[Job],
    settings: &Settings,
    args: &ConvertArgs,
    threads: usize,
    diag: &Diag,
    interrupted: &AtomicBool,
) -> Summary {
    let summary = Mutex::new(Summary {
        files: jobs.len(),
        ..Summary::default()
    });
    let next = AtomicUsize::new(0);
    let progress = Progress::new(jobs.len());
    // Stdout outputs wait here until every earlier one is written.
    let ordered: Mutex<(usize, BTreeMap<usize, Vec<u8>>)> = Mutex::new((0, BTreeMap::new()));
    let stdout_error: Mutex<Option<io::Error>> = Mutex::new(None);
    // Jobs whose standard output was not written (it failed before them or on them).
    let not_written: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    let manifest = args.manifest.is_some() && !args.dry_run;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    if interrupted.load(Ordering::SeqCst)
                        || stdout_error.lock().is_ok_and(|e| e.is_some())
                    {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    summary.lock().expect("no panics hold it").started += 1;
                    let mut watch = manifest.then(|| Watch::new(&job.name));
                    let outcome = one(job, settings, args, diag, &progress, watch.as_mut());
                    let line = watch.map(|w| Line::new(job, w.stored(), &outcome, settings.verify));
                    let mut stdout_bytes = None;
                    {
                        let mut s = summary.lock().expect("no panics hold it");
                        if let Some(line) = line {
                            s.lines.insert(i, line);
                        }
                        match outcome {
                            Ok((converted, outcome)) => {
                                if let Some(c) = &converted {
                                    s.conversations += c.conversations;
                                    s.messages += c.messages;
                                    s.calls += c.calls;
                                    s.results += c.results;
                                    s.warnings += c.warnings.len();
                                    if !c.differences.is_empty() {
                                        s.lossy += 1;
                                    }
                                }
                                match outcome {
                                    Outcome::Written => s.written += 1,
                                    Outcome::Unchanged => s.unchanged += 1,
                                    Outcome::Kept { stale } => {
                                        s.skipped += 1;
                                        s.stale += usize::from(stale);
                                    }
                                    Outcome::Binary => s.binary += 1,
                                    Outcome::Compressed => s.compressed += 1,
                                    Outcome::Stdout => {
                                        stdout_bytes = converted.map(|c| c.output);
                                    }
                                }
                            }
                            Err(Failure::NotAConversation(message)) => {
                                s.not_conversations += 1;
                                drop(s);
                                progress.suspend(|| diag.warn(&job.name, None, message));
                            }
                            Err(Failure::Convert(message)) => {
                                s.failed += 1;
                                drop(s);
                                // A file that fails is counted (exit 1), said even with -q.
                                progress.suspend(|| diag.report(&job.name, None, message));
                            }
                            Err(Failure::Io { message, output }) => {
                                s.failed += 1;
                                s.output_failed |= output && args.output.is_some();
                                drop(s);
                                progress.suspend(|| diag.error(&job.name, None, message));
                            }
                        }
                    }
                    progress.inc();
                    if matches!(job.destination, Destination::Stdout) {
                        let mut o = ordered.lock().expect("no panics hold it");
                        o.1.insert(i, stdout_bytes.unwrap_or_default());
                        loop {
                            let at = o.0;
                            let Some(bytes) = o.1.remove(&at) else { break };
                            o.0 += 1;
                            let mut failed = stdout_error.lock().expect("no panics hold it");
                            if failed.is_none() && !bytes.is_empty() {
                                let mut out = io::stdout().lock();
                                if let Err(e) = out.write_all(&bytes).and_then(|()| out.flush()) {
                                    *failed = Some(e);
                                }
                            }
                            if failed.is_some() && !bytes.is_empty() {
                                not_written.lock().expect("no panics hold it").push(at);
                            }
                        }
                    }
                }
            });
        }
    });
    progress.finish();
    let mut summary = summary.into_inner().expect("no panics hold it");
    // A closed pipe (`| head`) ends the run quietly; any other failure is reported.
    if let Some(e) = stdout_error.into_inner().expect("no panics hold it") {
        let reason = crate::diag::io_reason(&e);
        for i in not_written.into_inner().expect("no panics hold it") {
            if let Some(line) = summary.lines.get_mut(&i) {
                line.status = format!("error: standard output: {reason}");
            }
        }
        if e.kind() != io::ErrorKind::BrokenPipe {
            diag.fail(format!("standard output: {reason}"));
        }
    }
    summary
}

/// Auto-detection and walks take a NUL byte in this many first bytes for binary data.
const BINARY_PROBE: usize = 8 << 10;

/// Converts one input and writes its output (unless to stdout, or a dry run). The
/// conversion is `None` when the input was not converted (an output kept, a binary).
/// `watch` (`--manifest`): the input's size, mtime and hash are taken as it is read;
/// an input not read (its output kept) has its size and mtime only.
fn one(
    job: &Job,
    settings: &Settings,
    args: &ConvertArgs,
    diag: &Diag,
    progress: &Progress,
    mut watch: Option<&mut Watch>,
) -> Result<(Option<Converted>, Outcome), Failure> {
    // An output that exists is kept before any work: a resumed batch costs a stat
    // per file done.
    if let (Destination::File(path), Some(_)) = (&job.destination, &args.out_dir)
        && !args.force
        && let Ok(output) = fs::metadata(path)
    {
        let input = fs::metadata(&job.input).ok();
        let newer = input
            .as_ref()
            .and_then(|m| m.modified().ok())
            .zip(output.modified().ok());
        let stale = newer.is_some_and(|(input, output)| input > output);
        if !(args.update && stale) {
            if let (Some(w), Some(meta)) = (watch, &input) {
                w.stat(meta);
            }
            return Ok((None, Outcome::Kept { stale }));
        }
    }
    let (bytes, compression) = match read_input(&job.input, watch.as_deref_mut()) {
        Ok(read) => read,
        Err(e) => {
            if let Some(w) = watch {
                w.error(&reason(&e));
            }
            return Err(Failure::Io {
                message: reason(&e),
                output: false,
            });
        }
    };
    // In place, a compressed file would get plain text under its compressed name.
    if let (true, Some(c)) = (args.in_place, compression) {
        if job.walked {
            return Ok((None, Outcome::Compressed));
        }
        return Err(Failure::Convert(format!(
            "{} data; --in-place would replace it with plain text under the same name (use --out-dir)",
            c.name()
        )));
    }
    if let Some(at) = memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)]) {
        if job.walked {
            return Ok((None, Outcome::Binary));
        }
        return Err(Failure::Convert(format!(
            "binary data (NUL byte at offset {at}); not a conversation"
        )));
    }
    let converted = match convert_bytes(&bytes, settings, job.walked) {
        Ok(c) => c,
        Err(e) if e.downcast_ref::<NotAConversation>().is_some() => {
            return Err(Failure::NotAConversation(e.to_string()));
        }
        Err(e) => return Err(Failure::Convert(format!("{e:#}"))),
    };
    progress.suspend(|| {
        // With --verify, what the target could not hold is part of its report.
        for w in &converted.warnings {
            if settings.verify {
                diag.report(&job.name, None, format!("verify: not carried over: {w}"));
            } else {
                diag.warn(&job.name, None, w);
            }
        }
        for d in &converted.differences {
            diag.report(&job.name, None, format!("verify: {d}"));
        }
    });
    let path = match &job.destination {
        Destination::Stdout if args.dry_run => {
            progress.suspend(|| {
                diag.warn(
                    &job.name,
                    None,
                    format!(
                        "would write {} to standard output",
                        plural(converted.output.len(), "byte", "bytes")
                    ),
                );
            });
            return Ok((Some(converted), Outcome::Written));
        }
        Destination::Stdout => return Ok((Some(converted), Outcome::Stdout)),
        Destination::File(path) => path,
    };
    if args.in_place && converted.output == bytes {
        return Ok((Some(converted), Outcome::Unchanged));
    }
    if args.dry_run {
        progress.suspend(|| {
            diag.warn(
                &job.name,
                None,
                format!(
                    "would write {} ({})",
                    path.display(),
                    plural(converted.output.len(), "byte", "bytes")
                ),
            );
        });
        return Ok((Some(converted), Outcome::Written));
    }
    if let Some(backup) = &job.backup {
        keep_original(&job.input, backup).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => Failure::Convert(format!(
                "{} exists and holds another file; not replaced, and this file is left as it is (choose another --backup suffix)",
                backup.display()
            )),
            _ => Failure::Io {
                message: format!(
                    "{}: cannot write the backup: {}",
                    backup.display(),
                    reason(&e)
                ),
                output: true,
            },
        })?;
    }
    if args.out_dir.is_some()
        && let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
    {
        fs::create_dir_all(parent).map_err(|e| Failure::Io {
            message: format!(
                "{}: cannot create the directory: {}",
                parent.display(),
                reason(&e)
            ),
            output: true,
        })?;
    }
    write_atomic(path, &converted.output).map_err(|e| Failure::Io {
        message: format!("{}: cannot write: {}", path.display(), reason(&e)),
        output: true,
    })?;
    Ok((Some(converted), Outcome::Written))
}

/// An I/O error in words: no `(os error N)`, and no temporary file's path (the
/// message names the user's file).
fn reason(e: &io::Error) -> String {
    let text = crate::diag::io_reason(e);
    let text = match text.find(" at path ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    crate::diag::without_os_error(&text)
}

/// Puts the original at `backup`, never replacing a file there: a hard link to the file
/// (its bytes, times and permissions, at no cost), or where links cannot be made a
/// copy renamed into place only while the name is free. A backup that is the input's
/// own file already (a run stopped between this and the write) is kept as it is.
fn keep_original(input: &Path, backup: &Path) -> io::Result<()> {
    // Through links: the file that the write replaces.
    let source = fs::canonicalize(input)?;
    match fs::symlink_metadata(backup) {
        Ok(_) => {
            return match (FileId::of(backup), FileId::of(&source)) {
                (Ok(a), Ok(b)) if a == b => Ok(()),
                _ => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
            };
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    match fs::hard_link(&source, backup) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => copy_without_replacing(&source, backup),
    }
}

fn copy_without_replacing(source: &Path, backup: &Path) -> io::Result<()> {
    let dir = match backup.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(backup.file_name().unwrap_or_default());
    prefix.push(".");
    let mut temp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".toolsift-tmp")
        .tempfile_in(dir)?;
    let mut from = fs::File::open(source)?;
    io::copy(&mut from, &mut temp)?;
    temp.as_file()
        .set_permissions(from.metadata()?.permissions())?;
    temp.as_file().sync_all()?;
    temp.persist_noclobber(backup).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` through a temporary file beside `path`, renamed over it when
/// complete: a kill or a full disk leaves the old file or the new one, never half.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// A progress bar on stderr when it is a terminal and there is more than one file:
/// as wide as the terminal, the time left shown once it means something.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(files: usize) -> Progress {
        if files < 2 || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(files as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} {pos}/{len} files [{wide_bar}] {elapsed}{msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix("converting");
        Progress(Some(bar))
    }

    fn inc(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
            // The estimate means something after a few files and a second or two.
            if bar.position() >= 3 && bar.elapsed() >= Duration::from_secs(2) {
                bar.set_message(format!(", {} left", indicatif::HumanDuration(bar.eta())));
            }
        }
    }

    /// Runs `f` (which prints to stderr) with the bar out of the way.
    fn suspend(&self, f: impl FnOnce()) {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// `1 file`, `2 files`.
fn plural(n: usize, one: &str, many: &str) -> String {
    crate::diag::plural(n as u64, one, many)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_names_the_file_it_replaces() {
        assert_eq!(
            temporary_of(b".a.json.Ab3xYz.toolsift-tmp"),
            Some(&b"a.json"[..])
        );
        assert_eq!(temporary_of(b".x.Ab3xYz.toolsift-tmp"), Some(&b"x"[..]));
        assert_eq!(temporary_of(b"a.json.Ab3xYz.toolsift-tmp"), None);
        assert_eq!(temporary_of(b".a.json.toolsift-tmp"), None);
        assert_eq!(temporary_of(b".a.json"), None);
    }

    #[test]
    fn a_backup_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.json");
        let backup = dir.path().join("a.json.orig");
        fs::write(&input, "original").unwrap();
        keep_original(&input, &backup).unwrap();
        assert_eq!(fs::read(&backup).unwrap(), b"original");
        // The same file again (a run stopped after the backup): kept.
        keep_original(&input, &backup).unwrap();
        // Another file at the backup's name: refused, untouched.
        write_atomic(&input, b"converted").unwrap();
        let e = keep_original(&input, &backup).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&backup).unwrap(), b"original");
        // The copy made where links cannot be: never over a file.
        let e = copy_without_replacing(&input, &backup).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&backup).unwrap(), b"original");
        let copy = dir.path().join("b.orig");
        copy_without_replacing(&input, &copy).unwrap();
        assert_eq!(fs::read(&copy).unwrap(), b"converted");
    }

    #[test]
    fn reasons_name_no_temporary_file() {
        let e = io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Permission denied (os error 13) at path \"/d/.x.json.wlO7ME.toolsift-tmp\"",
        );
        assert_eq!(reason(&e), "Permission denied");
    }
}
