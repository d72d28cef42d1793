//! JSON Lines: one record per line, on this thread or with the parsing on a second one
//! ([`super::pipeline`]).

use super::{Line, Lines, Overlong, Reader, json_error, overlong_message, pipeline, strip_bom};
use crate::json::{Doc, LineIndex};
use std::io;

impl Reader<'_, '_> {
    /// Reports the lines `lines` passed over as too long, in order.
    pub(super) fn report_overlong(&mut self, lines: &mut Lines) {
        for o in std::mem::take(&mut lines.overlong) {
            self.skip(Some(o.line), overlong_message(o));
        }
    }

    pub(super) fn jsonl(&mut self, lines: &mut Lines) -> io::Result<()> {
        if self.pipeline {
            return self.jsonl_pipelined(lines);
        }
        while let Some(Line {
            number,
            raw,
            skipped,
        }) = lines.next_line()?
        {
            self.report_skipped(skipped);
            // Borrowed from the line buffer: no copy unless bytes need replacing.
            self.jsonl_line(number, raw)?;
        }
        self.report_overlong(lines);
        Ok(())
    }

    pub(super) fn report_skipped(&mut self, skipped: Vec<Overlong>) {
        for o in skipped {
            self.skip(Some(o.line), overlong_message(o));
        }
    }

    pub(super) fn jsonl_line(&mut self, number: u64, raw: &[u8]) -> io::Result<()> {
        let raw = strip_bom(raw).trim_ascii();
        if raw.is_empty() {
            return Ok(());
        }
        let text = self.utf8(raw, number);
        self.json_line(&text, number);
        self.note_lossy(Some(number));
        self.pump()
    }

    /// One JSON Lines record; a record that is not JSON is scanned as text.
    pub(super) fn json_line(&mut self, text: &str, number: u64) {
        let parsed = Doc::parse(text).map_err(|e| json_error(&e));
        self.json_record(text, number, parsed);
    }

    /// A record parsed already, or why it is not JSON.
    pub(super) fn json_record(&mut self, text: &str, number: u64, parsed: Result<Doc, String>) {
        match parsed {
            Ok(doc) => {
                let lines = LineIndex::fixed(number);
                self.feed_value(&doc, text, number, &lines, false);
            }
            Err(reason) => {
                self.warn(
                    Some(number),
                    format!("not JSON ({reason}); scanning the line as text"),
                );
                self.text_instead(text, number);
            }
        }
    }

    /// [`Reader::jsonl`] with the reading, UTF-8 checks and parsing on a second thread,
    /// which hands over batches of parsed records in order; this thread walks them.
    /// Messages are written here, in record order, as without the second thread.
    pub(super) fn jsonl_pipelined(&mut self, lines: &mut Lines) -> io::Result<()> {
        let (batches_tx, batches) = std::sync::mpsc::sync_channel(pipeline::IN_FLIGHT);
        let (spares_tx, spares) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                pipeline::produce(lines, &batches_tx, &spares);
                // A scope ends before its threads' thread-locals are dropped: what they
                // hold is let go here, so nothing outlives the read even for a moment.
                crate::json::release_spares();
            });
            // Moved in, so that it is dropped when this closure returns, before the
            // reading thread is joined: a thread blocked on a full channel then wakes.
            let batches = batches;
            for batch in &batches {
                for record in &batch.records {
                    if let Some(message) = &record.skipped {
                        self.skip(Some(record.number), message);
                        continue;
                    }
                    let text = batch.text(record);
                    if let Some(line) = record.bad_utf8 {
                        self.warn_utf8(line);
                    }
                    let parsed = match &record.tape {
                        Ok(tape) => Ok(Doc::from_tape(text, batch.tape(tape))),
                        Err(reason) => Err(reason.clone()),
                    };
                    self.json_record(text, record.number, parsed);
                    self.note_lossy(Some(record.number));
                    // On an error (a closed output), `batches` is dropped on the way
                    // out: the reading thread stops at its next batch.
                    self.pump()?;
                }
                if let Some(e) = batch.error {
                    return Err(e);
                }
                let _ = spares_tx.send(batch);
            }
            Ok(())
        })
    }
}
