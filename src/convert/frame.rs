//! One input's documents: a whole JSON document; JSON Lines with one conversation per
//! line (an OpenAI fine-tuning file converts line by line); or JSON Lines of session
//! events (Claude Code, Codex), which are one conversation together; and which reader
//! a document's shape calls for.

use super::model::{Format, Transcript};
use super::{read, sessions};
use crate::json::{Kind, Node};
use anyhow::Result;
use std::borrow::Cow;

/// What `convert` says of a stream: it reads whole conversations, and `extract`
/// reassembles streams.
pub(crate) const STREAM: &str = "read through extract's reader: messages, calls and results are kept, a stream's chunks and a log's other records are not";

/// Input that holds no conversation document (a stream, a cassette, plain text, a log
/// of another shape): `convert` then reads it as `extract` does, turn by turn.
#[derive(Debug)]
pub(crate) struct NotADocument(pub String);

impl std::fmt::Display for NotADocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotADocument {}

/// Fails with [`NotADocument`].
macro_rules! not_a_document {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new(NotADocument(format!($($arg)*))))
    };
}

pub(crate) struct Framed<'a> {
    pub(crate) docs: Vec<Doc<'a>>,
    /// The input was JSON Lines: the output is too.
    jsonl: bool,
}

impl Framed<'_> {
    pub(crate) fn lines(&self) -> bool {
        self.jsonl
    }
}

/// One document and the line it starts on.
pub(crate) struct Doc<'a> {
    /// Borrowed, or for a session log its lines made one JSON array (see [`session`]).
    pub(crate) text: Cow<'a, str>,
    pub(crate) line: u64,
}

/// Whether a line after the first non-blank one is a JSON value on its own: text that
/// is no JSON document is then JSON Lines whose first line is not JSON.
pub(crate) fn later_line_is_json(text: &str) -> bool {
    text.split('\n')
        .filter(|l| !l.trim().is_empty())
        .nth(1)
        .is_some_and(|l| {
            let l = l.trim();
            l.starts_with('{') && serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok()
        })
}

pub(crate) fn frame(text: &str) -> Result<Framed<'_>> {
    let trimmed = text.trim_start();
    // A value that ends on its first line, followed by more values, is JSON Lines.
    let first_line = text
        .split('\n')
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    // JSON as extract's auto-detection tells it: `[TOOL_CALLS]…` or `[f(a=1)]` is text.
    if !crate::input::starts_like_json(first_line.as_bytes()) {
        if let Some(what) = stream_text(trimmed) {
            not_a_document!("{what}");
        }
        not_a_document!("plain text");
    }
    // A value that ends on its first line is JSON Lines, even alone: a one-line input
    // gives a one-line output (a JSON Lines file of one conversation stays one).
    let one_line = match serde_json::from_str::<serde::de::IgnoredAny>(first_line) {
        Ok(_) => true,
        // `[2026-11-25 12:00:00] INFO …`: a log line, not an array that goes on.
        Err(e) if first_line.starts_with('[') && !e.is_eof() => not_a_document!("plain text"),
        Err(_) => false,
    };
    if !one_line {
        return Ok(Framed {
            docs: vec![Doc {
                text: Cow::Borrowed(text),
                line: 1,
            }],
            jsonl: false,
        });
    }
    let mut docs = Vec::new();
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        docs.push(Doc {
            text: Cow::Borrowed(line),
            line: n as u64 + 1,
        });
    }
    match lines_kind(&docs) {
        Lines::Chunks => not_a_document!("a stream of response chunks, one per line"),
        Lines::Events | Lines::Messages => Ok(Framed {
            docs: vec![Doc {
                text: Cow::Owned(session(text)),
                line: 1,
            }],
            jsonl: false,
        }),
        Lines::Conversations => Ok(Framed { docs, jsonl: true }),
    }
}

/// Text framing of a stream: server-sent events or a VCR cassette.
fn stream_text(trimmed: &str) -> Option<&'static str> {
    let first = trimmed.lines().next().unwrap_or("");
    if ["data:", "event:", "id:", "retry:"]
        .iter()
        .any(|p| first.starts_with(p))
        || first.starts_with(':')
    {
        return Some("a stream of server-sent events");
    }
    if crate::input::cassette::looks_like_cassette(trimmed) {
        return Some("a VCR cassette (recorded HTTP exchanges, often streams)");
    }
    None
}

