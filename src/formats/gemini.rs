//! Gemini `contents`: the `functionCall` part decoded for `extract` and `convert` (and
//! the `partialArgs` of one streamed over several chunks), and `convert`'s reader and
//! writer: `text` parts (`thought: true` for reasoning), `functionCall` and
//! `functionResponse` parts; the system prompt in `systemInstruction`. Also the
//! Interactions API's call steps, whole and streamed.

use super::{Args, DecodedCall, DecodedResult};
use crate::convert::decode::{extra_of, text as string};
use crate::convert::emit::J;
use crate::convert::encode::{Grouped, Notes, keep_extra, push_grouped};
use crate::convert::model::{Format, Message, Part, Raw, Role, TextPart, Transcript};
use crate::json::{Kind, Node, Obj};
use anyhow::{Result, anyhow, bail};
use std::borrow::Cow;

/// A part's `functionCall` (or `function_call`) object: `args` is the arguments object.
pub(crate) fn function_call<'a>(fc: &Obj<'a>) -> DecodedCall<'a> {
    DecodedCall {
        kind: "functionCall",
        name: fc.str("name"),
        id: fc.str("id"),
        namespace: None,
        qualifies: false,
        args: fc.get("args").map_or(Args::Absent, Args::Object),
        members: vec!["name", "args", "id"],
        typed: false,
        result: None,
    }
}

/// Whether a `functionCall` is streamed: its arguments come as `partialArgs` pieces,
/// or it says later chunks continue it.
pub(crate) fn is_streamed_call(fc: &Obj) -> bool {
    fc.has("partialArgs") || will_continue(fc)
}

/// Whether later chunks continue a streamed `functionCall` (`willContinue: true`).
pub(crate) fn will_continue(fc: &Obj) -> bool {
    fc.get("willContinue").and_then(|w| w.bool()) == Some(true)
}

/// One `partialArgs` entry of a streamed `functionCall`: where in the arguments its
/// value goes (`jsonPath`, `$.a.b`; empty when it has none), and the value.
pub(crate) struct PartialArg<'a> {
    pub(crate) path: Cow<'a, str>,
    pub(crate) value: PartialValue<'a>,
}

/// A `partialArgs` entry's value.
pub(crate) enum PartialValue<'a> {
    /// `nullValue`, whatever else the entry holds.
    Null,
    /// The first of `stringValue`, `numberValue`, `boolValue` and `value` it holds.
    Value(Node<'a>),
}

/// The `partialArgs` entries of a `functionCall` chunk, in order; an entry with no
/// value is none.
pub(crate) fn partial_args<'a>(fc: &Obj<'a>) -> impl Iterator<Item = PartialArg<'a>> + use<'a> {
    fc.items("partialArgs").filter_map(|entry| {
        let entry = entry.object()?;
        let path = entry.str("jsonPath").unwrap_or_default();
        let value = [
            "stringValue",
            "numberValue",
            "boolValue",
            "nullValue",
            "value",
        ]
        .iter()
        .find_map(|k| entry.get(k))?;
        Some(PartialArg {
            path,
            value: if entry.has("nullValue") {
                PartialValue::Null
            } else {
                PartialValue::Value(value)
            },
        })
    })
}

/// An entry of a Gemini CLI message's `toolCalls`: `{id, name, args, status, result}`,
/// the call with its results (`functionResponse` parts) inside.
pub(crate) fn cli_tool_call<'a>(entry: &Obj<'a>) -> DecodedCall<'a> {
    DecodedCall {
        kind: "toolCalls",
        name: entry.str("name"),
        id: entry.str("id"),
        namespace: None,
        qualifies: false,
        args: entry
            .get("args")
            .filter(|a| !a.is_null())
            .map_or(Args::Absent, Args::Object),
        members: vec!["id", "name", "args", "result"],
        typed: false,
        result: None,
    }
}

/// Whether a Gemini CLI `toolCalls` entry failed: its results are errors.
pub(crate) fn cli_tool_call_failed(entry: &Obj) -> bool {
    entry.is("status", "error") || entry.is("status", "cancelled")
}

