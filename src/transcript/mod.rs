//! From framed JSON values and text to turns and results.
//!
//! The [`Interpreter`] receives the values of one source in order (a JSON document, each
//! JSONL line, each SSE event, each cassette body) and recognizes messages, calls,
//! results and stream events by their shape wherever they sit, so a new wrapper needs
//! no code. It also keeps the per-source memory that makes a call logged twice one call.

mod streams;
pub(crate) use streams::{is_cohere_event, langchain_reasoning};

use crate::dialects::{native, swe_agent};
use crate::json::{Kind, LineIndex, Node, Obj};
use crate::model::{Call, Event, JsonText, Origin, Role, ToolResult, Turn};
use crate::recent::RecentSet;
use std::collections::HashSet;
use streams::Stream;

/// Context that flows down the walk of one value.
#[derive(Clone)]
struct Ctx<'l> {
    lines: &'l LineIndex,
    /// The id of the enclosing response, hashed: the turn key of the messages inside it.
    response: Option<TurnKey>,
    origin: Origin,
    depth: usize,
    /// Inside a LangChain message body (`kwargs` of a constructor, `data` of a dict).
    langchain: bool,
}

/// How deep values are walked ([`crate::json::MAX_WALK_DEPTH`]).
pub const MAX_DEPTH: usize = crate::json::MAX_WALK_DEPTH;

/// The turn being built, kept open while later values may continue it.
struct Open {
    key: Option<TurnKey>,
    turn: Turn,
}

/// Reads one source's values and emits [`Event`]s.
#[derive(Default)]
pub struct Interpreter {
    events: Vec<Event>,
    open: Option<Open>,
    stream: Option<Stream>,
    /// In a recording's request bodies: calls there replay history and are not new.
    history: bool,
    /// Hashes of recent calls (id, name, arguments), results (id, content), and (turn
    /// key, text) pairs already given to a keyed turn: a copy is recognized when it comes
    /// within the last [`crate::recent::RECENT`] or so of its kind, and memory stays
    /// flat. An id alone says nothing: ids are unique only within one conversation
    /// (every fine-tuning line has its `call_1`).
    seen_calls: RecentSet,
    seen_results: RecentSet,
    /// The conversation the values belong to, mixed into the hashes of calls and
    /// results: a value that holds a whole conversation (`messages`) with other first
    /// messages than the one before starts another conversation, where the same id,
    /// name and arguments are a new call (fine-tuning lines, each its own example).
    /// A history that grows from line to line keeps its first messages, and its scope.
    conversation: u64,
    seen_texts: RecentSet,
    /// Consecutive Responses-style items form one turn; this counts the groups.
    item_group: u64,
    /// Notebook outputs already seen (a re-printed output is a copy).
    seen_outputs: HashSet<u64>,
    too_deep: bool,
    /// Calls with an id not answered yet (id, name), newest last, at most
    /// [`MAX_OPEN_NAMED`]: Cline answers native calls with text headers that name the
    /// tool, which pair with the earliest open call of that name.
    open_named: std::collections::VecDeque<(String, String)>,
    /// The calls handed on, oldest first, at most [`MAX_OPEN_NAMED`] * 16: (id, name and
    /// arguments digest, replayed). A recording's request history replays them, often
    /// under another id (`llm_version:0` replayed as `0`, `call_0` as
    /// `resp_…:call_0`, an id the client made up for a call that had none), and its
    /// results answer that id.
    handed: std::collections::VecDeque<(Option<String>, u64, bool)>,
    /// Ids of replayed calls that differ from the call's own: replayed id -> own id.
    replayed_ids: std::collections::HashMap<String, String>,
    /// Names of replayed calls that match no call handed on, by their replayed id: a
    /// call the json or text channel read (Groq's `failed_generation`), which the next
    /// request replays under an id the client made up. Its results name the tool.
    replayed_names: std::collections::HashMap<String, String>,
    /// The calls of the last message that made any (id, name), in order, and how many
    /// of them results answered by order: tool messages that name no call (xAI's gRPC
    /// `ROLE_TOOL`, Ollama's `role: tool`) answer that message's calls one by one.
    calls_in_order: (Vec<(Option<String>, String)>, usize),
    /// Problems in the data to tell once per source (see [`Interpreter::take_warnings`]).
    warnings: Vec<String>,
    warned_open_calls: bool,
    /// Result blocks read in the message being built: they come after its turn, so
    /// that a server tool's result in the message of its call follows that call.
    results_after_turn: Vec<ToolResult>,
    /// Results Responses call items hold themselves (`mcp_call`'s `output`), written
    /// when the model's items of the turn end.
    item_results: Vec<ToolResult>,
    /// How many conversations the source held so far, and how many calls were handed
    /// on in the current one: a call written without an id (Gemini's `functionCall`)
    /// is given [`crate::formats::generated_call_id`] from them, as `convert` gives it.
    conversations: usize,
    ordinal: usize,
    /// The source is a recording: its requests replay each call under the id its
    /// client gave it, and that id, not a generated one, is the call's.
    recording: bool,
}

/// A result decoded by its format, as `extract` reports it.
fn decoded_result(
    d: crate::formats::DecodedResult,
    dialect: &'static str,
    line: u64,
) -> ToolResult {
    ToolResult {
        id: d.id.map(Into::into),
        name: d.name.map(Into::into),
        content: JsonText::of_opt(d.wrapped.or(d.content)),
        is_error: d.is_error,
        dialect,
        line,
    }
}

/// A call's name and arguments, hashed: the same call replayed has the same digest.
fn call_digest(call: &Call) -> u64 {
    let arguments = match &call.arguments_raw {
        Some(raw) => raw.clone(),
        None => serde_json::to_string(&*call.arguments).unwrap_or_default(),
    };
    crate::recent::hash_parts(&[call.name.as_bytes(), arguments.as_bytes()])
}

/// How many unanswered calls are remembered for results that name their tool only.
const MAX_OPEN_NAMED: usize = 256;

/// How many calls, or texts, a turn gathers from values with the same key (lines of one
/// message, a long stream) before it is handed on and the next such value starts
/// another turn: memory stays flat however many lines share a message id. Texts are
/// scanned one by one, so a turn cut between two loses no call in text; the bound on
/// texts is higher, for streams that give a chunk per token.
pub const MAX_TURN_CALLS: usize = 4096;
pub const MAX_TURN_TEXTS: usize = 1 << 16;

/// The warning given once per source when a stream held more than
/// [`streams::MAX_OPEN_CALLS`] calls under way.
pub fn open_calls_warning() -> String {
    format!(
        "a stream held more than {} calls under way; the oldest were settled as they stood (those not complete are marked truncated)",
        streams::MAX_OPEN_CALLS
    )
}

/// Which conversation a list of messages is: its messages up to the first user message
/// (the system prompt alone is shared by every example of a fine-tuning file).
fn conversation_of(messages: &[Node]) -> u64 {
    let mut parts: Vec<&[u8]> = Vec::new();
    for message in messages {
        let Some(m) = message.object() else { continue };
        let role = m.get("role").map_or("", |r| r.text());
        parts.push(role.as_bytes());
        parts.push(m.get("content").map_or("", |c| c.text()).as_bytes());
        if role == "\"user\"" {
            break;
        }
    }
    crate::recent::hash_parts(&parts)
}

/// The request body and the response body of a llama-stack test recording
/// (`{"request": {"body" | "payload"}, "response": {"body", "is_streaming"}}`), told by
/// `is_streaming` or by SDK objects saved as `{"__type__", "__data__"}`.
fn llama_stack_recording<'a>(obj: &Obj<'a>) -> Option<(Option<Node<'a>>, Node<'a>)> {
    let request = obj.obj("request")?;
    let response = obj.obj("response")?;
    let body = response.get("body")?;
    let wrapped = |n: &Node| n.object().is_some_and(|o| is_sdk_object(&o));
    let recorded = response.has("is_streaming")
        || wrapped(&body)
        || body.kind() == Kind::Array && body.items().next().is_some_and(|c| wrapped(&c));
    recorded.then(|| (request.get("body").or_else(|| request.get("payload")), body))
}

