//! Server-Sent Events: `event:` and `data:` lines grouped into events by blank lines.
//! Lenient where recordings are sloppy: leading spaces, a missing space after the
//! colon, and a bare JSON line with no `data:` in front (some captures drop it).

use super::{Line, Lines, MAX_LINE, Reader, STREAM_DOCUMENT, json_error, limit_text, strip_bom};
use crate::json::{Doc, LineIndex};
use std::io;

/// One dispatched event.
#[derive(Debug, PartialEq)]
pub(super) struct Event {
    pub(crate) data: String,
    /// Line of the event's first data line.
    pub(crate) line: u64,
    /// Its data ran past the limit: it was dropped (`data` is empty), not held.
    pub(crate) too_long: bool,
}

#[derive(Default)]
pub(super) struct Events {
    data: String,
    line: Option<u64>,
    /// The longest event held (0: no limit).
    max: usize,
    /// The event's data ran past `max`: the rest of it is passed over.
    too_long: bool,
    /// Where the gathered data stands as JSON, so that asking whether it is a
    /// complete value does not parse it again (reparsing it on every line made a long
    /// event quadratic). Brought up to date only when asked (see `fed`): most events
    /// are one data line, never asked about.
    shape: Shape,
    /// How much of `data` the shape has seen: each byte is fed once, so a long event
    /// stays linear.
    fed: usize,
}

/// Brackets open outside strings in the data gathered so far.
#[derive(Default, Clone, Copy)]
struct Shape {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// A closing bracket with none open: the data is not one value.
    broken: bool,
    /// Something other than white space was seen.
    started: bool,
}

impl Shape {
    /// Feeds data lines' values, or the data gathered from them. The `\n` put between
    /// two lines is no part of either (a line's value holds none) and changes nothing:
    /// outside an escape it has no effect, and after a backslash that ends a line the
    /// escape still takes the next line's first byte.
    fn feed(&mut self, text: &str) {
        for &b in text.as_bytes() {
            if self.in_string {
                match b {
                    _ if self.escaped => self.escaped = b == b'\n',
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => match self.depth.checked_sub(1) {
                    Some(d) => self.depth = d,
                    None => self.broken = true,
                },
                _ => {}
            }
            self.started |= !b.is_ascii_whitespace();
        }
    }

    /// Whether the data may be one complete value (then it is worth parsing).
    fn closed(&self) -> bool {
        self.started && self.depth == 0 && !self.in_string && !self.broken
    }
}

impl Events {
    /// Events whose data is held up to `max` bytes; a longer one is dropped and
    /// dispatched marked `too_long`.
    pub(super) fn new(max: usize) -> Events {
        Events {
            max,
            ..Events::default()
        }
    }

    /// Adds a data line's value, or passes it over once the event is too long.
    fn push(&mut self, value: &str, newline: bool) {
        debug_assert!(!value.contains('\n'), "a data line holds no line break");
        if self.too_long {
            // No data is held to catch up on later: the shape follows the lines.
            self.shape.feed(value);
            return;
        }
        if self.max > 0 && self.data.len() + value.len() + 1 > self.max {
            // The shape catches up on the data before it is dropped.
            self.shape.feed(&self.data[self.fed..]);
            self.shape.feed(value);
            self.too_long = true;
            self.data = String::new();
            self.fed = 0;
            return;
        }
        if newline {
            self.data.push('\n');
        }
        self.data.push_str(value);
    }

    /// Whether the data gathered is one complete JSON value.
    fn complete(&mut self) -> bool {
        self.shape.feed(&self.data[self.fed..]);
        self.fed = self.data.len();
        self.shape.closed()
            && (self.too_long || serde_json::from_str::<serde::de::IgnoredAny>(&self.data).is_ok())
    }