/// A part's `functionResponse` (or `function_response`) object: `name` the tool it
/// answers, `id` the call's when the call had one. A response that only wraps its
/// content (`{"content": …}`, `{"error": …}`, as the writer below writes it) holds that
/// content, an error when it is `error`; anything else is the content itself.
pub(crate) fn function_response<'a>(fr: &Obj<'a>) -> DecodedResult<'a> {
    let response = fr.get("response");
    let mut content = response;
    let mut wrapped = None;
    let mut is_error = false;
    if let Some(o) = response.and_then(|r| r.object())
        && o.iter().count() == 1
    {
        if let Some(c) = o.get("content") {
            (content, wrapped) = (Some(c), response);
        } else if let Some(e) = o.get("error") {
            (content, wrapped) = (Some(e), response);
            is_error = true;
        }
    }
    DecodedResult {
        id: fr.str("id"),
        name: fr.str("name"),
        content,
        wrapped,
        is_error,
        members: &["name", "response", "id"],
        kind: None,
    }
}

/// A step (or output) of the Interactions API that is a client call:
/// `{"type": "function_call", "id", "name", "arguments"}`, `arguments` the object.
/// Built-in tools' steps (`google_search_call`, `code_execution_call`…) run on the
/// server: not calls.
pub(crate) fn interactions_call<'a>(step: &Obj<'a>) -> Option<DecodedCall<'a>> {
    if !step.is("type", "function_call") {
        return None;
    }
    Some(DecodedCall {
        kind: "function_call",
        name: step.str("name"),
        id: step.str("id"),
        namespace: None,
        qualifies: false,
        args: step.get("arguments").map_or(Args::Absent, Args::Object),
        members: vec!["type", "id", "name", "arguments"],
        typed: false,
        result: None,
    })
}

/// The piece of a function call step's arguments an Interactions stream's
/// `step.delta` gives: an `arguments_delta`'s `partial_arguments` (the SDK's type), or
/// its `arguments` (what the API sends), JSON text. `None` for another delta. The
/// `step.start` before holds the call step whole ([`interactions_call`]).
pub(crate) fn interactions_arguments_delta<'a>(delta: &Obj<'a>) -> Option<Cow<'a, str>> {
    delta.is("type", "arguments_delta").then(|| {
        delta
            .str("partial_arguments")
            .or_else(|| delta.str("arguments"))
            .unwrap_or_default()
    })
}

/// `{"contents": […], "systemInstruction": …}`.
pub(crate) fn read(obj: &Obj, contents: &Node) -> Result<Transcript> {
    let mut t = Transcript {
        source: Some(Format::Gemini),
        ..Transcript::default()
    };
    for key in ["systemInstruction", "system_instruction"] {
        if let Some(system) = obj.get(key) {
            let mut m = Message::new(Role::System);
            match system.kind() {
                Kind::String => m
                    .parts
                    .push(Part::Text(TextPart::new(string(&system, key)?))),
                Kind::Object => {
                    let sys = system.object().expect("an object");
                    for p in sys.items("parts") {
                        part(&p, &mut m)?;
                    }
                    m.extra = extra_of(&sys, &["parts", "role"]);
                }
                _ => bail!("{key}: expected text or parts"),
            }
            if key != "systemInstruction" {
                m.role_as_written = Some(key.to_owned());
            }
            t.messages.push(m);
        }
    }
    t.extra = extra_of(
        obj,
        &["contents", "systemInstruction", "system_instruction"],
    );
    contents_into(contents, &mut t)?;
    Ok(t)
}

/// A bare array of contents.
pub(crate) fn read_bare(contents: &Node) -> Result<Transcript> {
    let mut t = Transcript {
        source: Some(Format::Gemini),
        bare: true,
        ..Transcript::default()
    };
    contents_into(contents, &mut t)?;
    Ok(t)
}

fn contents_into(contents: &Node, t: &mut Transcript) -> Result<()> {
    for (i, c) in contents.items().enumerate() {
        let obj = c
            .object()
            .ok_or_else(|| anyhow!("content {i}: not an object"))?;
        let m = content_message(&obj).map_err(|e| anyhow!("content {i}: {e}"))?;
        t.messages.push(m);
    }
    Ok(())
}

/// One content (`{role, parts}`) as a message.
pub(crate) fn content_message(obj: &Obj) -> Result<Message> {
    let role_name = obj
        .str("role")
        .map(|s| s.into_owned())
        .unwrap_or_else(|| "user".into());
    let role = match role_name.as_str() {
        "model" => Role::Assistant,
        "function" | "tool" => Role::Tool,
        "system" => Role::System,
        _ => Role::User,
    };
    let mut m = Message::new(role);
    if !matches!(role_name.as_str(), "user") {
        m.role_as_written = Some(role_name.clone());
    }
    for p in obj.items("parts") {
        part(&p, &mut m)?;
    }
    m.extra = extra_of(obj, &["role", "parts"]);
    Ok(m)
}

