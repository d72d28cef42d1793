//! Input that holds no conversation document (a stream, a VCR cassette, a notebook, an
//! OpenHands event log, plain model output) is read as `extract` reads it: the input
//! framing and transcript layer give turns and results, which become messages. Only
//! messages, calls and results come through (a stream's chunks are not kept), and the
//! file's notes say so.

use super::encode::Notes;
use super::model::{CallPart, Message, Part, Raw, ResultPart, Role, TextPart, Transcript};
use super::{Converted, Settings};
use crate::diag::Diag;
use crate::engine::Engine;
use crate::input::{Framing, Reader};
use crate::model::{Event, Placement};
use anyhow::{Result, bail};

/// Converts `text` through extract's reader; `what` says what it was taken for.
pub(crate) fn convert(text: &str, what: &str, settings: &Settings) -> Result<Converted> {
    let (t, raw) = transcript(text)?;
    let mut sink = Settings::engine_output();
    let mut engine = Engine::new(settings.options.clone(), &mut sink);
    // A request holds one conversation: a recording of several is written as several,
    // one per line, in the order they began; `json` keeps them as recorded, each
    // message naming its own.
    let mut conversations = if super::rules::is_api(settings.to) {
        t.apart()
    } else {
        vec![t]
    };
    for t in &mut conversations {
        super::split::split(
            &mut t.messages,
            &mut engine,
            &[Role::Assistant],
            t.origin,
            raw,
        );
    }
    let found = conversations
        .iter()
        .flat_map(|t| &t.messages)
        .flat_map(|m| &m.parts)
        .any(|p| matches!(p, Part::Call(_) | Part::Result(_)));
    if !found {
        bail!("{what}, with no call or result: no conversation to convert");
    }
    let mut out = Converted::default();
    let mut notes = Notes::default();
    notes.add(format!("{what}: {}", super::frame::STREAM));
    let one = conversations.len() == 1;
    if !one {
        notes.add(super::several_conversations(conversations.len()));
    }
    for (n, t) in conversations.into_iter().enumerate() {
        super::emit(t, n, settings, &mut engine, &mut out, &mut notes, one, "")?;
    }
    out.warnings = notes.lines();
    Ok(out)
}

/// The turns and results extract's reader finds, as a transcript, each message naming
/// its conversation (a recording's requests may hold several); and whether any of its
/// text was read straight from the file (plain model output), not from a message.
fn transcript(text: &str) -> Result<(Transcript, bool)> {
    let mut events: Vec<Event> = Vec::new();
    let diag = Diag::new(true);
    {
        let mut sink = |e: Event| {
            events.push(e);
            Ok(())
        };
        let mut input = std::io::Cursor::new(text.as_bytes());
        Reader::new("-", &diag, &mut sink)
            .with_window(0)
            .read(&mut input, Framing::Auto)?;
    }
    let mut t = Transcript::default();
    let mut conversation = 0;
    let mut raw = false;
    for event in events {
        match event {
            Event::Turn(turn) => {
                let role = Role::from_model(turn.role);
                // A SWE-agent trajectory's actions are `<command>` blocks; a notebook's
                // output that re-prints a call of an earlier one (a prefill holding the
                // completion so far) re-prints a copy, which stays the text it is, as
                // extract reads it.
                if matches!(
                    turn.origin,
                    crate::model::Origin::SweAgent
                        | crate::model::Origin::MiniSweAgent
                        | crate::model::Origin::Notebook
                ) {
                    t.origin = turn.origin;
                }
                let mut m = Message::new(role);
                m.conversation = conversation;
                // JSON of no known shape is its source text: the decoded strings after
                // it are read for extract's text channel only.
                let source_only = turn.texts.first().is_some_and(|t| t.json_source);
                for text in turn
                    .texts
                    .iter()
                    .take(if source_only { 1 } else { usize::MAX })
                {
                    raw |= text.raw;
                    let mut part = TextPart::new(text.text.as_str());
                    if let Some(signature) = &text.signature {
                        let quoted = serde_json::to_string(&**signature).expect("a string");
                        part.extra.push(("signature".into(), Raw::new(quoted)));
                    }
                    m.parts.push(if text.reasoning {
                        Part::Reasoning(part)
                    } else {
                        Part::Text(part)
                    });
                }
                for call in &turn.calls {
                    let arguments = match call.arguments.compact() {
                        Some(text) => Raw::new(text),
                        None => Raw::new(
                            serde_json::to_string(&*call.arguments).expect("a map serializes"),
                        ),
                    };
                    let mut c = CallPart::new(call.name.as_str(), arguments);
                    c.id = call.id.clone();
                    c.namespace = call.namespace.clone();
                    c.arguments_raw = call.arguments_raw.clone();
                    m.parts.push(Part::Call(c));
                }
                place(&mut t.messages, m, turn.placement.as_ref());
            }
            Event::Result(result) => {
                let mut r = ResultPart::new(Raw::new(result.content.to_string()));
                r.call_id = result.id;
                r.name = result.name;
                r.is_error = result.is_error;
                let mut m = Message::new(Role::Tool);
                m.conversation = conversation;
                m.parts.push(Part::Result(r));
                t.messages.push(m);
            }
            Event::Conversation(n) => conversation = n,
            // With no window set, text is read whole, as one turn.
            Event::Window(_) => {}
        }
    }
    Ok((t, raw))
}

