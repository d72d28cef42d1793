//! OpenAI Responses items: the call kinds (`function_call` with Codex's `namespace`,
//! `custom_tool_call`, `local_shell_call`, `shell_call`, `mcp_call`) decoded for
//! `extract` and `convert`, what a stream's events give of a call item before it is
//! whole, `convert`'s reader of whole item lists, and its writer.
//!
//! The reader: messages (`input_text`/`output_text` content), `reasoning` summaries,
//! calls and every `*_call_output` as a result. The model's consecutive items form one
//! assistant message. A custom call's free text is the arguments `{"input": text}` and a
//! shell call's `action` the arguments, as `extract` has them; a call kind other than
//! `function_call` stays in `extra`, so that the writer writes a custom tool call back
//! as what it was.

use super::{Args, CallFragment, DecodedCall, DecodedResult};
use crate::convert::decode::{extra_of, text as string};
use crate::convert::emit::J;
use crate::convert::encode::{Notes, keep_extra};
use crate::convert::model::{Format, Message, Part, Raw, ResultPart, Role, TextPart, Transcript};
use crate::json::{Kind, Node, Obj};
use anyhow::{Result, anyhow, bail};
use std::borrow::Cow;

/// The item types that are calls to a named tool.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Function,
    Custom,
    LocalShell,
    Shell,
    Mcp,
    Hosted,
}

fn call_kind(kind: &str) -> Option<(CallKind, &'static str)> {
    Some(match kind {
        "function_call" => (CallKind::Function, "function_call"),
        "custom_tool_call" => (CallKind::Custom, "custom_tool_call"),
        "local_shell_call" => (CallKind::LocalShell, "local_shell_call"),
        "shell_call" => (CallKind::Shell, "shell_call"),
        "mcp_call" => (CallKind::Mcp, "mcp_call"),
        _ => return None,
    })
}

/// A hosted tool's item that names its tool and gives its arguments (xAI's
/// `code_interpreter_call`, `web_search_call`, `x_search_call`, each with `name` and
/// `arguments`): the model's call of a tool the API runs, a call as Anthropic's
/// `server_tool_use` is. OpenAI's own built-in items (`web_search_call` with an
/// `action`, `file_search_call` with `queries`) name no tool and give no arguments:
/// they are the API's actions, not calls.
fn is_hosted_call(kind: &str, obj: &Obj) -> bool {
    kind.ends_with("_call")
        && obj.str("name").is_some_and(|n| !n.is_empty())
        && obj.has("arguments")
}

/// Whether an item is a call to a named tool.
pub(crate) fn is_call_item(obj: &Obj) -> bool {
    obj.str("type")
        .is_some_and(|kind| call_kind(&kind).is_some() || is_hosted_call(&kind, obj))
}

