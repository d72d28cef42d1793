//! Agent session logs, each read as one conversation: Claude Code session and subagent
//! logs and Codex rollouts (JSON Lines of events, which `frame` makes one JSON array of
//! their lines), and Gemini CLI session documents.
//!
//! Where the fields of a log that are not messages go (nothing is lost):
//! - A message keeps its log line's fields in its `extra`, less what the message model
//!   holds: the line's `type` when it only repeats the role, and the Anthropic
//!   message's `role` and `content`. The Anthropic message's other fields (`id`,
//!   `model`, `usage`…) stay under `message`; a Codex item's stay as the Responses
//!   reader keeps them.
//! - Claude Code writes one API message over several lines, one content block each,
//!   sharing `message.id`; Codex writes the model's items one per line. The blocks of
//!   such lines are one message's parts, in order, and each further line's fields are
//!   one record of the message's `continuation_lines`.
//! - Lines that are not messages (Claude Code `summary`, `file-history-snapshot`,
//!   `system`, `progress`…; Codex `session_meta`, `turn_context`, and the `event_msg`
//!   lines that mirror the items, which are not read again) are kept whole, in order, in
//!   the `events_before` of the line after them; the ones after the last message in the
//!   transcript's `events_after`. Gemini CLI `info` and `error` entries likewise.

use super::emit::J;
use super::model::{Extra, Format, Message, Part, Raw, Role, Transcript};
use crate::json::{Kind, Node, Obj};
use anyhow::{Result, anyhow};

const EVENTS_BEFORE: &str = "events_before";
const EVENTS_AFTER: &str = "events_after";
const CONTINUATION: &str = "continuation_lines";

/// A line of a session log: Codex (`{timestamp, type, payload}`) or Claude Code (a
/// `type` with its session's ids, or a message line).
pub(crate) fn is_event_line(obj: &Obj) -> bool {
    if obj.has("payload") && obj.has("type") {
        return true;
    }
    let Some(kind) = obj.str("type") else {
        return false;
    };
    ["sessionId", "session_id", "parentUuid", "leafUuid", "uuid"]
        .iter()
        .any(|k| obj.has(k))
        || obj.has("messageId") && obj.has("snapshot")
        || matches!(kind.as_ref(), "user" | "assistant") && obj.obj("message").is_some()
}

/// One piece of a streamed response: a chunk or event of any stream `extract`
/// reassembles, so that `convert` reads it through that reader.
pub(crate) fn is_chunk(obj: &Obj) -> bool {
    obj.str("object").is_some_and(|o| o.ends_with(".chunk"))
        || crate::transcript::is_stream_event(obj)
}

/// The session logs read here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Log {
    ClaudeCode,
    Codex,
}

impl Log {
    /// The API format a log's messages are written in.
    pub(crate) fn format(self) -> Format {
        match self {
            Log::ClaudeCode => Format::Anthropic,
            Log::Codex => Format::Responses,
        }
    }
}

/// The log an array of lines is, told by its first object.
pub(crate) fn log_kind(root: &Node) -> Option<Log> {
    let first = root.items().find_map(|i| i.object())?;
    if first.has("payload") && first.has("type") {
        Some(Log::Codex)
    } else if is_event_line(&first) {
        Some(Log::ClaudeCode)
    } else {
        None
    }
}

pub(crate) fn read(root: &Node, log: Log) -> Result<Transcript> {
    let mut s = Session::new(log.format());
    for item in root.items() {
        let at = |e: anyhow::Error| anyhow!("line {}: {e:#}", line_of(root, &item));
        match log {
            Log::ClaudeCode => s.claude_code_line(&item).map_err(at)?,
            Log::Codex => s.codex_line(&item).map_err(at)?,
        }
    }
    Ok(s.finish())
}

/// The line of `item` in the text of `root` (a session log's lines, made one array).
fn line_of(root: &Node, item: &Node) -> usize {
    let before = &root.text()[..item.offset().saturating_sub(root.offset())];
    1 + before.bytes().filter(|&b| b == b'\n').count()
}

/// A conversation being built from log lines.
struct Session {
    t: Transcript,
    /// Lines that are not messages, since the last message line.
    events: Vec<Raw>,
    /// The message the last message line opened, and the records of its further lines.
    open: Option<usize>,
    continuation: Vec<J>,
    /// Claude Code: the `message.id` of the open message.
    group: Option<String>,
}

impl Session {
    fn new(source: Format) -> Session {
        Session {
            t: Transcript {
                source: Some(source),
                ..Transcript::default()
            },
            events: Vec::new(),
            open: None,
            continuation: Vec::new(),
            group: None,
        }
    }

    fn event(&mut self, node: &Node) {
        self.events.push(Raw::new(node.text()));
    }

