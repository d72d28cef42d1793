//! The transcript model every input is reduced to: turns holding native calls and text,
//! and tool results between them.

pub use crate::scan::text::Text;
pub(crate) use crate::scan::text::holds_wil;
pub(crate) use crate::scan::text::{Openers, name_byte};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Who produced a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// System or developer instructions.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

impl Role {
    /// Maps the role names of every supported format onto the four roles.
    pub(crate) fn from_name(name: &str) -> Option<Role> {
        match name {
            "assistant" | "model" | "ai" | "AIMessage" | "AIMessageChunk" | "gemini" | "agent"
            | "ROLE_ASSISTANT" => Some(Role::Assistant),
            "user" | "human" | "HumanMessage" | "ROLE_USER" => Some(Role::User),
            "system" | "developer" | "SystemMessage" | "ROLE_SYSTEM" | "ROLE_DEVELOPER" => {
                Some(Role::System)
            }
            "tool" | "function" | "ipython" | "ToolMessage" | "FunctionMessage" | "ROLE_TOOL" => {
                Some(Role::Tool)
            }
            _ => None,
        }
    }
}

/// A call's arguments, a JSON object. Arguments read from a JSON document are first
/// kept as the compact text serde_json would write for them, and decoded into a map only
/// when something asks for the map (contracts, a comparison): decoding them and writing
/// them back was a fifth of the work on an API log. The map is what counts; the text is
/// a cache of it that any change drops.
#[derive(Clone, Default)]
pub(crate) struct Arguments {
    map: std::cell::OnceCell<Map<String, Value>>,
    /// Kept as built (a `String`, not a boxed copy shrunk to fit: one allocation less).
    text: Option<String>,
}

impl Arguments {
    /// Arguments given as compact JSON text of an object, exactly as serde_json writes
    /// that object (see [`crate::json::Node::write_compact`]).
    pub(crate) fn from_compact(text: String) -> Arguments {
        Arguments {
            map: std::cell::OnceCell::new(),
            text: Some(text),
        }
    }

    /// The compact JSON text, when the arguments are still held as text.
    pub(crate) fn compact(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

impl From<Map<String, Value>> for Arguments {
    fn from(map: Map<String, Value>) -> Arguments {
        Arguments {
            map: std::cell::OnceCell::from(map),
            text: None,
        }
    }
}

impl Arguments {
    /// Arguments `{"input": VALUE}` with the value kept whole (see
    /// [`crate::json::Node::kept_compact`]): free-form input as it was given.
    pub(crate) fn input(value: &crate::json::Node) -> Arguments {
        Arguments::from_compact(format!("{{\"input\":{}}}", value.kept_compact()))
    }

    /// Whether the map can be read from the text: not when the text nests deeper than
    /// the readers go (it is still written out whole).
    pub(crate) fn readable(&self) -> bool {
        self.text.as_deref().is_none_or(|t| decode(t).is_some())
    }

    /// Runs `f` on the arguments as a JSON value, keeping the text as written (a
    /// validation must not rewrite what it reads).
    pub(crate) fn with_value<R>(&mut self, f: impl FnOnce(&Value) -> R) -> R {
        let _ = std::ops::Deref::deref(self);
        let map = self.map.take().expect("initialized above");
        let value = Value::Object(map);
        let r = f(&value);
        let Value::Object(map) = value else {
            unreachable!("built as an object above")
        };
        let _ = self.map.set(map);
        r
    }
}

/// The map of compact arguments text: serde_json's reading, or, for text it refuses
/// (half a surrogate pair, kept as written), the tape's, which reads the half pair as
/// U+FFFD (and says nothing: the text itself is written out as it is; the document's
/// note is not read).
fn decode(text: &str) -> Option<Map<String, Value>> {
    if let Ok(map) = serde_json::from_str(text) {
        return Some(map);
    }
    let value = crate::json::Doc::parse(text)
        .ok()
        .and_then(|doc| doc.root().lossy_value());
    match value {
        Some(Value::Object(map)) => Some(map),
        _ => None,
    }
}

impl std::ops::Deref for Arguments {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        self.map
            .get_or_init(|| self.text.as_deref().and_then(decode).unwrap_or_default())
    }
}

impl std::ops::DerefMut for Arguments {
    fn deref_mut(&mut self) -> &mut Map<String, Value> {
        let _ = std::ops::Deref::deref(self);
        self.text = None;
        self.map.get_mut().expect("initialized above")
    }
}

impl PartialEq for Arguments {
    fn eq(&self, other: &Arguments) -> bool {
        match (&self.text, &other.text) {
            (Some(a), Some(b)) if a == b => true,
            _ => **self == **other,
        }
    }
}

impl std::fmt::Debug for Arguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// One tool call as found, before channel selection.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The tool's name, as written (without its namespace).
    pub name: String,
    pub(crate) arguments: Arguments,
    /// The undecodable argument text, when decoding failed.
    pub(crate) arguments_raw: Option<String>,
    pub(crate) id: Option<String>,
    pub(crate) namespace: Option<String>,
    /// The dialect it was read in (`openai`, `hermes`, ...).
    pub dialect: &'static str,
    /// 1-based line where the call starts.
    pub(crate) line: u64,
    pub(crate) errors: Vec<String>,
    /// The errors of schema validation, with their paths (also in `errors`).
    pub(crate) schema_errors: Vec<SchemaError>,
    /// `--tools` was given and declares no tool of this name.
    pub(crate) unknown_tool: bool,
    /// Argument values are raw text as written (XML parameters, pythonic and WIL
    /// slots): `--tools` schemas may type them.
    pub(crate) raw_strings: bool,
    pub(crate) repairs: Vec<&'static str>,
    pub(crate) in_reasoning: bool,
    /// Its arguments text, decoded outside a document, held half a surrogate pair, read
    /// as U+FFFD (see [`Call::set_arguments_text`]): the interpreter takes this note for
    /// the reader to tell, on the line of the record that made the call.
    pub(crate) lossy: bool,
}

