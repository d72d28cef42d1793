//! Results paired with their calls: ids replayed in a recording's requests, Cline's
//! results that name only their tool, and copies of a result told once.

use super::{Ctx, Interpreter, MAX_OPEN_NAMED};
use crate::json::{Kind, Node};
use crate::model::{Call, Event, JsonText, ToolResult};

/// What a call in a recording's request is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Replay {
    /// A call handed on before (or read from text), replayed.
    Matched,
    /// A call of the request's own, in no response.
    Own,
}

/// A call's name and arguments, hashed: the same call replayed has the same digest.
/// Arguments still held as compact text are hashed as that text, which is what
/// serde_json writes for their map: decoding them to write them again cost a third of
/// the work on an API log, for every call, replayed or not.
pub(super) fn call_digest(call: &Call) -> u64 {
    let arguments = arguments_as_written(call);
    crate::recent::hash_parts(&[call.name.as_bytes(), arguments.as_bytes()])
}

/// A call's arguments as text to hash: the text that is not an object, else the
/// compact text still held, else the map written out.
pub(super) fn arguments_as_written(call: &Call) -> std::borrow::Cow<'_, str> {
    match (&call.arguments_raw, call.arguments.compact()) {
        (Some(raw), _) => raw.as_str().into(),
        (None, Some(text)) => text.into(),
        (None, None) => serde_json::to_string(&*call.arguments)
            .unwrap_or_default()
            .into(),
    }
}

impl Interpreter {
    /// A call in a recording's request history: the earliest call handed on with its
    /// name and arguments not replayed yet is the same call (for a call without an id,
    /// see below); when it had another id,
    /// results that answer the replayed id answer it. A call that matches none is the
    /// request's own (a history the client built, a call it inserted), unless the last
    /// response held text naming its tool: then it replays a call the json or text
    /// channel reads there (Groq's `failed_generation`), which the interpreter does not
    /// see, under an id the client made up.
    pub(super) fn replayed(&mut self, call: &Call) -> Replay {
        let Some(id) = &call.id else {
            // A call without an id (Gemini's, Ollama's) replays one handed on with its
            // name and arguments, or, its arguments written otherwise, one handed on
            // without an id; with none such, it is the request's own (a history the
            // client built before any response).
            let digest = call_digest(call);
            return if self.handed.iter().any(|h| h.1 == digest || h.0.is_none()) {
                Replay::Matched
            } else {
                Replay::Own
            };
        };
        if self.replayed_ids.contains_key(id) {
            return Replay::Matched;
        }
        if let Some(own) = self.handed.iter_mut().find(|h| h.0.as_ref() == Some(id)) {
            own.2 = true;
            return Replay::Matched;
        }
        let digest = call_digest(call);
        let Some(own) = self.handed.iter_mut().find(|h| !h.2 && h.1 == digest) else {
            if !self.response_text.contains(call.name.as_str()) {
                return Replay::Own;
            }
            if self.replayed_names.len() >= MAX_OPEN_NAMED * 16 {
                self.replayed_names.clear();
            }
            self.replayed_names.insert(id.clone(), call.name.clone());
            return Replay::Matched;
        };
        own.2 = true;
        if let Some(own_id) = &own.0 {
            if self.replayed_ids.len() >= MAX_OPEN_NAMED * 16 {
                self.replayed_ids.clear();
            }
            self.replayed_ids.insert(id.clone(), own_id.clone());
        }
        Replay::Matched
    }

