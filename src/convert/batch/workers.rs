//! The workers: each takes the next job, converts its input and writes its output;
//! what goes to standard output comes in input order.

use super::super::{Converted, NotAConversation, Settings, convert_bytes, read_input};
use super::disk::{keep_original, reason, write_atomic};
use super::plan::{Destination, Job};
use super::plural;
use super::progress::Progress;
use super::summary::{Failure, Line, Outcome, Summary};
use crate::cli::ConvertArgs;
use crate::diag::Diag;
use crate::manifest::Watch;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Converts every job on `threads` workers; stdout output comes in input order.
pub(super) fn execute(
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
