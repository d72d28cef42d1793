//! What only Anthropic refuses: call ids outside its alphabet, and white space at the
//! end of a final assistant message.

use super::super::encode::Notes;
use super::super::model::{Part, Role, Transcript};
use super::plural;
use std::collections::{HashMap, HashSet};

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

pub(super) fn anthropic_ids(t: &mut Transcript, notes: &mut Notes) {
    let mut used: HashSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => {
                c.id.clone()
                    .filter(|id| super::super::rules::anthropic_id(id))
            }
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
                    if super::super::rules::anthropic_id(id) && !mapped.contains_key(id.as_str()) {
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
pub(super) fn final_white_space(t: &mut Transcript, notes: &mut Notes) {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{call, message, result, text};
    use super::super::{WriteOptions, prepare};
    use super::*;
    use crate::convert::model::Format;

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
}
