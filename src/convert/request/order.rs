//! Where calls, results and the model's messages go in a request: the results of a
//! call come right after its turn, and in Responses an item after a call is its output.

use super::super::encode::{Notes, same_family};
use super::super::model::{Format, Message, Part, Role, Transcript};
use super::unanswered::last_turn;
use super::{plural, result_ids};
use std::collections::HashSet;

/// The model's messages one after another, the first ending in calls, are one turn (a
/// Responses output has its text after its calls; a log may write each of them as a
/// message): joined, so that the results after them answer the turn that made the
/// calls. Gemini also wants a turn of calls right after the user's (or the results'):
/// the model's message before it joins it.
pub(super) fn join_model_turns(t: &mut Transcript, to: Format, notes: &mut Notes) {
    let model = |m: &Message| m.role == Role::Assistant;
    let has_calls = |m: &Message| m.parts.iter().any(|p| matches!(p, Part::Call(_)));
    let mut joined = 0;
    let mut out: Vec<Message> = Vec::with_capacity(t.messages.len());
    // The open calls of the last message of `out`, kept as messages join it: one pass,
    // however long the run of the model's messages.
    let mut open = OpenCalls::default();
    for b in std::mem::take(&mut t.messages) {
        // Its calls' results, if any, come after the model's messages in a row: those
        // all join it (a recording of responses only writes one per response).
        let calls_next = to == Format::Gemini && has_calls(&b);
        let join = out
            .last()
            .is_some_and(|a| model(a) && model(&b) && (open.any() || calls_next));
        if !join {
            open = OpenCalls::of(&b);
            out.push(b);
            continue;
        }
        open.add(&b);
        join_into(out.last_mut().expect("checked"), b);
        joined += 1;
        // A turn of calls may now join the model's message before it (Gemini): that
        // message holds no open call, or the two would have joined already.
        while to == Format::Gemini
            && out.len() >= 2
            && model(&out[out.len() - 2])
            && has_calls(&out[out.len() - 1])
        {
            let last = out.pop().expect("two messages");
            join_into(out.last_mut().expect("two messages"), last);
            joined += 1;
            open = OpenCalls::of(out.last().expect("one message"));
        }
    }
    t.messages = out;
    if joined > 0 {
        notes.add(format!(
            "{} of the model joined to the message whose calls {} (a call's results come right after its turn)",
            plural(joined, "message", "messages"),
            if joined == 1 { "it follows" } else { "they follow" }
        ));
    }
}

/// Appends `next`'s parts to `m`, and its fields that `m` has not.
fn join_into(m: &mut Message, next: Message) {
    let Message {
        mut parts, extra, ..
    } = next;
    m.parts.append(&mut parts);
    for (k, v) in extra {
        if !m.extra.iter().any(|(key, _)| *key == k) {
            m.extra.push((k, v));
        }
    }
}

/// The calls of a message that no result in it answers: their ids (each once), the
/// ids results answer, and how many of the calls' ids no result answers.
#[derive(Default)]
struct OpenCalls {
    calls: HashSet<String>,
    answered: HashSet<String>,
    open: usize,
    /// A call without an id, which no result names.
    idless: bool,
}

impl OpenCalls {
    fn of(m: &Message) -> OpenCalls {
        let mut open = OpenCalls::default();
        open.add(m);
        open
    }

    /// Adds a message's parts: calls first, then results, as a message's results answer
    /// its calls wherever they stand in it.
    fn add(&mut self, m: &Message) {
        for p in &m.parts {
            if let Part::Call(c) = p {
                match &c.id {
                    Some(id) => {
                        if !self.answered.contains(id) && self.calls.insert(id.clone()) {
                            self.open += 1;
                        }
                    }
                    None => self.idless = true,
                }
            }
        }
        for p in &m.parts {
            if let Part::Result(r) = p
                && let Some(id) = &r.call_id
                && self.answered.insert(id.clone())
                && self.calls.contains(id)
            {
                self.open -= 1;
            }
        }
    }

    fn any(&self) -> bool {
        self.idless || self.open > 0
    }
}

/// A model message that holds results (a server tool's: Anthropic's code execution,
/// web search) is written as the call message, its results, and the rest: a call of
/// that message that no result in it answers goes after its last result, so that it
/// is not left unanswered in the middle (it may be answered later, or be the last
/// turn's). An Anthropic target from Anthropic keeps server results in place.
pub(super) fn calls_after_turn_results(t: &mut Transcript, to: Format, notes: &mut Notes) {
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
    calls_after_next_results(t, notes);
}

