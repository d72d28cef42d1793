//! Plain text too large to hold whole, read in overlapping windows: where each window
//! is cut, and what it hands back to the reader when its consumer is done with it.

use super::{BOM, Lines, Reader, STREAM_DOCUMENT, pieces};
use crate::model::{Event, Openers, Passed, Text, Window};
use std::io;
use std::sync::mpsc;

/// The default window for plain text: memory stays near this, whatever the input size.
pub const TEXT_WINDOW: usize = 6 << 20;

/// The shortest window: a window that carries little of the one before (its calls were
/// whole well before the cut) reads only this much, so that the dozen scanners that
/// each walk it find it in cache (1 GB of prose with decoys: 480 ms with 6 MiB windows,
/// 390 with 2 MiB). A window that carries more grows, up to the full window, so that
/// the part scanned twice stays a small share of it.
pub const LEAST_WINDOW: usize = 2 << 20;

/// A window is at least this many times what it carries over from the one before.
const CARRIED_SHARE: usize = 6;

/// How far a window reaches back into the one before: a call that starts in the last
/// `MAX_OVERLAP` bytes of a window is left to the next, which holds it whole. Windows
/// under 4 MiB (set for tests) overlap by a quarter of their size.
pub const MAX_OVERLAP: usize = 1 << 20;

/// The shortest overlap, as a part of the full one: what is left to scan twice when the
/// consumer knows that nothing before it is still open (64 KiB of a 1 MiB overlap).
const SHORT_OVERLAP_PART: usize = 16;

/// Never shorter than this: the opening of a call that the cut splits (a marker, a
/// Harmony header of up to 512 bytes, a head of up to 256) is no candidate yet, and the
/// next window must hold it whole.
const MIN_SHORT_OVERLAP: usize = 1024;

/// How many `<` (or `[` and `{`) a text window holds per [`LEAST_WINDOW`] of its length
/// at most, and how many a window cut short for holding more keeps: the scanners' work
/// and memory grow with the openers and calls of a window, not with its bytes, so text
/// dense in them is read in shorter windows. Prose, code and logs hold far fewer (the
/// mixed benchmark corpus, code blocks full of braces, about 9,500 per 2 MiB).
const MAX_WINDOW_OPENERS: usize = 1 << 14;

/// The openers of either kind a text of `len` bytes may hold before it counts as dense:
/// [`MAX_WINDOW_OPENERS`] per [`LEAST_WINDOW`], and never fewer than that.
pub(super) fn opener_limit(len: usize) -> usize {
    (MAX_WINDOW_OPENERS as u64 * len as u64 / LEAST_WINDOW as u64).max(MAX_WINDOW_OPENERS as u64)
        as usize
}

/// A window is never cut shorter than this for holding many openers.
pub(super) const MIN_DENSE_WINDOW: usize = 128 << 10;

/// Where the windows of a long text get their pieces.
enum Feed<'p, 'l, 'r> {
    /// Read here, into the window itself.
    Here {
        pieces: &'p mut pieces::Pieces,
        lines: &'l mut Lines<'r>,
    },
    /// Read, checked and swept on a second thread; pieces used go back to it.
    Thread {
        pieces: std::sync::mpsc::Receiver<pieces::Piece>,
        spares: std::sync::mpsc::Sender<pieces::Piece>,
    },
}

/// What the next window of a long text starts from.
#[derive(Clone, Copy)]
struct NextWindow<'c> {
    /// The end of the window before, from its cut on.
    carried: &'c [u8],
    /// The window's least length (more when its last piece runs past it).
    target: usize,
    /// The file line it starts on.
    line: u64,
    /// Whether WIL's sentinels are still searched for.
    find_wil: bool,
    /// Whether new pieces are read: not when what is carried over fills the window
    /// already (a window cut short by [`dense_cut`]), nor after the input ended.
    read: bool,
    /// Whether the input ended before this window.
    ended: bool,
}

