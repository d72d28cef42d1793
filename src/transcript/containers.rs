//! Whole-document formats whose copies need rules of their own: notebooks, SWE-agent
//! and mini-swe-agent trajectories, llama-stack recordings, Codex rollout lines; and the
//! keys that mark a value as part of a known log.

use super::{Ctx, Interpreter, hash};
use crate::dialects::{native, swe_agent};
use crate::json::{Kind, LineIndex, Node, Obj};
use crate::model::{Call, JsonText, Origin, Role, ToolResult, Turn};

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
pub(super) const LOG_KEYS: &[&str] = &[
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
    /// Whole-document formats whose copies need rules: notebooks, SWE-agent
    /// trajectories, Codex rollout lines, VCR-style recordings already unwrapped.
    pub(super) fn container(&mut self, obj: &Obj, ctx: &Ctx) -> Option<bool> {
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
            self.distinct_steps = true;
            self.walk(message, &ctx);
            self.distinct_steps = false;
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