#[derive(Debug, PartialEq)]
enum Lines {
    /// A conversation (request, response) a line: converted line by line.
    Conversations,
    /// A session log's events: one conversation.
    Events,
    /// One message a line: one conversation.
    Messages,
    /// A stream's chunks, read by extract's reader.
    Chunks,
}

/// What the lines of a JSON Lines file are, from the first lines that tell. Lines of no
/// known kind convert line by line: when the first holds no conversation, the input is
/// read by extract's reader (see `convert_documents`).
fn lines_kind(docs: &[Doc]) -> Lines {
    for doc in docs.iter().take(16) {
        let Ok(parsed) = crate::json::Doc::parse(&doc.text) else {
            continue;
        };
        let Some(obj) = parsed.root().object() else {
            continue;
        };
        if sessions::is_event_line(&obj) {
            return Lines::Events;
        }
        if obj.has("role") && (obj.has("content") || obj.has("tool_calls")) {
            return Lines::Messages;
        }
        // Gemini streams its chunks as whole responses, one per line.
        if sessions::is_chunk(&obj) || obj.has("candidates") {
            return Lines::Chunks;
        }
        // An empty `choices` (Azure's first chunk, which carries only its content
        // filter's results) tells nothing.
        let choices = obj.items("choices").next().is_some();
        if choices
            || ["messages", "contents", "input", "output"]
                .iter()
                .any(|k| obj.has(k))
        {
            return Lines::Conversations;
        }
    }
    Lines::Conversations
}

/// The lines of a session log as one JSON array, each line where it was: `[` before
/// the first, a comma after each but the last, `]` after the last. Values keep their
/// exact text, and line numbers stay those of the file.
fn session(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(0);
    let mut out = String::with_capacity(text.len() + lines.len() + 2);
    out.push('[');
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
        if i < last && !line.trim().is_empty() {
            out.push(',');
        }
        if i == last {
            out.push(']');
        }
    }
    out
}

