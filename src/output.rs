//! Output records, one JSON object per line, with keys in a fixed order.
//!
//! Call: `{"type":"call","name","arguments","arguments_raw"?,"id"?,"namespace"?,
//! "valid"?,"errors"?,"repairs"?,"in_reasoning"?,"channel","dialect","source"}`.
//! Result: `{"type":"result","id"?,"name"?,"content","is_error","channel","dialect","source"}`.
//! Text (`--with-text`): `{"type":"text","text","in_reasoning"?,"source"}`.
//! `source` is `{"file","line","turn","index"}`: `index` counts the records written for
//! the file (every type), from 0, so that (file, index) is unique.
//! Optional keys are left out when they carry nothing (`valid` appears only as false,
//! unless calls were checked against `--tools` contracts).

use crate::model::{Call, ToolResult};
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
pub(crate) struct Source<'a> {
    pub(crate) file: &'a str,
    pub(crate) line: u64,
    pub(crate) turn: u64,
}

/// [`Source`] as written: with the record's ordinal in its file.
#[derive(Serialize)]
struct Placed<'a> {
    file: &'a str,
    line: u64,
    turn: u64,
    index: u64,
}

#[derive(Serialize)]
struct ResultRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    content: &'a crate::model::JsonText,
    is_error: bool,
    channel: &'a str,
    dialect: &'a str,
    source: Placed<'a>,
}

#[derive(Serialize)]
struct TextRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    in_reasoning: bool,
    source: Placed<'a>,
}

/// The record stream: buffered, flushed per record when asked (for `tail -f`). For
/// `check`, calls are handed over instead of written.
pub struct Output {
    out: Box<dyn Write>,
    line_buffered: bool,
    /// Calls were validated against contracts: every call says whether it is valid.
    validated: bool,
    /// Calls are dropped, not written (an output only read for its side effects).
    discard: bool,
    /// For `check`: each call handed over as it is found, nothing kept here.
    checker: Option<Box<dyn CallSink>>,
    /// The last source file name and its JSON string: every record of a file names it.
    file: (String, String),
    /// The call record being written, handed to `out` whole: many small writes to a
    /// `Vec` instead of to a `dyn Write`.
    record: Vec<u8>,
    /// Records of the current file so far (calls, for `check`): the next `source.index`.
    index: u64,
    /// The dialects of the current file's calls and results.
    dialects: std::collections::BTreeSet<&'static str>,
}

/// Receives each call as it is found (`check`, which keeps counts and findings, not
/// the calls).
pub(crate) trait CallSink: std::any::Any {
    fn call(&mut self, call: &Call, channel: &str, line: u64, turn: u64);
    fn as_any(&mut self) -> &mut dyn std::any::Any;
}

impl Output {
    /// Records written on `out`; `line_buffered` flushes after each record (a terminal, `--line-buffered`).
    pub fn new(out: Box<dyn Write>, line_buffered: bool) -> Output {
        Output {
            out,
            line_buffered,
            validated: false,
            discard: false,
            checker: None,
            file: Default::default(),
            record: Vec::new(),
            index: 0,
            dialects: Default::default(),
        }
    }

    /// A new file starts: `source.index` counts from 0 again.
    pub(crate) fn start_file(&mut self) {
        self.index = 0;
        self.dialects.clear();
    }

    /// The records of the current file so far (for `check`, its calls).
    pub(crate) fn file_records(&self) -> u64 {
        self.index
    }

    /// The dialects of the current file's calls and results, in order.
    pub(crate) fn file_dialects(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.dialects.iter().copied()
    }

    /// The next record's `source.index`.
    fn next_index(&mut self) -> u64 {
        self.index += 1;
        self.index - 1
    }

    /// An output that drops calls (and writes results and text nowhere).
    pub(crate) fn discarding() -> Output {
        Output {
            discard: true,
            ..Output::new(Box::new(io::sink()), false)
        }
    }

    /// An output that hands each call to `sink` (and drops results and text).
    pub(crate) fn checking(sink: Box<dyn CallSink>) -> Output {
        Output {
            checker: Some(sink),
            ..Output::new(Box::new(io::sink()), false)
        }
    }

    /// The sink of [`Output::checking`], if it is a `T`.
    pub(crate) fn checker<T: CallSink>(&mut self) -> Option<&mut T> {
        self.checker.as_mut()?.as_any().downcast_mut::<T>()
    }

    /// Every call record carries `valid` (calls were checked against contracts).
    pub(crate) fn validated(mut self, validated: bool) -> Output {
        self.validated = validated;
        self
    }