    fn take_events(&mut self) -> Option<Raw> {
        if self.events.is_empty() {
            return None;
        }
        let texts: Vec<&str> = self.events.iter().map(Raw::as_str).collect();
        let raw = Raw(format!("[{}]", texts.join(",")));
        self.events.clear();
        Some(raw)
    }

    /// The last message is new, from a line with these fields.
    fn opened(&mut self, fields: Extra) {
        self.close();
        let events = self.take_events();
        let i = self.t.messages.len() - 1;
        let m = &mut self.t.messages[i];
        let own = std::mem::take(&mut m.extra);
        let mut extra: Extra = events
            .map(|e| (EVENTS_BEFORE.to_owned(), e))
            .into_iter()
            .collect();
        for (k, v) in fields {
            // A line's field never hides one of the message's own.
            let k = if own.iter().any(|(o, _)| *o == k) {
                format!("line.{k}")
            } else {
                k
            };
            extra.push((k, v));
        }
        extra.extend(own);
        m.extra = extra;
        self.open = Some(i);
    }

    /// The last message took the parts of a line with these fields.
    fn continued(&mut self, fields: Extra) {
        if self.open.is_none() {
            self.opened(fields);
            return;
        }
        let mut record = J::obj();
        if let Some(e) = self.take_events() {
            record.push(EVENTS_BEFORE, J::Raw(e));
        }
        for (k, v) in fields {
            record.push(&k, J::Raw(v));
        }
        self.continuation.push(record);
    }

    fn close(&mut self) {
        if let Some(i) = self.open.take()
            && !self.continuation.is_empty()
        {
            let records = J::Arr(std::mem::take(&mut self.continuation)).render(false);
            self.t.messages[i]
                .extra
                .push((CONTINUATION.to_owned(), Raw(records)));
        }
    }

    fn finish(mut self) -> Transcript {
        self.close();
        if let Some(e) = self.take_events() {
            self.t.extra.push((EVENTS_AFTER.to_owned(), e));
        }
        self.t
    }

    /// One Claude Code line: a `user` or `assistant` line with an Anthropic message;
    /// anything else is an event.
    fn claude_code_line(&mut self, node: &Node) -> Result<()> {
        let Some(obj) = node.object() else {
            self.event(node);
            return Ok(());
        };
        let kind = obj.str("type");
        let message = obj.obj("message");
        let (Some(kind), Some(message)) = (kind, message) else {
            self.event(node);
            return Ok(());
        };
        if !matches!(kind.as_ref(), "user" | "assistant") {
            self.event(node);
            return Ok(());
        }
        // The Claude Agent SDK's messages leave their role to the line's type.
        let mut m = if message.has("role") {
            super::read::api_message(&message)?
        } else if message.has("content") {
            super::read::api_message_of_role(&message, &kind)?
        } else {
            self.event(node);
            return Ok(());
        };
        let own = std::mem::take(&mut m.extra);
        let fields = line_fields(&obj, kind == m.role.name(), "message", Some(own));
        let id = message.str("id").map(|s| s.into_owned());
        let continues = m.role == Role::Assistant
            && id.is_some()
            && self.group == id
            && self.open.is_some_and(|i| i + 1 == self.t.messages.len())
            && self
                .t
                .messages
                .last()
                .is_some_and(|l| l.role == Role::Assistant);
        if continues {
            let last = self.t.messages.last_mut().expect("checked");
            last.parts.append(&mut m.parts);
            self.continued(fields);
        } else {
            self.t.messages.push(m);
            self.opened(fields);
            self.group = id;
        }
        Ok(())
    }

    /// One Codex line: a `response_item` holds a Responses item, read as the Responses
    /// reader reads it (the model's consecutive items are one message).
    fn codex_line(&mut self, node: &Node) -> Result<()> {
        let item = node.object().and_then(|obj| {
            let payload = obj.get("payload")?;
            let item = payload.object()?;
            obj.is("type", "response_item")
                .then_some((obj, payload, item))
        });
        let Some((obj, payload, item)) = item else {
            self.event(node);
            return Ok(());
        };
        let before = self.t.messages.len();
        let parts_before = self.t.messages.last().map_or(0, |m| m.parts.len());
        crate::formats::responses::item(&payload, &item, &mut self.t)?;
        let fields = line_fields(&obj, true, "payload", None);
        if self.t.messages.len() > before {
            self.opened(fields);
        } else if self.t.messages.last().map_or(0, |m| m.parts.len()) > parts_before {
            self.continued(fields);
        } else {
            // An item that gave no part (an empty message) still keeps its line.
            self.continued(fields);
        }
        Ok(())
    }
}

