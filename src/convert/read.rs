//! From one JSON value (a document, or one line of JSON Lines) to a [`Transcript`]:
//! the message-shaped formats extract reads, recognized by their shape. Every value
//! a reader does not interpret is kept as written in `extra`.

use super::decode::{clip, extra_of, raw, text};
use super::model::{
    CallPart, Extra, Format, Message, Part, Raw, ResultPart, Role, TextPart, Transcript,
};
use crate::json::{Kind, Node, Obj};
use anyhow::{Result, anyhow, bail};

/// A mini-swe-agent trajectory's messages as a conversation of calls and results: the
/// user message after an assistant message without native calls that holds one action
/// block is the action's observation, its result.
pub(super) fn mini_swe_agent(t: &mut Transcript) {
    observations_answer(t, |m| {
        m.role == Role::Assistant
            && !m.parts.iter().any(|p| matches!(p, Part::Call(_)))
            && m.parts.iter().any(|p| {
                matches!(p, Part::Text(x)
                    if crate::dialects::swe_agent::mini_swe_agent_action(&x.text).is_some())
            })
    });
}

/// Makes each user message of text alone that follows a message `acted` accepts a
/// tool message holding that text as the result of the action before it.
fn observations_answer(t: &mut Transcript, acted: impl Fn(&Message) -> bool) {
    for i in 1..t.messages.len() {
        let (before, rest) = t.messages.split_at_mut(i);
        let (prev, m) = (&before[i - 1], &mut rest[0]);
        if m.role != Role::User || !acted(prev) {
            continue;
        }
        if m.parts.iter().all(|p| matches!(p, Part::Text(_))) {
            let text: String = m
                .parts
                .iter()
                .map(|p| match p {
                    Part::Text(x) => x.text.as_str(),
                    _ => "",
                })
                .collect();
            m.parts = vec![Part::Result(ResultPart::new(Raw::string(&text)))];
            m.role = Role::Tool;
        }
    }
}

/// A SWE-agent trajectory's history as a conversation of calls and results: the
/// observation after an action (the user message after an assistant message that has
/// an `action` and no native calls) is the action's result. The trajectory's steps past
/// the history's actions (the final `submit` is often missing from the history) are
/// calls, each with its step's observation as result; so is the observation of the
/// history's last action, when the history ends on it.
pub(super) fn swe_agent(t: &mut Transcript, top: &Obj) -> Result<()> {
    let field = |m: &Message, k: &str| m.extra.iter().any(|(x, _)| x == k);
    let is_action = |m: &Message| m.role == Role::Assistant && field(m, "action");
    let native = |m: &Message| m.parts.iter().any(|p| matches!(p, Part::Call(_)));
    let demo = |m: &Message| {
        m.extra.iter().any(|(k, v)| {
            k == "message_type" && v.as_str() == "\"demonstration\""
                || k == "is_demo" && v.as_str() == "true"
        })
    };
    observations_answer(t, |m| is_action(m) && !native(m));
    let actions = t
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant && !demo(m))
        .count();
    let function_calling = t.messages.iter().any(native);
    let steps: Vec<Node> = top.items("trajectory").collect();
    let observation = |step: &Node| -> Result<Option<ResultPart>> {
        match step.object().and_then(|s| s.get("observation")) {
            Some(o) if o.kind() == Kind::String => Ok(Some(ResultPart::new(Raw::string(&text(
                &o,
                "observation",
            )?)))),
            _ => Ok(None),
        }
    };
    let tool = |r: ResultPart| {
        let mut m = Message::new(Role::Tool);
        m.parts.push(Part::Result(r));
        m
    };
    // The history ends on an action whose observation only the trajectory has.
    if let Some(last) = t.messages.last()
        && is_action(last)
        && !native(last)
        && actions > 0
        && let Some(step) = steps.get(actions - 1)
        && let Some(r) = observation(step)?
    {
        t.messages.push(tool(r));
    }
    for step in steps.iter().skip(actions) {
        let Some(s) = step.object() else { continue };
        let Some(action) = s.get("action").filter(|a| a.kind() == Kind::String) else {
            continue;
        };
        let action = text(&action, "action")?;
        let action = action.trim();
        if action.is_empty() {
            continue;
        }
        let mut m = Message::new(Role::Assistant);
        if let Some(thought) = s.get("thought").filter(|a| a.kind() == Kind::String) {
            let thought = text(&thought, "thought")?;
            if !thought.is_empty() {
                m.parts.push(Part::Text(TextPart::new(thought)));
            }
        }
        // As extract reads it: with function calling, a call without arguments is the
        // bare tool name (`submit`); anything else is a command line for the shell.
        let call = if function_calling && !action.contains(char::is_whitespace) {
            CallPart::new(action, Raw::empty_object())
        } else {
            CallPart::new(
                "bash",
                Raw::new(format!("{{\"command\":{}}}", Raw::string(action).as_str())),
            )
        };
        m.parts.push(Part::Call(call));
        t.messages.push(m);
        if let Some(r) = observation(step)? {
            t.messages.push(tool(r));
        }
    }
    Ok(())
}