/// Reads one value with the reader its shape calls for. `Ok(None)` when it holds no
/// conversation of a known shape.
pub(crate) fn transcript(root: Node, from: Option<Format>) -> Result<Option<Transcript>> {
    let forced = |f: Format| from.is_none_or(|want| want == f);
    if let Some(obj) = root.object() {
        if let Some(messages) = obj.get("messages").filter(|m| m.kind() == Kind::Array) {
            if forced(Format::Gemini) && sessions::is_gemini_cli(&obj, &messages) {
                return sessions::gemini_cli(&obj, &messages).map(Some);
            }
            if forced(Format::Json) && read::is_canonical(&messages) {
                return super::canonical::read(&obj).map(Some);
            }
            if crate::dialects::swe_agent::is_mini_trajectory(&obj) {
                let mut t = read::messages_transcript(&messages, Some(&obj), "messages")?;
                t.bare = false;
                t.origin = crate::model::Origin::MiniSweAgent;
                read::mini_swe_agent(&mut t);
                return Ok(Some(t));
            }
            let mut t = read::messages_transcript(&messages, Some(&obj), "messages")?;
            t.bare = false;
            if let Some(f) = from {
                t.source = Some(f);
            }
            return Ok(Some(t));
        }
        if let Some(contents) = obj.get("contents").filter(|m| m.kind() == Kind::Array) {
            return crate::formats::gemini::read(&obj, &contents).map(Some);
        }
        // A SWE-agent trajectory: its `history` is the conversation with the model.
        if let Some(history) = obj.get("history").filter(|h| {
            h.kind() == Kind::Array
                && h.items()
                    .next()
                    .and_then(|m| m.object())
                    .is_some_and(|m| m.has("role"))
        }) {
            let mut t = read::messages_transcript(&history, Some(&obj), "history")?;
            t.bare = false;
            t.origin = crate::model::Origin::SweAgent;
            read::swe_agent(&mut t, &obj)?;
            return Ok(Some(t));
        }
        if let Some(input) = obj.get("input").filter(|m| m.kind() == Kind::Array) {
            let mut t = crate::formats::responses::read(Some(&obj), &input)?;
            // A response that repeats its input beside its output: the conversation
            // is both, in that order.
            if let Some(output) = obj.get("output").filter(|o| o.kind() == Kind::Array) {
                t.extra.retain(|(k, _)| k != "output");
                for (i, item) in output.items().enumerate() {
                    let o = item
                        .object()
                        .ok_or_else(|| anyhow::anyhow!("output item {i}: not an object"))?;
                    crate::formats::responses::item(&item, &o, &mut t)
                        .map_err(|e| anyhow::anyhow!("output item {i}: {e}"))?;
                }
            }
            return Ok(Some(t));
        }
        if sessions::is_chunk(&obj) {
            not_a_document!("a response chunk (a piece of a stream)");
        }
        return read::response(&obj, from);
    }
    if root.kind() == Kind::Array {
        if let Some(log) = sessions::log_kind(&root)
            && forced(log.format())
        {
            return sessions::read(&root, log).map(Some);
        }
        let first = root.items().find_map(|i| i.object());
        let Some(first) = first else {
            return Ok(None);
        };
        if sessions::is_chunk(&first) || first.has("candidates") {
            not_a_document!("a stream of response chunks");
        }
        if first.has("parts") && (first.has("role") || from == Some(Format::Gemini)) {
            return crate::formats::gemini::read_bare(&root).map(Some);
        }
        // LangChain messages (`messages_to_dict`, `dumpd`) carry their role in `type`.
        if crate::transcript::langchain_role(&first).is_some() {
            let mut t = read::messages_transcript(&root, None, "messages")?;
            t.bare = true;
            return Ok(Some(t));
        }
        if first.has("type") && !first.has("role")
            || first.is("type", "message")
            || from == Some(Format::Responses)
        {
            return crate::formats::responses::read(None, &root).map(Some);
        }
        if first.has("role") {
            let mut t = read::messages_transcript(&root, None, "messages")?;
            t.bare = true;
            if let Some(f) = from {
                t.source = Some(f);
            }
            return Ok(Some(t));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Lines {
        let docs: Vec<Doc> = text
            .lines()
            .enumerate()
            .map(|(n, l)| Doc {
                text: Cow::Borrowed(l),
                line: n as u64 + 1,
            })
            .collect();
        lines_kind(&docs)
    }

    fn refused(text: &str) -> String {
        match frame(text) {
            Ok(_) => "framed".into(),
            Err(e) => e
                .downcast_ref::<NotADocument>()
                .map_or_else(|| format!("error: {e}"), |n| n.0.clone()),
        }
    }

    #[test]
    fn json_lines_are_told_by_the_first_line_that_says_what_they_are() {
        // Azure's first chunk carries only its content filter's results.
        let azure = concat!(
            r#"{"choices":[],"id":"","object":"","prompt_filter_results":[]}"#,
            "\n",
            r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}],"object":"chat.completion.chunk"}"#
        );
        assert_eq!(kind(azure), Lines::Chunks);
        // Bedrock's ConverseStream events, one per line: a stream extract reassembles.
        let bedrock = r#"{"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}}"#;
        assert_eq!(kind(bedrock), Lines::Chunks);
        assert_eq!(
            kind(r#"{"role":"user","content":"hi"}"#),
            Lines::Messages,
            "a message a line"
        );
        // Content without a role is no message (a line of some other record).
        assert_eq!(kind(r#"{"content":"hi","id":1}"#), Lines::Conversations);
        assert_eq!(
            kind(r#"{"messages":[{"role":"user","content":"hi"}]}"#),
            Lines::Conversations
        );
        assert_eq!(
            kind(r#"{"choices":[{"message":{"role":"assistant","content":"hi"}}]}"#),
            Lines::Conversations
        );
    }

    #[test]
    fn text_that_opens_with_a_bracket_is_text() {
        assert_eq!(
            refused("[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}]"),
            "plain text"
        );
        assert_eq!(refused("[get_weather(city='SF')]"), "plain text");
        assert_eq!(refused("{name} is called with {args}\n"), "plain text");
        assert_eq!(
            refused("[2026-11-25 12:00:00] INFO started\n[2026-11-25 12:00:01] INFO done"),
            "plain text"
        );
        // A document cut short is still a document, and fails as one when read.
        assert_eq!(
            refused("[\n  {\"role\": \"user\", \"content\": \"hi\"}"),
            "framed"
        );
        assert_eq!(
            refused(
                "{\"role\": \"user\", \"content\": \"a\"}\n{\"role\": \"assistant\", \"content\": \"b\"}\n"
            ),
            "framed"
        );
    }
}