    /// Cline's results in a user message's blocks (`[read_file for 'x'] Result:` and the
    /// blocks after it), each answering the earliest open call of the tool it names.
    pub(super) fn cline_results(&mut self, content: &Node, ctx: &Ctx) -> Vec<ToolResult> {
        use crate::convert::results::{ClineBlock, cline_groups};
        let nodes: Vec<Node> = content.items().collect();
        let texts: Vec<Option<String>> = nodes
            .iter()
            .map(|b| match b.kind() {
                Kind::String => b.str().map(|s| s.into_owned()),
                _ => b
                    .object()
                    .filter(|o| o.is("type", "text"))
                    .and_then(|o| o.str("text").map(|s| s.into_owned())),
            })
            .collect();
        let blocks: Vec<ClineBlock> = nodes
            .iter()
            .zip(&texts)
            .map(|(b, t)| match t {
                Some(t) => ClineBlock::Text(t),
                None if b
                    .object()
                    .and_then(|o| o.str("type"))
                    .is_some_and(|k| k.contains("tool_")) =>
                {
                    ClineBlock::Stop
                }
                None => ClineBlock::Other,
            })
            .collect();
        let mut out = Vec::new();
        for g in cline_groups(&blocks) {
            let Some(name) = g.name else { continue };
            let Some(at) = self.open_named.iter().position(|(_, n)| *n == name) else {
                continue;
            };
            let (id, _) = self.open_named.remove(at).expect("found");
            let header = texts[g.at].as_deref().unwrap_or_default();
            let rest = g
                .rest_at
                .map(|r| header[r..].trim_start_matches('\n'))
                .filter(|r| !r.trim().is_empty());
            let inner = &nodes[g.at + 1..g.end];
            let content = match (rest, inner) {
                (None, []) if g.rest_at.is_none() => JsonText::string(header),
                (None, []) => JsonText::string(""),
                (Some(r), []) => JsonText::string(r),
                (None, [one]) if texts[g.at + 1].is_some() => {
                    JsonText::string(texts[g.at + 1].as_deref().unwrap_or_default())
                }
                _ => {
                    let mut items: Vec<String> = Vec::new();
                    if let Some(r) = rest {
                        items.push(format!(
                            r#"{{"type":"text","text":{}}}"#,
                            serde_json::to_string(r).expect("a string serializes")
                        ));
                    }
                    items.extend(inner.iter().map(|n| n.kept_compact()));
                    JsonText::raw(format!("[{}]", items.join(",")))
                }
            };
            out.push(ToolResult {
                id: Some(id),
                name: Some(name),
                content,
                is_error: g.is_error,
                dialect: crate::convert::results::CLINE,
                line: ctx.lines.line(nodes[g.at].offset()),
            });
        }
        out
    }

