//! Lines of a source, numbered, with one reused buffer, a look-ahead for detection, and
//! lines over the limit streamed past unheld.

use super::{BINARY_LINE, BINARY_PROBE, BOM, DETECT_LINE, MAX_LINE, limit_text};
use std::io::{self, BufRead, Read};

/// The warning about a line passed over as too long.
pub(super) fn overlong_message(o: Overlong) -> String {
    if o.binary {
        format!(
            "binary data (NUL byte) in a line longer than {} MiB; the rest of the input was skipped",
            BINARY_LINE >> 20
        )
    } else {
        format!("line longer than {}; skipped", limit_text())
    }
}

/// A line longer than [`MAX_LINE`], passed over by [`Lines::next_line`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Overlong {
    pub(crate) line: u64,
    /// It held a NUL byte: the input is binary and was not read further.
    pub(crate) binary: bool,
}

/// One line of [`Lines::next_line`], and the lines passed over as too long just
/// before it.
pub(super) struct Line<'a> {
    pub(super) number: u64,
    pub(super) raw: &'a [u8],
    pub(super) skipped: Vec<Overlong>,
}

/// Where a line of [`Lines::next_raw`] lies.
pub(super) enum At {
    /// The first bytes of the input's buffer.
    Lent(usize),
    /// The line buffer.
    Buf,
    /// An entry of the look-ahead.
    Ahead(usize),
}

/// What detection read ahead, given back first.
pub(super) enum Ahead {
    Bytes(Vec<u8>),
    /// A long run of blank lines, kept as its count of line breaks.
    Newlines(u64),
}

impl Ahead {
    pub(super) fn len(&self) -> usize {
        match self {
            Ahead::Bytes(b) => b.len(),
            Ahead::Newlines(n) => *n as usize,
        }
    }

    /// Copies up to `out.len()` of its first bytes into `out`, drops them, and says
    /// how many.
    pub(super) fn take_into(&mut self, out: &mut [u8]) -> usize {
        match self {
            Ahead::Bytes(b) => {
                let k = b.len().min(out.len());
                out[..k].copy_from_slice(&b[..k]);
                b.drain(..k);
                k
            }
            Ahead::Newlines(n) => {
                let k = (*n as usize).min(out.len());
                out[..k].fill(b'\n');
                *n -= k as u64;
                k
            }
        }
    }
}

/// A blank run kept as bytes up to this size; longer, as a count of line breaks.
pub(super) const BLANK_RUN_BYTES: usize = 64 << 10;

/// Lines of a reader, numbered, with one reused buffer and a look-ahead for detection.
/// A line longer than [`MAX_LINE`] is never held: it is streamed past and noted in
/// `overlong`, which the framing reports.
pub(super) struct Lines<'r> {
    pub(super) input: &'r mut (dyn BufRead + Send),
    pub(super) buf: Vec<u8>,
    pub(super) number: u64,
    /// Lines read ahead by detection, given back first.
    pub(super) ahead: Vec<(u64, Ahead)>,
    pub(super) ahead_pos: usize,
    /// The last line read ahead was cut at [`MAX_LINE`]: it goes on in the input.
    pub(super) ahead_cut: bool,
    /// Bytes of the input's buffer handed out as the last line, consumed on the next
    /// read: a line that lies whole in the buffer is lent, not copied.
    pub(super) lent: usize,
    /// The longest line given out whole.
    pub(super) max: usize,
    /// Lines passed over since the framing last looked.
    pub(super) overlong: Vec<Overlong>,
    /// A binary line ended the reading.
    pub(super) stopped: bool,
}

impl<'r> Lines<'r> {
    pub(super) fn new(input: &'r mut (dyn BufRead + Send)) -> Lines<'r> {
        Lines {
            input,
            buf: Vec::new(),
            number: 0,
            ahead: Vec::new(),
            ahead_pos: 0,
            ahead_cut: false,
            lent: 0,
            max: MAX_LINE,
            overlong: Vec::new(),
            stopped: false,
        }
    }

    /// Gives back the bytes of the line lent last.
    pub(super) fn settle(&mut self) {
        self.input.consume(std::mem::take(&mut self.lent));
    }

    /// The next line with its number, line break included. A line longer than
    /// [`MAX_LINE`] is read past, not held, and noted in `overlong`; one that holds a
    /// NUL byte ends the input (a device such as `/dev/zero` never ends).
    pub(super) fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        let Some((number, at)) = self.next_raw()? else {
            return Ok(None);
        };
        let skipped = std::mem::take(&mut self.overlong);
        let raw = match at {
            At::Lent(n) => &self.input.fill_buf()?[..n],
            At::Buf => self.buf.as_slice(),
            At::Ahead(pos) => match &self.ahead[pos].1 {
                Ahead::Bytes(b) => b.as_slice(),
                Ahead::Newlines(_) => &b"\n"[..],
            },
        };
        Ok(Some(Line {
            number,
            raw,
            skipped,
        }))
    }

