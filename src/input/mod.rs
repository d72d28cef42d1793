//! Input framing: from bytes to the values the transcript layer reads.
//!
//! JSON Lines, SSE and text are read line by line with one reused buffer, so memory is
//! bounded by the largest record, and no line or event longer than [`MAX_LINE`] is held
//! (it is reported and read past). A JSON document is read whole up to 1 MiB; a longer
//! array element by element ([`document`]); a YAML cassette or saved HTTP is read whole.
//! `auto` decides from the first non-blank bytes, and skips binary input from its first
//! block.

pub(crate) mod cassette;
pub(crate) mod compressed;
mod document;
mod eventstream;
mod http;
mod pieces;
mod pipeline;
mod sse;
mod window;

use crate::diag::Diag;
use crate::json::{Doc, LineIndex, Node};
use crate::model::Event;
use crate::transcript::Interpreter;
use std::borrow::Cow;
use std::io::{self, BufRead, Read};
pub use window::{LEAST_WINDOW, MAX_OVERLAP, TEXT_WINDOW};
use window::{MIN_DENSE_WINDOW, opener_limit};

/// How a source is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Auto,
    Text,
    Json,
    Jsonl,
    Sse,
    Yaml,
    Http,
}

impl Framing {
    /// The framing's name, as `--input` spells it (`auto` read as text is `text`).
    pub fn name(self) -> &'static str {
        match self {
            Framing::Auto | Framing::Text => "text",
            Framing::Json => "json",
            Framing::Jsonl => "jsonl",
            Framing::Sse => "sse",
            Framing::Yaml => "yaml",
            Framing::Http => "http",
        }
    }
}

/// What a read found out about its input, for the manifest (see
/// [`Reader::noting_read`]).
#[derive(Debug, Default)]
pub struct ReadNotes {
    /// The framing the input was read as (detected or forced); `None` when it was not
    /// read (binary, or only blank lines).
    pub framing: Option<Framing>,
    /// Parts passed over unread, and the first of them: (line, message).
    pub skipped: u64,
    pub first_skip: Option<(Option<u64>, String)>,
}

/// Where records go: the channel engine and the writer behind it.
pub type Sink<'s> = dyn FnMut(Event) -> io::Result<()> + 's;

/// One source being read.
pub struct Reader<'a, 's> {
    name: &'a str,
    diag: &'a Diag,
    interp: Interpreter,
    sink: &'a mut Sink<'s>,
    warned_utf8: bool,
    warned_depth: bool,
    warned_lossy: bool,
    /// Plain text larger than this is scanned window by window (0: never).
    window: usize,
    /// JSON Lines are read and parsed on a second thread (see [`pipeline`]).
    pipeline: bool,
    /// Warnings about this input so far.
    warnings: u64,
    /// A failed write of records handed on where it cannot be returned at once (the
    /// elements of a long event): the next [`Reader::pump`] returns it.
    held_error: Option<io::Error>,
    /// Some JSON value of the input had a known shape (or the input is a recording).
    shape_known: bool,
    /// The first JSON value of no known shape, described (see [`shape_of`]).
    unknown_shape: Option<String>,
    /// Where [`Reader::read`] says whether the input was JSON of no known shape.
    shape_out: Option<&'a mut Option<String>>,
    /// Where [`Reader::read`] notes the framing and the parts skipped.
    notes: Option<&'a mut ReadNotes>,
}

/// Warnings shown per input; the rest are counted in one last line.
pub const MAX_WARNINGS: u64 = 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The longest line a framing holds whole (a JSON Lines record, an SSE line) and the
/// longest SSE event or element of a streamed JSON array: a longer one is reported and
/// skipped, read past without being held. Records of tens of megabytes are real (a
/// coding agent's `Write` of a large file; see `a_50_mb_line_is_read`), so the limit is
/// above them: peak memory is bounded by a few times this, not by the input.
pub const MAX_LINE: usize = 64 << 20;

/// Auto-detection looks for a NUL byte in this many first bytes: binary input is
/// skipped from its first block, without reading further.
const BINARY_PROBE: usize = 8192;

/// A line that runs past this length with a NUL byte in its first [`BINARY_PROBE`]
/// bytes is binary: the input is not read further (`--input jsonl /dev/zero`).
const BINARY_LINE: usize = 1 << 20;

/// A JSON document up to this size is read whole; a longer one that is an array is
/// read element by element (each element at most [`MAX_LINE`]), as JSON Lines are, and
/// its records are written as they are found.
pub const STREAM_DOCUMENT: usize = 1 << 20;

/// A longer JSON document that is no array (an object) is scanned as text, streamed,
/// with a warning: read whole, its values and records would take many times its size.
pub const MAX_DOCUMENT: usize = 16 << 20;