/// One problem schema validation found in a call's arguments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SchemaError {
    /// JSON pointer into the arguments (`/unit`), `/` for the arguments themselves.
    pub(crate) path: String,
    pub(crate) message: String,
}

impl Call {
    pub(crate) fn new(name: impl Into<String>, dialect: &'static str, line: u64) -> Call {
        Call {
            name: name.into(),
            arguments: Arguments::default(),
            arguments_raw: None,
            id: None,
            namespace: None,
            dialect,
            line,
            errors: Vec::new(),
            schema_errors: Vec::new(),
            unknown_tool: false,
            raw_strings: false,
            repairs: Vec::new(),
            in_reasoning: false,
            lossy: false,
        }
    }

    pub(crate) fn with_id(mut self, id: Option<String>) -> Call {
        self.id = id.filter(|s| !s.is_empty());
        self
    }

    pub(crate) fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Sets the arguments from a JSON value that should be an object; `null` means none.
    pub(crate) fn set_arguments_value(&mut self, value: Value) {
        match value {
            Value::Object(map) => self.arguments = map.into(),
            Value::Null => {}
            Value::String(text) => self.set_arguments_text(&text),
            other => {
                self.errors.push(format!(
                    "arguments are a JSON {}, not an object",
                    json_type(&other)
                ));
                self.arguments_raw = Some(other.to_string());
            }
        }
    }

    /// Sets the arguments from JSON text (the OpenAI `arguments` string and its kin).
    /// Empty text means no arguments; an object encoded twice is decoded and marked.
    pub(crate) fn set_arguments_text(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        // Most arguments are one JSON object: kept as compact text, not decoded; the
        // cases a single pass leaves alone go through the tape.
        if text.trim_start().starts_with('{') {
            let mut compact = String::with_capacity(text.len());
            if let Some(lossy) = crate::json::compact_text(text, &mut compact) {
                self.arguments = Arguments::from_compact(compact);
                self.lossy |= lossy;
                return;
            }
        }
        if let Ok(doc) = crate::json::Doc::parse(text)
            && self.set_arguments_node(doc.root())
        {
            return;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => self.arguments = map.into(),
            Ok(Value::Null) => {}
            Ok(Value::String(_)) => {
                if let Some(object) = double_encoded_object(text)
                    && let Ok(map) = serde_json::from_str::<Map<String, Value>>(&object)
                {
                    self.arguments = map.into();
                    self.repairs.push("double-encoded");
                    return;
                }
                self.invalid_arguments(text, "arguments are a JSON string, not an object");
            }
            Ok(other) => self.invalid_arguments(
                text,
                &format!("arguments are a JSON {}, not an object", json_type(&other)),
            ),
            Err(err) => {
                self.invalid_arguments(text, &format!("arguments are not valid JSON: {err}"))
            }
        }
    }

