//! Streamed responses reassembled into whole calls: OpenAI Chat chunks, Anthropic
//! events, Responses API events, Bedrock ConverseStream events, Cohere v2 chat events
//! and Gemini streamed arguments. A stream cut off before
//! a call was complete still yields the call, marked truncated.

use crate::dialects::native::{self, ExecutedTool};
use crate::json::{LineIndex, Node, Obj};
use crate::model::{Call, JsonText, Role, ToolResult, Turn};
use crate::recent::RecentSet;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Chat,
    Anthropic,
    Responses,
    Bedrock,
    GeminiPartial,
    LangChain,
    Interactions,
    Cohere,
    /// xAI's gRPC stream chunks as JSON (`{id, outputs: [{index, delta}]}`).
    Xai,
}

/// Cohere v2 chat stream events, told by `type` (hyphenated, unlike Anthropic's).
const COHERE_EVENTS: &[&str] = &[
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
];

/// Gemini Interactions API stream events, told by `event_type` (the SDKs' names of
/// both API versions: `interaction.start`/`.created`, `interaction.complete`/`.completed`).
const INTERACTIONS_EVENTS: &[&str] = &[
    "interaction.start",
    "interaction.created",
    "interaction.status_update",
    "interaction.complete",
    "interaction.completed",
    "step.start",
    "step.delta",
    "step.stop",
];

/// Bedrock ConverseStream events, each an object under its event's name (as the SDKs
/// give them, and as the binary event stream's frames are read).
const BEDROCK_EVENTS: &[&str] = &[
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
];

const ANTHROPIC_EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
];

pub(crate) const TRUNCATED: &str = "truncated: the stream ended before this call was complete";

/// How many calls a stream holds while it is under way. A stream that starts more is
/// flushed, oldest first, down to half of it: each call as it stands, marked truncated
/// when it is not complete, as if the stream had ended there (see
/// [`Stream::flush_oldest`]). Real streams hold a few parallel calls, the largest
/// recorded a few hundred.
pub(crate) const MAX_OPEN_CALLS: usize = 4096;

/// How many flushed calls a stream remembers, so that a late fragment of one is
/// dropped rather than taken for a new call.
const FLUSHED_MEMORY: usize = 1 << 14;

fn kind_of(obj: &Obj) -> Option<Kind> {
    if obj.is("object", "chat.completion.chunk") {
        return Some(Kind::Chat);
    }
    if langchain_chunk(obj).is_some() {
        return Some(Kind::LangChain);
    }
    if obj
        .str("event_type")
        .is_some_and(|t| INTERACTIONS_EVENTS.contains(&t.as_ref()))
    {
        return Some(Kind::Interactions);
    }
    if let Some(t) = obj.str("type") {
        if ANTHROPIC_EVENTS.contains(&t.as_ref()) {
            return Some(Kind::Anthropic);
        }
        if t.starts_with("response.") {
            return Some(Kind::Responses);
        }
        // Pieces carry `delta.message`; the events that close something may carry nothing.
        if COHERE_EVENTS.contains(&t.as_ref())
            && (obj.obj("delta").is_some_and(|d| d.has("message")) || t.ends_with("-end"))
        {
            return Some(Kind::Cohere);
        }
    }
    if BEDROCK_EVENTS.iter().any(|e| obj.obj(e).is_some()) || bedrock_metadata(obj) {
        return Some(Kind::Bedrock);
    }
    if let Some(first) = obj.items("outputs").next() {
        return first
            .object()
            .is_some_and(|o| o.has("delta"))
            .then_some(Kind::Xai);
    }
    let first_choice = obj.items("choices").next()?.object()?;
    first_choice.has("delta").then_some(Kind::Chat)
}

/// The body of a LangChain `AIMessageChunk` given on its own (LangGraph's
/// `stream_mode="messages"`, `astream` output): the `kwargs` of LangChain's serialized
/// (`dumpd`) form, or the message dict itself (`{"type": "AIMessageChunk", …}`).
/// Inside a list of messages (a `values` snapshot) a chunk is a whole message instead.
pub(crate) fn langchain_chunk<'a>(obj: &Obj<'a>) -> Option<Obj<'a>> {
    match obj.str("type")?.as_ref() {
        "AIMessageChunk" => Some(*obj),
        "constructor" if crate::transcript::constructor_class(obj)? == "AIMessageChunk" => {
            obj.obj("kwargs")
        }
        _ => None,
    }
}

/// The reasoning LangChain keeps beside a message's content, in `additional_kwargs`: a
/// provider's `reasoning_content` string and the texts of a Responses `reasoning`
/// summary. Each text with the node it is told at (the string, or its summary part).
pub(crate) fn langchain_reasoning<'a>(
    body: &Obj<'a>,
) -> impl Iterator<Item = (std::borrow::Cow<'a, str>, Node<'a>)> + use<'a> {
    let extra = body.obj("additional_kwargs");
    let content = extra
        .and_then(|e| e.get("reasoning_content"))
        .filter(|r| r.kind() == crate::json::Kind::String)
        .map(|r| (r.str().unwrap_or_default(), r));
    let summary = extra
        .and_then(|e| e.obj("reasoning"))
        .into_iter()
        .flat_map(|r| r.items("summary"))
        .filter_map(|part| Some((part.object()?.str("text")?, part)));
    content.into_iter().chain(summary)
}

/// Bedrock's last event, `{"metadata": {"usage": …, "metrics": …}}`.
fn bedrock_metadata(obj: &Obj) -> bool {
    obj.obj("metadata")
        .is_some_and(|m| m.has("usage") && m.has("metrics"))
}

/// Whether a chat chunk starts an assistant message (`delta.role`).
fn opens_message(obj: &Obj) -> bool {
    obj.items("choices").any(|c| {
        c.object()
            .and_then(|c| c.obj("delta"))
            .is_some_and(|d| d.has("role"))
    })
}

/// Whether a value is an event of a Cohere v2 chat stream.
pub(crate) fn is_cohere_event(obj: &Obj) -> bool {
    kind_of(obj) == Some(Kind::Cohere)
}

/// The kind of stream a value is an event of, if this module reassembles it.
pub(crate) fn stream_kind(obj: &Obj) -> Option<Kind> {
    kind_of(obj)
}