/// Detection reads the first non-blank line up to this length; a longer one is a large
/// JSON Lines record, or a document on one line (see [`Reader::detect`]).
const DETECT_LINE: usize = STREAM_DOCUMENT;

/// What `MAX_LINE` is called in messages.
fn limit_text() -> String {
    format!("{} MiB", MAX_LINE >> 20)
}

impl<'a, 's> Reader<'a, 's> {
    pub fn new(name: &'a str, diag: &'a Diag, sink: &'a mut Sink<'s>) -> Self {
        Reader {
            name,
            diag,
            interp: Interpreter::new(),
            sink,
            warned_utf8: false,
            warned_depth: false,
            warned_lossy: false,
            window: TEXT_WINDOW,
            pipeline: false,
            warnings: 0,
            held_error: None,
            shape_known: false,
            unknown_shape: None,
            shape_out: None,
            notes: None,
        }
    }

    /// After the read, `notes` holds the framing the input was read as and the parts of
    /// it passed over unread.
    pub fn noting_read(mut self, notes: &'a mut ReadNotes) -> Self {
        *notes = ReadNotes::default();
        self.notes = Some(notes);
        self
    }

    fn note_framing(&mut self, framing: Framing) {
        if let Some(notes) = &mut self.notes {
            notes.framing = Some(framing);
        }
    }

    /// After the read, `shape` holds a description of the input's JSON (its top-level
    /// keys) when it held JSON values and none had a shape a transcript has: JSON of
    /// another kind, or a transcript format toolsift has no reader for. The caller tells
    /// it when no call was found in its text either.
    pub fn noting_shape(mut self, shape: &'a mut Option<String>) -> Self {
        *shape = None;
        self.shape_out = Some(shape);
        self
    }

    /// Reads JSON Lines on two threads: one reads and parses the records, this one
    /// walks them (for regular files when a core is free: a pipe could block the
    /// reading thread, and a closed output must end the run at once).
    pub fn with_pipeline(mut self, pipeline: bool) -> Self {
        self.pipeline = pipeline;
        self
    }

    /// Sets the plain-text window; 0 reads plain text whole (needed for `--with-text`).
    pub fn with_window(mut self, window: usize) -> Self {
        self.window = window;
        self
    }

    /// Reads the whole source. Only errors of the sink (a closed pipe) and read errors
    /// stop it; problems in the data are reported and passed over.
    pub fn read(mut self, input: &mut (dyn BufRead + Send), framing: Framing) -> io::Result<()> {
        let result = self.read_framed(input, framing);
        if let Some(out) = self.shape_out.take()
            && !self.shape_known
        {
            *out = self.unknown_shape.take();
        }
        if self.warnings > MAX_WARNINGS {
            let more = self.warnings - MAX_WARNINGS;
            self.diag.warn(
                self.name,
                None,
                format!(
                    "{} about this input {} not shown",
                    crate::diag::plural(more, "more warning", "more warnings"),
                    if more == 1 { "was" } else { "were" }
                ),
            );
        }
        result
    }

    /// A problem in the data, reported with its line; after [`MAX_WARNINGS`] for one
    /// input, only counted (a file of bad lines would otherwise print one per line).
    fn warn(&mut self, line: Option<u64>, message: impl std::fmt::Display) {
        self.warnings += 1;
        if self.warnings <= MAX_WARNINGS {
            self.diag.warn(self.name, line, message);
        }
    }

    /// A part of the input passed over unread (a line over the limit, binary data, a
    /// body that cannot be decoded): told, and counted, as a warning is, and kept by a
    /// recording [`Diag`] for the report ([`Diag::skipped`]).
    fn skip(&mut self, line: Option<u64>, message: impl std::fmt::Display) {
        self.warnings += 1;
        if let Some(notes) = &mut self.notes {
            notes.skipped += 1;
            if notes.first_skip.is_none() {
                notes.first_skip = Some((line, message.to_string()));
            }
        }
        self.diag
            .skipped(self.name, line, message, self.warnings <= MAX_WARNINGS);
    }

    /// Notes whether a JSON value walked had a known shape (`found`), for
    /// [`Reader::noting_shape`]; `item` for an element of a top-level array read alone.
    fn note_shape(&mut self, found: bool, node: Node, item: bool) {
        if found {
            self.shape_known = true;
        } else if !self.shape_known && self.unknown_shape.is_none() && self.shape_out.is_some() {
            self.unknown_shape = shape_of(node, item);
        }
    }

