//! The writers: from a [`Transcript`] to each target's document. What a target cannot
//! hold is kept where it can be (a text part, a field the target ignores) and named in
//! the writer's notes, which `convert` prints once per file and `--verify` reports.

use super::emit::J;
use super::model::{CallPart, Format, Message, Part, Raw, ResultPart, Role, Transcript};
use std::collections::BTreeSet;

/// What a writer could not carry over, one line each (deduplicated, in order).
#[derive(Default, Debug)]
pub struct Notes {
    lines: BTreeSet<String>,
    /// Fields not written, by what held them: one line each at the end.
    dropped: std::collections::BTreeMap<String, BTreeSet<String>>,
}

impl Notes {
    pub fn add(&mut self, note: impl Into<String>) {
        self.lines.insert(note.into());
    }

    /// Fields of `what` (top-level fields, message fields…) the target does not hold.
    pub fn dropped<'k>(&mut self, what: &str, keys: impl IntoIterator<Item = &'k str>) {
        self.dropped
            .entry(what.to_owned())
            .or_default()
            .extend(keys.into_iter().map(str::to_owned));
    }

    pub fn merge(&mut self, other: Notes) {
        self.lines.extend(other.lines);
        for (what, keys) in other.dropped {
            self.dropped.entry(what).or_default().extend(keys);
        }
    }

    /// Every note, one line each.
    pub fn lines(self) -> Vec<String> {
        let mut out: Vec<String> = self.lines.into_iter().collect();
        for (what, keys) in self.dropped {
            let keys: Vec<String> = keys.into_iter().collect();
            out.push(format!(
                "{what} of the source format not written ({}): kept only by --to json",
                keys.join(", ")
            ));
        }
        out
    }
}

/// Writer options.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// mandrake-json: wrap calls and results as `{"tool_calls":[…]}` / `{"tool_results":[…]}`.
    pub wrap: bool,
    /// API targets: tool names `server.method` written `server__method`
    /// (`--rename-tools dots`).
    pub rename_dots: bool,
}

/// The formats whose messages share OpenAI's shape: fields kept in `extra` by one are
/// written back by the others.
pub fn family(f: Format) -> Format {
    match f {
        Format::Xml | Format::MandrakeJson | Format::Openai => Format::Openai,
        other => other,
    }
}

/// Writes `t` as `to`.
pub fn write(t: &Transcript, to: Format, options: WriteOptions, notes: &mut Notes) -> J {
    match to {
        Format::Json => super::canonical::write(t),
        Format::Openai => openai(t, notes),
        Format::Anthropic => anthropic(t, notes),
        Format::Gemini => super::gemini::write(t, notes),
        Format::Responses => crate::formats::responses::write(t, notes),
        Format::Xml | Format::MandrakeJson => mandrake(t, to, options, notes),
    }
}

/// Whether fields kept from the source can be written back in `to`.
fn same_family(t: &Transcript, to: Format) -> bool {
    t.source.is_some_and(|s| family(s) == family(to))
}

/// A document with its messages under `key`, or the bare array when the source was one.
fn document(t: &Transcript, key: &str, messages: Vec<J>, to: Format, notes: &mut Notes) -> J {
    if t.bare && t.extra.is_empty() {
        return J::Arr(messages);
    }
    let mut doc = J::obj().with(key, J::Arr(messages));
    keep_extra(&mut doc, &t.extra, t, to, notes, "top-level fields");
    doc
}

/// Top-level request fields that mean the same in OpenAI, Anthropic and Responses.
const PORTABLE: &[&str] = &["model", "temperature", "top_p", "metadata", "stream"];

