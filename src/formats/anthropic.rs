//! Anthropic Messages: the call blocks (`tool_use`, the API's own `server_tool_use`,
//! `mcp_tool_use`) decoded for `extract` and `convert` (a stream's
//! `content_block_start` holds one too, its `input` then given in pieces), and
//! `convert`'s writer.

use super::{Args, DecodedCall, DecodedResult};
use crate::convert::emit::J;
use crate::convert::encode::{
    Grouped, Notes, content_string, keep_extra, push_grouped, same_family, text_block,
};
use crate::convert::model::{Format, Part, Raw, ResultPart, Role, Transcript};
use crate::json::Obj;
use std::borrow::Cow;

fn call_kind(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "tool_use" => "tool_use",
        "server_tool_use" => "server_tool_use",
        "mcp_tool_use" => "mcp_tool_use",
        _ => return None,
    })
}

/// Whether a content block type is a call.
pub(crate) fn is_call_type(kind: &str) -> bool {
    call_kind(kind).is_some()
}

/// A call block: `input` is the arguments object, `server_name` (an MCP server's) the
/// namespace. A server tool's call (web search, code execution) keeps its block type
/// among its extra fields, as only the client's `tool_use` is the default.
pub(crate) fn call<'a>(obj: &Obj<'a>) -> Option<DecodedCall<'a>> {
    let kind = call_kind(&obj.str("type")?)?;
    let members = match kind {
        "server_tool_use" => vec!["id", "name", "input", "server_name"],
        _ => vec!["type", "id", "name", "input", "server_name"],
    };
    Some(DecodedCall {
        kind,
        name: obj.str("name"),
        id: obj.str("id"),
        namespace: obj.str("server_name"),
        qualifies: false,
        args: obj.get("input").map_or(Args::Absent, Args::Object),
        members,
        typed: false,
        result: None,
    })
}

/// The piece of a call block's `input` a stream's `content_block_delta` gives: an
/// `input_json_delta`'s `partial_json`, JSON text. `None` for another delta.
pub(crate) fn input_json_delta<'a>(delta: &Obj<'a>) -> Option<Cow<'a, str>> {
    delta
        .is("type", "input_json_delta")
        .then(|| delta.str("partial_json").unwrap_or_default())
}

/// A result block: the client's `tool_result`, or a server tool's
/// (`web_search_tool_result`, `code_execution_tool_result`, `mcp_tool_result`…, with
/// the `tool_use_id` of its call), which the API writes in the assistant message beside
/// its call. A server result keeps its type among its extra fields, so that a target of
/// this family writes it back as what it was.
pub(crate) fn result<'a>(obj: &Obj<'a>) -> Option<DecodedResult<'a>> {
    let kind = obj.str("type")?;
    let members: &'static [&'static str] = if kind == "tool_result" {
        &["type", "tool_use_id", "content", "is_error"]
    } else if kind.ends_with("_tool_result") && obj.has("tool_use_id") {
        &["tool_use_id", "content", "is_error"]
    } else {
        return None;
    };
    Some(DecodedResult {
        id: obj.str("tool_use_id"),
        name: None,
        content: obj.get("content"),
        wrapped: None,
        is_error: obj.get("is_error").and_then(|e| e.bool()).unwrap_or(false),
        members,
        kind: None,
    })
}