/// One part, added to `m`.
pub(crate) fn part(node: &Node, m: &mut Message) -> Result<()> {
    let Some(obj) = node.object() else {
        bail!("part: not an object");
    };
    if let Some(text) = obj.get("text") {
        let thought = obj.get("thought").and_then(|t| t.bool()).unwrap_or(false);
        let p = TextPart {
            text: string(&text, "text")?,
            extra: extra_of(&obj, &["text", "thought"]),
        };
        m.parts.push(if thought {
            Part::Reasoning(p)
        } else {
            Part::Text(p)
        });
    } else if let Some(fc) = obj.obj("functionCall") {
        let d = function_call(&fc);
        match d.call_part(&fc)? {
            Some(mut call) => {
                let mut extra = extra_of(&obj, &["functionCall"]);
                extra.append(&mut call.extra);
                call.extra = extra;
                m.parts.push(Part::Call(call));
            }
            // A nameless call with arguments stays as written; a placeholder is dropped.
            None if !d.is_placeholder() => m.parts.push(Part::Block(Raw::new(node.text()))),
            None => {}
        }
    } else if let Some(fr) = obj.obj("functionResponse") {
        let mut r = function_response(&fr).result_part(&fr, "{}");
        let mut extra = extra_of(&obj, &["functionResponse"]);
        extra.append(&mut r.extra);
        r.extra = extra;
        m.parts.push(Part::Result(r));
    } else {
        m.parts.push(Part::Block(Raw::new(node.text())));
    }
    Ok(())
}

pub(crate) fn write(t: &Transcript, notes: &mut Notes) -> J {
    let to = Format::Gemini;
    let same = t.source == Some(Format::Gemini);
    let mut system: Vec<J> = Vec::new();
    let mut contents: Grouped = Vec::new();
    for m in &t.messages {
        if m.role == Role::System {
            for p in &m.parts {
                match p {
                    Part::Text(x) => {
                        let mut j = J::obj().with("text", J::str(&x.text));
                        keep_extra(&mut j, &x.extra, t, to, notes, "part fields");
                        system.push(j);
                    }
                    _ => notes.add("system prompt parts other than text not written"),
                }
            }
            continue;
        }
        let mut role = if m.role == Role::Assistant {
            "model"
        } else {
            "user"
        };
        let mut parts: Vec<J> = Vec::new();
        let own = role;
        for p in &m.parts {
            // Text after the results a message held is the message's own again.
            if !matches!(p, Part::Call(_) | Part::Result(_)) && role != own {
                push_grouped(role, "user", &mut parts, &mut contents, m);
                role = own;
            }
            match p {
                Part::Text(x) => {
                    let mut j = J::obj().with("text", J::str(&x.text));
                    keep_extra(&mut j, &x.extra, t, to, notes, "part fields");
                    parts.push(j);
                }
                Part::Reasoning(x) => {
                    let mut j = J::obj()
                        .with("text", J::str(&x.text))
                        .with("thought", J::Bool(true));
                    keep_extra(&mut j, &x.extra, t, to, notes, "reasoning fields");
                    parts.push(j);
                }
                Part::Call(c) => {
                    if role != "model" {
                        push_grouped(role, "user", &mut parts, &mut contents, m);
                        role = "model";
                    }
                    let mut fc = J::obj();
                    fc.push_some("id", c.id.as_deref().map(J::str));
                    fc.push("name", J::str(&c.name));
                    fc.push("args", J::Raw(c.arguments.clone()));
                    if c.arguments_lost() {
                        notes.add("arguments that are not a JSON object written as {}: Gemini's args is an object");
                    }
                    let mut j = J::obj().with("functionCall", fc);
                    keep_extra(&mut j, &c.extra, t, to, notes, "call fields");
                    parts.push(j);
                }
                Part::Result(r) => {
                    if role != "user" {
                        push_grouped(role, "user", &mut parts, &mut contents, m);
                        role = "user";
                    }
                    let mut fr = J::obj();
                    fr.push_some("id", r.call_id.as_deref().map(J::str));
                    fr.push("name", J::str(r.name.as_deref().unwrap_or_default()));
                    let key = if r.is_error { "error" } else { "content" };
                    fr.push("response", J::obj().with(key, J::Raw(r.content.clone())));
                    let mut j = J::obj().with("functionResponse", fr);
                    keep_extra(&mut j, &r.extra, t, to, notes, "result fields");
                    parts.push(j);
                }
                Part::Block(raw) => {
                    if same {
                        parts.push(J::Raw(raw.clone()));
                    } else {
                        notes.add("content blocks other than text (images, documents) not written: kept only by --to json");
                    }
                }
            }
        }
        push_grouped(role, "user", &mut parts, &mut contents, m);
    }
    join_call_turns(&mut contents, notes);
    let contents: Vec<J> = contents
        .into_iter()
        .map(|(role, parts, m)| {
            let mut j = J::obj()
                .with("role", J::str(role))
                .with("parts", J::Arr(parts));
            if let Some(m) = m {
                keep_extra(&mut j, &m.extra, t, to, notes, "message fields");
            }
            j
        })
        .collect();
    if t.bare && system.is_empty() && t.extra.is_empty() {
        return J::Arr(contents);
    }
    let mut doc = J::obj();
    if !system.is_empty() {
        doc.push("systemInstruction", J::obj().with("parts", J::Arr(system)));
    }
    doc.push("contents", J::Arr(contents));
    keep_extra(&mut doc, &t.extra, t, to, notes, "top-level fields");
    doc
}

