//! OpenAI Chat chunks, with Groq's `executed_tools`, and xAI's chunks, which continue
//! a response as Chat chunks do: call fragments joined by choice and index (or id).

use super::{MAX_OPEN_CALLS, Pending, Stream, flushed_key};
use crate::dialects::native::{self, ExecutedTool};
use crate::formats::openai;
use crate::formats::{ArgumentsPiece, CallFragment};
use crate::json::{LineIndex, Node, Obj};
use crate::model::{JsonText, ToolResult};

/// Whether a chat chunk starts an assistant message (`delta.role`).
pub(super) fn opens_message(obj: &Obj) -> bool {
    obj.items("choices").any(|c| {
        c.object()
            .and_then(|c| c.obj("delta"))
            .is_some_and(|d| d.has("role"))
    })
}

/// Whether a value whose `object` is `text_completion` is a legacy completion
/// (`/v1/completions`, through which local servers serve a model's raw output) or a
/// piece of one streamed: its text is in `choices[].text`, read as a chat chunk's
/// content.
pub(super) fn is_completion(obj: &Obj) -> bool {
    obj.items("choices")
        .next()
        .and_then(|c| c.object())
        .is_some_and(|c| c.has("text"))
}

impl Stream {
    pub(super) fn chat(&mut self, obj: &Obj, line: u64) -> bool {
        if self.key.is_none() {
            self.key = obj.str("id").map(Into::into);
        }
        for choice in obj.items("choices") {
            let Some(choice) = choice.object() else {
                continue;
            };
            let cidx = choice.get("index").and_then(|i| i.u64()).unwrap_or(0);
            if let Some(delta) = choice.obj("delta") {
                if let Some(text) = delta.str("content") {
                    self.push_text(&text, line, false);
                }
                for key in ["reasoning_content", "reasoning"] {
                    if let Some(text) = delta.str(key) {
                        self.push_text(&text, line, true);
                    }
                }
                for tc in delta.items("tool_calls") {
                    if let Some(fragment) = tc.object().and_then(|tc| openai::call_fragment(&tc)) {
                        self.chat_fragment(cidx, fragment, line);
                    }
                }
                // The one legacy call of a choice joins under an index no entry has.
                if let Some(fc) = delta.obj("function_call") {
                    let mut fragment = openai::function_fragment(&fc);
                    fragment.index = Some(u64::MAX);
                    self.chat_fragment(cidx, fragment, line);
                }
                for entry in delta.items("executed_tools") {
                    self.executed_tool(cidx, &entry, line);
                }
            } else if let Some(text) = choice.str("text") {
                self.push_text(&text, line, false);
            }
            // The calls of a finished choice are complete, those started later too
            // (see `settle`): not marked here, which would visit every call per chunk.
            if choice.str("finish_reason").is_some() {
                self.finished_choices.insert(cidx);
            }
        }
        false
    }

