//! toolsift's canonical transcript (`--to json`): every message with its parts in
//! order, and every field no reader interpreted under `extra`. Its JSON Schema is
//! `src/convert/transcript.schema.json` (`toolsift schema transcript`). A call part's
//! members are decoded in [`crate::formats::canonical`], which `extract` reads them by
//! too.

use super::emit::J;
use super::model::{
    CallPart, Extra, Format, Message, Part, Raw, ResultPart, Role, TextPart, Transcript, Written,
};
use crate::formats::canonical;
use crate::json::{Kind, Node, Obj};
use anyhow::{Result, anyhow, bail};

/// The schema of the canonical transcript.
pub(crate) const SCHEMA: &str = include_str!("transcript.schema.json");

fn extra_j(extra: &Extra) -> Option<J> {
    (!extra.is_empty()).then(|| {
        J::Obj(
            extra
                .iter()
                .map(|(k, v)| (k.clone(), J::Raw(v.clone())))
                .collect(),
        )
    })
}

fn written_j(w: &Option<Written>) -> Option<J> {
    w.as_ref().map(|w| {
        J::obj()
            .with("dialect", J::str(&w.dialect))
            .with("text", J::str(&w.text))
    })
}

pub(crate) fn write(t: &Transcript) -> J {
    // A recording of several conversations names each message's, so that a request
    // written from this transcript holds one, as one written from the recording does.
    let several = t.holds_several();
    let messages = t.messages.iter().map(|m| message_j(m, several)).collect();
    let mut doc = J::obj().with("messages", J::Arr(messages));
    doc.push_some("source", t.source.map(|f| J::str(f.name())));
    if t.bare {
        doc.push("bare", J::Bool(true));
    }
    doc.push_some("extra", extra_j(&t.extra));
    doc
}

fn message_j(m: &Message, several: bool) -> J {
    let mut j = J::obj().with("role", J::str(m.role.name()));
    j.push_some("role_as_written", m.role_as_written.as_deref().map(J::str));
    j.push("parts", J::Arr(m.parts.iter().map(part_j).collect()));
    j.push_some("extra", extra_j(&m.extra));
    if several {
        j.push("conversation", J::Raw(Raw::new(m.conversation.to_string())));
    }
    j
}

fn part_j(p: &Part) -> J {
    match p {
        Part::Text(t) | Part::Reasoning(t) => {
            let kind = if matches!(p, Part::Text(_)) {
                "text"
            } else {
                "reasoning"
            };
            let mut j = J::obj()
                .with("type", J::str(kind))
                .with("text", J::str(&t.text));
            j.push_some("extra", extra_j(&t.extra));
            j
        }
        Part::Call(c) => {
            let mut j = J::obj().with("type", J::str("call"));
            j.push_some("id", c.id.as_deref().map(J::str));
            j.push("name", J::str(&c.name));
            j.push("arguments", J::Raw(c.arguments.clone()));
            j.push_some("arguments_raw", c.arguments_raw.as_deref().map(J::str));
            j.push_some("namespace", c.namespace.as_deref().map(J::str));
            j.push_some("written", written_j(&c.written));
            j.push_some("extra", extra_j(&c.extra));
            j
        }
        Part::Result(r) => {
            let mut j = J::obj().with("type", J::str("result"));
            j.push_some("call_id", r.call_id.as_deref().map(J::str));
            j.push_some("name", r.name.as_deref().map(J::str));
            j.push("content", J::Raw(r.content.clone()));
            j.push("is_error", J::Bool(r.is_error));
            j.push_some("written", written_j(&r.written));
            j.push_some("extra", extra_j(&r.extra));
            j
        }
        Part::Block(raw) => J::obj()
            .with("type", J::str("block"))
            .with("block", J::Raw(raw.clone())),
    }
}

fn string(obj: &Obj, key: &'static str) -> Result<Option<String>> {
    canonical::member(obj, key).checked()
}

fn required(obj: &Obj, key: &'static str) -> Result<String> {
    canonical::member(obj, key).required()
}

fn extra(obj: &Obj) -> Result<Extra> {
    match obj.get("extra") {
        None => Ok(Vec::new()),
        Some(e) => {
            let e = e
                .object()
                .ok_or_else(|| anyhow!("extra: expected an object"))?;
            Ok(e.iter().map(|(k, v)| (k.into_owned(), raw(&v))).collect())
        }
    }
}

/// A value as written, its tokens kept and the white space between them (the indented
/// transcript's layout) taken out: a call's arguments become the same string in a
/// target as when converted straight from the source.
fn raw(node: &Node) -> Raw {
    Raw::compact(node.text())
}

fn written(obj: &Obj) -> Result<Option<Written>> {
    let Some(w) = obj.obj("written") else {
        return Ok(None);
    };
    Ok(Some(Written {
        dialect: required(&w, "dialect")?,
        text: required(&w, "text")?,
    }))
}