/// Writes `extra` back when the target is of the source's family; else notes it.
pub fn keep_extra(
    j: &mut J,
    extra: &[(String, Raw)],
    t: &Transcript,
    to: Format,
    notes: &mut Notes,
    what: &str,
) {
    if extra.is_empty() {
        return;
    }
    if same_family(t, to) && !super::request::is_api(to) {
        j.push_extra(extra);
    } else if same_family(t, to) {
        // A request takes back only the fields its API knows there.
        // A null is not a value the request's field takes (`"user": null`).
        let (kept, dropped): (Vec<_>, Vec<_>) = extra
            .iter()
            .filter(|(k, _)| !j.has(k))
            .cloned()
            .partition(|(k, v)| super::request::accepted(to, what, k) && v.as_str() != "null");
        j.push_extra(&kept);
        if !dropped.is_empty() {
            notes.dropped(what, dropped.iter().map(|(k, _)| k.as_str()));
        }
    } else {
        // A few request fields mean the same in every API that has them.
        let portable: Vec<(String, Raw)> = extra
            .iter()
            .filter(|(k, _)| {
                what == "top-level fields"
                    && !matches!(to, Format::Gemini | Format::Json)
                    && PORTABLE.contains(&k.as_str())
            })
            .cloned()
            .collect();
        j.push_extra(&portable);
        let extra: Vec<&(String, Raw)> = extra
            .iter()
            .filter(|(k, _)| !portable.iter().any(|(p, _)| p == k))
            .collect();
        if extra.is_empty() {
            return;
        }
        notes.dropped(what, extra.iter().map(|(k, _)| k.as_str()));
    }
}

/// A result's content as a string (targets whose results are text).
fn content_string(r: &ResultPart) -> String {
    r.content.as_string().unwrap_or_else(|| r.content.0.clone())
}

fn role_name(m: &Message, t: &Transcript, to: Format) -> String {
    match &m.role_as_written {
        Some(r) if same_family(t, to) => r.clone(),
        _ => m.role.name().to_owned(),
    }
}

fn openai(t: &Transcript, notes: &mut Notes) -> J {
    let to = Format::Openai;
    let mut out: Vec<J> = Vec::new();
    for m in &t.messages {
        let role = role_name(m, t, to);
        let mut current: Option<OpenaiMessage> = None;
        let flush = |current: &mut Option<OpenaiMessage>, out: &mut Vec<J>, notes: &mut Notes| {
            if let Some(c) = current.take() {
                out.push(c.finish(m, t, notes));
            }
        };
        for p in &m.parts {
            match p {
                Part::Result(r) => {
                    flush(&mut current, &mut out, notes);
                    let mut j = J::obj().with("role", J::str("tool"));
                    j.push_some("tool_call_id", r.call_id.as_deref().map(J::str));
                    j.push("content", openai_content(r));
                    if r.is_error {
                        notes.add(
                            "results marked as errors: OpenAI has no error flag on a tool message",
                        );
                    }
                    if m.role == Role::Tool {
                        keep_extra(&mut j, &m.extra, t, to, notes, "tool message fields");
                    }
                    out.push(j);
                }
                Part::Call(c) => {
                    let cur = current.get_or_insert_with(|| OpenaiMessage::new(&role));
                    cur.calls.push(openai_call(c, t, notes));
                }
                Part::Text(text) => {
                    // Text after calls stays in their message: a message between the
                    // calls and their tool messages is refused. (Content goes before
                    // the calls there; the text of the role keeps its order.)
                    let cur = current.get_or_insert_with(|| OpenaiMessage::new(&role));
                    cur.blocks
                        .push(text_block(&text.text, &text.extra, t, to, notes));
                    cur.plain &= text.extra.is_empty();
                }
                // Not written: see `request::prepare`.
                Part::Reasoning(_) => {}
                Part::Block(raw) => {
                    let cur = current.get_or_insert_with(|| OpenaiMessage::new(&role));
                    if same_family(t, to) {
                        cur.blocks.push(J::Raw(raw.clone()));
                        cur.plain = false;
                    } else {
                        notes.add("content blocks other than text (images, documents) not written: kept only by --to json");
                    }
                }
            }
        }
        if current.is_none() && !m.parts.iter().any(|p| matches!(p, Part::Result(_))) {
            current = Some(OpenaiMessage::new(&role));
        }
        flush(&mut current, &mut out, notes);
    }
    document(t, "messages", out, to, notes)
}