    /// Sets the arguments from a JSON object of a document, kept as compact text that
    /// loses nothing ([`crate::json::Node::kept_compact`]); false (and nothing set) when
    /// the node is not an object.
    pub(crate) fn set_arguments_node(&mut self, node: crate::json::Node) -> bool {
        if node.kind() != crate::json::Kind::Object {
            return false;
        }
        self.arguments = Arguments::from_compact(node.kept_compact());
        true
    }

    /// Sets the arguments from a JSON value of a document: an object kept as compact
    /// text, anything else read by serde_json (null means no arguments, another kind
    /// of value is an error, and so is a value serde_json cannot read, such as one
    /// nested deeper than it goes).
    pub(crate) fn set_arguments_json(&mut self, node: crate::json::Node) {
        if self.set_arguments_node(node) {
            return;
        }
        match serde_json::from_str::<Value>(node.text()) {
            Ok(value) => self.set_arguments_value(value),
            Err(e) => {
                self.invalid_arguments(node.text(), &format!("arguments are not valid JSON: {e}"))
            }
        }
    }

    /// Sets the arguments from a JSON string that holds them as JSON text: written
    /// compact straight from the string as written when it holds an object and nothing
    /// unusual (see [`crate::json::compact_escaped`]), else decoded and read as
    /// [`Call::set_arguments_text`] reads any text.
    pub(crate) fn set_arguments_string(&mut self, node: crate::json::Node) {
        let written = node.text();
        if let Some(body) = written.get(1..written.len().saturating_sub(1)) {
            let mut compact = String::with_capacity(body.len());
            if crate::json::compact_escaped(body, &mut compact).is_some()
                && compact.starts_with('{')
            {
                self.arguments = Arguments::from_compact(compact);
                return;
            }
        }
        if let Some(text) = self.string_arguments(node) {
            self.set_arguments_text(&text);
        }
    }

    /// The text of the JSON string that holds the arguments. Should it not decode (half
    /// a surrogate pair reads as U+FFFD, so only an escape the tape let through by
    /// mistake could), the call is made invalid with the string as written, and nothing
    /// is returned: never a valid call with its arguments lost.
    pub(crate) fn string_arguments<'a>(
        &mut self,
        node: crate::json::Node<'a>,
    ) -> Option<std::borrow::Cow<'a, str>> {
        let text = node.str();
        if text.is_none() {
            let error = serde_json::from_str::<String>(node.text())
                .err()
                .map_or_else(|| "not a JSON string".to_owned(), |e| e.to_string());
            self.invalid_arguments(
                node.text(),
                &format!("arguments are not valid JSON: {error}"),
            );
        }
        text
    }

    pub(crate) fn invalid_arguments(&mut self, raw: &str, error: &str) {
        self.arguments = Arguments::default();
        self.arguments_raw = Some(raw.to_owned());
        self.errors.push(error.to_owned());
    }
}

