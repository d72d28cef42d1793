//! What `extract`, `check` and `convert` share between parsed arguments and the
//! pipeline: the engine's options, the inputs (directories walked, never the output),
//! the `-o` file written whole or not at all, and reading every source through the
//! engine.

use crate::atomic::AtomicFile;
use crate::cli::{BatchArgs, InputFormat, ReasoningMode, ScanArgs};
use crate::contracts::Contracts;
use crate::diag::Diag;
use crate::diag::io_reason;
use crate::dialects::{self, Channel};
use crate::engine::{Engine, Options, Reasoning, Stats};
use crate::input::{Framing, Reader, compressed};
use crate::model::Role;
use crate::output::Output;
use crate::walk::{self, FileId, WalkOptions, Walked};
use anyhow::{Context, Result, bail};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How standard output is named in messages.
pub(crate) const STDOUT: &str = "standard output";

fn framing(input: InputFormat) -> Framing {
    match input {
        InputFormat::Auto => Framing::Auto,
        InputFormat::Text => Framing::Text,
        InputFormat::Json => Framing::Json,
        InputFormat::Jsonl => Framing::Jsonl,
        InputFormat::Sse => Framing::Sse,
        InputFormat::Yaml => Framing::Yaml,
        InputFormat::Http => Framing::Http,
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
        contracts: std::sync::Arc::new(Contracts::load_under(
            &args.tools,
            args.schema_root.as_deref(),
        )?),
        registry,
        strict: args.strict,
        reasoning: match args.reasoning {
            ReasoningMode::Include => Reasoning::Include,
            ReasoningMode::Exclude => Reasoning::Exclude,
            ReasoningMode::Fallback => Reasoning::Fallback,
        },
        manifest: None,
    })
}

/// The options, or the usage error already reported.
pub(crate) fn options_or_report(
    args: &ScanArgs,
    with_results: bool,
    with_text: bool,
) -> Option<Options> {
    match options(args, with_results, with_text) {
        Ok(o) => {
            let diag = Diag::new(args.quiet);
            for (file, note) in &o.contracts.notes {
                diag.warn(file, None, note);
            }
            Some(o)
        }
        Err(e) => {
            Diag::default().fail(crate::diag::without_os_error(&format!("{e:#}")));
            None
        }
    }
}

/// What a run reads.
pub(crate) struct Inputs {
    /// The files, in order (`-` is standard input).
    pub(crate) files: Vec<PathBuf>,
    /// The paths named as arguments or listed by `--files-from`.
    pub(crate) named: Vec<PathBuf>,
    /// The files found before `--shard` kept its own.
    pub(crate) unsharded: usize,
}