fn text_block(
    text: &str,
    extra: &[(String, Raw)],
    t: &Transcript,
    to: Format,
    notes: &mut Notes,
) -> J {
    let mut j = J::obj()
        .with("type", J::str("text"))
        .with("text", J::str(text));
    keep_extra(&mut j, extra, t, to, notes, "content block fields");
    j
}

/// One OpenAI message being built.
struct OpenaiMessage {
    role: String,
    blocks: Vec<J>,
    /// Every block is plain text: the content is written as one string.
    plain: bool,
    calls: Vec<J>,
}

impl OpenaiMessage {
    fn new(role: &str) -> OpenaiMessage {
        OpenaiMessage {
            role: role.to_owned(),
            blocks: Vec::new(),
            plain: true,
            calls: Vec::new(),
        }
    }

    fn finish(self, m: &Message, t: &Transcript, notes: &mut Notes) -> J {
        let mut j = J::obj().with("role", J::str(&self.role));
        let content = if self.plain {
            let mut s = String::new();
            for b in &self.blocks {
                if let J::Obj(members) = b
                    && let Some((_, J::Str(text))) = members.iter().find(|(k, _)| k == "text")
                {
                    s.push_str(text);
                }
            }
            if s.is_empty() && !self.calls.is_empty() {
                J::Null
            } else {
                J::Str(s)
            }
        } else {
            J::Arr(self.blocks)
        };
        j.push("content", content);
        if !self.calls.is_empty() {
            j.push("tool_calls", J::Arr(self.calls));
        }
        keep_extra(&mut j, &m.extra, t, Format::Openai, notes, "message fields");
        j
    }
}

fn openai_call(c: &CallPart, t: &Transcript, notes: &mut Notes) -> J {
    // A custom tool's call read from OpenAI goes back as one: its text input.
    let custom = c
        .extra
        .iter()
        .any(|(k, v)| k == "type" && v.as_str() == "\"custom\"");
    if custom
        && same_family(t, Format::Openai)
        && c.arguments_raw.is_none()
        && let serde_json::Value::Object(mut o) = c.arguments.value()
        && o.len() == 1
        && let Some(serde_json::Value::String(input)) = o.remove("input")
    {
        let mut j = J::obj();
        j.push_some("id", c.id.as_deref().map(J::str));
        j.push("type", J::str("custom"));
        j.push(
            "custom",
            J::obj()
                .with("name", J::str(&c.name))
                .with("input", J::str(input)),
        );
        return j;
    }
    let mut function = J::obj().with("name", J::str(&c.name));
    function.push("arguments", J::str(c.arguments_text()));
    let mut j = J::obj();
    j.push_some("id", c.id.as_deref().map(J::str));
    j.push("type", J::str("function"));
    j.push("function", function);
    keep_extra(&mut j, &c.extra, t, Format::Openai, notes, "call fields");
    if c.namespace.is_some() && !c.name.contains('.') {
        notes.add("call namespaces not written: OpenAI has no field for them");
    }
    j
}

/// A tool message's content: a string, or text parts; other JSON as its text.
fn openai_content(r: &ResultPart) -> J {
    let v = r.content.as_str().trim_start();
    if v.starts_with('"') || (v.starts_with('[') && is_text_blocks(&r.content)) {
        J::Raw(r.content.clone())
    } else {
        J::Str(content_string(r))
    }
}

/// Content blocks that are all `{"type":"text","text":…}`.
fn is_text_blocks(raw: &Raw) -> bool {
    match raw.value() {
        serde_json::Value::Array(items) => items.iter().all(|b| {
            b.get("type").is_some_and(|t| t == "text")
                && b.get("text").is_some_and(|t| t.is_string())
        }),
        _ => false,
    }
}