/// Writes `t` as Anthropic Messages.
pub(crate) fn write(t: &Transcript, notes: &mut Notes) -> J {
    let to = Format::Anthropic;
    let mut system: Vec<J> = Vec::new();
    let mut system_plain = true;
    // (role, blocks) of the messages written so far.
    let mut out: Grouped = Vec::new();
    for m in &t.messages {
        if m.role == Role::System {
            for p in &m.parts {
                match p {
                    Part::Text(text) => {
                        system_plain &= text.extra.is_empty();
                        system.push(text_block(&text.text, &text.extra, t, to, notes));
                    }
                    Part::Block(raw) if same_family(t, to) => {
                        system_plain = false;
                        system.push(J::Raw(raw.clone()));
                    }
                    _ => notes.add("system prompt parts other than text not written"),
                }
            }
            if !m.extra.is_empty() {
                keep_extra(
                    &mut J::obj(),
                    &m.extra,
                    t,
                    to,
                    notes,
                    "system message fields",
                );
            }
            continue;
        }
        let mut role = if m.role == Role::Assistant {
            "assistant"
        } else {
            "user"
        };
        let mut blocks: Vec<J> = Vec::new();
        let own = role;
        for p in &m.parts {
            // Text after the results a message held is the message's own again.
            if !matches!(p, Part::Call(_) | Part::Result(_)) && role != own {
                push_grouped(role, "user", &mut blocks, &mut out, m);
                role = own;
            }
            match p {
                Part::Text(text) => blocks.push(text_block(&text.text, &text.extra, t, to, notes)),
                Part::Reasoning(r) => {
                    let mut j = J::obj()
                        .with("type", J::str("thinking"))
                        .with("thinking", J::str(&r.text));
                    if same_family(t, to) {
                        keep_extra(&mut j, &r.extra, t, to, notes, "reasoning fields");
                    } else if let Some(signature) = r.anthropic_signature(t.source) {
                        j.push_extra(&[("signature".into(), signature.clone())]);
                    }
                    blocks.push(j);
                }
                Part::Call(c) => {
                    if role != "assistant" {
                        push_grouped(role, "user", &mut blocks, &mut out, m);
                        role = "assistant";
                    }
                    // A server tool's call read from Anthropic goes back as one.
                    let server = same_family(t, to)
                        && c.extra
                            .iter()
                            .any(|(k, v)| k == "type" && v.as_str() == "\"server_tool_use\"");
                    let kind = if server {
                        "server_tool_use"
                    } else {
                        "tool_use"
                    };
                    let mut j = J::obj().with("type", J::str(kind));
                    j.push_some("id", c.id.as_deref().map(J::str));
                    j.push("name", J::str(&c.name));
                    j.push("input", J::Raw(c.arguments.clone()));
                    if c.arguments_lost() {
                        notes.add("arguments that are not a JSON object written as {}: Anthropic's input is an object");
                    }
                    keep_extra(&mut j, &c.extra, t, to, notes, "call fields");
                    blocks.push(j);
                }
                // A server tool's result read from Anthropic goes back as it was, in
                // the assistant message beside its call.
                Part::Result(r) if same_family(t, to) && server_result(r).is_some() => {
                    if role != "assistant" {
                        push_grouped(role, "user", &mut blocks, &mut out, m);
                        role = "assistant";
                    }
                    let kind = server_result(r).expect("matched");
                    let mut j = J::obj().with("type", J::str(&kind));
                    j.push_some("tool_use_id", r.call_id.as_deref().map(J::str));
                    j.push("content", J::Raw(r.content.clone()));
                    if r.is_error {
                        j.push("is_error", J::Bool(true));
                    }
                    let rest: Vec<(String, Raw)> = r
                        .extra
                        .iter()
                        .filter(|(k, _)| k != "type")
                        .cloned()
                        .collect();
                    keep_extra(&mut j, &rest, t, to, notes, "result fields");
                    blocks.push(j);
                }
                Part::Result(r) => {
                    if role != "user" {
                        push_grouped(role, "user", &mut blocks, &mut out, m);
                        role = "user";
                    }
                    let mut j = J::obj().with("type", J::str("tool_result"));
                    j.push_some("tool_use_id", r.call_id.as_deref().map(J::str));
                    // A result with no content (null) is a block without one.
                    if r.content.as_str().trim() != "null" {
                        j.push("content", anthropic_result_content(r));
                    }
                    if r.is_error {
                        j.push("is_error", J::Bool(true));
                    }
                    keep_extra(&mut j, &r.extra, t, to, notes, "result fields");
                    blocks.push(j);
                }
                Part::Block(raw) => {
                    if same_family(t, to) {
                        blocks.push(J::Raw(raw.clone()));
                    } else {
                        notes.add("content blocks other than text (images, documents) not written: kept only by --to json");
                    }
                }
            }
        }
        if blocks.is_empty() && m.parts.is_empty() {
            blocks.push(text_block("", &[], t, to, notes));
        }
        push_grouped(role, "user", &mut blocks, &mut out, m);
    }
    let messages: Vec<J> = alternate(out)
        .into_iter()
        .map(|(role, blocks, m)| {
            let plain = blocks.len() == 1
                && matches!(&blocks[0], J::Obj(members) if members.len() == 2 && members[0].1.is_str("text"));
            let content = if plain {
                match &blocks[0] {
                    J::Obj(members) => members[1].1.clone(),
                    _ => unreachable!("checked above"),
                }
            } else {
                J::Arr(blocks)
            };
            let mut j = J::obj().with("role", J::str(role)).with("content", content);
            if let Some(m) = m {
                keep_extra(&mut j, &m.extra, t, to, notes, "message fields");
            }
            j
        })
        .collect();
    if t.bare && system.is_empty() && t.extra.is_empty() {
        return J::Arr(messages);
    }
    let mut doc = J::obj();
    if !system.is_empty() {
        let value = if system_plain {
            let mut s = String::new();
            for b in &system {
                if let J::Obj(members) = b
                    && let Some((_, J::Str(text))) = members.iter().find(|(k, _)| k == "text")
                {
                    s.push_str(text);
                }
            }
            J::Str(s)
        } else {
            J::Arr(system)
        };
        doc.push("system", value);
    }
    doc.push("messages", J::Arr(messages));
    keep_extra(&mut doc, &t.extra, t, to, notes, "top-level fields");
    doc
}

