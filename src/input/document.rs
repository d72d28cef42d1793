//! A top-level JSON array cut into its elements as its bytes come, so that a large
//! document is read element by element, as JSON Lines are, and never held whole. The
//! splitter only finds where each element ends (brackets and strings); each element is
//! then parsed on its own, which checks it.

use super::{
    Framing, Lines, MAX_DOCUMENT, MAX_LINE, Reader, STREAM_DOCUMENT, json_error, limit_text,
    strip_bom,
};
use crate::json::{Doc, LineIndex, Node};
use std::io;

/// What [`Splitter::next`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// An element is complete: see [`Splitter::element`].
    Element,
    /// The array is closed; only white space may follow.
    End,
    /// Not a JSON array: `what` is wrong on `line` (the byte at the position is not
    /// consumed).
    Bad { line: u64, what: String },
    /// An element, starting on `line`, is longer than the limit.
    TooLong { line: u64 },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening bracket.
    Start,
    /// Inside the array, where an element or (unless after a comma) its end may come.
    Open { after_comma: bool },
    /// Inside an element.
    Element,
    /// After the closing bracket.
    After,
}

/// How deep an element may nest: the JSON readers give up well before this (see
/// `crate::json`), so a deeper one would be held, up to the size limit, for nothing.
const MAX_DEPTH: usize = 512;

/// Cuts a JSON array into elements; see the module.
pub(super) struct Splitter {
    state: State,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The line of the next byte.
    line: u64,
    /// The element being gathered, and its first line.
    element: Vec<u8>,
    element_line: u64,
    /// No element is held longer than this.
    max: usize,
    /// A byte-order mark may still come (nothing read yet).
    fresh: bool,
}

impl Splitter {
    pub(super) fn new(max: usize) -> Splitter {
        Splitter {
            state: State::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            line: 1,
            element: Vec::new(),
            element_line: 1,
            max,
            fresh: true,
        }
    }

    /// The element found last, and its first line.
    pub(super) fn element(&self) -> (&[u8], u64) {
        (&self.element, self.element_line)
    }

    /// Lets the element found last go (its buffer is kept unless it grew large).
    pub(super) fn clear_element(&mut self) {
        self.element.clear();
        if self.element.capacity() > 1 << 20 {
            self.element = Vec::new();
        }
    }

    /// What is held of the element being read, and the line it starts on (the current
    /// line when none is held): where text starts once the array is given up.
    pub(super) fn take_pending(&mut self) -> (Vec<u8>, u64) {
        let line = if self.element.is_empty() {
            self.line
        } else {
            self.element_line
        };
        (std::mem::take(&mut self.element), line)
    }

    /// At the end of the input: fine when the array was closed, else what is missing.
    pub(super) fn at_end(&self) -> Result<(), (u64, String)> {
        match self.state {
            State::After => Ok(()),
            _ => Err((self.line, "the input ends inside the array".to_string())),
        }
    }