/// The same for results read as messages of their own right after the model's (a
/// recording's server tool results, which follow the message that held them): a call
/// of the model's message that none of them answers goes after them, at the start of
/// the model's next message or in one of its own, when that makes it a call of the
/// last turn, which may stay open.
fn calls_after_next_results(t: &mut Transcript, notes: &mut Notes) {
    let only_results = |m: &Message| {
        m.role != Role::Assistant
            && !m.parts.is_empty()
            && m.parts
                .iter()
                .all(|p| matches!(p, Part::Result(r) if r.written.is_none()))
    };
    let mut moved = 0;
    let mut i = 0;
    while i < t.messages.len() {
        let run = t.messages[i + 1..]
            .iter()
            .take_while(|m| only_results(m))
            .count();
        if t.messages[i].role != Role::Assistant || run == 0 {
            i += 1;
            continue;
        }
        let answered = result_ids(&t.messages[i + 1..=i + run]);
        let open = |p: &Part| {
            matches!(p, Part::Call(c) if c.written.is_none()
                && c.id.as_deref().is_some_and(|id| !answered.contains(id)))
        };
        let calls = &t.messages[i].parts;
        // Only when some call of the message is answered there: a run answering none
        // of them answers an earlier message.
        let some_answered = calls
            .iter()
            .any(|p| matches!(p, Part::Call(c) if c.id.as_deref().is_some_and(|id| answered.contains(id))));
        // Only where that makes them the last turn's: the run ends the conversation,
        // or the model's last message follows it. Elsewhere they stay unanswered where
        // they are (and `--unanswered` decides).
        if i + run + 1 < last_turn(t) || !some_answered || !calls.iter().any(open) {
            i += run + 1;
            continue;
        }
        let (later, kept): (Vec<Part>, Vec<Part>) = std::mem::take(&mut t.messages[i].parts)
            .into_iter()
            .partition(open);
        moved += later.len();
        t.messages[i].parts = kept;
        // They join the model's next message, or stand as one of their own.
        match t.messages.get_mut(i + run + 1) {
            Some(next) if next.role == Role::Assistant => {
                next.parts.splice(0..0, later);
            }
            _ => {
                let mut m = Message::new(Role::Assistant);
                m.parts = later;
                t.messages.insert(i + run + 1, m);
            }
        }
        i += run + 1;
    }
    if moved > 0 {
        notes.add(format!(
            "{} written after the results that follow their message (none of them answers it), with the model's next message",
            plural(moved, "call", "calls")
        ));
    }
}

/// Responses: the calls left open at the end are the last items; text the model wrote
/// after them in its last message goes before them (an item after a call must be its
/// output).
pub(super) fn open_calls_last(t: &mut Transcript, notes: &mut Notes) {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{call, message, prepared, result, text};
    use super::super::{WriteOptions, prepare};
    use super::*;
    use crate::convert::model::Raw;

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
        // Every message of the model in a row joins while a call of the turn is open
        // (a recording of responses only writes one message per response).
        assert_eq!(p.messages.len(), 2);
        assert_eq!(
            p.messages[1].parts,
            vec![text("first"), call("a", false), text("then"), text("apart")]
        );
        // The first message's fields, and those only the joined ones have.
        assert_eq!(
            p.messages[1].extra,
            vec![field("id", "1"), field("status", "done")]
        );
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("2 messages of the model joined")),
            "{lines:?}"
        );
        // A turn whose calls its own results answer (a server tool's) is closed: the
        // message after it stays its own, and so do messages of text only.
        let closed = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                message(Role::Assistant, vec![call("s", false), result("s")]),
                message(Role::Assistant, vec![text("one")]),
                message(Role::Assistant, vec![text("two")]),
            ],
            ..Transcript::default()
        };
        assert_eq!(prepared(&closed, Format::Openai).messages.len(), 4);
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

    /// Results read as messages of their own right after the model's (a recording's
    /// server results): a call they do not answer goes after them, at the start of the
    /// model's next message, or alone when none follows; a run answering none of the
    /// message's calls moves nothing.
    #[test]
    fn calls_no_result_after_their_message_answers_go_after_those_results() {
        let shape = |t: &Transcript| -> Vec<String> {
            t.messages
                .iter()
                .map(|m| {
                    let parts: Vec<String> = m
                        .parts
                        .iter()
                        .map(|p| match p {
                            Part::Text(x) => x.text.clone(),
                            Part::Call(c) => format!("call {}", c.id.as_deref().unwrap_or("")),
                            Part::Result(r) => {
                                format!("result {}", r.call_id.as_deref().unwrap_or(""))
                            }
                            _ => "other".into(),
                        })
                        .collect();
                    format!("{:?}: {}", m.role, parts.join(", "))
                })
                .collect()
        };
        let t = |after: Vec<Message>| {
            let mut messages = vec![
                message(Role::User, vec![text("go")]),
                message(
                    Role::Assistant,
                    vec![text("on it"), call("srv", false), call("x", false)],
                ),
                message(Role::Tool, vec![result("srv")]),
            ];
            messages.extend(after);
            Transcript {
                source: Some(Format::Openai),
                messages,
                ..Transcript::default()
            }
        };
        let mut notes = Notes::default();
        let alone = prepare(
            &t(vec![]),
            Format::Openai,
            WriteOptions::default(),
            &mut notes,
        );
        assert_eq!(
            shape(&alone),
            [
                "User: go",
                "Assistant: on it, call srv",
                "Tool: result srv",
                "Assistant: call x"
            ]
        );
        assert!(
            notes
                .lines()
                .iter()
                .any(|l| l.starts_with("1 call written after the results that follow"))
        );
        let next = message(Role::Assistant, vec![call("y", false)]);
        assert_eq!(
            shape(&prepared(&t(vec![next]), Format::Openai)),
            [
                "User: go",
                "Assistant: on it, call srv",
                "Tool: result srv",
                "Assistant: call x, call y"
            ]
        );
        // Answered by the run: nothing moves.
        let answered = prepared(
            &t(vec![message(Role::Tool, vec![result("x")])]),
            Format::Openai,
        );
        assert_eq!(answered.messages.len(), 4);
        assert_eq!(shape(&answered)[1], "Assistant: on it, call srv, call x");
        // A run answering none of the message's calls answers an earlier message.
        let mut other = t(vec![]);
        other.messages[2] = message(Role::Tool, vec![result("elsewhere")]);
        assert_eq!(
            shape(&prepared(&other, Format::Openai))[1],
            "Assistant: on it, call srv, call x"
        );
    }
}
