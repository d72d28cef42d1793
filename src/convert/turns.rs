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
use crate::model::Event;
use anyhow::{Result, bail};

/// Converts `text` through extract's reader; `what` says what it was taken for.
pub(crate) fn convert(text: &str, what: &str, settings: &Settings) -> Result<Converted> {
    let (mut t, raw) = transcript(text)?;
    let mut sink = Settings::engine_output();
    let mut engine = Engine::new(settings.options.clone(), &mut sink);
    super::split::split(
        &mut t.messages,
        &mut engine,
        &[Role::Assistant],
        t.origin,
        raw,
    );
    let found = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .any(|p| matches!(p, Part::Call(_) | Part::Result(_)));
    if !found {
        bail!("{what}, with no call or result: no conversation to convert");
    }
    let mut out = Converted::default();
    let mut notes = Notes::default();
    notes.add(format!("{what}: {}", super::frame::STREAM));
    super::emit(t, 0, settings, &mut engine, &mut out, &mut notes, true, "")?;
    out.warnings = notes.lines();
    Ok(out)
}

/// The turns and results extract's reader finds, as a transcript; and whether any of
/// its text was read straight from the file (plain model output), not from a message.
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
                // JSON of no known shape is its source text: the decoded strings after
                // it are read for extract's text channel only.
                let source_only = turn.texts.first().is_some_and(|t| t.json_source);
                for text in turn
                    .texts
                    .iter()
                    .take(if source_only { 1 } else { usize::MAX })
                {
                    raw |= text.raw;
                    let part = TextPart::new(text.text.as_str());
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
                t.messages.push(m);
            }
            Event::Result(result) => {
                let mut r = ResultPart::new(Raw::new(result.content.to_string()));
                r.call_id = result.id;
                r.name = result.name;
                r.is_error = result.is_error;
                let mut m = Message::new(Role::Tool);
                m.parts.push(Part::Result(r));
                t.messages.push(m);
            }
            // With no window set, text is read whole, as one turn.
            Event::Window(_) => {}
        }
    }
    Ok((t, raw))
}