/// A Responses item that is a call to a named tool. A `local_shell_call`'s tool is
/// `local_shell` and the hosted `shell_call`'s (the same shape) `shell`, their arguments
/// the `action`; an `mcp_call` (a remote MCP tool's call, run by the API) holds its own
/// result.
pub(crate) fn call<'a>(obj: &Obj<'a>) -> Option<DecodedCall<'a>> {
    let item_type = obj.str("type")?;
    let (kind, kind_name) = match call_kind(&item_type) {
        Some(known) => known,
        None if is_hosted_call(&item_type, obj) => (CallKind::Hosted, "hosted_call"),
        None => return None,
    };
    let mut d = DecodedCall {
        kind: kind_name,
        name: obj.str("name"),
        id: obj.str("call_id"),
        namespace: None,
        qualifies: false,
        args: Args::Absent,
        members: Vec::new(),
        typed: true,
        result: None,
    };
    let arguments = || obj.get("arguments").map_or(Args::Absent, Args::Encoded);
    match kind {
        CallKind::Function => {
            // Codex's `namespace` (`mcp__node_repl__`): the name the model called is
            // the full one (`mcp__node_repl__js`).
            d.namespace = obj.str("namespace").filter(|n| !n.is_empty());
            d.qualifies = true;
            d.args = arguments();
            d.members = vec!["type", "call_id", "name", "arguments"];
            if d.namespace.is_some() {
                d.members.push("namespace");
            }
            d.typed = false;
        }
        CallKind::Custom => {
            d.args = Args::Input(obj.get("input"));
            d.members = vec!["type", "call_id", "name", "input"];
        }
        CallKind::LocalShell | CallKind::Shell => {
            let tool = kind_name.strip_suffix("_call").expect("a call kind");
            d.name = Some(Cow::Borrowed(tool));
            d.args = Args::Action(obj.get("action").filter(|a| a.kind() == Kind::Object));
            d.members = vec!["type", "call_id", "action"];
            if kind == CallKind::Shell {
                d.id = d.id.or_else(|| obj.str("id"));
            }
        }
        CallKind::Mcp => {
            if !obj.has("name") {
                return None;
            }
            d.id = obj.str("id");
            d.namespace = obj.str("server_label");
            d.args = arguments();
            d.members = vec!["type", "id", "name", "arguments", "output", "error"];
            let error = obj.get("error").filter(|e| !e.is_null());
            let output = obj.get("output").filter(|o| !o.is_null());
            d.result = match (error, output) {
                (Some(e), _) => Some((e, true)),
                (None, Some(o)) => Some((o, false)),
                (None, None) => None,
            };
        }
        CallKind::Hosted => {
            // xAI writes `call_id: ""`: the item's `id` names the call. Its type stays
            // among the extra fields as written.
            d.args = arguments();
            d.typed = false;
            d.members = vec!["call_id", "name", "arguments"];
            if d.id.as_deref().is_none_or(str::is_empty) {
                d.id = obj.str("id");
                d.members.push("id");
            }
        }
    }
    Some(d)
}

/// A call item as a stream's `response.output_item.added` event gives it, before its
/// arguments: its `call_id` and `name` as written, and whether its input is free text
/// (`custom_tool_call`). `None` for an item that is no call. The item of
/// `response.output_item.done` is whole, and [`call`] decodes it.
pub(crate) fn call_item_start<'a>(item: &Obj<'a>) -> Option<CallFragment<'a>> {
    is_call_item(item).then(|| CallFragment {
        index: None,
        id: item.get("call_id"),
        name: item.get("name"),
        arguments: None,
        free_form: item.is("type", "custom_tool_call"),
    })
}

/// What a stream event gives of a call item's arguments.
pub(crate) enum ArgumentsEvent<'a> {
    /// A piece of them: the `delta` of a `….arguments.delta` event (a function's or an
    /// MCP call's) or an `….input.delta` one (a custom tool's).
    Piece(Cow<'a, str>),
    /// Their end (`….arguments.done`, `….input.done`), with their whole text
    /// (`arguments`, or `input`) when the event gives it.
    Done(Option<Cow<'a, str>>),
}

/// What an event of type `event_type` gives of the arguments of the item its `item_id`
/// names; `None` for an event about something else.
pub(crate) fn arguments_event<'a>(event_type: &str, event: &Obj<'a>) -> Option<ArgumentsEvent<'a>> {
    if event_type.ends_with("arguments.delta") || event_type.ends_with("input.delta") {
        Some(ArgumentsEvent::Piece(
            event.str("delta").unwrap_or_default(),
        ))
    } else if event_type.ends_with("arguments.done") || event_type.ends_with("input.done") {
        Some(ArgumentsEvent::Done(
            event.str("arguments").or_else(|| event.str("input")),
        ))
    } else {
        None
    }
}