    fn read_framed(
        &mut self,
        input: &mut (dyn BufRead + Send),
        framing: Framing,
    ) -> io::Result<()> {
        let mut lines = Lines::new(input);
        if framing == Framing::Auto {
            // Binary input is told from its first block and not read further (a device
            // such as /dev/zero never ends).
            let head = lines.input.fill_buf()?;
            if let Some(offset) = memchr::memchr(0, &head[..head.len().min(BINARY_PROBE)]) {
                self.skip(
                    None,
                    format!("binary data (NUL byte at offset {offset}); skipped"),
                );
                return Ok(());
            }
        }
        let framing = match framing {
            Framing::Auto => match self.detect(&mut lines)? {
                // Nothing but blank lines.
                None => return Ok(()),
                Some(f) => f,
            },
            f => f,
        };
        self.note_framing(framing);
        match framing {
            Framing::Jsonl => self.jsonl(&mut lines)?,
            Framing::Sse => self.sse(&mut lines)?,
            Framing::Json if self.window > 0 => {
                if self.json_streamed(&mut lines)? {
                    return self.pump();
                }
            }
            Framing::Auto | Framing::Text | Framing::Json | Framing::Yaml | Framing::Http => {
                let mut bytes = Vec::new();
                if matches!(framing, Framing::Auto | Framing::Text) && self.window > 0 {
                    let eof = lines.read_some(&mut bytes, self.window)?;
                    // As `whole` reads it: without a byte-order mark.
                    let head = strip_bom(&bytes[..bytes.len().min(4096)]);
                    let head = String::from_utf8_lossy(head);
                    let cassette =
                        cassette::looks_like_cassette(&head) || http::looks_like_http(&head);
                    // Text dense in openers is read in windows even when it would fit
                    // in one: the scanners' memory grows with what a window holds.
                    let dense = || {
                        let past = &bytes[MIN_DENSE_WINDOW.min(bytes.len())..];
                        memchr::memchr3_iter(b'<', b'[', b'{', past)
                            .nth(2 * opener_limit(bytes.len()))
                            .is_some()
                    };
                    if (!eof || dense()) && !cassette {
                        self.windowed_text(bytes, &mut lines, 1)?;
                        return self.pump();
                    }
                }
                bytes.extend(lines.read_rest()?);
                self.whole(bytes, framing)?;
            }
        }
        self.interp.finish();
        self.pump()
    }

