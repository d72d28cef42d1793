//! Server-Sent Events: `event:` and `data:` lines grouped into events by blank lines.
//! Lenient where recordings are sloppy: leading spaces, a missing space after the
//! colon, and a bare JSON line with no `data:` in front (some captures drop it).

/// One dispatched event.
#[derive(Debug, PartialEq)]
pub struct Event {
    pub data: String,
    /// Line of the event's first data line.
    pub line: u64,
}

#[derive(Default)]
pub struct Events {
    data: String,
    line: Option<u64>,
}

impl Events {
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
            if self.line.is_some()
                && value.starts_with(['{', '['])
                && serde_json::from_str::<serde::de::IgnoredAny>(&self.data).is_ok()
            {
                let done = self.end();
                self.data.push_str(value);
                self.line = Some(number);
                return done;
            }
            if self.line.is_some() {
                self.data.push('\n');
            } else {
                self.line = Some(number);
            }
            self.data.push_str(value);
            return None;
        }
        if line.starts_with('{') || line.starts_with('[') {
            // A JSON line with no field name: an event of its own.
            let pending = self.end();
            self.data.push_str(line);
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
        let line = self.line.take()?;
        Some(Event {
            data: std::mem::take(&mut self.data),
            line,
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
    fn groups_data_lines_by_blank_lines() {
        let got = events("event: a\ndata: {\"x\":\ndata:1}\n\n: comment\n data: [DONE]");
        assert_eq!(
            got,
            [
                Event {
                    data: "{\"x\":\n1}".into(),
                    line: 2
                },
                Event {
                    data: "[DONE]".into(),
                    line: 6
                }
            ]
        );
    }
}
