//! What an API target needs before it is written: the transcript changed the least way
//! that its API accepts, every change named in the notes (`verify: not carried over`).
//! `--verify` compares the output with the prepared transcript, so it checks the
//! writer; what preparing changed is said here, once per file.
//!
//! - A call that no result answers, before the model's last turn, cannot be sent (each
//!   API wants a result for every call but the last turn's): a call read from text is
//!   written back as the text it was.
//! - Text that is only white space beside calls and results, and messages left empty,
//!   are not written (Anthropic and Gemini refuse empty and blank text).
//! - Anthropic: ids outside `[a-zA-Z0-9_-]` are mapped, the same on the call and its
//!   results; a final assistant message does not end with white space.

use super::model::{Format, Part, Role, TextPart, Transcript};
use super::write::{Notes, WriteOptions};
use std::collections::{HashMap, HashSet};

/// The fields read from a source that a target's request takes back, by what holds
/// them (the `what` of `write::keep_extra`); any other field of the source is not
/// written and is named in the notes. `tests/api_schemas.rs` checks every row against
/// the providers' published schemas (`fixtures/api-schemas/`).
pub const ACCEPTED: &[(Format, &str, &[&str])] = &[
    (
        Format::Openai,
        "top-level fields",
        &[
            "audio",
            "frequency_penalty",
            "function_call",
            "functions",
            "logit_bias",
            "logprobs",
            "max_completion_tokens",
            "max_tokens",
            "metadata",
            "modalities",
            "model",
            "n",
            "parallel_tool_calls",
            "prediction",
            "presence_penalty",
            "prompt_cache_key",
            "reasoning_effort",
            "response_format",
            "safety_identifier",
            "seed",
            "stop",
            "store",
            "stream",
            "stream_options",
            "temperature",
            "tool_choice",
            "tools",
            "top_logprobs",
            "top_p",
            "user",
            "verbosity",
            "web_search_options",
        ],
    ),
    (Format::Openai, "message fields", &["name"]),
    (Format::Openai, "tool message fields", &[]),
    (Format::Openai, "call fields", &[]),
    (Format::Openai, "content block fields", &[]),
    (
        Format::Anthropic,
        "top-level fields",
        &[
            "cache_control",
            "container",
            "max_tokens",
            "metadata",
            "model",
            "stop_sequences",
            "stream",
            "temperature",
            "thinking",
            "tool_choice",
            "tools",
            "top_k",
            "top_p",
        ],
    ),
    (Format::Anthropic, "message fields", &[]),
    (
        Format::Anthropic,
        "content block fields",
        &["cache_control", "citations"],
    ),
    (
        Format::Anthropic,
        "call fields",
        &["cache_control", "caller"],
    ),
    (Format::Anthropic, "result fields", &["cache_control"]),
    (Format::Anthropic, "reasoning fields", &["signature"]),
    (
        Format::Gemini,
        "top-level fields",
        &[
            "cachedContent",
            "generationConfig",
            "safetySettings",
            "toolConfig",
            "tools",
        ],
    ),
    (Format::Gemini, "message fields", &[]),
    (
        Format::Gemini,
        "part fields",
        &[
            "thought",
            "thoughtSignature",
            "videoMetadata",
            "mediaResolution",
        ],
    ),
    (Format::Gemini, "reasoning fields", &["thoughtSignature"]),
    (Format::Gemini, "call fields", &["thoughtSignature"]),
    (Format::Gemini, "result fields", &[]),
    (
        Format::Responses,
        "top-level fields",
        &[
            "background",
            "include",
            "instructions",
            "max_output_tokens",
            "max_tool_calls",
            "metadata",
            "model",
            "parallel_tool_calls",
            "previous_response_id",
            "prompt",
            "prompt_cache_key",
            "reasoning",
            "safety_identifier",
            "store",
            "stream",
            "stream_options",
            "temperature",
            "text",
            "tool_choice",
            "tools",
            "top_logprobs",
            "top_p",
            "truncation",
            "user",
        ],
    ),
    (Format::Responses, "message fields", &[]),
    (Format::Responses, "content fields", &[]),
    (
        Format::Responses,
        "reasoning fields",
        &["encrypted_content", "status", "content"],
    ),
    (
        Format::Responses,
        "call fields",
        &["id", "status", "namespace"],
    ),
    (Format::Responses, "result fields", &["id", "status"]),
    (
        Format::Responses,
        "custom call fields",
        &["id", "namespace"],
    ),
    (Format::Responses, "custom result fields", &["id"]),
];

