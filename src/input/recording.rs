//! Recordings read whole: YAML cassettes and saved HTTP, each exchange's bodies read
//! as the framing they hold.

use super::{Framing, MAX_LINE, Reader, cassette, http};
use crate::json::{Doc, LineIndex};
use std::io;

impl Reader<'_, '_> {
    /// JSON Lines or SSE held in memory (a cassette body, a document that was JSONL);
    /// `line_of` gives the file line of each of its lines.
    pub(super) fn blob_lines(
        &mut self,
        text: &str,
        framing: Framing,
        mut line_of: impl FnMut(usize, &str) -> u64,
    ) {
        let mut events = super::sse::Events::new(MAX_LINE);
        for (i, line) in text.split('\n').enumerate() {
            let line = line.trim_end_matches('\r');
            let number = line_of(i, line);
            match framing {
                Framing::Sse => {
                    if let Some(event) = events.line(line, number) {
                        let data = self.sse_event(event);
                        events.recycle(data);
                    }
                }
                _ => {
                    if !line.trim().is_empty() {
                        self.json_line(line.trim(), number);
                    }
                }
            }
        }
        if let Some(event) = events.end() {
            self.sse_event(event);
        }
    }

    /// A body embedded in a cassette: JSON, SSE or JSON Lines, with the lines the
    /// cassette gives it.
    pub(super) fn embedded(&mut self, body: &cassette::Body) {
        let decoded;
        let text = match &body.binary {
            None => body.text.as_str(),
            Some(binary) => match binary.decode() {
                Ok((text, warning)) => {
                    // A stream broken part way: the calls after the break are not read.
                    if let Some(message) = warning {
                        self.skip(Some(body.line), message);
                    }
                    decoded = text;
                    decoded.as_str()
                }
                Err(message) => {
                    self.skip(Some(body.line), message);
                    return;
                }
            },
        };
        let trimmed = text.trim_start_matches('\u{feff}').trim();
        // The file line of the trimmed body's first line.
        let first_line = if body.raw {
            let lead = text.len() - text.trim_start_matches('\u{feff}').trim_start().len();
            body.line + memchr::memchr_iter(b'\n', &text.as_bytes()[..lead]).count() as u64
        } else {
            body.line
        };
        if trimmed.starts_with("data:") || trimmed.starts_with("event:") {
            let mut data = body.data_lines.iter();
            let mut current = body.line;
            self.blob_lines(trimmed, Framing::Sse, |_, line| {
                if line.trim_start().starts_with("data:")
                    && let Some(&at) = data.next()
                {
                    current = at;
                }
                current
            });
        } else if trimmed.starts_with('{') || trimmed.starts_with('[') {
            match Doc::parse(trimmed) {
                Ok(doc) => {
                    let lines = if body.raw {
                        LineIndex::new(trimmed, first_line)
                    } else if body.anchors.is_empty() {
                        LineIndex::fixed(body.line)
                    } else {
                        LineIndex::anchored(body.line, body.anchors.clone())
                    };
                    if !self.interp.feed(doc.root(), &lines) {
                        self.interp
                            .feed_unknown_json(doc.root(), trimmed, body.line, &lines);
                    }
                    self.lossy |= doc.lossy();
                }
                Err(_) => self.blob_lines(trimmed, Framing::Jsonl, |i, _| {
                    if body.raw {
                        first_line + i as u64
                    } else {
                        body.line
                    }
                }),
            }
        } else if !trimmed.is_empty() {
            self.interp.feed_text(trimmed, body.line);
        }
    }

    /// Recorded exchanges: requests replay the conversation so far (the interpreter
    /// keeps what no earlier request or response held); responses hold the calls.
    pub(super) fn interactions(
        &mut self,
        interactions: Vec<cassette::Interaction>,
    ) -> io::Result<()> {
        // A recording is a known shape, whatever its bodies hold (a request to another
        // API, a body not decoded).
        self.shape_known = true;
        for interaction in interactions {
            self.interp.set_history(true);
            for body in &interaction.request {
                self.embedded(body);
            }
            self.interp.finish();
            self.interp.set_history(false);
            for body in &interaction.response {
                self.embedded(body);
            }
            self.interp.finish();
            self.pump()?;
        }
        Ok(())
    }

    /// Saved HTTP messages (see [`http`]), read as a cassette's interactions are.
    pub(super) fn http(&mut self, text: &str) -> io::Result<()> {
        let (exchanges, warnings) = http::parse(text);
        for (line, message) in warnings {
            self.skip(Some(line), message);
        }
        self.interactions(exchanges)
    }

    pub(super) fn yaml(&mut self, text: &str) -> io::Result<()> {
        match cassette::parse(text) {
            Ok(interactions) => self.interactions(interactions)?,
            Err(e) => {
                self.warn(
                    Some(e.line),
                    format!("invalid YAML ({}); scanning it as text", e.message),
                );
                self.interp.feed_text(text, 1);
            }
        }
        Ok(())
    }
}
