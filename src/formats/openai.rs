//! OpenAI Chat Completions: the `tool_calls` entries (`function`, with Ollama's object
//! arguments; `custom`; LangChain's `{name, args, id}`; AutoGen's flat
//! `{name, arguments}`) and the legacy `function_call`, decoded for `extract` and
//! `convert`, and `convert`'s writer. Also the pieces of calls the streams of this
//! shape give: Chat chunks, xAI's, Cohere v2's and LangChain's `tool_call_chunks`.

use super::{Args, CallFragment, DecodedCall, DecodedResult};
use crate::convert::decode::{extra_of, set_string_arguments};
use crate::convert::emit::J;
use crate::convert::encode::{
    Notes, content_string, document, keep_extra, role_name, same_family, text_block,
};
use crate::convert::model::{CallPart, Format, Message, Part, Raw, ResultPart, Role, Transcript};
use crate::json::{Kind, Node, Obj};

/// A `role: "tool"` (or legacy `"function"`) message: the result of the call its
/// `tool_call_id` names; `status: "error"` (LangChain's) a failure.
pub(crate) fn tool_message<'a>(obj: &Obj<'a>) -> DecodedResult<'a> {
    DecodedResult {
        id: obj.str("tool_call_id"),
        name: obj.str("name"),
        content: obj.get("content"),
        wrapped: None,
        is_error: obj.is("status", "error"),
        members: &["role", "content", "tool_call_id", "name"],
        kind: None,
    }
}

/// An entry of a message's `executed_tools` (Groq's compound models: the tools the API
/// ran while it answered): the tool is named by its `type` (`search`, `visit`…), its
/// `arguments` are JSON text, and its `output` is its result. It has no id.
pub(crate) fn executed_tool<'a>(obj: &Obj<'a>) -> Option<DecodedCall<'a>> {
    let arguments = obj.get("arguments")?;
    Some(DecodedCall {
        kind: "executed_tool",
        name: Some(obj.str("type").filter(|t| !t.is_empty())?),
        id: None,
        namespace: None,
        qualifies: false,
        args: Args::Encoded(arguments),
        members: vec!["type", "arguments", "output"],
        typed: false,
        result: obj
            .get("output")
            .filter(|o| !o.is_null())
            .map(|o| (o, false)),
    })
}

/// An entry of a `tool_calls` array: OpenAI's (`function`, whose `arguments` Ollama
/// writes as an object; `custom`, free text), LangChain's (`name` + `args`), or a flat
/// `{id, name, arguments}` (AutoGen). `None` when it names no tool.
pub(crate) fn tool_calls_entry<'a>(obj: &Obj<'a>) -> Option<DecodedCall<'a>> {
    let decoded = |kind, name, args, members| DecodedCall {
        kind,
        name,
        id: obj.str("id"),
        namespace: None,
        qualifies: false,
        args,
        members,
        typed: false,
        result: None,
    };
    if let Some(function) = obj.obj("function") {
        let args = function
            .get("arguments")
            .or_else(|| function.get("parameters"));
        return Some(decoded(
            "function",
            function.str("name"),
            args.map_or(Args::Absent, Args::Encoded),
            vec!["id", "type", "function"],
        ));
    }
    if let Some(custom) = obj.obj("custom") {
        return Some(decoded(
            "custom",
            custom.str("name"),
            Args::Input(custom.get("input")),
            vec!["id", "type", "custom"],
        ));
    }
    if obj.has("args") {
        return langchain_entry(obj);
    }
    let name = obj.str("name")?;
    Some(decoded(
        "flat",
        Some(name),
        obj.get("arguments").map_or(Args::Absent, Args::Encoded),
        vec!["id", "name", "arguments"],
    ))
}

/// A LangChain entry: `{name, args, id, type: "tool_call"}`, `args` the arguments
/// object; an `invalid_tool_call`'s `args` is the text the model wrote.
pub(crate) fn langchain_entry<'a>(obj: &Obj<'a>) -> Option<DecodedCall<'a>> {
    let kind = if obj.is("type", "invalid_tool_call") {
        "invalid_tool_call"
    } else {
        "tool_call"
    };
    Some(DecodedCall {
        kind,
        name: Some(obj.str("name")?),
        id: obj.str("id"),
        namespace: None,
        qualifies: false,
        args: obj.get("args").map_or(Args::Absent, Args::Object),
        members: vec!["name", "args", "id", "type"],
        typed: false,
        result: None,
    })
}