/// A call being assembled.
struct Pending {
    /// Choice index (chat), block index (Anthropic).
    choice: u64,
    index: Option<u64>,
    /// Responses item id.
    item: Option<String>,
    id: Option<String>,
    name: String,
    args: String,
    /// Arguments given whole as an object (Anthropic start block, Ollama-style chunks),
    /// as compact text that loses nothing.
    value: Option<String>,
    /// A whole call from an authoritative event (`response.output_item.done`).
    built: Option<Call>,
    free_form: bool,
    line: u64,
    complete: bool,
    fragments: Vec<(String, Value)>,
    /// Gemini fragments whose value could not be read.
    errors: Vec<String>,
}

impl Pending {
    /// Whether it holds nothing but zero values: no name, id or arguments (an
    /// OpenAI-compatible server's `"function_call": {"name": "", "arguments": ""}` in
    /// every chunk). No call, as [`crate::formats::DecodedCall::tool_name`] has it.
    fn is_placeholder(&self) -> bool {
        self.built.is_none()
            && self.name.is_empty()
            && self.id.is_none()
            && self.args.trim().is_empty()
            && self.value.as_deref().is_none_or(|v| v == "{}")
            && self.fragments.is_empty()
    }

    fn new(line: u64) -> Pending {
        Pending {
            choice: 0,
            index: None,
            item: None,
            id: None,
            name: String::new(),
            args: String::new(),
            value: None,
            built: None,
            free_form: false,
            line,
            complete: false,
            fragments: Vec::new(),
            errors: Vec::new(),
        }
    }
}

pub struct Stream {
    kind: Kind,
    key: Option<String>,
    /// The key given to a stream started inside a response (Gemini's streamed
    /// arguments), already hashed.
    response_key: Option<u64>,
    line: u64,
    text: String,
    text_line: u64,
    reasoning: String,
    reasoning_line: u64,
    /// The calls under way, oldest first. A call's slot is its place among all the
    /// calls the stream started: `calls[slot - base]`, where `base` calls were flushed
    /// before (see [`Stream::flush_oldest`]).
    calls: VecDeque<Pending>,
    base: usize,
    /// Where the call of each (choice, tool-call index) of a Chat stream sits in
    /// `calls`, and each Responses item: a stream with thousands of parallel calls finds
    /// a fragment's call at once, not by a search of all of them.
    chat_slots: HashMap<(u64, u64), usize>,
    /// The last call of each (choice, id) of a Chat stream, for fragments without index.
    chat_ids: HashMap<(u64, String), usize>,
    item_slots: HashMap<String, usize>,
    /// The last call of each choice (Chat) or content block (Anthropic) in `calls`.
    last_of_choice: HashMap<u64, usize>,
    /// Hashes of the keys (index, id, item) of recently flushed calls: a late fragment
    /// of one is dropped.
    flushed: RecentSet,
    finished_choices: HashSet<u64>,
    done: bool,
    results: Vec<ToolResult>,
    /// Groq's `executed_tools` (tools the API ran), by choice and index: each chunk
    /// repeats an entry whole, the last one with its output. (call, its arguments as
    /// written, its result without an id.)
    executed: Vec<((u64, u64), ExecutedTool)>,
    /// Text of Responses message items by item id, in order, and where each id sits.
    item_texts: Vec<(String, String)>,
    item_text_slots: HashMap<String, usize>,
}

/// The key of a flushed call in [`Stream::flushed`].
fn flushed_key(what: &str, choice: u64, key: &[u8]) -> u64 {
    crate::recent::hash_parts(&[what.as_bytes(), &choice.to_le_bytes(), key])
}

impl Stream {
    /// Adds a call under way, notes where it sits, and returns its slot.
    fn push_call(&mut self, p: Pending) -> usize {
        let slot = self.base + self.calls.len();
        self.last_of_choice.insert(p.choice, slot);
        self.calls.push_back(p);
        slot
    }

    /// The call at a slot, unless it was flushed.
    fn slot_mut(&mut self, slot: usize) -> Option<&mut Pending> {
        self.calls.get_mut(slot.checked_sub(self.base)?)
    }

    /// The last call of a choice or content block.
    fn last_call_of(&mut self, choice: u64) -> Option<&mut Pending> {
        let slot = *self.last_of_choice.get(&choice)?;
        self.slot_mut(slot)
    }

    /// The call of a Responses item, by its id.
    fn item_call(&mut self, item: Option<&str>) -> Option<&mut Pending> {
        let slot = *self.item_slots.get(item?)?;
        self.slot_mut(slot)
    }

    /// Whether a Responses item's call was flushed.
    fn item_flushed(&self, item: &str) -> bool {
        self.flushed
            .contains(flushed_key("item", 0, item.as_bytes()))
    }

    /// How many calls the stream holds.
    pub(crate) fn open_calls(&self) -> usize {
        self.calls.len()
    }

    /// The line the stream started on.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Settles the oldest calls, down to half of [`MAX_OPEN_CALLS`], each as it stands:
    /// as [`Stream::finish`] would if the stream ended now. Returns them in order, and
    /// whether one of them was not complete (and is marked truncated). Later fragments
    /// of a flushed call are dropped.
    pub(crate) fn flush_oldest(&mut self) -> (Vec<Call>, bool) {
        let keep = MAX_OPEN_CALLS / 2;
        let mut out = Vec::with_capacity(self.calls.len().saturating_sub(keep));
        let mut cut = false;
        while self.calls.len() > keep {
            let Some(p) = self.calls.pop_front() else {
                break;
            };
            let slot = self.base;
            self.base += 1;
            if self.last_of_choice.get(&p.choice) == Some(&slot) {
                self.last_of_choice.remove(&p.choice);
            }
            if let Some(i) = p.index
                && self.chat_slots.get(&(p.choice, i)) == Some(&slot)
            {
                self.chat_slots.remove(&(p.choice, i));
                self.flushed
                    .insert(flushed_key("index", p.choice, &i.to_le_bytes()));
            }
            if let Some(id) = &p.id {
                let key = (p.choice, id.clone());
                if self.chat_ids.get(&key) == Some(&slot) {
                    self.chat_ids.remove(&key);
                    self.flushed
                        .insert(flushed_key("id", p.choice, id.as_bytes()));
                }
            }
            if let Some(item) = &p.item
                && self.item_slots.get(item) == Some(&slot)
            {
                self.item_slots.remove(item);
                self.flushed.insert(flushed_key("item", 0, item.as_bytes()));
            }
            if p.is_placeholder() {
                continue;
            }
            let (call, complete) = self.settle(p);
            cut |= !complete;
            out.push(call);
        }
        (out, cut)
    }