/// Whether a request of `to` takes a source field `key` held by `what`.
pub fn accepted(to: Format, what: &str, key: &str) -> bool {
    ACCEPTED
        .iter()
        .any(|(f, w, keys)| *f == to && *w == what && keys.contains(&key))
}

/// Whether `to` is an API request (the targets `prepare` changes anything for).
pub fn is_api(to: Format) -> bool {
    matches!(
        to,
        Format::Openai | Format::Anthropic | Format::Gemini | Format::Responses
    )
}

/// The transcript as `to` can take it; `t` unchanged for the other targets.
pub fn prepare(t: &Transcript, to: Format, options: WriteOptions, notes: &mut Notes) -> Transcript {
    let mut t = t.clone();
    if !is_api(to) {
        return t;
    }
    sidechains(&mut t, notes);
    reasoning(&mut t, to, notes);
    result_names(&mut t);
    unanswered_calls_as_text(&mut t, notes);
    blank_text(&mut t, to, notes);
    if options.rename_dots {
        rename_dots(&mut t, notes);
    } else if to == Format::Anthropic {
        names_refused(&t, notes);
    }
    if to == Format::Anthropic {
        anthropic_ids(&mut t, notes);
        final_white_space(&mut t, notes);
    }
    if to == Format::Responses {
        open_calls_last(&mut t, notes);
    }
    t
}

/// `--rename-tools dots`: `server.method` becomes `server__method` on every call and
/// result. Not done when a name already holds `__` (the renaming could not be undone).
fn rename_dots(t: &mut Transcript, notes: &mut Notes) {
    let names = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => Some(c.name.as_str()),
            Part::Result(r) => r.name.as_deref(),
            _ => None,
        });
    let (mut dotted, mut clash) = (std::collections::BTreeSet::new(), None);
    for name in names {
        if name.contains("__") {
            clash.get_or_insert_with(|| name.to_owned());
        }
        if name.contains('.') {
            dotted.insert(name.to_owned());
        }
    }
    if dotted.is_empty() {
        return;
    }
    if let Some(name) = clash {
        notes.add(format!(
            "tool names not renamed: {name} already holds \"__\", so --rename-tools dots could not be undone"
        ));
        return;
    }
    for p in t.messages.iter_mut().flat_map(|m| &mut m.parts) {
        match p {
            Part::Call(c) => c.name = c.name.replace('.', "__"),
            Part::Result(r) => r.name = r.name.as_ref().map(|n| n.replace('.', "__")),
            _ => {}
        }
    }
    let shown: Vec<String> = dotted
        .iter()
        .take(3)
        .map(|n| format!("{n} -> {}", n.replace('.', "__")))
        .collect();
    let more = if dotted.len() > 3 { ", …" } else { "" };
    notes.add(format!(
        "{} renamed by --rename-tools dots ({}{more}); `.` is `__` in every name",
        plural(dotted.len(), "tool name", "tool names"),
        shown.join(", ")
    ));
}

/// Anthropic refuses tool names outside `[a-zA-Z0-9_-]{1,64}`: said once, with the way
/// to rename them.
fn names_refused(t: &Transcript, notes: &mut Notes) {
    let refused: std::collections::BTreeSet<&str> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) if !super::rules::anthropic_name(&c.name) => Some(c.name.as_str()),
            _ => None,
        })
        .collect();
    if let Some(first) = refused.first() {
        notes.add(format!(
            "{} Anthropic refuses (such as {first}): --rename-tools dots renames server.method to server__method",
            plural(refused.len(), "tool name", "tool names")
        ));
    }
}

/// Responses: the calls left open at the end are the last items; text the model wrote
/// after them in its last message goes before them (an item after a call must be its
/// output).
fn open_calls_last(t: &mut Transcript, notes: &mut Notes) {
    let Some(m) = t.messages.last_mut().filter(|m| m.role == Role::Assistant) else {
        return;
    };
    // The open calls are those after the message's last result.
    let from = m
        .parts
        .iter()
        .rposition(|p| matches!(p, Part::Result(_)))
        .map_or(0, |i| i + 1);
    let first_call = m.parts[from..]
        .iter()
        .position(|p| matches!(p, Part::Call(_)))
        .map(|i| i + from);
    let after =
        first_call.is_some_and(|i| m.parts[i..].iter().any(|p| !matches!(p, Part::Call(_))));
    if !after {
        return;
    }
    let tail = m.parts.split_off(from);
    let (calls, rest): (Vec<Part>, Vec<Part>) =
        tail.into_iter().partition(|p| matches!(p, Part::Call(_)));
    m.parts.extend(rest);
    m.parts.extend(calls);
    notes.add("text after the open calls of the last message written before them (an item after a call must be its output)");
}

