//! From framed JSON values and text to turns and results.
//!
//! The [`Interpreter`] receives the values of one source in order (a JSON document, each
//! JSONL line, each SSE event, each cassette body) and recognizes messages, calls,
//! results and stream events by their shape wherever they sit, so a new wrapper needs
//! no code. It also keeps the per-source memory that makes a call logged twice one call.

mod containers;
mod messages;
mod results;
mod roles;
mod stream_events;
mod streams;
pub(crate) use roles::{constructor_class, langchain_body_key, langchain_role};
pub(crate) use streams::langchain_reasoning;

/// Whether a value is an event or chunk of a stream this module reassembles (any
/// provider's): `convert` reads such input through this reader, so both commands tell
/// a stream alike.
pub(crate) fn is_stream_event(obj: &crate::json::Obj) -> bool {
    streams::stream_kind(obj).is_some()
}

use crate::dialects::native;
use crate::json::{Kind, LineIndex, Node};
use crate::model::{Call, Event, Origin, Role, ToolResult, Turn};
use crate::recent::RecentSet;
use containers::LOG_KEYS;
use results::{Replay, call_digest};
use roles::is_langgraph_metadata;
use std::collections::{HashMap, HashSet};
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
pub(crate) const MAX_DEPTH: usize = crate::json::MAX_WALK_DEPTH;

/// The turn being built, kept open while later values may continue it.
struct Open {
    key: Option<TurnKey>,
    turn: Turn,
}

/// Reads one source's values and emits [`Event`]s.
#[derive(Default)]
pub(crate) struct Interpreter {
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
    /// Hashes of (conversation, id) of recent calls that a result answered: a result of
    /// such an id, when no call of that id is open, is the earlier result replayed in
    /// another form (wrapped by another client, its keys reordered), not another one.
    answered: RecentSet,
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
    /// A call's arguments text, decoded outside its record's document, held half a
    /// surrogate pair (see [`Interpreter::take_lossy`]).
    lossy: bool,
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
    /// Walking messages that are each a step of their own (SWE-agent's history, parts
    /// written once each): a call repeated with its id and arguments is made again,
    /// not a copy (replayed trajectories reuse ids). Not in a recording's requests,
    /// which repeat every call.
    distinct_steps: bool,
    /// A call of the message being read replayed one handed on (see
    /// [`Interpreter::request_turn_is_new`]).
    replay_in_turn: bool,
    /// A recording's request was answered: its assistant messages from now on may
    /// replay what a response said.
    response_read: bool,
    /// The text of the last response's assistant turns, at most [`MAX_RESPONSE_TEXT`]
    /// bytes: a call the next request replays under a made-up id, matching no call
    /// handed on, was read from it if it names the call's tool.
    response_text: String,
    /// User and system messages of a recording (one conversation), by (role, texts) hash:
    /// how often the current request holds each so far, and how often one was told.
    request_messages: HashMap<u64, u32>,
    told_messages: HashMap<u64, u32>,
    /// The id of a call of the value being read that was given before (a copy): a
    /// snapshot of the whole history repeating what a stream gave (see
    /// [`crate::model::Placement`]).
    copied_call: Option<String>,
    /// A recording's conversations, by the key of their opening (see
    /// [`request_conversation_key`]), and the one its last request continued.
    request_conversations: HashMap<u64, u32>,
    request_conversation: u32,
}

/// How much of a response's text is kept to tell a replayed text call (see
/// [`Interpreter::response_text`]).
const MAX_RESPONSE_TEXT: usize = 1 << 20;

/// How many unanswered calls are remembered for results that name their tool only.
const MAX_OPEN_NAMED: usize = 256;

/// How many calls, or texts, a turn gathers from values with the same key (lines of one
/// message, a long stream) before it is handed on and the next such value starts
/// another turn: memory stays flat however many lines share a message id. Texts are
/// scanned one by one, so a turn cut between two loses no call in text; the bound on
/// texts is higher, for streams that give a chunk per token.
pub(crate) const MAX_TURN_CALLS: usize = 4096;
pub(crate) const MAX_TURN_TEXTS: usize = 1 << 16;