/// An item that answers a call: `function_call_output`, or another `*_call_output`
/// (`custom_tool_call_output`, `shell_call_output`…), whose type it keeps, with the
/// `call_id` of its call. `status: "failed"` (or `"error"`) is a failure.
pub(crate) fn call_output<'a>(obj: &Obj<'a>) -> Option<DecodedResult<'a>> {
    let kind = obj.str("type")?;
    if !kind.ends_with("_call_output") {
        return None;
    }
    Some(DecodedResult {
        id: obj.str("call_id"),
        name: None,
        content: obj.get("output"),
        wrapped: None,
        is_error: obj.is("status", "failed") || obj.is("status", "error"),
        members: &["type", "call_id", "output"],
        kind: Some(kind).filter(|k| k != "function_call_output"),
    })
}

/// `{"input": […], …}` (with `top`), or a bare array of items.
pub(crate) fn read(top: Option<&Obj>, items: &Node) -> Result<Transcript> {
    let mut t = Transcript {
        source: Some(Format::Responses),
        bare: top.is_none(),
        ..Transcript::default()
    };
    if let Some(top) = top {
        t.extra = extra_of(top, &["input"]);
    }
    for (i, item) in items.items().enumerate() {
        let obj = item
            .object()
            .ok_or_else(|| anyhow!("item {i}: not an object"))?;
        self::item(&item, &obj, &mut t).map_err(|e| anyhow!("item {i}: {e}"))?;
    }
    Ok(t)
}

/// The assistant message the model's next item joins (the last message, when it is
/// the model's), or a new one.
fn assistant(t: &mut Transcript) -> &mut Message {
    if t.messages.last().is_none_or(|m| m.role != Role::Assistant) {
        t.messages.push(Message::new(Role::Assistant));
    }
    t.messages.last_mut().expect("pushed above")
}

/// One item, added to `t`.
pub(crate) fn item(node: &Node, obj: &Obj, t: &mut Transcript) -> Result<()> {
    if let Some(d) = call(obj)
        && let Some(call) = d.call_part(obj)?
    {
        assistant(t).parts.push(Part::Call(call.clone()));
        if let Some((content, is_error)) = d.result {
            let mut r = ResultPart::new(Raw::new(content.text()));
            r.is_error = is_error;
            r.call_id = call.id.clone();
            r.name = Some(call.name.clone());
            r.extra
                .push(("type".into(), Raw::string(&format!("{}_output", d.kind))));
            let mut m = Message::new(Role::Tool);
            m.parts.push(Part::Result(r));
            t.messages.push(m);
        }
        return Ok(());
    }
    if let Some(d) = call_output(obj) {
        let mut m = Message::new(Role::Tool);
        m.parts.push(Part::Result(d.result_part(obj, "\"\"")));
        t.messages.push(m);
        return Ok(());
    }
    let kind = obj.str("type").map(|s| s.into_owned());
    match kind.as_deref() {
        Some("message") | None if obj.has("role") => {
            let role_name = string(&obj.get("role").expect("checked"), "role")?;
            let role =
                Role::from_name(&role_name).ok_or_else(|| anyhow!("unknown role '{role_name}'"))?;
            let mut m = Message::new(role);
            if role_name != role.name() {
                m.role_as_written = Some(role_name.clone());
            }
            match obj.get("content") {
                Some(c) if c.kind() == Kind::String => m
                    .parts
                    .push(Part::Text(TextPart::new(string(&c, "content")?))),
                Some(c) if c.kind() == Kind::Array => {
                    for block in c.items() {
                        let b = block
                            .object()
                            .ok_or_else(|| anyhow!("content: not an object"))?;
                        match b.str("type").as_deref() {
                            Some("input_text" | "output_text" | "text") => {
                                let text = b
                                    .get("text")
                                    .ok_or_else(|| anyhow!("text block without text"))?;
                                let mut p = TextPart::new(string(&text, "text")?);
                                p.extra = extra_of(&b, &["type", "text"]);
                                m.parts.push(Part::Text(p));
                            }
                            _ => m.parts.push(Part::Block(Raw::new(block.text()))),
                        }
                    }
                }
                Some(c) if c.is_null() => {}
                None => {}
                Some(_) => bail!("content: expected text or content parts"),
            }
            m.extra = extra_of(obj, &["type", "role", "content"]);
            if kind.is_some() {
                m.extra.insert(0, ("type".into(), Raw::string("message")));
            }
            if role == Role::Assistant && m.extra.iter().all(|(k, _)| k == "type") {
                // Joins the model's items around it.
                let extra = std::mem::take(&mut m.extra);
                let a = assistant(t);
                a.parts.append(&mut m.parts);
                if a.extra.is_empty() {
                    a.extra = extra;
                }
            } else {
                t.messages.push(m);
            }
        }
        Some("reasoning") => {
            let texts: Vec<String> = obj
                .items("summary")
                .filter_map(|s| s.object()?.str("text").map(|x| x.into_owned()))
                .collect();
            let mut p = TextPart::new(texts.join("\n\n"));
            if texts.len() > 1 {
                p.extra.push((
                    "summary".into(),
                    Raw::new(obj.get("summary").expect("has items").text()),
                ));
            }
            p.extra.extend(extra_of(obj, &["type", "summary"]));
            assistant(t).parts.push(Part::Reasoning(p));
        }
        _ => assistant(t).parts.push(Part::Block(Raw::new(node.text()))),
    }
    Ok(())
}