/// Claude Code logs a subagent's conversation (`"isSidechain": true` lines) inside the
/// session, between the `Task` call and its result: another conversation, which a
/// request of this one cannot hold in its middle.
fn sidechains(t: &mut Transcript, notes: &mut Notes) {
    let side = |m: &super::model::Message| {
        m.extra
            .iter()
            .any(|(k, v)| k == "isSidechain" && v.as_str() == "true")
    };
    // A subagent's own log (`agent-*.jsonl`) is that conversation: kept whole.
    if t.messages.iter().all(side) {
        return;
    }
    let before = t.messages.len();
    t.messages.retain(|m| !side(m));
    let n = before - t.messages.len();
    if n > 0 {
        notes.add(format!(
            "{} of subagents' conversations (Claude Code sidechains) not written: they are other conversations (kept by --to json)",
            plural(n, "message", "messages")
        ));
    }
}

/// Reasoning a request can carry: none in a Chat Completions request (its
/// `reasoning_content` is a response field, refused in a request); in Anthropic's, only
/// thinking blocks with the signature Anthropic gave them; in Gemini's, thoughts with
/// text. Responses keeps every reasoning item (encrypted ones are sent back as they
/// were).
fn reasoning(t: &mut Transcript, to: Format, notes: &mut Notes) {
    let signed = |r: &TextPart| {
        t.source == Some(Format::Anthropic) && r.extra.iter().any(|(k, _)| k == "signature")
    };
    let keep: Vec<Vec<bool>> = t
        .messages
        .iter()
        .map(|m| {
            m.parts
                .iter()
                .map(|p| match p {
                    Part::Reasoning(r) => match to {
                        Format::Openai => false,
                        Format::Anthropic => signed(r),
                        Format::Gemini => !r.text.trim().is_empty(),
                        _ => true,
                    },
                    _ => true,
                })
                .collect()
        })
        .collect();
    let mut n = 0;
    for (m, keep) in t.messages.iter_mut().zip(keep) {
        let mut keep = keep.into_iter();
        let before = m.parts.len();
        m.parts.retain(|_| keep.next().unwrap_or(true));
        n += before - m.parts.len();
    }
    if n > 0 {
        let why = match to {
            Format::Openai => "a Chat Completions request has no field for reasoning",
            Format::Anthropic => "Anthropic takes back only the thinking it signed",
            _ => "a thought needs text",
        };
        notes.add(format!(
            "{} not written: {why} (kept by --to json)",
            plural(n, "reasoning part", "reasoning parts")
        ));
    }
}

/// A result is named as the call it answers (Gemini's `functionResponse` must name its
/// call).
fn result_names(t: &mut Transcript) {
    let names: HashMap<String, String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => Some((c.id.clone()?, c.name.clone())),
            _ => None,
        })
        .collect();
    for p in t.messages.iter_mut().flat_map(|m| &mut m.parts) {
        if let Part::Result(r) = p
            && let Some(name) = r.call_id.as_ref().and_then(|id| names.get(id))
            && r.name.as_ref() != Some(name)
        {
            // The call's own name (Anthropic's 2023 notebooks name another tool in
            // the result; `--to json` keeps that).
            r.name = Some(name.clone());
        }
    }
}

/// The index of the message whose calls may stay open: the last, when it is the
/// model's (a request that asks for the results' answer ends there; any message after
/// a call must hold its result).
fn last_turn(t: &Transcript) -> usize {
    match t.messages.last() {
        Some(m) if m.role == Role::Assistant => t.messages.len() - 1,
        _ => t.messages.len(),
    }
}

