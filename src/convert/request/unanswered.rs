//! Calls that no result answers before the model's last turn: each API wants a result
//! for every call but the last turn's.

use super::super::encode::Notes;
use super::super::model::{Part, Role, TextPart, Transcript};
use super::{plural, result_ids};

/// The index of the message whose calls may stay open: the last, when it is the
/// model's (a request that asks for the results' answer ends there; any message after
/// a call must hold its result).
pub(super) fn last_turn(t: &Transcript) -> usize {
    match t.messages.last() {
        Some(m) if m.role == Role::Assistant => t.messages.len() - 1,
        _ => t.messages.len(),
    }
}

/// What `--unanswered` does with a native call that no result answers before the
/// model's last turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Unanswered {
    /// The call is written as it is: the API refuses the request, `--verify` fails.
    #[default]
    Keep,
    /// A result saying that none was recorded ([`PLACEHOLDER`]), marked as an error.
    Placeholder,
}

/// The content of the result written for a call that has none.
pub(crate) const PLACEHOLDER: &str = "No result was recorded for this call.";

/// Calls that no result answers, before the model's last turn: a call read from text
/// is written as the text it was; a native call is answered by a placeholder result
/// (`--unanswered placeholder`), or left as it is (`keep`).
pub(super) fn unanswered_calls(t: &mut Transcript, unanswered: Unanswered, notes: &mut Notes) {
    let answered = result_ids(&t.messages);
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
                let mut r = super::super::model::ResultPart::new(super::super::model::Raw::string(
                    PLACEHOLDER,
                ));
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
                let mut m = super::super::model::Message::new(Role::Tool);
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

#[cfg(test)]
mod tests {
    use super::super::tests::{call, message, prepared, result, text};
    use super::super::{WriteOptions, prepare};
    use super::*;
    use crate::convert::model::{CallPart, Format, Message, Raw};

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
    fn the_models_messages_in_a_row_after_an_open_call_are_its_last_turn() {
        // A recording of responses only: one message of the model per response, the
        // first with a call no result answers.
        let t = Transcript {
            messages: vec![
                message(Role::User, vec![text("go")]),
                message(Role::Assistant, vec![call("a", false)]),
                message(Role::Assistant, vec![call("b", false)]),
                message(Role::Assistant, vec![text("done")]),
            ],
            ..Transcript::default()
        };
        let placeholder = WriteOptions {
            unanswered: Unanswered::Placeholder,
            ..WriteOptions::default()
        };
        let results = |p: &Transcript| {
            p.messages
                .iter()
                .flat_map(|m| &m.parts)
                .filter(|p| matches!(p, Part::Result(_)))
                .count()
        };
        for to in [
            Format::Openai,
            Format::Anthropic,
            Format::Gemini,
            Format::Responses,
        ] {
            let mut notes = Notes::default();
            let p = prepare(&t, to, placeholder, &mut notes);
            assert_eq!(results(&p), 0, "{to:?}: {p:?}");
            assert!(
                notes
                    .lines()
                    .iter()
                    .all(|l| !l.contains("no result answers")),
                "{to:?}"
            );
        }
        // A user's message between them: the first call needs its result before it.
        let mut apart = t.clone();
        apart
            .messages
            .insert(2, message(Role::User, vec![text("and?")]));
        let p = prepare(&apart, Format::Openai, placeholder, &mut Notes::default());
        assert_eq!(results(&p), 1, "{p:?}");
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
}