/// Where a window dense in openers is cut: one that holds more `<` (or `[` and `{`)
/// than [`opener_limit`] allows for its length, or whose sweep stopped for holding too
/// many (`swept_whole` false). It is cut after the line that holds opener number
/// [`MAX_WINDOW_OPENERS`] (or at that opener, on a line too long), and never before
/// [`MIN_DENSE_WINDOW`].
fn dense_cut(text: &Text, swept_whole: bool) -> Option<usize> {
    let openers = text.openers();
    if swept_whole {
        let limit = opener_limit(text.text.len());
        if openers.angle.len() <= limit && openers.json.len() <= limit {
            return None;
        }
    }
    let over = [
        openers.angle.get(MAX_WINDOW_OPENERS),
        openers.json.get(MAX_WINDOW_OPENERS),
    ]
    .into_iter()
    .flatten()
    .min()?;
    let s = text.text.as_str();
    let at = (*over).max(MIN_DENSE_WINDOW);
    if at >= s.len() {
        return None;
    }
    let at = match memchr::memchr(b'\n', &s.as_bytes()[at..(at + (64 << 10)).min(s.len())]) {
        Some(n) => at + n + 1,
        None => (0..=at).rev().find(|&k| s.is_char_boundary(k))?,
    };
    (at > 0 && at < s.len()).then_some(at)
}

/// What the windows of one text share: the way their remains come back from the
/// consumer (see [`Passed`]), and the buffers of the window before, reused for the next.
struct WindowReader {
    back: mpsc::Sender<Passed>,
    passed: mpsc::Receiver<Passed>,
    /// The text buffer of the window before, its bytes to be overwritten.
    buffer: Vec<u8>,
    /// The opener lists of the window before, to be cleared and filled again.
    openers: Openers,
}

impl WindowReader {
    fn new() -> WindowReader {
        let (back, passed) = mpsc::channel();
        WindowReader {
            back,
            passed,
            buffer: Vec::new(),
            openers: Openers::default(),
        }
    }

    /// The remains of the window just handed on, which its consumer has dropped.
    fn take_back(&mut self) -> io::Result<Passed> {
        let mut passed = self.passed.try_recv().map_err(|_| {
            io::Error::other("a text window was kept by its consumer; lines after it are unknown")
        })?;
        if let Some(openers) = passed.openers.take() {
            self.openers = openers;
        }
        Ok(passed)
    }

    /// Keeps the text buffer of a window gone, for the window after next.
    fn recycle(&mut self, buffer: Vec<u8>) {
        self.buffer = buffer;
    }
}

impl Reader<'_, '_> {
    /// Text too long to scan whole that is no input of its own (the data of a long
    /// event): read in windows, as a long plain text is, after the records before it.
    pub(super) fn long_text(&mut self, text: Vec<u8>, line: u64) -> io::Result<()> {
        self.pump()?;
        let mut nothing: &[u8] = &[];
        let mut lines = Lines::new(&mut nothing);
        let pipeline = std::mem::replace(&mut self.pipeline, false);
        let read = self.windowed_text(text, &mut lines, line);
        self.pipeline = pipeline;
        read
    }

    /// Text that was to be JSON and is not: scanned as text, in windows when it is long
    /// (as a long plain text is: scanned whole, text dense in brackets takes many times
    /// its size), else whole.
    pub(super) fn text_instead(&mut self, text: &str, line: u64) {
        if text.len() > STREAM_DOCUMENT && self.window > 0 {
            if let Err(e) = self.long_text(text.as_bytes().to_vec(), line) {
                self.held_error.get_or_insert(e);
            }
        } else {
            self.interp.feed_text(text, line);
        }
    }