fn anthropic(t: &Transcript, notes: &mut Notes) -> J {
    let to = Format::Anthropic;
    let mut system: Vec<J> = Vec::new();
    let mut system_plain = true;
    // (role, blocks) of the messages written so far.
    let mut out: Grouped = Vec::new();
    for m in &t.messages {
        if m.role == Role::System {
            for p in &m.parts {
                match p {
                    Part::Text(text) => {
                        system_plain &= text.extra.is_empty();
                        system.push(text_block(&text.text, &text.extra, t, to, notes));
                    }
                    Part::Block(raw) if same_family(t, to) => {
                        system_plain = false;
                        system.push(J::Raw(raw.clone()));
                    }
                    _ => notes.add("system prompt parts other than text not written"),
                }
            }
            if !m.extra.is_empty() {
                keep_extra(
                    &mut J::obj(),
                    &m.extra,
                    t,
                    to,
                    notes,
                    "system message fields",
                );
            }
            continue;
        }
        let mut role = if m.role == Role::Assistant {
            "assistant"
        } else {
            "user"
        };
        let mut blocks: Vec<J> = Vec::new();
        let own = role;
        for p in &m.parts {
            // Text after the results a message held is the message's own again.
            if !matches!(p, Part::Call(_) | Part::Result(_)) && role != own {
                push_grouped(role, "user", &mut blocks, &mut out, m);
                role = own;
            }
            match p {
                Part::Text(text) => blocks.push(text_block(&text.text, &text.extra, t, to, notes)),
                Part::Reasoning(r) => {
                    let mut j = J::obj()
                        .with("type", J::str("thinking"))
                        .with("thinking", J::str(&r.text));
                    if same_family(t, to) {
                        keep_extra(&mut j, &r.extra, t, to, notes, "reasoning fields");
                    }
                    blocks.push(j);
                }
                Part::Call(c) => {
                    if role != "assistant" {
                        push_grouped(role, "user", &mut blocks, &mut out, m);
                        role = "assistant";
                    }
                    // A server tool's call read from Anthropic goes back as one.
                    let server = same_family(t, to)
                        && c.extra
                            .iter()
                            .any(|(k, v)| k == "type" && v.as_str() == "\"server_tool_use\"");
                    let kind = if server {
                        "server_tool_use"
                    } else {
                        "tool_use"
                    };
                    let mut j = J::obj().with("type", J::str(kind));
                    j.push_some("id", c.id.as_deref().map(J::str));
                    j.push("name", J::str(&c.name));
                    j.push("input", J::Raw(c.arguments.clone()));
                    if c.arguments_lost() {
                        notes.add("arguments that are not a JSON object written as {}: Anthropic's input is an object");
                    }
                    keep_extra(&mut j, &c.extra, t, to, notes, "call fields");
                    blocks.push(j);
                }
                Part::Result(r) => {
                    if role != "user" {
                        push_grouped(role, "user", &mut blocks, &mut out, m);
                        role = "user";
                    }
                    let mut j = J::obj().with("type", J::str("tool_result"));
                    j.push_some("tool_use_id", r.call_id.as_deref().map(J::str));
                    j.push("content", anthropic_result_content(r));
                    if r.is_error {
                        j.push("is_error", J::Bool(true));
                    }
                    keep_extra(&mut j, &r.extra, t, to, notes, "result fields");
                    blocks.push(j);
                }
                Part::Block(raw) => {
                    if same_family(t, to) {
                        blocks.push(J::Raw(raw.clone()));
                    } else {
                        notes.add("content blocks other than text (images, documents) not written: kept only by --to json");
                    }
                }
            }
        }
        if blocks.is_empty() && m.parts.is_empty() {
            blocks.push(text_block("", &[], t, to, notes));
        }
        push_grouped(role, "user", &mut blocks, &mut out, m);
    }
    let messages: Vec<J> = alternate(out)
        .into_iter()
        .map(|(role, blocks, m)| {
            let plain = blocks.len() == 1
                && matches!(&blocks[0], J::Obj(members) if members.len() == 2 && members[0].1.is_str("text"));
            let content = if plain {
                match &blocks[0] {
                    J::Obj(members) => members[1].1.clone(),
                    _ => unreachable!("checked above"),
                }
            } else {
                J::Arr(blocks)
            };
            let mut j = J::obj().with("role", J::str(role)).with("content", content);
            if let Some(m) = m {
                keep_extra(&mut j, &m.extra, t, to, notes, "message fields");
            }
            j
        })
        .collect();
    if t.bare && system.is_empty() && t.extra.is_empty() {
        return J::Arr(messages);
    }
    let mut doc = J::obj();
    if !system.is_empty() {
        let value = if system_plain {
            let mut s = String::new();
            for b in &system {
                if let J::Obj(members) = b
                    && let Some((_, J::Str(text))) = members.iter().find(|(k, _)| k == "text")
                {
                    s.push_str(text);
                }
            }
            J::Str(s)
        } else {
            J::Arr(system)
        };
        doc.push("system", value);
    }
    doc.push("messages", J::Arr(messages));
    keep_extra(&mut doc, &t.extra, t, to, notes, "top-level fields");
    doc
}

