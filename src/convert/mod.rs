//! `toolsift convert`: whole transcripts from one format to another, above all old XML
//! tool-call histories to JSON, losing nothing that is not a call.
//!
//! bytes -> documents (`frame`) -> [`model::Transcript`] (`read`, and the format
//! readers) -> calls and results cut out of text (`split`, `results`) -> pairing
//! (`pair`) -> a writer (`write`) -> bytes; `verify` reads the output back.

pub mod canonical;
pub mod emit;
pub mod frame;
pub mod gemini;
pub mod model;
pub mod pair;
pub mod read;
pub mod responses;
pub mod results;
pub mod sessions;
pub mod split;
pub mod turns;
pub mod verify;
pub mod write;

use crate::ExitCode;
use crate::cli::{ConvertArgs, ConvertFormat};
use crate::diag::Diag;
use crate::engine::{Engine, Options, Reasoning};
use crate::output::Output;
use anyhow::{Context, Result, anyhow, bail};
use model::{Format, Part, Role, Transcript};
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use write::{Notes, WriteOptions};

pub fn format_of(f: ConvertFormat) -> Format {
    match f {
        ConvertFormat::Json => Format::Json,
        ConvertFormat::Openai => Format::Openai,
        ConvertFormat::Anthropic => Format::Anthropic,
        ConvertFormat::Gemini => Format::Gemini,
        ConvertFormat::Responses => Format::Responses,
        ConvertFormat::MandrakeJson => Format::MandrakeJson,
        ConvertFormat::Xml => Format::Xml,
    }
}

/// What one file gave: its output, and counts for the summary.
#[derive(Default, Debug)]
pub struct Converted {
    pub output: Vec<u8>,
    pub conversations: usize,
    pub messages: usize,
    pub calls: usize,
    pub results: usize,
    /// Lines for stderr (what the target could not hold, results with no call).
    pub warnings: Vec<String>,
    /// What `--verify` found would be lost.
    pub differences: Vec<String>,
}

/// How one conversion is done.
pub struct Settings {
    pub to: Format,
    pub from: Option<Format>,
    pub write: WriteOptions,
    pub compact: bool,
    pub verify: bool,
    pub options: Options,
}

impl Settings {
    /// A fresh engine for finding calls in text (one per thread).
    fn engine_output() -> Output {
        Output::collecting()
    }
}