/// Gemini takes a function-call turn only right after a user turn or a function
/// response: one right after another model turn (two of the model's messages with a
/// system message between them, which went to `systemInstruction`) joins it.
fn join_call_turns(contents: &mut Grouped, notes: &mut Notes) {
    let mut joined = 0;
    let mut i = 1;
    while i < contents.len() {
        let calls = contents[i].1.iter().any(|p| p.has("functionCall"));
        if calls && contents[i].0 == "model" && contents[i - 1].0 == "model" {
            let (_, mut parts, _) = contents.remove(i);
            contents[i - 1].1.append(&mut parts);
            joined += 1;
        } else {
            i += 1;
        }
    }
    if joined > 0 {
        notes.add(format!(
            "{} joined to the model turn right before it (Gemini takes function calls only right after a user turn or function responses)",
            crate::diag::plural(joined as u64, "model turn with function calls", "model turns with function calls")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    #[test]
    fn streamed_function_calls_give_their_partial_args_by_path() {
        let doc = Doc::parse(
            r#"{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":"x"},{"jsonPath":"$.n","numberValue":2},{"jsonPath":"$.z","nullValue":"NULL_VALUE"},{"jsonPath":"$.none"}],"willContinue":true}"#,
        )
        .unwrap();
        let fc = doc.root().object().unwrap();
        assert!(is_streamed_call(&fc) && will_continue(&fc));
        let args: Vec<(String, Option<String>)> = partial_args(&fc)
            .map(|a| {
                let value = match a.value {
                    PartialValue::Null => None,
                    PartialValue::Value(v) => Some(v.text().to_owned()),
                };
                (a.path.into_owned(), value)
            })
            .collect();
        assert_eq!(
            args,
            [
                ("$.a".to_owned(), Some("\"x\"".to_owned())),
                ("$.n".to_owned(), Some("2".to_owned())),
                ("$.z".to_owned(), None),
            ]
        );
        let doc = Doc::parse(r#"{"name":"f","args":{},"willContinue":false}"#).unwrap();
        let fc = doc.root().object().unwrap();
        assert!(!is_streamed_call(&fc) && !will_continue(&fc));
    }

    #[test]
    fn an_interactions_arguments_delta_gives_its_partial_arguments() {
        let doc =
            Doc::parse(r#"{"type":"arguments_delta","partial_arguments":"{\"a\":1}"}"#).unwrap();
        assert_eq!(
            interactions_arguments_delta(&doc.root().object().unwrap()).as_deref(),
            Some("{\"a\":1}")
        );
        // The API's own streams name the piece `arguments` (a real recording:
        // fixtures/corpus/gemini/google-interactions-tool-call-step1.chunks.txt).
        let doc = Doc::parse(r#"{"type":"arguments_delta","arguments":"{\"b\":2}"}"#).unwrap();
        assert_eq!(
            interactions_arguments_delta(&doc.root().object().unwrap()).as_deref(),
            Some("{\"b\":2}")
        );
        let doc = Doc::parse(r#"{"type":"text","text":"hi"}"#).unwrap();
        assert!(interactions_arguments_delta(&doc.root().object().unwrap()).is_none());
    }
}
