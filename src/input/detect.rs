//! Auto-detection of a source's framing from its first non-blank line.

use super::lines::Ahead;
use super::{Framing, Lines, Reader, strip_bom};
use std::io;

impl Reader<'_, '_> {
    /// Auto-detection: reads up to the first non-blank line and leaves it in `lines`;
    /// `None` when the input holds nothing but white space.
    pub(super) fn detect(&mut self, lines: &mut Lines) -> io::Result<Option<Framing>> {
        if lines.peek_nonblank()?.is_none() {
            return Ok(None);
        }
        let cut = lines.ahead_cut;
        let first = match lines.ahead.last() {
            Some((_, Ahead::Bytes(b))) => b.as_slice(),
            _ => &[],
        };
        let first = strip_bom(first).trim_ascii_start();
        if cut && starts_like_json(first) {
            // A first line past the detection's look: an array on one line is a
            // document, read element by element; an object, a large record.
            return Ok(Some(if first[0] == b'[' {
                Framing::Json
            } else {
                Framing::Jsonl
            }));
        }
        let first = first.trim_ascii_end();
        if starts_like_json(first) {
            // A value that ends on its first line starts JSON Lines; one that goes on is
            // a document (pretty-printed).
            match serde_json::from_slice::<serde::de::IgnoredAny>(first) {
                Ok(_) => return Ok(Some(Framing::Jsonl)),
                // `[2026-11-25 12:00:00] INFO …`: a log line, not an array that goes on;
                // read as text, streamed, rather than whole as a document.
                Err(e) if first[0] == b'[' && !e.is_eof() => return Ok(Some(Framing::Auto)),
                Err(_) => return Ok(Some(Framing::Json)),
            }
        }
        for field in [&b"data:"[..], b"event:", b"id:", b"retry:"] {
            if first.starts_with(field) {
                return Ok(Some(Framing::Sse));
            }
        }
        Ok(Some(Framing::Auto))
    }
}

/// `{` or `[` followed by what can come next in JSON: text such as `[TOOL_CALLS]` or
/// `[f(a=1)]` is not mistaken for a broken document.
pub(crate) fn starts_like_json(line: &[u8]) -> bool {
    let (open, rest) = match line.split_first() {
        Some((&b, rest)) if b == b'{' || b == b'[' => (b, rest.trim_ascii_start()),
        _ => return false,
    };
    match rest.first() {
        None | Some(b'"') => true,
        Some(b'}') => open == b'{',
        Some(b'{' | b'[' | b']' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => open == b'[',
        _ => false,
    }
}