/// Reads a canonical transcript (the object holding `messages`).
pub(crate) fn read(obj: &Obj) -> Result<Transcript> {
    let mut t = Transcript {
        source: string(obj, "source")?
            .as_deref()
            .and_then(Format::from_name)
            .or(Some(Format::Json)),
        bare: obj.get("bare").and_then(|b| b.bool()).unwrap_or(false),
        extra: extra(obj)?,
        cut: true,
        ..Transcript::default()
    };
    for (i, m) in obj.items("messages").enumerate() {
        t.messages
            .push(message(&m).map_err(|e| anyhow!("message {i}: {e}"))?);
    }
    Ok(t)
}

fn message(node: &Node) -> Result<Message> {
    let obj = node.object().ok_or_else(|| anyhow!("not an object"))?;
    let role_name = required(&obj, "role")?;
    let role = match role_name.as_str() {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => bail!("unknown role '{other}'"),
    };
    let mut m = Message::new(role);
    m.role_as_written = string(&obj, "role_as_written")?;
    m.extra = extra(&obj)?;
    if let Some(n) = obj.get("conversation") {
        m.conversation = n
            .text()
            .parse()
            .map_err(|_| anyhow!("conversation: expected a whole number, found {}", n.text()))?;
    }
    for (i, p) in obj.items("parts").enumerate() {
        m.parts
            .push(part(&p).map_err(|e| anyhow!("part {i}: {e}"))?);
    }
    Ok(m)
}

fn part(node: &Node) -> Result<Part> {
    let obj = node.object().ok_or_else(|| anyhow!("not an object"))?;
    let kind = required(&obj, "type")?;
    Ok(match kind.as_str() {
        "text" | "reasoning" => {
            let t = TextPart {
                text: required(&obj, "text")?,
                extra: extra(&obj)?,
            };
            if kind == "text" {
                Part::Text(t)
            } else {
                Part::Reasoning(t)
            }
        }
        "call" => {
            let call = canonical::call(&obj);
            let arguments = call
                .arguments
                .ok_or_else(|| anyhow!("missing \"arguments\""))?;
            if arguments.kind() != Kind::Object {
                bail!("arguments: expected an object");
            }
            Part::Call(CallPart {
                id: call.id.checked()?,
                name: call.name.required()?,
                arguments: raw(&arguments),
                arguments_raw: call.arguments_raw.checked()?,
                namespace: call.namespace.checked()?,
                written: written(&obj)?,
                extra: extra(&obj)?,
            })
        }
        "result" => Part::Result(ResultPart {
            call_id: string(&obj, "call_id")?,
            name: string(&obj, "name")?,
            content: raw(&obj
                .get("content")
                .ok_or_else(|| anyhow!("missing \"content\""))?),
            is_error: obj.get("is_error").and_then(|b| b.bool()).unwrap_or(false),
            written: written(&obj)?,
            extra: extra(&obj)?,
        }),
        "block" => Part::Block(raw(&obj
            .get("block")
            .ok_or_else(|| anyhow!("missing \"block\""))?)),
        other => bail!("unknown part type '{other}'"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    fn read_text(text: &str) -> Result<Transcript> {
        let doc = Doc::parse(text).unwrap();
        read(&doc.root().object().unwrap())
    }

    #[test]
    fn each_message_names_its_conversation_only_when_there_are_several() {
        let mut t = Transcript::default();
        for of in [0, 1, 0] {
            let mut m = Message::new(Role::User);
            m.parts.push(Part::Text(TextPart::new("hi")));
            m.conversation = of;
            t.messages.push(m);
        }
        let text = write(&t).render(false);
        assert_eq!(text.matches("\"conversation\":").count(), 3, "{text}");
        let back = read_text(&text).unwrap();
        let of: Vec<u32> = back.messages.iter().map(|m| m.conversation).collect();
        assert_eq!(of, [0, 1, 0]);
        t.messages.truncate(1);
        assert!(!write(&t).render(false).contains("conversation"));
    }

    #[test]
    fn a_conversation_that_is_no_whole_number_is_refused() {
        for bad in ["-1", "1.5", "\"1\"", "4294967296"] {
            let text =
                format!(r#"{{"messages":[{{"role":"user","parts":[],"conversation":{bad}}}]}}"#);
            let e = read_text(&text).unwrap_err().to_string();
            assert!(
                e.contains("conversation: expected a whole number"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn values_lose_the_layout_of_the_file_they_were_read_from() {
        let text = "{\"messages\":[{\"role\":\"assistant\",\"parts\":[{\"type\":\"call\",\"name\":\"f\",\"arguments\":{\n  \"a\": \"x y\",\n  \"b\": [1, 2]\n}}]}]}";
        let t = read_text(text).unwrap();
        let Part::Call(c) = &t.messages[0].parts[0] else {
            panic!("a call")
        };
        assert_eq!(c.arguments.as_str(), r#"{"a":"x y","b":[1,2]}"#);
    }
}
