//! What a request cannot hold, not written: reasoning its API does not take, blank
//! text, and the messages these leave empty.

use super::super::encode::Notes;
use super::super::model::{Format, Part, TextPart, Transcript};
use super::plural;

/// Reasoning a request can carry: none in a Chat Completions request (its
/// `reasoning_content` is a response field, refused in a request); in Anthropic's, only
/// thinking blocks with the signature Anthropic gave them; in Gemini's, thoughts with
/// text. Responses keeps every reasoning item (encrypted ones are sent back as they
/// were).
pub(super) fn reasoning(t: &mut Transcript, to: Format, notes: &mut Notes) {
    let signed = |r: &TextPart| r.anthropic_signature(t.source).is_some();
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

fn blank(p: &Part) -> bool {
    matches!(p, Part::Text(t) if t.text.trim().is_empty() && t.extra.is_empty())
}

pub(super) fn blank_text(t: &mut Transcript, to: Format, notes: &mut Notes) {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{call, message, prepared, result, text};
    use super::*;
    use crate::convert::model::Role;

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
}
