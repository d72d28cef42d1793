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

use super::encode::{Notes, same_family};
use super::model::{Format, Part, Role, TextPart, Transcript};
use super::rules::is_api;
use std::collections::{HashMap, HashSet};

/// Writer options.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// mandrake-json: wrap calls and results as `{"tool_calls":[…]}` / `{"tool_results":[…]}`.
    pub wrap: bool,
    /// API targets: how tool names the API refuses are renamed (`--rename-tools`).
    pub rename: Option<Rename>,
    /// API targets: what is written for a native call that no result answers
    /// (`--unanswered`).
    pub unanswered: Unanswered,
}

/// The transcript as `to` can take it; `t` unchanged for the other targets.
pub fn prepare(t: &Transcript, to: Format, options: WriteOptions, notes: &mut Notes) -> Transcript {
    let mut t = t.clone();
    if !is_api(to) {
        return t;
    }
    reasoning(&mut t, to, notes);
    result_names(&mut t);
    join_model_turns(&mut t, to, notes);
    calls_after_turn_results(&mut t, to, notes);
    unanswered_calls(&mut t, options.unanswered, notes);
    blank_text(&mut t, to, notes);
    match options.rename {
        Some(how) => rename_tools(&mut t, how, notes),
        None if to == Format::Anthropic => names_refused(&t, notes),
        None => {}
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

/// How `--rename-tools` renames the tool names an API refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rename {
    /// `server.method` becomes `server__method`.
    Dots,
    /// `.` becomes `__`, any other character outside `[a-zA-Z0-9_-]` `_`, and a name
    /// over 64 characters is cut, a hash of the whole name at its end.
    Safe,
}

impl Rename {
    fn flag(self) -> &'static str {
        match self {
            Rename::Dots => "--rename-tools dots",
            Rename::Safe => "--rename-tools safe",
        }
    }

    /// The name written for `name`, or `None` when it is written as it is.
    fn apply(self, name: &str) -> Option<String> {
        match self {
            Rename::Dots => name.contains('.').then(|| name.replace('.', "__")),
            Rename::Safe => {
                if super::rules::anthropic_name(name) {
                    return None;
                }
                let mut out = String::with_capacity(name.len() + 4);
                for c in name.chars() {
                    match c {
                        '.' => out.push_str("__"),
                        c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => out.push(c),
                        _ => out.push('_'),
                    }
                }
                if out.len() > 64 {
                    let hash = xxhash_rust::xxh3::xxh3_64(name.as_bytes());
                    out.truncate(47);
                    out.push_str(&format!("_{hash:016x}"));
                }
                if out.is_empty() {
                    out.push_str("tool");
                }
                Some(out)
            }
        }
    }
}