/// Converts one file's bytes. Errors fail the file: input that cannot be kept exactly
/// (invalid UTF-8, a lone surrogate) or that holds no conversation.
/// Converts one file's bytes. `walked`: the file was found in a directory argument, where
/// plain text is not taken for a conversation (a README beside the histories is not one)
/// and fails with [`NotAConversation`].
pub fn convert_bytes(bytes: &[u8], settings: &Settings, walked: bool) -> Result<Converted> {
    let text = match simdutf8::basic::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => {
            let e = std::str::from_utf8(bytes).expect_err("simdutf8 found it invalid");
            let line = 1 + memchr::memchr_iter(b'\n', &bytes[..e.valid_up_to()]).count();
            bail!("line {line}: invalid UTF-8; a conversion cannot keep it exactly");
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match convert_documents(text, settings) {
        Err(e) if e.downcast_ref::<frame::NotADocument>().is_some() => {
            if walked
                && e.downcast_ref::<frame::NotADocument>()
                    .is_some_and(|n| n.0 == "plain text")
            {
                return Err(anyhow::Error::new(NotAConversation));
            }
            turns::convert(text, &e.to_string(), settings)
        }
        other => other,
    }
}

/// Converts input framed as conversation documents (see [`frame`]).
fn convert_documents(text: &str, settings: &Settings) -> Result<Converted> {
    let framed = frame::frame(text)?;
    let mut sink = Settings::engine_output();
    let mut engine = Engine::new(settings.options.clone(), &mut sink);
    let mut out = Converted::default();
    let mut notes = Notes::default();
    let lines = framed.lines();
    for (n, doc) in framed.docs.iter().enumerate() {
        let at = |e: anyhow::Error| match lines {
            true => anyhow!("line {}: {e:#}", doc.line),
            false => e,
        };
        let t = transcript(&doc.text, settings.from, &mut engine, n).map_err(at)?;
        let prefix = if lines {
            format!("line {}: ", doc.line)
        } else {
            String::new()
        };
        emit(
            t,
            n,
            settings,
            &mut engine,
            &mut out,
            &mut notes,
            !lines,
            &prefix,
        )
        .map_err(at)?;
    }
    out.warnings = notes.lines();
    Ok(out)
}

/// Pairs one conversation's results with its calls, writes it as the target, and
/// (`--verify`) reads the output back and compares. `document`: written as a document
/// (indented unless `--compact`), else on one line.
#[allow(clippy::too_many_arguments)]
fn emit(
    mut t: Transcript,
    n: usize,
    settings: &Settings,
    engine: &mut Engine,
    out: &mut Converted,
    notes: &mut Notes,
    document: bool,
    prefix: &str,
) -> Result<()> {
    out.conversations += 1;
    out.messages += t.messages.len();
    for p in t.messages.iter().flat_map(|m| &m.parts) {
        match p {
            Part::Call(_) => out.calls += 1,
            Part::Result(_) => out.results += 1,
            _ => {}
        }
    }
    let pairing = pair::pair(&mut t, n);
    if pairing.orphans > 0 {
        notes.add(format!(
            "{} result(s) with no call before them to answer",
            pairing.orphans
        ));
    }
    let mut doc_notes = Notes::default();
    let j = write::write(&t, settings.to, settings.write, &mut doc_notes);
    let rendered = j.render(document && !settings.compact);
    if settings.verify {
        let mut back = transcript(&rendered, Some(settings.to), engine, n)?;
        pair::pair(&mut back, n);
        for d in verify::compare(&t, &back, settings.to) {
            out.differences.push(format!("{prefix}{d}"));
        }
    }
    notes.merge(doc_notes);
    out.output.extend_from_slice(rendered.as_bytes());
    out.output.push(b'\n');
    Ok(())
}

/// One document as a transcript, its text cut around calls and results.
fn transcript(
    text: &str,
    from: Option<Format>,
    engine: &mut Engine,
    conversation: usize,
) -> Result<Transcript> {
    let doc = crate::json::Doc::parse(text).map_err(|e| anyhow!("not JSON: {e}"))?;
    let mut t = read::transcript(doc.root(), from)?.ok_or_else(|| {
        anyhow::Error::new(frame::NotADocument(
            "no conversation of a known shape (messages, contents or input items)".into(),
        ))
    })?;
    let _ = conversation;
    // The canonical transcript is cut already: its text parts are text.
    if !t.cut {
        split::split(&mut t.messages, engine, &[Role::Assistant], t.origin);
    }
    // A history whose calls were written in text is in that dialect's format.
    if from.is_none() && matches!(t.source, Some(Format::Openai) | None) {
        let dialects: Vec<&str> = t
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Call(c) => c.written.as_ref().map(|w| w.dialect.as_str()),
                _ => None,
            })
            .collect();
        if dialects.contains(&crate::dialects::mandrake_xml::NAME) {
            t.source = Some(Format::Xml);
        } else if dialects.contains(&"mandrake-json") {
            t.source = Some(Format::MandrakeJson);
        }
    }
    Ok(t)
}