    fn new(kind: Kind, line: u64) -> Stream {
        Stream {
            kind,
            key: None,
            response_key: None,
            line,
            text: String::new(),
            text_line: line,
            reasoning: String::new(),
            reasoning_line: line,
            calls: VecDeque::new(),
            base: 0,
            chat_slots: HashMap::new(),
            chat_ids: HashMap::new(),
            item_slots: HashMap::new(),
            last_of_choice: HashMap::new(),
            flushed: RecentSet::with_cap(FLUSHED_MEMORY),
            finished_choices: HashSet::new(),
            done: false,
            results: Vec::new(),
            executed: Vec::new(),
            item_texts: Vec::new(),
            item_text_slots: HashMap::new(),
        }
    }

    #[cfg(test)]
    pub fn start(obj: &Obj, line: u64) -> Stream {
        Stream::new(kind_of(obj).unwrap_or(Kind::Chat), line)
    }

    /// A stream of a kind already known.
    pub(crate) fn start_kind(kind: Kind, line: u64) -> Stream {
        Stream::new(kind, line)
    }

    pub fn gemini_partial(name: String, line: u64, key: Option<u64>) -> Stream {
        let mut s = Stream::new(Kind::GeminiPartial, line);
        let mut p = Pending::new(line);
        p.name = name;
        s.calls.push_back(p);
        s.response_key = key;
        s
    }

    pub fn is_gemini_partial(&self) -> bool {
        self.kind == Kind::GeminiPartial
    }

    /// Whether `obj` continues this stream (rather than starting another).
    #[cfg(test)]
    pub fn accepts(&self, obj: &Obj) -> bool {
        kind_of(obj).is_some_and(|kind| self.accepts_kind(obj, kind))
    }

    /// [`Stream::accepts`], with the event's kind already known.
    pub(crate) fn accepts_kind(&self, obj: &Obj, kind: Kind) -> bool {
        if kind != self.kind {
            return false;
        }
        match self.kind {
            // Some proxies give every chunk its own id: a new id starts a new response
            // only once this one has finished or when the chunk opens a message.
            Kind::Chat => match (obj.str("id"), &self.key) {
                (Some(id), Some(key)) if id != key.as_str() => {
                    let finished = self.done || !self.finished_choices.is_empty();
                    !finished && !opens_message(obj)
                }
                _ => true,
            },
            Kind::Anthropic => !(obj.is("type", "message_start") && self.key.is_some()),
            // The chunks of one response share its id.
            Kind::Xai => match (obj.str("id"), &self.key) {
                (Some(id), Some(key)) => id == key.as_str(),
                _ => true,
            },
            Kind::Responses => !(obj.is("type", "response.created") && self.key.is_some()),
            // A `messageStart` after anything of this message starts the next one.
            Kind::Cohere => !(obj.is("type", "message-start") && self.key.is_some()),
            Kind::Bedrock => {
                let started =
                    self.done || self.base > 0 || !self.calls.is_empty() || !self.text.is_empty();
                !started || !obj.has("messageStart")
            }
            Kind::GeminiPartial => false,
            Kind::Interactions => {
                !(matches!(
                    obj.str("event_type").as_deref(),
                    Some("interaction.start" | "interaction.created")
                ) && self.key.is_some())
            }
            // Chunks of another message continue the stream (LangGraph interleaves the
            // chunks of parallel nodes, and a provider's message id can stand between
            // chunks with the run's id) unless this message said it was complete.
            Kind::LangChain => {
                !self.done
                    || langchain_chunk(obj)
                        .and_then(|body| body.str("id"))
                        .is_some_and(|id| self.key.as_deref() == Some(id.as_ref()))
            }
        }
    }

    pub fn mark_done(&mut self) {
        self.done = true;
        for c in &mut self.calls {
            c.complete = true;
        }
    }

    /// The tools the API ran, each with the arguments it was digested from and its
    /// result (which names its tool, not yet its call).
    pub fn take_executed(&mut self) -> Vec<ExecutedTool> {
        std::mem::take(&mut self.executed)
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    }

    pub fn take_results(&mut self) -> Vec<ToolResult> {
        std::mem::take(&mut self.results)
    }

    fn push_text(&mut self, text: &str, line: u64, reasoning: bool) {
        let (buf, at) = if reasoning {
            (&mut self.reasoning, &mut self.reasoning_line)
        } else {
            (&mut self.text, &mut self.text_line)
        };
        if buf.is_empty() {
            *at = line;
        }
        buf.push_str(text);
    }

    /// Applies one event. Returns true when the stream is complete.
    pub fn event(&mut self, obj: &Obj, line: u64) -> bool {
        match self.kind {
            Kind::Chat => self.chat(obj, line),
            Kind::Xai => self.xai(obj, line),
            Kind::Anthropic => self.anthropic(obj, line),
            Kind::Responses => self.responses(obj, line),
            Kind::Bedrock => self.bedrock(obj, line),
            Kind::Cohere => self.cohere(obj, line),
            Kind::GeminiPartial => false,
            Kind::Interactions => self.interactions(obj, line),
            Kind::LangChain => {
                if let Some(body) = langchain_chunk(obj) {
                    self.langchain(&body, line);
                }
                false
            }
        }
    }