    /// Feeds one line (without its line break); returns an event when one is complete.
    pub(super) fn line(&mut self, line: &str, number: u64) -> Option<Event> {
        let line = line.trim_start();
        if line.is_empty() {
            return self.end();
        }
        if line.starts_with(':') {
            return None;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            // Captures that drop the blank lines between events: a data line that
            // starts a JSON value after a complete one starts a new event.
            if self.line.is_some() && value.starts_with(['{', '[']) && self.complete() {
                let done = self.end();
                self.push(value, false);
                self.line = Some(number);
                return done;
            }
            let newline = self.line.is_some();
            if !newline {
                self.line = Some(number);
            }
            self.push(value, newline);
            return None;
        }
        if line.starts_with('{') || line.starts_with('[') {
            // A JSON line with no field name: an event of its own.
            let pending = self.end();
            self.push(line, false);
            self.line = Some(number);
            return match pending {
                Some(p) => Some(p),
                None => self.end(),
            };
        }
        // event:, id:, retry: and unknown fields carry nothing toolsift needs.
        None
    }

    /// Takes back an event's buffer once it has been read, so the next event reuses
    /// its allocation.
    pub(super) fn recycle(&mut self, mut data: String) {
        if self.data.is_empty() && self.data.capacity() < data.capacity() {
            data.clear();
            self.data = data;
        }
    }

    /// Dispatches what has accumulated (at a blank line or the end of input).
    pub(super) fn end(&mut self) -> Option<Event> {
        self.shape = Shape::default();
        self.fed = 0;
        let too_long = std::mem::take(&mut self.too_long);
        let line = self.line.take()?;
        Some(Event {
            data: std::mem::take(&mut self.data),
            line,
            too_long,
        })
    }
}

impl Reader<'_, '_> {
    pub(super) fn sse(&mut self, lines: &mut Lines) -> io::Result<()> {
        let mut events = Events::new(MAX_LINE);
        while let Some(Line {
            number,
            raw,
            skipped,
        }) = lines.next_line()?
        {
            self.report_skipped(skipped);
            let raw = strip_bom(raw).trim_ascii_end();
            let text = self.utf8(raw, number);
            if let Some(event) = events.line(&text, number) {
                let data = self.sse_event(event);
                events.recycle(data);
                self.pump()?;
            }
        }
        self.report_overlong(lines);
        if let Some(event) = events.end() {
            self.sse_event(event);
        }
        Ok(())
    }

    /// One event's data; gives back its buffer for reuse.
    pub(super) fn sse_event(&mut self, event: Event) -> String {
        if event.too_long {
            self.skip(
                Some(event.line),
                format!("event longer than {}; skipped", limit_text()),
            );
            return event.data;
        }
        let long = event.data.trim().len() > STREAM_DOCUMENT;
        if long && self.window > 0 {
            let data = event.data.trim();
            // Checked without a tape first: a long event that is no JSON is read as
            // long plain text is, in windows, not scanned whole (an array is read
            // element by element in `sse_data`).
            if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(data) {
                self.warn(
                    Some(event.line),
                    format!(
                        "event data is not JSON ({}); scanning it as text",
                        json_error(&e)
                    ),
                );
                // Trimmed in place: the event's buffer becomes the text.
                let (start, end) = {
                    let data = event.data.as_str();
                    let start = data.len() - data.trim_start().len();
                    (start, data.trim_end().len())
                };
                let mut text = event.data.into_bytes();
                text.truncate(end);
                text.drain(..start);
                if let Err(e) = self.long_text(text, event.line) {
                    self.held_error = Some(e);
                }
                return String::new();
            }
        }
        self.sse_data(&event.data, event.line);
        event.data
    }

    pub(super) fn sse_data(&mut self, data: &str, line: u64) {
        let data = data.trim();
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            self.interp.stream_done();
            return;
        }
        if data.len() > STREAM_DOCUMENT && data.starts_with('[') && self.sse_elements(data, line) {
            return;
        }
        self.sse_value(data, line, false);
    }

    /// An event's data, or one element of a long event's array (`item`, see
    /// [`Reader::sse_elements`]): walked as JSON, or scanned as text when it is none.
    pub(super) fn sse_value(&mut self, text: &str, line: u64, item: bool) {
        match Doc::parse(text) {
            Ok(doc) => {
                let lines = LineIndex::new(text, line);
                self.feed_value(&doc, text, line, &lines, item);
            }
            Err(e) => {
                self.warn(
                    Some(line),
                    format!(
                        "event data is not JSON ({}); scanning it as text",
                        json_error(&e)
                    ),
                );
                if item {
                    self.interp.feed_text(text, line);
                } else {
                    self.text_instead(text, line);
                }
            }
        }
    }