fn unanswered_calls_as_text(t: &mut Transcript, notes: &mut Notes) {
    let answered: HashSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Result(r) => r.call_id.clone(),
            _ => None,
        })
        .collect();
    let open_from = last_turn(t);
    let mut as_text = 0;
    let mut native = 0;
    for m in &mut t.messages[..open_from] {
        let mut parts = Vec::with_capacity(m.parts.len());
        // The last part is text that a call was joined to: the text after it joins too.
        let mut joined = false;
        for p in std::mem::take(&mut m.parts) {
            match p {
                Part::Call(c) if c.id.as_ref().is_none_or(|id| !answered.contains(id)) => {
                    match &c.written {
                        Some(w) => {
                            as_text += 1;
                            push_text(&mut parts, &w.text);
                            joined = true;
                        }
                        None => {
                            native += 1;
                            parts.push(Part::Call(c));
                            joined = false;
                        }
                    }
                }
                Part::Text(text) if joined && text.extra.is_empty() => {
                    push_text(&mut parts, &text.text);
                }
                p => {
                    parts.push(p);
                    joined = false;
                }
            }
        }
        m.parts = parts;
    }
    if as_text > 0 {
        notes.add(format!(
            "{} that no result answers, before the last message: written as the text they were (the API wants a result for each call)",
            plural(as_text, "call", "calls")
        ));
    }
    if native > 0 {
        notes.add(format!(
            "{} that no result answers, before the last message: the API will refuse the request",
            plural(native, "native call", "native calls")
        ));
    }
}

/// Appends text, joined to the text part before it.
fn push_text(parts: &mut Vec<Part>, text: &str) {
    if let Some(Part::Text(prev)) = parts.last_mut()
        && prev.extra.is_empty()
    {
        prev.text.push_str(text);
    } else {
        parts.push(Part::Text(TextPart::new(text)));
    }
}

fn blank(p: &Part) -> bool {
    matches!(p, Part::Text(t) if t.text.trim().is_empty() && t.extra.is_empty())
}

fn blank_text(t: &mut Transcript, to: Format, notes: &mut Notes) {
    let mut dropped = 0;
    let before = t.messages.len();
    for m in &mut t.messages {
        let others = m.parts.iter().any(|p| !matches!(p, Part::Text(_)));
        // Beside calls and results, blank text is layout; alone, Anthropic and Gemini
        // refuse it (OpenAI and Responses take it).
        if others || matches!(to, Format::Anthropic | Format::Gemini) {
            let n = m.parts.len();
            m.parts.retain(|p| !blank(p));
            dropped += n - m.parts.len();
        }
    }
    // A message left with nothing (its blank text, or reasoning the target cannot
    // hold, not written) is not written either.
    t.messages.retain(|m| !m.parts.is_empty());
    let empty = before - t.messages.len();
    if dropped > 0 {
        notes.add(format!(
            "{} that {} only white space not written (the API refuses blank text beside calls)",
            plural(dropped, "text part", "text parts"),
            if dropped == 1 { "is" } else { "are" }
        ));
    }
    if empty > 0 {
        notes.add(format!(
            "{} with no content not written (the API refuses empty messages)",
            plural(empty, "message", "messages")
        ));
    }
}

/// An id Anthropic takes: every character outside `[a-zA-Z0-9_-]` made `_`.
fn anthropic_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn anthropic_ids(t: &mut Transcript, notes: &mut Notes) {
    let mut used: HashSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => c.id.clone().filter(|id| super::rules::anthropic_id(id)),
            _ => None,
        })
        .collect();
    // Each call's id, in order (a result answers the last call before it of an id).
    let mut mapped: HashMap<String, String> = HashMap::new();
    let mut shown = Vec::new();
    let mut count = 0;
    for m in &mut t.messages {
        for p in &mut m.parts {
            match p {
                Part::Call(c) => {
                    let Some(id) = c.id.as_mut() else { continue };
                    if super::rules::anthropic_id(id) && !mapped.contains_key(id.as_str()) {
                        continue;
                    }
                    let mut new = anthropic_id(id);
                    if new.is_empty() {
                        new.push_str("call");
                    }
                    let base = new.clone();
                    let mut n = 2;
                    while used.contains(&new) {
                        new = format!("{base}_{n}");
                        n += 1;
                    }
                    used.insert(new.clone());
                    count += 1;
                    if shown.len() < 3 {
                        shown.push(format!("{id} -> {new}"));
                    }
                    mapped.insert(id.clone(), new.clone());
                    *id = new;
                }
                Part::Result(r) => {
                    if let Some(id) = r.call_id.as_mut()
                        && let Some(new) = mapped.get(id.as_str())
                    {
                        *id = new.clone();
                    }
                }
                _ => {}
            }
        }
    }
    if count > 0 {
        let more = if count > shown.len() { ", …" } else { "" };
        notes.add(format!(
            "{} mapped to Anthropic's alphabet [a-zA-Z0-9_-], on calls and results alike ({}{more})",
            plural(count, "call id", "call ids"),
            shown.join(", ")
        ));
    }
}