    /// Plain text too large to hold whole, in overlapping windows cut at line ends: a
    /// call that starts in the overlap at the end of a window is left to the next one,
    /// which holds it whole (calls longer than the overlap, 1 MiB, may be cut). The
    /// overlap is scanned twice, so it is a small part of a large window. A window is
    /// what the one before left and one or more [`pieces::Piece`]s of new bytes; with
    /// the pipeline on, they are read and swept on a second thread.
    pub(super) fn windowed_text(
        &mut self,
        mut first: Vec<u8>,
        lines: &mut Lines,
        first_line: u64,
    ) -> io::Result<()> {
        if first.starts_with(BOM) {
            first.drain(..BOM.len());
        }
        let size = LEAST_WINDOW.min(self.window.max(2));
        let mut pieces = pieces::Pieces::new(first, size);
        if !self.pipeline {
            return self.windows(
                Feed::Here {
                    pieces: &mut pieces,
                    lines,
                },
                first_line,
            );
        }
        let (pieces_tx, pieces_rx) = std::sync::mpsc::sync_channel(pieces::IN_FLIGHT);
        let (spares_tx, spares) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(move || pieces::produce(pieces, lines, &pieces_tx, &spares));
            // Moved in, so that it is dropped when this closure returns, before the
            // reading thread is joined: a thread blocked on a full channel then wakes.
            self.windows(
                Feed::Thread {
                    pieces: pieces_rx,
                    spares: spares_tx,
                },
                first_line,
            )
        })
    }

    /// The windows of [`Reader::windowed_text`], from the pieces `feed` hands out.
    fn windows(&mut self, mut feed: Feed, first_line: u64) -> io::Result<()> {
        let most = self.window.max(2);
        let least = LEAST_WINDOW.min(most);
        let overlap = (most / 4).min(MAX_OVERLAP);
        let mut base = 0usize;
        let mut line = first_line;
        // The end of the window before, from its cut on; the window holds at least this
        // many times as much (up to the full window).
        let mut carried: Vec<u8> = Vec::new();
        let mut reader = WindowReader::new();
        // Set once the engine says that no later window needs WIL's sentinels.
        let mut sentinels_moot = false;
        // Bytes read but left out of a window that held too many openers (from
        // `tail_from` on): the next windows take them a window's length at a time after
        // what they carry over, and read no new piece until they are all taken.
        let mut tail: Vec<u8> = Vec::new();
        let mut tail_from = 0;
        let mut dense_len = 0;
        let mut ended = false;
        // Context regions open where the next window starts.
        let mut open = crate::scan::OpenRegions::default();
        loop {
            let target = (carried.len() * CARRIED_SHARE).clamp(least, most);
            let untaken = tail_from < tail.len();
            let next = NextWindow {
                carried: &carried,
                target,
                line,
                find_wil: !sentinels_moot,
                read: !ended && !untaken,
                ended: ended && !untaken,
            };
            let (mut text, mut last, swept_whole) = match &mut feed {
                Feed::Here { pieces, lines } => {
                    self.window_here(&mut reader, pieces, lines, &next)?
                }
                Feed::Thread { pieces, spares } => {
                    self.window_of_pieces(&mut reader, pieces, spares, &next)?
                }
            };
            ended = ended || (next.read && last);
            if let Some(at) = dense_cut(&text, swept_whole) {
                let mut whole = std::mem::take(&mut text.text);
                // What is left of the tail stays where it is, after this window's rest.
                let rest = whole.as_bytes()[at..].to_vec();
                tail.splice(..tail_from, rest);
                tail_from = 0;
                whole.truncate(at);
                dense_len = at;
                text = Text::new(whole, next.line, false, true);
                text.sweep(next.find_wil);
                last = false;
            } else {
                if !swept_whole {
                    // Not cut after all: its openers are needed to the end.
                    let whole = std::mem::take(&mut text.text);
                    text = Text::new(whole, next.line, false, true);
                    text.sweep(next.find_wil);
                }
                if tail_from < tail.len() {
                    last = false;
                }
            }
            text.set_open_before(open);
            // Kept past the window: which of its regions the next one starts inside.
            let regions = (!last).then(|| text.region_map());
            let cut = text.text.len();
            let keep = if last {
                cut
            } else {
                let mut from = cut.saturating_sub(overlap).max(cut / 2);
                // A call holds a `<`, `[` or `{`, at most a few lines after where it
                // starts (a fence, `>>>name`). When the overlap holds none, only
                // its last lines can start a call that runs on past the cut: a short
                // overlap is enough, and plain prose is not scanned twice.
                let openers = text.openers();
                let last_opener = openers.angle.last().max(openers.json.last());
                if last_opener.is_none_or(|&o| o < from) {
                    from = from.max(cut.saturating_sub(overlap / 8));
                }
                let s = text.text.as_str();
                match memchr::memchr(b'\n', &s.as_bytes()[from..cut]) {
                    Some(n) if from + n + 1 < cut => from + n + 1,
                    // No line break: cut between two characters.
                    _ => (1..=from.max(1))
                        .rev()
                        .find(|&k| s.is_char_boundary(k))
                        .unwrap_or(cut),
                }
            };
            // Never cut inside a region whose opening gives meaning to what follows:
            // the next window starts at its opening instead, or, when the region opens
            // at this window's start (it would never move on), is told it is inside.
            let keep = if last {
                keep
            } else {
                text.context_regions()
                    .iter()
                    .find(|&&(a, b)| a < keep && keep < b && a > 0)
                    .map_or(keep, |&(a, _)| a)
            };
            // The consumer may start the next window later, never earlier than `keep`:
            // as late as a short overlap before the cut, when it knows that every call
            // before that point is whole (see `engine`).
            let latest_keep = if last {
                keep
            } else {
                let short = (overlap / SHORT_OVERLAP_PART)
                    .max(MIN_SHORT_OVERLAP)
                    .min(overlap);
                let short = cut.saturating_sub(short);
                keep.max(short)
            };
            let window = Window {
                text,
                offset: base,
                keep_before: base + keep,
                latest_keep: base + latest_keep,
                overlap,
                last,
                sentinels_moot: false,
                back: Some(reader.back.clone()),
            };
            (self.sink)(Event::Window(window))?;
            // Only the lines this window moves past: the window counted them when its
            // consumer dropped it (the overlap's are counted with the next window).
            let passed = reader.take_back()?;
            open = regions.map_or_else(Default::default, |r| r.open_at(passed.keep));
            carried.clear();
            carried.extend_from_slice(&passed.bytes[passed.keep..]);
            if tail_from < tail.len() {
                let take = dense_len.max(MIN_DENSE_WINDOW);
                let end = match tail.get(tail_from + take..) {
                    Some(after) => memchr::memchr(b'\n', after)
                        .map_or(tail.len(), |n| tail_from + take + n + 1),
                    None => tail.len(),
                };
                carried.extend_from_slice(&tail[tail_from..end]);
                tail_from = end;
                if tail_from == tail.len() {
                    tail.clear();
                    tail_from = 0;
                }
            }
            reader.recycle(passed.bytes);
            if last {
                return Ok(());
            }
            line += passed.lines;
            sentinels_moot = passed.sentinels_moot;
            base += passed.keep;
        }
    }

    /// The next window read on this thread: `carried`, then pieces read into the same
    /// buffer up to `target` bytes, checked for UTF-8 and swept as a whole. The window's
    /// text, and whether the input ends with it.
    fn window_here(
        &mut self,
        reader: &mut WindowReader,
        pieces: &mut pieces::Pieces,
        lines: &mut Lines,
        next: &NextWindow,
    ) -> io::Result<(Text, bool, bool)> {
        // The bytes of a window before last are overwritten, not zeroed first.
        let mut buffer = std::mem::take(&mut reader.buffer);
        buffer.resize(buffer.len().max(next.carried.len()), 0);
        buffer[..next.carried.len()].copy_from_slice(next.carried);
        let mut start = next.carried.len();
        // The window is measured as text, bad bytes replaced, as the second thread's
        // pieces are: one thread and two cut the same windows.
        let mut text_len = start;
        let mut valid = true;
        let last = if next.read {
            loop {
                let last = pieces.read_into(lines, &mut buffer, start)?;
                let piece = &buffer[start..];
                if simdutf8::basic::from_utf8(piece).is_ok() {
                    text_len += piece.len();
                } else {
                    valid = false;
                    text_len += String::from_utf8_lossy(piece).len();
                }
                start = buffer.len();
                if last || text_len >= next.target {
                    break last;
                }
            }
        } else {
            buffer.truncate(start);
            next.ended
        };
        let text = if valid {
            // SAFETY: what was carried is text, and each piece after it was just
            // checked: the buffer is valid UTF-8.
            unsafe { String::from_utf8_unchecked(buffer) }
        } else {
            // Bad bytes are replaced in the text; offsets are the text's.
            let bytes = buffer;
            self.utf8(&bytes, next.line).into_owned()
        };
        let text = Text::new(text, next.line, false, true);
        let whole = text.sweep_within(
            std::mem::take(&mut reader.openers),
            next.find_wil,
            &opener_limit,
        );
        Ok((text, last, whole))
    }

    /// The next window from pieces read, checked and swept on the second thread:
    /// `carried` (swept here), then the pieces' texts up to `target` bytes, their opener
    /// lists appended and their line breaks added up. Bad UTF-8 is reported here, in
    /// order, on its line. The window's text, and whether the input ends with it.
    fn window_of_pieces(
        &mut self,
        reader: &mut WindowReader,
        pieces: &std::sync::mpsc::Receiver<pieces::Piece>,
        spares: &std::sync::mpsc::Sender<pieces::Piece>,
        next: &NextWindow,
    ) -> io::Result<(Text, bool, bool)> {
        let mut buffer = std::mem::take(&mut reader.buffer);
        buffer.clear();
        let mut text = String::from_utf8(buffer).unwrap_or_default();
        // The window before was UTF-8, and its cut falls between characters.
        text.push_str(std::str::from_utf8(next.carried).unwrap_or_default());
        let mut openers = std::mem::take(&mut reader.openers);
        openers.clear();
        openers.add(text.as_bytes(), 0, text.len());
        let mut breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
        let mut wil = crate::model::holds_wil(text.as_bytes());
        // A piece too dense in openers to be swept whole ends the window, which is
        // swept here instead (and cut short).
        let mut dense = false;
        let last = !next.read && next.ended;
        let last = last
            || next.read
                && loop {
                    let piece = pieces.recv().unwrap_or_else(|_| pieces::Piece {
                        error: Some(io::Error::other("the thread reading the text stopped")),
                        ..Default::default()
                    });
                    if let Some(e) = piece.error {
                        return Err(e);
                    }
                    if let Some(before) = piece.bad_utf8 {
                        self.warn_utf8(next.line + breaks + before);
                    }
                    let shift = text.len();
                    text.push_str(&piece.text);
                    let bytes = text.as_bytes();
                    dense = dense || piece.dense;
                    if !dense {
                        openers.append_piece(&piece.openers, bytes, shift);
                        // A `WIL` may start in the last two bytes before the piece.
                        let joint = &bytes[shift.saturating_sub(2)..(shift + 2).min(bytes.len())];
                        wil = wil || piece.wil || crate::model::holds_wil(joint);
                    }
                    breaks += piece.breaks;
                    let last = piece.last;
                    // Back at once, for the piece after next.
                    let _ = spares.send(piece);
                    if last || dense || text.len() >= next.target {
                        break last;
                    }
                };
        if dense {
            let text = Text::new(text, next.line, false, true);
            let whole = text.sweep_within(
                std::mem::take(&mut reader.openers),
                next.find_wil,
                &opener_limit,
            );
            return Ok((text, last, whole));
        }
        let wil = wil && next.find_wil;
        Ok((
            Text::swept(text, next.line, openers, wil, breaks),
            last,
            true,
        ))
    }
}