    /// A source read whole, framed as `framing`.
    fn whole(&mut self, bytes: Vec<u8>, framing: Framing) -> io::Result<()> {
        let mut text = match string_from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => self.utf8(e.as_bytes(), 1).into_owned(),
        };
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        match framing {
            Framing::Json => self.document(&text, 1)?,
            Framing::Yaml => self.yaml(&text)?,
            Framing::Http => self.http(&text)?,
            _ => {
                if cassette::looks_like_cassette(&text) {
                    self.note_framing(Framing::Yaml);
                    self.yaml(&text)?
                } else if http::looks_like_http(&text) {
                    self.note_framing(Framing::Http);
                    self.http(&text)?
                } else {
                    self.interp.feed_owned_text(text, 1);
                }
            }
        }
        Ok(())
    }

    /// A JSON document: read whole up to [`STREAM_DOCUMENT`]; longer, an array is read
    /// element by element and anything else, up to [`MAX_DOCUMENT`], whole. A document
    /// that turns out not to be JSON, or an element or document past its limit, is
    /// reported and the rest is scanned as text, in windows: never held whole. True when
    /// the source was read as text in windows (finished already).
    fn json_streamed(&mut self, lines: &mut Lines) -> io::Result<bool> {
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
    fn array_elements(&mut self, held: Vec<u8>, lines: &mut Lines) -> io::Result<bool> {
        let mut split = document::Splitter::new(MAX_LINE);
        let mut chunk = held;
        let mut pos = 0;
        loop {
            let found = split.next(&chunk, &mut pos);
            let problem = match found {
                Some(document::Found::Element) => {
                    let (bytes, line) = split.element();
                    let text = self.utf8(bytes, line);
                    let problem = match Doc::parse(&text) {
                        Ok(doc) => {
                            let index = LineIndex::new(&text, line);
                            let found = self.interp.feed_item(doc.root(), &index);
                            self.note_shape(found, doc.root(), true);
                            if !found {
                                self.interp
                                    .feed_unknown_json(doc.root(), &text, line, &index);
                            }
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
                Some(document::Found::End) => None,
                Some(document::Found::Bad { line, what }) => {
                    Some((line, format!("invalid JSON document ({what})")))
                }
                Some(document::Found::TooLong { line }) => Some((
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

    /// Says, once per source, that a string held half a surrogate pair.
    fn note_lossy(&mut self, line: Option<u64>) {
        if crate::json::take_lossy() && !self.warned_lossy {
            self.warned_lossy = true;
            self.warn(
                line,
                "a JSON string holds half a surrogate pair (like \\ud800 alone); it was read as U+FFFD",
            );
        }
    }

    fn pump(&mut self) -> io::Result<()> {
        if let Some(e) = self.held_error.take() {
            return Err(e);
        }
        self.note_lossy(None);
        if self.interp.take_too_deep() && !self.warned_depth {
            self.warned_depth = true;
            self.warn(
                None,
                format!(
                    "JSON nested deeper than {} levels; the deeper part was not searched",
                    crate::transcript::MAX_DEPTH
                ),
            );
        }
        for warning in self.interp.take_warnings() {
            self.warn(None, warning);
        }
        for event in self.interp.drain() {
            (self.sink)(event)?;
        }
        Ok(())
    }

    /// Decodes UTF-8, replacing invalid bytes and saying so once per source.
    fn utf8<'b>(&mut self, bytes: &'b [u8], line: u64) -> Cow<'b, str> {
        // Valid input, the usual case, is checked with SIMD; std's check finds the error.
        if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
            return Cow::Borrowed(s);
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(e) => {
                self.warn_utf8(
                    line + memchr::memchr_iter(b'\n', &bytes[..e.valid_up_to()]).count() as u64,
                );
                String::from_utf8_lossy(bytes)
            }
        }
    }

    /// Says, once per source, that bytes that are not UTF-8 were replaced.
    fn warn_utf8(&mut self, line: u64) {
        if !self.warned_utf8 {
            self.warned_utf8 = true;
            self.warn(
                Some(line),
                "invalid UTF-8; the bad bytes were replaced with U+FFFD",
            );
        }
    }

    /// Auto-detection: reads up to the first non-blank line and leaves it in `lines`;
    /// `None` when the input holds nothing but white space.
    fn detect(&mut self, lines: &mut Lines) -> io::Result<Option<Framing>> {
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

    /// Reports the lines `lines` passed over as too long, in order.
    fn report_overlong(&mut self, lines: &mut Lines) {
        for o in std::mem::take(&mut lines.overlong) {
            self.skip(Some(o.line), overlong_message(o));
        }
    }

    fn jsonl(&mut self, lines: &mut Lines) -> io::Result<()> {
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

    fn report_skipped(&mut self, skipped: Vec<Overlong>) {
        for o in skipped {
            self.skip(Some(o.line), overlong_message(o));
        }
    }

    fn jsonl_line(&mut self, number: u64, raw: &[u8]) -> io::Result<()> {
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
    fn json_line(&mut self, text: &str, number: u64) {
        let parsed = Doc::parse(text).map_err(|e| json_error(&e));
        self.json_record(text, number, parsed);
    }

    /// A record parsed already, or why it is not JSON.
    fn json_record(&mut self, text: &str, number: u64, parsed: Result<Doc, String>) {
        match parsed {
            Ok(doc) => {
                let lines = LineIndex::fixed(number);
                let found = self.interp.feed(doc.root(), &lines);
                self.note_shape(found, doc.root(), false);
                if !found {
                    self.interp
                        .feed_unknown_json(doc.root(), text, number, &lines);
                }
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
    fn jsonl_pipelined(&mut self, lines: &mut Lines) -> io::Result<()> {
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

    fn sse(&mut self, lines: &mut Lines) -> io::Result<()> {
        let mut events = sse::Events::new(MAX_LINE);
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
    fn sse_event(&mut self, event: sse::Event) -> String {
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

    /// Text too long to scan whole that is no input of its own (the data of a long
    /// event): read in windows, as a long plain text is, after the records before it.
    fn long_text(&mut self, text: Vec<u8>, line: u64) -> io::Result<()> {
        self.pump()?;
        let mut nothing: &[u8] = &[];
        let mut lines = Lines::new(&mut nothing);
        let pipeline = std::mem::replace(&mut self.pipeline, false);
        let read = self.windowed_text(text, &mut lines, line);
        self.pipeline = pipeline;
        read
    }

    fn sse_data(&mut self, data: &str, line: u64) {
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
    fn sse_value(&mut self, text: &str, line: u64, item: bool) {
        match Doc::parse(text) {
            Ok(doc) => {
                let lines = LineIndex::new(text, line);
                let found = if item {
                    self.interp.feed_item(doc.root(), &lines)
                } else {
                    self.interp.feed(doc.root(), &lines)
                };
                self.note_shape(found, doc.root(), item);
                if !found {
                    self.interp
                        .feed_unknown_json(doc.root(), text, line, &lines);
                }
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

    /// Text that was to be JSON and is not: scanned as text, in windows when it is long
    /// (as a long plain text is: scanned whole, text dense in brackets takes many times
    /// its size), else whole.
    fn text_instead(&mut self, text: &str, line: u64) {
        if text.len() > STREAM_DOCUMENT && self.window > 0 {
            if let Err(e) = self.long_text(text.as_bytes().to_vec(), line) {
                self.held_error.get_or_insert(e);
            }
        } else {
            self.interp.feed_text(text, line);
        }
    }

    /// A long event whose data is a JSON array, read element by element as a long
    /// document is (its tape would be many times its size): false, and nothing read,
    /// when the data does not split into elements.
    fn sse_elements(&mut self, data: &str, line: u64) -> bool {
        let bytes = data.as_bytes();
        // First only split, then read: an array that does not split is read whole, as
        // a short one is.
        for read in [false, true] {
            let mut split = document::Splitter::new(MAX_LINE);
            let mut pos = 0;
            loop {
                match split.next(bytes, &mut pos) {
                    Some(document::Found::Element) => {
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
                    Some(document::Found::End) => {}
                    _ => return false,
                }
            }
        }
        true
    }

    /// A whole JSON document. A document that does not parse is reported once and
    /// read as JSON Lines when its lines are JSON, else scanned as text.
    fn document(&mut self, text: &str, first_line: u64) -> io::Result<()> {
        match Doc::parse(text) {
            Ok(doc) => {
                let lines = LineIndex::new(text, first_line);
                let found = self.interp.feed(doc.root(), &lines);
                self.note_shape(found, doc.root(), false);
                if !found {
                    self.interp
                        .feed_unknown_json(doc.root(), text, first_line, &lines);
                }
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

    /// JSON Lines or SSE held in memory (a cassette body, a document that was JSONL);
    /// `line_of` gives the file line of each of its lines.
    fn blob_lines(
        &mut self,
        text: &str,
        framing: Framing,
        mut line_of: impl FnMut(usize, &str) -> u64,
    ) {
        let mut events = sse::Events::new(MAX_LINE);
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
    fn embedded(&mut self, body: &cassette::Body) {
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

    /// Recorded exchanges: requests replay earlier calls as history (only their results
    /// count); responses hold the calls.
    fn interactions(&mut self, interactions: Vec<cassette::Interaction>) -> io::Result<()> {
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
    fn http(&mut self, text: &str) -> io::Result<()> {
        let (exchanges, warnings) = http::parse(text);
        for (line, message) in warnings {
            self.skip(Some(line), message);
        }
        self.interactions(exchanges)
    }

    fn yaml(&mut self, text: &str) -> io::Result<()> {
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

/// `{` or `[` followed by what can come next in JSON: text such as `[TOOL_CALLS]` or
/// `[f(a=1)]` is not mistaken for a broken document.
fn starts_like_json(line: &[u8]) -> bool {
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

/// How JSON of no known shape is described: its top-level keys, or for an array those
/// of its first object (`item`: `node` is an element of a top-level array); `None` for
/// an empty or scalar value, which holds nothing to lose.
fn shape_of(node: Node, item: bool) -> Option<String> {
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

/// The warning about a line passed over as too long.
fn overlong_message(o: Overlong) -> String {
    if o.binary {
        format!(
            "binary data (NUL byte) in a line longer than {} MiB; the rest of the input was skipped",
            BINARY_LINE >> 20
        )
    } else {
        format!("line longer than {}; skipped", limit_text())
    }
}

fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    // serde_json appends " at line L column C"; the line is already in the prefix.
    match text.rfind(" at line ") {
        Some(at) => format!("{}, column {}", &text[..at], e.column()),
        None => text,
    }
}

fn strip_bom(line: &[u8]) -> &[u8] {
    line.strip_prefix(BOM).unwrap_or(line)
}

/// A line longer than [`MAX_LINE`], passed over by [`Lines::next_line`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Overlong {
    pub line: u64,
    /// It held a NUL byte: the input is binary and was not read further.
    pub binary: bool,
}

/// One line of [`Lines::next_line`], and the lines passed over as too long just
/// before it.
struct Line<'a> {
    number: u64,
    raw: &'a [u8],
    skipped: Vec<Overlong>,
}

/// Where a line of [`Lines::next_raw`] lies.
enum At {
    /// The first bytes of the input's buffer.
    Lent(usize),
    /// The line buffer.
    Buf,
    /// An entry of the look-ahead.
    Ahead(usize),
}

/// What detection read ahead, given back first.
enum Ahead {
    Bytes(Vec<u8>),
    /// A long run of blank lines, kept as its count of line breaks.
    Newlines(u64),
}

impl Ahead {
    fn len(&self) -> usize {
        match self {
            Ahead::Bytes(b) => b.len(),
            Ahead::Newlines(n) => *n as usize,
        }
    }

    /// Copies up to `out.len()` of its first bytes into `out`, drops them, and says
    /// how many.
    fn take_into(&mut self, out: &mut [u8]) -> usize {
        match self {
            Ahead::Bytes(b) => {
                let k = b.len().min(out.len());
                out[..k].copy_from_slice(&b[..k]);
                b.drain(..k);
                k
            }
            Ahead::Newlines(n) => {
                let k = (*n as usize).min(out.len());
                out[..k].fill(b'\n');
                *n -= k as u64;
                k
            }
        }
    }
}

/// A blank run kept as bytes up to this size; longer, as a count of line breaks.
const BLANK_RUN_BYTES: usize = 64 << 10;

/// Lines of a reader, numbered, with one reused buffer and a look-ahead for detection.
/// A line longer than [`MAX_LINE`] is never held: it is streamed past and noted in
/// `overlong`, which the framing reports.
struct Lines<'r> {
    input: &'r mut (dyn BufRead + Send),
    buf: Vec<u8>,
    number: u64,
    /// Lines read ahead by detection, given back first.
    ahead: Vec<(u64, Ahead)>,
    ahead_pos: usize,
    /// The last line read ahead was cut at [`MAX_LINE`]: it goes on in the input.
    ahead_cut: bool,
    /// Bytes of the input's buffer handed out as the last line, consumed on the next
    /// read: a line that lies whole in the buffer is lent, not copied.
    lent: usize,
    /// The longest line given out whole.
    max: usize,
    /// Lines passed over since the framing last looked.
    overlong: Vec<Overlong>,
    /// A binary line ended the reading.
    stopped: bool,
}

impl<'r> Lines<'r> {
    fn new(input: &'r mut (dyn BufRead + Send)) -> Lines<'r> {
        Lines {
            input,
            buf: Vec::new(),
            number: 0,
            ahead: Vec::new(),
            ahead_pos: 0,
            ahead_cut: false,
            lent: 0,
            max: MAX_LINE,
            overlong: Vec::new(),
            stopped: false,
        }
    }

    /// Gives back the bytes of the line lent last.
    fn settle(&mut self) {
        self.input.consume(std::mem::take(&mut self.lent));
    }

    /// The next line with its number, line break included. A line longer than
    /// [`MAX_LINE`] is read past, not held, and noted in `overlong`; one that holds a
    /// NUL byte ends the input (a device such as `/dev/zero` never ends).
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        let Some((number, at)) = self.next_raw()? else {
            return Ok(None);
        };
        let skipped = std::mem::take(&mut self.overlong);
        let raw = match at {
            At::Lent(n) => &self.input.fill_buf()?[..n],
            At::Buf => self.buf.as_slice(),
            At::Ahead(pos) => match &self.ahead[pos].1 {
                Ahead::Bytes(b) => b.as_slice(),
                Ahead::Newlines(_) => &b"\n"[..],
            },
        };
        Ok(Some(Line {
            number,
            raw,
            skipped,
        }))
    }

    /// The next line's number and where it lies.
    fn next_raw(&mut self) -> io::Result<Option<(u64, At)>> {
        if self.stopped {
            return Ok(None);
        }
        if self.ahead_pos < self.ahead.len() {
            let pos = self.ahead_pos;
            self.ahead_pos += 1;
            let number = self.ahead[pos].0;
            if pos + 1 == self.ahead.len() && self.ahead_cut {
                // The first line, cut by detection: the rest of it follows.
                self.ahead_cut = false;
                self.settle();
                self.buf = match std::mem::replace(&mut self.ahead[pos].1, Ahead::Newlines(0)) {
                    Ahead::Bytes(b) => b,
                    Ahead::Newlines(_) => Vec::new(),
                };
                self.number -= 1;
                if let Some(line) = self.gather()? {
                    return Ok(Some(line));
                }
                return self.next_raw();
            }
            return Ok(Some((number, At::Ahead(pos))));
        }
        self.settle();
        loop {
            let avail = self.input.fill_buf()?;
            if let Some(n) = memchr::memchr(b'\n', avail) {
                self.lent = n + 1;
                self.number += 1;
                return Ok(Some((self.number, At::Lent(n + 1))));
            }
            // The line runs past the buffer: gather it, up to the limit.
            self.buf.clear();
            if self.buf.capacity() > 4 << 20 {
                // Grown by a long line: not kept for every line after it.
                self.buf = Vec::new();
            }
            if let Some(line) = self.gather()? {
                return Ok(Some(line));
            }
            if self.stopped || self.input.fill_buf()?.is_empty() {
                return Ok(None);
            }
        }
    }

    /// Gathers the line begun in `buf` from the input, up to the limit: the line, or
    /// `None` at the end of the input or when it was too long (then passed over).
    fn gather(&mut self) -> io::Result<Option<(u64, At)>> {
        let mut whole = false;
        let mut binary = false;
        loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                whole = true;
                break;
            }
            let (take, ends) = through_line_end(avail);
            if self.buf.len() + take > self.max {
                break;
            }
            self.buf.extend_from_slice(&avail[..take]);
            self.input.consume(take);
            if ends {
                whole = true;
                break;
            }
            // A long line that starts with binary data is not gathered on.
            if self.buf.len() > BINARY_LINE
                && memchr::memchr(0, &self.buf[..BINARY_PROBE]).is_some()
            {
                binary = true;
                break;
            }
        }
        if whole {
            if self.buf.is_empty() {
                return Ok(None);
            }
            self.number += 1;
            return Ok(Some((self.number, At::Buf)));
        }
        self.number += 1;
        let binary =
            binary || memchr::memchr(0, &self.buf[..self.buf.len().min(BINARY_PROBE)]).is_some();
        self.buf = Vec::new();
        self.skip_overlong(self.number, binary)?;
        Ok(None)
    }

    /// Reads past the rest of a line too long to hold (its first bytes are read
    /// already) and notes it; a binary one ends the input.
    fn skip_overlong(&mut self, line: u64, binary: bool) -> io::Result<()> {
        self.overlong.push(Overlong { line, binary });
        if binary {
            self.stopped = true;
            return Ok(());
        }
        loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', avail) {
                Some(n) => {
                    self.input.consume(n + 1);
                    return Ok(());
                }
                None => {
                    let k = avail.len();
                    self.input.consume(k);
                }
            }
        }
    }

    /// Reads ahead to the first non-blank line and returns it (cut at [`DETECT_LINE`]);
    /// the lines stay queued. A run of blank lines is kept as one entry: given back as
    /// one "line" of white space, which every framing skips or keeps as text, it costs
    /// its bytes (or, when long, only its count of line breaks), not an allocation per
    /// line, and it is read a buffer at a time.
    fn peek_nonblank(&mut self) -> io::Result<Option<&[u8]>> {
        self.settle();
        let run_start = self.number + 1;
        // The run's bytes while short; its line breaks counted once long.
        let mut run: Vec<u8> = Vec::new();
        let mut newlines: u64 = 0;
        let mut counted = false;
        // White space after the run's last line break: the start of the next line.
        let mut tail: Vec<u8> = Vec::new();
        let mut first = self.number == 0;
        let line = loop {
            let avail = self.input.fill_buf()?;
            if avail.is_empty() {
                break None;
            }
            let skip = if first && avail.starts_with(BOM) {
                3
            } else {
                0
            };
            first = false;
            let blank_end = avail[skip..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map(|k| k + skip);
            let upto = blank_end.unwrap_or(avail.len());
            // The blank lines before `upto`, whole; what follows their last break is
            // the tail.
            match memchr::memrchr(b'\n', &avail[..upto]) {
                Some(n) => {
                    let lines = memchr::memchr_iter(b'\n', &avail[..=n]).count() as u64;
                    newlines += lines;
                    if !counted {
                        run.extend_from_slice(&tail);
                        run.extend_from_slice(&avail[..=n]);
                        if run.len() > BLANK_RUN_BYTES {
                            counted = true;
                            run = Vec::new();
                        }
                    }
                    tail.clear();
                    if blank_end.is_some() {
                        tail.extend_from_slice(&avail[n + 1..upto]);
                        self.input.consume(upto);
                    } else {
                        let rest = &avail[n + 1..];
                        if tail.len() < BLANK_RUN_BYTES {
                            tail.extend_from_slice(rest);
                        }
                        let k = avail.len();
                        self.input.consume(k);
                    }
                }
                None => {
                    if tail.len() < BLANK_RUN_BYTES {
                        tail.extend_from_slice(&avail[..upto]);
                    }
                    self.input.consume(upto);
                }
            }
            if blank_end.is_some() {
                // The first non-blank line: its white space, then up to its break.
                let mut line = std::mem::take(&mut tail);
                let mut cut = true;
                loop {
                    let avail = self.input.fill_buf()?;
                    if avail.is_empty() {
                        cut = false;
                        break;
                    }
                    let (take, ends) = through_line_end(avail);
                    let take = take.min(DETECT_LINE.saturating_sub(line.len()));
                    line.extend_from_slice(&avail[..take]);
                    self.input.consume(take);
                    if ends && line.ends_with(b"\n") {
                        cut = false;
                        break;
                    }
                    if line.len() >= DETECT_LINE {
                        break;
                    }
                }
                break Some((line, cut));
            }
        };
        if newlines > 0 {
            let entry = if counted {
                Ahead::Newlines(newlines)
            } else {
                Ahead::Bytes(run)
            };
            self.ahead.push((run_start, entry));
            self.number += newlines;
        }
        let Some((line, cut)) = line else {
            if !tail.is_empty() {
                self.number += 1;
                self.ahead.push((self.number, Ahead::Bytes(tail)));
            }
            return Ok(None);
        };
        self.number += 1;
        self.ahead_cut = cut;
        self.ahead.push((self.number, Ahead::Bytes(line)));
        Ok(self.ahead.last().map(|(_, l)| match l {
            Ahead::Bytes(b) => b.as_slice(),
            Ahead::Newlines(_) => &b""[..],
        }))
    }

    /// Appends up to `max` more bytes (look-ahead first) to `out`; true at the end of
    /// the input.
    fn read_some(&mut self, out: &mut Vec<u8>, max: usize) -> io::Result<bool> {
        self.settle();
        let start = out.len();
        while self.ahead_pos < self.ahead.len() && out.len() - start < max {
            let room = max - (out.len() - start);
            let entry = &mut self.ahead[self.ahead_pos].1;
            let k = entry.len().min(room);
            let at = out.len();
            out.resize(at + k, 0);
            entry.take_into(&mut out[at..]);
            if entry.len() == 0 {
                self.ahead_pos += 1;
            }
        }
        let want = max.saturating_sub(out.len() - start);
        if want > 0 {
            (&mut *self.input).take(want as u64).read_to_end(out)?;
        }
        Ok(self.ahead_pos >= self.ahead.len() && self.input.fill_buf()?.is_empty())
    }

    /// Fills `out` from the input (look-ahead first); fewer bytes only at the end of the
    /// input. A read as large as the reader's buffer bypasses it, so the bytes are
    /// copied once, from the kernel into `out`.
    fn fill(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.settle();
        let mut n = 0;
        while n < out.len() && self.ahead_pos < self.ahead.len() {
            let entry = &mut self.ahead[self.ahead_pos].1;
            n += entry.take_into(&mut out[n..]);
            if entry.len() == 0 {
                self.ahead_pos += 1;
            }
        }
        while n < out.len() {
            match self.input.read(&mut out[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Everything not yet read, including the look-ahead.
    fn read_rest(&mut self) -> io::Result<Vec<u8>> {
        self.settle();
        let mut all = Vec::new();
        for (_, entry) in self.ahead.drain(self.ahead_pos..) {
            match entry {
                Ahead::Bytes(b) => all.extend_from_slice(&b),
                Ahead::Newlines(n) => all.resize(all.len() + n as usize, b'\n'),
            }
        }
        self.input.read_to_end(&mut all)?;
        Ok(all)
    }
}

/// `String::from_utf8`, with the check made by simdutf8 (several times faster on valid
/// text, the usual case); std's check runs only to describe an error.
/// How much of `avail` belongs to the current line (its break included), and whether
/// the line ends there.
fn through_line_end(avail: &[u8]) -> (usize, bool) {
    match memchr::memchr(b'\n', avail) {
        Some(n) => (n + 1, true),
        None => (avail.len(), false),
    }
}

fn string_from_utf8(bytes: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: simdutf8 has just checked that `bytes` is valid UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    String::from_utf8(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(json: &str, item: bool) -> Option<String> {
        shape_of(Doc::parse(json).unwrap().root(), item)
    }

    #[test]
    fn shapes_are_described_by_their_keys() {
        assert_eq!(
            shape(r#"{"name": "x", "version": "1"}"#, false).as_deref(),
            Some("top-level keys: name, version")
        );
        assert_eq!(
            shape(r#"[1, {"step": 1, "act": {}}]"#, false).as_deref(),
            Some("a top-level array; keys of its first object: step, act")
        );
        assert_eq!(
            shape(r#"{"step": 1}"#, true).as_deref(),
            Some("a top-level array; keys of its first object: step")
        );
        assert_eq!(
            shape("[1, 2]", false).as_deref(),
            Some("a top-level array of no objects")
        );
        let many = (0..14)
            .map(|i| format!("\"k{i}\": {i}"))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(
            shape(&format!("{{{many}}}"), false)
                .unwrap()
                .ends_with("k10, k11, … (14 in all)")
        );
        // Nothing to lose: no message.
        for empty in ["{}", "[]", "[{}]", "42", "\"text\""] {
            assert_eq!(shape(empty, false), None, "{empty}");
        }
        assert_eq!(shape("[1]", true), None);
    }
}