/// The engine's options for finding calls in message text.
fn options(args: &ConvertArgs) -> Result<Options> {
    let registry = crate::dialects::dialect_file::load(&args.dialect_file)?;
    if let Some(selected) = &args.dialects {
        let known: Vec<String> = crate::dialects::all_rows(registry)
            .into_iter()
            .map(|r| r.name)
            .collect();
        for name in selected {
            if !known.contains(name) {
                bail!("--dialects: unknown dialect '{name}' (see `toolsift dialects`)");
            }
        }
    }
    Ok(Options {
        formats: crate::dialects::Channel::ALL.to_vec(),
        // Every channel's calls: a JSON call quoted inside an XML call's arguments is
        // part of that call, which only the spans of both can tell (see `split`).
        all: true,
        with_results: false,
        with_text: false,
        roles: vec![crate::model::Role::Assistant],
        dialects: args.dialects.clone(),
        contracts: std::sync::Arc::new(crate::contracts::Contracts::load(&args.tools)?),
        registry,
        strict: false,
        // A call quoted in the model's reasoning is part of that reasoning.
        reasoning: Reasoning::Exclude,
    })
}

/// Where one input's output goes.
enum Destination {
    Stdout,
    File(PathBuf),
}

/// A file found in a directory that holds no conversation (plain text): skipped.
#[derive(Debug)]
pub struct NotAConversation;

impl std::fmt::Display for NotAConversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("plain text, not a conversation; skipped (name the file to convert it)")
    }
}

impl std::error::Error for NotAConversation {}

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

