//! LangChain `AIMessageChunk`s given on their own (LangGraph's streamed messages).

use super::Stream;
use crate::formats::openai;
use crate::json::{Node, Obj};

/// The body of a LangChain `AIMessageChunk` given on its own (LangGraph's
/// `stream_mode="messages"`, `astream` output): the `kwargs` of LangChain's serialized
/// (`dumpd`) form, or the message dict itself (`{"type": "AIMessageChunk", …}`).
/// Inside a list of messages (a `values` snapshot) a chunk is a whole message instead.
pub(crate) fn langchain_chunk<'a>(obj: &Obj<'a>) -> Option<Obj<'a>> {
    match obj.str("type")?.as_ref() {
        "AIMessageChunk" => Some(*obj),
        "constructor" if crate::transcript::roles::constructor_class(obj)? == "AIMessageChunk" => {
            obj.obj("kwargs")
        }
        _ => None,
    }
}

/// The reasoning LangChain keeps beside a message's content, in `additional_kwargs`: a
/// provider's `reasoning_content` string and the texts of a Responses `reasoning`
/// summary. Each text with the node it is told at (the string, or its summary part).
pub(crate) fn langchain_reasoning<'a>(
    body: &Obj<'a>,
) -> impl Iterator<Item = (std::borrow::Cow<'a, str>, Node<'a>)> + use<'a> {
    let extra = body.obj("additional_kwargs");
    let content = extra
        .and_then(|e| e.get("reasoning_content"))
        .filter(|r| r.kind() == crate::json::Kind::String)
        .map(|r| (r.str().unwrap_or_default(), r));
    let summary = extra
        .and_then(|e| e.obj("reasoning"))
        .into_iter()
        .flat_map(|r| r.items("summary"))
        .filter_map(|part| Some((part.object()?.str("text")?, part)));
    content.into_iter().chain(summary)
}

impl Stream {
    /// One LangChain `AIMessageChunk`: text and reasoning pieces, and `tool_call_chunks`
    /// whose `args` pieces join by message id and `index` as LangChain's own `concat`
    /// joins them. The chunk's `tool_calls` are LangChain's partial parse of the pieces
    /// seen so far (`{}` for the first): not calls.
    pub(super) fn langchain(&mut self, body: &Obj, line: u64) {
        let id = body.str("id");
        if self.key.is_none() {
            self.key = id.as_deref().map(Into::into);
            self.line = line;
        }
        match body.get("content") {
            Some(content) if content.kind() == crate::json::Kind::String => {
                self.push_text(&content.str().unwrap_or_default(), line, false);
            }
            Some(content) => {
                for block in content.items() {
                    let Some(block) = block.object() else {
                        continue;
                    };
                    let reasoning =
                        matches!(block.str("type").as_deref(), Some("thinking" | "reasoning"));
                    let text = block
                        .str("text")
                        .or_else(|| block.str("thinking"))
                        .or_else(|| block.str("reasoning"));
                    if let Some(text) = text {
                        self.push_text(&text, line, reasoning);
                    }
                }
            }
            None => {}
        }
        for (text, _) in langchain_reasoning(body) {
            self.push_text(&text, line, true);
        }
        // The calls of each message are numbered apart.
        let message = id.map_or(0, |id| crate::recent::hash_bytes(id.as_bytes()));
        for chunk in body.items("tool_call_chunks") {
            let Some(chunk) = chunk.object() else {
                continue;
            };
            self.chat_fragment(message, openai::langchain_call_fragment(&chunk), line);
        }
        let finished = body.obj("response_metadata").is_some_and(|m| {
            m.has("finish_reason") || m.has("stop_reason") || m.is("status", "completed")
        }) || body.is("chunk_position", "last");
        if finished {
            self.mark_done();
        }
    }
}