    /// One `executed_tools` entry of a chunk: it replaces the one of its index, keeping
    /// the output an earlier chunk gave.
    fn executed_tool(&mut self, cidx: u64, entry: &Node, line: u64) {
        let Some(e) = entry.object() else { return };
        let at = LineIndex::fixed(line);
        let Some(tool) = native::executed_tool(entry, &e, &at, native::OPENAI_CHAT_STREAM) else {
            return;
        };
        let key = (cidx, e.get("index").and_then(|i| i.u64()).unwrap_or(0));
        let full = self.executed.len() >= MAX_OPEN_CALLS;
        match self.executed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, known)) => {
                let result = tool.result.or_else(|| known.result.take());
                *known = ExecutedTool { result, ..tool };
            }
            None if !full => self.executed.push((key, tool)),
            None => {}
        }
    }

    /// An xAI chunk: each output's `delta` continues the text and calls of the
    /// response, as a Chat chunk's choices do. A `ROLE_TOOL` delta is a server-side
    /// tool's output, answering the calls it repeats: it ends the turn, and what the
    /// model says after it is the next one, as in the whole response.
    pub(super) fn xai(&mut self, obj: &Obj, line: u64) -> bool {
        let mut answered = false;
        if self.key.is_none() {
            self.key = obj.str("id").map(Into::into);
        }
        for output in obj.items("outputs") {
            let Some(output) = output.object() else {
                continue;
            };
            if let Some(delta) = output.obj("delta") {
                if delta.is("role", "ROLE_TOOL") {
                    for tc in delta.items("tool_calls") {
                        let Some(tc) = tc.object() else { continue };
                        let r = openai::xai_tool_result(&delta, &tc);
                        self.results.push(ToolResult {
                            id: r.id.map(Into::into),
                            name: r.name.map(Into::into),
                            content: JsonText::of_opt(r.content),
                            is_error: r.is_error,
                            dialect: native::XAI,
                            line,
                        });
                    }
                    answered = true;
                    continue;
                }
                if let Some(text) = delta.str("content") {
                    self.push_text(&text, line, false);
                }
                if let Some(text) = delta.str("reasoning_content") {
                    self.push_text(&text, line, true);
                }
                // A call comes whole, under its id; no index.
                for tc in delta.items("tool_calls") {
                    if let Some(fragment) = tc.object().and_then(|tc| openai::call_fragment(&tc)) {
                        self.chat_fragment(0, fragment, line);
                    }
                }
            }
            if output.str("finish_reason").is_some() {
                self.finished_choices.insert(0);
            }
        }
        answered
    }

    /// Joins a piece of a call to the call of its choice (or message) it continues: by
    /// its index when it has one, else by its id, else the choice's last call. A piece
    /// of no call under way starts one.
    pub(super) fn chat_fragment(&mut self, cidx: u64, fragment: CallFragment, line: u64) {
        let index = fragment.index;
        // An empty id joins nothing.
        let id = fragment
            .id()
            .filter(|id| !id.is_empty())
            .map(|id| id.into_owned());
        let slot = match (index, &id) {
            // Only fragments with an index make calls with one.
            (Some(i), _) => self.chat_slots.get(&(cidx, i)).copied(),
            // The last call of the choice with this id, or the last of the choice.
            (None, Some(id)) => self.chat_ids.get(&(cidx, id.clone())).copied(),
            (None, None) => self.last_of_choice.get(&cidx).copied(),
        };
        let slot = match slot {
            Some(s) => s,
            None => {
                // A late fragment of a call flushed by the bound is dropped.
                let flushed = match (index, &id) {
                    (Some(i), _) => flushed_key("index", cidx, &i.to_le_bytes()),
                    (None, Some(id)) => flushed_key("id", cidx, id.as_bytes()),
                    (None, None) => 0,
                };
                if (index.is_some() || id.is_some()) && self.flushed.contains(flushed) {
                    return;
                }
                let mut p = Pending::new(line);
                p.choice = cidx;
                p.index = index;
                let slot = self.push_call(p);
                if let Some(i) = index {
                    self.chat_slots.insert((cidx, i), slot);
                }
                slot
            }
        };
        let Some(p) = self.slot_mut(slot) else {
            return;
        };
        // id and name come once; some servers repeat them, which must not double them.
        let mut named = None;
        if p.id.is_none() {
            p.id = id;
            named = p.id.clone();
        }
        if p.name.is_empty()
            && let Some(name) = fragment.name()
        {
            p.name = name.into_owned();
        }
        match fragment.arguments() {
            Some(ArgumentsPiece::Text(piece)) => p.args.push_str(&piece),
            Some(ArgumentsPiece::Whole(value)) => p.value = Some(value.kept_compact()),
            None => {}
        }
        if fragment.free_form {
            p.free_form = true;
        }
        // The last call of the choice with an id is the one a fragment with only that id
        // continues.
        if let Some(id) = named {
            let last = self.chat_ids.entry((cidx, id)).or_insert(slot);
            *last = (*last).max(slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{obj_of, run};
    use super::*;

    #[test]
    fn chat_deltas_join_by_index_and_repeated_names_are_not_doubled() {
        let t = run(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":""}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"y","function":{"name":"g","arguments":"{\"b\""}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]},"finish_reason":"tool_calls"}]}"#,
        ]);
        assert_eq!(t.calls.len(), 2);
        assert_eq!(
            (t.calls[0].name.as_str(), t.calls[0].arguments["a"].clone()),
            ("f", 1.into())
        );
        assert_eq!(
            (t.calls[1].name.as_str(), t.calls[1].arguments["b"].clone()),
            ("g", 2.into())
        );
        assert!(t.calls.iter().all(|c| c.is_valid()));
    }

    #[test]
    fn a_streamed_legacy_completion_is_one_text() {
        let t = run(&[
            r#"{"id":"cmpl-1","object":"text_completion","choices":[{"text":"<tool_","index":0,"finish_reason":null}]}"#,
            r#"{"id":"cmpl-1","object":"text_completion","choices":[{"text":"call>{}","index":0,"finish_reason":"stop"}]}"#,
        ]);
        let texts: Vec<&str> = t.texts.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(texts, ["<tool_call>{}"]);
    }

    #[test]
    fn a_zero_valued_function_call_in_every_chunk_is_no_call() {
        let t = run(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi","function_call":{"name":"","arguments":""}}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":".","function_call":{"name":"","arguments":""}},"finish_reason":"stop"}]}"#,
        ]);
        assert!(t.calls.is_empty(), "{:?}", t.calls);
    }

    #[test]
    fn chunks_with_changing_ids_stay_one_response_until_it_finishes() {
        let lines = [
            r#"{"id":"a","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{\"a\""}}]}}]}"#,
            r#"{"id":"b","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"next"}}]}"#,
        ];
        let (_, first) = obj_of(lines[0]);
        let mut s = Stream::start(&first, 1);
        s.event(&first, 1);
        let (_, second) = obj_of(lines[1]);
        assert!(s.accepts(&second));
        s.event(&second, 2);
        let (_, third) = obj_of(lines[2]);
        assert!(!s.accepts(&third));
        let t = s.finish().0;
        assert_eq!(t.calls[0].arguments["a"], 1);
    }
}
