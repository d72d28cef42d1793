//! JSON Lines on two threads: this module's side reads records, checks their UTF-8 and
//! parses them into tapes, in batches; the reader's thread walks the batches in order
//! (see [`super::Reader::jsonl_pipelined`]). Parsing is about a third of the work on a
//! JSON Lines log, so a second core takes that share off the walk.

use super::{Line, Lines, Overlong, json_error, overlong_message, strip_bom};
use crate::json::{Doc, Slot};
use std::io;
use std::sync::mpsc::{Receiver, SyncSender};

/// A batch is handed over once its records' text reaches this size.
const BATCH_BYTES: usize = 128 << 10;

/// Batches waiting for the walk at most: memory stays bounded when parsing runs ahead.
pub(super) const IN_FLIGHT: usize = 2;

/// Records read and parsed, in input order.
#[derive(Default)]
pub(super) struct Batch {
    /// The records' texts, one after another (bad UTF-8 already replaced).
    text: String,
    /// The tapes of the records that parsed, one after another.
    tapes: Vec<Slot>,
    pub(crate) records: Vec<Record>,
    /// A read error after the last record: the source ends with it.
    pub(crate) error: Option<io::Error>,
}

/// One non-blank line of the source.
pub(super) struct Record {
    pub(crate) number: u64,
    text: (usize, usize),
    /// Where its tape sits in the batch's tapes, or why it is not JSON.
    pub(crate) tape: Result<(usize, usize), String>,
    /// The record's line, if it holds bytes that are not UTF-8.
    pub(crate) bad_utf8: Option<u64>,
    /// The line was too long and passed over: this warning is all there is of it.
    pub(crate) skipped: Option<String>,
}

impl Batch {
    pub(super) fn text(&self, record: &Record) -> &str {
        &self.text[record.text.0..record.text.1]
    }

    pub(super) fn tape(&self, span: &(usize, usize)) -> &[Slot] {
        &self.tapes[span.0..span.1]
    }

    /// Empties the batch for reuse; buffers grown far past a batch (by one huge line)
    /// are let go rather than kept by every batch that comes round again.
    fn clear(&mut self) {
        if self.text.capacity() > 4 * BATCH_BYTES {
            *self = Batch::default();
        }
        self.text.clear();
        self.tapes.clear();
        self.records.clear();
        self.error = None;
    }

    /// Adds one line, as [`super::Reader::jsonl`] reads it: trimmed, blank lines
    /// skipped, bad UTF-8 replaced.
    fn push(&mut self, number: u64, raw: &[u8]) {
        let raw = strip_bom(raw).trim_ascii();
        if raw.is_empty() {
            return;
        }
        let start = self.text.len();
        let mut bad_utf8 = None;
        match simdutf8::basic::from_utf8(raw) {
            Ok(text) => self.text.push_str(text),
            Err(_) => {
                // A line holds no line break: the bad byte is on this line.
                bad_utf8 = Some(number);
                self.text.push_str(&String::from_utf8_lossy(raw));
            }
        }
        let text = &self.text[start..];
        let tape = match Doc::parse(text) {
            Ok(doc) => {
                let from = self.tapes.len();
                self.tapes.extend_from_slice(doc.tape());
                Ok((from, self.tapes.len()))
            }
            Err(e) => Err(json_error(&e)),
        };
        self.records.push(Record {
            number,
            text: (start, self.text.len()),
            tape,
            bad_utf8,
            skipped: None,
        });
    }

    /// Notes lines passed over as too long, in their place.
    fn skipped(&mut self, skipped: Vec<Overlong>) {
        for o in skipped {
            self.records.push(Record {
                number: o.line,
                text: (0, 0),
                tape: Err(String::new()),
                bad_utf8: None,
                skipped: Some(overlong_message(o)),
            });
        }
    }
}

/// Reads `lines` to the end in batches, sent in order; batches the walk is done with
/// come back through `spares`. Stops early when the walk hangs up.
pub(super) fn produce(lines: &mut Lines, batches: &SyncSender<Batch>, spares: &Receiver<Batch>) {
    loop {
        let mut batch = spares.try_recv().unwrap_or_default();
        batch.clear();
        let mut end = false;
        while batch.text.len() < BATCH_BYTES {
            match lines.next_line() {
                Ok(Some(Line {
                    number,
                    raw,
                    skipped,
                })) => {
                    batch.skipped(skipped);
                    batch.push(number, raw);
                }
                Ok(None) => {
                    batch.skipped(std::mem::take(&mut lines.overlong));
                    end = true;
                    break;
                }
                Err(e) => {
                    batch.error = Some(e);
                    end = true;
                    break;
                }
            }
        }
        if batches.send(batch).is_err() || end {
            return;
        }
    }
}