/// A message's legacy `function_call` object (one call, no id).
pub(crate) fn function_call<'a>(fc: &Obj<'a>) -> DecodedCall<'a> {
    DecodedCall {
        kind: "function_call",
        name: fc.str("name"),
        id: None,
        namespace: None,
        qualifies: false,
        args: fc.get("arguments").map_or(Args::Absent, Args::Encoded),
        members: vec!["name", "arguments"],
        typed: false,
        result: None,
    }
}

/// A piece of a streamed `tool_calls` entry (a Chat chunk's `delta.tool_calls`, xAI's):
/// its `index`, its `id`, and the piece of its `function` (or `custom`). `None` for an
/// entry with neither.
pub(crate) fn call_fragment<'a>(entry: &Obj<'a>) -> Option<CallFragment<'a>> {
    let function = entry.obj("function").or_else(|| entry.obj("custom"))?;
    Some(CallFragment {
        index: entry.get("index").and_then(|i| i.u64()),
        id: entry.get("id"),
        ..function_fragment(&function)
    })
}

/// A piece of a streamed Cohere v2 `tool_calls` entry: OpenAI's shape, the piece of its
/// `function` (or of the entry itself, when flat) with its `id`. The event gives the
/// index.
pub(crate) fn cohere_call_fragment<'a>(entry: &Obj<'a>) -> CallFragment<'a> {
    let function = entry.obj("function").unwrap_or(*entry);
    CallFragment {
        id: entry.get("id"),
        ..function_fragment(&function)
    }
}

/// An entry of a LangChain chunk's `tool_call_chunks`: `{name, args, id, index}`, `args`
/// a piece of JSON text.
pub(crate) fn langchain_call_fragment<'a>(chunk: &Obj<'a>) -> CallFragment<'a> {
    CallFragment {
        index: chunk.get("index").and_then(|i| i.u64()),
        id: chunk.get("id"),
        ..function_fragment(chunk)
    }
}

/// The piece of a function a streamed call gives (also a Chat delta's legacy
/// `function_call`, which has no id): its `name`, and its arguments from the first of
/// `arguments` (JSON text, or Ollama's object), `input` (a custom tool's free text) and
/// `args` (LangChain's).
pub(crate) fn function_fragment<'a>(function: &Obj<'a>) -> CallFragment<'a> {
    CallFragment {
        index: None,
        id: None,
        name: function.get("name"),
        arguments: function
            .get("arguments")
            .or_else(|| function.get("input"))
            .or_else(|| function.get("args")),
        free_form: function.has("input") && !function.has("arguments"),
    }
}

/// The result an xAI `ROLE_TOOL` delta gives one of the server-side calls it repeats in
/// its `tool_calls`: the call's `id` and `function.name`, and the delta's `content`.
pub(crate) fn xai_tool_result<'a>(delta: &Obj<'a>, entry: &Obj<'a>) -> DecodedResult<'a> {
    DecodedResult {
        id: entry.str("id"),
        name: entry.obj("function").and_then(|f| f.str("name")),
        content: delta.get("content"),
        wrapped: None,
        is_error: false,
        members: &["role", "content", "tool_calls"],
        kind: None,
    }
}

/// Whether a `tool_calls` entry is a zero-valued placeholder (no name, no arguments):
/// no call, dropped without a word.
pub(crate) fn is_placeholder(node: &Node) -> bool {
    node.object()
        .and_then(|obj| tool_calls_entry(&obj).map(|d| d.is_placeholder()))
        .unwrap_or(false)
}

