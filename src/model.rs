//! The transcript model every input is reduced to: turns holding native calls and text,
//! and tool results between them.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

/// Who produced a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    /// Maps the role names of every supported format onto the four roles.
    pub fn from_name(name: &str) -> Option<Role> {
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

    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A call's arguments, a JSON object. Arguments read from a JSON document are first
/// kept as the compact text serde_json would write for them, and decoded into a map only
/// when something asks for the map (contracts, a comparison): decoding them and writing
/// them back was a fifth of the work on an API log. The map is what counts; the text is
/// a cache of it that any change drops.
#[derive(Clone, Default)]
pub struct Arguments {
    map: std::cell::OnceCell<Map<String, Value>>,
    /// Kept as built (a `String`, not a boxed copy shrunk to fit: one allocation less).
    text: Option<String>,
}

impl Arguments {
    /// Arguments given as compact JSON text of an object, exactly as serde_json writes
    /// that object (see [`crate::json::Node::write_compact`]).
    pub fn from_compact(text: String) -> Arguments {
        Arguments {
            map: std::cell::OnceCell::new(),
            text: Some(text),
        }
    }

    /// The compact JSON text, when the arguments are still held as text.
    pub fn compact(&self) -> Option<&str> {
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
    pub fn input(value: &crate::json::Node) -> Arguments {
        Arguments::from_compact(format!("{{\"input\":{}}}", value.kept_compact()))
    }

    /// Whether the map can be read from the text: not when the text nests deeper than
    /// the readers go (it is still written out whole).
    pub fn readable(&self) -> bool {
        self.text.as_deref().is_none_or(|t| decode(t).is_some())
    }

    /// Runs `f` on the arguments as a JSON value, keeping the text as written (a
    /// validation must not rewrite what it reads).
    pub fn with_value<R>(&mut self, f: impl FnOnce(&Value) -> R) -> R {
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
/// U+FFFD (and says nothing: the text itself is written out as it is).
fn decode(text: &str) -> Option<Map<String, Value>> {
    if let Ok(map) = serde_json::from_str(text) {
        return Some(map);
    }
    let lossy = crate::json::take_lossy();
    let value = crate::json::Doc::parse(text)
        .ok()
        .and_then(|doc| doc.root().lossy_value());
    crate::json::restore_lossy(lossy);
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
    pub name: String,
    pub arguments: Arguments,
    /// The undecodable argument text, when decoding failed.
    pub arguments_raw: Option<String>,
    pub id: Option<String>,
    pub namespace: Option<String>,
    pub dialect: &'static str,
    /// 1-based line where the call starts.
    pub line: u64,
    pub errors: Vec<String>,
    /// The errors of schema validation, with their paths (also in `errors`).
    pub schema_errors: Vec<SchemaError>,
    /// `--tools` was given and declares no tool of this name.
    pub unknown_tool: bool,
    /// Argument values are raw text as written (XML parameters, pythonic and WIL
    /// slots): `--tools` schemas may type them.
    pub raw_strings: bool,
    pub repairs: Vec<&'static str>,
    pub in_reasoning: bool,
}

/// One problem schema validation found in a call's arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaError {
    /// JSON pointer into the arguments (`/unit`), `/` for the arguments themselves.
    pub path: String,
    pub message: String,
}

impl Call {
    pub fn new(name: impl Into<String>, dialect: &'static str, line: u64) -> Call {
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
        }
    }

    pub fn with_id(mut self, id: Option<String>) -> Call {
        self.id = id.filter(|s| !s.is_empty());
        self
    }

    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Sets the arguments from a JSON value that should be an object; `null` means none.
    pub fn set_arguments_value(&mut self, value: Value) {
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
    pub fn set_arguments_text(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        // Most arguments are one JSON object: kept as compact text, not decoded; the
        // cases a single pass leaves alone go through the tape.
        if text.trim_start().starts_with('{') {
            let mut compact = String::with_capacity(text.len());
            if crate::json::compact_text(text, &mut compact).is_some() {
                self.arguments = Arguments::from_compact(compact);
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
    pub fn set_arguments_node(&mut self, node: crate::json::Node) -> bool {
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
    pub fn set_arguments_json(&mut self, node: crate::json::Node) {
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
    pub fn set_arguments_string(&mut self, node: crate::json::Node) {
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
    pub fn string_arguments<'a>(
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

    pub fn invalid_arguments(&mut self, raw: &str, error: &str) {
        self.arguments = Arguments::default();
        self.arguments_raw = Some(raw.to_owned());
        self.errors.push(error.to_owned());
    }
}

/// Arguments encoded more than once: JSON text of a string that holds the JSON text of
/// an object (a few times over, as some fine-tuning sets have it). The object's text, as
/// written inside; `None` for anything else. Extract repairs such arguments by it
/// (`double-encoded`), and convert reads them by it.
pub fn double_encoded_object(text: &str) -> Option<String> {
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
pub struct JsonText(Box<serde_json::value::RawValue>);

impl JsonText {
    pub fn of(node: &crate::json::Node) -> JsonText {
        let text = node.kept_compact();
        // Kept text is JSON (the tape read it): serde_json takes it as a raw value.
        JsonText(
            serde_json::value::RawValue::from_string(text)
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
        )
    }

    /// The value of `node`, `null` when there is none.
    pub fn of_opt(node: Option<crate::json::Node>) -> JsonText {
        node.map_or_else(JsonText::default, |n| JsonText::of(&n))
    }

    /// A JSON string holding `text`.
    pub fn string(text: &str) -> JsonText {
        JsonText::raw(serde_json::to_string(text).expect("a string serializes"))
    }

    /// JSON text (`null` when it is not JSON).
    pub fn raw(text: String) -> JsonText {
        JsonText(
            serde_json::value::RawValue::from_string(text)
                .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
        )
    }

    pub fn as_str(&self) -> &str {
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
    pub id: Option<String>,
    pub name: Option<String>,
    pub content: JsonText,
    pub is_error: bool,
    pub dialect: &'static str,
    pub line: u64,
}

/// A piece of message text for the json and text channels.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pub text: String,
    pub line: u64,
    /// Inside the model's reasoning (thinking blocks, `reasoning_content`).
    pub reasoning: bool,
    /// The text stands in its file as it is, so its line breaks are file lines. Text
    /// decoded from a JSON string sits on the lines of the string instead.
    pub raw: bool,
    /// The text is the source of a JSON value of no known shape: the json channel reads
    /// it (a whole call object), the text channel does not, as text syntaxes inside its
    /// strings are read from their decoded values instead (escapes undone).
    pub json_source: bool,
    /// How many line breaks come before each block of `LINE_BLOCK` bytes (and one more
    /// entry for the end), counted once when a line is first asked for.
    breaks_before: OnceLock<Vec<usize>>,
    /// Offsets of every `<`, `[` and `{`, found in one pass and shared by the scanners;
    /// boxed, and only when there are some, so that a text stays small to move and to
    /// allocate in a turn's vector (most message texts hold none).
    openers: OnceLock<Option<Box<Openers>>>,
    /// Whether `WIL` or `wil` occurs at all (WIL sentinels are searched only then).
    wil: OnceLock<bool>,
    /// UICP's `BEGIN WIL … END WIL` blocks, found once.
    wil_blocks: OnceLock<Vec<(usize, usize)>>,
    /// Reasoning regions, found once: a window asks when it is cut and again per channel.
    reasoning_regions: OnceLock<Vec<(usize, usize)>>,
    /// The line breaks of the whole text, when its reader counted them already.
    breaks: Option<u64>,
    /// Regions opened before the text starts and still open there (a window of a longer
    /// text that starts inside `<think>`).
    open_before: crate::scan::OpenRegions,
    /// The text starts where a completion does, so a `</think>` with no opening before
    /// it closes reasoning that a prefilled `<think>` opened: a message's text.
    completion_start: bool,
}

/// Where the bytes that can open a call sit in a text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Openers {
    pub angle: Vec<usize>,
    pub square: Vec<usize>,
    /// `[` and `{` together, in order: where JSON values may start.
    pub json: Vec<usize>,
    /// The `{` whose nearest byte before them, past white space, can end a name (see
    /// [`name_byte`]): the only braces that a marker or recipient written before a name
    /// can precede (`>>>f {`, `call:f{`, `to=functions.f json{`). Picked out while the
    /// sweep has the bytes in cache; each scanner that looks back from a brace would
    /// otherwise load the text at every one of them.
    pub named_braces: Vec<usize>,
    /// The `{` of JSON members (`"key": {`), which [`Openers::named_braces`] leaves out:
    /// the name before them is the lone `:`, which no built-in marker or recipient can
    /// be. Apart, because JSON written in text is full of them.
    pub member_braces: Vec<usize>,
}

/// A byte that can end a name written right before a brace: a letter, a digit, one of
/// `_-.:/`, or part of a multi-byte character.
pub fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'_' | b'-' | b'.' | b':' | b'/')
}

/// Searchers for `WIL` and `wil`, built once: building one costs more than searching a
/// short message text, and every text of a transcript is searched.
static WIL_FINDERS: LazyLock<[memchr::memmem::Finder<'static>; 2]> = LazyLock::new(|| {
    [
        memchr::memmem::Finder::new(b"WIL"),
        memchr::memmem::Finder::new(b"wil"),
    ]
});

/// Whether `WIL` or `wil` occurs: WIL sentinels are searched (in any case) only then.
pub(crate) fn holds_wil(bytes: &[u8]) -> bool {
    WIL_FINDERS.iter().any(|f| f.find(bytes).is_some())
}

/// The blocks of [`Text::wil_blocks`]; `open`: the text starts inside a block, which
/// is the first (from 0).
fn wil_blocks(bytes: &[u8], open: bool) -> Vec<(usize, usize)> {
    const BEGIN: &[u8] = b"BEGIN ";
    const END: &[u8] = b"END ";
    let [upper, lower] = &*WIL_FINDERS;
    let (upper, lower) = (upper.find_iter(bytes), lower.find_iter(bytes));
    let mut hits: Vec<usize> = upper.chain(lower).collect();
    hits.sort_unstable();
    let behind = |at: usize, word: &[u8]| {
        at >= word.len() && bytes[at - word.len()..at].eq_ignore_ascii_case(word)
    };
    let mut blocks = Vec::new();
    let mut hits = hits.into_iter();
    if open {
        let end = hits
            .by_ref()
            .find(|&at| at >= END.len() && behind(at, END))
            .map_or(bytes.len(), |at| at - END.len());
        blocks.push((0, end));
    }
    while let Some(begin) = hits.by_ref().find(|&at| behind(at, BEGIN)) {
        let body = begin + 3;
        let end = hits
            .by_ref()
            .find(|&at| at >= body + END.len() && behind(at, END))
            .map_or(bytes.len(), |at| at - END.len());
        blocks.push((begin - BEGIN.len(), end));
    }
    blocks
}

/// The block of [`Text::line_at`]'s counts: a line lookup counts at most this many bytes.
const LINE_BLOCK: usize = 4096;

/// The block of [`Text::sweep`].
const SWEEP_BLOCK: usize = 256 << 10;

impl Openers {
    const EMPTY: Openers = Openers {
        angle: Vec::new(),
        square: Vec::new(),
        json: Vec::new(),
        named_braces: Vec::new(),
        member_braces: Vec::new(),
    };

    /// No `<`, `[` or `{` at all (the brace lists are parts of `json`).
    fn is_empty(&self) -> bool {
        self.angle.is_empty() && self.json.is_empty()
    }

    pub fn clear(&mut self) {
        self.angle.clear();
        self.square.clear();
        self.json.clear();
        self.named_braces.clear();
        self.member_braces.clear();
    }

    /// Adds the openers of `text[from..to]`.
    pub fn add(&mut self, text: &[u8], from: usize, to: usize) {
        for at in memchr::memchr3_iter(b'<', b'[', b'{', &text[from..to]) {
            self.add_one(text, from + at);
        }
    }

    /// Lists the opener at `at`, after those listed already.
    pub fn add_one(&mut self, text: &[u8], at: usize) {
        match text[at] {
            b'<' => self.angle.push(at),
            b'[' => {
                self.square.push(at);
                self.json.push(at);
            }
            _ => {
                self.json.push(at);
                self.sort_brace(text, at);
            }
        }
    }

    /// Lists the `{` at `at` among the named or member braces, by what stands before it.
    /// Each run of white space is walked back over from one brace at most.
    fn sort_brace(&mut self, text: &[u8], at: usize) {
        let mut p = at;
        while p > 0 && text[p - 1].is_ascii_whitespace() {
            p -= 1;
        }
        if p > 0 && name_byte(text[p - 1]) {
            if p >= 2 && text[p - 1] == b':' && text[p - 2] == b'"' {
                self.member_braces.push(at);
            } else {
                self.named_braces.push(at);
            }
        }
    }

    /// Adds the openers of `bytes` and (with `find_wil`) says whether `WIL` or `wil`
    /// occurs, in one sweep over blocks small enough to stay in cache from one search to
    /// the next; `each_block` sees every block while it is there too. The sweep stops
    /// after a block at whose end `angle` or `json` holds more than `limit` gives for
    /// the bytes swept (text that dense is cut short, see [`crate::input`]): the second
    /// value is where it stopped, the end of `bytes` when it did not.
    pub fn sweep(
        &mut self,
        bytes: &[u8],
        find_wil: bool,
        limit: &dyn Fn(usize) -> usize,
        mut each_block: impl FnMut(&[u8]),
    ) -> (bool, usize) {
        // Not looked for is not found: the searches below stop at the first.
        let mut wil = !find_wil;
        for from in (0..bytes.len()).step_by(SWEEP_BLOCK) {
            let to = (from + SWEEP_BLOCK).min(bytes.len());
            self.add(bytes, from, to);
            // The needle may start in the block before.
            wil = wil || holds_wil(&bytes[from.saturating_sub(2)..to]);
            each_block(&bytes[from..to]);
            if to < bytes.len() && {
                let limit = limit(to);
                self.angle.len() > limit || self.json.len() > limit
            } {
                return (wil && find_wil, to);
            }
        }
        (wil && find_wil, bytes.len())
    }

    /// Appends the openers of a piece of text found on its own (`piece`, offsets in
    /// it), which now starts at `shift` in `text`: as if `add` had found them there.
    /// Only the braces whose sorting looked at the piece's first two bytes are sorted
    /// again (what stood before them lies before the piece): the first byte that is not
    /// white space, and the second when the first is the piece's first.
    pub fn append_piece(&mut self, piece: &Openers, text: &[u8], shift: usize) {
        let moved = |v: &mut Vec<usize>, from: &[usize], edge: &[usize]| {
            v.extend(
                from.iter()
                    .map(|&o| o + shift)
                    .filter(|o| !edge.contains(o)),
            )
        };
        moved(&mut self.angle, &piece.angle, &[]);
        moved(&mut self.square, &piece.square, &[]);
        moved(&mut self.json, &piece.json, &[]);
        let solid = |from: usize| {
            text[from..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map(|n| from + n)
        };
        let mut edge = [usize::MAX; 2];
        if let Some(first) = solid(shift) {
            edge[0] = first;
            if first == shift {
                edge[1] = solid(first + 1).unwrap_or(usize::MAX);
            }
        }
        for at in edge {
            if text.get(at) == Some(&b'{') {
                self.sort_brace(text, at);
            }
        }
        moved(&mut self.named_braces, &piece.named_braces, &edge);
        moved(&mut self.member_braces, &piece.member_braces, &edge);
    }
}

impl Text {
    pub fn new(text: impl Into<String>, line: u64, reasoning: bool, raw: bool) -> Text {
        Text {
            text: text.into(),
            line,
            reasoning,
            raw,
            json_source: false,
            breaks_before: OnceLock::new(),
            openers: OnceLock::new(),
            wil: OnceLock::new(),
            wil_blocks: OnceLock::new(),
            reasoning_regions: OnceLock::new(),
            breaks: None,
            open_before: crate::scan::OpenRegions::default(),
            completion_start: !raw,
        }
    }

    /// The text starts where a completion does, though its line breaks are file lines
    /// (convert cuts a message's text with the lines of its calls told apart).
    pub fn at_completion_start(mut self) -> Text {
        self.completion_start = true;
        self.reasoning_regions.take();
        self
    }

    /// A window's text whose openers, `WIL` search and line breaks were found as it was
    /// read (see [`crate::input`]'s pieces).
    pub fn swept(text: String, line: u64, openers: Openers, wil: bool, breaks: u64) -> Text {
        let mut t = Text::new(text, line, false, true);
        // Kept even when empty, as `sweep` does: the lists go back for the next window.
        let _ = t.openers.set(Some(Box::new(openers)));
        let _ = t.wil.set(wil);
        t.breaks = Some(breaks);
        t
    }

    /// The spans of `<think>…</think>` and the like in the text (see
    /// [`crate::scan::reasoning_regions_at`]).
    pub fn reasoning_regions(&self) -> &[(usize, usize)] {
        self.reasoning_regions.get_or_init(|| {
            let openers = self.openers();
            // A message of a transcript starts where its completion does; plain text
            // may hold any number of completions (and is read in windows that could
            // not tell the first from the next), so a bare `</think>` says nothing there.
            crate::scan::reasoning_regions_at(
                &self.text,
                &openers.angle,
                &openers.square,
                self.completion_start,
                self.open_before.reasoning,
            )
        })
    }

    /// Regions opened before the text starts and still open there.
    pub fn open_before(&self) -> crate::scan::OpenRegions {
        self.open_before
    }

    /// Tells a window which regions were open where it starts.
    pub fn set_open_before(&mut self, open: crate::scan::OpenRegions) {
        self.open_before = open;
        self.reasoning_regions.take();
        self.wil_blocks.take();
    }

    /// Whether the text holds `WIL` or `wil` anywhere, found once (or starts inside a
    /// block opened before it).
    pub fn maybe_wil(&self) -> bool {
        self.open_before.wil || *self.wil.get_or_init(|| holds_wil(self.text.as_bytes()))
    }

    /// UICP's `BEGIN WIL … END WIL` blocks: the offset of each `BEGIN WIL` and of its
    /// `END WIL`, or the text's end when it has none. `BEGIN` and `END` match in any
    /// case, `WIL` in upper or lower case. Searched once per text, and only when `WIL`
    /// or `wil` occurs. The search visits each `WIL`/`wil` and looks behind it: English
    /// is full of "will", but far fuller of the `b` a case-blind search would stop at.
    pub fn wil_blocks(&self) -> &[(usize, usize)] {
        self.wil_blocks.get_or_init(|| {
            if !self.maybe_wil() {
                return Vec::new();
            }
            wil_blocks(self.text.as_bytes(), self.open_before.wil)
        })
    }

    /// Whether a call in a built-in text syntax could be in this text at all. Each of
    /// them holds a `<`, `[` or `{` (tags, markers, JSON, Python lists), except WIL,
    /// which needs its `BEGIN WIL` (or `--dialects wil`, which the caller checks, as it
    /// does rows from `--dialect-file`). Most message texts hold none of these, and no
    /// scanner needs to look at them.
    pub fn may_hold_call(&self) -> bool {
        let o = self.openers();
        !o.angle.is_empty() || !o.json.is_empty() || !self.wil_blocks().is_empty()
    }

    /// The offsets of `<`, `[` and `{` in the text.
    pub fn openers(&self) -> &Openers {
        static NONE: Openers = Openers::EMPTY;
        self.openers
            .get_or_init(|| {
                let mut o = Openers::default();
                o.add(self.text.as_bytes(), 0, self.text.len());
                (!o.is_empty()).then(|| Box::new(o))
            })
            .as_deref()
            .unwrap_or(&NONE)
    }

    /// Finds the openers and (with `find_wil`) whether `WIL` or `wil` occurs in one
    /// sweep over blocks small enough to stay in cache from one search to the next: on
    /// a large text with no call these searches are most of the work there is.
    pub fn sweep(&self, find_wil: bool) {
        self.sweep_within(Openers::default(), find_wil, &|_| usize::MAX);
    }

    /// [`Text::sweep`], stopped as [`Openers::sweep`] stops past `limit`: false
    /// when it stopped before the end (the lists then hold the openers of a first part
    /// of the text only, enough to tell where to cut it). `openers` are lists to fill,
    /// emptied first: a window's, reused from the window before.
    pub fn sweep_within(
        &self,
        mut openers: Openers,
        find_wil: bool,
        limit: &dyn Fn(usize) -> usize,
    ) -> bool {
        openers.clear();
        let (wil, swept) = openers.sweep(self.text.as_bytes(), find_wil, limit, |_| {});
        let _ = self.openers.set(Some(Box::new(openers)));
        let _ = self.wil.set(wil);
        swept == self.text.len()
    }

    /// The opener lists found, taken out of the text (to be filled again for another).
    pub(crate) fn take_openers(&mut self) -> Option<Openers> {
        self.openers.take().flatten().map(|o| *o)
    }

    /// The file line of a byte offset in the text: the breaks before its block, plus
    /// those in the block up to it. A window of short lines holds a hundred thousand
    /// breaks; counting them per block costs a vector of a few thousand entries and one
    /// counting pass, where listing each of them cost a push per break.
    pub fn line_at(&self, offset: usize) -> u64 {
        if !self.raw {
            return self.line;
        }
        let bytes = self.text.as_bytes();
        let breaks_before = self.breaks_before.get_or_init(|| {
            let mut counts = Vec::with_capacity(bytes.len() / LINE_BLOCK + 2);
            let mut before = 0;
            for block in bytes.chunks(LINE_BLOCK) {
                counts.push(before);
                before += memchr::memchr_iter(b'\n', block).count();
            }
            counts.push(before);
            counts
        });
        let offset = offset.min(bytes.len());
        let block = offset / LINE_BLOCK;
        let within = memchr::memchr_iter(b'\n', &bytes[block * LINE_BLOCK..offset]).count();
        self.line + (breaks_before[block] + within) as u64
    }

    /// The line breaks before `offset` in raw text: from the per-block counts when a
    /// call's line has made them, else from the reader's count of the whole text less
    /// those after `offset`, else counted in one pass.
    pub(crate) fn breaks_up_to(&self, offset: usize) -> u64 {
        let offset = offset.min(self.text.len());
        let count = |b: &[u8]| memchr::memchr_iter(b'\n', b).count() as u64;
        if self.breaks_before.get().is_some() {
            self.line_at(offset) - self.line
        } else if let Some(all) = self.breaks {
            // A window's cut is near its end: the few lines after it are counted.
            all - count(&self.text.as_bytes()[offset..])
        } else {
            count(&self.text.as_bytes()[..offset])
        }
    }
}

/// Where a turn came from, for dialects that only make sense in one kind of log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Origin {
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
    pub role: Role,
    pub line: u64,
    /// Native structured calls (the tool channel).
    pub calls: Vec<Call>,
    /// Text for the json and text channels.
    pub texts: Vec<Text>,
    pub origin: Origin,
}

impl Turn {
    pub fn new(role: Role, line: u64) -> Turn {
        Turn {
            role,
            line,
            calls: Vec::new(),
            texts: Vec::new(),
            origin: Origin::Plain,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.texts.is_empty()
    }

    pub fn push_text<'t>(&mut self, text: impl Into<Cow<'t, str>>, line: u64, reasoning: bool) {
        self.push(text.into(), line, reasoning, false);
    }

    /// Text read straight from a file (plain text input, a line that is not JSON).
    pub fn push_raw_text<'t>(&mut self, text: impl Into<Cow<'t, str>>, line: u64) {
        self.push(text.into(), line, false, true);
    }

    /// The source of a JSON value of no known shape (see [`Text::json_source`]), with
    /// the offsets of its objects and arrays: the only openers a scanner is given, as
    /// the others are inside strings.
    pub fn push_json_source(&mut self, text: &str, line: u64, values: &[usize]) {
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
    pub fn push_call(&mut self, call: Call) {
        if self.calls.capacity() == 0 {
            self.calls = SPARE.with_borrow_mut(|s| s.calls.pop()).unwrap_or_default();
        }
        self.calls.push(call);
    }

    /// Gives the turn's buffers back for later turns of this thread, so that a long log
    /// does not allocate and copy afresh for every message.
    pub fn recycle(mut self) {
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
    Turn(Turn),
    Result(ToolResult),
    /// One window of a plain-text input too large to hold whole.
    Window(Window),
}

/// A piece of one long plain text (one assistant turn), read window by window. Windows
/// overlap, so a call near the end of one is seen whole in the next.
#[derive(Debug)]
pub struct Window {
    pub text: Text,
    /// Offset of this window in the whole text.
    pub offset: usize,
    /// Calls that start at or after this offset are left to the next window, which
    /// starts there. The consumer may move it on, up to `latest_keep`, when it knows
    /// that nothing before the new offset could change in a longer text.
    pub keep_before: usize,
    /// The furthest the consumer may move `keep_before`: a short overlap before the cut.
    pub latest_keep: usize,
    /// How far windows overlap: `keep_before` is at most this far before the cut, and
    /// the consumer may move it back as far again, to the start of a construct.
    pub overlap: usize,
    pub last: bool,
    /// Set by the consumer: the windows after this one need no search for WIL's
    /// sentinels, because the turn is won by a channel WIL is no part of (the sentinels
    /// only keep a window from being cut inside a WIL block).
    pub sentinels_moot: bool,
    /// Where the window's remains go when its consumer drops it (see [`Passed`]): the
    /// reader that cut it, which needs them to start the next window.
    pub back: Option<std::sync::mpsc::Sender<Passed>>,
}

/// What a window hands back to its reader when its consumer drops it.
#[derive(Debug)]
pub struct Passed {
    /// Line breaks before the cut (`keep_before`), for numbering the next window.
    pub lines: u64,
    /// The cut, as an offset in the window's text.
    pub keep: usize,
    /// The window's text, whose part from the cut on starts the next window; its
    /// buffer is then reused for the window after (a fresh 4 MiB each time costs the
    /// allocator and page faults).
    pub bytes: Vec<u8>,
    /// The window's opener lists, cleared and filled again for the next window: they
    /// hold tens of thousands of offsets in text full of brackets.
    pub openers: Option<Openers>,
    /// See [`Window::sentinels_moot`].
    pub sentinels_moot: bool,
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

    #[test]
    fn texts_without_brackets_or_wil_blocks_hold_no_call() {
        let t = |s: &str| Text::new(s, 1, false, false).may_hold_call();
        assert!(!t(
            "plain words, punctuation: and \"quotes\"; a >>> prompt, call: f"
        ));
        assert!(!t("it will be fine; BEGIN with the wild west"));
        for s in ["a <tag>", "a [list]", "a {obj}", "BEGIN WIL\nx\nEND WIL"] {
            assert!(t(s), "{s}");
        }
    }

    #[test]
    fn the_line_of_every_offset_is_the_count_of_breaks_before_it() {
        // Texts around the block size, with runs of breaks and none, and offsets past
        // the end (which get the last line).
        let mut texts = vec![String::new(), "\n".into(), "a\nb".into()];
        for len in [LINE_BLOCK - 1, LINE_BLOCK, LINE_BLOCK + 1, 3 * LINE_BLOCK] {
            let text: String = (0..len)
                .map(|i| {
                    if i % 7 == 3 || i % 1000 < 20 {
                        '\n'
                    } else {
                        'x'
                    }
                })
                .collect();
            texts.push(text);
        }
        texts.push("é\n".repeat(LINE_BLOCK));
        for text in texts {
            let t = Text::new(text.clone(), 5, false, true);
            for offset in 0..=text.len() + 2 {
                let expected = text.as_bytes()[..offset.min(text.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64;
                assert_eq!(t.line_at(offset), 5 + expected, "offset {offset}");
            }
        }
        // Text decoded from a JSON string keeps the line of its string.
        assert_eq!(Text::new("a\nb\nc", 9, false, false).line_at(4), 9);
    }

    #[test]
    fn openers_of_pieces_appended_are_those_of_the_whole() {
        let alphabet = b"{{[<  \n\":ab";
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..3000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 58) as usize + 1;
            let text: Vec<u8> = (0..len)
                .map(|k| alphabet[((seed >> (k % 50)) as usize + k * 7) % alphabet.len()])
                .collect();
            let mut whole = Openers::default();
            whole.add(&text, 0, len);
            for cut in 0..=len {
                let mut joined = Openers::default();
                joined.add(&text, 0, cut);
                let mut piece = Openers::default();
                piece.add(&text[cut..], 0, len - cut);
                joined.append_piece(&piece, &text, cut);
                assert_eq!(
                    joined,
                    whole,
                    "{:?} cut at {cut}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    #[test]
    fn named_braces_are_those_with_a_name_byte_before_them() {
        let s = "a{ f {} \"k\": {} [{ ) {} é\n\t{ x/{ ,{ { y: {} \"a:b\":{}";
        let t = Text::new(s, 1, false, true);
        let before = |braces: &[usize]| -> Vec<String> {
            braces
                .iter()
                .map(|&at| s[..at].trim_end().chars().rev().take(4).collect())
                .collect()
        };
        let openers = t.openers();
        assert_eq!(
            before(&openers.named_braces),
            ["a", "f {a", "é }{", "/x {", ":y {"]
        );
        assert_eq!(before(&openers.member_braces), [":\"k\"", ":\"b:"]);
    }

    #[test]
    fn one_sweep_finds_what_the_separate_searches_find() {
        // "WIL" across each block boundary, openers on both sides.
        for cut in [SWEEP_BLOCK - 2, SWEEP_BLOCK - 1, SWEEP_BLOCK] {
            for needle in ["WIL", "wil", "WIX"] {
                let mut s = "a{b[c<d\n".repeat(SWEEP_BLOCK / 8 + 1);
                s.truncate(cut);
                s.push_str(needle);
                s.push_str("\n<x>[y]{z}\n");
                let swept = Text::new(s.clone(), 1, false, true);
                swept.sweep(true);
                let plain = Text::new(s.clone(), 1, false, true);
                assert_eq!(swept.openers(), plain.openers());
                for offset in [0, 1, cut / 2, cut, s.len()] {
                    assert_eq!(swept.line_at(offset), plain.line_at(offset), "{offset}");
                }
                assert_eq!(swept.maybe_wil(), needle != "WIX", "{needle} at {cut}");
            }
        }
    }

    #[test]
    fn wil_blocks_are_those_a_plain_search_finds() {
        // The reference: try every offset for the sentinels.
        fn reference(s: &[u8]) -> Vec<(usize, usize)> {
            let at = |i: usize, word: &[u8]| {
                s.len() >= i + word.len() + 3
                    && s[i..i + word.len()].eq_ignore_ascii_case(word)
                    && matches!(&s[i + word.len()..i + word.len() + 3], b"WIL" | b"wil")
            };
            let (mut blocks, mut from) = (Vec::new(), 0);
            while let Some(begin) = (from..s.len()).find(|&i| at(i, b"BEGIN ")) {
                let end = (begin + 9..s.len())
                    .find(|&i| at(i, b"END "))
                    .unwrap_or(s.len());
                blocks.push((begin, end));
                from = end;
            }
            blocks
        }
        let pieces = [
            "BEGIN WIL",
            "begin wil",
            "Begin WIL",
            "bEGIN Wil",
            "END WIL",
            "end wil",
            "End WIL",
            "friend will",
            "BEGIN ",
            "WIL",
            "wil",
            "Will",
            " ",
            "\n",
            "x",
            "BEGINWIL",
        ];
        let (mut seed, mut with_blocks) = (0x2545_f491_4f6c_dd1d_u64, 0);
        for _ in 0..5_000 {
            let mut s = String::new();
            let mut next = |n: usize| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (seed >> 33) as usize % n
            };
            for _ in 0..next(12) {
                s.push_str(pieces[next(pieces.len())]);
            }
            let text = Text::new(s.clone(), 1, false, true);
            assert_eq!(text.wil_blocks(), reference(s.as_bytes()), "{s:?}");
            with_blocks += usize::from(!text.wil_blocks().is_empty());
        }
        assert!(with_blocks > 500, "{with_blocks}");
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