    /// Reads `chunk` from `pos` on until something is found (then `pos` is past it, or
    /// at the bad byte); `None` when the chunk is used up.
    pub(super) fn next(&mut self, chunk: &[u8], pos: &mut usize) -> Option<Found> {
        if self.fresh && *pos == 0 && chunk.starts_with(super::BOM) {
            *pos = super::BOM.len();
        }
        if !chunk.is_empty() {
            self.fresh = false;
        }
        // Where the bytes of the element being read start in this chunk.
        let mut mark = *pos;
        let mut i = *pos;
        while i < chunk.len() {
            let b = chunk[i];
            match self.state {
                State::Element => {
                    if self.element.len() + (i - mark) >= self.max {
                        self.element.extend_from_slice(&chunk[mark..i]);
                        *pos = i;
                        return Some(Found::TooLong {
                            line: self.element_line,
                        });
                    }
                    if self.in_string {
                        match b {
                            _ if self.escaped => self.escaped = false,
                            b'\\' => self.escaped = true,
                            b'"' => self.in_string = false,
                            b'\n' => self.line += 1,
                            _ => {}
                        }
                        i += 1;
                        continue;
                    }
                    match b {
                        b'"' => self.in_string = true,
                        b'{' | b'[' if self.depth >= MAX_DEPTH => {
                            // Deeper than any reader of the element goes: not held.
                            self.element.extend_from_slice(&chunk[mark..i]);
                            *pos = i;
                            return Some(Found::Bad {
                                line: self.line,
                                what: format!("nested deeper than {MAX_DEPTH} levels"),
                            });
                        }
                        b'{' | b'[' => self.depth += 1,
                        b'}' | b']' if self.depth > 0 => self.depth -= 1,
                        b']' | b',' if self.depth == 0 => {
                            // The element ends before its delimiter.
                            self.element.extend_from_slice(&chunk[mark..i]);
                            self.state = if b == b',' {
                                State::Open { after_comma: true }
                            } else {
                                State::After
                            };
                            *pos = i + 1;
                            return Some(Found::Element);
                        }
                        b'\n' => self.line += 1,
                        _ if !json_byte(b) => {
                            // No JSON value holds this byte outside a string: text.
                            self.element.extend_from_slice(&chunk[mark..i]);
                            *pos = i;
                            return Some(Found::Bad {
                                line: self.line,
                                what: format!("unexpected character {:?}", b as char),
                            });
                        }
                        _ => {}
                    }
                    i += 1;
                }
                State::Start | State::Open { .. } | State::After => {
                    if b.is_ascii_whitespace() {
                        if b == b'\n' {
                            self.line += 1;
                        }
                        i += 1;
                        continue;
                    }
                    let bad = |what: &str| {
                        Some(Found::Bad {
                            line: self.line,
                            what: what.to_string(),
                        })
                    };
                    match (self.state, b) {
                        (State::Start, b'[') => {
                            self.state = State::Open { after_comma: false };
                            i += 1;
                        }
                        (State::Start, _) => {
                            *pos = i;
                            return bad("not an array");
                        }
                        (State::After, _) => {
                            *pos = i;
                            return bad("characters after the end of the array");
                        }
                        (State::Open { after_comma: false }, b']') => {
                            self.state = State::After;
                            *pos = i + 1;
                            return Some(Found::End);
                        }
                        (State::Open { .. }, b']' | b',') => {
                            *pos = i;
                            return bad("a value is missing in the array");
                        }
                        (State::Open { .. }, _) => {
                            // An element starts here; this byte is read again as its
                            // first.
                            self.state = State::Element;
                            self.depth = 0;
                            self.in_string = false;
                            self.escaped = false;
                            self.element.clear();
                            self.element_line = self.line;
                            mark = i;
                        }
                        (State::Element, _) => unreachable!(),
                    }
                }
            }
        }
        if self.state == State::Element {
            self.element.extend_from_slice(&chunk[mark..]);
        }
        *pos = chunk.len();
        None
    }
}

/// Whether `b` can stand outside a string in JSON (a number, `true`, `false`, `null`,
/// punctuation or white space).
fn json_byte(b: u8) -> bool {
    matches!(
        b,
        b'0'..=b'9'
            | b'-'
            | b'+'
            | b'.'
            | b'e'
            | b'E'
            | b'a'
            | b'f'
            | b'l'
            | b'n'
            | b'r'
            | b's'
            | b't'
            | b'u'
            | b'{'
            | b'}'
            | b'['
            | b']'
            | b','
            | b':'
            | b'"'
            | b' '
            | b'\t'
            | b'\r'
            | b'\n'
    )
}