    /// A long event whose data is a JSON array, read element by element as a long
    /// document is (its tape would be many times its size): false, and nothing read,
    /// when the data does not split into elements.
    pub(super) fn sse_elements(&mut self, data: &str, line: u64) -> bool {
        let bytes = data.as_bytes();
        // First only split, then read: an array that does not split is read whole, as
        // a short one is.
        for read in [false, true] {
            let mut split = super::document::Splitter::new(MAX_LINE);
            let mut pos = 0;
            loop {
                match split.next(bytes, &mut pos) {
                    Some(super::document::Found::Element) => {
                        if read {
                            let (element, at) = split.element();
                            // Bytes of the event's text, cut between values: UTF-8.
                            let text = String::from_utf8_lossy(element);
                            self.sse_value(&text, line + at - 1, true);
                            // Its records go now: an element's turns are not held for
                            // the whole event.
                            if let Err(e) = self.pump() {
                                self.held_error = Some(e);
                                return true;
                            }
                        }
                        split.clear_element();
                    }
                    // The chunk is used up: whole when the array closed and only
                    // white space followed.
                    None if split.at_end().is_ok() => break,
                    Some(super::document::Found::End) => {}
                    _ => return false,
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<Event> {
        let mut e = Events::default();
        let mut out: Vec<Event> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| e.line(l, i as u64 + 1))
            .collect();
        out.extend(e.end());
        out
    }

    #[test]
    fn events_without_blank_lines_between_them() {
        let got = events("data: {\"a\":1}\ndata: {\"b\":2}\ndata: [DONE]");
        let data: Vec<&str> = got.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["{\"a\":1}", "{\"b\":2}", "[DONE]"]);
        assert_eq!(got[1].line, 2);
    }

    #[test]
    fn a_long_event_is_read_in_linear_time() {
        // An array opened on the first data line and never closed: no line may make
        // the whole event be parsed again.
        let mut text = String::from("data: [\n");
        for _ in 0..200_000 {
            text.push_str("data: {\"a\":\"}]\\\"\"},\n");
        }
        let start = std::time::Instant::now();
        let got = events(&text);
        assert_eq!(got.len(), 1);
        assert!(got[0].data.len() > 2_000_000);
        // Quadratic, this took minutes; linear, well under a second even unoptimized.
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn strings_and_escapes_do_not_close_an_event() {
        // Brackets and an escaped quote inside a string leave the object open; a
        // closing brace on the next line ends it, and the line after starts the next.
        let got = events("data: {\"s\": \"}]\\\"{\",\ndata: \"t\": 1}\ndata: {\"next\": 2}");
        let data: Vec<&str> = got.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["{\"s\": \"}]\\\"{\",\n\"t\": 1}", "{\"next\": 2}"]);
    }

    #[test]
    fn the_shape_of_an_event_dropped_as_too_long_counts_every_line() {
        // The data held is caught up on before it is dropped: the escape that ends the
        // first line takes the second line's quote (the line break between them is no
        // part of the data), so the object closes only on the third line, the one
        // past the limit, and the fourth line starts the next event.
        let mut e = Events::new(12);
        let text = "data: {\"s\": \"a\\\ndata: \"}\ndata: \"}\ndata: {\"n\": 1}";
        let mut got: Vec<Event> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| e.line(l, i as u64 + 1))
            .collect();
        got.extend(e.end());
        assert_eq!(
            got,
            [
                Event {
                    data: String::new(),
                    line: 1,
                    too_long: true
                },
                Event {
                    data: "{\"n\": 1}".into(),
                    line: 4,
                    too_long: false
                }
            ]
        );
    }

    #[test]
    fn groups_data_lines_by_blank_lines() {
        let got = events("event: a\ndata: {\"x\":\ndata:1}\n\n: comment\n data: [DONE]");
        assert_eq!(
            got,
            [
                Event {
                    data: "{\"x\":\n1}".into(),
                    line: 2,
                    too_long: false
                },
                Event {
                    data: "[DONE]".into(),
                    line: 6,
                    too_long: false
                }
            ]
        );
    }
}