/// Arguments encoded more than once: JSON text of a string that holds the JSON text of
/// an object (a few times over, as some fine-tuning sets have it). The object's text, as
/// written inside; `None` for anything else. Extract repairs such arguments by it
/// (`double-encoded`), and convert reads them by it.
pub(crate) fn double_encoded_object(text: &str) -> Option<String> {
    let Ok(Value::String(mut inner)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    for _ in 0..4 {
        match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(_)) => return Some(inner),
            Ok(Value::String(next)) => inner = next,
            _ => return None,
        }
    }
    None
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A JSON value kept as compact text that loses nothing (see
/// [`crate::json::Node::kept_compact`]), written into records as it is: a result's
/// content may hold what serde_json's `Value` cannot (half a surrogate pair, deep
/// nesting).
#[derive(Clone)]
pub(crate) struct JsonText(Box<serde_json::value::RawValue>);

impl JsonText {
    pub(crate) fn of(node: &crate::json::Node) -> JsonText {
        let text = node.kept_compact();
        // Kept text is JSON (the tape read it): serde_json takes it as a raw value.
        JsonText(
            serde_json::value::RawValue::from_string(text)
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
        )
    }

    /// The value of `node`, `null` when there is none.
    pub(crate) fn of_opt(node: Option<crate::json::Node>) -> JsonText {
        node.map_or_else(JsonText::default, |n| JsonText::of(&n))
    }

    /// A JSON string holding `text`.
    pub(crate) fn string(text: &str) -> JsonText {
        JsonText::raw(serde_json::to_string(text).expect("a string serializes"))
    }

    /// JSON text (`null` when it is not JSON).
    pub(crate) fn raw(text: String) -> JsonText {
        JsonText(
            serde_json::value::RawValue::from_string(text)
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
        )
    }

    pub(crate) fn as_str(&self) -> &str {
        self.0.get()
    }
}

impl Default for JsonText {
    fn default() -> JsonText {
        JsonText(serde_json::value::RawValue::NULL.to_owned())
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::fmt::Debug for JsonText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for JsonText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for JsonText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A tool's answer to a call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub(crate) id: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) content: JsonText,
    pub(crate) is_error: bool,
    pub(crate) dialect: &'static str,
    pub(crate) line: u64,
}

/// Where a turn came from, for dialects that only make sense in one kind of log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Origin {
    #[default]
    Plain,
    /// An assistant message of a SWE-agent trajectory (actions in `<command>` tags).
    SweAgent,
    /// An assistant message of a mini-swe-agent trajectory that has no native call (its
    /// action in a ```` ```bash ```` or ```` ```mswea_bash_command ```` block).
    MiniSweAgent,
    /// A notebook cell output: outputs re-print earlier ones.
    Notebook,
}

/// One message: an assistant turn, or any other role when `--roles` asks for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub(crate) role: Role,
    pub(crate) line: u64,
    /// Native structured calls (the tool channel).
    pub(crate) calls: Vec<Call>,
    /// Text for the json and text channels.
    pub texts: Vec<Text>,
    pub(crate) origin: Origin,
    /// Where a history snapshot put this turn, by a call given earlier (see
    /// [`Placement`]): `convert` orders its messages by it; `extract` needs no order
    /// beyond the calls'.
    pub(crate) placement: Option<Placement>,
}

/// A turn read from a snapshot of a whole history (LangGraph's `values`) after the
/// stream that gave the calls around it: the snapshot says where it belongs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Placement {
    /// Before the message holding the call of this id.
    Before(String),
    /// In the message holding the call of this id (what the snapshot's copy of that
    /// message adds: its reasoning, its text).
    Within(String),
}

impl Turn {
    /// An empty turn of `role` that starts on `line`.
    pub fn new(role: Role, line: u64) -> Turn {
        Turn {
            role,
            line,
            calls: Vec::new(),
            texts: Vec::new(),
            origin: Origin::Plain,
            placement: None,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.texts.is_empty()
    }

    pub(crate) fn push_text<'t>(
        &mut self,
        text: impl Into<Cow<'t, str>>,
        line: u64,
        reasoning: bool,
    ) {
        self.push(text.into(), line, reasoning, false);
    }

