//! `--manifest` and `--skip-unchanged`: what happened to every input of a run, one JSON
//! line each, in input order, and the inputs an earlier manifest shows unchanged.
//!
//! A line: `{"path","size","mtime","xxh3","status","framing","dialects","records"}`.
//! `mtime` is RFC 3339 in UTC with nanoseconds (`2026-03-01T02:03:04.123456789Z`),
//! `xxh3` the 64-bit XXH3 of the bytes as stored (compressed data undecoded), in 16
//! hex digits, computed as the input is read. A regular file is hashed whole, the part
//! reading passed over included; standard input, a pipe or a device by the bytes read.
//! `status`: `read`; `read in part: …` (parts passed over unread, the first named);
//! `skipped: binary` or `skipped: too long` (nothing but such parts); `error: …` (the
//! file could not be opened or read; `xxh3` is null); `unchanged` (`--skip-unchanged`).
//!
//! `convert`'s lines begin with the same [`Stored`] fields, hashed by the same
//! [`Watch`], and are written by [`write_lines`]; the rest is its own (see
//! `convert::batch`).

use crate::input::{Framing, ReadNotes};
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use xxhash_rust::xxh3::Xxh3;

/// What every manifest line begins with, `extract`'s, `check`'s and `convert`'s: the
/// input as named and as stored.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct Stored {
    pub(crate) path: String,
    pub(crate) size: Option<u64>,
    pub(crate) mtime: Option<String>,
    pub(crate) xxh3: Option<String>,
}

/// One manifest line.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    #[serde(flatten)]
    pub(crate) stored: Stored,
    pub(crate) status: String,
    pub(crate) framing: Option<&'static str>,
    pub(crate) dialects: Vec<&'static str>,
    pub(crate) records: u64,
}

/// What an earlier manifest says of an input it shows read (or passed over) whole.
#[derive(Deserialize)]
struct Earlier {
    path: String,
    size: Option<u64>,
    mtime: Option<String>,
    xxh3: Option<String>,
    status: Option<String>,
}

/// The manifest of a run: what an earlier one knew (`--skip-unchanged`), and the lines
/// of this one by input position (filled by every worker of `-j`).
#[derive(Default)]
pub struct Plan {
    earlier: HashMap<String, (u64, String, String)>,
    entries: Mutex<BTreeMap<usize, Entry>>,
}

impl Plan {
    /// A plan; with `earlier`, the inputs that manifest lists with a size, mtime and
    /// hash (not those it shows in error) can be skipped when unchanged. A manifest that
    /// does not exist yet (the first of a chain) is empty, with a warning.
    pub(crate) fn load(earlier: Option<&Path>, diag: &crate::diag::Diag) -> Result<Plan> {
        let mut plan = Plan::default();
        let Some(path) = earlier else {
            return Ok(plan);
        };
        let shown = path.to_string_lossy();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                diag.warn(&shown, None, "no such manifest; every input is read");
                return Ok(plan);
            }
            Err(e) => {
                return Err(e).with_context(|| format!("--skip-unchanged {shown}"));
            }
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let e: Earlier = match serde_json::from_str(line) {
                Ok(e) => e,
                Err(e) => bail!(
                    "--skip-unchanged {shown}:{}: not a manifest line: {e}",
                    i + 1
                ),
            };
            let failed = e.status.as_deref().is_none_or(|s| s.starts_with("error"));
            if let (Some(size), Some(mtime), Some(hash), false) = (e.size, e.mtime, e.xxh3, failed)
            {
                plan.earlier.insert(e.path, (size, mtime, hash));
            } else {
                plan.earlier.remove(&e.path);
            }
        }
        Ok(plan)
    }

    fn add(&self, position: usize, entry: Entry) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.insert(position, entry);
    }

    /// The lines so far, in input order.
    pub(crate) fn entries(&self) -> Vec<Entry> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.values().cloned().collect()
    }

    /// Writes the manifest to `path`, replacing it whole or not at all; false, reported,
    /// when it could not be.
    pub(crate) fn write(&self, path: &Path, diag: &crate::diag::Diag) -> bool {
        write_lines(path, self.entries(), diag)
    }
}