    /// One LangChain `AIMessageChunk`: text and reasoning pieces, and `tool_call_chunks`
    /// whose `args` pieces join by message id and `index` as LangChain's own `concat`
    /// joins them. The chunk's `tool_calls` are LangChain's partial parse of the pieces
    /// seen so far (`{}` for the first): not calls.
    fn langchain(&mut self, body: &Obj, line: u64) {
        let id = body.str("id");
        if self.key.is_none() {
            self.key = id.as_deref().map(Into::into);
            self.line = line;
        }
        match body.get("content") {
            Some(content) if content.kind() == crate::json::Kind::String => {
                self.push_text(&content.str().unwrap_or_default(), line, false);
            }
            Some(content) => {
                for block in content.items() {
                    let Some(block) = block.object() else {
                        continue;
                    };
                    let reasoning =
                        matches!(block.str("type").as_deref(), Some("thinking" | "reasoning"));
                    let text = block
                        .str("text")
                        .or_else(|| block.str("thinking"))
                        .or_else(|| block.str("reasoning"));
                    if let Some(text) = text {
                        self.push_text(&text, line, reasoning);
                    }
                }
            }
            None => {}
        }
        for (text, _) in langchain_reasoning(body) {
            self.push_text(&text, line, true);
        }
        // The calls of each message are numbered apart.
        let message = id.map_or(0, |id| crate::recent::hash_bytes(id.as_bytes()));
        for chunk in body.items("tool_call_chunks") {
            let Some(chunk) = chunk.object() else {
                continue;
            };
            let index = chunk.get("index").and_then(|i| i.u64());
            let call_id = chunk
                .str("id")
                .map(|s| s.into_owned())
                .filter(|s| !s.is_empty());
            self.chat_fragment(message, index, call_id, &chunk, line);
        }
        let finished = body.obj("response_metadata").is_some_and(|m| {
            m.has("finish_reason") || m.has("stop_reason") || m.is("status", "completed")
        }) || body.is("chunk_position", "last");
        if finished {
            self.mark_done();
        }
    }

    fn bedrock(&mut self, obj: &Obj, line: u64) -> bool {
        let index_of = |event: &Obj| {
            event
                .get("contentBlockIndex")
                .and_then(|i| i.u64())
                .unwrap_or(0)
        };
        if obj.has("messageStart") {
            self.line = line;
        } else if let Some(event) = obj.obj("contentBlockStart") {
            if let Some(tool_use) = event.obj("start").and_then(|s| s.obj("toolUse")) {
                let mut p = Pending::new(line);
                p.choice = index_of(&event);
                p.id = tool_use.str("toolUseId").map(Into::into);
                p.name = tool_use.str("name").unwrap_or_default().into_owned();
                self.push_call(p);
            }
        } else if let Some(event) = obj.obj("contentBlockDelta") {
            let index = index_of(&event);
            let Some(delta) = event.obj("delta") else {
                return false;
            };
            if let Some(input) = delta.obj("toolUse").and_then(|t| t.str("input")) {
                if let Some(p) = self.last_call_of(index) {
                    p.args.push_str(&input);
                }
            } else if let Some(text) = delta.str("text") {
                self.push_text(&text, line, false);
            } else if let Some(text) = delta.obj("reasoningContent").and_then(|r| r.str("text")) {
                self.push_text(&text, line, true);
            }
        } else if let Some(event) = obj.obj("contentBlockStop") {
            let index = index_of(&event);
            if let Some(p) = self.last_call_of(index) {
                p.complete = true;
            }
        } else if obj.has("messageStop") {
            // The metadata event may follow, and ends the stream.
            self.mark_done();
        } else if bedrock_metadata(obj) {
            return true;
        }
        false
    }

    /// One Cohere v2 chat event. A call's pieces join by the event's `index` as Chat
    /// deltas do (`tool-call-start` gives the id, the name and the first piece); the
    /// tool plan is the model's text, `thinking` content its reasoning.
    fn cohere(&mut self, obj: &Obj, line: u64) -> bool {
        let index = obj.get("index").and_then(|i| i.u64());
        let message = obj.obj("delta").and_then(|d| d.obj("message"));
        match obj.str("type").as_deref() {
            Some("message-start") => {
                self.key = obj.str("id").map(Into::into);
                self.line = line;
            }
            Some("tool-plan-delta") => {
                if let Some(plan) = message.and_then(|m| m.str("tool_plan")) {
                    self.push_text(&plan, line, false);
                }
            }
            Some("content-start" | "content-delta") => {
                let content = message.and_then(|m| m.obj("content"));
                if let Some(content) = content {
                    if let Some(text) = content.str("text") {
                        self.push_text(&text, line, false);
                    } else if let Some(thinking) = content.str("thinking") {
                        self.push_text(&thinking, line, true);
                    }
                }
            }
            Some("tool-call-start" | "tool-call-delta") => {
                // One call per event, as an object (a list in some clients' copies).
                let Some(calls) = message.and_then(|m| m.get("tool_calls")) else {
                    return false;
                };
                let calls: Vec<Node> = match calls.kind() {
                    crate::json::Kind::Array => calls.items().collect(),
                    _ => vec![calls],
                };
                for call in calls {
                    let Some(tc) = call.object() else { continue };
                    let id = tc
                        .str("id")
                        .map(|s| s.into_owned())
                        .filter(|s| !s.is_empty());
                    let function = tc.obj("function").unwrap_or(tc);
                    self.chat_fragment(0, index, id, &function, line);
                }
            }
            Some("tool-call-end") => {
                let slot = match index {
                    Some(i) => self.chat_slots.get(&(0, i)).copied(),
                    None => self.last_of_choice.get(&0).copied(),
                };
                if let Some(p) = slot.and_then(|s| self.slot_mut(s)) {
                    p.complete = true;
                }
            }
            Some("message-end") => {
                self.mark_done();
                return true;
            }
            _ => {}
        }
        false
    }

    fn chat(&mut self, obj: &Obj, line: u64) -> bool {
        if self.key.is_none() {
            self.key = obj.str("id").map(Into::into);
        }
        for choice in obj.items("choices") {
            let Some(choice) = choice.object() else {
                continue;
            };
            let cidx = choice.get("index").and_then(|i| i.u64()).unwrap_or(0);
            if let Some(delta) = choice.obj("delta") {
                if let Some(text) = delta.str("content") {
                    self.push_text(&text, line, false);
                }
                for key in ["reasoning_content", "reasoning"] {
                    if let Some(text) = delta.str(key) {
                        self.push_text(&text, line, true);
                    }
                }
                for tc in delta.items("tool_calls") {
                    if let Some(tc) = tc.object() {
                        self.chat_tool_call(cidx, &tc, line);
                    }
                }
                if let Some(fc) = delta.obj("function_call") {
                    self.chat_fragment(cidx, Some(u64::MAX), None, &fc, line);
                }
                for entry in delta.items("executed_tools") {
                    self.executed_tool(cidx, &entry, line);
                }
            }
            // The calls of a finished choice are complete, those started later too
            // (see `settle`): not marked here, which would visit every call per chunk.
            if choice.str("finish_reason").is_some() {
                self.finished_choices.insert(cidx);
            }
        }
        false
    }

