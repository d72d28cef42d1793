//! Claude Code's subagent conversations, taken out of the session they are logged in.

use super::super::encode::Notes;
use super::super::model::{Format, Transcript};
use super::super::rules::is_api;
use super::plural;
use std::collections::HashMap;

/// The Claude Agent SDK's line field naming the call whose subagent wrote the line.
const SUBAGENT_CALL: &str = "parent_tool_use_id";

/// Claude Code logs each subagent's conversation (`"isSidechain": true` lines; in the
/// Claude Agent SDK's stream, lines whose `parent_tool_use_id` names the call that
/// started the subagent) inside the session, between the `Task` call and its result:
/// other conversations, which a request of this one cannot hold in its middle. For an
/// API target they are taken out and returned, each its own conversation, in the order
/// they began. A sidechain conversation begins with a line whose `parentUuid` is null;
/// a line goes with its parent's conversation, or (its parent not a message of its
/// own: joined to the one before) with the last one. The SDK's lines go with the other
/// lines of their `parent_tool_use_id`.
pub(crate) fn sidechains(t: &mut Transcript, to: Format, notes: &mut Notes) -> Vec<Transcript> {
    let side = |m: &super::super::model::Message| {
        m.extra.iter().any(|(k, v)| {
            k == "isSidechain" && v.as_str() == "true"
                || k == SUBAGENT_CALL && v.as_str().starts_with('"')
        })
    };
    // A subagent's own log (`agent-*.jsonl`) is that conversation: kept whole.
    if !is_api(to) || t.messages.iter().all(side) || !t.messages.iter().any(side) {
        return Vec::new();
    }
    let field = |m: &super::super::model::Message, key: &str| {
        m.extra
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_string())
    };
    let mut conversations: Vec<Transcript> = Vec::new();
    let mut of_uuid: HashMap<String, usize> = HashMap::new();
    let mut of_call: HashMap<String, usize> = HashMap::new();
    let mut kept = Vec::with_capacity(t.messages.len());
    for m in std::mem::take(&mut t.messages) {
        if !side(&m) {
            kept.push(m);
            continue;
        }
        let call = field(&m, SUBAGENT_CALL);
        let parent = field(&m, "parentUuid");
        let known = match &call {
            Some(call) => of_call.get(call),
            None => parent.as_ref().and_then(|p| of_uuid.get(p)),
        };
        let at = match known {
            Some(&i) => i,
            None if call.is_none() && parent.is_some() && !conversations.is_empty() => {
                conversations.len() - 1
            }
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
        if let Some(call) = call {
            of_call.insert(call, at);
        }
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

#[cfg(test)]
mod tests {
    use super::super::tests::{call, message, result, text};
    use super::*;
    use crate::convert::model::{Part, Raw, Role};

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
}
