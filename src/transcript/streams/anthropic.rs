//! Anthropic Messages stream events.

use super::{Pending, Stream};
use crate::dialects::native;
use crate::formats::anthropic;
use crate::json::Obj;
use crate::model::{JsonText, ToolResult};

pub(super) const ANTHROPIC_EVENTS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
];

impl Stream {
    pub(super) fn anthropic(&mut self, obj: &Obj, line: u64) -> bool {
        let index = obj.get("index").and_then(|i| i.u64()).unwrap_or(0);
        match obj.str("type").as_deref() {
            Some("message_start") => {
                if let Some(m) = obj.obj("message") {
                    self.key = m.str("id").map(Into::into);
                }
                self.line = line;
            }
            Some("content_block_start") => {
                let Some(block) = obj.obj("content_block") else {
                    return false;
                };
                let kind = block.str("type").unwrap_or_default();
                if let Some(call) = anthropic::call(&block) {
                    self.push_call(Pending::started(call, index, line));
                } else if kind == "text" {
                    self.push_text(&block.str("text").unwrap_or_default(), line, false);
                } else if kind == "thinking" {
                    self.thinking_blocks += 1;
                    self.signature = block.str("signature").unwrap_or_default().into_owned();
                    self.push_text(&block.str("thinking").unwrap_or_default(), line, true);
                } else if kind == "tool_result" || kind.ends_with("_tool_result") {
                    self.results.push(ToolResult {
                        id: block.str("tool_use_id").map(Into::into),
                        name: None,
                        content: JsonText::of_opt(block.get("content")),
                        is_error: block
                            .get("is_error")
                            .and_then(|e| e.bool())
                            .unwrap_or(false),
                        dialect: native::ANTHROPIC_STREAM,
                        line,
                    });
                }
            }
            Some("content_block_delta") => {
                let Some(delta) = obj.obj("delta") else {
                    return false;
                };
                if let Some(piece) = anthropic::input_json_delta(&delta) {
                    if let Some(p) = self.last_call_of(index) {
                        p.args.push_str(&piece);
                    }
                    return false;
                }
                match delta.str("type").as_deref() {
                    Some("text_delta") => {
                        self.push_text(&delta.str("text").unwrap_or_default(), line, false)
                    }
                    Some("thinking_delta") => {
                        self.push_text(&delta.str("thinking").unwrap_or_default(), line, true)
                    }
                    Some("signature_delta") => self
                        .signature
                        .push_str(&delta.str("signature").unwrap_or_default()),
                    _ => {}
                }
            }
            Some("content_block_stop") => {
                if let Some(p) = self.last_call_of(index) {
                    p.complete = true;
                }
            }
            Some("message_stop") => {
                self.mark_done();
                return true;
            }
            _ => {}
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;

    #[test]
    fn anthropic_partial_json_split_inside_an_escape() {
        let t = run(&[
            r#"{"type":"message_start","message":{"id":"m"}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\": \"a\\"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"b\"}"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
        ]);
        assert_eq!(t.calls[0].arguments["q"], "a\"b");
    }

    fn thinking_block(index: u64, signature: &str) -> [String; 3] {
        [
            format!(
                r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"thinking","thinking":"","signature":""}}}}"#
            ),
            format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"thinking_delta","thinking":"t{index}"}}}}"#
            ),
            format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"signature_delta","signature":"{signature}"}}}}"#
            ),
        ]
    }

    #[test]
    fn one_thinking_block_keeps_its_signature_and_two_joined_keep_none() {
        let start = r#"{"type":"message_start","message":{"id":"m"}}"#.to_owned();
        let one: Vec<String> = std::iter::once(start.clone())
            .chain(thinking_block(0, "sig0"))
            .collect();
        let refs: Vec<&str> = one.iter().map(String::as_str).collect();
        let t = run(&refs);
        assert_eq!(t.texts[0].text, "t0");
        assert_eq!(t.texts[0].signature.as_deref(), Some("sig0"));
        // Two blocks' thinking is read as one text, which neither signature signs.
        let two: Vec<String> = std::iter::once(start)
            .chain(thinking_block(0, "sig0"))
            .chain(thinking_block(1, "sig1"))
            .collect();
        let refs: Vec<&str> = two.iter().map(String::as_str).collect();
        let t = run(&refs);
        assert_eq!(t.texts[0].text, "t0t1");
        assert_eq!(t.texts[0].signature, None);
    }
}