    /// One `executed_tools` entry of a chunk: it replaces the one of its index, keeping
    /// the output an earlier chunk gave.
    fn executed_tool(&mut self, cidx: u64, entry: &Node, line: u64) {
        let Some(e) = entry.object() else { return };
        let at = LineIndex::fixed(line);
        let Some(tool) = native::executed_tool(entry, &e, &at, native::OPENAI_CHAT_STREAM) else {
            return;
        };
        let key = (cidx, e.get("index").and_then(|i| i.u64()).unwrap_or(0));
        let full = self.executed.len() >= MAX_OPEN_CALLS;
        match self.executed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, known)) => {
                let result = tool.result.or_else(|| known.result.take());
                *known = ExecutedTool { result, ..tool };
            }
            None if !full => self.executed.push((key, tool)),
            None => {}
        }
    }

    /// An xAI chunk: each output's `delta` continues the text and calls of the
    /// response, as a Chat chunk's choices do. A `ROLE_TOOL` delta is a server-side
    /// tool's output, answering the calls it repeats: it ends the turn, and what the
    /// model says after it is the next one, as in the whole response.
    fn xai(&mut self, obj: &Obj, line: u64) -> bool {
        let mut answered = false;
        if self.key.is_none() {
            self.key = obj.str("id").map(Into::into);
        }
        for output in obj.items("outputs") {
            let Some(output) = output.object() else {
                continue;
            };
            if let Some(delta) = output.obj("delta") {
                if delta.is("role", "ROLE_TOOL") {
                    for tc in delta.items("tool_calls") {
                        let Some(tc) = tc.object() else { continue };
                        self.results.push(ToolResult {
                            id: tc.str("id").map(Into::into),
                            name: tc
                                .obj("function")
                                .and_then(|f| f.str("name"))
                                .map(Into::into),
                            content: JsonText::of_opt(delta.get("content")),
                            is_error: false,
                            dialect: native::XAI,
                            line,
                        });
                    }
                    answered = true;
                    continue;
                }
                if let Some(text) = delta.str("content") {
                    self.push_text(&text, line, false);
                }
                if let Some(text) = delta.str("reasoning_content") {
                    self.push_text(&text, line, true);
                }
                // A call comes whole, under its id; no index.
                for tc in delta.items("tool_calls") {
                    if let Some(tc) = tc.object() {
                        self.chat_tool_call(0, &tc, line);
                    }
                }
            }
            if output.str("finish_reason").is_some() {
                self.finished_choices.insert(0);
            }
        }
        answered
    }

    fn chat_tool_call(&mut self, cidx: u64, tc: &Obj, line: u64) {
        let index = tc.get("index").and_then(|i| i.u64());
        let id = tc
            .str("id")
            .map(|s| s.into_owned())
            .filter(|s| !s.is_empty());
        let function = tc.obj("function");
        match function {
            Some(f) => self.chat_fragment(cidx, index, id, &f, line),
            None => {
                if let Some(custom) = tc.obj("custom") {
                    self.chat_fragment(cidx, index, id, &custom, line);
                }
            }
        }
    }

    fn chat_fragment(
        &mut self,
        cidx: u64,
        index: Option<u64>,
        id: Option<String>,
        f: &Obj,
        line: u64,
    ) {
        let slot = match (index, &id) {
            // Only fragments with an index make calls with one.
            (Some(i), _) => self.chat_slots.get(&(cidx, i)).copied(),
            // The last call of the choice with this id, or the last of the choice.
            (None, Some(id)) => self.chat_ids.get(&(cidx, id.clone())).copied(),
            (None, None) => self.last_of_choice.get(&cidx).copied(),
        };
        let slot = match slot {
            Some(s) => s,
            None => {
                // A late fragment of a call flushed by the bound is dropped.
                let flushed = match (index, &id) {
                    (Some(i), _) => flushed_key("index", cidx, &i.to_le_bytes()),
                    (None, Some(id)) => flushed_key("id", cidx, id.as_bytes()),
                    (None, None) => 0,
                };
                if (index.is_some() || id.is_some()) && self.flushed.contains(flushed) {
                    return;
                }
                let mut p = Pending::new(line);
                p.choice = cidx;
                p.index = index;
                let slot = self.push_call(p);
                if let Some(i) = index {
                    self.chat_slots.insert((cidx, i), slot);
                }
                slot
            }
        };
        let Some(p) = self.slot_mut(slot) else {
            return;
        };
        // id and name come once; some servers repeat them, which must not double them.
        let mut named = None;
        if p.id.is_none() {
            p.id = id;
            named = p.id.clone();
        }
        if p.name.is_empty()
            && let Some(name) = f.str("name")
        {
            p.name = name.into_owned();
        }
        if let Some(args) = f
            .get("arguments")
            .or_else(|| f.get("input"))
            .or_else(|| f.get("args"))
        {
            match args.str() {
                Some(s) => p.args.push_str(&s),
                None if args.kind() == crate::json::Kind::Object => {
                    p.value = Some(args.kept_compact())
                }
                None => {}
            }
        }
        if f.has("input") && !f.has("arguments") {
            p.free_form = true;
        }
        // The last call of the choice with an id is the one a fragment with only that id
        // continues.
        if let Some(id) = named {
            let last = self.chat_ids.entry((cidx, id)).or_insert(slot);
            *last = (*last).max(slot);
        }
    }

    fn anthropic(&mut self, obj: &Obj, line: u64) -> bool {
        let index = obj.get("index").and_then(|i| i.u64()).unwrap_or(0);
        match obj.str("type").as_deref() {
            Some("message_start") => {
                if let Some(m) = obj.obj("message") {
                    self.key = m.str("id").map(Into::into);
                }
                self.line = line;
            }
            Some("content_block_start") => {
                let Some(block_node) = obj.get("content_block") else {
                    return false;
                };
                let Some(block) = block_node.object() else {
                    return false;
                };
                let kind = block.str("type").unwrap_or_default();
                if native::is_anthropic_call_type(&kind) {
                    let mut p = Pending::new(line);
                    p.choice = index;
                    p.id = block.str("id").map(Into::into);
                    p.name = block.str("name").unwrap_or_default().into_owned();
                    p.value = block.get("input").map(|i| i.kept_compact());
                    self.push_call(p);
                } else if kind == "text" {
                    self.push_text(&block.str("text").unwrap_or_default(), line, false);
                } else if kind == "thinking" {
                    self.push_text(&block.str("thinking").unwrap_or_default(), line, true);
                } else if kind == "tool_result" || kind.ends_with("_tool_result") {
                    self.results.push(ToolResult {
                        id: block.str("tool_use_id").map(Into::into),
                        name: None,
                        content: JsonText::of_opt(block.get("content")),
                        is_error: block
                            .get("is_error")
                            .and_then(|e| e.bool())
                            .unwrap_or(false),
                        dialect: native::ANTHROPIC_STREAM,
                        line,
                    });
                }
            }
            Some("content_block_delta") => {
                let Some(delta) = obj.obj("delta") else {
                    return false;
                };
                match delta.str("type").as_deref() {
                    Some("input_json_delta") => {
                        if let Some(p) = self.last_call_of(index) {
                            p.args
                                .push_str(&delta.str("partial_json").unwrap_or_default());
                        }
                    }
                    Some("text_delta") => {
                        self.push_text(&delta.str("text").unwrap_or_default(), line, false)
                    }
                    Some("thinking_delta") => {
                        self.push_text(&delta.str("thinking").unwrap_or_default(), line, true)
                    }
                    _ => {}
                }
            }
            Some("content_block_stop") => {
                if let Some(p) = self.last_call_of(index) {
                    p.complete = true;
                }
            }
            Some("message_stop") => {
                self.mark_done();
                return true;
            }
            _ => {}
        }
        false
    }

    fn responses(&mut self, obj: &Obj, line: u64) -> bool {
        let kind = obj.str("type").unwrap_or_default();
        let item_id = obj.str("item_id").map(|s| s.into_owned());
        match kind.as_ref() {
            "response.created" | "response.in_progress" => {
                if let Some(r) = obj.obj("response") {
                    self.key = r.str("id").map(Into::into);
                }
            }
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item_node) = obj.get("item") else {
                    return false;
                };
                let Some(item) = item_node.object() else {
                    return false;
                };
                let item_kind = item.str("type").unwrap_or_default();
                let id = item.str("id").map(|s| s.into_owned());
                let done = kind == "response.output_item.done";
                if native::is_responses_call_item(&item) {
                    if id.as_deref().is_some_and(|id| self.item_flushed(id)) {
                        return false;
                    }
                    let existing = id.as_ref().and_then(|id| self.item_slots.get(id)).copied();
                    let slot = match existing {
                        Some(s) => s,
                        None => {
                            let mut p = Pending::new(line);
                            p.item = id.clone();
                            p.free_form = item_kind == "custom_tool_call";
                            let slot = self.push_call(p);
                            if let Some(id) = id {
                                self.item_slots.entry(id).or_insert(slot);
                            }
                            slot
                        }
                    };
                    let Some(p) = self.slot_mut(slot) else {
                        return false;
                    };
                    if p.name.is_empty() {
                        p.name = item.str("name").unwrap_or_default().into_owned();
                    }
                    if p.id.is_none() {
                        p.id = item.str("call_id").map(Into::into);
                    }
                    if done {
                        let at = LineIndex::fixed(p.line);
                        let built = native::responses_item_with_result(
                            &item_node,
                            &item,
                            &at,
                            native::OPENAI_RESPONSES_STREAM,
                        );
                        let (call, result) = built.map_or((None, None), |(c, r)| (Some(c), r));
                        p.built = call;
                        p.complete = true;
                        // A remote MCP call's output, held by its item.
                        if let Some(mut result) = result {
                            result.line = line;
                            self.results.push(result);
                        }
                    }
                } else if item_kind == "message" && done {
                    let text: String = item
                        .arr("content")
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|c| c.object()?.str("text").map(|t| t.into_owned()))
                        .collect();
                    let id = id.unwrap_or_default();
                    match self.item_text_slots.get(&id) {
                        Some(&at) => self.item_texts[at].1 = text,
                        None => {
                            self.item_text_slots
                                .insert(id.clone(), self.item_texts.len());
                            self.item_texts.push((id, text));
                        }
                    }
                }
            }
            "response.output_text.delta" => {
                let delta = obj.str("delta").unwrap_or_default();
                let id = item_id.unwrap_or_default();
                if self.item_texts.is_empty() {
                    self.text_line = line;
                }
                match self.item_text_slots.get(&id) {
                    Some(&at) => self.item_texts[at].1.push_str(&delta),
                    None => {
                        self.item_text_slots
                            .insert(id.clone(), self.item_texts.len());
                        self.item_texts.push((id, delta.into_owned()));
                    }
                }
            }
            // The item's call by its id, at once: a search of all calls per delta made
            // a stream of many items quadratic.
            k if k.ends_with("arguments.delta") || k.ends_with("input.delta") => {
                if let Some(p) = self.item_call(item_id.as_deref()) {
                    p.args.push_str(&obj.str("delta").unwrap_or_default());
                }
            }
            k if k.ends_with("arguments.done") || k.ends_with("input.done") => {
                if let Some(p) = self.item_call(item_id.as_deref()) {
                    if let Some(full) = obj.str("arguments").or_else(|| obj.str("input")) {
                        p.args = full.into_owned();
                    }
                    p.complete = true;
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let output = obj
                    .obj("response")
                    .and_then(|r| r.arr("output"))
                    .unwrap_or_default();
                for item_node in output {
                    let Some(item) = item_node.object() else {
                        continue;
                    };
                    let id = item.str("id").map(|s| s.into_owned());
                    if !native::is_responses_call_item(&item)
                        || id.as_ref().is_some_and(|id| {
                            self.item_slots.contains_key(id) || self.item_flushed(id)
                        })
                    {
                        continue;
                    }
                    let mut p = Pending::new(line);
                    if let Some(id) = &id {
                        self.item_slots
                            .insert(id.clone(), self.base + self.calls.len());
                    }
                    p.item = id;
                    p.built = native::responses_item(
                        &item_node,
                        &item,
                        &LineIndex::fixed(line),
                        native::OPENAI_RESPONSES_STREAM,
                    );
                    p.complete = true;
                    self.push_call(p);
                }
                self.mark_done();
                return true;
            }
            _ => {}
        }
        false
    }

    /// One Gemini Interactions event. A `step.start` of a `function_call` step holds a
    /// placeholder (`"arguments": {}`): the arguments are the `arguments_delta` pieces
    /// of its `step.delta` events, and the call is final only at its `step.stop` (or
    /// when the interaction completes); a stream cut before is marked truncated.
    fn interactions(&mut self, obj: &Obj, line: u64) -> bool {
        let index = obj.get("index").and_then(|i| i.u64()).unwrap_or(0);
        match obj.str("event_type").as_deref() {
            Some("interaction.start" | "interaction.created") => {
                if let Some(i) = obj.obj("interaction") {
                    self.key = i.str("id").map(Into::into);
                }
                self.line = line;
            }
            Some("step.start") => {
                let Some(step) = obj.obj("step") else {
                    return false;
                };
                if step.is("type", "function_call") {
                    let mut p = Pending::new(line);
                    p.choice = index;
                    p.id = step.str("id").map(Into::into);
                    p.name = step.str("name").unwrap_or_default().into_owned();
                    p.value = step.get("arguments").map(|a| a.kept_compact());
                    self.push_call(p);
                }
            }
            Some("step.delta") => {
                let Some(delta) = obj.obj("delta") else {
                    return false;
                };
                match delta.str("type").as_deref() {
                    Some("arguments_delta") => {
                        if let Some(p) = self.last_call_of(index) {
                            p.args
                                .push_str(&delta.str("partial_arguments").unwrap_or_default());
                        }
                    }
                    Some("text") => {
                        self.push_text(&delta.str("text").unwrap_or_default(), line, false)
                    }
                    _ => {}
                }
            }
            Some("step.stop") => {
                if let Some(p) = self.last_call_of(index) {
                    p.complete = true;
                }
            }
            Some("interaction.complete" | "interaction.completed") => {
                // The completed interaction's steps are usually left out; a call among
                // them that no event gave is taken whole.
                let interaction = obj.obj("interaction");
                let steps = interaction
                    .as_ref()
                    .and_then(|i| i.arr("steps").or_else(|| i.arr("outputs")))
                    .unwrap_or_default();
                for step_node in steps {
                    let Some(step) = step_node.object() else {
                        continue;
                    };
                    let id = step.str("id");
                    if id.as_ref().is_some_and(|id| {
                        self.calls
                            .iter()
                            .any(|p| p.id.as_deref() == Some(id.as_ref()))
                    }) {
                        continue;
                    }
                    let mut p = Pending::new(line);
                    p.built = native::interactions_step(
                        &step_node,
                        &step,
                        &LineIndex::fixed(line),
                        native::GEMINI_INTERACTIONS_STREAM,
                    );
                    if p.built.is_some() {
                        p.complete = true;
                        self.push_call(p);
                    }
                }
                self.mark_done();
                return true;
            }
            _ => {}
        }
        false
    }

    /// Adds Gemini `partialArgs` fragments of one `functionCall` chunk.
    pub fn gemini_fragments(&mut self, fc: &Obj) {
        let Some(p) = self.calls.back_mut() else {
            return;
        };
        for frag in fc.items("partialArgs") {
            let Some(f) = frag.object() else { continue };
            let path = f.str("jsonPath").unwrap_or_default().into_owned();
            let Some(v) = [
                "stringValue",
                "numberValue",
                "boolValue",
                "nullValue",
                "value",
            ]
            .iter()
            .find_map(|k| f.get(k)) else {
                continue;
            };
            // Strings are read as every string is (half a surrogate pair as U+FFFD,
            // said once); other values through the tape, which serde_json's limits do
            // not bind. One that cannot be read makes the call invalid.
            let value = if f.has("nullValue") {
                Some(Value::Null)
            } else if let Some(s) = v.str() {
                Some(Value::String(s.into_owned()))
            } else {
                v.lossy_value()
            };
            match value {
                Some(value) => p.fragments.push((path, value)),
                None => p.errors.push(format!(
                    "partialArgs path {}: its value nests too deep to be read; it was left out",
                    path.chars().take(80).collect::<String>()
                )),
            }
        }
    }

    /// A call as it stands, and whether it was complete: marked truncated if not (when
    /// its arguments do not say it was).
    fn settle(&self, p: Pending) -> (Call, bool) {
        let dialect = match self.kind {
            Kind::Chat => native::OPENAI_CHAT_STREAM,
            Kind::Xai => native::XAI,
            Kind::Anthropic => native::ANTHROPIC_STREAM,
            Kind::Responses => native::OPENAI_RESPONSES_STREAM,
            Kind::Bedrock => native::BEDROCK_STREAM,
            Kind::Cohere => native::COHERE_STREAM,
            Kind::GeminiPartial => native::GEMINI_STREAM,
            Kind::LangChain => native::LANGCHAIN_STREAM,
            Kind::Interactions => native::GEMINI_INTERACTIONS_STREAM,
        };
        if let Some(call) = p.built {
            return (call, true);
        }
        let complete = self.done
            || p.complete
            || (matches!(self.kind, Kind::Chat | Kind::Xai)
                && self.finished_choices.contains(&p.choice));
        let mut call = Call::new(p.name, dialect, p.line).with_id(p.id);
        if self.kind == Kind::GeminiPartial {
            let (arguments, errors) = native::object_from_paths(&p.fragments);
            call.arguments = arguments.into();
            call.errors.extend(p.errors);
            call.errors.extend(errors);
            if !complete {
                call.errors.push(TRUNCATED.into());
            }
        } else if p.free_form {
            call.arguments.insert("input".into(), Value::String(p.args));
        } else if !p.args.trim().is_empty() {
            call.set_arguments_text(&p.args);
            if !complete && !call.is_valid() {
                call.errors = vec![TRUNCATED.into()];
            }
        } else {
            if let Some(text) = p.value {
                match crate::json::Doc::parse(&text) {
                    Ok(doc) => call.set_arguments_json(doc.root()),
                    Err(e) => {
                        call.invalid_arguments(&text, &format!("arguments are not valid JSON: {e}"))
                    }
                }
            }
            if !complete {
                call.errors.push(TRUNCATED.into());
                call.arguments_raw = Some(String::new());
            }
        }
        (call, complete)
    }

    /// The key of the turn this stream amounts to, hashed.
    pub(crate) fn turn_key(&self) -> Option<u64> {
        self.response_key.or_else(|| {
            self.key
                .as_deref()
                .map(|k| crate::recent::hash_bytes(k.as_bytes()))
        })
    }

    /// The turn this stream amounts to, with its key.
    pub fn finish(mut self) -> (Turn, Option<u64>) {
        let mut turn = Turn::new(Role::Assistant, self.line);
        turn.push_text(
            std::mem::take(&mut self.reasoning),
            self.reasoning_line,
            true,
        );
        turn.push_text(std::mem::take(&mut self.text), self.text_line, false);
        for (_, text) in std::mem::take(&mut self.item_texts) {
            turn.push_text(text, self.text_line, false);
        }
        let calls = std::mem::take(&mut self.calls);
        for p in calls.into_iter().filter(|p| !p.is_placeholder()) {
            turn.push_call(self.settle(p).0);
        }
        (turn, self.turn_key())
    }
}