/// A line's fields as written, less its `type` (when it only repeats the role) and its
/// `inner` value, which is replaced by what a reader left of it (nothing when empty).
fn line_fields(obj: &Obj, skip_type: bool, inner: &str, left: Option<Extra>) -> Extra {
    let mut out = Vec::new();
    for (k, v) in obj.iter() {
        if skip_type && k == "type" {
            continue;
        }
        if k == inner {
            if let Some(left) = left.as_ref().filter(|l| !l.is_empty()) {
                let mut j = J::obj();
                j.push_extra(left);
                out.push((k.into_owned(), Raw(j.render(false))));
            }
            continue;
        }
        out.push((k.into_owned(), Raw::new(v.text())));
    }
    out
}

/// A Gemini CLI session document: `{sessionId, projectHash, …, messages}` whose
/// messages carry their kind in `type` (`user`, `gemini`, `info`, `error`).
pub(crate) fn is_gemini_cli(obj: &Obj, messages: &Node) -> bool {
    (obj.has("sessionId") || obj.has("projectHash"))
        && messages
            .items()
            .filter_map(|m| m.object())
            .all(|m| !m.has("role") && m.has("type"))
}

/// Gemini CLI: each `user` and `gemini` entry is a message (its `content` the text,
/// `toolCalls` its calls); each call's `result` (`functionResponse` parts) is a result
/// in a tool message after it. Other entries are events.
pub(crate) fn gemini_cli(obj: &Obj, messages: &Node) -> Result<Transcript> {
    let mut s = Session::new(Format::Gemini);
    s.t.extra = obj
        .iter()
        .filter(|(k, _)| k != "messages")
        .map(|(k, v)| (k.into_owned(), Raw::new(v.text())))
        .collect();
    for (i, node) in messages.items().enumerate() {
        gemini_cli_entry(&mut s, &node).map_err(|e| anyhow!("message {i}: {e:#}"))?;
    }
    Ok(s.finish())
}