/// The text of one piece of an Ollama `/api/generate` reply (`{"model", "response",
/// "done", …}`), streamed or whole.
fn ollama_generate_piece<'a>(obj: &Obj<'a>) -> Option<std::borrow::Cow<'a, str>> {
    if !(obj.has("model") && obj.has("done")) || obj.has("message") || obj.has("choices") {
        return None;
    }
    obj.str("response")
}

/// An SDK object as llama-stack's recorder saves it: its class and its fields.
fn is_sdk_object(obj: &Obj) -> bool {
    obj.has("__type__") && obj.has("__data__")
}

/// The value an SDK object wrapper holds, or the value itself.
fn sdk_value(node: Node) -> Node {
    match node.object() {
        Some(obj) if is_sdk_object(&obj) => obj.get("__data__").unwrap_or(node),
        _ => node,
    }
}

/// Top-level keys that mark a value as part of a known log, even when it holds nothing
/// the walker recognizes (Claude Code snapshots, Codex metadata, usage chunks).
const LOG_KEYS: &[&str] = &[
    "sessionId",
    "session_id",
    "parentUuid",
    "choices",
    "candidates",
    "usageMetadata",
    "messages",
    "object",
    "cells",
    "history",
    "leafUuid",
    "snapshot",
    "custom_id",
    // LangGraph Platform's `metadata` event.
    "run_id",
    // xAI responses and stream chunks (a chunk may hold only a role or a finish reason).
    "outputs",
];

impl Interpreter {
    pub fn new() -> Interpreter {
        Interpreter::default()
    }