pub(crate) fn write(t: &Transcript, notes: &mut Notes) -> J {
    let to = Format::Responses;
    let same = t.source == Some(Format::Responses);
    let mut items: Vec<J> = Vec::new();
    for m in &t.messages {
        let role = match (&m.role_as_written, same) {
            (Some(r), true) => r.clone(),
            _ => m.role.name().to_owned(),
        };
        let role = if m.role == Role::Tool {
            "user".to_owned()
        } else {
            role
        };
        let mut text: Vec<J> = Vec::new();
        let mut plain = true;
        let flush = |text: &mut Vec<J>, plain: &mut bool, items: &mut Vec<J>, notes: &mut Notes| {
            if text.is_empty() {
                return;
            }
            let content = if *plain {
                let mut s = String::new();
                for b in text.iter() {
                    if let J::Obj(members) = b
                        && let Some((_, J::Str(x))) = members.iter().find(|(k, _)| k == "text")
                    {
                        s.push_str(x);
                    }
                }
                J::Str(s)
            } else {
                J::Arr(std::mem::take(text))
            };
            text.clear();
            *plain = true;
            let mut j = J::obj()
                .with("role", J::str(&role))
                .with("content", content);
            keep_extra(&mut j, &m.extra, t, to, notes, "message fields");
            items.push(j);
        };
        let block_type = if m.role == Role::Assistant {
            "output_text"
        } else {
            "input_text"
        };
        for p in &m.parts {
            match p {
                Part::Text(x) => {
                    let mut j = J::obj()
                        .with("type", J::str(block_type))
                        .with("text", J::str(&x.text));
                    // The model's text goes back as a string: a request's
                    // `output_text` part wants an id and annotations a log may lack
                    // (the part's own fields are named in the notes).
                    plain &= x.extra.is_empty() || m.role == Role::Assistant;
                    keep_extra(&mut j, &x.extra, t, to, notes, "content fields");
                    text.push(j);
                }
                Part::Block(raw) => {
                    if same {
                        let is_item = raw.value().get("type").is_some_and(|k| {
                            !matches!(k.as_str(), Some("input_image" | "input_file" | "refusal"))
                        });
                        let value = raw.value();
                        if is_item && value.get("id").is_none() {
                            // A server tool's item (`web_search_call`…) is sent back by
                            // its id, which a log may not keep.
                            notes.add(format!(
                                "{} items without an id not written: a request refers to them by id",
                                value.get("type").and_then(|k| k.as_str()).unwrap_or("other")
                            ));
                        } else if is_item {
                            flush(&mut text, &mut plain, &mut items, notes);
                            items.push(J::Raw(raw.clone()));
                        } else {
                            plain = false;
                            text.push(J::Raw(raw.clone()));
                        }
                    } else {
                        notes.add("content blocks other than text (images, documents) not written: kept only by --to json");
                    }
                }
                Part::Reasoning(x) => {
                    flush(&mut text, &mut plain, &mut items, notes);
                    let summary = match x.extra.iter().find(|(k, _)| k == "summary") {
                        Some((_, raw)) if same => J::Raw(raw.clone()),
                        _ => J::Arr(vec![
                            J::obj()
                                .with("type", J::str("summary_text"))
                                .with("text", J::str(&x.text)),
                        ]),
                    };
                    // The API wants an id on every reasoning item: the source's, or
                    // one made from the reasoning's place and text (the same each run).
                    let id = match x.extra.iter().find(|(k, _)| k == "id") {
                        Some((_, raw)) if same && raw.as_string().is_some() => J::Raw(raw.clone()),
                        _ => J::str(format!(
                            "rs_{:016x}",
                            xxhash_rust::xxh3::xxh3_64(
                                format!("{}\u{0}{}", items.len(), x.text).as_bytes()
                            )
                        )),
                    };
                    let mut j = J::obj()
                        .with("type", J::str("reasoning"))
                        .with("id", id)
                        .with("summary", summary);
                    // `content: null` is refused; absent, it means the same.
                    let rest: Vec<(String, Raw)> = x
                        .extra
                        .iter()
                        .filter(|(k, v)| {
                            k != "summary" && k != "id" && !(k == "content" && v.as_str() == "null")
                        })
                        .cloned()
                        .collect();
                    keep_extra(&mut j, &rest, t, to, notes, "reasoning fields");
                    items.push(j);
                }
                Part::Call(c) => {
                    flush(&mut text, &mut plain, &mut items, notes);
                    let kind = item_type(&c.extra, same);
                    let mut j = J::obj().with("type", J::str(kind.unwrap_or("function_call")));
                    j.push_some("call_id", c.id.as_deref().map(J::str));
                    match kind {
                        Some("custom_tool_call") if c.arguments_raw.is_none() => {
                            j.push("name", J::str(&c.name));
                            let input = match c.arguments.value() {
                                serde_json::Value::Object(mut o) if o.len() == 1 => {
                                    o.remove("input")
                                }
                                _ => None,
                            };
                            j.push(
                                "input",
                                input.map_or(J::str(c.arguments_text()), |i| match i {
                                    serde_json::Value::String(s) => J::Str(s),
                                    other => J::Raw(Raw(other.to_string())),
                                }),
                            );
                        }
                        _ => {
                            if let J::Obj(members) = &mut j {
                                members[0].1 = J::str("function_call");
                            }
                            j.push("name", J::str(&c.name));
                            j.push("arguments", J::str(c.arguments_text()));
                        }
                    }
                    let what = match kind {
                        Some("custom_tool_call") => "custom call fields",
                        _ => "call fields",
                    };
                    keep_extra(&mut j, &c.extra, t, to, notes, what);
                    items.push(j);
                }
                Part::Result(r) => {
                    flush(&mut text, &mut plain, &mut items, notes);
                    let kind = item_type(&r.extra, same).unwrap_or("function_call_output");
                    let mut j = J::obj().with("type", J::str(kind));
                    j.push_some("call_id", r.call_id.as_deref().map(J::str));
                    j.push("output", output(r));
                    if r.is_error {
                        notes.add(
                            "results marked as errors: a function_call_output has no error flag",
                        );
                    }
                    let what = match kind {
                        "custom_tool_call_output" => "custom result fields",
                        _ => "result fields",
                    };
                    keep_extra(&mut j, &r.extra, t, to, notes, what);
                    items.push(j);
                }
            }
        }
        flush(&mut text, &mut plain, &mut items, notes);
    }
    if t.bare && t.extra.is_empty() {
        return J::Arr(items);
    }
    let mut doc = J::obj().with("input", J::Arr(items));
    keep_extra(&mut doc, &t.extra, t, to, notes, "top-level fields");
    doc
}