/// A `tool_calls` entry as `convert` reads it: a `function` call whose function object
/// holds only its name and arguments, or a `custom` call (read as `{"input": text}`, as
/// `extract` has it) whose input is text. `None` for others, which are then kept whole
/// in the message's `extra`.
pub(crate) fn call_part(node: &Node) -> Option<CallPart> {
    let obj = node.object()?;
    let d = tool_calls_entry(&obj)?;
    match d.kind {
        "custom" => {
            let custom = obj.obj("custom")?;
            let Args::Input(Some(input)) = d.args else {
                return None;
            };
            if input.kind() != Kind::String {
                return None;
            }
            let mut call = d.call_part(&obj).ok()??;
            call.extra = vec![("type".into(), Raw::string("custom"))];
            extra_of(&custom, &["name", "input"])
                .is_empty()
                .then_some(call)
        }
        "function" => {
            let function = obj.obj("function")?;
            let call = d.call_part(&obj).ok()??;
            extra_of(&function, &["name", "arguments"])
                .is_empty()
                .then_some(call)
        }
        _ => None,
    }
}

/// A LangChain `tool_calls` entry as `convert` reads it, or an `invalid_tool_calls`
/// one (`invalid`), whose `args` is the text the model wrote.
pub(crate) fn langchain_call_part(node: &Node, invalid: bool) -> Option<CallPart> {
    let obj = node.object()?;
    let d = langchain_entry(&obj)?;
    let mut call = CallPart::new(d.called(d.tool_name()?), Raw::empty_object());
    call.id = d.id.as_deref().map(str::to_owned);
    if let Args::Object(a) = d.args {
        match a.kind() {
            _ if invalid => set_string_arguments(&mut call, &a).ok()?,
            Kind::Object => call.arguments = Raw::compact(a.text()),
            Kind::Null => {}
            _ => return None,
        }
    }
    let kind = if invalid {
        "invalid_tool_call"
    } else {
        "tool_call"
    };
    let mut extra = extra_of(&obj, &d.members);
    if !obj.is("type", kind) && obj.has("type") {
        extra.push(("type".into(), Raw::new(obj.get("type")?.text())));
    }
    call.extra = extra;
    Some(call)
}

/// Writes `t` as OpenAI Chat Completions messages.
pub(crate) fn write(t: &Transcript, notes: &mut Notes) -> J {
    let to = Format::Openai;
    let mut out: Vec<J> = Vec::new();
    for m in &t.messages {
        let role = role_name(m, t, to);
        let mut current: Option<OpenaiMessage> = None;
        let flush = |current: &mut Option<OpenaiMessage>, out: &mut Vec<J>, notes: &mut Notes| {
            if let Some(c) = current.take() {
                out.push(c.finish(m, t, notes));
            }
        };
        for p in &m.parts {
            match p {
                Part::Result(r) => {
                    flush(&mut current, &mut out, notes);
                    let mut j = J::obj().with("role", J::str("tool"));
                    j.push_some("tool_call_id", r.call_id.as_deref().map(J::str));
                    j.push("content", openai_content(r));
                    if r.is_error {
                        notes.add(
                            "results marked as errors: OpenAI has no error flag on a tool message",
                        );
                    }
                    if m.role == Role::Tool {
                        keep_extra(&mut j, &m.extra, t, to, notes, "tool message fields");
                    }
                    out.push(j);
                }
                Part::Call(c) => {
                    let cur = current.get_or_insert_with(|| OpenaiMessage::new(&role));
                    cur.calls.push(write_call(c, t, notes));
                }
                Part::Text(text) => {
                    // Text after calls stays in their message: a message between the
                    // calls and their tool messages is refused. (Content goes before
                    // the calls there; the text of the role keeps its order.)
                    let cur = current.get_or_insert_with(|| OpenaiMessage::new(&role));
                    cur.blocks
                        .push(text_block(&text.text, &text.extra, t, to, notes));
                    cur.plain &= text.extra.is_empty();
                }
                // Not written: see `request::prepare`.
                Part::Reasoning(_) => {}
                Part::Block(raw) => {
                    let cur = current.get_or_insert_with(|| OpenaiMessage::new(&role));
                    if same_family(t, to) {
                        cur.blocks.push(J::Raw(raw.clone()));
                        cur.plain = false;
                    } else {
                        notes.add("content blocks other than text (images, documents) not written: kept only by --to json");
                    }
                }
            }
        }
        if current.is_none() && !m.parts.iter().any(|p| matches!(p, Part::Result(_))) {
            current = Some(OpenaiMessage::new(&role));
        }
        flush(&mut current, &mut out, notes);
    }
    document(t, "messages", out, to, notes)
}