/// A final assistant message (a prefill) may not end with white space.
fn final_white_space(t: &mut Transcript, notes: &mut Notes) {
    let Some(m) = t.messages.last_mut().filter(|m| m.role == Role::Assistant) else {
        return;
    };
    if let Some(Part::Text(text)) = m.parts.last_mut() {
        let kept = text.text.trim_end().len();
        if kept < text.text.len() {
            text.text.truncate(kept);
            notes.add("white space at the end of the final assistant message not written (Anthropic refuses it)");
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    crate::diag::plural(n as u64, one, many)
}

#[cfg(test)]
mod tests {
    use super::super::model::{CallPart, Message, Raw, ResultPart, Written};
    use super::*;

    fn call(id: &str, written: bool) -> Part {
        let mut c = CallPart::new("f", Raw::empty_object());
        c.id = Some(id.into());
        if written {
            c.written = Some(Written {
                dialect: "hermes".into(),
                text: format!("<tool_call>{id}</tool_call>"),
            });
        }
        Part::Call(c)
    }

    fn result(id: &str) -> Part {
        let mut r = ResultPart::new(Raw::string("ok"));
        r.call_id = Some(id.into());
        Part::Result(r)
    }

    fn message(role: Role, parts: Vec<Part>) -> Message {
        let mut m = Message::new(role);
        m.parts = parts;
        m
    }

    /// `t` prepared for `to`, its notes left out.
    fn prepared(t: &Transcript, to: Format) -> Transcript {
        prepare(t, to, WriteOptions::default(), &mut Notes::default())
    }

    fn text(s: &str) -> Part {
        Part::Text(TextPart::new(s))
    }

    #[test]
    fn an_unanswered_call_before_the_last_turn_is_its_text_again() {
        let t = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                message(
                    Role::Assistant,
                    vec![text("a "), call("x", true), text(" b"), call("y", true)],
                ),
                message(Role::User, vec![result("y"), text("more")]),
                message(Role::Assistant, vec![call("z", true)]),
            ],
            ..Transcript::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Openai, WriteOptions::default(), &mut notes);
        assert_eq!(
            p.messages[1].parts,
            vec![text("a <tool_call>x</tool_call> b"), call("y", true)]
        );
        // The last turn's call stays open.
        assert_eq!(p.messages[3].parts, vec![call("z", true)]);
        assert_eq!(notes.lines().len(), 1);
        // The canonical target keeps everything.
        assert_eq!(prepared(&t, Format::Json), t);
    }

    #[test]
    fn blank_text_and_empty_messages_are_not_written_where_refused() {
        let t = Transcript {
            messages: vec![
                message(Role::User, vec![text("\n")]),
                message(Role::Assistant, vec![call("x", false), text("\n")]),
                message(Role::User, vec![result("x")]),
            ],
            ..Transcript::default()
        };
        let p = prepared(&t, Format::Anthropic);
        assert_eq!(p.messages.len(), 2);
        assert_eq!(p.messages[0].parts, vec![call("x", false)]);
        let p = prepared(&t, Format::Responses);
        assert_eq!(p.messages.len(), 3);
        assert_eq!(p.messages[0].parts, vec![text("\n")]);
    }

    #[test]
    fn anthropic_ids_are_mapped_on_calls_and_results_alike() {
        let t = Transcript {
            messages: vec![
                message(
                    Role::Assistant,
                    vec![call("functions.f:0", false), call("functions_f_0", false)],
                ),
                message(
                    Role::User,
                    vec![result("functions_f_0"), result("functions.f:0")],
                ),
                message(Role::Assistant, vec![text("done \n")]),
            ],
            ..Transcript::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, WriteOptions::default(), &mut notes);
        assert_eq!(p.messages[0].parts[0], call("functions_f_0_2", false));
        assert_eq!(p.messages[0].parts[1], call("functions_f_0", false));
        let answers: Vec<Option<&str>> = p.messages[1]
            .parts
            .iter()
            .map(|r| match r {
                Part::Result(r) => r.call_id.as_deref(),
                _ => None,
            })
            .collect();
        assert_eq!(answers, [Some("functions_f_0"), Some("functions_f_0_2")]);
        assert_eq!(p.messages[2].parts, vec![text("done")]);
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("functions.f:0 -> functions_f_0_2")),
            "{lines:?}"
        );
    }

    #[test]
    fn a_subagents_sidechain_is_not_written_in_the_middle_of_its_session() {
        let side = |role, parts| {
            let mut m = message(role, parts);
            m.extra = vec![("isSidechain".into(), Raw::new("true"))];
            m
        };
        let t = Transcript {
            messages: vec![
                message(Role::Assistant, vec![call("task", false)]),
                side(Role::User, vec![text("sub task")]),
                side(Role::Assistant, vec![text("done")]),
                message(Role::User, vec![result("task")]),
            ],
            ..Transcript::default()
        };
        let p = prepared(&t, Format::Anthropic);
        assert_eq!(p.messages.len(), 2);
        assert_eq!(p.messages[1].role, Role::User);
        // A subagent's own log is its conversation.
        let own = Transcript {
            messages: t.messages[1..3].to_vec(),
            ..Transcript::default()
        };
        let p = prepared(&own, Format::Anthropic);
        assert_eq!(p.messages.len(), 2);
    }

    #[test]
    fn a_request_takes_back_only_the_fields_its_api_knows_there() {
        assert!(accepted(Format::Openai, "message fields", "name"));
        assert!(!accepted(Format::Openai, "tool message fields", "name"));
        assert!(!accepted(Format::Anthropic, "message fields", "name"));
        assert!(accepted(Format::Anthropic, "reasoning fields", "signature"));
        assert!(accepted(Format::Responses, "call fields", "namespace"));
        assert!(!accepted(Format::Gemini, "call fields", "namespace"));
        assert!(!accepted(Format::Openai, "top-level fields", "usage"));
        assert!(accepted(Format::Openai, "top-level fields", "model"));
    }

    fn named_call(name: &str, id: &str) -> Part {
        let mut c = CallPart::new(name, Raw::empty_object());
        c.id = Some(id.into());
        Part::Call(c)
    }

    fn names(t: &Transcript) -> Vec<String> {
        t.messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Call(c) => Some(c.name.clone()),
                Part::Result(r) => r.name.clone(),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rename_dots_renames_calls_and_results_alike_or_not_at_all() {
        let t = Transcript {
            messages: vec![
                message(
                    Role::Assistant,
                    (0..4)
                        .map(|i| named_call(&format!("srv.m{i}"), &format!("c{i}")))
                        .collect(),
                ),
                message(Role::User, vec![result("c0")]),
            ],
            ..Transcript::default()
        };
        let dots = WriteOptions {
            rename_dots: true,
            ..WriteOptions::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, dots, &mut notes);
        assert_eq!(
            names(&p),
            ["srv__m0", "srv__m1", "srv__m2", "srv__m3", "srv__m0"]
        );
        let lines = notes.lines();
        assert!(
            lines.iter().any(|l| l.starts_with("4 tool names renamed")
                && l.contains("srv.m0 -> srv__m0")
                && l.contains(", …)")),
            "{lines:?}"
        );
        // Without the option, the names are said and kept.
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, WriteOptions::default(), &mut notes);
        assert_eq!(names(&p)[0], "srv.m0");
        assert!(
            notes
                .lines()
                .iter()
                .any(|l| l.contains("--rename-tools dots"))
        );
        // A name already holding `__` could not be told back: nothing is renamed.
        let mut clash = t.clone();
        clash.messages[0].parts.push(named_call("a__b", "c9"));
        let mut notes = Notes::default();
        let p = prepare(&clash, Format::Anthropic, dots, &mut notes);
        assert_eq!(names(&p)[0], "srv.m0");
        assert!(notes.lines().iter().any(|l| l.contains("not renamed")));
    }

    #[test]
    fn targets_get_only_their_own_changes() {
        let t = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                message(
                    Role::Assistant,
                    vec![named_call("f", "functions.f:0"), text("then more")],
                ),
            ],
            ..Transcript::default()
        };
        // Responses: the open call goes after the text of the last message.
        let p = prepared(&t, Format::Responses);
        assert_eq!(
            p.messages[1].parts,
            vec![text("then more"), named_call("f", "functions.f:0")]
        );
        // OpenAI: the order stays (its writer puts text in content), ids as they are.
        let p = prepared(&t, Format::Openai);
        assert_eq!(p.messages[1].parts, t.messages[1].parts);
        // Anthropic: the id mapped.
        let p = prepared(&t, Format::Anthropic);
        assert_eq!(p.messages[1].parts[0], named_call("f", "functions_f_0"));
    }
}