    pub(super) fn result(&mut self, mut result: ToolResult) {
        if let Some(own) = result.id.as_ref().and_then(|id| self.replayed_ids.get(id)) {
            result.id = Some(own.clone());
        }
        if result.name.is_none()
            && let Some(name) = result
                .id
                .as_ref()
                .and_then(|id| self.replayed_names.get(id))
        {
            result.name = Some(name.clone());
        }
        // A request replays the results before it: one without an id is new only when
        // this request holds it more often than all before (it would otherwise answer a
        // newer open call of its tool).
        if self.history && result.id.is_none() && !self.request_result_is_new(&result) {
            return;
        }
        // A result that names its tool but not its call (Gemini's) answers the
        // earliest open call of that tool.
        if result.id.is_none()
            && let Some(name) = &result.name
            && let Some(at) = self.open_named.iter().position(|(_, n)| n == name)
        {
            result.id = self.open_named.remove(at).map(|(id, _)| id);
        }
        if let Some(id) = &result.id {
            let conversation = self.conversation.to_le_bytes();
            // A copy, told before the call it answers is closed: a provider that
            // gives two calls one id answers the second after the first's copy.
            if !self.seen_results.insert(crate::recent::hash_parts(&[
                &conversation,
                id.as_bytes(),
                result.content.as_str().as_bytes(),
            ])) {
                return;
            }
            let open = self.open_named.iter().position(|(o, _)| o == id);
            if let Some(at) = open {
                self.open_named.remove(at);
            }
            let key = crate::recent::hash_parts(&[&conversation, id.as_bytes()]);
            if open.is_some() {
                self.answered.insert(key);
            } else if self.answered.contains(key) {
                return;
            }
            // Results of an id no open call had (a log without its calls) are each told.
        }
        self.flush();
        self.events.push(Event::Result(result));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Arguments;

    /// The results of `lines`, fed one value each, by their content.
    fn results_of(lines: &[&str]) -> Vec<String> {
        let mut interp = Interpreter::new();
        let mut out = Vec::new();
        for (n, text) in lines.iter().enumerate() {
            let doc = crate::json::Doc::parse(text).unwrap();
            interp.feed(doc.root(), &crate::json::LineIndex::new(text, n as u64 + 1));
            out.extend(interp.drain().filter_map(|e| match e {
                Event::Result(r) => Some(r.content.as_str().to_owned()),
                _ => None,
            }));
        }
        interp.finish();
        out
    }

    #[test]
    fn a_result_replayed_in_another_form_is_told_once_and_a_reused_id_answers_again() {
        let call = |name: &str| {
            format!(
                r#"{{"role":"assistant","tool_calls":[{{"id":"c0","type":"function","function":{{"name":"{name}","arguments":"{{}}"}}}}]}}"#
            )
        };
        let (f, g) = (call("f"), call("g"));
        let results = results_of(&[
            &f,
            r#"{"role":"tool","tool_call_id":"c0","content":"Paris"}"#,
            // The same result as another client writes it back: no call of c0 is open.
            r#"{"role":"tool","tool_call_id":"c0","content":"{\"return_value\":\"Paris\"}"}"#,
            // The provider gives its next call the same id.
            &g,
            r#"{"role":"tool","tool_call_id":"c0","content":"Paris"}"#,
            r#"{"role":"tool","tool_call_id":"c0","content":"London"}"#,
        ]);
        assert_eq!(results, ["\"Paris\"", "\"London\""]);
    }

    /// A call replayed has the digest of the call it repeats whether its arguments came
    /// as compact text or as a map, and other arguments or another name change it.
    #[test]
    fn a_digest_is_the_same_for_arguments_as_text_and_as_a_map() {
        let text = r#"{"city":"Paris","n":[1,2.50,{"a":null}]}"#;
        let mut as_text = Call::new("get_weather", "openai", 1);
        as_text.arguments = Arguments::from_compact(text.to_owned());
        let mut as_map = Call::new("get_weather", "openai", 2);
        as_map.arguments = serde_json::from_str::<serde_json::Map<_, _>>(text)
            .unwrap()
            .into();
        assert_eq!(call_digest(&as_text), call_digest(&as_map));
        let mut other = as_map.clone();
        other.arguments = Arguments::from_compact(r#"{"city":"Rome"}"#.to_owned());
        assert_ne!(call_digest(&as_text), call_digest(&other));
        let mut renamed = as_text.clone();
        renamed.name = "get_time".into();
        assert_ne!(call_digest(&as_text), call_digest(&renamed));
    }

    /// A recording's events, fed as (request?, body) pairs, each an exchange's half:
    /// `role: text`, `call name id`, `result id`.
    fn recording(bodies: &[(bool, &str)]) -> Vec<String> {
        let mut interp = Interpreter::new();
        let mut out = Vec::new();
        for (n, (request, text)) in bodies.iter().enumerate() {
            interp.set_history(*request);
            let doc = crate::json::Doc::parse(text).unwrap();
            interp.feed(doc.root(), &crate::json::LineIndex::new(text, n as u64 + 1));
            interp.finish();
            out.extend(interp.drain().flat_map(|e| match e {
                Event::Turn(t) => {
                    let mut v: Vec<String> = t
                        .texts
                        .iter()
                        .map(|x| format!("{:?}: {}", t.role, x.text))
                        .collect();
                    v.extend(
                        t.calls
                            .iter()
                            .map(|c| format!("call {} {}", c.name, c.id.as_deref().unwrap_or("-"))),
                    );
                    v
                }
                Event::Result(r) => vec![format!("result {}", r.id.as_deref().unwrap_or("-"))],
                _ => vec![],
            }));
        }
        out
    }

    /// Gemini replays its results without ids in every request: an earlier result
    /// replayed is no new one, and does not answer the call the last response opened.
    #[test]
    fn a_replayed_result_without_an_id_answers_nothing_new() {
        let call = |q: &str| {
            format!(
                r#"{{"role":"model","parts":[{{"functionCall":{{"name":"search","args":{{"q":"{q}"}}}}}}]}}"#
            )
        };
        let result = |r: &str| {
            format!(
                r#"{{"role":"user","parts":[{{"functionResponse":{{"name":"search","response":{{"r":"{r}"}}}}}}]}}"#
            )
        };
        let response = |q: &str| format!(r#"{{"candidates":[{{"content":{}}}]}}"#, call(q));
        let user = r#"{"role":"user","parts":[{"text":"go"}]}"#;
        let first = format!(r#"{{"contents":[{user}]}}"#);
        let second = format!(r#"{{"contents":[{user},{},{}]}}"#, call("a"), result("1"));
        let third = format!(
            r#"{{"contents":[{user},{},{},{},{}]}}"#,
            call("a"),
            result("1"),
            call("b"),
            result("2")
        );
        let got = recording(&[
            (true, &first),
            (false, &response("a")),
            (true, &second),
            (false, &response("b")),
            (true, &third),
        ]);
        let calls: Vec<&String> = got.iter().filter(|l| l.starts_with("call")).collect();
        let results: Vec<&String> = got.iter().filter(|l| l.starts_with("result")).collect();
        assert_eq!(calls.len(), 2, "{got:?}");
        // One result each, and each the id of its own call, in order.
        let ids: Vec<&str> = calls
            .iter()
            .map(|c| c.rsplit(' ').next().unwrap())
            .collect();
        let answered: Vec<&str> = results
            .iter()
            .map(|r| r.rsplit(' ').next().unwrap())
            .collect();
        assert_eq!(answered, ids, "{got:?}");
    }

    const CALL_F: &str = r#"{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]}"#;

    /// A history the client built is in the first request only: its messages are the
    /// conversation's, told once however often later requests repeat them.
    #[test]
    fn a_history_built_in_the_first_request_is_the_conversations() {
        let first = format!(
            r#"{{"messages":[{{"role":"system","content":"Be brief."}},{{"role":"user","content":"Hi"}},{CALL_F},{{"role":"tool","tool_call_id":"t1","content":"ok"}},{{"role":"user","content":"And now?"}}]}}"#
        );
        let response = r#"{"choices":[{"message":{"role":"assistant","content":"Done."}}]}"#;
        let second = format!(
            r#"{{"messages":[{{"role":"system","content":"Be brief."}},{{"role":"user","content":"Hi"}},{CALL_F},{{"role":"tool","tool_call_id":"t1","content":"ok"}},{{"role":"user","content":"And now?"}},{{"role":"assistant","content":"Done."}},{{"role":"user","content":"Hi"}}]}}"#
        );
        let got = recording(&[(true, &first), (false, response), (true, &second)]);
        assert_eq!(
            got,
            [
                "System: Be brief.",
                "User: Hi",
                "Assistant: Let me look.",
                "call f t1",
                "result t1",
                "User: And now?",
                "Assistant: Done.",
                // Said a second time: the earlier requests held it once.
                "User: Hi",
            ]
        );
    }

    /// A call the client inserted in a later request (in no response) is a call, its
    /// result answers it, and the next request's copy of it is not another; a call
    /// replayed from a response is not, and neither is its text.
    #[test]
    fn a_call_inserted_by_the_client_is_handed_on_once() {
        let inserted = r#"{"role":"assistant","content":"Searching.","tool_calls":[{"id":"auto_1","type":"function","function":{"name":"search","arguments":"{\"q\":1}"}}]}"#;
        let second = format!(
            r#"{{"messages":[{{"role":"user","content":"Hi"}},{CALL_F},{{"role":"tool","tool_call_id":"t1","content":"ok"}},{inserted},{{"role":"tool","tool_call_id":"auto_1","content":"found"}}]}}"#
        );
        let third = format!(
            r#"{{"messages":[{{"role":"user","content":"Hi"}},{CALL_F},{{"role":"tool","tool_call_id":"t1","content":"ok"}},{inserted},{{"role":"tool","tool_call_id":"auto_1","content":"found"}},{{"role":"assistant","content":"Bye."}}]}}"#
        );
        let response = format!(r#"{{"choices":[{{"message":{CALL_F}}}]}}"#);
        let got = recording(&[
            (true, r#"{"messages":[{"role":"user","content":"Hi"}]}"#),
            (false, &response),
            (true, &second),
            (
                false,
                r#"{"choices":[{"message":{"role":"assistant","content":"Bye."}}]}"#,
            ),
            (true, &third),
        ]);
        assert_eq!(
            got,
            [
                "User: Hi",
                "Assistant: Let me look.",
                "call f t1",
                "result t1",
                // Its own text, beside its own call.
                "Assistant: Searching.",
                "call search auto_1",
                "result auto_1",
                "Assistant: Bye.",
            ]
        );
    }

    /// A call the next request replays under an id the client made up, which matches no
    /// call handed on, was read from the response's text when that text names its tool
    /// (Groq's `failed_generation`): not a call again; its results name the tool.
    #[test]
    fn a_replayed_call_that_the_response_wrote_as_text_is_not_a_new_call() {
        let failed =
            r#"{"error":{"failed_generation":"{\"name\": \"lookup\", \"arguments\": {}}"}}"#;
        let replay = r#"{"messages":[{"role":"user","content":"Go"},{"role":"assistant","tool_calls":[{"id":"made_up","type":"function","function":{"name":"lookup","arguments":"{}"}}]},{"role":"tool","tool_call_id":"made_up","content":"no"}]}"#;
        let mut interp = Interpreter::new();
        let mut results = Vec::new();
        let mut calls = 0;
        for (request, text) in [
            (true, r#"{"messages":[{"role":"user","content":"Go"}]}"#),
            (false, failed),
            (true, replay),
        ] {
            interp.set_history(request);
            let doc = crate::json::Doc::parse(text).unwrap();
            let lines = crate::json::LineIndex::new(text, 1);
            if !interp.feed(doc.root(), &lines) {
                interp.feed_unknown_json(doc.root(), text, 1, &lines);
            }
            interp.finish();
            for e in interp.drain() {
                match e {
                    Event::Turn(t) => calls += t.calls.len(),
                    Event::Result(r) => results.push(r.name),
                    _ => {}
                }
            }
        }
        assert_eq!(calls, 0);
        assert_eq!(results, [Some("lookup".to_owned())]);
    }

    /// A user message that answers calls and says more: its results come first, as
    /// the message holds them, then its text.
    #[test]
    fn a_requests_results_come_before_the_text_after_them() {
        let call = r#"{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]}"#;
        let request = format!(
            r#"{{"messages":[{{"role":"user","content":"Hi"}},{call},{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"ok"}},{{"type":"text","text":"More?"}}]}}]}}"#
        );
        let got = recording(&[(true, &request)]);
        assert_eq!(got, ["User: Hi", "call f t1", "result t1", "User: More?"]);
    }

    /// xAI's roles are `ROLE_USER` and the like: a conversation is still its messages up
    /// to the first user message, so the prompt the next request repeats is told once.
    #[test]
    fn a_conversation_with_xai_roles_is_told_once_across_requests() {
        let first = r#"{"messages":[{"role":"ROLE_USER","content":[{"text":"Hi"}]}]}"#;
        let response = r#"{"choices":[{"message":{"role":"assistant","content":"Hello."}}]}"#;
        let second = r#"{"messages":[{"role":"ROLE_USER","content":[{"text":"Hi"}]},{"role":"ROLE_ASSISTANT","content":[{"text":"Hello."}]},{"role":"ROLE_USER","content":[{"text":"More"}]}]}"#;
        let got = recording(&[(true, first), (false, response), (true, second)]);
        assert_eq!(got, ["User: Hi", "Assistant: Hello.", "User: More"]);
    }

    /// A recording is one conversation, also when its requests change format (an
    /// agent's history handed on to another provider's model): the prompt and the
    /// result the later request repeats in its own format are told once.
    #[test]
    fn a_recording_whose_requests_change_format_is_one_conversation() {
        let openai = r#"{"messages":[{"role":"user","content":"Hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}"#;
        let anthropic = r#"{"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"{\"return_value\":\"ok\"}"}]}]}"#;
        let response = r#"{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}"#;
        let got = recording(&[
            (true, r#"{"messages":[{"role":"user","content":"Hi"}]}"#),
            (false, response),
            (true, openai),
            (true, anthropic),
        ]);
        assert_eq!(got, ["User: Hi", "call f c1", "result c1"]);
    }

    /// A system prompt beside the messages (Anthropic's `system`, Gemini's
    /// `systemInstruction`, `instructions`) is the conversation's system turn, told
    /// once however often requests repeat it.
    #[test]
    fn a_requests_system_prompt_beside_its_messages_is_told_once() {
        let anthropic = r#"{"system":[{"type":"text","text":"Be brief."}],"messages":[{"role":"user","content":"Hi"}]}"#;
        let response = r#"{"choices":[{"message":{"role":"assistant","content":"Hello."}}]}"#;
        let got = recording(&[(true, anthropic), (false, response), (true, anthropic)]);
        assert_eq!(got, ["System: Be brief.", "User: Hi", "Assistant: Hello."]);
        let gemini = r#"{"systemInstruction":{"parts":[{"text":"Be kind."}]},"contents":[{"role":"user","parts":[{"text":"Hey"}]}]}"#;
        assert_eq!(
            recording(&[(true, gemini)]),
            ["System: Be kind.", "User: Hey"]
        );
        let responses = r#"{"instructions":"Be exact.","input":"Why?"}"#;
        assert_eq!(recording(&[(true, responses)])[0], "System: Be exact.");
    }

    /// Lines that each hold a conversation so far, with xAI's role names: a line that
    /// repeats the one before and goes on is the same conversation (its first messages
    /// up to the first user message), so its call is a copy, told once.
    #[test]
    fn a_conversation_with_xai_roles_keeps_its_scope_from_line_to_line() {
        let first = r#"{"messages":[{"role":"ROLE_SYSTEM","content":"S"},{"role":"ROLE_USER","content":"Hi"},{"role":"ROLE_ASSISTANT","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#;
        let second = r#"{"messages":[{"role":"ROLE_SYSTEM","content":"S"},{"role":"ROLE_USER","content":"Hi"},{"role":"ROLE_ASSISTANT","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"ROLE_USER","content":"More"}]}"#;
        let calls = |lines: &[&str]| {
            let mut interp = Interpreter::new();
            let mut calls = 0;
            for (n, text) in lines.iter().enumerate() {
                let doc = crate::json::Doc::parse(text).unwrap();
                interp.feed(doc.root(), &crate::json::LineIndex::new(text, n as u64 + 1));
                interp.finish();
                calls += interp
                    .drain()
                    .map(|e| match e {
                        Event::Turn(t) => t.calls.len(),
                        _ => 0,
                    })
                    .sum::<usize>();
            }
            calls
        };
        assert_eq!(calls(&[first, second]), 1);
        // Another user message after the same system prompt: another conversation,
        // whose call of the same id is its own.
        let other = first.replace("\"Hi\"", "\"Hello\"");
        assert_eq!(calls(&[first, &other]), 2);
    }
}