impl Reader<'_, '_> {
    /// A JSON document: read whole up to [`STREAM_DOCUMENT`]; longer, an array is read
    /// element by element and anything else, up to [`MAX_DOCUMENT`], whole. A document
    /// that turns out not to be JSON, or an element or document past its limit, is
    /// reported and the rest is scanned as text, in windows: never held whole. True when
    /// the source was read as text in windows (finished already).
    pub(super) fn json_streamed(&mut self, lines: &mut Lines) -> io::Result<bool> {
        let mut held = Vec::new();
        if lines.read_some(&mut held, STREAM_DOCUMENT)? {
            self.whole(held, Framing::Json)?;
            return Ok(false);
        }
        let body = strip_bom(&held).trim_ascii_start();
        if body.starts_with(b"[") {
            return self.array_elements(held, lines);
        }
        let more = MAX_DOCUMENT - held.len();
        if !lines.read_some(&mut held, more)? {
            self.warn(
                Some(1),
                format!(
                    "JSON document larger than {} MiB that is no array; scanning it as text",
                    MAX_DOCUMENT >> 20
                ),
            );
            self.windowed_text(held, lines, 1)?;
            return Ok(true);
        }
        self.whole(held, Framing::Json)?;
        Ok(false)
    }

    /// A top-level JSON array read element by element: each element is walked as the
    /// document's own items are, and its records are written before the next is read.
    /// True when the rest was read as text in windows.
    pub(super) fn array_elements(&mut self, held: Vec<u8>, lines: &mut Lines) -> io::Result<bool> {
        let mut split = Splitter::new(MAX_LINE);
        let mut chunk = held;
        let mut pos = 0;
        loop {
            let found = split.next(&chunk, &mut pos);
            let problem = match found {
                Some(Found::Element) => {
                    let (bytes, line) = split.element();
                    let text = self.utf8(bytes, line);
                    let problem = match Doc::parse(&text) {
                        Ok(doc) => {
                            let index = LineIndex::new(&text, line);
                            self.feed_value(&doc, &text, line, &index, true);
                            None
                        }
                        Err(e) => Some((
                            line + e.line().saturating_sub(1) as u64,
                            format!("invalid JSON document ({})", json_error(&e)),
                        )),
                    };
                    if problem.is_none() {
                        self.note_lossy(Some(line));
                        self.pump()?;
                        split.clear_element();
                        continue;
                    }
                    problem
                }
                Some(Found::End) => None,
                Some(Found::Bad { line, what }) => {
                    Some((line, format!("invalid JSON document ({what})")))
                }
                Some(Found::TooLong { line }) => Some((
                    line,
                    format!("JSON document with an element longer than {}", limit_text()),
                )),
                None => {
                    // The chunk is read: the next one.
                    chunk.clear();
                    chunk.resize(256 << 10, 0);
                    let n = lines.fill(&mut chunk)?;
                    chunk.truncate(n);
                    pos = 0;
                    if n == 0 {
                        match split.at_end() {
                            Ok(()) => return Ok(false),
                            Err((line, what)) => {
                                Some((line, format!("invalid JSON document ({what})")))
                            }
                        }
                    } else {
                        continue;
                    }
                }
            };
            let Some((line, message)) = problem else {
                continue;
            };
            // Not one JSON value after all: what is held of it, then the rest, as text.
            self.warn(Some(line), format!("{message}; scanning the rest as text"));
            self.interp.finish();
            self.pump()?;
            let (mut first, first_line) = split.take_pending();
            first.extend_from_slice(&chunk[pos.min(chunk.len())..]);
            drop(chunk);
            self.windowed_text(first, lines, first_line)?;
            return Ok(true);
        }
    }

    /// A whole JSON document. A document that does not parse is reported once and
    /// read as JSON Lines when its lines are JSON, else scanned as text.
    pub(super) fn document(&mut self, text: &str, first_line: u64) -> io::Result<()> {
        match Doc::parse(text) {
            Ok(doc) => {
                let lines = LineIndex::new(text, first_line);
                self.feed_value(&doc, text, first_line, &lines, false);
            }
            Err(e) => {
                if let Some(second) = text.lines().skip(1).find(|l| !l.trim().is_empty())
                    && Doc::parse(second.trim()).is_ok()
                {
                    self.blob_lines(text, Framing::Jsonl, |i, _| first_line + i as u64);
                } else {
                    self.warn(
                        Some(first_line + e.line().saturating_sub(1) as u64),
                        format!(
                            "invalid JSON document ({}); scanning it as text",
                            json_error(&e)
                        ),
                    );
                    self.text_instead(text, first_line);
                }
            }
        }
        self.pump()
    }
}