/// A single API response, as a conversation of the one message it holds: an OpenAI
/// Chat completion (its first choice; the choice's other fields go to the message's
/// `extra`, other choices to the transcript's `other_choices`), an Anthropic Messages
/// response, a Gemini response (its first candidate, likewise: `other_candidates`), a
/// Responses API response (its `output` items).
pub(super) fn response(obj: &Obj, from: Option<Format>) -> Result<Option<Transcript>> {
    let forced = |f: Format| from.is_none_or(|want| want == f);
    let first = |key: &str, inner: &str| {
        obj.items(key)
            .next()
            .and_then(|c| c.object())
            .filter(|c| c.obj(inner).is_some())
    };
    let mut t = if let Some(choice) = first("choices", "message").filter(|_| forced(Format::Openai))
    {
        let message = choice.obj("message").expect("checked");
        let mut m = api_message(&message)?;
        add_fields(&mut m.extra, extra_of(&choice, &["message"]));
        let mut t = Transcript {
            source: Some(Format::Openai),
            ..Transcript::default()
        };
        t.messages.push(m);
        t.extra = others(obj, "choices", "other_choices");
        t
    } else if obj.is("type", "message")
        && obj.has("role")
        && obj.get("content").is_some_and(|c| c.kind() == Kind::Array)
        && forced(Format::Anthropic)
    {
        let m = api_message(obj)?;
        Transcript {
            source: Some(Format::Anthropic),
            messages: vec![m],
            ..Transcript::default()
        }
    } else if let Some(candidate) =
        first("candidates", "content").filter(|_| forced(Format::Gemini))
    {
        let content = candidate.obj("content").expect("checked");
        let mut m = crate::formats::gemini::content_message(&content)?;
        add_fields(&mut m.extra, extra_of(&candidate, &["content"]));
        Transcript {
            source: Some(Format::Gemini),
            messages: vec![m],
            extra: others(obj, "candidates", "other_candidates"),
            ..Transcript::default()
        }
    } else if let Some(output) = obj.get("output").filter(|o| o.kind() == Kind::Array)
        && forced(Format::Responses)
    {
        let mut t = crate::formats::responses::read(None, &output)?;
        t.bare = false;
        t.extra = extra_of(obj, &[]);
        t.extra.retain(|(k, _)| k != "output");
        t
    } else {
        return Ok(None);
    };
    t.bare = false;
    Ok(Some(t))
}

/// Fields added to a message's own: one of the same name keeps its place, and the
/// added one is named with a `choice.` prefix.
fn add_fields(extra: &mut Extra, fields: Extra) {
    for (k, v) in fields {
        let k = if extra.iter().any(|(e, _)| *e == k) {
            format!("choice.{k}")
        } else {
            k
        };
        extra.push((k, v));
    }
}

/// The top-level fields of a response, where `key` (its choices or candidates) is
/// replaced by the ones not read (under `rest`), when there are any.
fn others(obj: &Obj, key: &str, rest: &str) -> Extra {
    let mut out = Vec::new();
    for (k, v) in obj.iter() {
        if k != key {
            out.push((k.into_owned(), raw(&v)));
            continue;
        }
        let more: Vec<&str> = v.items().skip(1).map(|i| i.text()).collect();
        if !more.is_empty() {
            out.push((rest.to_owned(), Raw(format!("[{}]", more.join(",")))));
        }
    }
    out
}

/// One Anthropic or OpenAI message object (a session log's line, a response's).
pub(super) fn api_message(obj: &Obj) -> Result<Message> {
    message(obj, &mut Signals::default())
}

/// [`api_message`] of a message object that leaves its role to the line holding it
/// (the Claude Agent SDK's `{"type": "assistant", "message": {"content": …}}`).
pub(super) fn api_message_of_role(obj: &Obj, role: &str) -> Result<Message> {
    message_of(obj, Some(role), &mut Signals::default())
}

/// A `messages` array whose items hold `parts`: toolsift's own transcript.
pub(super) fn is_canonical(messages: &Node) -> bool {
    let mut items = messages.items().peekable();
    items.peek().is_some()
        && items.all(|m| {
            m.object()
                .is_some_and(|o| o.get("parts").is_some_and(|p| p.kind() == Kind::Array))
        })
}