    /// Text read straight from a file (plain text input, a line that is not JSON).
    pub(crate) fn push_raw_text<'t>(&mut self, text: impl Into<Cow<'t, str>>, line: u64) {
        self.push(text.into(), line, false, true);
    }

    /// The source of a JSON value of no known shape (see [`Text::json_source`]), with
    /// the offsets of its objects and arrays: the only openers a scanner is given, as
    /// the others are inside strings.
    pub(crate) fn push_json_source(&mut self, text: &str, line: u64, values: &[usize]) {
        let mut openers = Openers::default();
        for &at in values {
            if matches!(text.as_bytes().get(at), Some(b'{' | b'[')) {
                openers.add_one(text.as_bytes(), at);
            }
        }
        let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
        let mut text = Text::swept(text.to_owned(), line, openers, false, breaks);
        text.json_source = true;
        if self.texts.capacity() == 0 {
            self.texts = SPARE.with_borrow_mut(|s| s.texts.pop()).unwrap_or_default();
        }
        self.texts.push(text);
    }

    /// Gives the reasoning text pushed last the signature its provider gave it.
    pub(crate) fn sign_last_reasoning(&mut self, signature: &str) {
        if let Some(last) = self.texts.last_mut().filter(|t| t.reasoning)
            && !signature.is_empty()
        {
            last.signature = Some(signature.into());
        }
    }

    fn push(&mut self, text: Cow<'_, str>, line: u64, reasoning: bool, raw: bool) {
        if text.trim().is_empty() {
            return;
        }
        let text = match text {
            Cow::Owned(text) => text,
            Cow::Borrowed(text) => {
                let spare = SPARE.with_borrow_mut(|s| s.strings.pop());
                // A buffer too small is not grown: growing copies its old bytes too.
                let mut owned = spare
                    .filter(|s| s.capacity() >= text.len())
                    .unwrap_or_else(|| String::with_capacity(text.len()));
                owned.push_str(text);
                owned
            }
        };
        if self.texts.capacity() == 0 {
            self.texts = SPARE.with_borrow_mut(|s| s.texts.pop()).unwrap_or_default();
        }
        self.texts.push(Text::new(text, line, reasoning, raw));
    }

    /// Adds a native call.
    pub(crate) fn push_call(&mut self, call: Call) {
        if self.calls.capacity() == 0 {
            self.calls = SPARE.with_borrow_mut(|s| s.calls.pop()).unwrap_or_default();
        }
        self.calls.push(call);
    }

    /// Gives the turn's buffers back for later turns of this thread, so that a long log
    /// does not allocate and copy afresh for every message.
    pub(crate) fn recycle(mut self) {
        SPARE.with_borrow_mut(|spare| {
            for text in self.texts.drain(..) {
                let mut buffer = text.text;
                if spare.strings.len() < SPARE_VECS && buffer.capacity() <= SPARE_STRING_MAX {
                    buffer.clear();
                    spare.strings.push(buffer);
                }
            }
            if spare.texts.len() < SPARE_VECS && self.texts.capacity() > 0 {
                spare.texts.push(self.texts);
            }
            self.calls.clear();
            if spare.calls.len() < SPARE_VECS && self.calls.capacity() > 0 {
                spare.calls.push(self.calls);
            }
        });
    }
}

/// Buffers of finished turns (see [`Turn::recycle`]): a few of each, and only strings
/// of moderate size, so that what is kept stays small.
#[derive(Default)]
struct Spare {
    strings: Vec<String>,
    texts: Vec<Vec<Text>>,
    calls: Vec<Vec<Call>>,
}

const SPARE_VECS: usize = 8;
const SPARE_STRING_MAX: usize = 64 << 10;

thread_local! {
    static SPARE: std::cell::RefCell<Spare> = std::cell::RefCell::new(Spare::default());
}

/// What the transcript layer hands to the channel engine, in input order.
#[derive(Debug)]
pub enum Event {
    /// One message of the conversation.
    Turn(Turn),
    /// The result of a call, from a tool message or block.
    Result(ToolResult),
    /// One window of a plain-text input too large to hold whole.
    Window(Window),
    /// The events after this one belong to conversation `n` of the source (from 0): a
    /// recording whose requests start another history (a subagent's, another test's),
    /// and return to an earlier one.
    Conversation(u32),
}

/// A piece of one long plain text (one assistant turn), read window by window. Windows
/// overlap, so a call near the end of one is seen whole in the next.
#[derive(Debug)]
pub struct Window {
    /// The window's text.
    pub text: Text,
    /// Offset of this window in the whole text.
    pub offset: usize,
    /// Calls that start at or after this offset are left to the next window, which
    /// starts there. The consumer may move it on, up to `latest_keep`, when it knows
    /// that nothing before the new offset could change in a longer text.
    pub keep_before: usize,
    /// The furthest the consumer may move `keep_before`: a short overlap before the cut.
    pub(crate) latest_keep: usize,
    /// How far windows overlap: `keep_before` is at most this far before the cut, and
    /// the consumer may move it back as far again, to the start of a construct.
    pub(crate) overlap: usize,
    pub(crate) last: bool,
    /// Set by the consumer: the windows after this one need no search for WIL's
    /// sentinels, because the turn is won by a channel WIL is no part of (the sentinels
    /// only keep a window from being cut inside a WIL block).
    pub(crate) sentinels_moot: bool,
    /// Where the window's remains go when its consumer drops it (see [`Passed`]): the
    /// reader that cut it, which needs them to start the next window.
    pub(crate) back: Option<std::sync::mpsc::Sender<Passed>>,
}

