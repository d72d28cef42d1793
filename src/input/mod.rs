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
mod detect;
mod document;
mod eventstream;
mod http;
mod jsonl;
mod lines;
mod pieces;
mod pipeline;
mod recording;
mod sse;
mod window;

use crate::diag::Diag;
use crate::json::{Doc, LineIndex, Node};
use crate::model::Event;
use crate::transcript::Interpreter;
pub(crate) use detect::starts_like_json;
use document::shape_of;
use lines::{Line, Lines, Overlong, overlong_message};
use std::borrow::Cow;
use std::io::{self, BufRead};
pub use window::{LEAST_WINDOW, MAX_OVERLAP, TEXT_WINDOW};
use window::{MIN_DENSE_WINDOW, opener_limit};

/// How a source is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Decided from the first non-blank bytes.
    Auto,
    /// Plain text: one assistant turn.
    Text,
    /// One JSON document (object or array).
    Json,
    /// One JSON value per line.
    Jsonl,
    /// Server-Sent Events (`data:` lines).
    Sse,
    /// A VCR cassette (YAML with interactions).
    Yaml,
    /// Saved HTTP messages (`curl -i` output, an httprr trace).
    Http,
}

impl Framing {
    /// The framing's name, as `--input` spells it (`auto` read as text is `text`).
    pub(crate) fn name(self) -> &'static str {
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
pub(crate) struct ReadNotes {
    /// The framing the input was read as (detected or forced); `None` when it was not
    /// read (binary, or only blank lines).
    pub(crate) framing: Option<Framing>,
    /// Parts passed over unread, and the first of them: (line, message).
    pub(crate) skipped: u64,
    pub(crate) first_skip: Option<(Option<u64>, String)>,
}

/// Where records go: the channel engine and the writer behind it.
pub(crate) type Sink<'s> = dyn FnMut(Event) -> io::Result<()> + 's;

/// One source being read.
pub struct Reader<'a, 's> {
    name: &'a str,
    diag: &'a Diag,
    interp: Interpreter,
    sink: &'a mut Sink<'s>,
    warned_utf8: bool,
    warned_depth: bool,
    warned_lossy: bool,
    /// A string of a value read since the last [`Reader::note_lossy`] held half a
    /// surrogate pair, read as U+FFFD (its document said so, [`Doc::lossy`]).
    lossy: bool,
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
pub(crate) const MAX_WARNINGS: u64 = 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The longest line a framing holds whole (a JSON Lines record, an SSE line) and the
/// longest SSE event or element of a streamed JSON array: a longer one is reported and
/// skipped, read past without being held. Records of tens of megabytes are real (a
/// coding agent's `Write` of a large file; see `a_50_mb_line_is_read`), so the limit is
/// above them: peak memory is bounded by a few times this, not by the input.
pub(crate) const MAX_LINE: usize = 64 << 20;

/// Auto-detection looks for a NUL byte in this many first bytes: binary input is
/// skipped from its first block, without reading further.
const BINARY_PROBE: usize = 8192;

/// A line that runs past this length with a NUL byte in its first [`BINARY_PROBE`]
/// bytes is binary: the input is not read further (`--input jsonl /dev/zero`).
const BINARY_LINE: usize = 1 << 20;

/// A JSON document up to this size is read whole; a longer one that is an array is
/// read element by element (each element at most [`MAX_LINE`]), as JSON Lines are, and
/// its records are written as they are found.
pub(crate) const STREAM_DOCUMENT: usize = 1 << 20;

/// A longer JSON document that is no array (an object) is scanned as text, streamed,
/// with a warning: read whole, its values and records would take many times its size.
pub(crate) const MAX_DOCUMENT: usize = 16 << 20;

/// Detection reads the first non-blank line up to this length; a longer one is a large
/// JSON Lines record, or a document on one line (see [`Reader::detect`]).
const DETECT_LINE: usize = STREAM_DOCUMENT;

/// What `MAX_LINE` is called in messages.
fn limit_text() -> String {
    format!("{} MiB", MAX_LINE >> 20)
}

impl<'a, 's> Reader<'a, 's> {
    /// A reader of the source `name` that hands its events to `sink` and tells its problems to `diag`.
    pub fn new(name: &'a str, diag: &'a Diag, sink: &'a mut Sink<'s>) -> Self {
        Reader {
            name,
            diag,
            interp: Interpreter::new(),
            sink,
            warned_utf8: false,
            warned_depth: false,
            warned_lossy: false,
            lossy: false,
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
    pub(crate) fn noting_read(mut self, notes: &'a mut ReadNotes) -> Self {
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
    pub(crate) fn noting_shape(mut self, shape: &'a mut Option<String>) -> Self {
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

    /// Hands a parsed JSON value to the interpreter (`item`: an element of a top-level
    /// array read alone) and notes its shape; a value of no known shape is read as a
    /// model's bare output. Whether a string of it was read lossily is noted for
    /// [`Reader::note_lossy`].
    fn feed_value(&mut self, doc: &Doc, text: &str, line: u64, lines: &LineIndex, item: bool) {
        let root = doc.root();
        let found = if item {
            self.interp.feed_item(root, lines)
        } else {
            self.interp.feed(root, lines)
        };
        self.note_shape(found, root, item);
        if !found {
            self.interp.feed_unknown_json(root, text, line, lines);
        }
        self.lossy |= doc.lossy();
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

    /// Says, once per source, that a string held half a surrogate pair: one of the
    /// values read since the last call (their documents, and the arguments of the calls
    /// the interpreter made of them). Strings decoded further on (JSON the engine finds
    /// in text) are not the input's, and are not told.
    fn note_lossy(&mut self, line: Option<u64>) {
        let lossy = std::mem::take(&mut self.lossy) | self.interp.take_lossy();
        if lossy && !self.warned_lossy {
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

/// `String::from_utf8`, with the check made by simdutf8 (several times faster on valid
/// text, the usual case); std's check runs only to describe an error.
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
    use crate::json::Doc;

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