    /// The next line's number and where it lies.
    pub(super) fn next_raw(&mut self) -> io::Result<Option<(u64, At)>> {
        if self.stopped {
            return Ok(None);
        }
        if self.ahead_pos < self.ahead.len() {
            let pos = self.ahead_pos;
            self.ahead_pos += 1;
            let number = self.ahead[pos].0;
            if pos + 1 == self.ahead.len() && self.ahead_cut {
                // The first line, cut by detection: the rest of it follows.
                self.ahead_cut = false;
                self.settle();
                self.buf = match std::mem::replace(&mut self.ahead[pos].1, Ahead::Newlines(0)) {
                    Ahead::Bytes(b) => b,
                    Ahead::Newlines(_) => Vec::new(),
                };
                self.number -= 1;
                if let Some(line) = self.gather()? {
                    return Ok(Some(line));
                }
                return self.next_raw();
            }
            return Ok(Some((number, At::Ahead(pos))));
        }
        self.settle();
        loop {
            let avail = self.input.fill_buf()?;
            if let Some(n) = memchr::memchr(b'\n', avail) {
                self.lent = n + 1;
                self.number += 1;
                return Ok(Some((self.number, At::Lent(n + 1))));
            }
            // The line runs past the buffer: gather it, up to the limit.
            self.buf.clear();
            if self.buf.capacity() > 4 << 20 {
                // Grown by a long line: not kept for every line after it.
                self.buf = Vec::new();
            }
            if let Some(line) = self.gather()? {
                return Ok(Some(line));
            }
            if self.stopped || self.input.fill_buf()?.is_empty() {
                return Ok(None);
            }
        }
    }