/// The paths named: the arguments, then those of the `--files-from` list. No argument
/// and no list is standard input. An error is a usage error: a list that cannot be
/// read, or `--files-from -` with standard input named as data too.
pub(crate) fn named(files: &[PathBuf], batch: &BatchArgs) -> Result<Vec<PathBuf>> {
    let Some(list) = &batch.files_from else {
        if files.is_empty() {
            return Ok(vec!["-".into()]);
        }
        return Ok(files.to_vec());
    };
    let from_stdin = list.as_os_str() == "-";
    let bytes = if from_stdin {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::stdin().lock(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(list)
    }
    .map_err(|e| {
        anyhow::anyhow!(
            "--files-from {}: {}",
            if from_stdin {
                "-: standard input".into()
            } else {
                list.to_string_lossy()
            },
            io_reason(&e)
        )
    })?;
    let mut named = files.to_vec();
    named.extend(walk::parse_list(&bytes, batch.null));
    if from_stdin && named.iter().any(|f| f.as_os_str() == "-") {
        bail!(
            "--files-from - reads the list of files from standard input, which cannot be read as data too (drop '-', or give the list as a file)"
        );
    }
    Ok(named)
}

/// The walked files this run reads: `--shard`'s, checked against `--label` and
/// `--shard` (standard input is read by every shard, so it cannot be split). Also the
/// count before the shard.
pub(crate) fn select(walked: Vec<Walked>, batch: &BatchArgs) -> Result<(Vec<Walked>, usize)> {
    let stdin = walked.iter().any(|w| w.path.as_os_str() == "-");
    if let Some(label) = &batch.label
        && !stdin
    {
        bail!(
            "--label {label}: names standard input, which this run does not read (give no FILE, or '-')"
        );
    }
    let found = walked.len();
    let Some(shard) = batch.shard else {
        return Ok((walked, found));
    };
    if stdin {
        bail!(
            "--shard {}/{}: standard input cannot be split into shards; name the files (or --files-from LIST)",
            shard.index,
            shard.count
        );
    }
    let kept = walked
        .into_iter()
        .filter(|w| walk::in_shard(w, shard.index, shard.count))
        .collect();
    Ok((kept, found))
}

/// How standard input is named in records and messages: `--label`, or `-`.
pub(crate) fn source_name<'a>(path: &'a Path, batch: &'a BatchArgs) -> Cow<'a, str> {
    match (&batch.label, path.as_os_str() == "-") {
        (Some(label), true) => Cow::Borrowed(label),
        _ => path.to_string_lossy(),
    }
}

/// The files to read, never the `-o` file; `None`, reported, when `-o` names one of the
/// inputs (it would be replaced while it is read), or on a usage error.
pub(crate) fn inputs(
    files: &[PathBuf],
    scan: &ScanArgs,
    output: Option<&Path>,
    diag: &Diag,
) -> Option<Inputs> {
    let named = match named(files, &scan.batch) {
        Ok(n) => n,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return None;
        }
    };
    let files = &named[..];
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
            diag.fail(message);
            return None;
        }
        exclude.extend(id);
    }
    let globs = match walk::exclude_globs(&scan.exclude) {
        Ok(g) => g,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return None;
        }
    };
    let opts = WalkOptions {
        follow: scan.follow,
        exclude,
        globs,
    };
    let walked = walk::walk(files, &opts, diag);
    match select(walked, &scan.batch) {
        Ok((walked, unsharded)) => Some(Inputs {
            files: walked.into_iter().map(|w| w.path).collect(),
            named,
            unsharded,
        }),
        Err(e) => {
            diag.fail(format!("{e:#}"));
            None
        }
    }
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

/// Threads a run uses: `-j N` when given, else `TOOLSIFT_THREADS`, else the CPUs this
/// process may use (`available_parallelism` counts cgroup quotas and CPU affinity, so a
/// container limited to 2 CPUs gets 2). An invalid `TOOLSIFT_THREADS` is a usage error
/// naming it, whether `-j` is given or not; an empty one is unset.
pub(crate) fn threads(given: Option<usize>) -> Result<usize> {
    let var = match std::env::var_os(THREADS_VAR) {
        Some(v) if !v.is_empty() => Some(match v.to_str().map(str::parse::<usize>) {
            Some(Ok(n)) if n > 0 => n,
            _ => bail!(
                "{THREADS_VAR}={}: expected a positive integer (the threads to use; -j overrides it)",
                v.to_string_lossy()
            ),
        }),
        _ => None,
    };
    Ok(given
        .or(var)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())))
}

/// The environment variable that sets the default of `-j`.
pub(crate) const THREADS_VAR: &str = "TOOLSIFT_THREADS";

/// The plain-text window: 6 MiB, or `TOOLSIFT_TEXT_WINDOW` (0 reads text whole).
pub(crate) fn text_window() -> usize {
    std::env::var("TOOLSIFT_TEXT_WINDOW")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(crate::input::TEXT_WINDOW)
}