    /// Events ready to be processed, in order.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Event> {
        self.events.drain(..)
    }

    /// Marks the values fed from now on as request history (a recording's requests).
    pub fn set_history(&mut self, history: bool) {
        self.history = history;
        self.recording |= history;
    }

    /// One framed JSON value. Returns false when nothing in it has a known shape: the
    /// caller then treats it as a model's bare output text.
    pub fn feed(&mut self, node: Node, lines: &LineIndex) -> bool {
        self.feed_at(node, lines, 0)
    }

    /// One element of a top-level array read element by element: walked as
    /// [`Interpreter::feed`] walks the items of a document that is a list.
    pub fn feed_item(&mut self, node: Node, lines: &LineIndex) -> bool {
        self.feed_at(node, lines, 1)
    }

    /// Whether some value was too deeply nested to be walked (reported once by the caller).
    pub fn take_too_deep(&mut self) -> bool {
        std::mem::take(&mut self.too_deep)
    }

    /// Problems in the data found since the last call, for the caller to report: each
    /// kind once per source.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn feed_at(&mut self, node: Node, lines: &LineIndex, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            self.too_deep = true;
            return false;
        }
        let ctx = Ctx {
            lines,
            response: None,
            origin: Origin::Plain,
            depth,
            langchain: false,
        };
        if let Some(obj) = node.object() {
            if depth == 0
                && let Some(messages) = obj.arr("messages")
            {
                let conversation = conversation_of(&messages);
                if conversation != self.conversation {
                    self.conversation = conversation;
                    self.conversations += 1;
                    self.ordinal = 0;
                }
            }
            if let Some(kind) = streams::stream_kind(&obj) {
                self.stream_event(&node, &obj, kind, &ctx);
                return true;
            }
            if !self.gemini_partial_active() {
                self.end_stream();
            }
            if let Some(found) = self.container(&obj, &ctx) {
                return found;
            }
            let found = self.walk_obj(&node, &obj, &ctx);
            return found || LOG_KEYS.iter().any(|k| obj.has(k));
        }
        if let Some(items) = node.array() {
            // A document that is a list: messages, events, or streamed chunks; or a
            // LangGraph stream tuple, `[mode, payload]` or `[chunk, metadata]`, whose
            // mode and run metadata neither hold anything nor end a stream.
            let mut found = false;
            for item in items {
                let skip = match item.object() {
                    Some(obj) => is_langgraph_metadata(&obj),
                    None => !matches!(item.kind(), Kind::Array),
                };
                if !skip {
                    found |= self.feed_at(item, lines, depth + 1);
                }
            }
            return found;
        }
        self.end_stream();
        false
    }

    /// Plain text, or a value with no known shape: one turn of assistant text.
    pub fn feed_text(&mut self, text: &str, line: u64) {
        self.end_stream();
        if self.history {
            return;
        }
        let mut turn = Turn::new(Role::Assistant, line);
        turn.push_raw_text(text, line);
        self.submit(turn, None);
    }

    /// A JSON value of no known shape, `text` its source from `line` on (see
    /// [`push_unknown_json`]).
    pub fn feed_unknown_json(&mut self, root: Node, text: &str, line: u64, lines: &LineIndex) {
        self.end_stream();
        if self.history {
            return;
        }
        let mut turn = Turn::new(Role::Assistant, line);
        push_unknown_json(&mut turn, root, text, line, lines);
        self.submit(turn, None);
    }

    /// Like [`Interpreter::feed_text`], without copying a large text.
    pub fn feed_owned_text(&mut self, text: String, line: u64) {
        self.end_stream();
        if self.history {
            return;
        }
        let mut turn = Turn::new(Role::Assistant, line);
        turn.push_raw_text(text, line);
        self.submit(turn, None);
    }

    /// `data: [DONE]`: the current stream is complete.
    pub fn stream_done(&mut self) {
        if let Some(stream) = &mut self.stream {
            stream.mark_done();
        }
        self.end_stream();
    }

    /// End of the source: whatever is open is flushed; unfinished streams are truncated.
    pub fn finish(&mut self) {
        self.end_stream();
        self.item_results_done();
        self.flush();
    }

    /// Writes the results the model's items held, after their turn.
    fn item_results_done(&mut self) {
        for result in std::mem::take(&mut self.item_results) {
            self.result(result);
        }
    }

    // ---- turns -------------------------------------------------------------------

    fn flush(&mut self) {
        if let Some(open) = self.open.take()
            && !open.turn.is_empty()
        {
            self.events.push(Event::Turn(open.turn));
        }
    }

    /// Adds a finished message, then the results read in it.
    fn submit(&mut self, turn: Turn, key: Option<TurnKey>) {
        self.place(turn, key);
        for result in std::mem::take(&mut self.results_after_turn) {
            self.result(result);
        }
    }

    /// A message with the key of the open turn continues it (Claude Code writes one API
    /// message over several lines); a key seen before only adds what is new (copies of
    /// a response in OpenHands events).
    fn place(&mut self, mut turn: Turn, key: Option<TurnKey>) {
        if self.history {
            return;
        }
        if let Some(key_hash) = key {
            let seen = &mut self.seen_texts;
            turn.texts
                .retain(|t| seen.insert(key_hash.rotate_left(17) ^ hash(&t.text)));
        }
        if let Some(open) = &mut self.open
            && key.is_some()
            && open.key == key
            && open.turn.role == turn.role
        {
            open.turn.calls.append(&mut turn.calls);
            open.turn.texts.append(&mut turn.texts);
            // A turn gathered from very many values is handed on in parts.
            if open.turn.calls.len() >= MAX_TURN_CALLS || open.turn.texts.len() >= MAX_TURN_TEXTS {
                self.flush();
            }
            return;
        }
        self.flush();
        if !turn.is_empty() {
            self.open = Some(Open { key, turn });
        }
    }

    /// Gives a Gemini call written without an id (its results answer it by name and
    /// order) the id `convert` gives it, from its `arguments` as written; its results
    /// then take that id. Not in a recording, whose requests replay the call under the
    /// id its client gave it.
    fn give_id(&mut self, call: &mut Call, arguments: &str) {
        if !self.recording {
            self.give_id_always(call, arguments);
        }
    }

    /// [`give_id`](Self::give_id), also in a recording: for a call the API ran itself,
    /// which no request replays.
    fn give_id_always(&mut self, call: &mut Call, arguments: &str) {
        if call.id.is_none() {
            call.id = Some(crate::formats::generated_call_id(
                self.conversations.saturating_sub(1),
                self.ordinal,
                &call.name,
                arguments,
            ));
        }
    }

    /// Adds a call the API ran to a turn, with the id `convert` gives it, digested from
    /// its arguments as written (also in a recording: no request replays a call the API
    /// ran); returns its result, answering that id.
    fn add_executed(
        &mut self,
        turn: &mut Turn,
        mut tool: native::ExecutedTool,
    ) -> Option<ToolResult> {
        self.give_id_always(&mut tool.call, &tool.arguments);
        let result = tool.result.map(|r| ToolResult {
            id: tool.call.id.clone(),
            ..r
        });
        self.add_call(turn, tool.call);
        result
    }

    /// Adds a call to a turn unless the same call (id, name and arguments) was already
    /// reported: logs write a call again (a message per content block, a request's
    /// history, a mirrored event), but a reused id with another call is a new call.
    fn add_call(&mut self, turn: &mut Turn, mut call: Call) {
        if call.id.is_none() && matches!(call.dialect, native::GEMINI | native::GEMINI_STREAM) {
            // A streamed call: its arguments were joined from pieces.
            let arguments = match &call.arguments_raw {
                Some(raw) => raw.clone(),
                None => serde_json::to_string(&*call.arguments).unwrap_or_default(),
            };
            self.give_id(&mut call, &arguments);
        }
        if let Some(id) = &call.id {
            let map;
            let arguments = match (&call.arguments_raw, call.arguments.compact()) {
                (Some(raw), _) => raw.as_str(),
                (None, Some(text)) => text,
                (None, None) => {
                    map = serde_json::to_string(&*call.arguments).unwrap_or_default();
                    &map
                }
            };
            let key = crate::recent::hash_parts(&[
                &self.conversation.to_le_bytes(),
                id.as_bytes(),
                call.name.as_bytes(),
                arguments.as_bytes(),
            ]);
            if !self.seen_calls.insert(key) {
                return;
            }
        }
        if self.history {
            self.replayed(&call);
        } else {
            if self.handed.len() == MAX_OPEN_NAMED * 16 {
                self.handed.pop_front();
            }
            self.ordinal += 1;
            self.handed
                .push_back((call.id.clone(), call_digest(&call), false));
            if let Some(id) = &call.id {
                if self.open_named.len() == MAX_OPEN_NAMED {
                    self.open_named.pop_front();
                }
                self.open_named.push_back((id.clone(), call.name.clone()));
            }
            turn.push_call(call);
        }
    }

    /// A call replayed in a recording's request history: the earliest call handed on
    /// with its name and arguments not replayed yet is the same call; when it had
    /// another id, results that answer the replayed id answer it.
    fn replayed(&mut self, call: &Call) {
        let Some(id) = &call.id else { return };
        if self.replayed_ids.contains_key(id) {
            return;
        }
        if let Some(own) = self.handed.iter_mut().find(|h| h.0.as_ref() == Some(id)) {
            own.2 = true;
            return;
        }
        let digest = call_digest(call);
        let Some(own) = self.handed.iter_mut().find(|h| !h.2 && h.1 == digest) else {
            if self.replayed_names.len() >= MAX_OPEN_NAMED * 16 {
                self.replayed_names.clear();
            }
            self.replayed_names.insert(id.clone(), call.name.clone());
            return;
        };
        own.2 = true;
        if let Some(own_id) = &own.0 {
            if self.replayed_ids.len() >= MAX_OPEN_NAMED * 16 {
                self.replayed_ids.clear();
            }
            self.replayed_ids.insert(id.clone(), own_id.clone());
        }
    }

    /// Cline's results in a user message's blocks (`[read_file for 'x'] Result:` and the
    /// blocks after it), each answering the earliest open call of the tool it names.
    fn cline_results(&mut self, content: &Node, ctx: &Ctx) -> Vec<ToolResult> {
        use crate::convert::results::{ClineBlock, cline_groups};
        let nodes: Vec<Node> = content.items().collect();
        let texts: Vec<Option<String>> = nodes
            .iter()
            .map(|b| match b.kind() {
                Kind::String => b.str().map(|s| s.into_owned()),
                _ => b
                    .object()
                    .filter(|o| o.is("type", "text"))
                    .and_then(|o| o.str("text").map(|s| s.into_owned())),
            })
            .collect();
        let blocks: Vec<ClineBlock> = nodes
            .iter()
            .zip(&texts)
            .map(|(b, t)| match t {
                Some(t) => ClineBlock::Text(t),
                None if b
                    .object()
                    .and_then(|o| o.str("type"))
                    .is_some_and(|k| k.contains("tool_")) =>
                {
                    ClineBlock::Stop
                }
                None => ClineBlock::Other,
            })
            .collect();
        let mut out = Vec::new();
        for g in cline_groups(&blocks) {
            let Some(name) = g.name else { continue };
            let Some(at) = self.open_named.iter().position(|(_, n)| *n == name) else {
                continue;
            };
            let (id, _) = self.open_named.remove(at).expect("found");
            let header = texts[g.at].as_deref().unwrap_or_default();
            let rest = g
                .rest_at
                .map(|r| header[r..].trim_start_matches('\n'))
                .filter(|r| !r.trim().is_empty());
            let inner = &nodes[g.at + 1..g.end];
            let content = match (rest, inner) {
                (None, []) if g.rest_at.is_none() => JsonText::string(header),
                (None, []) => JsonText::string(""),
                (Some(r), []) => JsonText::string(r),
                (None, [one]) if texts[g.at + 1].is_some() => {
                    JsonText::string(texts[g.at + 1].as_deref().unwrap_or_default())
                }
                _ => {
                    let mut items: Vec<String> = Vec::new();
                    if let Some(r) = rest {
                        items.push(format!(
                            r#"{{"type":"text","text":{}}}"#,
                            serde_json::to_string(r).expect("a string serializes")
                        ));
                    }
                    items.extend(inner.iter().map(|n| n.kept_compact()));
                    JsonText::raw(format!("[{}]", items.join(",")))
                }
            };
            out.push(ToolResult {
                id: Some(id),
                name: Some(name),
                content,
                is_error: g.is_error,
                dialect: crate::convert::results::CLINE,
                line: ctx.lines.line(nodes[g.at].offset()),
            });
        }
        out
    }

    fn result(&mut self, mut result: ToolResult) {
        if let Some(own) = result.id.as_ref().and_then(|id| self.replayed_ids.get(id)) {
            result.id = Some(own.clone());
        }
        if result.name.is_none()
            && let Some(name) = result
                .id
                .as_ref()
                .and_then(|id| self.replayed_names.get(id))
        {
            result.name = Some(name.clone());
        }
        // A result that names its tool but not its call (Gemini's) answers the
        // earliest open call of that tool.
        if result.id.is_none()
            && let Some(name) = &result.name
            && let Some(at) = self.open_named.iter().position(|(_, n)| n == name)
        {
            result.id = self.open_named.remove(at).map(|(id, _)| id);
        }
        if let Some(id) = &result.id
            && let Some(at) = self.open_named.iter().position(|(o, _)| o == id)
        {
            self.open_named.remove(at);
        }
        if let Some(id) = &result.id
            && !self.seen_results.insert(crate::recent::hash_parts(&[
                &self.conversation.to_le_bytes(),
                id.as_bytes(),
                result.content.as_str().as_bytes(),
            ]))
        {
            return;
        }
        self.flush();
        self.events.push(Event::Result(result));
    }

    // ---- streams -----------------------------------------------------------------

    fn stream_event(&mut self, node: &Node, obj: &Obj, kind: streams::Kind, ctx: &Ctx) {
        let line = ctx.lines.line(node.offset());
        if self
            .stream
            .as_ref()
            .is_some_and(|s| !s.accepts_kind(obj, kind))
        {
            self.end_stream();
        }
        let stream = self
            .stream
            .get_or_insert_with(|| Stream::start_kind(kind, line));
        let finished = stream.event(obj, line);
        if finished {
            self.end_stream();
        } else if stream.open_calls() > streams::MAX_OPEN_CALLS {
            self.flush_stream_calls();
        }
    }

    /// Hands on the oldest calls of a stream that holds too many under way, as a turn
    /// with the stream's key (the rest of the stream continues it).
    fn flush_stream_calls(&mut self) {
        let Some(stream) = &mut self.stream else {
            return;
        };
        let (calls, cut) = stream.flush_oldest();
        let (key, line) = (stream.turn_key(), stream.line());
        if cut && !self.warned_open_calls {
            self.warned_open_calls = true;
            self.warnings.push(open_calls_warning());
        }
        let mut kept = Turn::new(Role::Assistant, line);
        for call in calls {
            self.add_call(&mut kept, call);
        }
        self.submit(kept, key);
    }

    fn end_stream(&mut self) {
        if let Some(mut stream) = self.stream.take() {
            // Results inside a stream (server tools) follow the calls they answer.
            let results = stream.take_results();
            let executed = stream.take_executed();
            let (turn, key) = stream.finish();
            let mut kept = Turn::new(turn.role, turn.line);
            kept.texts = turn.texts;
            // The tools the API ran come first, with the ids a whole response gives them.
            let mut executed_results = Vec::new();
            for tool in executed {
                executed_results.extend(self.add_executed(&mut kept, tool));
            }
            for call in turn.calls {
                self.add_call(&mut kept, call);
            }
            self.submit(kept, key);
            for result in executed_results.into_iter().chain(results) {
                self.result(result);
            }
        }
    }

    // ---- containers with rules of their own -------------------------------------

    /// Whole-document formats whose copies need rules: notebooks, SWE-agent
    /// trajectories, Codex rollout lines, VCR-style recordings already unwrapped.
    fn container(&mut self, obj: &Obj, ctx: &Ctx) -> Option<bool> {
        if let Some(cells) = obj.arr("cells")
            && (obj.has("nbformat") || obj.has("metadata"))
        {
            self.notebook(&cells, ctx);
            return Some(true);
        }
        if let Some(history) = obj.arr("history")
            && (obj.has("trajectory")
                || obj.has("info")
                || obj.has("environment")
                || obj.has("replay_config")
                || history
                    .iter()
                    .any(|m| m.object().is_some_and(|m| m.has("message_type"))))
        {
            self.swe_agent(obj, &history, ctx);
            return Some(true);
        }
        if let Some((request, response)) = llama_stack_recording(obj) {
            self.llama_stack(request, response, ctx);
            return Some(true);
        }
        if let Some(messages) = obj.arr("messages")
            && swe_agent::is_mini_trajectory(obj)
        {
            self.mini_swe_agent(&messages, ctx);
            return Some(true);
        }
        if obj.has("payload") && obj.has("timestamp") && obj.has("type") {
            self.codex_line(obj, ctx);
            return Some(true);
        }
        None
    }

    fn notebook(&mut self, cells: &[Node], ctx: &Ctx) {
        for cell in cells {
            let Some(cell) = cell.object() else { continue };
            for output in cell.arr("outputs").unwrap_or_default() {
                let Some(out) = output.object() else { continue };
                let node = out
                    .get("text")
                    .or_else(|| out.obj("data").and_then(|d| d.get("text/plain")));
                let Some(node) = node else { continue };
                let text = joined_text(&node);
                if text.trim().is_empty() || !self.seen_outputs.insert(hash(&text)) {
                    continue;
                }
                let mut turn = Turn::new(Role::Assistant, ctx.lines.line(output.offset()));
                turn.origin = Origin::Notebook;
                match line_per_element(&node, ctx.lines) {
                    // nbformat writes one line of output per array element, one per
                    // file line: the text's lines are the file's.
                    Some(first) => turn.push_raw_text(text, first),
                    None => turn.push_text(text, turn.line, false),
                }
                self.submit(turn, None);
            }
        }
    }

    fn swe_agent(&mut self, obj: &Obj, history: &[Node], ctx: &Ctx) {
        let ctx = Ctx {
            origin: Origin::SweAgent,
            ..ctx.clone()
        };
        let mut actions = 0usize;
        let mut function_calling = false;
        // The last message was an action whose observation is its result (an action
        // without native calls: those are answered by tool messages).
        let mut acted = false;
        for message in history {
            let mut observation = None;
            if let Some(m) = message.object() {
                let demo = m.is("message_type", "demonstration")
                    || m.get("is_demo").and_then(|d| d.bool()) == Some(true);
                let native = m.get("tool_calls").is_some_and(|t| !t.is_null());
                if m.is("role", "assistant") && !demo {
                    actions += 1;
                    function_calling |= native;
                }
                if acted && m.is("role", "user") {
                    observation = m.get("content").filter(|c| c.kind() == Kind::String);
                }
                acted = m.is("role", "assistant") && m.has("action") && !native;
            }
            self.walk(message, &ctx);
            if let Some(content) = observation {
                self.swe_agent_observation(&content, &ctx);
            }
        }
        let steps = obj.arr("trajectory").unwrap_or_default();
        // The history ends on an action: its observation is in its trajectory step.
        if acted
            && let Some(step) = actions.checked_sub(1).and_then(|i| steps.get(i))
            && let Some(content) = step
                .object()
                .and_then(|s| s.get("observation"))
                .filter(|o| o.kind() == Kind::String)
        {
            self.swe_agent_observation(&content, &ctx);
        }
        // The history can end before the trajectory's last step (the submit step is
        // often missing): such steps are calls too, answered by their observations.
        for step in steps.iter().skip(actions) {
            let Some(s) = step.object() else { continue };
            let Some(action) = s.str("action").filter(|a| !a.trim().is_empty()) else {
                continue;
            };
            let line = ctx.lines.line(step.offset());
            let mut turn = Turn::new(Role::Assistant, line);
            turn.origin = Origin::SweAgent;
            let action = action.trim();
            // With function calling, SWE-agent renders a call without arguments as the
            // bare tool name (`submit`); anything else is a command line for its shell.
            let call = if function_calling && !action.contains(char::is_whitespace) {
                Call::new(action, native::SWE_AGENT_TRAJECTORY, line)
            } else {
                let mut call = Call::new("bash", native::SWE_AGENT_TRAJECTORY, line);
                call.arguments.insert("command".into(), action.into());
                call
            };
            turn.push_call(call);
            self.submit(turn, None);
            if let Some(content) = s.get("observation").filter(|o| o.kind() == Kind::String) {
                self.swe_agent_observation(&content, &ctx);
            }
        }
    }

    /// A SWE-agent observation: the result of the action before it.
    fn swe_agent_observation(&mut self, content: &Node, ctx: &Ctx) {
        self.result(ToolResult {
            id: None,
            name: None,
            content: JsonText::of(content),
            is_error: false,
            dialect: native::SWE_AGENT_TRAJECTORY,
            line: ctx.lines.line(content.offset()),
        });
    }

    /// A llama-stack test recording: one exchange per file, so the request body is the
    /// conversation so far (unlike a cassette's requests, whose calls an earlier response
    /// of the same file holds), and the response body is read as the values it wraps, a
    /// stream's chunks one by one as a stream's events.
    fn llama_stack(&mut self, request: Option<Node>, response: Node, ctx: &Ctx) {
        let depth = ctx.depth + 1;
        if let Some(body) = request {
            self.finish();
            self.feed_at(sdk_value(body), ctx.lines, depth);
            self.finish();
        }
        let values: Vec<Node> = match response.kind() {
            Kind::Array => response.items().collect(),
            _ => vec![response],
        };
        // Ollama's `/api/generate` gives its text in pieces: joined, the text channels
        // read it whole (a call split over pieces is one call).
        let mut generated: Option<(String, u64)> = None;
        for value in values.into_iter().map(sdk_value) {
            if let Some(piece) = value.object().and_then(|o| ollama_generate_piece(&o)) {
                let line = ctx.lines.line(value.offset());
                generated
                    .get_or_insert_with(|| (String::new(), line))
                    .0
                    .push_str(&piece);
                continue;
            }
            self.generated_text(generated.take());
            self.feed_at(value, ctx.lines, depth);
        }
        self.generated_text(generated.take());
    }

    /// The text a model generated, joined from its pieces: one turn of assistant text.
    fn generated_text(&mut self, text: Option<(String, u64)>) {
        let Some((text, line)) = text.filter(|(t, _)| !t.trim().is_empty()) else {
            return;
        };
        self.end_stream();
        if self.history {
            return;
        }
        let mut turn = Turn::new(Role::Assistant, line);
        turn.push_text(text, line, false);
        self.submit(turn, None);
    }

    /// A mini-swe-agent trajectory: an assistant message without native calls acts with
    /// its one action block, and the user message after it is the observation, its
    /// result. With function calling, native calls and tool messages say it all.
    fn mini_swe_agent(&mut self, messages: &[Node], ctx: &Ctx) {
        let mut acted = false;
        for message in messages {
            let Some(m) = message.object() else {
                self.walk(message, ctx);
                acted = false;
                continue;
            };
            let native = m
                .get("tool_calls")
                .is_some_and(|t| t.kind() == Kind::Array && t.items().next().is_some());
            let text_turn = m.is("role", "assistant") && !native;
            let observation = m
                .get("content")
                .filter(|c| acted && m.is("role", "user") && c.kind() == Kind::String);
            let inner = Ctx {
                origin: if text_turn {
                    Origin::MiniSweAgent
                } else {
                    ctx.origin
                },
                ..ctx.clone()
            };
            self.walk(message, &inner);
            if let Some(content) = observation {
                self.result(ToolResult {
                    id: None,
                    name: None,
                    content: JsonText::of(&content),
                    is_error: false,
                    dialect: swe_agent::MINI_NAME,
                    line: ctx.lines.line(content.offset()),
                });
            }
            acted = text_turn
                && m.str("content")
                    .is_some_and(|c| swe_agent::mini_swe_agent_action(&c).is_some());
        }
    }

    fn codex_line(&mut self, obj: &Obj, ctx: &Ctx) {
        // event_msg lines mirror the response items; only the items count.
        if !obj.is("type", "response_item") {
            return;
        }
        if let Some(payload) = obj.get("payload")
            && let Some(item) = payload.object()
        {
            self.item(&payload, &item, ctx, native::CODEX, None);
        }
    }

    // ---- the generic walk --------------------------------------------------------

    fn walk(&mut self, node: &Node, ctx: &Ctx) -> bool {
        if ctx.depth > MAX_DEPTH {
            self.too_deep = true;
            return false;
        }
        let deeper = Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        let ctx = &deeper;
        match node.kind() {
            Kind::Object => match node.object() {
                Some(obj) => self.walk_obj(node, &obj, ctx),
                None => false,
            },
            Kind::Array => {
                let mut found = false;
                for item in node.items() {
                    found |= self.walk(&item, ctx);
                }
                found
            }
            _ => false,
        }
    }

    fn walk_obj(&mut self, node: &Node, obj: &Obj, ctx: &Ctx) -> bool {
        if let Some(role) = message_role(obj) {
            self.message(node, obj, role, ctx);
            return true;
        }
        // An Interactions event inside another value: its `step.start` holds a
        // placeholder for arguments that come later, never a call of its own.
        if streams::stream_kind(obj) == Some(streams::Kind::Interactions) {
            self.stream_event(node, obj, streams::Kind::Interactions, ctx);
            return true;
        }
        // A Gemini Interactions resource: its function_call steps (`outputs` in the
        // first API version) are calls, its function_result steps their results.
        if obj.has("id")
            && obj.has("status")
            && let Some(steps) = obj.arr("steps").or_else(|| obj.arr("outputs"))
            && steps
                .iter()
                .any(|s| s.object().is_some_and(|s| s.has("type")))
        {
            self.interaction(&steps, obj, ctx);
            return true;
        }
        // A response object: its id keys the turn of the messages inside.
        if let Some(output) = obj.arr("output")
            && (obj.is("object", "response") || obj.has("status") && obj.has("id"))
        {
            let key = obj.str("id").map(|id| hash(&id));
            for item in &output {
                if let Some(item_obj) = item.object() {
                    self.item(item, &item_obj, ctx, native::OPENAI_RESPONSES, key);
                }
            }
            self.item_results_done();
            return true;
        }
        // A bare Responses item (an `input` list of a request, a batch line).
        if let Some(kind) = obj.str("type")
            && (native::is_responses_call_item(obj) || kind.ends_with("_call_output"))
        {
            self.item(node, obj, ctx, native::OPENAI_RESPONSES, None);
            return true;
        }
        // Bare call and result objects outside any message.
        let mut turn = Turn::new(Role::Assistant, ctx.lines.line(node.offset()));
        if self.block(node, obj, &mut turn, ctx) {
            self.submit(turn, None);
            return true;
        }
        // OpenHands: an observation event answers the action with the same call id.
        if obj.has("observation")
            && let Some(meta) = obj.obj("tool_call_metadata")
            && let Some(id) = meta.str("tool_call_id")
        {
            self.result(ToolResult {
                id: Some(id.into_owned()),
                name: meta.str("function_name").map(Into::into),
                content: JsonText::of_opt(obj.get("content")),
                is_error: obj
                    .obj("extras")
                    .and_then(|e| e.get("exit_code"))
                    .and_then(|c| c.u64())
                    .is_some_and(|c| c != 0),
                dialect: native::OPENAI,
                line: ctx.lines.line(node.offset()),
            });
        }
        let mut inner = ctx.clone();
        if let Some(id) = obj.str("responseId").or_else(|| obj.str("response_id")) {
            inner.response = Some(hash(&id));
        } else if (obj.has("choices") || obj.has("candidates")) && obj.has("id") {
            inner.response = obj.str("id").map(|id| hash(&id));
        }
        let mut found = false;
        // Claude Code's structured copy of a tool result holds no calls.
        for child in obj.values_except("toolUseResult") {
            found |= self.walk(&child, &inner);
        }
        found
    }

    /// One message of any format: its text, native calls and results.
    fn message(&mut self, node: &Node, obj: &Obj, role: Role, ctx: &Ctx) {
        if let Some(key) = langchain_body_key(obj)
            && let Some(body_node) = obj.get(key)
            && let Some(body) = body_node.object()
        {
            let inner = Ctx {
                langchain: true,
                ..ctx.clone()
            };
            self.message(&body_node, &body, role, &inner);
            return;
        }
        let line = ctx.lines.line(node.offset());
        let key = obj
            .str("id")
            .filter(|_| obj.has("type") || obj.has("model") || ctx.langchain)
            .map(|id| hash(&id))
            .or(ctx.response);
        let mut turn = Turn::new(role, line);
        turn.origin = ctx.origin;
        // Results logged inside the message that made the calls follow its turn.
        let mut pending_results: Vec<ToolResult> = Vec::new();

        // A canonical transcript's tool message holds its result as a part.
        let answered = role == Role::Tool && !obj.has("parts");
        if answered {
            self.tool_message(node, obj, ctx);
        }
        match obj.get("content") {
            Some(content) if content.kind() == Kind::String => {
                let text = content.str().unwrap_or_default();
                let line = ctx.lines.line(content.offset());
                if role != Role::Tool {
                    turn.push_text(text, line, false);
                }
            }
            // A tool message's content parts are its result, read above.
            Some(content) if content.kind() == Kind::Array && !answered => {
                for block in content.items() {
                    self.content_block(&block, &mut turn, ctx);
                }
                if role == Role::User && !self.open_named.is_empty() {
                    pending_results.extend(self.cline_results(&content, ctx));
                }
            }
            _ => {}
        }
        for block in obj.items("parts") {
            self.content_block(&block, &mut turn, ctx);
        }
        for key in ["reasoning_content", "reasoning"] {
            if let Some(r) = obj.get(key).filter(|r| r.kind() == Kind::String) {
                turn.push_text(
                    r.str().unwrap_or_default(),
                    ctx.lines.line(r.offset()),
                    true,
                );
            }
        }
        // Cohere's tool plan is what the model says before its calls: text, not reasoning.
        if let Some(plan) = obj.get("tool_plan").filter(|p| p.kind() == Kind::String) {
            turn.push_text(
                plan.str().unwrap_or_default(),
                ctx.lines.line(plan.offset()),
                false,
            );
        }
        // LangChain keeps a provider's reasoning beside the message.
        if ctx.langchain {
            for (text, at) in streams::langchain_reasoning(obj) {
                turn.push_text(text, ctx.lines.line(at.offset()), true);
            }
        }
        // A tool message's `tool_calls` name the calls it answers (xAI repeats a
        // server-side call in the message holding its output): no new calls.
        let tool_calls = obj.get("tool_calls").filter(|_| role != Role::Tool);
        match tool_calls {
            Some(calls) if calls.kind() == Kind::Array => {
                let mut in_order = Vec::new();
                for entry in calls.items() {
                    if let Some(e) = entry.object()
                        && let Some(call) = native::tool_calls_entry(&entry, &e, ctx.lines)
                    {
                        in_order.push((call.id.clone(), call.name.clone()));
                        self.add_call(&mut turn, call);
                    }
                }
                if !in_order.is_empty() {
                    self.calls_in_order = (in_order, 0);
                }
            }
            Some(calls) if calls.kind() == Kind::String => {
                let text = calls.str().unwrap_or_default();
                for call in native::tool_calls_from_repr(&text, ctx.lines.line(calls.offset())) {
                    self.add_call(&mut turn, call);
                }
            }
            _ => {
                // Only the raw provider copy: LangChain keeps it in additional_kwargs.
                if let Some(extra) = obj.obj("additional_kwargs")
                    && let Some(calls) = extra.arr("tool_calls")
                {
                    for entry in calls {
                        if let Some(e) = entry.object()
                            && let Some(call) = native::tool_calls_entry(&entry, &e, ctx.lines)
                        {
                            self.add_call(&mut turn, call);
                        }
                    }
                }
            }
        }
        // Groq: the tools the API ran while it answered, each with its output.
        for entry in obj.items("executed_tools") {
            if let Some(e) = entry.object()
                && let Some(tool) = native::executed_tool(&entry, &e, ctx.lines, native::OPENAI)
            {
                pending_results.extend(self.add_executed(&mut turn, tool));
            }
        }
        // Gemini CLI: each entry of `toolCalls` is a call with its results inside.
        for entry in obj.items("toolCalls") {
            let Some(e) = entry.object() else { continue };
            let Some(call) = native::gemini_cli_call(&entry, &e, ctx.lines) else {
                continue;
            };
            let id = call.id.clone();
            self.add_call(&mut turn, call);
            for part in e.items("result") {
                let Some(response) = part.object().and_then(|p| p.obj("functionResponse")) else {
                    continue;
                };
                let d = crate::formats::gemini::function_response(&response);
                let mut result =
                    decoded_result(d, native::GEMINI_CLI, ctx.lines.line(part.offset()));
                result.id = result.id.or_else(|| id.clone());
                result.is_error |= crate::formats::gemini::cli_tool_call_failed(&e);
                pending_results.push(result);
            }
        }
        for entry in obj.items("invalid_tool_calls") {
            if let Some(e) = entry.object()
                && let Some(mut call) = native::tool_calls_entry(&entry, &e, ctx.lines)
            {
                if call.is_valid() {
                    call.errors.push("invalid tool call".into());
                }
                self.add_call(&mut turn, call);
            }
        }
        if let Some(fc) = obj.get("function_call")
            && let Some(fc_obj) = fc.object()
            && let Some(call) = native::function_call(&fc, &fc_obj, ctx.lines)
        {
            self.add_call(&mut turn, call);
        }
        self.submit(turn, key);
        for result in pending_results {
            self.result(result);
        }
    }

    /// `role: "tool"` / `"function"` messages are results.
    fn tool_message(&mut self, node: &Node, obj: &Obj, ctx: &Ctx) {
        let ids: Vec<String> = match obj.get("tool_call_id").and_then(|n| n.str()) {
            Some(id) => vec![id.into_owned()],
            None if obj.has("tool_call_ids") => obj
                .arr("tool_call_ids")
                .unwrap_or_default()
                .iter()
                .filter_map(|n| n.str().map(Into::into))
                .collect(),
            // xAI: the calls the message answers, repeated in it.
            None => obj
                .items("tool_calls")
                .filter_map(|c| c.object()?.str("id").map(Into::into))
                .collect(),
        };
        let dialect = if obj.is("role", "function") {
            native::OPENAI_FUNCTION_CALL
        } else if obj.is("type", "tool") || ctx.langchain {
            native::LANGCHAIN
        } else if obj.is("role", "ROLE_TOOL") {
            native::XAI
        } else {
            native::OPENAI
        };
        let mut base = decoded_result(
            crate::formats::openai::tool_message(obj),
            dialect,
            ctx.lines.line(node.offset()),
        );
        base.id = None;
        if ids.is_empty() {
            // A tool message that names no call (xAI's gRPC messages, Ollama's) answers
            // the calls of the message before it in order.
            let (calls, answered) = &mut self.calls_in_order;
            if base.name.is_none()
                && let Some((id, name)) = calls.get(*answered)
            {
                *answered += 1;
                base.id = id.clone();
                base.name = Some(name.clone());
            }
            self.result(base);
            return;
        }
        for id in ids {
            self.result(ToolResult {
                id: Some(id),
                ..base.clone()
            });
        }
    }

    /// One entry of a `content` or `parts` list.
    fn content_block(&mut self, node: &Node, turn: &mut Turn, ctx: &Ctx) {
        match node.kind() {
            Kind::String => {
                let text = node.str().unwrap_or_default();
                turn.push_text(text, ctx.lines.line(node.offset()), false);
            }
            Kind::Object => {
                let Some(obj) = node.object() else { return };
                if self.block(node, &obj, turn, ctx) {
                    return;
                }
                let line = ctx.lines.line(node.offset());
                let kind = obj.str("type");
                match kind.as_deref() {
                    Some("thinking") => {
                        turn.push_text(obj.str("thinking").unwrap_or_default(), line, true);
                    }
                    Some("reasoning") if obj.has("text") => {
                        turn.push_text(obj.str("text").unwrap_or_default(), line, true);
                    }
                    Some("reasoning") => {
                        for part in obj
                            .arr("summary")
                            .unwrap_or_default()
                            .into_iter()
                            .chain(obj.arr("content").unwrap_or_default())
                        {
                            if let Some(p) = part.object() {
                                turn.push_text(p.str("text").unwrap_or_default(), line, true);
                            }
                        }
                    }
                    _ => {
                        if let Some(text) = obj.str("text") {
                            let thought = obj.get("thought").and_then(|t| t.bool()) == Some(true);
                            turn.push_text(text, line, thought);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Call and result blocks that can stand inside or outside a message. Returns true
    /// when the object was one.
    fn block(&mut self, node: &Node, obj: &Obj, turn: &mut Turn, ctx: &Ctx) -> bool {
        let line = ctx.lines.line(node.offset());
        if let Some(kind) = obj.str("type") {
            if native::is_anthropic_call_type(&kind) {
                if let Some(call) = native::anthropic_block(node, obj, ctx.lines) {
                    self.add_call(turn, call);
                    return true;
                }
            } else if kind == "call" && obj.has("arguments") {
                if let Some(call) = native::toolsift_call(node, obj, ctx.lines) {
                    self.add_call(turn, call);
                    return true;
                }
            } else if kind == "result" && obj.has("content") && obj.has("is_error") {
                self.results_after_turn.push(ToolResult {
                    id: obj.str("call_id").map(Into::into),
                    name: obj.str("name").map(Into::into),
                    content: JsonText::of_opt(obj.get("content")),
                    is_error: obj.get("is_error").and_then(|e| e.bool()).unwrap_or(false),
                    dialect: native::TOOLSIFT,
                    line,
                });
                return true;
            } else if let Some(d) = crate::formats::anthropic::result(obj) {
                self.results_after_turn
                    .push(decoded_result(d, native::ANTHROPIC, line));
                return true;
            }
        }
        for key in ["functionCall", "function_call"] {
            if let Some(fc_node) = obj.get(key)
                && let Some(fc) = fc_node.object()
                && fc.has("name")
            {
                if fc.has("partialArgs")
                    || fc.get("willContinue").and_then(|w| w.bool()) == Some(true)
                {
                    // Streamed Gemini arguments: the stream state assembles them.
                    self.gemini_partial_start(&fc, line, ctx.response);
                    return true;
                }
                if let Some(mut call) = native::gemini_function_call(node, &fc, ctx.lines) {
                    // Digested as written, as `convert` digests it.
                    let arguments = fc.get("args").map_or("{}", |a| a.text());
                    self.give_id(&mut call, arguments);
                    self.add_call(turn, call);
                    return true;
                }
            }
            if let Some(fc) = obj.obj(key)
                && !fc.has("name")
                && self.gemini_partial_active()
            {
                self.gemini_partial_continue(&fc);
                return true;
            }
        }
        for key in ["functionResponse", "function_response"] {
            if let Some(fr) = obj.obj(key) {
                let d = crate::formats::gemini::function_response(&fr);
                self.results_after_turn
                    .push(decoded_result(d, native::GEMINI, line));
                return true;
            }
        }
        if let Some(tu_node) = obj.get("toolUse")
            && let Some(tu) = tu_node.object()
            && let Some(call) = native::bedrock_tool_use(&tu_node, &tu, ctx.lines)
        {
            self.add_call(turn, call);
            return true;
        }
        if let Some(tr) = obj.obj("toolResult") {
            let d = crate::formats::bedrock::tool_result(&tr);
            self.results_after_turn
                .push(decoded_result(d, native::BEDROCK, line));
            return true;
        }
        false
    }

    /// One Responses-style item (API output, request input, Codex payload).
    fn item(
        &mut self,
        node: &Node,
        obj: &Obj,
        ctx: &Ctx,
        dialect: &'static str,
        key: Option<TurnKey>,
    ) {
        let Some(kind) = obj.str("type") else { return };
        let line = ctx.lines.line(node.offset());
        let group_key = key.unwrap_or_else(|| hash(&format!("\u{0}items{}", self.item_group)));
        let mut turn = Turn::new(Role::Assistant, line);
        turn.origin = ctx.origin;
        match kind.as_ref() {
            _ if native::is_responses_call_item(obj) => {
                if let Some((call, result)) =
                    native::responses_item_with_result(node, obj, ctx.lines, dialect)
                {
                    self.add_call(&mut turn, call);
                    // After the model's items of this turn: a result ends a turn.
                    self.item_results.extend(result);
                }
            }
            _ if let Some(d) = crate::formats::responses::call_output(obj) => {
                self.item_group += 1;
                self.item_results_done();
                self.result(decoded_result(d, dialect, line));
                return;
            }
            "reasoning" => self.content_block(node, &mut turn, ctx),
            "message" => {
                let role = obj
                    .str("role")
                    .and_then(|r| Role::from_name(&r))
                    .unwrap_or(Role::Assistant);
                if role != Role::Assistant {
                    self.item_group += 1;
                    self.item_results_done();
                    self.message(
                        node,
                        obj,
                        role,
                        &Ctx {
                            response: None,
                            ..ctx.clone()
                        },
                    );
                    self.item_group += 1;
                    return;
                }
                for block in obj.items("content") {
                    self.content_block(&block, &mut turn, ctx);
                }
            }
            _ => return,
        }
        self.submit(turn, Some(group_key));
    }

    /// The steps of a Gemini Interactions resource, one turn keyed by its id.
    fn interaction(&mut self, steps: &[Node], obj: &Obj, ctx: &Ctx) {
        let key = obj.str("id").map(|id| hash(&id));
        let line = steps.first().map_or(0, |s| ctx.lines.line(s.offset()));
        let mut turn = Turn::new(Role::Assistant, line);
        turn.origin = ctx.origin;
        let mut results = Vec::new();
        for step in steps {
            let Some(s) = step.object() else { continue };
            if let Some(call) =
                native::interactions_step(step, &s, ctx.lines, native::GEMINI_INTERACTIONS)
            {
                self.add_call(&mut turn, call);
            } else if s.is("type", "function_result") {
                results.push(ToolResult {
                    id: s.str("call_id").map(Into::into),
                    name: s.str("name").map(Into::into),
                    content: JsonText::of_opt(s.get("result")),
                    is_error: s.get("is_error").and_then(|e| e.bool()).unwrap_or(false),
                    dialect: native::GEMINI_INTERACTIONS,
                    line: ctx.lines.line(step.offset()),
                });
            }
        }
        self.submit(turn, key);
        for r in results {
            self.result(r);
        }
    }

    // ---- Gemini streamed arguments ---------------------------------------------------

    fn gemini_partial_active(&self) -> bool {
        matches!(&self.stream, Some(s) if s.is_gemini_partial())
    }

    fn gemini_partial_start(&mut self, fc: &Obj, line: u64, key: Option<TurnKey>) {
        self.end_stream();
        let name = fc.str("name").unwrap_or_default().into_owned();
        let mut stream = Stream::gemini_partial(name, line, key);
        stream.gemini_fragments(fc);
        // A call given whole in one chunk says it does not continue.
        let whole = fc.get("willContinue").and_then(|w| w.bool()) != Some(true);
        if whole {
            stream.mark_done();
        }
        self.stream = Some(stream);
        if whole {
            self.end_stream();
        }
    }

    fn gemini_partial_continue(&mut self, fc: &Obj) {
        let Some(stream) = &mut self.stream else {
            return;
        };
        let closes = fc.is_empty() || fc.get("willContinue").and_then(|w| w.bool()) != Some(true);
        stream.gemini_fragments(fc);
        if closes {
            stream.mark_done();
            self.end_stream();
        }
    }
}

/// Adds a JSON value of no known shape to `turn`, `text` its source from `line` on:
/// first the source, which the json channel reads (a record that is a call object) at
/// its objects and arrays only, then each string value that may hold a call, decoded
/// and on its own line, so that a text syntax inside a string
/// (`[get_weather(location=\"Paris\")]`) is read without the string's escapes.
/// Returns how many strings were added after the source.
pub(crate) fn push_unknown_json(
    turn: &mut Turn,
    root: Node,
    text: &str,
    line: u64,
    lines: &LineIndex,
) -> usize {
    // The offsets of its objects and arrays, and the strings that may hold a call, in
    // document order.
    let mut values = Vec::new();
    let mut strings = Vec::new();
    let mut stack = vec![(root, 0)];
    while let Some((node, depth)) = stack.pop() {
        match node.kind() {
            Kind::String => {
                let bytes = node.text().as_bytes();
                // As written: `\u003c` is a `<` too.
                if memchr::memchr3(b'<', b'[', b'{', bytes).is_some()
                    || memchr::memmem::find(bytes, b"\\u").is_some()
                    || crate::model::holds_wil(bytes)
                {
                    strings.push(node);
                }
            }
            Kind::Array | Kind::Object if depth < MAX_DEPTH => {
                values.push(node.offset());
                let children: Vec<Node> = match node.object() {
                    Some(obj) => obj.iter().map(|(_, v)| v).collect(),
                    None => node.items().collect(),
                };
                // Pushed in reverse: values are read in document order.
                stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
            }
            _ => {}
        }
    }
    turn.push_json_source(text, line, &values);
    let before = turn.texts.len();
    for node in strings {
        turn.push_text(
            node.str().unwrap_or_default(),
            lines.line(node.offset()),
            false,
        );
    }
    turn.texts.len() - before
}

/// The role of an object that is a message in some format, if it is one.
/// The class of a LangChain serialized object (`dumpd`, `lc: 1`): the last element of
/// its `id` path, `["langchain_core", "messages", "AIMessageChunk"]`.
pub(crate) fn constructor_class<'a>(obj: &Obj<'a>) -> Option<std::borrow::Cow<'a, str>> {
    if !obj.is("type", "constructor") || !obj.has("lc") {
        return None;
    }
    obj.arr("id")?.last()?.str()
}

/// LangGraph's run metadata beside each streamed chunk (`[chunk, metadata]`).
fn is_langgraph_metadata(obj: &Obj) -> bool {
    obj.has("langgraph_node") || obj.has("langgraph_step")
}

/// Where a LangChain message keeps its body, one level down: `kwargs` of its serialized
/// constructor, `data` of a message dict (`{"type": "ai", "data": {…}}`). `None` when
/// the object is the body itself.
pub(crate) fn langchain_body_key(obj: &Obj) -> Option<&'static str> {
    if obj.is("type", "constructor") {
        Some("kwargs")
    } else if !obj.has("content") && !obj.has("tool_calls") {
        Some("data")
    } else {
        None
    }
}

/// The role of a LangChain serialized message (`dumpd`): its class (`AIMessage`,
/// `HumanMessageChunk`), or a `ChatMessage`'s own role.
fn langchain_constructor_role(obj: &Obj) -> Option<Role> {
    let class = constructor_class(obj).filter(|_| obj.obj("kwargs").is_some())?;
    let class = class.strip_suffix("Chunk").unwrap_or(&class);
    if class == "ChatMessage" {
        return obj
            .obj("kwargs")?
            .str("role")
            .and_then(|r| Role::from_name(&r));
    }
    Role::from_name(class)
}

/// The role of a LangChain message dict, which carries it in `type`
/// (`{"type": "ai", "data": {…}}`, or the fields beside it).
fn langchain_dict_role(obj: &Obj) -> Option<Role> {
    let kind = obj.str("type")?;
    let message = matches!(
        kind.as_ref(),
        "ai" | "human"
            | "tool"
            | "system"
            | "AIMessage"
            | "AIMessageChunk"
            | "HumanMessage"
            | "ToolMessage"
            | "SystemMessage"
    ) && (obj.has("content") || obj.has("data") || obj.has("tool_calls"));
    if message {
        Role::from_name(&kind)
    } else {
        None
    }
}

/// The role of a LangChain message, serialized (`dumpd`) or a dict; `None` for any
/// other object. Extract and convert read LangChain messages by this and
/// [`langchain_body_key`].
pub(crate) fn langchain_role(obj: &Obj) -> Option<Role> {
    langchain_constructor_role(obj).or_else(|| langchain_dict_role(obj))
}

fn message_role(obj: &Obj) -> Option<Role> {
    if let Some(role) = langchain_constructor_role(obj) {
        return Some(role);
    }
    if let Some(role) = obj.str("role") {
        let has_body = [
            "content",
            "tool_calls",
            "function_call",
            "parts",
            "tool_call_id",
            "tool_call_ids",
        ]
        .iter()
        .any(|k| obj.has(k));
        if has_body {
            return Role::from_name(&role);
        }
    }
    // Gemini CLI sessions: `{"type": "gemini", "content", "toolCalls"}`.
    if obj.is("type", "gemini") && (obj.has("content") || obj.has("toolCalls")) {
        return Some(Role::Assistant);
    }
    langchain_dict_role(obj)
}

/// The file line of a notebook text array's first element, when each element is one
/// line of text on its own file line.
fn line_per_element(node: &Node, lines: &LineIndex) -> Option<u64> {
    let parts = node.array()?;
    let first = lines.line(parts.first()?.offset());
    for (i, part) in parts.iter().enumerate() {
        let text = part.str()?;
        let last = i + 1 == parts.len();
        let one_line = text.find('\n').is_none_or(|n| n + 1 == text.len());
        if lines.line(part.offset()) != first + i as u64
            || !one_line
            || (!last && !text.ends_with('\n'))
        {
            return None;
        }
    }
    Some(first)
}

/// Notebook text: a string, or a list of strings to join.
fn joined_text(node: &Node) -> String {
    match node.array() {
        Some(parts) => parts.iter().filter_map(|p| p.str()).collect(),
        None => node.str().map(|s| s.into_owned()).unwrap_or_default(),
    }
}

/// A turn's key (a message or response id), hashed: messages with the same key are
/// one turn, and a key's texts are seen once.
type TurnKey = u64;

fn hash(text: &str) -> u64 {
    crate::recent::hash_bytes(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(interp: &mut Interpreter, lines: &[String]) -> Vec<Call> {
        let mut calls = Vec::new();
        for (n, text) in lines.iter().enumerate() {
            let doc = crate::json::Doc::parse(text).unwrap();
            let index = LineIndex::new(text, n as u64 + 1);
            interp.feed(doc.root(), &index);
            calls.extend(interp.drain().filter_map(|e| match e {
                Event::Turn(t) => Some(t.calls),
                _ => None,
            }));
        }
        interp.finish();
        calls.extend(interp.drain().filter_map(|e| match e {
            Event::Turn(t) => Some(t.calls),
            _ => None,
        }));
        calls.into_iter().flatten().collect()
    }

    #[test]
    fn a_tool_message_repeating_its_call_answers_it() {
        // xAI's ROLE_TOOL output of a server-side call, given without the call itself.
        let line = r#"{"id":"r","outputs":[{"index":1,"message":{"role":"ROLE_TOOL","content":"4","tool_calls":[{"id":"call_1","type":"TOOL_CALL_TYPE_CODE_EXECUTION_TOOL","function":{"name":"code_execution","arguments":"{}"}}]}}]}"#;
        let mut interp = Interpreter::new();
        let doc = crate::json::Doc::parse(line).unwrap();
        interp.feed(doc.root(), &LineIndex::new(line, 1));
        interp.finish();
        let events: Vec<Event> = interp.drain().collect();
        assert!(
            events
                .iter()
                .all(|e| !matches!(e, Event::Turn(t) if !t.calls.is_empty())),
            "{events:?}"
        );
        let results: Vec<&ToolResult> = events
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].id.as_deref(), Some("call_1"));
        assert_eq!(results[0].dialect, native::XAI);
    }

    fn chunk(i: usize) -> String {
        format!(
            r#"{{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{i},"id":"call_{i}","function":{{"name":"f","arguments":"{{\"a\""}}}}]}}}}]}}"#
        )
    }

    #[test]
    fn a_stream_over_the_bound_flushes_its_oldest_calls_with_one_warning() {
        let n = streams::MAX_OPEN_CALLS * 2 + 10;
        let lines: Vec<String> = (0..n).map(chunk).collect();
        let mut interp = Interpreter::new();
        let calls = feed_all(&mut interp, &lines);
        assert_eq!(calls.len(), n);
        for (i, c) in calls.iter().enumerate() {
            assert_eq!(c.id.as_deref(), Some(format!("call_{i}").as_str()));
            assert_eq!(c.name, "f");
            assert_eq!(c.arguments_raw.as_deref(), Some("{\"a\""));
            assert_eq!(c.errors, [streams::TRUNCATED]);
        }
        assert_eq!(
            interp.take_warnings(),
            [
                "a stream held more than 4096 calls under way; the oldest were settled as they stood (those not complete are marked truncated)"
            ]
        );
        assert!(interp.take_warnings().is_empty());
    }

    #[test]
    fn a_stream_under_the_bound_gives_no_warning() {
        let lines: Vec<String> = (0..streams::MAX_OPEN_CALLS).map(chunk).collect();
        let mut interp = Interpreter::new();
        assert_eq!(feed_all(&mut interp, &lines).len(), streams::MAX_OPEN_CALLS);
        assert!(interp.take_warnings().is_empty());
    }

    #[test]
    fn a_late_fragment_of_a_flushed_call_is_dropped() {
        let n = streams::MAX_OPEN_CALLS + 1;
        let mut lines: Vec<String> = (0..n).map(chunk).collect();
        // Call 0 was flushed when call 4096 started.
        lines.push(r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}"#.into());
        let mut interp = Interpreter::new();
        let calls = feed_all(&mut interp, &lines);
        assert_eq!(calls.len(), n);
        assert_eq!(calls[0].errors, [streams::TRUNCATED]);
    }
}