/// The warning given once per source when a stream held more than
/// [`streams::MAX_OPEN_CALLS`] calls under way.
pub(crate) fn open_calls_warning() -> String {
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
        // Most roles are plain names: only another spelling is decoded and looked up.
        let user = match role {
            "\"user\"" => true,
            "\"system\"" | "\"assistant\"" | "\"tool\"" => false,
            _ => m.str("role").and_then(|r| Role::from_name(&r)) == Some(Role::User),
        };
        if user {
            break;
        }
    }
    crate::recent::hash_parts(&parts)
}

/// A request's system prompt given beside its messages (Anthropic's and Bedrock's
/// `system`, Gemini's `systemInstruction`, the Responses API's `instructions`).
fn system_prompt<'a>(request: &crate::json::Obj<'a>) -> Option<Node<'a>> {
    [
        "system",
        "systemInstruction",
        "system_instruction",
        "instructions",
    ]
    .iter()
    .find_map(|k| request.get(k))
}

/// The strings of a text value: itself, or the `text` of each part of a list (or of
/// Gemini's `{"parts": […]}`).
fn text_nodes(value: Node<'_>) -> Vec<Node<'_>> {
    if value.kind() == Kind::String {
        return vec![value];
    }
    let parts = value.object().and_then(|o| o.get("parts")).unwrap_or(value);
    parts
        .items()
        .filter_map(|part| part.object()?.get("text"))
        .collect()
}

/// The key of the conversation a request body continues: its system prompt and its
/// messages up to the first user message, by role and text, in any provider's format
/// (OpenAI and Anthropic `messages`, Gemini `contents`, Responses `input`), so a history
/// handed from one provider to another keeps its key; and whether the request holds
/// history (the model's messages, calls or results). `None` when it holds no messages.
fn request_conversation_key(request: &crate::json::Obj) -> Option<(u64, bool)> {
    let messages = ["messages", "contents", "input"]
        .iter()
        .find_map(|k| request.arr(k))?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut write = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    let write_texts = |value: Node, write: &mut dyn FnMut(&[u8])| {
        for text in text_nodes(value) {
            write(text.str().unwrap_or_default().as_bytes());
        }
    };
    if let Some(system) = system_prompt(request) {
        write(&[Role::System as u8]);
        write_texts(system, &mut write);
    }
    let mut opened = false;
    let mut history = false;
    for message in &messages {
        let Some(m) = message.object() else { continue };
        let role = m.str("role").and_then(|r| Role::from_name(&r));
        // A Responses call or result item, or the model's or a tool's message.
        history |= match role {
            Some(role) => matches!(role, Role::Assistant | Role::Tool),
            None => m.str("type").is_some_and(|t| t.contains("call")),
        };
        if opened {
            if history {
                break;
            }
            continue;
        }
        let Some(role) = role else { continue };
        write(&[role as u8]);
        if let Some(content) = m.get("content").or_else(|| m.get("parts")) {
            write_texts(content, &mut write);
        }
        opened = role == Role::User;
    }
    Some((hasher.digest(), history))
}

impl Interpreter {
    pub(crate) fn new() -> Interpreter {
        Interpreter::default()
    }

    /// Events ready to be processed, in order.
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, Event> {
        self.events.drain(..)
    }

    /// Marks the values fed from now on as request history (a recording's requests).
    pub(crate) fn set_history(&mut self, history: bool) {
        if history {
            self.request_messages.clear();
        } else if self.recording {
            // The requests read so far are answered from now on.
            self.response_read = true;
            self.response_text.clear();
        }
        self.history = history;
        self.recording |= history;
    }

    /// One framed JSON value. Returns false when nothing in it has a known shape: the
    /// caller then treats it as a model's bare output text.
    pub(crate) fn feed(&mut self, node: Node, lines: &LineIndex) -> bool {
        self.feed_at(node, lines, 0)
    }

    /// One element of a top-level array read element by element: walked as
    /// [`Interpreter::feed`] walks the items of a document that is a list.
    pub(crate) fn feed_item(&mut self, node: Node, lines: &LineIndex) -> bool {
        self.feed_at(node, lines, 1)
    }

    /// Whether some value was too deeply nested to be walked (reported once by the caller).
    pub(crate) fn take_too_deep(&mut self) -> bool {
        std::mem::take(&mut self.too_deep)
    }

    /// Whether the arguments of a call made since the last call held half a surrogate
    /// pair, read as U+FFFD ([`Call::lossy`]): what the record's document cannot tell
    /// (arguments joined from a stream's pieces, JSON text inside a string).
    pub(crate) fn take_lossy(&mut self) -> bool {
        std::mem::take(&mut self.lossy)
    }

    /// Problems in the data found since the last call, for the caller to report: each
    /// kind once per source.
    pub(crate) fn take_warnings(&mut self) -> Vec<String> {
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
            // A recording is one conversation, whose requests repeat it, also in
            // another provider's format (an agent handed on to another model).
            if depth == 0
                && !self.recording
                && let Some(messages) = obj.arr("messages")
            {
                let conversation = conversation_of(&messages);
                if conversation != self.conversation {
                    self.conversation = conversation;
                    self.conversations += 1;
                    self.ordinal = 0;
                }
            }
            if depth == 0 && self.history {
                self.request_conversation(&obj);
                self.request_system(&obj, lines);
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
    pub(crate) fn feed_text(&mut self, text: &str, line: u64) {
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
    pub(crate) fn feed_unknown_json(
        &mut self,
        root: Node,
        text: &str,
        line: u64,
        lines: &LineIndex,
    ) {
        self.end_stream();
        if self.history {
            return;
        }
        let mut turn = Turn::new(Role::Assistant, line);
        push_unknown_json(&mut turn, root, text, line, lines);
        self.submit(turn, None);
    }

    /// Like [`Interpreter::feed_text`], without copying a large text.
    pub(crate) fn feed_owned_text(&mut self, text: String, line: u64) {
        self.end_stream();
        if self.history {
            return;
        }
        let mut turn = Turn::new(Role::Assistant, line);
        turn.push_raw_text(text, line);
        self.submit(turn, None);
    }

    /// `data: [DONE]`: the current stream is complete.
    pub(crate) fn stream_done(&mut self) {
        if let Some(stream) = &mut self.stream {
            stream.mark_done();
        }
        self.end_stream();
    }

    /// End of the source: whatever is open is flushed; unfinished streams are truncated.
    pub(crate) fn finish(&mut self) {
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

    /// Adds a finished message and the results read in it: after the model's message
    /// (a server tool's result follows its call), before anyone else's (a user message
    /// answers the calls before it, then says more).
    fn submit(&mut self, turn: Turn, key: Option<TurnKey>) {
        if turn.role == Role::Assistant || self.results_after_turn.is_empty() {
            self.place(turn, key);
            for result in std::mem::take(&mut self.results_after_turn) {
                self.result(result);
            }
        } else {
            for result in std::mem::take(&mut self.results_after_turn) {
                self.result(result);
            }
            self.place(turn, key);
        }
    }

    /// A message with the key of the open turn continues it (Claude Code writes one API
    /// message over several lines); a key seen before only adds what is new (copies of
    /// a response in OpenHands events).
    fn place(&mut self, mut turn: Turn, key: Option<TurnKey>) {
        if self.recording && !self.recorded_turn(&mut turn) {
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
        self.lossy |= std::mem::take(&mut call.lossy);
        if call.id.is_none() && matches!(call.dialect, native::GEMINI | native::GEMINI_STREAM) {
            // A streamed call: its arguments were joined from pieces.
            let arguments = match &call.arguments_raw {
                Some(raw) => raw.clone(),
                None => serde_json::to_string(&*call.arguments).unwrap_or_default(),
            };
            self.give_id(&mut call, &arguments);
        }
        if let Some(id) = &call.id {
            let arguments = results::arguments_as_written(&call);
            let key = crate::recent::hash_parts(&[
                &self.conversation.to_le_bytes(),
                id.as_bytes(),
                call.name.as_bytes(),
                arguments.as_bytes(),
            ]);
            if !self.seen_calls.insert(key) && (self.history || !self.distinct_steps) {
                if self.copied_call.is_none() {
                    self.copied_call = Some(id.clone());
                }
                return;
            }
        }
        if self.history && self.replayed(&call) == Replay::Matched {
            self.replay_in_turn = true;
            return;
        }
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

    /// Whether a turn of a recording is the conversation's (see
    /// [`Interpreter::request_turn_is_new`]); the text of a response's is kept to tell
    /// a call the next request replays (see [`Interpreter::response_text`]). Apart:
    /// most input is no recording.
    #[cold]
    #[inline(never)]
    fn recorded_turn(&mut self, turn: &mut Turn) -> bool {
        if self.history {
            return self.request_turn_is_new(turn);
        }
        if turn.role == Role::Assistant {
            for text in &turn.texts {
                if self.response_text.len() + text.text.len() <= MAX_RESPONSE_TEXT {
                    self.response_text.push_str(&text.text);
                }
            }
        }
        true
    }

    /// Which of a recording's conversations a request continues: one that opened as
    /// it opens, or else a new one (the one before, when it holds history). When that is
    /// not the one before, what follows is marked
    /// ([`Event::Conversation`]).
    #[cold]
    fn request_conversation(&mut self, request: &crate::json::Obj) {
        let Some((key, history)) = request_conversation_key(request) else {
            return;
        };
        // A request that opens in another way but holds history continues the one
        // before (an agent given the history without its system prompt).
        let next = if history && !self.request_conversations.is_empty() {
            self.request_conversation
        } else {
            self.request_conversations.len() as u32
        };
        let n = *self.request_conversations.entry(key).or_insert(next);
        if n != self.request_conversation {
            self.flush();
            self.request_conversation = n;
            self.events.push(Event::Conversation(n));
        }
    }

    /// A request's system prompt given beside its messages (Anthropic's and Bedrock's
    /// `system`, Gemini's `systemInstruction`, the Responses API's `instructions`): a
    /// system turn, told once as the messages are.
    #[cold]
    fn request_system(&mut self, obj: &crate::json::Obj, lines: &LineIndex) {
        let Some(system) = system_prompt(obj) else {
            return;
        };
        let mut turn = Turn::new(Role::System, lines.line(system.offset()));
        for node in text_nodes(system) {
            if let Some(text) = node.str()
                && !text.trim().is_empty()
            {
                turn.push_text(text, lines.line(node.offset()), false);
            }
        }
        if !turn.is_empty() {
            self.submit(turn, None);
        }
    }

    /// Whether a message of a recording's request is new to the conversation, and so
    /// a turn of it: what the user (or system) says that no earlier request held as
    /// often (each request repeats the history before it), and an assistant message
    /// with calls of the request's own (see [`Replay::Own`]), or in the first request,
    /// before any response (a history the client built). Its text is kept only when
    /// none of its calls replays a response's.
    fn request_turn_is_new(&mut self, turn: &mut Turn) -> bool {
        let replayed_call = std::mem::take(&mut self.replay_in_turn);
        match turn.role {
            Role::Assistant => {
                if replayed_call || (self.response_read && turn.calls.is_empty()) {
                    turn.texts.clear();
                }
                !turn.is_empty()
            }
            Role::Tool => false,
            Role::User | Role::System => {
                if turn.texts.is_empty() {
                    return false;
                }
                // Told once per conversation: another may open with the same words.
                let role = [turn.role as u8];
                let conversation = self.request_conversation.to_le_bytes();
                let mut parts: Vec<&[u8]> = vec![&role, &conversation];
                parts.extend(turn.texts.iter().map(|t| t.text.as_bytes()));
                self.told_more_often(crate::recent::hash_parts(&parts))
            }
        }
    }

    /// Whether a result without an id in a recording's request is new: held more
    /// often than by any request before, as user messages are told.
    fn request_result_is_new(&mut self, result: &ToolResult) -> bool {
        let conversation = self.request_conversation.to_le_bytes();
        self.told_more_often(crate::recent::hash_parts(&[
            b"result",
            &conversation,
            result.name.as_deref().unwrap_or_default().as_bytes(),
            result.content.as_str().as_bytes(),
        ]))
    }

    /// Counts one more of `key` in this request; true when that is more than any
    /// request before held, so it is told.
    fn told_more_often(&mut self, key: u64) -> bool {
        let here = self.request_messages.entry(key).or_insert(0);
        *here += 1;
        let told = self.told_messages.entry(key).or_insert(0);
        if *here > *told {
            *told += 1;
            true
        } else {
            false
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

/// A turn's key (a message or response id), hashed: messages with the same key are
/// one turn, and a key's texts are seen once.
type TurnKey = u64;

fn hash(text: &str) -> u64 {
    crate::recent::hash_bytes(text.as_bytes())
}