/// The block type of a server tool's result (`web_search_tool_result`, …), kept in
/// `extra` by the reader.
fn server_result(r: &ResultPart) -> Option<String> {
    r.extra
        .iter()
        .find(|(k, _)| k == "type")
        .and_then(|(_, v)| v.as_string())
        .filter(|kind| kind != "tool_result" && kind.ends_with("_tool_result"))
}

/// Anthropic's roles alternate: consecutive messages of one role are one message (the
/// first one's fields kept), and in a user message the `tool_result` blocks come first.
fn alternate(grouped: Grouped) -> Grouped {
    let mut out: Grouped = Vec::with_capacity(grouped.len());
    for (role, blocks, m) in grouped {
        match out.last_mut() {
            Some((last, into, _)) if *last == role => into.extend(blocks),
            _ => out.push((role, blocks, m)),
        }
    }
    for (role, blocks, _) in &mut out {
        if role == "user" {
            let is_result = |b: &J| matches!(b, J::Obj(members) if members.first().is_some_and(|(k, v)| k == "type" && v.is_str("tool_result")));
            let (results, rest): (Vec<J>, Vec<J>) =
                std::mem::take(blocks).into_iter().partition(is_result);
            blocks.extend(results);
            blocks.extend(rest);
        }
    }
    out
}

/// A `tool_result`'s content: a string, or content blocks, every text block typed
/// (Bedrock's and Gemini's `{"text": …}` parts become `{"type": "text", …}`); other
/// JSON as its text.
fn anthropic_result_content(r: &ResultPart) -> J {
    let c = r.content.as_str().trim_start();
    if c.starts_with('"') {
        return J::Raw(r.content.clone());
    }
    if let serde_json::Value::Array(items) = r.content.value()
        && !items.is_empty()
    {
        let typed = items.iter().all(|b| {
            b.get("type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| matches!(t, "text" | "image" | "document" | "search_result"))
        });
        if typed {
            return J::Raw(r.content.clone());
        }
        let texts: Option<Vec<J>> = items
            .iter()
            .map(|b| {
                let text = b.get("text")?.as_str()?;
                b.get("type").is_none_or(|t| t == "text").then(|| {
                    J::obj()
                        .with("type", J::str("text"))
                        .with("text", J::str(text))
                })
            })
            .collect();
        if let Some(texts) = texts {
            return J::Arr(texts);
        }
    }
    J::Str(content_string(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    #[test]
    fn an_input_json_delta_gives_its_partial_json() {
        let doc =
            Doc::parse(r#"{"type":"input_json_delta","partial_json":"{\"q\": \"a"}"#).unwrap();
        assert_eq!(
            input_json_delta(&doc.root().object().unwrap()).as_deref(),
            Some("{\"q\": \"a")
        );
        let doc = Doc::parse(r#"{"type":"text_delta","text":"hi"}"#).unwrap();
        assert!(input_json_delta(&doc.root().object().unwrap()).is_none());
    }
}