pub fn run(args: ConvertArgs) -> Result<ExitCode> {
    let diag = Diag::new(args.quiet);
    if args.in_place && args.backup.is_none() && !args.no_backup {
        diag.fail("--in-place needs --backup SUFFIX or --no-backup");
        return Ok(ExitCode::Error);
    }
    if args.backup.as_deref().is_some_and(str::is_empty) {
        diag.fail("--backup needs a non-empty suffix");
        return Ok(ExitCode::Error);
    }
    let options = match options(&args) {
        Ok(o) => {
            for (file, note) in &o.contracts.notes {
                diag.warn(file, None, note);
            }
            o
        }
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    let settings = Settings {
        to: format_of(args.to),
        from: args.from.map(format_of),
        write: WriteOptions { wrap: args.wrap },
        compact: args.compact,
        verify: args.verify,
        options,
    };
    let jobs = match plan(&args, &diag) {
        Ok(jobs) => jobs,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    let summary = execute(&jobs, &settings, &args, threads, &diag)?;
    if jobs.len() > 1 || args.verify || args.dry_run || summary.failed > 0 {
        let _ = writeln!(
            io::stderr().lock(),
            "toolsift: {}",
            summary.line(args.dry_run)
        );
    }
    Ok(if diag.errored() {
        ExitCode::Error
    } else if summary.failed > 0 || summary.lossy > 0 {
        ExitCode::Findings
    } else {
        ExitCode::Success
    })
}

/// The inputs and where each goes.
fn plan(args: &ConvertArgs, diag: &Diag) -> Result<Vec<Job>> {
    let files = walk_inputs(args, diag);
    if args.output.is_some() && files.len() > 1 {
        bail!("-o takes one input; use --out-dir for several");
    }
    let mut jobs = Vec::new();
    for (input, root) in files {
        let name = input.to_string_lossy().into_owned();
        let stdin = name == "-";
        if stdin && (args.in_place || args.out_dir.is_some()) {
            bail!("standard input cannot be converted with --in-place or --out-dir");
        }
        let (destination, backup) = if let Some(out) = &args.output {
            if same_file(out, &input) {
                bail!(
                    "{}: -o names an input; it would be overwritten",
                    out.display()
                );
            }
            (Destination::File(out.clone()), None)
        } else if let Some(dir) = &args.out_dir {
            let relative = match &root {
                Some(root) => input.strip_prefix(root).unwrap_or(&input).to_path_buf(),
                None => PathBuf::from(input.file_name().unwrap_or_default()),
            };
            (Destination::File(dir.join(relative)), None)
        } else if args.in_place {
            let backup = args.backup.as_ref().map(|suffix| {
                let mut b = input.clone().into_os_string();
                b.push(suffix);
                PathBuf::from(b)
            });
            (Destination::File(input.clone()), backup)
        } else {
            (Destination::Stdout, None)
        };
        jobs.push(Job {
            walked: root.is_some(),
            input,
            name,
            destination,
            backup,
        });
    }
    // Two inputs must not write one output (two roots holding the same relative path).
    let mut seen = std::collections::HashSet::new();
    for j in &jobs {
        if let Destination::File(p) = &j.destination
            && !seen.insert(p.clone())
        {
            bail!(
                "{}: two inputs would be written to this one output",
                p.display()
            );
        }
    }
    Ok(jobs)
}

/// The files named, directories walked (each file with the directory it came from).
/// Outputs already written under `--out-dir` are never read as inputs.
fn walk_inputs(args: &ConvertArgs, diag: &Diag) -> Vec<(PathBuf, Option<PathBuf>)> {
    if args.files.is_empty() {
        return vec![("-".into(), None)];
    }
    let opts = crate::walk::WalkOptions {
        follow: args.follow,
        ..Default::default()
    };
    let out_dir = args
        .out_dir
        .as_ref()
        .and_then(|d| std::fs::canonicalize(d).ok());
    crate::walk::walk(&args.files, &opts, diag)
        .into_iter()
        .filter(|w| {
            w.root.is_none()
                || out_dir.as_ref().is_none_or(|out| {
                    std::fs::canonicalize(&w.path).map_or(true, |p| !p.starts_with(out))
                })
        })
        .map(|w| (w.path, w.root))
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[derive(Default)]
struct Summary {
    files: usize,
    written: usize,
    conversations: usize,
    messages: usize,
    calls: usize,
    results: usize,
    warnings: usize,
    failed: usize,
    /// Files whose conversion --verify found lossy.
    lossy: usize,
    skipped: usize,
    /// Files in a directory that hold no conversation.
    not_conversations: usize,
}

impl Summary {
    fn line(&self, dry_run: bool) -> String {
        let plural = |n: usize, one, many| crate::diag::plural(n as u64, one, many);
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
        if self.lossy > 0 {
            s.push_str(&format!(", {} would lose something", self.lossy));
        }
        if self.not_conversations > 0 {
            s.push_str(&format!(
                ", {} (plain text)",
                plural(
                    self.not_conversations,
                    "not a conversation",
                    "not conversations"
                )
            ));
        }
        if self.skipped > 0 {
            s.push_str(&format!(
                ", {} skipped (output exists; --force)",
                self.skipped
            ));
        }
        if dry_run {
            s.push_str(&format!(", {} would be written (dry run)", self.written));
        }
        s
    }
}

/// Converts every job on `threads` workers; stdout output comes in input order.
fn execute(
    jobs: &[Job],
    settings: &Settings,
    args: &ConvertArgs,
    threads: usize,
    diag: &Diag,
) -> Result<Summary> {
    let summary = Mutex::new(Summary {
        files: jobs.len(),
        ..Summary::default()
    });
    let next = AtomicUsize::new(0);
    let progress = Progress::new(jobs.len());
    // Stdout outputs wait here until every earlier one is written.
    let ordered: Mutex<(usize, std::collections::BTreeMap<usize, Vec<u8>>)> =
        Mutex::new((0, std::collections::BTreeMap::new()));
    // Every job writes to standard output, or every job to a file of its own.
    let stdout_error: Mutex<Option<io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    if stdout_error.lock().is_ok_and(|e| e.is_some()) {
                        break;
                    }
                    let outcome = one(job, settings, args, diag, &progress);
                    let stdout_bytes = {
                        let mut s = summary.lock().expect("no panics hold it");
                        match outcome {
                            Ok((converted, wrote)) => {
                                s.conversations += converted.conversations;
                                s.messages += converted.messages;
                                s.calls += converted.calls;
                                s.results += converted.results;
                                s.warnings += converted.warnings.len();
                                match wrote {
                                    Wrote::Yes => s.written += 1,
                                    Wrote::Skipped => s.skipped += 1,
                                    Wrote::Stdout => {}
                                }
                                if !converted.differences.is_empty() {
                                    s.lossy += 1;
                                }
                                matches!(job.destination, Destination::Stdout)
                                    .then_some(converted.output)
                            }
                            Err(e) if e.downcast_ref::<NotAConversation>().is_some() => {
                                s.not_conversations += 1;
                                drop(s);
                                progress.suspend(|| diag.warn(&job.name, None, e));
                                matches!(job.destination, Destination::Stdout).then(Vec::new)
                            }
                            Err(e) => {
                                s.failed += 1;
                                drop(s);
                                // A failed file is counted (exit 1), not an I/O error of
                                // the run (exit 2); it is said even with -q.
                                progress.suspend(|| diag.report(&job.name, None, format!("{e:#}")));
                                matches!(job.destination, Destination::Stdout).then(Vec::new)
                            }
                        }
                    };
                    progress.inc();
                    if let Some(bytes) = stdout_bytes {
                        let mut o = ordered.lock().expect("no panics hold it");
                        o.1.insert(i, bytes);
                        loop {
                            let at = o.0;
                            let Some(bytes) = o.1.remove(&at) else { break };
                            o.0 += 1;
                            let mut failed = stdout_error.lock().expect("no panics hold it");
                            if failed.is_none() {
                                let mut out = io::stdout().lock();
                                if let Err(e) = out.write_all(&bytes).and_then(|()| out.flush()) {
                                    *failed = Some(e);
                                }
                            }
                        }
                    }
                }
            });
        }
    });
    progress.finish();
    // A closed pipe (`| head`) ends the run quietly; any other failure is reported.
    if let Some(e) = stdout_error.into_inner().expect("no panics hold it")
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        diag.fail(format!(
            "standard output: {}",
            crate::pipeline::io_reason(&e)
        ));
    }
    Ok(summary.into_inner().expect("no panics hold it"))
}