fn gemini_cli_entry(s: &mut Session, node: &Node) -> Result<()> {
    let Some(obj) = node.object() else {
        s.event(node);
        return Ok(());
    };
    let role = match obj.str("type").as_deref() {
        Some("user") => Role::User,
        Some("gemini") => Role::Assistant,
        _ => {
            s.event(node);
            return Ok(());
        }
    };
    let mut m = Message::new(role);
    if role == Role::Assistant {
        m.role_as_written = Some("gemini".into());
    }
    let mut known = vec!["type", "content", "toolCalls"];
    match obj.get("content") {
        Some(c) if c.kind() == Kind::String => {
            let text = super::decode::text(&c, "content")?;
            // An empty content beside calls is no text.
            if !text.is_empty() {
                m.parts.push(Part::Text(super::model::TextPart::new(text)));
            }
        }
        Some(c) if c.kind() == Kind::Array => {
            for p in c.items() {
                crate::formats::gemini::part(&p, &mut m)?;
            }
        }
        _ => known.retain(|k| *k != "content"),
    }
    let mut results = Message::new(Role::Tool);
    for call in obj.items("toolCalls") {
        let Some(c) = call.object() else {
            m.parts.push(Part::Block(Raw::new(call.text())));
            continue;
        };
        let Some(part) = crate::formats::gemini::cli_tool_call(&c).call_part(&c)? else {
            // A nameless call stays as written.
            m.parts.push(Part::Block(Raw::new(call.text())));
            continue;
        };
        let failed = crate::formats::gemini::cli_tool_call_failed(&c);
        m.parts.push(Part::Call(part));
        for r in c.items("result") {
            let fr = r
                .object()
                .and_then(|o| o.obj("functionResponse").map(|f| (o, f)));
            let Some((outer, fr)) = fr else {
                results.parts.push(Part::Block(Raw::new(r.text())));
                continue;
            };
            let mut result = crate::formats::gemini::function_response(&fr).result_part(&fr, "{}");
            result.is_error |= failed;
            let mut extra = crate::convert::decode::extra_of(&outer, &["functionResponse"]);
            extra.append(&mut result.extra);
            result.extra = extra;
            results.parts.push(Part::Result(result));
        }
    }
    let fields: Extra = obj
        .iter()
        .filter(|(k, _)| !known.contains(&k.as_ref()))
        .map(|(k, v)| (k.into_owned(), Raw::new(v.text())))
        .collect();
    s.t.messages.push(m);
    s.opened(fields);
    if !results.parts.is_empty() {
        s.t.messages.push(results);
        s.opened(Vec::new());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Transcript> {
        let framed = super::super::frame::frame(text)?;
        assert_eq!(framed.docs.len(), 1, "a session log is one document");
        let doc = crate::json::Doc::parse(&framed.docs[0].text)?;
        super::super::frame::transcript(doc.root(), None)?.ok_or_else(|| anyhow!("no shape"))
    }

    const CLAUDE: &str = concat!(
        r#"{"type":"summary","summary":"Listing","leafUuid":"a-2"}"#,
        "\n",
        r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"list files"},"uuid":"u-1","timestamp":"t1"}"#,
        "\n",
        r#"{"parentUuid":"u-1","sessionId":"s","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Listing."}],"usage":{"output_tokens":1}},"uuid":"a-1","timestamp":"t2"}"#,
        "\n",
        r#"{"parentUuid":"a-1","sessionId":"s","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"output_tokens":9}},"uuid":"a-2","timestamp":"t3"}"#,
        "\n",
        r#"{"parentUuid":"a-2","sessionId":"s","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]},"uuid":"u-2","timestamp":"t4","toolUseResult":{"stdout":"a.txt"}}"#,
        "\n",
        r#"{"type":"system","subtype":"x","sessionId":"s","uuid":"y"}"#,
        "\n",
    );

    #[test]
    fn claude_code_lines_with_one_message_id_are_one_message() {
        let t = read_text(CLAUDE).unwrap();
        assert_eq!(t.source, Some(Format::Anthropic));
        assert_eq!(t.messages.len(), 3, "{t:#?}");
        let a = &t.messages[1];
        assert_eq!(a.role, Role::Assistant);
        assert_eq!(a.parts.len(), 2, "both blocks in one message");
        assert!(matches!(&a.parts[0], Part::Text(x) if x.text == "Listing."));
        assert!(matches!(&a.parts[1], Part::Call(c) if c.name == "Bash"));
        let get = |m: &Message, k: &str| {
            m.extra
                .iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.0.clone())
        };
        // The first line's fields, the message's own fields, then the second line's.
        assert_eq!(get(a, "uuid").as_deref(), Some("\"a-1\""));
        assert_eq!(
            get(a, "message").as_deref(),
            Some(r#"{"id":"msg_1","type":"message","model":"m","usage":{"output_tokens":1}}"#)
        );
        let more = get(a, CONTINUATION).expect("the second line's record");
        assert!(more.contains(r#""uuid":"a-2""#) && more.contains(r#""output_tokens":9"#));
        // Lines that are not messages stay, in order.
        let u = &t.messages[0];
        assert_eq!(u.extra[0].0, EVENTS_BEFORE);
        assert!(u.extra[0].1.0.contains(r#""summary":"Listing""#));
        assert!(
            matches!(&t.messages[2].parts[0], Part::Result(r) if r.call_id.as_deref() == Some("toolu_1"))
        );
        assert!(get(&t.messages[2], "toolUseResult").is_some());
        assert_eq!(t.extra[0].0, EVENTS_AFTER);
        assert!(t.extra[0].1.0.contains(r#""subtype":"x""#));
    }

    #[test]
    fn claude_code_lines_with_other_ids_stay_apart() {
        let text = CLAUDE.replacen(r#""id":"msg_1""#, r#""id":"msg_0""#, 1);
        let t = read_text(&text).unwrap();
        assert_eq!(t.messages.len(), 4);
    }

    #[test]
    fn codex_items_and_mirrors() {
        let text = concat!(
            r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"s"}}"#,
            "\n",
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
            "\n",
            r#"{"timestamp":"t2","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}"#,
            "\n",
            r#"{"timestamp":"t3","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n"}}"#,
            "\n",
            r#"{"timestamp":"t4","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1"}}"#,
            "\n",
            r#"{"timestamp":"t5","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a.txt"}}"#,
            "\n",
        );
        let t = read_text(text).unwrap();
        assert_eq!(t.source, Some(Format::Responses));
        assert_eq!(t.messages.len(), 3, "{t:#?}");
        let calls: Vec<&super::super::model::CallPart> = t.messages[1]
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Call(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].arguments.0, r#"{"input":"*** Begin Patch\n"}"#);
        // The mirror is kept, not read: one result.
        let tool = &t.messages[2];
        assert_eq!(tool.extra[0].0, EVENTS_BEFORE);
        assert!(tool.extra[0].1.0.contains("exec_command_end"));
        assert_eq!(tool.parts.len(), 1);
        assert_eq!(t.messages[0].extra[0].0, EVENTS_BEFORE);
    }

    #[test]
    fn a_stream_is_not_a_document() {
        let chunks = concat!(
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}"#,
            "\n",
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}"#,
            "\n",
        );
        for text in [
            chunks,
            "data: {\"type\":\"message_start\"}\n\ndata: {\"type\":\"message_stop\"}\n",
            "interactions:\n- request:\n",
            r#"[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]},{"candidates":[]}]"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}"#,
        ] {
            // Not a conversation document: convert reads it as extract does instead.
            let e = read_text(text).unwrap_err();
            assert!(
                e.downcast_ref::<crate::convert::frame::NotADocument>()
                    .is_some(),
                "{e:#}"
            );
            let e = format!("{e:#}");
            assert!(
                e.contains("stream") || e.contains("cassette") || e.contains("chunk"),
                "{e}"
            );
        }
    }
}
