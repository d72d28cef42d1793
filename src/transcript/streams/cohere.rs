//! Cohere v2 chat stream events.

use super::Stream;
use crate::formats::openai;
use crate::json::{Node, Obj};

/// Cohere v2 chat stream events, told by `type` (hyphenated, unlike Anthropic's).
pub(super) const COHERE_EVENTS: &[&str] = &[
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
];

impl Stream {
    /// One Cohere v2 chat event. A call's pieces join by the event's `index` as Chat
    /// deltas do (`tool-call-start` gives the id, the name and the first piece); the
    /// tool plan is the model's text, `thinking` content its reasoning.
    pub(super) fn cohere(&mut self, obj: &Obj, line: u64) -> bool {
        let index = obj.get("index").and_then(|i| i.u64());
        let message = obj.obj("delta").and_then(|d| d.obj("message"));
        match obj.str("type").as_deref() {
            Some("message-start") => {
                self.key = obj.str("id").map(Into::into);
                self.line = line;
            }
            Some("tool-plan-delta") => {
                if let Some(plan) = message.and_then(|m| m.str("tool_plan")) {
                    self.push_text(&plan, line, false);
                }
            }
            Some("content-start" | "content-delta") => {
                let content = message.and_then(|m| m.obj("content"));
                if let Some(content) = content {
                    if let Some(text) = content.str("text") {
                        self.push_text(&text, line, false);
                    } else if let Some(thinking) = content.str("thinking") {
                        self.push_text(&thinking, line, true);
                    }
                }
            }
            Some("tool-call-start" | "tool-call-delta") => {
                // One call per event, as an object (a list in some clients' copies).
                let Some(calls) = message.and_then(|m| m.get("tool_calls")) else {
                    return false;
                };
                let calls: Vec<Node> = match calls.kind() {
                    crate::json::Kind::Array => calls.items().collect(),
                    _ => vec![calls],
                };
                for call in calls {
                    let Some(tc) = call.object() else { continue };
                    let mut fragment = openai::cohere_call_fragment(&tc);
                    fragment.index = index;
                    self.chat_fragment(0, fragment, line);
                }
            }
            Some("tool-call-end") => {
                let slot = match index {
                    Some(i) => self.chat_slots.get(&(0, i)).copied(),
                    None => self.last_of_choice.get(&0).copied(),
                };
                if let Some(p) = slot.and_then(|s| self.slot_mut(s)) {
                    p.complete = true;
                }
            }
            Some("message-end") => {
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
    use super::super::{TRUNCATED, run};

    #[test]
    fn cohere_pieces_join_by_index_and_the_plan_is_text() {
        let t = run(&[
            r#"{"id":"m","type":"message-start","delta":{"message":{"role":"assistant","tool_plan":"","tool_calls":[]}}}"#,
            r#"{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I will look."}}}"#,
            r#"{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"f_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}}}}"#,
            r#"{"type":"tool-call-start","index":1,"delta":{"message":{"tool_calls":{"id":"g_1","type":"function","function":{"name":"g","arguments":""}}}}}"#,
            r#"{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":":1}"}}}}}"#,
            r#"{"type":"tool-call-end","index":0}"#,
            r#"{"type":"tool-call-end","index":1}"#,
            r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hmm"}}}}"#,
            r#"{"type":"message-end","delta":{"finish_reason":"TOOL_CALL"}}"#,
        ]);
        let calls: Vec<_> = t
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.id.as_deref(), c.arguments.clone()))
            .collect();
        assert_eq!(calls.len(), 2);
        assert_eq!((calls[0].0, calls[0].1), ("f", Some("f_1")));
        assert_eq!(calls[0].2["a"], 1);
        // A call with no piece of arguments has none.
        assert_eq!((calls[1].0, calls[1].2.len()), ("g", 0));
        assert!(t.calls.iter().all(|c| c.is_valid()));
        let texts: Vec<_> = t
            .texts
            .iter()
            .map(|x| (x.text.as_str(), x.reasoning))
            .collect();
        assert_eq!(texts, [("hmm", true), ("I will look.", false)]);
        // Cut before its end, a call is truncated.
        let t = run(&[
            r#"{"id":"m","type":"message-start","delta":{"message":{"role":"assistant"}}}"#,
            r#"{"type":"tool-call-start","delta":{"message":{"tool_calls":{"id":"f_1","function":{"name":"f","arguments":"{\"a\""}}}}}"#,
        ]);
        assert_eq!(t.calls[0].errors, [TRUNCATED]);
    }
}