/// Anthropic's roles alternate: consecutive messages of one role are one message (the
/// first one's fields kept), and in a user message the `tool_result` blocks come first.
fn alternate(grouped: Grouped) -> Grouped {
    let mut out: Grouped = Vec::with_capacity(grouped.len());
    for (role, blocks, m) in grouped {
        match out.last_mut() {
            Some((last, into, _)) if *last == role => into.extend(blocks),
            _ => out.push((role, blocks, m)),
        }
    }
    for (role, blocks, _) in &mut out {
        if role == "user" {
            let is_result = |b: &J| matches!(b, J::Obj(members) if members.first().is_some_and(|(k, v)| k == "type" && v.is_str("tool_result")));
            let (results, rest): (Vec<J>, Vec<J>) =
                std::mem::take(blocks).into_iter().partition(is_result);
            blocks.extend(results);
            blocks.extend(rest);
        }
    }
    out
}

/// A `tool_result`'s content: a string, or content blocks, every text block typed
/// (Bedrock's and Gemini's `{"text": …}` parts become `{"type": "text", …}`); other
/// JSON as its text.
fn anthropic_result_content(r: &ResultPart) -> J {
    let c = r.content.as_str().trim_start();
    if c.starts_with('"') {
        return J::Raw(r.content.clone());
    }
    if let serde_json::Value::Array(items) = r.content.value()
        && !items.is_empty()
    {
        let typed = items.iter().all(|b| {
            b.get("type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| matches!(t, "text" | "image" | "document" | "search_result"))
        });
        if typed {
            return J::Raw(r.content.clone());
        }
        let texts: Option<Vec<J>> = items
            .iter()
            .map(|b| {
                let text = b.get("text")?.as_str()?;
                b.get("type").is_none_or(|t| t == "text").then(|| {
                    J::obj()
                        .with("type", J::str("text"))
                        .with("text", J::str(text))
                })
            })
            .collect();
        if let Some(texts) = texts {
            return J::Arr(texts);
        }
    }
    J::Str(content_string(r))
}

/// Messages being built: role, blocks, and the message whose fields they carry.
pub(super) type Grouped<'m> = Vec<(String, Vec<J>, Option<&'m Message>)>;

/// Ends a run of blocks as a message of `role`; blocks for `joins` (the role results
/// go to) join a message of that role right before them.
pub(super) fn push_grouped<'m>(
    role: &str,
    joins: &str,
    blocks: &mut Vec<J>,
    out: &mut Grouped<'m>,
    m: &'m Message,
) {
    if blocks.is_empty() {
        return;
    }
    match out.last_mut() {
        Some((r, b, _)) if r == role && role == joins => b.append(blocks),
        _ => out.push((role.to_owned(), std::mem::take(blocks), Some(m))),
    }
}