/// OpenAI Chat and Anthropic Messages share one reader: their message shapes differ
/// only in block types, which do not collide.
pub(super) fn messages_transcript(
    messages: &Node,
    top: Option<&Obj>,
    key: &str,
) -> Result<Transcript> {
    let mut t = Transcript::default();
    let mut signals = Signals::default();
    if let Some(top) = top {
        if let Some(system) = top.get("system") {
            signals.anthropic += 1;
            let mut m = Message::new(Role::System);
            match system.kind() {
                Kind::String => m
                    .parts
                    .push(Part::Text(TextPart::new(text(&system, "system")?))),
                Kind::Array => {
                    for block in system.items() {
                        content_block(&block, &mut m, &mut signals)?;
                    }
                }
                _ => bail!("system: expected a string or content blocks"),
            }
            t.messages.push(m);
        }
        t.extra = extra_of(top, &[key, "system"]);
    }
    for (i, node) in messages.items().enumerate() {
        let Some(obj) = node.object() else {
            bail!("message {i}: not an object");
        };
        t.messages
            .push(message(&obj, &mut signals).map_err(|e| anyhow!("message {i}: {e}"))?);
    }
    t.source = if signals.langchain > 0 {
        // LangChain's messages are in no format convert writes: their fields go back
        // into none.
        None
    } else if signals.anthropic > signals.openai {
        Some(Format::Anthropic)
    } else {
        Some(Format::Openai)
    };
    Ok(t)
}

/// Evidence of which format a messages array is in.
#[derive(Default)]
struct Signals {
    openai: u32,
    anthropic: u32,
    langchain: u32,
}

fn message(obj: &Obj, signals: &mut Signals) -> Result<Message> {
    message_of(obj, None, signals)
}

/// A message; `role` is the one it has when it names none.
fn message_of(obj: &Obj, role: Option<&str>, signals: &mut Signals) -> Result<Message> {
    if !obj.has("role")
        && role.is_none()
        && let Some(role) = crate::transcript::langchain_role(obj)
    {
        return langchain_message(obj, Role::from_model(role), signals);
    }
    let role_name = match (obj.get("role"), role) {
        (Some(r), _) => text(&r, "role")?,
        (None, Some(role)) => role.to_owned(),
        (None, None) => bail!("no role"),
    };
    let role = Role::from_name(&role_name).ok_or_else(|| anyhow!("unknown role '{role_name}'"))?;
    let mut m = Message::new(role);
    if role_name != role.name() {
        m.role_as_written = Some(role_name.clone());
    }
    let mut known = vec!["role", "content"];
    if role == Role::System || role_name == "developer" {
        signals.openai += 1;
    }
    if let Some(r) = obj
        .get("reasoning_content")
        .filter(|r| r.kind() == Kind::String)
    {
        signals.openai += 1;
        known.push("reasoning_content");
        m.parts.push(Part::Reasoning(TextPart::new(text(
            &r,
            "reasoning_content",
        )?)));
    }
    if role == Role::Tool {
        signals.openai += 1;
        let d = crate::formats::openai::tool_message(obj);
        let mut r = d.result_part(obj, "null");
        // The message, not its result, keeps the fields read by neither.
        r.extra.clear();
        known.extend(d.members);
        m.parts.push(Part::Result(r));
        m.extra = extra_of(obj, &known);
        return Ok(m);
    }
    // Cohere's tool plan is what the model says before its calls: text, not reasoning.
    if let Some(plan) = obj.get("tool_plan").filter(|p| p.kind() == Kind::String) {
        known.push("tool_plan");
        m.parts
            .push(Part::Text(TextPart::new(text(&plan, "tool_plan")?)));
    }
    content(obj, &mut m, signals)?;
    if let Some(calls) = obj.get("tool_calls").filter(|c| c.kind() == Kind::Array) {
        signals.openai += 1;
        let parsed: Option<Vec<CallPart>> = calls
            .items()
            .filter(|c| !crate::formats::openai::is_placeholder(c))
            .map(|c| crate::formats::openai::call_part(&c))
            .collect();
        if let Some(parsed) = parsed {
            known.push("tool_calls");
            m.parts.extend(parsed.into_iter().map(Part::Call));
        }
    }
    // Groq: the tools the API ran while it answered, each answered by its output in
    // this message, as an Anthropic server tool's result is.
    let mut executed = false;
    for entry in obj.items("executed_tools") {
        let Some(e) = entry.object() else { continue };
        let Some(d) = crate::formats::openai::executed_tool(&e) else {
            continue;
        };
        let Some(call) = d.call_part(&e)? else {
            continue;
        };
        executed = true;
        let name = call.name.clone();
        m.parts.push(Part::Call(call));
        if let Some((content, is_error)) = d.result {
            let mut r = ResultPart::new(Raw::new(content.text()));
            r.name = Some(name);
            r.is_error = is_error;
            m.parts.push(Part::Result(r));
        }
    }
    if executed {
        signals.openai += 1;
        known.push("executed_tools");
    }
    // SWE-agent logs the calls as Python's repr of the list.
    if let Some(calls) = obj.get("tool_calls").filter(|c| c.kind() == Kind::String) {
        let repr = text(&calls, "tool_calls")?;
        let found = crate::dialects::native::tool_calls_from_repr(&repr, 1);
        if !found.is_empty() {
            signals.openai += 1;
            known.push("tool_calls");
            for c in found {
                let mut call = CallPart::new(
                    c.name.clone(),
                    Raw::new(serde_json::to_string(&*c.arguments).expect("a map serializes")),
                );
                call.id = c.id.clone();
                call.arguments_raw = c.arguments_raw.clone();
                m.parts.push(Part::Call(call));
            }
        }
    }
    if let Some(fc) = obj.obj("function_call") {
        signals.openai += 1;
        let d = crate::formats::openai::function_call(&fc);
        if let Some(mut call) = d.call_part(&fc)? {
            // Only its name and arguments are read: the message keeps none of its
            // other fields.
            call.extra.clear();
            m.parts.push(Part::Call(call));
            known.push("function_call");
        } else if d.is_placeholder() {
            known.push("function_call");
        }
        // A nameless member with arguments stays as written, among the extra fields.
    }
    m.extra = extra_of(obj, &known);
    Ok(m)
}

