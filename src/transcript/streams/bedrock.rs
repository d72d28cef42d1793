//! Bedrock ConverseStream events.

use super::{Pending, Stream};
use crate::formats::bedrock;
use crate::json::Obj;

/// Bedrock ConverseStream events, each an object under its event's name (as the SDKs
/// give them, and as the binary event stream's frames are read).
pub(super) const BEDROCK_EVENTS: &[&str] = &[
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
];

/// Bedrock's last event, `{"metadata": {"usage": …, "metrics": …}}`.
pub(super) fn bedrock_metadata(obj: &Obj) -> bool {
    obj.obj("metadata")
        .is_some_and(|m| m.has("usage") && m.has("metrics"))
}

impl Stream {
    pub(super) fn bedrock(&mut self, obj: &Obj, line: u64) -> bool {
        let index_of = |event: &Obj| {
            event
                .get("contentBlockIndex")
                .and_then(|i| i.u64())
                .unwrap_or(0)
        };
        if obj.has("messageStart") {
            self.line = line;
        } else if let Some(event) = obj.obj("contentBlockStart") {
            if let Some(call) = bedrock::tool_use_start(&event) {
                let mut p = Pending::new(line);
                p.choice = index_of(&event);
                p.id = call.id.map(Into::into);
                p.name = call.name.unwrap_or_default().into_owned();
                self.push_call(p);
            }
        } else if let Some(event) = obj.obj("contentBlockDelta") {
            let index = index_of(&event);
            let Some(delta) = event.obj("delta") else {
                return false;
            };
            if let Some(input) = bedrock::tool_use_delta(&delta) {
                if let Some(p) = self.last_call_of(index) {
                    p.args.push_str(&input);
                }
            } else if let Some(text) = delta.str("text") {
                self.push_text(&text, line, false);
            } else if let Some(text) = delta.obj("reasoningContent").and_then(|r| r.str("text")) {
                self.push_text(&text, line, true);
            }
        } else if let Some(event) = obj.obj("contentBlockStop") {
            let index = index_of(&event);
            if let Some(p) = self.last_call_of(index) {
                p.complete = true;
            }
        } else if obj.has("messageStop") {
            // The metadata event may follow, and ends the stream.
            self.mark_done();
        } else if bedrock_metadata(obj) {
            return true;
        }
        false
    }
}