/// The Mandrake layout: OpenAI-style messages whose text holds calls and results,
/// written as XML (`xml`) or JSON (`mandrake-json`); a model's turn and the results it
/// got are one assistant message, as Mandrake assembled them.
fn mandrake(t: &Transcript, to: Format, options: WriteOptions, notes: &mut Notes) -> J {
    let mut out: Vec<J> = Vec::new();
    let mut assistant: Option<(String, String, &Message)> = None;
    let flush = |assistant: &mut Option<(String, String, &Message)>,
                 out: &mut Vec<J>,
                 notes: &mut Notes| {
        if let Some((content, reasoning, m)) = assistant.take() {
            let mut j = J::obj()
                .with("role", J::str("assistant"))
                .with("content", J::Str(content));
            if !reasoning.is_empty() {
                j.push("reasoning_content", J::Str(reasoning));
            }
            keep_extra(&mut j, &m.extra, t, to, notes, "message fields");
            out.push(j);
        }
    };
    // Results carry no call id here: a run of them is written in the order of the calls
    // they answer, so that each answers the call before it when read back.
    let order: std::collections::HashMap<&str, usize> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => c.id.as_deref(),
            _ => None,
        })
        .enumerate()
        .map(|(i, id)| (id, i))
        .collect();
    let rank = |r: &ResultPart| {
        r.call_id
            .as_deref()
            .and_then(|id| order.get(id))
            .copied()
            .unwrap_or(usize::MAX)
    };
    // The last message joined to the model's turn held only results: a model message
    // after it continues the turn, as Mandrake wrote a turn and its results.
    let mut after_results = false;
    for m in &t.messages {
        let only_results = m.parts.iter().all(|p| {
            matches!(p, Part::Result(_)) || matches!(p, Part::Text(x) if x.text.trim().is_empty())
        }) && m.parts.iter().any(|p| matches!(p, Part::Result(_)));
        if m.role == Role::Assistant && assistant.is_some() && !after_results {
            flush(&mut assistant, &mut out, notes);
        }
        if m.role == Role::Assistant
            || (m.role != Role::System && only_results && assistant.is_some())
        {
            after_results = m.role != Role::Assistant;
            let entry = assistant.get_or_insert_with(|| (String::new(), String::new(), m));
            if only_results && m.role != Role::Assistant {
                let mut results: Vec<&ResultPart> = m
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Result(r) => Some(r),
                        _ => None,
                    })
                    .collect();
                results.sort_by_key(|r| rank(r));
                for r in results {
                    entry.0.push_str(&mandrake_result(r, to, options));
                }
                continue;
            }
            for p in &m.parts {
                match p {
                    Part::Text(x) => entry.0.push_str(&x.text),
                    Part::Reasoning(r) => entry.1.push_str(&r.text),
                    Part::Call(c) => entry.0.push_str(&mandrake_call(c, to, options)),
                    Part::Result(r) => entry.0.push_str(&mandrake_result(r, to, options)),
                    Part::Block(_) => notes.add("content blocks other than text (images, documents) not written: kept only by --to json"),
                }
            }
            continue;
        }
        let mut content = String::new();
        let mut results = String::new();
        for p in &m.parts {
            match p {
                Part::Text(x) => content.push_str(&x.text),
                Part::Reasoning(r) => content.push_str(&r.text),
                Part::Result(r) => results.push_str(&mandrake_result(r, to, options)),
                Part::Call(c) => content.push_str(&mandrake_call(c, to, options)),
                Part::Block(_) => notes.add("content blocks other than text (images, documents) not written: kept only by --to json"),
            }
        }
        after_results = false;
        // Results join the model's turn before them, as Mandrake wrote them.
        if let Some(entry) = assistant.as_mut().filter(|_| m.role != Role::System) {
            entry.0.push_str(&results);
            results.clear();
        }
        flush(&mut assistant, &mut out, notes);
        if !results.is_empty() {
            // Results with no model turn before them: a message of their own.
            out.push(
                J::obj()
                    .with("role", J::str("assistant"))
                    .with("content", J::Str(results)),
            );
            notes.add("results with no model turn before them written as an assistant message");
        }
        if !content.is_empty() || m.parts.iter().all(|p| matches!(p, Part::Text(_))) {
            let mut j = J::obj()
                .with("role", J::str(role_name(m, t, to)))
                .with("content", J::Str(content));
            keep_extra(&mut j, &m.extra, t, to, notes, "message fields");
            out.push(j);
        }
    }
    flush(&mut assistant, &mut out, notes);
    document(t, "messages", out, to, notes)
}