/// Adds a message where a history snapshot put it (see [`Placement`]): before, or
/// into, the message holding a call given earlier; at the end when no message holds it.
fn place(messages: &mut Vec<Message>, mut m: Message, placement: Option<&Placement>) {
    let holder = |id: &str| {
        messages.iter().rposition(|held| {
            held.parts
                .iter()
                .any(|p| matches!(p, Part::Call(c) if c.id.as_deref() == Some(id)))
        })
    };
    match placement {
        Some(Placement::Before(id)) if let Some(at) = holder(id) => {
            messages.insert(at, m);
        }
        Some(Placement::Within(id)) if let Some(at) = holder(id) => {
            let parts = &mut messages[at].parts;
            let first_call = parts
                .iter()
                .position(|p| matches!(p, Part::Call(_)))
                .unwrap_or(parts.len());
            parts.splice(first_call..first_call, m.parts.drain(..));
        }
        _ => messages.push(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message as its role and part kinds, in order.
    fn shape(t: &Transcript) -> Vec<String> {
        t.messages
            .iter()
            .map(|m| {
                let parts: Vec<&str> = m
                    .parts
                    .iter()
                    .map(|p| match p {
                        Part::Text(_) => "text",
                        Part::Reasoning(_) => "reasoning",
                        Part::Call(_) => "call",
                        Part::Result(_) => "result",
                        _ => "other",
                    })
                    .collect();
                format!("{:?} {}", m.role, parts.join(","))
            })
            .collect()
    }

    #[test]
    fn a_history_snapshot_puts_its_new_messages_where_it_holds_them() {
        // LangGraph streams the model's call (`messages` mode), then the whole state
        // (`values` mode): the user's message and the reasoning come only there.
        let text = concat!(
            r#"["messages",[{"type":"AIMessageChunk","id":"run-1","content":"","tool_call_chunks":[{"name":"f","args":"{\"a\":1}","id":"call_1","index":0}]},{"langgraph_node":"agent"}]]"#,
            "\n",
            r#"["values",{"messages":[{"type":"human","id":"h1","content":"hi"},{"type":"system","id":"s1","content":"be brief"},{"type":"ai","id":"run-1","content":"","additional_kwargs":{"reasoning_content":"think"},"tool_calls":[{"name":"f","args":{"a":1},"id":"call_1"}]}]}]"#,
            "\n",
            r#"["messages",[{"type":"tool","id":"t1","content":"ok","tool_call_id":"call_1"},{"langgraph_node":"tools"}]]"#,
            "\n",
        );
        let (t, _) = transcript(text).unwrap();
        assert_eq!(
            shape(&t),
            [
                "User text",
                "System text",
                "Assistant reasoning,call",
                "Tool result"
            ]
        );
    }

    #[test]
    fn a_growing_history_keeps_its_order() {
        // Each line holds the whole history so far: the copies come first, nothing new
        // stands before them, and nothing moves.
        let text = concat!(
            r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#,
            "\n",
            r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"assistant","content":"done"}]}"#,
            "\n",
        );
        let (t, _) = transcript(text).unwrap();
        let shape = shape(&t);
        let call = shape.iter().position(|s| s == "Assistant call").unwrap();
        assert!(
            shape[..call].iter().all(|s| s.starts_with("User")),
            "{shape:?}"
        );
        assert_eq!(shape.last().unwrap(), "Assistant text", "{shape:?}");
    }

    #[test]
    fn a_message_given_before_the_snapshot_stays_where_it_was() {
        // The user's message between the stream and the snapshot was given first: the
        // snapshot's copy of the call moves nothing before it.
        let text = concat!(
            r#"["messages",[{"type":"AIMessageChunk","id":"run-1","content":"","tool_call_chunks":[{"name":"f","args":"{}","id":"call_1","index":0}]},{"langgraph_node":"agent"}]]"#,
            "\n",
            r#"{"type":"human","id":"h2","content":"next"}"#,
            "\n",
            r#"["values",{"messages":[{"type":"ai","id":"run-1","content":"","tool_calls":[{"name":"f","args":{},"id":"call_1"}]}]}]"#,
            "\n",
        );
        let (t, _) = transcript(text).unwrap();
        assert_eq!(shape(&t), ["Assistant call", "User text"]);
    }

    /// A cassette of `requests`, each answered by an assistant message calling `f`
    /// with the call id given beside it.
    fn cassette(requests: &[(&str, &str)]) -> String {
        let mut out = String::from("interactions:\n");
        for (body, id) in requests {
            let response = format!(
                r#"{{"id":"r","object":"chat.completion","choices":[{{"index":0,"message":{{"role":"assistant","content":null,"tool_calls":[{{"id":"{id}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}}}}]}}"#
            );
            out.push_str(&format!(
                "- request:\n    body: '{body}'\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n  response:\n    body:\n      string: '{response}'\n    status:\n      code: 200\n"
            ));
        }
        out
    }

    #[test]
    fn a_recording_tells_its_conversations_apart_by_how_they_open() {
        let a = r#"{"messages":[{"role":"system","content":"A"},{"role":"user","content":"go"}]}"#;
        let b = r#"{"messages":[{"role":"system","content":"B"},{"role":"user","content":"go"}]}"#;
        // A's second request continues A: its history opens as A's first did.
        let a2 = r#"{"messages":[{"role":"system","content":"A"},{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}"#;
        let text = cassette(&[(a, "c1"), (b, "c2"), (a2, "c3")]);
        let (t, _) = transcript(&text).unwrap();
        let apart = t.apart();
        let shapes: Vec<Vec<String>> = apart.iter().map(shape).collect();
        assert_eq!(
            shapes,
            [
                vec![
                    "System text",
                    "User text",
                    "Assistant call",
                    "Tool result",
                    "Assistant call"
                ],
                vec!["System text", "User text", "Assistant call"],
            ]
        );
    }
}