/// A `function_call_output`'s `output`: a string, or input content parts (text blocks
/// of another API become `input_text`); other JSON as its text.
fn output(r: &ResultPart) -> J {
    let c = r.content.as_str().trim_start();
    if c.starts_with('"') {
        return J::Raw(r.content.clone());
    }
    if let serde_json::Value::Array(items) = r.content.value() {
        let input_parts = items.iter().all(|b| {
            b.get("type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| matches!(t, "input_text" | "input_image" | "input_file"))
        });
        if input_parts && !items.is_empty() {
            return J::Raw(r.content.clone());
        }
        let texts: Option<Vec<J>> = items
            .iter()
            .map(|b| {
                let text = b.get("text")?.as_str()?;
                b.get("type")
                    .is_none_or(|t| matches!(t.as_str(), Some("text" | "output_text")))
                    .then(|| {
                        J::obj()
                            .with("type", J::str("input_text"))
                            .with("text", J::str(text))
                    })
            })
            .collect();
        if let Some(texts) = texts.filter(|t| !t.is_empty()) {
            return J::Arr(texts);
        }
    }
    J::Str(r.content_text())
}

/// The item type a call or result was read from (kept in its `extra`), when the source
/// was the Responses API: `custom_tool_call` and its output. (A `local_shell_call` is
/// written as a `function_call` of `local_shell`: the request's `local_shell_call`
/// wants an id and an `env` that a log does not keep.)
fn item_type(extra: &[(String, Raw)], same: bool) -> Option<&'static str> {
    if !same {
        return None;
    }
    let kind = extra.iter().find(|(k, _)| k == "type")?.1.as_string()?;
    match kind.as_str() {
        "custom_tool_call" => Some("custom_tool_call"),

        "custom_tool_call_output" => Some("custom_tool_call_output"),

        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    #[test]
    fn a_streamed_call_item_starts_with_its_call_id_and_name() {
        let doc = Doc::parse(
            r#"{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}"#,
        )
        .unwrap();
        let start = call_item_start(&doc.root().object().unwrap()).unwrap();
        assert_eq!(
            (start.id().as_deref(), start.name().as_deref()),
            (Some("call_1"), Some("f"))
        );
        assert!(start.arguments().is_none() && !start.free_form);
        let doc =
            Doc::parse(r#"{"type":"custom_tool_call","id":"ct_1","call_id":"c","name":"sql"}"#)
                .unwrap();
        assert!(
            call_item_start(&doc.root().object().unwrap())
                .unwrap()
                .free_form
        );
        let doc = Doc::parse(r#"{"type":"message","id":"m_1","content":[]}"#).unwrap();
        assert!(call_item_start(&doc.root().object().unwrap()).is_none());
    }

    #[test]
    fn argument_events_give_a_piece_or_the_whole_at_their_end() {
        let piece = |event_type: &str, text: &str| {
            let doc = Doc::parse(text).unwrap();
            match arguments_event(event_type, &doc.root().object().unwrap()) {
                Some(ArgumentsEvent::Piece(p)) => format!("piece {p}"),
                Some(ArgumentsEvent::Done(whole)) => format!("done {whole:?}"),
                None => "none".to_owned(),
            }
        };
        assert_eq!(
            piece(
                "response.function_call_arguments.delta",
                r#"{"item_id":"fc_1","delta":"{\"a\""}"#
            ),
            "piece {\"a\""
        );
        assert_eq!(
            piece(
                "response.custom_tool_call_input.done",
                r#"{"item_id":"ct_1","input":"SELECT 1"}"#
            ),
            r#"done Some("SELECT 1")"#
        );
        assert_eq!(
            piece(
                "response.function_call_arguments.done",
                r#"{"item_id":"fc_1","arguments":"{}","input":"x"}"#
            ),
            r#"done Some("{}")"#
        );
        assert_eq!(
            piece(
                "response.output_text.delta",
                r#"{"item_id":"m","delta":"hi"}"#
            ),
            "none"
        );
    }
}
