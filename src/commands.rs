//! The subcommands: glue from parsed arguments to the pipeline.

use crate::ExitCode;
use crate::atomic::AtomicFile;
use crate::cli::{
    Cli, Command, DialectsArgs, ExtractArgs, InputFormat, ReasoningMode, ScanArgs, ToolsCommand,
};
use crate::contracts::Contracts;
use crate::diag::Diag;
use crate::dialects::{self, Channel};
use crate::engine::{Engine, Options, Reasoning, Stats};
use crate::input::{Framing, Reader};
use crate::model::Role;
use crate::output::Output;
use crate::walk::{self, FileId, WalkOptions};
use anyhow::{Context, Result, bail};
use std::cell::RefCell;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Extract(args) => extract(args),
        Command::Check(args) => crate::check::run(args),
        Command::Tools(ToolsCommand::Render(args)) => crate::render::run(args),
        Command::Dialects(args) => list_dialects(args),
        Command::Convert(args) => crate::convert::run(args),
        Command::Schema(args) => {
            let crate::cli::SchemaArgs { which } = args;
            match which {
                crate::cli::SchemaKind::Transcript => {
                    let mut out = io::stdout().lock();
                    out.write_all(crate::convert::canonical::SCHEMA.as_bytes())?;
                    out.flush()?;
                }
            }
            Ok(ExitCode::Success)
        }
    }
}

fn framing(input: InputFormat) -> Framing {
    match input {
        InputFormat::Auto => Framing::Auto,
        InputFormat::Text => Framing::Text,
        InputFormat::Json => Framing::Json,
        InputFormat::Jsonl => Framing::Jsonl,
        InputFormat::Sse => Framing::Sse,
        InputFormat::Yaml => Framing::Yaml,
    }
}

/// The engine's options from the shared scan arguments.
pub(crate) fn options(args: &ScanArgs, with_results: bool, with_text: bool) -> Result<Options> {
    let mut formats = Vec::new();
    for name in &args.formats {
        let channel: Channel = name
            .parse()
            .map_err(anyhow::Error::msg)
            .context("--formats")?;
        if !formats.contains(&channel) {
            formats.push(channel);
        }
    }
    let mut roles = Vec::new();
    for name in &args.roles {
        match Role::from_name(name.trim()) {
            Some(role) => roles.push(role),
            None => {
                bail!("--roles: unknown role '{name}' (expected assistant, user, system or tool)")
            }
        }
    }
    let registry = dialects::dialect_file::load(&args.dialect_file)?;
    let known: Vec<String> = dialects::all_rows(registry)
        .into_iter()
        .map(|r| r.name)
        .collect();
    if let Some(selected) = &args.dialects {
        for name in selected {
            if !known.contains(name) {
                bail!("--dialects: unknown dialect '{name}' (see `toolsift dialects`)");
            }
        }
    }
    Ok(Options {
        formats,
        all: args.all,
        with_results,
        with_text,
        roles,
        dialects: args.dialects.clone(),
        contracts: std::sync::Arc::new(Contracts::load(&args.tools)?),
        registry,
        strict: args.strict,
        reasoning: match args.reasoning {
            ReasoningMode::Include => Reasoning::Include,
            ReasoningMode::Exclude => Reasoning::Exclude,
            ReasoningMode::Fallback => Reasoning::Fallback,
        },
    })
}

/// The options, or the usage error already reported.
pub(crate) fn options_or_report(
    args: &ScanArgs,
    with_results: bool,
    with_text: bool,
) -> Option<Options> {
    match options(args, with_results, with_text) {
        Ok(o) => Some(o),
        Err(e) => {
            Diag::default().error("usage", None, format!("{e:#}"));
            None
        }
    }
}

fn extract(args: ExtractArgs) -> Result<ExitCode> {
    let Some(options) = options_or_report(&args.scan, args.with_results, args.with_text) else {
        return Ok(ExitCode::Error);
    };
    let diag = Diag::new(args.scan.quiet);
    let Some(files) = inputs(&args.files, &args.scan, args.output.as_deref(), &diag) else {
        return Ok(ExitCode::Error);
    };
    let file = match &args.output {
        Some(path) => match OutputFile::create(path, &diag) {
            Some(f) => Some(f),
            None => return Ok(ExitCode::Error),
        },
        None => None,
    };
    let sink: Box<dyn Write> = match &file {
        Some(f) => Box::new(f.clone()),
        None => Box::new(BufWriter::with_capacity(64 * 1024, io::stdout().lock())),
    };
    // A person watching a terminal sees each record as it is found.
    let interactive = args.output.is_none() && io::stdout().is_terminal();
    let validated = !options.contracts.is_empty();
    let mut out = Output::new(sink, args.line_buffered || interactive).validated(validated);
    // Plain text is scanned in windows unless its text is wanted back whole.
    let window = if args.with_text { 0 } else { text_window() };
    let cores = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let jobs = cores.clamp(1, files.len().max(1));
    let run = || -> Result<Stats> {
        let stats = if jobs > 1 && !files.iter().any(|f| f.as_os_str() == "-") {
            parallel(&files, jobs, &args.scan, window, &options, &mut out, &diag)?
        } else {
            let mut engine = Engine::new(options, &mut out);
            read_sources(
                &files,
                &args.scan,
                window,
                cores > 1,
                &mut engine,
                &diag,
                |_, _| Ok(()),
            )?;
            std::mem::take(&mut engine.stats)
        };
        out.flush()?;
        Ok(stats)
    };
    let result = run();
    drop(out);
    let Some(stats) = finish(result, file, &diag)? else {
        return Ok(ExitCode::Error);
    };
    if args.stats {
        eprint!("{}", stats.report());
    }
    Ok(if diag.errored() {
        ExitCode::Error
    } else {
        ExitCode::Success
    })
}