/// One OpenAI message being built.
struct OpenaiMessage {
    role: String,
    blocks: Vec<J>,
    /// Every block is plain text: the content is written as one string.
    plain: bool,
    calls: Vec<J>,
}

impl OpenaiMessage {
    fn new(role: &str) -> OpenaiMessage {
        OpenaiMessage {
            role: role.to_owned(),
            blocks: Vec::new(),
            plain: true,
            calls: Vec::new(),
        }
    }

    fn finish(self, m: &Message, t: &Transcript, notes: &mut Notes) -> J {
        let mut j = J::obj().with("role", J::str(&self.role));
        let content = if self.plain {
            let mut s = String::new();
            for b in &self.blocks {
                if let J::Obj(members) = b
                    && let Some((_, J::Str(text))) = members.iter().find(|(k, _)| k == "text")
                {
                    s.push_str(text);
                }
            }
            if s.is_empty() && !self.calls.is_empty() {
                J::Null
            } else {
                J::Str(s)
            }
        } else {
            J::Arr(self.blocks)
        };
        j.push("content", content);
        if !self.calls.is_empty() {
            j.push("tool_calls", J::Arr(self.calls));
        }
        keep_extra(&mut j, &m.extra, t, Format::Openai, notes, "message fields");
        j
    }
}

fn write_call(c: &CallPart, t: &Transcript, notes: &mut Notes) -> J {
    // A custom tool's call read from OpenAI goes back as one: its text input.
    let custom = c
        .extra
        .iter()
        .any(|(k, v)| k == "type" && v.as_str() == "\"custom\"");
    if custom
        && same_family(t, Format::Openai)
        && c.arguments_raw.is_none()
        && let serde_json::Value::Object(mut o) = c.arguments.value()
        && o.len() == 1
        && let Some(serde_json::Value::String(input)) = o.remove("input")
    {
        let mut j = J::obj();
        j.push_some("id", c.id.as_deref().map(J::str));
        j.push("type", J::str("custom"));
        j.push(
            "custom",
            J::obj()
                .with("name", J::str(&c.name))
                .with("input", J::str(input)),
        );
        return j;
    }
    let mut function = J::obj().with("name", J::str(&c.name));
    function.push("arguments", J::str(c.arguments_text()));
    let mut j = J::obj();
    j.push_some("id", c.id.as_deref().map(J::str));
    j.push("type", J::str("function"));
    j.push("function", function);
    keep_extra(&mut j, &c.extra, t, Format::Openai, notes, "call fields");
    if c.namespace.is_some() && !c.name.contains('.') {
        notes.add("call namespaces not written: OpenAI has no field for them");
    }
    j
}

/// A tool message's content: a string, or text parts; other JSON as its text.
fn openai_content(r: &ResultPart) -> J {
    let v = r.content.as_str().trim_start();
    if v.starts_with('"') || (v.starts_with('[') && is_text_blocks(&r.content)) {
        J::Raw(r.content.clone())
    } else {
        J::Str(content_string(r))
    }
}