/// A message's `content`: text, or content blocks.
fn content(obj: &Obj, m: &mut Message, signals: &mut Signals) -> Result<()> {
    match obj.get("content") {
        Some(c) if c.kind() == Kind::String => {
            let s = text(&c, "content")?;
            m.parts.push(Part::Text(TextPart::new(s)));
        }
        Some(c) if c.kind() == Kind::Array => {
            for block in c.items() {
                content_block(&block, m, signals)?;
            }
        }
        // `null` (an assistant message with only calls) or missing: no text.
        Some(c) if c.is_null() => {}
        None => {}
        Some(c) => bail!(
            "content: expected a string or content blocks, found {}",
            clip(c.text())
        ),
    }
    Ok(())
}

/// A LangChain message, recognized as extract recognizes it
/// ([`crate::transcript::langchain_role`]): a message dict (`{"type": "ai", "data":
/// {…}}`, or the body's fields beside `type`) or a serialized constructor (`dumpd`, the
/// body in `kwargs`). The body is read as extract reads it: the content, the reasoning
/// in `additional_kwargs`, the calls of `tool_calls` (`{name, args, id}`; a call also
/// in a content block once), else the provider's copy in `additional_kwargs`, then
/// `invalid_tool_calls`; a tool message is a result, an error when its `status` says so.
fn langchain_message(obj: &Obj, role: Role, signals: &mut Signals) -> Result<Message> {
    signals.langchain += 1;
    let key = crate::transcript::langchain_body_key(obj);
    let (body, outer) = match key.and_then(|k| obj.obj(k).map(|b| (k, b))) {
        Some(("kwargs", body)) => (body, Some(&["lc", "type", "id", "kwargs"][..])),
        Some((_, body)) => (body, Some(&["type", "data"][..])),
        None => (*obj, None),
    };
    let mut m = Message::new(role);
    let written = crate::transcript::constructor_class(obj).or_else(|| obj.str("type"));
    m.role_as_written = written.map(|w| w.into_owned()).filter(|w| w != role.name());
    let mut known = vec!["type", "content"];
    if role == Role::Tool {
        known.extend(["tool_call_id", "name"]);
        let content = body.get("content").map_or(Raw::new("null"), |c| raw(&c));
        let mut r = ResultPart::new(content);
        r.call_id = body.str("tool_call_id").map(|s| s.into_owned());
        r.name = body.str("name").map(|s| s.into_owned());
        r.is_error = body.is("status", "error");
        m.parts.push(Part::Result(r));
    } else {
        for (reasoning, _) in crate::transcript::langchain_reasoning(&body) {
            m.parts
                .push(Part::Reasoning(TextPart::new(reasoning.into_owned())));
        }
        content(&body, &mut m, signals)?;
        let seen = |m: &Message, c: &CallPart| {
            m.parts.iter().any(|p| {
                matches!(p, Part::Call(o) if o.id == c.id && o.name == c.name
                    && o.arguments.value() == c.arguments.value())
            })
        };
        let entries = |key: &str, invalid: bool| -> Option<Vec<CallPart>> {
            body.items(key)
                .filter(|c| !crate::formats::openai::is_placeholder(c))
                .map(|c| match crate::formats::openai::call_part(&c) {
                    Some(call) => Some(call),
                    None => crate::formats::openai::langchain_call_part(&c, invalid),
                })
                .collect()
        };
        if body
            .get("tool_calls")
            .is_some_and(|c| c.kind() == Kind::Array)
        {
            if let Some(calls) = entries("tool_calls", false) {
                known.push("tool_calls");
                for call in calls {
                    if !seen(&m, &call) {
                        m.parts.push(Part::Call(call));
                    }
                }
            }
        } else if let Some(provider) = body.obj("additional_kwargs")
            && let Some(calls) = provider
                .items("tool_calls")
                .filter(|c| !crate::formats::openai::is_placeholder(c))
                .map(|c| crate::formats::openai::call_part(&c))
                .collect::<Option<Vec<_>>>()
        {
            // Only the provider's copy: the message is kept whole in `extra`.
            m.parts.extend(calls.into_iter().map(Part::Call));
        }
        if let Some(calls) = entries("invalid_tool_calls", true) {
            known.push("invalid_tool_calls");
            m.parts.extend(calls.into_iter().map(Part::Call));
        }
    }
    m.extra = extra_of(&body, &known);
    if let Some(outer) = outer {
        add_fields(&mut m.extra, extra_of(obj, outer));
    }
    Ok(m)
}