/// `server.method` split for Mandrake: the namespace when the name starts with it,
/// else the one dot of the name; no server when there is none.
fn server_method(c: &CallPart) -> (Option<&str>, &str) {
    if let Some(ns) = &c.namespace
        && let Some(method) = c
            .name
            .strip_prefix(ns.as_str())
            .and_then(|r| r.strip_prefix('.'))
    {
        return (Some(ns), method);
    }
    match c.name.split_once('.') {
        Some((s, m)) if !s.is_empty() && !m.is_empty() => (Some(s), m),
        _ => (None, &c.name),
    }
}

fn pretty(raw: &Raw) -> String {
    J::Raw(raw.clone()).render(true)
}

fn mandrake_call(c: &CallPart, to: Format, options: WriteOptions) -> String {
    let dialect = match to {
        Format::Xml => crate::dialects::mandrake_xml::NAME,
        _ => "mandrake-json",
    };
    if let Some(w) = &c.written
        && w.dialect == dialect
    {
        return w.text.clone();
    }
    if to == Format::Xml {
        let (server, method) = server_method(c);
        let mut s = String::from("<tool_call>\n");
        if let Some(server) = server {
            s.push_str(&format!("<server>{server}</server>\n"));
        }
        // Mandrake's XML holds raw text: arguments that are not an object stay as written.
        let arguments = match &c.arguments_raw {
            Some(raw) => raw.clone(),
            None => pretty(&c.arguments),
        };
        s.push_str(&format!(
            "<method>{method}</method>\n<description></description>\n<arguments>\n{arguments}\n</arguments>\n</tool_call>"
        ));
        return s;
    }
    let call = J::obj()
        .with("name", J::str(&c.name))
        .with("arguments", J::Raw(c.arguments.clone()));
    let j = if options.wrap {
        J::obj().with("tool_calls", J::Arr(vec![call]))
    } else {
        call
    };
    j.render(true)
}

fn mandrake_result(r: &ResultPart, to: Format, options: WriteOptions) -> String {
    let dialect = match to {
        Format::Xml => super::results::MANDRAKE,
        _ => super::results::MANDRAKE_JSON,
    };
    if let Some(w) = &r.written
        && w.dialect == dialect
    {
        return w.text.clone();
    }
    // An error's message: `{"error": msg}` as Mandrake's XML held it, or the text.
    let message = || match r.content.value() {
        serde_json::Value::Object(o)
            if o.len() == 1 && o.get("error").is_some_and(|e| e.is_string()) =>
        {
            o["error"].as_str().unwrap_or_default().to_owned()
        }
        _ => r.content_text(),
    };
    if to == Format::Xml {
        if r.is_error {
            let error = match r.content.value() {
                serde_json::Value::Object(o) if o.contains_key("error") => pretty(&r.content),
                _ => J::obj().with("error", J::str(message())).render(true),
            };
            return format!("<tool_result>\n<error>\n{error}\n</error>\n</tool_result>");
        }
        // Mandrake's results are JSON: a result held as JSON text is written as that JSON.
        let content = match r.content.as_string() {
            Some(s)
                if s.trim_start().starts_with(['{', '['])
                    && serde_json::from_str::<serde::de::IgnoredAny>(&s).is_ok() =>
            {
                pretty(&Raw::new(s.trim()))
            }
            _ => pretty(&r.content),
        };
        return format!("<tool_result>\n<result>\n{content}\n</result>\n</tool_result>");
    }
    let mut j = J::obj().with("name", J::str(r.name.as_deref().unwrap_or_default()));
    if r.is_error {
        j.push("error", J::str(message()));
    } else {
        j.push("content", J::Raw(r.content.clone()));
    }
    let j = if options.wrap {
        J::obj().with("tool_results", J::Arr(vec![j]))
    } else {
        j
    };
    j.render(true)
}