/// How JSON of no known shape is described: its top-level keys, or for an array those
/// of its first object (`item`: `node` is an element of a top-level array); `None` for
/// an empty or scalar value, which holds nothing to lose.
pub(super) fn shape_of(node: Node, item: bool) -> Option<String> {
    const SHOWN: usize = 12;
    let keys = |obj: &crate::json::Obj| {
        let keys: Vec<String> = obj.iter().map(|(k, _)| k.into_owned()).collect();
        let mut list = keys[..keys.len().min(SHOWN)].join(", ");
        if keys.len() > SHOWN {
            list += &format!(", … ({} in all)", keys.len());
        }
        list
    };
    let first_object = |obj: &crate::json::Obj| {
        format!("a top-level array; keys of its first object: {}", keys(obj))
    };
    if let Some(obj) = node.object().filter(|o| !o.is_empty()) {
        return Some(if item {
            first_object(&obj)
        } else {
            format!("top-level keys: {}", keys(&obj))
        });
    }
    if item {
        return None;
    }
    let items = node
        .array()
        .filter(|a| !a.iter().all(|i| i.object().is_some_and(|o| o.is_empty())))?;
    Some(
        match items
            .iter()
            .find_map(|i| i.object().filter(|o| !o.is_empty()))
        {
            Some(obj) => first_object(&obj),
            None => "a top-level array of no objects".to_owned(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The elements of `text` fed in chunks of `size`, and how it ended.
    fn split(text: &str, size: usize) -> (Vec<(String, u64)>, Option<Found>) {
        let mut s = Splitter::new(64);
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(size) {
            let mut pos = 0;
            while let Some(found) = s.next(chunk, &mut pos) {
                match found {
                    Found::Element => {
                        let (e, line) = s.element();
                        out.push((String::from_utf8_lossy(e).trim().to_string(), line));
                        s.clear_element();
                    }
                    Found::End => {}
                    other => return (out, Some(other)),
                }
            }
        }
        let end = s
            .at_end()
            .err()
            .map(|(line, what)| Found::Bad { line, what });
        (out, end)
    }

    #[test]
    fn elements_come_whole_whatever_the_chunks() {
        let text = " [\n {\"a\": \"],{\\\"\"},\n [1, [2]] ,\n\"x\", 3.5 ]\n ";
        for size in [1, 2, 3, 7, 100] {
            let (elements, end) = split(text, size);
            assert_eq!(end, None, "chunks of {size}");
            let want = [
                ("{\"a\": \"],{\\\"\"}", 2),
                ("[1, [2]]", 3),
                ("\"x\"", 4),
                ("3.5", 4),
            ];
            let got: Vec<(&str, u64)> = elements.iter().map(|(e, l)| (e.as_str(), *l)).collect();
            assert_eq!(got, want, "chunks of {size}");
        }
    }

    #[test]
    fn what_is_no_array_is_found_where_it_is() {
        assert_eq!(split("[]", 1), (vec![], None));
        assert_eq!(split("\u{feff}[1]", 10).0.len(), 1);
        let (_, end) = split("[1,]", 1);
        assert!(matches!(end, Some(Found::Bad { line: 1, .. })));
        let (elements, end) = split("[1]\n x", 1);
        assert_eq!(elements.len(), 1);
        assert!(matches!(end, Some(Found::Bad { line: 2, .. })));
        let (_, end) = split("[\n[\n[\n", 1);
        assert!(matches!(end, Some(Found::Bad { line: 4, .. })));
        // Text is told at its first byte that no JSON value holds.
        let (_, end) = split("[\n[\n<b>", 2);
        assert!(matches!(end, Some(Found::Bad { line: 3, .. })));
        let long = format!("[1, \"{}\"]", "x".repeat(100));
        let (elements, end) = split(&long, 5);
        assert_eq!(elements.len(), 1);
        assert_eq!(end, Some(Found::TooLong { line: 1 }));
    }
}