/// What a window hands back to its reader when its consumer drops it.
#[derive(Debug)]
pub(crate) struct Passed {
    /// Line breaks before the cut (`keep_before`), for numbering the next window.
    pub(crate) lines: u64,
    /// The cut, as an offset in the window's text.
    pub(crate) keep: usize,
    /// The window's text, whose part from the cut on starts the next window; its
    /// buffer is then reused for the window after (a fresh 4 MiB each time costs the
    /// allocator and page faults).
    pub(crate) bytes: Vec<u8>,
    /// The window's opener lists, cleared and filled again for the next window: they
    /// hold tens of thousands of offsets in text full of brackets.
    pub(crate) openers: Option<Openers>,
    /// See [`Window::sentinels_moot`].
    pub(crate) sentinels_moot: bool,
}

impl Drop for Window {
    /// Once its consumer is done with it, a window counts the lines before its cut (from
    /// the line index when a call's line has built it, so a window with calls is not
    /// counted twice) and hands its text and opener lists back to its reader.
    fn drop(&mut self) {
        let Some(back) = self.back.take() else {
            return;
        };
        let keep = self.keep_before - self.offset;
        let lines = self.text.breaks_up_to(keep);
        let openers = self.text.take_openers();
        let bytes = std::mem::take(&mut self.text.text).into_bytes();
        // A reader gone has no next window to start.
        let _ = back.send(Passed {
            lines,
            keep,
            bytes,
            openers,
            sentinels_moot: self.sentinels_moot,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_kept_as_text_read_and_change_like_a_map() {
        let text = Arguments::from_compact(r#"{"a":1,"b":{"c":[true]}}"#.to_owned());
        assert_eq!(text.compact(), Some(r#"{"a":1,"b":{"c":[true]}}"#));
        assert_eq!(text["a"], 1);
        assert_eq!(text.len(), 2);
        // Reading keeps the text; the map it gives equals the one decoded the usual way.
        assert!(text.compact().is_some());
        let map: Map<String, Value> =
            serde_json::from_str(r#"{"b": {"c": [true]}, "a": 1}"#).unwrap();
        assert_eq!(text, Arguments::from(map));
        // A change drops the text: it would no longer say the same thing.
        let mut changed = text.clone();
        changed.insert("d".into(), Value::Null);
        assert_eq!(changed.compact(), None);
        assert_eq!(changed.len(), 3);
        assert_ne!(changed, text);
        // The set_* paths keep an object's text, a repeated key as serde_json reads it.
        let mut call = Call::new("f", "test", 1);
        call.set_arguments_text(r#" {"x" : "\u00e9\n"} "#);
        assert_eq!(call.arguments.compact(), Some(r#"{"x":"é\n"}"#));
        let mut call = Call::new("f", "test", 1);
        call.set_arguments_text(r#"{"x": 1, "x": 2}"#);
        assert_eq!(call.arguments.compact(), Some(r#"{"x":2}"#));
        assert_eq!(call.arguments["x"], 2);
        let mut call = Call::new("f", "test", 1);
        call.set_arguments_text(r#""{\"y\": 1}""#);
        assert_eq!(call.arguments["y"], 1);
        assert_eq!(call.repairs, ["double-encoded"]);
    }

    fn args(text: &str) -> Call {
        let mut c = Call::new("f", "test", 1);
        c.set_arguments_text(text);
        c
    }

    #[test]
    fn empty_and_null_arguments_are_an_empty_object() {
        for t in ["", "  ", "null", "{}"] {
            let c = args(t);
            assert!(c.arguments.is_empty() && c.is_valid(), "{t:?}");
        }
    }

    #[test]
    fn double_encoded_arguments_are_decoded_and_marked() {
        let c = args(r#""{\"a\":1}""#);
        assert_eq!(c.arguments["a"], 1);
        assert_eq!(c.repairs, ["double-encoded"]);
        let triple = serde_json::to_string(&serde_json::to_string(r#"{"b":2}"#).unwrap()).unwrap();
        let c = args(&triple);
        assert_eq!(c.arguments["b"], 2);
        assert!(!args(r#""just text""#).is_valid());
    }

    #[test]
    fn broken_arguments_keep_their_text() {
        let c = args(r#"{"a":"#);
        assert!(!c.is_valid());
        assert_eq!(c.arguments_raw.as_deref(), Some(r#"{"a":"#));
        assert!(c.errors[0].starts_with("arguments are not valid JSON"));
        let c = args("[1]");
        assert_eq!(c.errors, ["arguments are a JSON array, not an object"]);
    }
}
