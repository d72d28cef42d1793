//! Streamed responses reassembled into whole calls: OpenAI Chat chunks, Anthropic
//! events, Responses API events, Bedrock ConverseStream events, Cohere v2 chat events
//! and Gemini streamed arguments. A stream cut off before
//! a call was complete still yields the call, marked truncated.
//!
//! Each kind's events are read in a file of its own; this one holds what they share:
//! which kind a value is, the calls under way and their bound, and how a call is
//! settled when its stream ends.

mod anthropic;
mod bedrock;
mod chat;
mod cohere;
mod gemini;
mod interactions;
mod langchain;
mod responses;

pub(crate) use langchain::langchain_reasoning;

use crate::dialects::native::{self, ExecutedTool};
use crate::formats::{Args, DecodedCall};
#[cfg(test)]
use crate::json::Node;
use crate::json::Obj;
use crate::model::{Call, Role, ToolResult, Turn};
use crate::recent::RecentSet;
use anthropic::ANTHROPIC_EVENTS;
use bedrock::{BEDROCK_EVENTS, bedrock_metadata};
use chat::opens_message;
use cohere::COHERE_EVENTS;
use interactions::INTERACTIONS_EVENTS;
use langchain::langchain_chunk;
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
    match obj.str("object").as_deref() {
        Some("chat.completion.chunk") => return Some(Kind::Chat),
        Some("text_completion") if chat::is_completion(obj) => return Some(Kind::Chat),
        _ => {}
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

/// Whether a value is an event of a Gemini Interactions stream, as [`stream_kind`] says,
/// asked of every object a walk meets: a value with no Interactions `event_type` is
/// answered by that one lookup, not by every kind's.
pub(crate) fn is_interactions_event(obj: &Obj) -> bool {
    obj.str("event_type")
        .is_some_and(|t| INTERACTIONS_EVENTS.contains(&t.as_ref()))
        && kind_of(obj) == Some(Kind::Interactions)
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

    /// A call a stream starts with a whole call block (Anthropic's
    /// `content_block_start`, a Gemini Interactions `step.start`), under its block's
    /// index: its id and name, and the arguments it holds (a placeholder `{}` as a
    /// rule), which its pieces replace when any come.
    fn started(call: DecodedCall, block: u64, line: u64) -> Pending {
        let mut p = Pending::new(line);
        p.choice = block;
        p.id = call.id.map(Into::into);
        p.name = call.name.unwrap_or_default().into_owned();
        p.value = match call.args {
            Args::Object(arguments) => Some(arguments.kept_compact()),
            _ => None,
        };
        p
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

pub(super) struct Stream {
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
    /// Anthropic's thinking blocks so far, and the signature of the last: one block's
    /// signature goes back with its thinking; the joined text of several has none.
    thinking_blocks: u32,
    signature: String,
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
            thinking_blocks: 0,
            signature: String::new(),
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
    pub(crate) fn start(obj: &Obj, line: u64) -> Stream {
        Stream::new(kind_of(obj).unwrap_or(Kind::Chat), line)
    }

    /// A stream of a kind already known.
    pub(crate) fn start_kind(kind: Kind, line: u64) -> Stream {
        Stream::new(kind, line)
    }

    /// Whether `obj` continues this stream (rather than starting another).
    #[cfg(test)]
    pub(crate) fn accepts(&self, obj: &Obj) -> bool {
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

    pub(super) fn mark_done(&mut self) {
        self.done = true;
        for c in &mut self.calls {
            c.complete = true;
        }
    }

    /// The tools the API ran, each with the arguments it was digested from and its
    /// result (which names its tool, not yet its call).
    pub(super) fn take_executed(&mut self) -> Vec<ExecutedTool> {
        std::mem::take(&mut self.executed)
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    }

    pub(super) fn take_results(&mut self) -> Vec<ToolResult> {
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
    pub(super) fn event(&mut self, obj: &Obj, line: u64) -> bool {
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
    pub(super) fn finish(mut self) -> (Turn, Option<u64>) {
        let mut turn = Turn::new(Role::Assistant, self.line);
        turn.push_text(
            std::mem::take(&mut self.reasoning),
            self.reasoning_line,
            true,
        );
        if self.thinking_blocks == 1 {
            turn.sign_last_reasoning(&self.signature);
        }
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

/// Runs a stream over `lines`, each an event of it (used by tests).
#[cfg(test)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-lookup answer is the full one, for events of every kind and for values
    /// that name an Interactions event but are another kind's.
    #[test]
    fn interactions_events_are_told_as_stream_kind_tells_them() {
        for text in [
            r#"{"event_type":"step.start","index":0,"step":{"type":"function_call"}}"#,
            r#"{"event_type":"interaction.complete"}"#,
            r#"{"event_type":"step.start","object":"chat.completion.chunk","choices":[]}"#,
            r#"{"event_type":"step.start","type":"AIMessageChunk","content":"x"}"#,
            r#"{"event_type":"other","type":"message_start"}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"choices":[{"delta":{"content":"x"}}]}"#,
            r#"{"role":"assistant","content":"x"}"#,
        ] {
            let (_, obj) = obj_of(text);
            assert_eq!(
                is_interactions_event(&obj),
                stream_kind(&obj) == Some(Kind::Interactions),
                "{text}"
            );
        }
        assert!(is_interactions_event(
            &obj_of(r#"{"event_type":"interaction.complete"}"#).1
        ));
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