/// The files to read, never the `-o` file; `None`, reported, when `-o` names one of the
/// inputs (it would be replaced while it is read).
pub(crate) fn inputs(
    files: &[PathBuf],
    scan: &ScanArgs,
    output: Option<&Path>,
    diag: &Diag,
) -> Option<Vec<PathBuf>> {
    let mut exclude = HashSet::new();
    // A FIFO or device is written to, not replaced (`extract /dev/stdin -o /dev/stdout`
    // may name one terminal twice).
    let replaced = output.filter(|o| std::fs::metadata(o).map_or(true, |m| m.is_file()));
    if let Some(output) = replaced {
        let id = FileId::of(output).ok();
        let named = files
            .iter()
            .filter(|f| f.as_os_str() != "-" && !f.is_dir())
            .any(|f| match &id {
                Some(id) => FileId::of(f).ok().as_ref() == Some(id),
                None => canonical(f).is_some_and(|f| Some(f) == canonical(output)),
            });
        if named {
            let shown = output.to_string_lossy();
            let message = format!("-o {shown} is also an input; write the output elsewhere");
            diag.error("usage", None, message);
            return None;
        }
        exclude.extend(id);
    }
    let opts = WalkOptions {
        follow: scan.follow,
        exclude,
    };
    Some(walk::paths(files, &opts, diag))
}

/// The canonical path of a file that may not exist yet (its directory's, joined).
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// The `-o` file, shared by the writer that fills it and the run that puts it in place.
#[derive(Clone)]
pub(crate) struct OutputFile {
    path: PathBuf,
    file: Rc<RefCell<AtomicFile>>,
}

/// A failed write to the `-o` file: ends the run, where a failed read skips a file.
#[derive(Debug)]
struct WriteFailed(io::Error);

impl std::fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&io_reason(&self.0))
    }
}

impl std::error::Error for WriteFailed {}

fn write_failed(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), WriteFailed(e))
}

impl OutputFile {
    /// The file, or `None` with the reason reported.
    pub(crate) fn create(path: &Path, diag: &Diag) -> Option<OutputFile> {
        match AtomicFile::create(path) {
            Ok(f) => Some(OutputFile {
                path: path.to_path_buf(),
                file: Rc::new(RefCell::new(f)),
            }),
            Err(e) => {
                let reason = format!("cannot create: {}", io_reason(&e));
                diag.error(&path.to_string_lossy(), None, reason);
                None
            }
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.borrow_mut().write(buf).map_err(write_failed)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.borrow_mut().write_all(buf).map_err(write_failed)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.borrow_mut().flush().map_err(write_failed)
    }
}

/// Ends a run: with `-o`, the file is put in place when every write succeeded, and
/// otherwise the old one stays and the reason is reported against the file (`None`).
/// Without `-o`, an error is the caller's. Every other copy of `file` must be dropped.
pub(crate) fn finish<T>(
    result: Result<T>,
    file: Option<OutputFile>,
    diag: &Diag,
) -> Result<Option<T>> {
    let Some(file) = file else {
        return result.map(Some);
    };
    let name = file.path.to_string_lossy().into_owned();
    let atomic = Rc::into_inner(file.file)
        .expect("the output's writer is dropped before the run ends")
        .into_inner();
    let failed = match result {
        Ok(value) => match atomic.commit() {
            Ok(()) => return Ok(Some(value)),
            Err(e) => io_reason(&e),
        },
        Err(e) => match e.chain().find_map(|c| c.downcast_ref::<io::Error>()) {
            Some(io) => io_reason(io),
            None => format!("{e:#}"),
        },
    };
    diag.error(&name, None, failed);
    Ok(None)
}

/// `-j N`: files are read by N workers, each into a buffer of records, and written in
/// the order of the files as soon as every earlier file is written.
fn parallel(
    files: &[PathBuf],
    jobs: usize,
    scan: &ScanArgs,
    window: usize,
    options: &Options,
    out: &mut Output,
    diag: &Diag,
) -> Result<Stats> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    let next = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::channel::<(usize, io::Result<Vec<u8>>)>();
    let mut stats = Stats::default();
    std::thread::scope(|scope| -> Result<()> {
        let mut workers = Vec::new();
        for _ in 0..jobs {
            let done_tx = done_tx.clone();
            let next = &next;
            let options = options.clone();
            workers.push(scope.spawn(move || {
                let buffer = SharedBuffer::default();
                let mut out = Output::new(Box::new(buffer.clone()), false)
                    .validated(!options.contracts.is_empty());
                let mut engine = Engine::new(options, &mut out);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    // Every core has a file of its own: one thread per file.
                    let result = read_sources(
                        std::slice::from_ref(file),
                        scan,
                        window,
                        false,
                        &mut engine,
                        diag,
                        |_, _| Ok(()),
                    )
                    .map_err(io::Error::other)
                    .and_then(|()| engine.output().flush())
                    .map(|()| buffer.take());
                    let failed = result.is_err();
                    if done_tx.send((i, result)).is_err() || failed {
                        break;
                    }
                }
                std::mem::take(&mut engine.stats)
            }));
        }
        drop(done_tx);
        // Records go out in file order: finished files wait for the earlier ones.
        let mut pending = std::collections::BTreeMap::new();
        let mut written = 0;
        for (i, result) in done_rx {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&written) {
                out.write_raw(&result?)?;
                written += 1;
            }
        }
        for worker in workers {
            stats.merge(worker.join().expect("a worker panicked"));
        }
        Ok(())
    })?;
    Ok(stats)
}