/// Content blocks, at least one, that are all `{"type":"text","text":…}`.
fn is_text_blocks(raw: &Raw) -> bool {
    match raw.value() {
        // An empty array is refused as a message's content.
        serde_json::Value::Array(items) => {
            !items.is_empty()
                && items.iter().all(|b| {
                    b.get("type").is_some_and(|t| t == "text")
                        && b.get("text").is_some_and(|t| t.is_string())
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ArgumentsPiece;
    use crate::json::Doc;

    /// The text of a piece's arguments, or `whole` and the object's text.
    fn arguments(f: &CallFragment) -> Option<String> {
        f.arguments().map(|a| match a {
            ArgumentsPiece::Text(t) => t.to_string(),
            ArgumentsPiece::Whole(v) => format!("whole {}", v.text()),
        })
    }

    #[test]
    fn chat_pieces_give_index_id_name_and_arguments() {
        let doc = Doc::parse(
            r#"{"index":2,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}"#,
        )
        .unwrap();
        let f = call_fragment(&doc.root().object().unwrap()).unwrap();
        assert_eq!(
            (f.index, f.id().as_deref(), f.name().as_deref()),
            (Some(2), Some("call_1"), Some("f"))
        );
        assert_eq!(arguments(&f).as_deref(), Some("{\"a\""));
        assert!(!f.free_form);
        // Later pieces give only arguments.
        let doc = Doc::parse(r#"{"index":2,"function":{"arguments":":1}"}}"#).unwrap();
        let f = call_fragment(&doc.root().object().unwrap()).unwrap();
        assert_eq!((f.id().as_deref(), f.name().as_deref()), (None, None));
        assert_eq!(arguments(&f).as_deref(), Some(":1}"));
        // A custom tool's input is free text.
        let doc = Doc::parse(r#"{"index":0,"custom":{"name":"sql","input":"SELECT"}}"#).unwrap();
        let f = call_fragment(&doc.root().object().unwrap()).unwrap();
        assert_eq!(f.name().as_deref(), Some("sql"));
        assert_eq!(arguments(&f).as_deref(), Some("SELECT"));
        assert!(f.free_form);
        let doc = Doc::parse(r#"{"index":0,"id":"x"}"#).unwrap();
        assert!(call_fragment(&doc.root().object().unwrap()).is_none());
    }

    #[test]
    fn function_pieces_take_objects_whole_and_leave_other_values() {
        let doc = Doc::parse(r#"{"name":"f","arguments":{"a":1}}"#).unwrap();
        let f = function_fragment(&doc.root().object().unwrap());
        assert_eq!(arguments(&f).as_deref(), Some(r#"whole {"a":1}"#));
        assert_eq!((f.index, f.id().as_deref()), (None, None));
        let doc = Doc::parse(r#"{"name":"f","arguments":7}"#).unwrap();
        let f = function_fragment(&doc.root().object().unwrap());
        assert!(f.arguments().is_none());
        // `arguments` is read before `input`: not free text then.
        let doc = Doc::parse(r#"{"name":"f","arguments":"{}","input":"x"}"#).unwrap();
        let f = function_fragment(&doc.root().object().unwrap());
        assert_eq!(arguments(&f).as_deref(), Some("{}"));
        assert!(!f.free_form);
    }

    #[test]
    fn cohere_and_langchain_pieces() {
        let doc = Doc::parse(
            r#"{"id":"f_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}"#,
        )
        .unwrap();
        let f = cohere_call_fragment(&doc.root().object().unwrap());
        assert_eq!(
            (f.id().as_deref(), f.name().as_deref()),
            (Some("f_1"), Some("f"))
        );
        assert_eq!(arguments(&f).as_deref(), Some("{\"a\""));
        // Flat, as some clients copy it.
        let doc = Doc::parse(r#"{"id":"f_2","name":"g","arguments":"{}"}"#).unwrap();
        let f = cohere_call_fragment(&doc.root().object().unwrap());
        assert_eq!(
            (f.id().as_deref(), f.name().as_deref()),
            (Some("f_2"), Some("g"))
        );
        let doc = Doc::parse(r#"{"name":"f","args":"{\"a\":","id":"call_1","index":1}"#).unwrap();
        let f = langchain_call_fragment(&doc.root().object().unwrap());
        assert_eq!(
            (f.index, f.id().as_deref(), f.name().as_deref()),
            (Some(1), Some("call_1"), Some("f"))
        );
        assert_eq!(arguments(&f).as_deref(), Some("{\"a\":"));
    }

    #[test]
    fn an_xai_tool_delta_answers_the_call_it_repeats() {
        let doc = Doc::parse(
            r#"{"role":"ROLE_TOOL","content":"4","tool_calls":[{"id":"call_1","type":"TOOL_CALL_TYPE_CODE_EXECUTION_TOOL","function":{"name":"code_execution","arguments":"{}"}}]}"#,
        )
        .unwrap();
        let delta = doc.root().object().unwrap();
        let entry = delta.items("tool_calls").next().unwrap().object().unwrap();
        let r = xai_tool_result(&delta, &entry);
        assert_eq!(
            (
                r.id.as_deref(),
                r.name.as_deref(),
                r.content.map(|c| c.text())
            ),
            (Some("call_1"), Some("code_execution"), Some("\"4\""))
        );
    }
}