    /// Gathers the line begun in `buf` from the input, up to the limit: the line, or
    /// `None` at the end of the input or when it was too long (then passed over).
    pub(super) fn gather(&mut self) -> io::Result<Option<(u64, At)>> {
        let mut whole = false;
        let mut binary = false;
        loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                whole = true;
                break;
            }
            let (take, ends) = through_line_end(avail);
            if self.buf.len() + take > self.max {
                break;
            }
            self.buf.extend_from_slice(&avail[..take]);
            self.input.consume(take);
            if ends {
                whole = true;
                break;
            }
            // A long line that starts with binary data is not gathered on.
            if self.buf.len() > BINARY_LINE
                && memchr::memchr(0, &self.buf[..BINARY_PROBE]).is_some()
            {
                binary = true;
                break;
            }
        }
        if whole {
            if self.buf.is_empty() {
                return Ok(None);
            }
            self.number += 1;
            return Ok(Some((self.number, At::Buf)));
        }
        self.number += 1;
        let binary =
            binary || memchr::memchr(0, &self.buf[..self.buf.len().min(BINARY_PROBE)]).is_some();
        self.buf = Vec::new();
        self.skip_overlong(self.number, binary)?;
        Ok(None)
    }

    /// Reads past the rest of a line too long to hold (its first bytes are read
    /// already) and notes it; a binary one ends the input.
    pub(super) fn skip_overlong(&mut self, line: u64, binary: bool) -> io::Result<()> {
        self.overlong.push(Overlong { line, binary });
        if binary {
            self.stopped = true;
            return Ok(());
        }
        loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', avail) {
                Some(n) => {
                    self.input.consume(n + 1);
                    return Ok(());
                }
                None => {
                    let k = avail.len();
                    self.input.consume(k);
                }
            }
        }
    }

    /// Reads ahead to the first non-blank line and returns it (cut at [`DETECT_LINE`]);
    /// the lines stay queued. A run of blank lines is kept as one entry: given back as
    /// one "line" of white space, which every framing skips or keeps as text, it costs
    /// its bytes (or, when long, only its count of line breaks), not an allocation per
    /// line, and it is read a buffer at a time.
    pub(super) fn peek_nonblank(&mut self) -> io::Result<Option<&[u8]>> {
        self.settle();
        let run_start = self.number + 1;
        // The run's bytes while short; its line breaks counted once long.
        let mut run: Vec<u8> = Vec::new();
        let mut newlines: u64 = 0;
        let mut counted = false;
        // White space after the run's last line break: the start of the next line.
        let mut tail: Vec<u8> = Vec::new();
        let mut first = self.number == 0;
        let line = loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                break None;
            }
            let skip = if first && avail.starts_with(BOM) {
                3
            } else {
                0
            };
            first = false;
            let blank_end = avail[skip..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map(|k| k + skip);
            let upto = blank_end.unwrap_or(avail.len());
            // The blank lines before `upto`, whole; what follows their last break is
            // the tail.
            match memchr::memrchr(b'\n', &avail[..upto]) {
                Some(n) => {
                    let lines = memchr::memchr_iter(b'\n', &avail[..=n]).count() as u64;
                    newlines += lines;
                    if !counted {
                        run.extend_from_slice(&tail);
                        run.extend_from_slice(&avail[..=n]);
                        if run.len() > BLANK_RUN_BYTES {
                            counted = true;
                            run = Vec::new();
                        }
                    }
                    tail.clear();
                    if blank_end.is_some() {
                        tail.extend_from_slice(&avail[n + 1..upto]);
                        self.input.consume(upto);
                    } else {
                        let rest = &avail[n + 1..];
                        if tail.len() < BLANK_RUN_BYTES {
                            tail.extend_from_slice(rest);
                        }
                        let k = avail.len();
                        self.input.consume(k);
                    }
                }
                None => {
                    if tail.len() < BLANK_RUN_BYTES {
                        tail.extend_from_slice(&avail[..upto]);
                    }
                    self.input.consume(upto);
                }
            }
            if blank_end.is_some() {
                // The first non-blank line: its white space, then up to its break.
                let mut line = std::mem::take(&mut tail);
                let mut cut = true;
                loop {
                    let avail = self.input.fill_buf()?;
                    if avail.is_empty() {
                        cut = false;
                        break;
                    }
                    let (take, ends) = through_line_end(avail);
                    let take = take.min(DETECT_LINE.saturating_sub(line.len()));
                    line.extend_from_slice(&avail[..take]);
                    self.input.consume(take);
                    if ends && line.ends_with(b"\n") {
                        cut = false;
                        break;
                    }
                    if line.len() >= DETECT_LINE {
                        break;
                    }
                }
                break Some((line, cut));
            }
        };
        if newlines > 0 {
            let entry = if counted {
                Ahead::Newlines(newlines)
            } else {
                Ahead::Bytes(run)
            };
            self.ahead.push((run_start, entry));
            self.number += newlines;
        }
        let Some((line, cut)) = line else {
            if !tail.is_empty() {
                self.number += 1;
                self.ahead.push((self.number, Ahead::Bytes(tail)));
            }
            return Ok(None);
        };
        self.number += 1;
        self.ahead_cut = cut;
        self.ahead.push((self.number, Ahead::Bytes(line)));
        Ok(self.ahead.last().map(|(_, l)| match l {
            Ahead::Bytes(b) => b.as_slice(),
            Ahead::Newlines(_) => &b""[..],
        }))
    }

    /// Appends up to `max` more bytes (look-ahead first) to `out`; true at the end of
    /// the input.
    pub(super) fn read_some(&mut self, out: &mut Vec<u8>, max: usize) -> io::Result<bool> {
        self.settle();
        let start = out.len();
        while self.ahead_pos < self.ahead.len() && out.len() - start < max {
            let room = max - (out.len() - start);
            let entry = &mut self.ahead[self.ahead_pos].1;
            let k = entry.len().min(room);
            let at = out.len();
            out.resize(at + k, 0);
            entry.take_into(&mut out[at..]);
            if entry.len() == 0 {
                self.ahead_pos += 1;
            }
        }
        let want = max.saturating_sub(out.len() - start);
        if want > 0 {
            (&mut *self.input).take(want as u64).read_to_end(out)?;
        }
        Ok(self.ahead_pos >= self.ahead.len() && self.input.fill_buf()?.is_empty())
    }

    /// Fills `out` from the input (look-ahead first); fewer bytes only at the end of the
    /// input. A read as large as the reader's buffer bypasses it, so the bytes are
    /// copied once, from the kernel into `out`.
    pub(super) fn fill(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.settle();
        let mut n = 0;
        while n < out.len() && self.ahead_pos < self.ahead.len() {
            let entry = &mut self.ahead[self.ahead_pos].1;
            n += entry.take_into(&mut out[n..]);
            if entry.len() == 0 {
                self.ahead_pos += 1;
            }
        }
        while n < out.len() {
            match self.input.read(&mut out[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Everything not yet read, including the look-ahead.
    pub(super) fn read_rest(&mut self) -> io::Result<Vec<u8>> {
        self.settle();
        let mut all = Vec::new();
        for (_, entry) in self.ahead.drain(self.ahead_pos..) {
            match entry {
                Ahead::Bytes(b) => all.extend_from_slice(&b),
                Ahead::Newlines(n) => all.resize(all.len() + n as usize, b'\n'),
            }
        }
        self.input.read_to_end(&mut all)?;
        Ok(all)
    }
}

/// How much of `avail` belongs to the current line (its break included), and whether
/// the line ends there.
pub(super) fn through_line_end(avail: &[u8]) -> (usize, bool) {
    match memchr::memchr(b'\n', avail) {
        Some(n) => (n + 1, true),
        None => (avail.len(), false),
    }
}