/// Writes `lines` to `path`, one JSON object a line, replacing it whole or not at all
/// (as `-o` is); false, reported, when it could not be.
pub(crate) fn write_lines<T: Serialize>(
    path: &Path,
    lines: impl IntoIterator<Item = T>,
    diag: &crate::diag::Diag,
) -> bool {
    let written = (|| -> io::Result<()> {
        let mut file = crate::atomic::AtomicFile::create(path)?;
        let mut buf = io::BufWriter::new(&mut file);
        for line in lines {
            serde_json::to_writer(&mut buf, &line)?;
            buf.write_all(b"\n")?;
        }
        buf.flush()?;
        drop(buf);
        file.commit()
    })();
    match written {
        Ok(()) => true,
        Err(e) => {
            let reason = crate::diag::io_reason(&e);
            diag.error(&path.to_string_lossy(), None, reason);
            false
        }
    }
}

/// The plan of a run with `--manifest` or `--skip-unchanged` (`None` inside for
/// neither); `None`, reported, when the earlier manifest cannot be read.
pub(crate) fn plan(
    manifest: Option<&Path>,
    earlier: Option<&Path>,
    diag: &crate::diag::Diag,
) -> Option<Option<Arc<Plan>>> {
    if manifest.is_none() && earlier.is_none() {
        return Some(None);
    }
    match Plan::load(earlier, diag) {
        Ok(plan) => Some(Some(Arc::new(plan))),
        Err(e) => {
            diag.fail(crate::diag::without_os_error(&format!("{e:#}")));
            None
        }
    }
}

/// Where an engine's manifest lines go: the plan, and the position of the next input.
#[derive(Clone)]
pub(crate) struct Recorder {
    plan: Arc<Plan>,
    next: usize,
}

impl Recorder {
    pub(crate) fn new(plan: Arc<Plan>) -> Recorder {
        Recorder { plan, next: 0 }
    }

    /// The next input read is the one at `position` in the list (`-j`).
    pub(crate) fn at(&mut self, position: usize) {
        self.next = position;
    }

    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The line of the next input.
    pub(crate) fn add(&mut self, entry: Entry) {
        self.plan.add(self.next, entry);
        self.next += 1;
    }
}

/// The hash of what has been read so far.
struct Hashing {
    hasher: Xxh3,
    bytes: u64,
}

/// A reader that hashes what passes through it.
struct Hashed<R> {
    inner: R,
    state: Arc<Mutex<Hashing>>,
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.hasher.update(&buf[..n]);
        state.bytes += n as u64;
        Ok(n)
    }
}

/// One input being read, for its manifest line.
pub(crate) struct Watch {
    entry: Entry,
    state: Arc<Mutex<Hashing>>,
    /// A regular file's second handle, at the offset reading reached: what reading
    /// left is hashed through it.
    rest: Option<File>,
    regular: bool,
    failed: bool,
}

impl Watch {
    pub(crate) fn new(path: &str) -> Watch {
        Watch {
            entry: Entry {
                stored: Stored {
                    path: path.to_owned(),
                    size: None,
                    mtime: None,
                    xxh3: None,
                },
                status: "read".to_owned(),
                framing: None,
                dialects: Vec::new(),
                records: 0,
            },
            state: Arc::new(Mutex::new(Hashing {
                hasher: Xxh3::new(),
                bytes: 0,
            })),
            rest: None,
            regular: false,
            failed: false,
        }
    }

    /// The opened file's size and modification time (a regular file's only).
    pub(crate) fn stat(&mut self, meta: &Metadata) {
        if meta.is_file() {
            self.regular = true;
            self.entry.stored.size = Some(meta.len());
            self.entry.stored.mtime = meta.modified().ok().and_then(rfc3339);
        }
    }

