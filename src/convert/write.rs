//! From a [`Transcript`] to each target's document: the writer for each target (the
//! provider formats' are in [`crate::formats`]), the Mandrake writers, and what every
//! writer shares. What a target cannot hold is kept where it can be (a text part, a
//! field the target ignores) and named in the writer's notes, which `convert` prints
//! once per file and `--verify` reports.

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
    /// API targets: how tool names the API refuses are renamed (`--rename-tools`).
    pub rename: Option<super::request::Rename>,
    /// API targets: what is written for a native call that no result answers
    /// (`--unanswered`).
    pub unanswered: super::request::Unanswered,
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
        Format::Openai => crate::formats::openai::write(t, notes),
        Format::Anthropic => crate::formats::anthropic::write(t, notes),
        Format::Gemini => crate::formats::gemini::write(t, notes),
        Format::Responses => crate::formats::responses::write(t, notes),
        Format::Xml | Format::MandrakeJson => mandrake(t, to, options, notes),
    }
}

/// Whether fields kept from the source can be written back in `to`.
pub(crate) fn same_family(t: &Transcript, to: Format) -> bool {
    t.source.is_some_and(|s| family(s) == family(to))
}

/// A document with its messages under `key`, or the bare array when the source was one.
pub(crate) fn document(
    t: &Transcript,
    key: &str,
    messages: Vec<J>,
    to: Format,
    notes: &mut Notes,
) -> J {
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
pub(crate) fn content_string(r: &ResultPart) -> String {
    r.content.as_string().unwrap_or_else(|| r.content.0.clone())
}

pub(crate) fn role_name(m: &Message, t: &Transcript, to: Format) -> String {
    match &m.role_as_written {
        Some(r) if same_family(t, to) => r.clone(),
        _ => m.role.name().to_owned(),
    }
}

pub(crate) fn text_block(
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

/// Messages being built: role, blocks, and the message whose fields they carry.
pub(crate) type Grouped<'m> = Vec<(String, Vec<J>, Option<&'m Message>)>;

/// Ends a run of blocks as a message of `role`; blocks for `joins` (the role results
/// go to) join a message of that role right before them.
pub(crate) fn push_grouped<'m>(
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
