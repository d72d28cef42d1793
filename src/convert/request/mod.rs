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
//!
//! [`prepare`] applies the rules in their order, one kind of rule to a file: `dropped`
//! (what a request cannot hold), `names` (tool names), `order` (where calls, results and
//! the model's messages go), `unanswered` (calls no result answers), `anthropic`
//! (Anthropic's own rules); `sidechains` takes subagents' conversations out first.

mod anthropic;
mod dropped;
mod names;
mod order;
mod sidechains;
mod unanswered;

use super::encode::Notes;
use super::model::{Format, Transcript};
use super::rules::is_api;
use anthropic::{anthropic_ids, final_white_space};
use dropped::{blank_text, reasoning};
use names::{names_refused, rename_tools, result_names};
use order::{calls_after_turn_results, join_model_turns, open_calls_last};
use unanswered::unanswered_calls;

pub(crate) use names::Rename;
pub(crate) use sidechains::sidechains;
pub(crate) use unanswered::Unanswered;

/// Writer options.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WriteOptions {
    /// mandrake-json: wrap calls and results as `{"tool_calls":[…]}` / `{"tool_results":[…]}`.
    pub(crate) wrap: bool,
    /// API targets: how tool names the API refuses are renamed (`--rename-tools`).
    pub(crate) rename: Option<Rename>,
    /// API targets: what is written for a native call that no result answers
    /// (`--unanswered`).
    pub(crate) unanswered: Unanswered,
}

/// The transcript as `to` can take it; `t` unchanged for the other targets.
pub(crate) fn prepare(
    t: &Transcript,
    to: Format,
    options: WriteOptions,
    notes: &mut Notes,
) -> Transcript {
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

/// The call ids the results of `messages` answer.
fn result_ids(messages: &[super::model::Message]) -> std::collections::HashSet<String> {
    messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            super::model::Part::Result(r) => r.call_id.clone(),
            _ => None,
        })
        .collect()
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    crate::diag::plural(n as u64, one, many)
}

#[cfg(test)]
mod tests {
    use super::super::model::{CallPart, Message, Part, Raw, ResultPart, Role, TextPart, Written};
    use super::*;

    pub(super) fn call(id: &str, written: bool) -> Part {
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

    pub(super) fn result(id: &str) -> Part {
        let mut r = ResultPart::new(Raw::string("ok"));
        r.call_id = Some(id.into());
        Part::Result(r)
    }

    pub(super) fn message(role: Role, parts: Vec<Part>) -> Message {
        let mut m = Message::new(role);
        m.parts = parts;
        m
    }

    /// `t` prepared for `to`, its notes left out.
    pub(super) fn prepared(t: &Transcript, to: Format) -> Transcript {
        prepare(t, to, WriteOptions::default(), &mut Notes::default())
    }

    pub(super) fn text(s: &str) -> Part {
        Part::Text(TextPart::new(s))
    }

    pub(super) fn named_call(name: &str, id: &str) -> Part {
        let mut c = CallPart::new(name, Raw::empty_object());
        c.id = Some(id.into());
        Part::Call(c)
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