/// Reads every source through the engine, in order. A file that cannot be read is
/// reported and skipped; `done` runs after each source, read or not.
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
        let name = source_name(path, &scan.batch).into_owned();
        let path = path.as_path();
        let mut regular_file = false;
        // `--manifest`: the input's line, with its hash taken as it is read.
        let mut watch = engine
            .manifest
            .as_ref()
            .map(|_| crate::manifest::Watch::new(&name));
        let input: Box<dyn io::BufRead + Send> = if path.as_os_str() == "-" {
            if io::stdin().is_terminal() {
                diag.warn(
                    &name,
                    None,
                    "reading standard input from the terminal (end it with Ctrl-D; see --help)",
                );
            }
            match &mut watch {
                Some(w) => Box::new(BufReader::with_capacity(
                    256 * 1024,
                    w.reading(io::stdin(), None),
                )),
                None => Box::new(BufReader::with_capacity(256 * 1024, io::stdin())),
            }
        } else {
            match File::open(path) {
                Ok(mut f) => {
                    let meta = f.metadata();
                    regular_file = meta.as_ref().is_ok_and(|m| m.is_file());
                    match &mut watch {
                        Some(w) => {
                            if let Ok(meta) = &meta {
                                w.stat(meta);
                            }
                            let plan = engine.manifest.as_ref().map(|m| m.plan());
                            match plan.map(|p| w.unchanged(p, &mut f)) {
                                Some(Ok(true)) => {
                                    manifest_line(engine, watch, None, false);
                                    done(&name, engine)?;
                                    continue;
                                }
                                Some(Err(e)) => {
                                    diag.error(&name, None, io_reason(&e));
                                    w.error(&io_reason(&e));
                                    manifest_line(engine, watch, None, false);
                                    done(&name, engine)?;
                                    continue;
                                }
                                _ => {}
                            }
                            let rest = f.try_clone().ok();
                            let hashed = w.reading(f, rest);
                            Box::new(BufReader::with_capacity(256 * 1024, hashed))
                        }
                        None => Box::new(BufReader::with_capacity(256 * 1024, f)),
                    }
                }
                Err(e) => {
                    diag.error(&name, None, io_reason(&e));
                    if let Some(w) = &mut watch {
                        w.error(&io_reason(&e));
                    }
                    manifest_line(engine, watch, None, false);
                    done(&name, engine)?;
                    continue;
                }
            }
        };
        // Compressed data is read decoded, as a stream (never as a regular file).
        let mut input = match compressed::open(input) {
            Ok((input, found)) => {
                regular_file &= found.is_none();
                input
            }
            Err(e) => {
                diag.error(&name, None, io_reason(&e));
                if let Some(w) = &mut watch {
                    w.error(&io_reason(&e));
                }
                manifest_line(engine, watch, None, false);
                done(&name, engine)?;
                continue;
            }
        };
        engine.start_source(&name);
        let mut handed_on = false;
        let mut sink = |event| {
            handed_on = true;
            let written = engine.event(event);
            engine.take_notes(|line, message| diag.warn(&name, Some(line), message));
            written
        };
        let mut shape = None;
        let mut notes = crate::input::ReadNotes::default();
        let result = Reader::new(&name, diag, &mut sink)
            .with_window(window)
            .with_pipeline(pipeline && regular_file)
            .noting_shape(&mut shape)
            .noting_read(&mut notes)
            .read(&mut *input, framing(scan.input));
        drop(input);
        // JSON that no reader knows, with no call in its text either: said, never
        // dropped in silence.
        if let Some(shape) = shape
            && result.is_ok()
            && engine.source_calls() == 0
            && !engine.read_structure()
        {
            let message = format!("JSON of no known transcript shape ({shape}); no calls read");
            diag.warn(&name, None, message);
            engine.set_unknown_shape(shape);
        }
        if engine.notes_not_shown() > 0 {
            let more = engine.notes_not_shown();
            diag.warn(
                &name,
                None,
                format!(
                    "{} about blocks read as no call {} not shown",
                    crate::diag::plural(more, "more note", "more notes"),
                    if more == 1 { "was" } else { "were" }
                ),
            );
        }
        match result {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e.into()),
            Err(e) if is_write_error(&e) => return Err(e.into()),
            Err(e) => {
                diag.error(&name, None, io_reason(&e));
                if let Some(w) = &mut watch {
                    w.error(&io_reason(&e));
                }
            }
        }
        manifest_line(engine, watch, Some(&notes), handed_on);
        done(&name, engine)?;
    }
    Ok(())
}

/// Adds the manifest line of the input `watch` followed, if there is a manifest.
fn manifest_line(
    engine: &mut Engine,
    watch: Option<crate::manifest::Watch>,
    notes: Option<&crate::input::ReadNotes>,
    handed_on: bool,
) {
    let Some(watch) = watch else { return };
    // The records are the output's count only once the input was started.
    let (records, dialects) = match notes {
        Some(_) => {
            let out = engine.output();
            (out.file_records(), out.file_dialects().collect::<Vec<_>>())
        }
        None => (0, Vec::new()),
    };
    let entry = watch.finish(notes, handed_on, records, dialects.into_iter());
    if let Some(recorder) = &mut engine.manifest {
        recorder.add(entry);
    }
}

/// Output of a file read ahead is sent to the writer in chunks of this size.
const CHUNK: usize = 64 << 10;

/// Chunks of one file's output waiting for the writer at most: a worker on a file
/// ahead of the one being written waits once it has this much (4 MiB) waiting.
const CHUNKS_AHEAD: usize = 64;

