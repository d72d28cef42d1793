//! Server-Sent Events: `event:` and `data:` lines grouped into events by blank lines.
//! Lenient where recordings are sloppy: leading spaces, a missing space after the
//! colon, and a bare JSON line with no `data:` in front (some captures drop it).

/// One dispatched event.
#[derive(Debug, PartialEq)]
pub struct Event {
    pub data: String,
    /// Line of the event's first data line.
    pub line: u64,
    /// Its data ran past the limit: it was dropped (`data` is empty), not held.
    pub too_long: bool,
}

#[derive(Default)]
pub struct Events {
    data: String,
    line: Option<u64>,
    /// The longest event held (0: no limit).
    max: usize,
    /// The event's data ran past `max`: the rest of it is passed over.
    too_long: bool,
    /// Where the gathered data stands as JSON, kept as lines come, so that asking
    /// whether it is a complete value costs nothing per line (reparsing it each time
    /// made a long event quadratic).
    shape: Shape,
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
    fn feed(&mut self, text: &str) {
        for &b in text.as_bytes() {
            if self.in_string {
                match b {
                    _ if self.escaped => self.escaped = false,
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
    pub fn new(max: usize) -> Events {
        Events {
            max,
            ..Events::default()
        }
    }

    /// Adds a data line's value, or passes it over once the event is too long.
    fn push(&mut self, value: &str, newline: bool) {
        self.shape.feed(value);
        if self.too_long {
            return;
        }
        if self.max > 0 && self.data.len() + value.len() + 1 > self.max {
            self.too_long = true;
            self.data = String::new();
            return;
        }
        if newline {
            self.data.push('\n');
        }
        self.data.push_str(value);
    }

    /// Whether the data gathered is one complete JSON value.
    fn complete(&self) -> bool {
        self.shape.closed()
            && (self.too_long || serde_json::from_str::<serde::de::IgnoredAny>(&self.data).is_ok())
    }

    /// Feeds one line (without its line break); returns an event when one is complete.
    pub fn line(&mut self, line: &str, number: u64) -> Option<Event> {
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
    pub fn recycle(&mut self, mut data: String) {
        if self.data.is_empty() && self.data.capacity() < data.capacity() {
            data.clear();
            self.data = data;
        }
    }

    /// Dispatches what has accumulated (at a blank line or the end of input).
    pub fn end(&mut self) -> Option<Event> {
        self.shape = Shape::default();
        let too_long = std::mem::take(&mut self.too_long);
        let line = self.line.take()?;
        Some(Event {
            data: std::mem::take(&mut self.data),
            line,
            too_long,
        })
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