/// `--rename-tools`: each refused name written another way on every call and result,
/// the whole mapping in the notes. Not done at all when the renaming could not be
/// undone: two names mapped to one, a new name that another tool already has, or
/// (`dots`) a name that already holds `__`.
fn rename_tools(t: &mut Transcript, how: Rename, notes: &mut Notes) {
    let names: std::collections::BTreeSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => Some(c.name.clone()),
            Part::Result(r) => r.name.clone(),
            _ => None,
        })
        .collect();
    let mapping: std::collections::BTreeMap<String, String> = names
        .iter()
        .filter_map(|n| Some((n.clone(), how.apply(n)?)))
        .collect();
    if mapping.is_empty() {
        return;
    }
    let mut taken: HashMap<&str, &str> = HashMap::new();
    for name in names.iter().filter(|n| !mapping.contains_key(*n)) {
        taken.insert(name, name);
    }
    let mut clash = None;
    for (old, new) in &mapping {
        if let Some(other) = taken.insert(new, old) {
            clash.get_or_insert_with(|| format!("{old} and {other} would both be {new}"));
        }
    }
    if how == Rename::Dots
        && let Some(name) = names.iter().find(|n| n.contains("__"))
    {
        clash.get_or_insert_with(|| format!("{name} already holds \"__\""));
    }
    if let Some(why) = clash {
        notes.add(format!(
            "tool names not renamed: {why}, so {} could not be undone",
            how.flag()
        ));
        return;
    }
    for p in t.messages.iter_mut().flat_map(|m| &mut m.parts) {
        let name = match p {
            Part::Call(c) => Some(&mut c.name),
            Part::Result(r) => r.name.as_mut(),
            _ => None,
        };
        if let Some(name) = name
            && let Some(new) = mapping.get(name.as_str())
        {
            *name = new.clone();
        }
    }
    let shown: Vec<String> = mapping
        .iter()
        .map(|(old, new)| format!("{old} -> {new}"))
        .collect();
    notes.add(format!(
        "{} renamed by {} on every call and result: {}",
        plural(mapping.len(), "tool name", "tool names"),
        how.flag(),
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
            "{} Anthropic refuses (such as {first}): --rename-tools safe (or dots) renames them on every call and result",
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

/// Claude Code logs each subagent's conversation (`"isSidechain": true` lines) inside
/// the session, between the `Task` call and its result: other conversations, which a
/// request of this one cannot hold in its middle. For an API target they are taken out
/// and returned, each its own conversation, in the order they began. A subagent's
/// conversation begins with a line whose `parentUuid` is null; a line goes with its
/// parent's conversation, or (its parent not a message of its own: joined to the one
/// before) with the last one.
pub fn sidechains(t: &mut Transcript, to: Format, notes: &mut Notes) -> Vec<Transcript> {
    let side = |m: &super::model::Message| {
        m.extra
            .iter()
            .any(|(k, v)| k == "isSidechain" && v.as_str() == "true")
    };
    // A subagent's own log (`agent-*.jsonl`) is that conversation: kept whole.
    if !is_api(to) || t.messages.iter().all(side) || !t.messages.iter().any(side) {
        return Vec::new();
    }
    let field = |m: &super::model::Message, key: &str| {
        m.extra
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_string())
    };
    let mut conversations: Vec<Transcript> = Vec::new();
    let mut of_uuid: HashMap<String, usize> = HashMap::new();
    let mut kept = Vec::with_capacity(t.messages.len());
    for m in std::mem::take(&mut t.messages) {
        if !side(&m) {
            kept.push(m);
            continue;
        }
        let parent = field(&m, "parentUuid");
        let at = match parent.as_ref().and_then(|p| of_uuid.get(p)) {
            Some(&i) => i,
            None if parent.is_some() && !conversations.is_empty() => conversations.len() - 1,
            None => {
                conversations.push(Transcript {
                    source: t.source,
                    origin: t.origin,
                    cut: t.cut,
                    ..Transcript::default()
                });
                conversations.len() - 1
            }
        };
        if let Some(uuid) = field(&m, "uuid") {
            of_uuid.insert(uuid, at);
        }
        conversations[at].messages.push(m);
    }
    t.messages = kept;
    let n: usize = conversations.iter().map(|c| c.messages.len()).sum();
    notes.add(format!(
        "{} of subagents' conversations (Claude Code sidechains) written as {} of their own, one per line after the session's",
        plural(n, "message", "messages"),
        plural(conversations.len(), "conversation", "conversations")
    ));
    conversations
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

/// What `--unanswered` does with a native call that no result answers before the
/// model's last turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unanswered {
    /// The call is written as it is: the API refuses the request, `--verify` fails.
    #[default]
    Keep,
    /// A result saying that none was recorded ([`PLACEHOLDER`]), marked as an error.
    Placeholder,
}

/// The content of the result written for a call that has none.
pub const PLACEHOLDER: &str = "No result was recorded for this call.";

/// The model's messages one after another, the first ending in calls, are one turn (a
/// Responses output has its text after its calls; a log may write each of them as a
/// message): joined, so that the results after them answer the turn that made the
/// calls. Gemini also wants a turn of calls right after the user's (or the results'):
/// the model's message before it joins it.
fn join_model_turns(t: &mut Transcript, to: Format, notes: &mut Notes) {
    let model = |m: &super::model::Message| m.role == Role::Assistant;
    let mut joined = 0;
    let mut i = 0;
    while i + 1 < t.messages.len() {
        let (a, b) = (&t.messages[i], &t.messages[i + 1]);
        let ends_in_calls = matches!(a.parts.last(), Some(Part::Call(_)));
        let calls_next = to == Format::Gemini && b.parts.iter().any(|p| matches!(p, Part::Call(_)));
        if model(a) && model(b) && (ends_in_calls || calls_next) {
            let mut next = t.messages.remove(i + 1);
            let m = &mut t.messages[i];
            m.parts.append(&mut next.parts);
            for (k, v) in next.extra {
                if !m.extra.iter().any(|(key, _)| *key == k) {
                    m.extra.push((k, v));
                }
            }
            joined += 1;
            // The turn may now join the model's message before it (Gemini).
            i = i.saturating_sub(1);
        } else {
            i += 1;
        }
    }
    if joined > 0 {
        notes.add(format!(
            "{} of the model joined to the message whose calls {} (a call's results come right after its turn)",
            plural(joined, "message", "messages"),
            if joined == 1 { "it follows" } else { "they follow" }
        ));
    }
}

/// A model message that holds results (a server tool's: Anthropic's code execution,
/// web search) is written as the call message, its results, and the rest: a call of
/// that message that no result in it answers goes after its last result, so that it
/// is not left unanswered in the middle (it may be answered later, or be the last
/// turn's). An Anthropic target from Anthropic keeps server results in place.
fn calls_after_turn_results(t: &mut Transcript, to: Format, notes: &mut Notes) {
    if to == Format::Anthropic && same_family(t, to) {
        return;
    }
    let mut moved = 0;
    for m in t.messages.iter_mut().filter(|m| m.role == Role::Assistant) {
        // Results and calls read from text stay where the text has them.
        let native_result = |p: &Part| matches!(p, Part::Result(r) if r.written.is_none());
        let Some(last) = m.parts.iter().rposition(native_result) else {
            continue;
        };
        let answered: HashSet<&str> = m
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Result(r) => r.call_id.as_deref(),
                _ => None,
            })
            .collect();
        let open: Vec<usize> = m.parts[..last]
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                matches!(p, Part::Call(c) if c.written.is_none()
                    && c.id.as_deref().is_none_or(|id| !answered.contains(id)))
            })
            .map(|(i, _)| i)
            .collect();
        if open.is_empty() {
            continue;
        }
        moved += open.len();
        let mut parts = std::mem::take(&mut m.parts);
        let after = parts.split_off(last + 1);
        let mut calls = Vec::with_capacity(open.len());
        for &i in open.iter().rev() {
            calls.push(parts.remove(i));
        }
        calls.reverse();
        parts.extend(calls);
        parts.extend(after);
        m.parts = parts;
    }
    if moved > 0 {
        notes.add(format!(
            "{} written after the server tool results of their message (no result in it answers them)",
            plural(moved, "call", "calls")
        ));
    }
}