/// What a worker sends about one file.
enum Piece {
    Records(Vec<u8>),
    /// The file is read (or failed); nothing follows.
    Done(io::Result<()>),
}

/// `-j N`: files are read by N workers and written in the order of the files. The file
/// being written streams as it is read; the output of files ahead of it waits in
/// bounded channels (a worker whose channel is full waits for the writer).
pub(crate) fn read_parallel(
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
    let (opened_tx, opened_rx) = mpsc::channel::<(usize, mpsc::Receiver<Piece>)>();
    let mut stats = Stats::default();
    std::thread::scope(|scope| -> Result<()> {
        let mut workers = Vec::new();
        for _ in 0..jobs {
            let opened_tx = opened_tx.clone();
            let next = &next;
            let options = options.clone();
            workers.push(scope.spawn(move || {
                let buffer = ChunkSender::default();
                let mut out = Output::new(Box::new(buffer.clone()), false)
                    .validated(!options.contracts.is_empty());
                let mut engine = Engine::new(options, &mut out);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let (tx, rx) = mpsc::sync_channel(CHUNKS_AHEAD);
                    if opened_tx.send((i, rx)).is_err() {
                        break;
                    }
                    buffer.start(tx);
                    if let Some(manifest) = &mut engine.manifest {
                        manifest.at(i);
                    }
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
                    .and_then(|()| buffer.send_rest());
                    let failed = result.is_err();
                    if !buffer.finish(result) || failed {
                        break;
                    }
                }
                std::mem::take(&mut engine.stats)
            }));
        }
        drop(opened_tx);
        // Records go out in file order: the file being written is drained as its
        // records come; later files wait in their channels.
        let mut opened = std::collections::BTreeMap::new();
        let mut written = 0;
        let mut run = || -> Result<()> {
            while written < files.len() {
                let rx = loop {
                    if let Some(rx) = opened.remove(&written) {
                        break rx;
                    }
                    match opened_rx.recv() {
                        Ok((i, rx)) => {
                            opened.insert(i, rx);
                        }
                        // Every worker stopped (after a failure, reported below).
                        Err(_) => return Ok(()),
                    }
                };
                for piece in rx.iter() {
                    match piece {
                        Piece::Records(bytes) => out.write_raw(&bytes)?,
                        Piece::Done(result) => result?,
                    }
                }
                written += 1;
            }
            Ok(())
        };
        let result = run();
        // On an error the channels are dropped: a waiting worker wakes and stops.
        drop(opened);
        drop(opened_rx);
        for worker in workers {
            stats.merge(worker.join().expect("a worker panicked"));
        }
        result
    })?;
    Ok(stats)
}

/// Where a worker's records go: gathered into chunks, each sent to the writer as it
/// fills.
#[derive(Clone, Default)]
struct ChunkSender(Rc<RefCell<ChunkState>>);

#[derive(Default)]
struct ChunkState {
    buf: Vec<u8>,
    tx: Option<std::sync::mpsc::SyncSender<Piece>>,
}

impl ChunkSender {
    fn start(&self, tx: std::sync::mpsc::SyncSender<Piece>) {
        let mut state = self.0.borrow_mut();
        state.buf.clear();
        state.tx = Some(tx);
    }

    /// Sends what is gathered.
    fn send_rest(&self) -> io::Result<()> {
        let mut state = self.0.borrow_mut();
        let bytes = std::mem::take(&mut state.buf);
        if bytes.is_empty() {
            return Ok(());
        }
        let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "the writer stopped");
        state
            .tx
            .as_ref()
            .ok_or_else(gone)?
            .send(Piece::Records(bytes))
            .map_err(|_| gone())
    }

    /// Ends the file; false when the writer stopped.
    fn finish(&self, result: io::Result<()>) -> bool {
        let mut state = self.0.borrow_mut();
        state.buf.clear();
        state
            .tx
            .take()
            .is_some_and(|tx| tx.send(Piece::Done(result)).is_ok())
    }
}

impl Write for ChunkSender {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let full = {
            let mut state = self.0.borrow_mut();
            state.buf.extend_from_slice(buf);
            state.buf.len() >= CHUNK
        };
        if full {
            self.send_rest()?;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Read errors are reported per file; write errors end the run.
fn is_write_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WriteZero | io::ErrorKind::StorageFull
    ) || e.get_ref().is_some_and(|e| e.is::<WriteFailed>())
}