/// Parses a value handed over as text (used by tests).
#[cfg(test)]
fn obj_of(text: &str) -> (Node<'_>, Obj<'_>) {
    // Leaked: a test's documents live as long as the test.
    let doc: &crate::json::Doc<'_> = Box::leak(Box::new(crate::json::Doc::parse(text).unwrap()));
    let n = doc.root();
    let o = n.object().unwrap();
    (n, o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: &[&str]) -> Turn {
        let (_, first) = obj_of(lines[0]);
        let mut s = Stream::start(&first, 1);
        for (i, l) in lines.iter().enumerate() {
            let (_, o) = obj_of(l);
            assert!(s.accepts(&o) || i == 0);
            s.event(&o, i as u64 + 1);
        }
        s.finish().0
    }

    #[test]
    fn chat_deltas_join_by_index_and_repeated_names_are_not_doubled() {
        let t = run(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":""}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"y","function":{"name":"g","arguments":"{\"b\""}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]},"finish_reason":"tool_calls"}]}"#,
        ]);
        assert_eq!(t.calls.len(), 2);
        assert_eq!(
            (t.calls[0].name.as_str(), t.calls[0].arguments["a"].clone()),
            ("f", 1.into())
        );
        assert_eq!(
            (t.calls[1].name.as_str(), t.calls[1].arguments["b"].clone()),
            ("g", 2.into())
        );
        assert!(t.calls.iter().all(|c| c.is_valid()));
    }

    #[test]
    fn a_zero_valued_function_call_in_every_chunk_is_no_call() {
        let t = run(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi","function_call":{"name":"","arguments":""}}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":".","function_call":{"name":"","arguments":""}},"finish_reason":"stop"}]}"#,
        ]);
        assert!(t.calls.is_empty(), "{:?}", t.calls);
    }

    #[test]
    fn chunks_with_changing_ids_stay_one_response_until_it_finishes() {
        let lines = [
            r#"{"id":"a","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{\"a\""}}]}}]}"#,
            r#"{"id":"b","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"next"}}]}"#,
        ];
        let (_, first) = obj_of(lines[0]);
        let mut s = Stream::start(&first, 1);
        s.event(&first, 1);
        let (_, second) = obj_of(lines[1]);
        assert!(s.accepts(&second));
        s.event(&second, 2);
        let (_, third) = obj_of(lines[2]);
        assert!(!s.accepts(&third));
        let t = s.finish().0;
        assert_eq!(t.calls[0].arguments["a"], 1);
    }

    #[test]
    fn anthropic_partial_json_split_inside_an_escape() {
        let t = run(&[
            r#"{"type":"message_start","message":{"id":"m"}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\": \"a\\"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"b\"}"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
        ]);
        assert_eq!(t.calls[0].arguments["q"], "a\"b");
    }

    #[test]
    fn cohere_pieces_join_by_index_and_the_plan_is_text() {
        let t = run(&[
            r#"{"id":"m","type":"message-start","delta":{"message":{"role":"assistant","tool_plan":"","tool_calls":[]}}}"#,
            r#"{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I will look."}}}"#,
            r#"{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"f_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}}}}"#,
            r#"{"type":"tool-call-start","index":1,"delta":{"message":{"tool_calls":{"id":"g_1","type":"function","function":{"name":"g","arguments":""}}}}}"#,
            r#"{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":":1}"}}}}}"#,
            r#"{"type":"tool-call-end","index":0}"#,
            r#"{"type":"tool-call-end","index":1}"#,
            r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hmm"}}}}"#,
            r#"{"type":"message-end","delta":{"finish_reason":"TOOL_CALL"}}"#,
        ]);
        let calls: Vec<_> = t
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.id.as_deref(), c.arguments.clone()))
            .collect();
        assert_eq!(calls.len(), 2);
        assert_eq!((calls[0].0, calls[0].1), ("f", Some("f_1")));
        assert_eq!(calls[0].2["a"], 1);
        // A call with no piece of arguments has none.
        assert_eq!((calls[1].0, calls[1].2.len()), ("g", 0));
        assert!(t.calls.iter().all(|c| c.is_valid()));
        let texts: Vec<_> = t
            .texts
            .iter()
            .map(|x| (x.text.as_str(), x.reasoning))
            .collect();
        assert_eq!(texts, [("hmm", true), ("I will look.", false)]);
        // Cut before its end, a call is truncated.
        let t = run(&[
            r#"{"id":"m","type":"message-start","delta":{"message":{"role":"assistant"}}}"#,
            r#"{"type":"tool-call-start","delta":{"message":{"tool_calls":{"id":"f_1","function":{"name":"f","arguments":"{\"a\""}}}}}"#,
        ]);
        assert_eq!(t.calls[0].errors, [TRUNCATED]);
    }

    #[test]
    fn a_cut_stream_yields_a_truncated_call() {
        let t = run(&[
            r#"{"type":"message_start","message":{"id":"m"}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\": \"a"}}"#,
        ]);
        assert_eq!(t.calls[0].errors, [TRUNCATED]);
        assert_eq!(t.calls[0].arguments_raw.as_deref(), Some("{\"q\": \"a"));
    }
}