/// One content block of an Anthropic message (or an OpenAI content part).
fn content_block(block: &Node, m: &mut Message, signals: &mut Signals) -> Result<()> {
    let Some(obj) = block.object() else {
        if block.kind() == Kind::String {
            // Some logs write content as an array of strings.
            m.parts
                .push(Part::Text(TextPart::new(text(block, "content")?)));
            return Ok(());
        }
        bail!("content block: not an object: {}", clip(block.text()));
    };
    let kind = obj.str("type").map(|s| s.into_owned()).unwrap_or_default();
    match kind.as_str() {
        "text" | "input_text" | "output_text" => {
            let t = obj
                .get("text")
                .ok_or_else(|| anyhow!("text block without text"))?;
            let mut part = TextPart::new(text(&t, "text")?);
            part.extra = extra_of(&obj, &["type", "text"]);
            m.parts.push(Part::Text(part));
        }
        "thinking" => {
            let t = obj
                .get("thinking")
                .ok_or_else(|| anyhow!("thinking block without thinking"))?;
            let thought = if t.kind() == Kind::Array {
                // Mistral's reasoning models write their thinking as text chunks; one
                // with anything more than its text is kept whole.
                match text_chunks(&t) {
                    Some(thought) => thought,
                    None => {
                        m.parts.push(Part::Block(raw(block)));
                        return Ok(());
                    }
                }
            } else {
                signals.anthropic += 1;
                text(&t, "thinking")?
            };
            let mut part = TextPart::new(thought);
            part.extra = extra_of(&obj, &["type", "thinking"]);
            m.parts.push(Part::Reasoning(part));
        }
        kind if crate::formats::anthropic::is_call_type(kind) => {
            signals.anthropic += 1;
            let d = crate::formats::anthropic::call(&obj).expect("a call block");
            if let Some(call) = d.call_part(&obj)? {
                m.parts.push(Part::Call(call));
            }
        }
        // A client tool's result, or a server tool's beside its call.
        _ if let Some(d) = crate::formats::anthropic::result(&obj) => {
            signals.anthropic += 1;
            // No content is none (null), as extract reports it.
            m.parts.push(Part::Result(d.result_part(&obj, "null")));
        }
        _ => {
            if matches!(kind.as_str(), "image_url" | "input_audio" | "refusal") {
                signals.openai += 1;
            }
            // Images, documents, redacted thinking, server tools: kept as they are.
            m.parts.push(Part::Block(raw(block)));
        }
    }
    Ok(())
}

/// The text of an array of `{"type": "text", "text": …}` chunks, joined; `None` when a
/// chunk is anything else or has more fields.
fn text_chunks(chunks: &Node) -> Option<String> {
    let mut joined = String::new();
    for chunk in chunks.items() {
        let chunk = chunk.object()?;
        if !chunk.is("type", "text") || chunk.iter().count() != 2 {
            return None;
        }
        joined.push_str(&chunk.str("text")?);
    }
    Some(joined)
}