enum Wrote {
    Yes,
    Skipped,
    Stdout,
}

/// Converts one input and writes its output (unless to stdout, or a dry run).
fn one(
    job: &Job,
    settings: &Settings,
    args: &ConvertArgs,
    diag: &Diag,
    progress: &Progress,
) -> Result<(Converted, Wrote)> {
    let bytes = read_input(&job.input).with_context(|| "cannot read".to_string())?;
    let converted = convert_bytes(&bytes, settings, job.walked)?;
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
    let Destination::File(path) = &job.destination else {
        return Ok((converted, Wrote::Stdout));
    };
    if args.out_dir.is_some() && !args.force && path.exists() {
        diag.warn(
            &job.name,
            None,
            format!(
                "{}: exists; not overwritten (--force replaces it)",
                path.display()
            ),
        );
        return Ok((converted, Wrote::Skipped));
    }
    if args.dry_run {
        diag.warn(
            &job.name,
            None,
            format!(
                "would write {} ({} bytes)",
                path.display(),
                converted.output.len()
            ),
        );
        return Ok((converted, Wrote::Yes));
    }
    if let Some(backup) = &job.backup {
        std::fs::copy(&job.input, backup)
            .with_context(|| format!("{}: cannot write the backup", backup.display()))?;
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create the directory", parent.display()))?;
    }
    write_atomic(path, &converted.output)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok((converted, Wrote::Yes))
}

fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        io::stdin().lock().read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// A progress bar on stderr when it is a terminal and there is more than one file.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(files: usize) -> Progress {
        if files < 2 || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(files as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:40}] {pos}/{len} files, {elapsed} elapsed, eta {eta}",
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

/// Writes `bytes` through a temporary file beside `path`, renamed over it when
/// complete: a kill or a full disk leaves the old file or the new one, never half.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = crate::atomic::AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}