/// Calls that no result answers, before the model's last turn: a call read from text
/// is written as the text it was; a native call is answered by a placeholder result
/// (`--unanswered placeholder`), or left as it is (`keep`).
fn unanswered_calls(t: &mut Transcript, unanswered: Unanswered, notes: &mut Notes) {
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
    // Per message: the native calls left open (id and name).
    let mut open: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    for (i, m) in t.messages[..open_from].iter_mut().enumerate() {
        let mut parts = Vec::with_capacity(m.parts.len());
        let mut here = Vec::new();
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
                            if let Some(id) = &c.id {
                                here.push((id.clone(), c.name.clone()));
                            }
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
        if !here.is_empty() {
            open.push((i, here));
        }
    }
    if as_text > 0 {
        notes.add(format!(
            "{} that no result answers, before the last message: written as the text they were (the API wants a result for each call)",
            plural(as_text, "call", "calls")
        ));
    }
    if native == 0 {
        return;
    }
    let placed: usize = open.iter().map(|(_, calls)| calls.len()).sum();
    if unanswered == Unanswered::Keep || placed < native {
        notes.add(format!(
            "{} that no result answers, before the last message: the API will refuse the request (--unanswered placeholder answers each with a result saying none was recorded)",
            plural(
                native
                    - if unanswered == Unanswered::Keep {
                        0
                    } else {
                        placed
                    },
                "native call",
                "native calls"
            )
        ));
    }
    if unanswered == Unanswered::Keep || placed == 0 {
        return;
    }
    // From the last message back, so that the indices before stay right.
    for (i, calls) in open.into_iter().rev() {
        let results: Vec<Part> = calls
            .into_iter()
            .map(|(id, name)| {
                let mut r = super::model::ResultPart::new(super::model::Raw::string(PLACEHOLDER));
                r.call_id = Some(id);
                r.name = Some(name);
                r.is_error = true;
                Part::Result(r)
            })
            .collect();
        // Beside the results that come right after the turn, or in a message of their
        // own there.
        match t.messages.get_mut(i + 1) {
            Some(next) if next.parts.iter().any(|p| matches!(p, Part::Result(_))) => {
                let at = next
                    .parts
                    .iter()
                    .position(|p| !matches!(p, Part::Result(_)))
                    .unwrap_or(next.parts.len());
                next.parts.splice(at..at, results);
            }
            _ => {
                let mut m = super::model::Message::new(Role::Tool);
                m.parts = results;
                t.messages.insert(i + 1, m);
            }
        }
    }
    notes.add(format!(
        "{} that no result answers, before the last message: answered by a result saying \"{PLACEHOLDER}\" (marked as an error), as --unanswered placeholder asks",
        plural(placed, "native call", "native calls")
    ));
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
        // Text joins the call's text only right after it, and only plain text: two
        // texts of their own, or one with fields (cache_control), stay apart.
        let mut marked = TextPart::new(" c");
        marked.extra = vec![("cache_control".into(), Raw::new("{}"))];
        let apart = Transcript {
            messages: vec![
                message(
                    Role::Assistant,
                    vec![
                        text("a"),
                        text("b"),
                        call("x", true),
                        Part::Text(marked.clone()),
                    ],
                ),
                message(Role::User, vec![text("next")]),
            ],
            ..Transcript::default()
        };
        assert_eq!(
            prepared(&apart, Format::Openai).messages[0].parts,
            vec![
                text("a"),
                text("b<tool_call>x</tool_call>"),
                Part::Text(marked)
            ]
        );
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
    fn each_subagents_sidechain_is_a_conversation_of_its_own() {
        let side = |role, parts, uuid: &str, parent: Option<&str>| {
            let mut m = message(role, parts);
            m.extra = vec![
                ("isSidechain".into(), Raw::new("true")),
                ("uuid".into(), Raw::string(uuid)),
                (
                    "parentUuid".into(),
                    parent.map_or(Raw::new("null"), Raw::string),
                ),
            ];
            m
        };
        // A message that says it is not a sidechain stays in the session.
        let mut main_turn = message(
            Role::Assistant,
            vec![call("task", false), call("task2", false)],
        );
        main_turn.extra = vec![("isSidechain".into(), Raw::new("false"))];
        let t = Transcript {
            messages: vec![
                main_turn,
                side(Role::User, vec![text("sub task")], "s1", None),
                side(Role::User, vec![text("other task")], "o1", None),
                side(Role::Assistant, vec![text("on it")], "s2", Some("s1")),
                side(Role::Assistant, vec![text("done other")], "o2", Some("o1")),
                // Its parent is not a message (joined to the one before): the last one.
                side(Role::Assistant, vec![text("done")], "o3", Some("gone")),
                message(Role::User, vec![result("task"), result("task2")]),
            ],
            source: Some(Format::Anthropic),
            origin: crate::model::Origin::SweAgent,
            cut: true,
            ..Transcript::default()
        };
        let texts = |t: &Transcript| -> Vec<String> {
            t.messages
                .iter()
                .flat_map(|m| &m.parts)
                .filter_map(|p| match p {
                    Part::Text(x) => Some(x.text.clone()),
                    _ => None,
                })
                .collect()
        };
        let mut main = t.clone();
        let mut notes = Notes::default();
        let subs = sidechains(&mut main, Format::Anthropic, &mut notes);
        assert_eq!(main.messages.len(), 2);
        assert_eq!(main.messages[1].role, Role::User);
        assert_eq!(subs.len(), 2);
        // Each read as the session was.
        for sub in &subs {
            assert_eq!(
                (sub.source, sub.origin, sub.cut),
                (main.source, main.origin, main.cut)
            );
        }
        assert_eq!(texts(&subs[0]), ["sub task", "on it"]);
        assert_eq!(texts(&subs[1]), ["other task", "done other", "done"]);
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("5 messages of subagents'") && l.contains("2 conversations")),
            "{lines:?}"
        );
        // The canonical target keeps them in place.
        let mut same = t.clone();
        assert!(sidechains(&mut same, Format::Json, &mut Notes::default()).is_empty());
        assert_eq!(same, t);
        // A subagent's own log is its conversation.
        let mut own = Transcript {
            messages: t.messages[1..3].to_vec(),
            ..Transcript::default()
        };
        assert!(sidechains(&mut own, Format::Anthropic, &mut Notes::default()).is_empty());
        assert_eq!(own.messages.len(), 2);
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
            rename: Some(Rename::Dots),
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
                && l.contains("srv.m3 -> srv__m3")),
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
                .any(|l| l.contains("--rename-tools safe"))
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

    #[test]
    fn rename_safe_maps_every_refused_name_one_to_one_or_not_at_all() {
        let long = "x".repeat(70);
        // 64 characters once mapped: not cut.
        let edge = format!("{}:", "y".repeat(63));
        // A result that names a tool no call has is renamed too.
        let mut orphan = ResultPart::new(Raw::string("ok"));
        orphan.name = Some("lone.tool".into());
        let orphan = Part::Result(orphan);
        let t = Transcript {
            messages: vec![
                message(
                    Role::Assistant,
                    vec![
                        named_call("agent:status", "c0"),
                        named_call("srv.m", "c1"),
                        named_call(&long, "c2"),
                        named_call("ok_name", "c3"),
                        named_call("my_web-search:go", "c4"),
                        named_call(&edge, "c5"),
                    ],
                ),
                message(Role::User, vec![result("c0"), result("c2"), orphan]),
            ],
            ..Transcript::default()
        };
        let safe = WriteOptions {
            rename: Some(Rename::Safe),
            ..WriteOptions::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, safe, &mut notes);
        let got = names(&p);
        assert_eq!(got[..2], ["agent_status", "srv__m"]);
        assert_eq!(got[2].len(), 64);
        assert!(got[2].starts_with("xxxx") && got[2] != long[..64]);
        assert_eq!(got[3], "ok_name");
        assert_eq!(got[4], "my_web-search_go");
        assert_eq!(got[5], format!("{}_", "y".repeat(63)));
        assert_eq!(got[6], "agent_status");
        assert_eq!(got[7], got[2]);
        assert_eq!(got[8], "lone__tool");
        assert!(got.iter().all(|n| super::super::rules::anthropic_name(n)));
        let lines = notes.lines();
        assert!(
            lines.iter().any(
                |l| l.starts_with("6 tool names renamed by --rename-tools safe")
                    && l.contains("agent:status -> agent_status")
            ),
            "{lines:?}"
        );
        // Onto a name another tool has: nothing is renamed, and the note says why.
        let mut clash = t.clone();
        clash.messages[0]
            .parts
            .push(named_call("agent_status", "c9"));
        let mut notes = Notes::default();
        let p = prepare(&clash, Format::Anthropic, safe, &mut notes);
        assert_eq!(names(&p)[0], "agent:status");
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("agent:status and agent_status would both be agent_status")),
            "{lines:?}"
        );
    }

    fn answers(m: &Message) -> Vec<(Option<&str>, bool, String)> {
        m.parts
            .iter()
            .filter_map(|p| match p {
                Part::Result(r) => Some((r.call_id.as_deref(), r.is_error, r.content_text())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn calls_left_unanswered_mid_history_get_a_placeholder_result_beside_the_others() {
        let t = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                message(Role::Assistant, vec![call("a", false), call("b", false)]),
                message(Role::Tool, vec![result("a")]),
                message(Role::User, vec![text("and now")]),
                message(Role::Assistant, vec![call("c", false)]),
                message(Role::User, vec![text("stop")]),
                message(Role::Assistant, vec![call("d", false)]),
            ],
            ..Transcript::default()
        };
        let placeholder = WriteOptions {
            unanswered: Unanswered::Placeholder,
            ..WriteOptions::default()
        };
        for to in [
            Format::Openai,
            Format::Anthropic,
            Format::Gemini,
            Format::Responses,
        ] {
            let mut notes = Notes::default();
            let p = prepare(&t, to, placeholder, &mut notes);
            assert_eq!(p.messages.len(), 8, "{to:?}");
            // b's placeholder joins a's result, after it.
            assert_eq!(
                answers(&p.messages[2]),
                [
                    (Some("a"), false, "ok".to_string()),
                    (Some("b"), true, PLACEHOLDER.to_string())
                ]
            );
            // c's is a message of its own right after its turn.
            assert_eq!(p.messages[5].role, Role::Tool);
            assert_eq!(
                answers(&p.messages[5]),
                [(Some("c"), true, PLACEHOLDER.to_string())]
            );
            // The last turn's call stays open.
            assert_eq!(p.messages[7].parts, vec![call("d", false)]);
            let lines = notes.lines();
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("2 native calls that no result answers")
                        && l.contains("answered by a result")),
                "{lines:?}"
            );
            // Every call placed, none read from text: nothing else is said of them.
            assert!(
                !lines
                    .iter()
                    .any(|l| l.contains("will refuse") || l.contains("the text they were")),
                "{lines:?}"
            );
        }
        // A call with no id cannot be answered: it is said.
        let mut no_id = t.clone();
        let mut anonymous = CallPart::new("g", Raw::empty_object());
        anonymous.id = None;
        no_id.messages[4].parts.push(Part::Call(anonymous));
        let mut notes = Notes::default();
        prepare(&no_id, Format::Openai, placeholder, &mut notes);
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("1 native call that no result answers")
                    && l.contains("will refuse")),
            "{lines:?}"
        );
        // By default they are written unanswered, and the note says so.
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Openai, WriteOptions::default(), &mut notes);
        assert_eq!(p.messages.len(), t.messages.len());
        assert_eq!(answers(&p.messages[2]).len(), 1);
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("2 native calls") && l.contains("will refuse")),
            "{lines:?}"
        );
        assert_eq!(prepared(&t, Format::Json), t);
    }

    #[test]
    fn the_models_messages_after_its_calls_join_the_turn_that_made_them() {
        let field = |k: &str, v: &str| (k.to_string(), Raw::string(v));
        let mut first = message(Role::Assistant, vec![text("first"), call("a", false)]);
        first.extra = vec![field("id", "1")];
        let mut then = message(Role::Assistant, vec![text("then")]);
        then.extra = vec![field("id", "2"), field("status", "done")];
        let t = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                first,
                then,
                message(Role::Assistant, vec![text("apart")]),
            ],
            ..Transcript::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Openai, WriteOptions::default(), &mut notes);
        assert_eq!(p.messages.len(), 3);
        assert_eq!(
            p.messages[1].parts,
            vec![text("first"), call("a", false), text("then")]
        );
        // The first message's fields, and those only the joined one has.
        assert_eq!(
            p.messages[1].extra,
            vec![field("id", "1"), field("status", "done")]
        );
        // A message after text only stays its own.
        assert_eq!(p.messages[2].parts, vec![text("apart")]);
        assert!(
            notes
                .lines()
                .iter()
                .any(|l| l.starts_with("1 message of the model joined"))
        );
        // Not on the user's side.
        let users = Transcript {
            messages: vec![
                message(Role::Assistant, vec![call("a", false)]),
                message(Role::User, vec![text("x")]),
            ],
            ..Transcript::default()
        };
        assert_eq!(prepared(&users, Format::Openai).messages.len(), 2);
        // Gemini: the model's text before its turn of calls joins it; the others keep
        // the messages apart.
        let calls_after_text = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                message(Role::Assistant, vec![text("thinking")]),
                message(Role::Assistant, vec![text("aloud")]),
                message(Role::Assistant, vec![call("b", false)]),
            ],
            ..Transcript::default()
        };
        let p = prepared(&calls_after_text, Format::Gemini);
        assert_eq!(p.messages.len(), 2);
        assert_eq!(
            p.messages[1].parts,
            vec![text("thinking"), text("aloud"), call("b", false)]
        );
        assert_eq!(
            prepared(&calls_after_text, Format::Openai).messages.len(),
            4
        );
    }

    #[test]
    fn calls_made_beside_a_server_tools_result_go_after_it() {
        let t = Transcript {
            source: Some(Format::Anthropic),
            messages: vec![
                message(Role::User, vec![text("play")]),
                message(
                    Role::Assistant,
                    vec![
                        text("running"),
                        call("srv", false),
                        call("x", false),
                        call("y", false),
                        result("srv"),
                        text("done"),
                    ],
                ),
            ],
            ..Transcript::default()
        };
        // Each part by what it is and its id.
        let shape = |t: &Transcript| -> Vec<String> {
            t.messages[1]
                .parts
                .iter()
                .map(|p| match p {
                    Part::Text(x) => x.text.clone(),
                    Part::Call(c) => format!("call {}", c.id.as_deref().unwrap_or("")),
                    Part::Result(r) => format!("result {}", r.call_id.as_deref().unwrap_or("")),
                    _ => "other".into(),
                })
                .collect()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Openai, WriteOptions::default(), &mut notes);
        assert_eq!(
            shape(&p),
            [
                "running",
                "call srv",
                "result srv",
                "call x",
                "call y",
                "done"
            ]
        );
        assert!(
            notes
                .lines()
                .iter()
                .any(|l| l.starts_with("2 calls written after"))
        );
        // Anthropic takes them back in place.
        assert_eq!(
            shape(&prepared(&t, Format::Anthropic)),
            [
                "running",
                "call srv",
                "call x",
                "call y",
                "result srv",
                "done"
            ]
        );
        // From another format, an Anthropic target answers them as client calls too.
        let other = Transcript {
            source: Some(Format::Openai),
            ..t.clone()
        };
        assert_eq!(
            shape(&prepared(&other, Format::Anthropic)),
            [
                "running",
                "call srv",
                "result srv",
                "call x",
                "call y",
                "done"
            ]
        );
    }
}
