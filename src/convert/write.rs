//! From a [`Transcript`] to each target's document: the writer for each target (the
//! provider formats' are in [`crate::formats`]), the Mandrake writers, and what every
//! writer shares. What a target cannot hold is kept where it can be (a text part, a
//! field the target ignores) and named in the writer's notes, which `convert` prints
//! once per file and `--verify` reports.

use super::emit::J;
use super::encode::{Notes, document, keep_extra, role_name};
use super::model::{CallPart, Format, Message, Part, Raw, ResultPart, Role, Transcript};
use super::request::WriteOptions;

/// Writes `t` as `to`.
pub(crate) fn write(t: &Transcript, to: Format, options: WriteOptions, notes: &mut Notes) -> J {
    match to {
        Format::Json => super::canonical::write(t),
        Format::Openai => crate::formats::openai::write(t, notes),
        Format::Anthropic => crate::formats::anthropic::write(t, notes),
        Format::Gemini => crate::formats::gemini::write(t, notes),
        Format::Responses => crate::formats::responses::write(t, notes),
        Format::Xml | Format::MandrakeJson => mandrake(t, to, options, notes),
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