    pub(crate) fn call(&mut self, call: &Call, channel: &str, source: Source) -> io::Result<()> {
        let index = self.next_index();
        self.dialects.insert(call.dialect);
        if let Some(checker) = &mut self.checker {
            checker.call(call, channel, source.line, source.turn);
            return Ok(());
        }
        if self.discard {
            return Ok(());
        }
        let mut record = std::mem::take(&mut self.record);
        record.clear();
        write_call(&mut record, call, channel, self.validated)?;
        self.write_source(&mut record, &source, index)?;
        record.push(b'\n');
        let written = self.out.write_all(&record);
        self.record = record;
        written?;
        if self.line_buffered {
            self.out.flush()?;
        }
        Ok(())
    }

    /// `,"source":{...}}`, the end of a call record, with the file name quoted once per
    /// file rather than once per record.
    fn write_source(&mut self, w: &mut Vec<u8>, source: &Source, index: u64) -> io::Result<()> {
        if self.file.0 != source.file {
            self.file.1 = serde_json::to_string(source.file)?;
            self.file.0 = source.file.to_owned();
        }
        w.write_all(br#","source":{"file":"#)?;
        w.write_all(self.file.1.as_bytes())?;
        w.write_all(br#","line":"#)?;
        write_json(w, &source.line)?;
        w.write_all(br#","turn":"#)?;
        write_json(w, &source.turn)?;
        w.write_all(br#","index":"#)?;
        write_json(w, &index)?;
        w.write_all(b"}}")
    }

    pub(crate) fn result(
        &mut self,
        result: &ToolResult,
        name: Option<&str>,
        source: Source,
    ) -> io::Result<()> {
        self.dialects.insert(result.dialect);
        let source = self.placed(source);
        let record = ResultRecord {
            kind: "result",
            id: result.id.as_deref(),
            name: result.name.as_deref().or(name),
            content: &result.content,
            is_error: result.is_error,
            channel: "tool",
            dialect: result.dialect,
            source,
        };
        self.write(&record)
    }

    pub(crate) fn text(
        &mut self,
        text: &str,
        in_reasoning: bool,
        source: Source,
    ) -> io::Result<()> {
        let source = self.placed(source);
        self.write(&TextRecord {
            kind: "text",
            text,
            in_reasoning,
            source,
        })
    }

    fn placed<'s>(&mut self, source: Source<'s>) -> Placed<'s> {
        Placed {
            file: source.file,
            line: source.line,
            turn: source.turn,
            index: self.next_index(),
        }
    }

    fn write(&mut self, record: &impl Serialize) -> io::Result<()> {
        write_json(&mut self.out, record)?;
        self.end_record()
    }

    fn end_record(&mut self) -> io::Result<()> {
        self.out.write_all(b"\n")?;
        if self.line_buffered {
            self.out.flush()?;
        }
        Ok(())
    }

    /// Records already serialized (by a worker of `-j`).
    pub(crate) fn write_raw(&mut self, records: &[u8]) -> io::Result<()> {
        self.out.write_all(records)?;
        if self.line_buffered {
            self.out.flush()?;
        }
        Ok(())
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A call record, written field by field: its arguments are often compact JSON
/// text already, copied as they are.
fn write_call(w: &mut Vec<u8>, call: &Call, channel: &str, validated: bool) -> io::Result<()> {
    w.write_all(br#"{"type":"call","name":"#)?;
    write_json(w, &call.name)?;
    w.write_all(br#","arguments":"#)?;
    match call.arguments.compact() {
        Some(text) => w.write_all(text.as_bytes())?,
        None => write_json(w, &*call.arguments)?,
    }
    for (key, value) in [
        (&br#","arguments_raw":"#[..], call.arguments_raw.as_deref()),
        (br#","id":"#, call.id.as_deref()),
        (br#","namespace":"#, call.namespace.as_deref()),
    ] {
        if let Some(value) = value {
            w.write_all(key)?;
            write_json(w, value)?;
        }
    }
    if validated || !call.is_valid() {
        w.write_all(if call.is_valid() {
            br#","valid":true"#
        } else {
            br#","valid":false"#
        })?;
    }
    if !call.errors.is_empty() {
        w.write_all(br#","errors":"#)?;
        write_json(w, &call.errors)?;
    }
    if !call.repairs.is_empty() {
        w.write_all(br#","repairs":"#)?;
        write_json(w, &call.repairs)?;
    }
    if call.in_reasoning {
        w.write_all(br#","in_reasoning":true"#)?;
    }
    w.write_all(br#","channel":"#)?;
    write_json(w, channel)?;
    w.write_all(br#","dialect":"#)?;
    write_json(w, call.dialect)
}

fn write_json<W: Write + ?Sized>(w: &mut W, value: &(impl Serialize + ?Sized)) -> io::Result<()> {
    serde_json::to_writer(w, value).map_err(io::Error::from)
}