/// A buffer a worker's records go into, taken whole after each file.
#[derive(Clone, Default)]
struct SharedBuffer(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl SharedBuffer {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The plain-text window: 6 MiB, or `TOOLSIFT_TEXT_WINDOW` (0 reads text whole).
pub(crate) fn text_window() -> usize {
    std::env::var("TOOLSIFT_TEXT_WINDOW")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(crate::input::TEXT_WINDOW)
}

/// Reads every source through the engine, in order. A file that cannot be read is
/// reported and skipped; `done` runs after each source that was read.
pub(crate) fn read_sources(
    files: &[PathBuf],
    scan: &ScanArgs,
    window: usize,
    pipeline: bool,
    engine: &mut Engine,
    diag: &Diag,
    mut done: impl FnMut(&str, &mut Engine) -> io::Result<()>,
) -> Result<()> {
    for path in files {
        let name = path.to_string_lossy().into_owned();
        let path = path.as_path();
        let mut regular_file = false;
        let mut input: Box<dyn io::BufRead + Send> = if name == "-" {
            if io::stdin().is_terminal() {
                diag.warn(
                    "-",
                    None,
                    "reading standard input from the terminal (end it with Ctrl-D; see --help)",
                );
            }
            Box::new(BufReader::with_capacity(256 * 1024, io::stdin()))
        } else {
            match File::open(path) {
                Ok(f) => {
                    regular_file = f.metadata().is_ok_and(|m| m.is_file());
                    Box::new(BufReader::with_capacity(256 * 1024, f))
                }
                Err(e) => {
                    diag.error(&name, None, io_reason(&e));
                    continue;
                }
            }
        };
        engine.start_source(&name);
        let mut sink = |event| engine.event(event);
        let result = Reader::new(&name, diag, &mut sink)
            .with_window(window)
            .with_pipeline(pipeline && regular_file)
            .read(&mut *input, framing(scan.input));
        match result {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e.into()),
            Err(e) if is_write_error(&e) => return Err(e.into()),
            Err(e) => diag.error(&name, None, io_reason(&e)),
        }
        done(&name, engine)?;
    }
    Ok(())
}

/// Read errors are reported per file; write errors end the run.
fn is_write_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WriteZero | io::ErrorKind::StorageFull
    ) || e.get_ref().is_some_and(|e| e.is::<WriteFailed>())
}

/// The reason of an I/O error without the "(os error N)" suffix.
pub(crate) fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn list_dialects(args: DialectsArgs) -> Result<ExitCode> {
    let registry = dialects::dialect_file::load(&args.dialect_file)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let rows = dialects::all_rows(registry);
    if args.json {
        for row in &rows {
            let v = serde_json::json!({"name": row.name, "channel": row.channel.name(), "models": row.models, "summary": row.summary, "example": row.example});
            writeln!(out, "{v}")?;
        }
    } else {
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        writeln!(out, "{:width$}  CHANNEL  SUMMARY", "DIALECT")?;
        for row in &rows {
            writeln!(
                out,
                "{:width$}  {:7}  {}",
                row.name,
                row.channel.name(),
                row.summary
            )?;
            if !row.models.is_empty() {
                writeln!(out, "{:width$}           models: {}", "", row.models)?;
            }
            writeln!(
                out,
                "{:width$}           e.g. {}",
                "",
                row.example.replace('\n', "\\n")
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::Success)
}