    /// Whether the earlier manifest lists this regular file with its size and mtime and,
    /// hashed now, its hash: then its line says `unchanged`. Otherwise `file` is back at
    /// its start, to be read.
    pub(crate) fn unchanged(&mut self, plan: &Plan, file: &mut File) -> io::Result<bool> {
        let Some((size, mtime, hash)) = plan.earlier.get(&self.entry.stored.path) else {
            return Ok(false);
        };
        if !self.regular
            || self.entry.stored.size != Some(*size)
            || self.entry.stored.mtime.as_deref() != Some(mtime.as_str())
        {
            return Ok(false);
        }
        let mut hasher = Xxh3::new();
        let mut buf = vec![0; 256 << 10];
        let mut bytes = 0;
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buf[..n]);
            bytes += n as u64;
        }
        let now = hex(hasher.digest());
        if now == *hash && bytes == *size {
            self.entry.stored.xxh3 = Some(now);
            self.entry.status = "unchanged".to_owned();
            return Ok(true);
        }
        file.rewind()?;
        Ok(false)
    }

    /// `input`, hashed as it is read; `rest`, for a regular file, a second handle to
    /// it (sharing its offset), through which what reading leaves is hashed.
    pub(crate) fn reading<R: Read + Send + 'static>(
        &mut self,
        input: R,
        rest: Option<File>,
    ) -> Box<dyn Read + Send> {
        self.rest = rest.filter(|_| self.regular);
        Box::new(Hashed {
            inner: input,
            state: self.state.clone(),
        })
    }

    /// The input could not be opened or read.
    pub(crate) fn error(&mut self, reason: &str) {
        self.failed = true;
        self.entry.status = format!("error: {reason}");
        self.entry.stored.xxh3 = None;
    }

    /// The finished line: `notes` from the reader (none when the input was not read),
    /// whether anything was handed on from it, and the records written for it.
    pub(crate) fn finish(
        mut self,
        notes: Option<&ReadNotes>,
        handed_on: bool,
        records: u64,
        dialects: impl Iterator<Item = &'static str>,
    ) -> Entry {
        self.entry.records = records;
        self.entry.dialects = dialects.collect();
        if let Some(notes) = notes {
            self.entry.framing = notes.framing.map(Framing::name);
            if !self.failed
                && let Some((line, message)) = &notes.first_skip
            {
                self.entry.status = if handed_on {
                    let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
                    let more = match notes.skipped - 1 {
                        0 => String::new(),
                        n => format!(" (and {} more)", crate::diag::plural(n, "part", "parts")),
                    };
                    format!("read in part: {at}{message}{more}")
                } else if message.starts_with("binary data") {
                    "skipped: binary".to_owned()
                } else if message.contains("longer than") {
                    "skipped: too long".to_owned()
                } else {
                    format!("skipped: {message}")
                };
            }
        }
        if !self.failed && self.entry.status != "unchanged" {
            self.hash_the_rest();
        }
        self.entry
    }

    /// The fields every manifest has, once the input is read (or was not: a regular
    /// file never read has its size and mtime, and no hash).
    pub(crate) fn stored(mut self) -> Stored {
        if !self.failed {
            self.hash_the_rest();
        }
        self.entry.stored
    }

    /// The hash, what reading left of a regular file hashed first.
    fn hash_the_rest(&mut self) {
        if self.regular {
            // What reading did not reach (binary data is not read past its first
            // block), hashed through the second handle.
            let Some(rest) = self.rest.take() else {
                return;
            };
            let mut rest = Hashed {
                inner: rest,
                state: self.state.clone(),
            };
            if io::copy(&mut rest, &mut io::sink()).is_err() {
                return;
            }
        }
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.entry.stored.xxh3 = Some(hex(state.hasher.digest()));
        // What was hashed: standard input's size is what was read.
        self.entry.stored.size = Some(state.bytes);
    }
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// A time as RFC 3339 in UTC with nanoseconds; `None` before 1970.
pub(crate) fn rfc3339(t: SystemTime) -> Option<String> {
    let d = t.duration_since(UNIX_EPOCH).ok()?;
    let secs = d.as_secs();
    let (y, m, day) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    Some(format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:09}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_nanos()
    ))
}

/// (year, month, day) of a day counted from 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_are_rfc3339_in_utc_with_nanoseconds() {
        let at = |s: u64, n: u32| rfc3339(UNIX_EPOCH + Duration::new(s, n)).unwrap();
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.000000005Z");
        assert_eq!(
            at(1_772_330_584, 123_456_789),
            "2026-03-01T02:03:04.123456789Z"
        );
        assert_eq!(at(4_107_542_399, 0), "2100-02-28T23:59:59.000000000Z");
        assert_eq!(rfc3339(UNIX_EPOCH - Duration::from_secs(1)), None);
    }
}
