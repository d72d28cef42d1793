//! Long plain text in pieces: the new bytes of each window, read, cut after their last
//! line break, checked for UTF-8 and swept for the bytes that can open a call, either
//! on the reader's thread or on a second one (see [`super::Reader::windowed_text`]).
//! A window is the end of the one before and one or more pieces; on a second thread
//! the next piece is read and swept while the scanners work on the current window.

use super::{Lines, string_from_utf8};
use crate::model::Openers;
use std::io;
use std::sync::mpsc::{Receiver, SyncSender};

/// Pieces waiting for their window at most: memory stays bounded when reading runs
/// ahead.
pub(super) const IN_FLIGHT: usize = 1;

/// New bytes for a window.
#[derive(Debug, Default)]
pub(super) struct Piece {
    /// Whole lines (or, for a line longer than a piece, up to a character boundary);
    /// bytes that are not UTF-8 replaced.
    pub(crate) text: String,
    /// Line breaks in `text`.
    pub(crate) breaks: u64,
    /// Line breaks before the first byte that was not UTF-8, if any was.
    pub(crate) bad_utf8: Option<u64>,
    /// The input ends with this piece.
    pub(crate) last: bool,
    /// The openers of `text`, found in it alone.
    pub(crate) openers: Openers,
    /// Whether `WIL` or `wil` occurs in `text`.
    pub(crate) wil: bool,
    /// So dense in openers that it was not swept whole (`openers` and `wil` say
    /// nothing): its window is swept again, and cut short.
    pub(crate) dense: bool,
    /// A read error: the source ends here, as it would on one thread.
    pub(crate) error: Option<io::Error>,
}

/// What was read past the last cut, and how much each piece reads.
pub(super) struct Pieces {
    rest: Vec<u8>,
    size: usize,
    eof: bool,
}

impl Pieces {
    /// Pieces of `size` bytes (what waited included); the first starts with `first`,
    /// which may be longer.
    pub(super) fn new(first: Vec<u8>, size: usize) -> Pieces {
        Pieces {
            rest: first,
            size: size.max(1),
            eof: false,
        }
    }

    /// Puts the next piece's bytes in `buf` from `start` on (what is there is
    /// overwritten, not zeroed first, and what follows cut off): what waited, then
    /// bytes read up to the piece's size, cut after the last line break (what follows
    /// waits for the next piece). True when the input ends with it.
    pub(super) fn read_into(
        &mut self,
        lines: &mut Lines,
        buf: &mut Vec<u8>,
        start: usize,
    ) -> io::Result<bool> {
        // What waited, up to a piece (the first bytes can be longer: the rest of a
        // document given up, which waits for the pieces after).
        // (Never fewer than 8 bytes: a piece always holds a whole character.)
        let held = self.rest.len().min(self.size.max(8));
        // Room for a few bytes more than waited: a character cut short always ends.
        buf.resize(start + self.size.max(held + 4), 0);
        buf[start..start + held].copy_from_slice(&self.rest[..held]);
        self.rest.drain(..held);
        let more_waits = !self.rest.is_empty();
        if !more_waits && self.rest.capacity() > self.size {
            // It held the first piece, read whole to tell a long text from a short one.
            self.rest = Vec::new();
        }
        let read_to = start + held;
        if self.eof || more_waits {
            buf.truncate(read_to);
        } else {
            let result = lines.fill(&mut buf[read_to..]);
            let n = *result.as_ref().unwrap_or(&0);
            self.eof = read_to + n < buf.len();
            buf.truncate(read_to + n);
            result?;
        }
        let cut = start + piece_end(&buf[start..], self.eof && !more_waits);
        self.rest.splice(0..0, buf[cut..].iter().copied());
        buf.truncate(cut);
        Ok(self.eof && self.rest.is_empty())
    }

    /// The next piece, built in `spare` (a piece already used, or a new one), checked
    /// for UTF-8 and swept.
    pub(super) fn next(&mut self, lines: &mut Lines, spare: Option<Piece>) -> Piece {
        let mut piece = spare.unwrap_or_default();
        let mut openers = std::mem::take(&mut piece.openers);
        openers.clear();
        let mut raw = std::mem::take(&mut piece.text).into_bytes();
        if raw.capacity() > 2 * self.size {
            // The first piece (what was read to tell a long text from a short one) or
            // one grown by a long line: not kept by every piece that comes round again.
            raw = Vec::new();
        }
        let (last, error) = match self.read_into(lines, &mut raw, 0) {
            Ok(last) => (last, None),
            Err(e) => (false, Some(e)),
        };
        let (text, bad_utf8) = match string_from_utf8(raw) {
            Ok(text) => (text, None),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let before = memchr::memchr_iter(b'\n', &bytes[..valid]).count() as u64;
                (String::from_utf8_lossy(&bytes).into_owned(), Some(before))
            }
        };
        // Line breaks are counted in the same sweep, block by block. `WIL` is always
        // looked for: the window decides whether it still matters.
        let mut breaks = 0;
        let (wil, swept) = openers.sweep(text.as_bytes(), true, &super::opener_limit, |block| {
            breaks += memchr::memchr_iter(b'\n', block).count() as u64;
        });
        let dense = swept < text.len();
        if dense {
            breaks += memchr::memchr_iter(b'\n', &text.as_bytes()[swept..]).count() as u64;
            // Not kept for the next piece at this size.
            openers = Openers::default();
        }
        Piece {
            text,
            breaks,
            bad_utf8,
            last,
            openers,
            wil,
            dense,
            error,
        }
    }
}

/// Where a piece read into `raw` ends: after its last line break; with none (a line
/// longer than a piece), before a character cut short at the end. At the end of the
/// input, at its end.
fn piece_end(raw: &[u8], eof: bool) -> usize {
    if eof {
        return raw.len();
    }
    if let Some(n) = memchr::memrchr(b'\n', raw) {
        return n + 1;
    }
    let len = raw.len();
    for back in 1..=len.min(3) {
        let b = raw[len - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let width = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if width > back { len - back } else { len };
    }
    len
}

/// Reads `pieces` to the end on a second thread, sent in order; pieces the windows are
/// done with come back through `spares`. Stops early when the windows hang up.
pub(super) fn produce(
    mut pieces: Pieces,
    lines: &mut Lines,
    out: &SyncSender<Piece>,
    spares: &Receiver<Piece>,
) {
    loop {
        let piece = pieces.next(lines, spares.try_recv().ok());
        let end = piece.last || piece.error.is_some();
        if out.send(piece).is_err() || end {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_ends_after_its_last_line_break_or_between_characters() {
        assert_eq!(piece_end(b"ab\ncd\nef", false), 6);
        assert_eq!(piece_end(b"ab\ncd\nef", true), 8);
        assert_eq!(piece_end(b"abc", false), 3);
        // "é" is C3 A9, "€" is E2 82 AC, "😀" is F0 9F 98 80.
        assert_eq!(piece_end(b"ab\xC3", false), 2);
        assert_eq!(piece_end(b"ab\xC3\xA9", false), 4);
        assert_eq!(piece_end(b"ab\xE2\x82", false), 2);
        assert_eq!(piece_end(b"ab\xE2\x82\xAC", false), 5);
        assert_eq!(piece_end(b"a\xF0\x9F\x98", false), 1);
        assert_eq!(piece_end(b"a\xF0\x9F\x98\x80", false), 5);
        assert_eq!(piece_end(b"\x80\x80\x80", false), 3);
        assert_eq!(piece_end(b"", false), 0);
    }
}
