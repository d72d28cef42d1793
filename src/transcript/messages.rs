//! The generic walk: every object recognized by its shape wherever it sits: messages
//! of any format, their content blocks, Responses items and Gemini Interactions
//! resources, with the calls and results they hold.

use super::roles::{langchain_body_key, message_role};
use super::streams;
use super::{Ctx, Interpreter, MAX_DEPTH, TurnKey, hash};
use crate::dialects::native;
use crate::json::{Kind, Node, Obj};
use crate::model::{JsonText, Role, ToolResult, Turn};
use std::borrow::Cow;

/// A result decoded by its format, as `extract` reports it.
fn decoded_result(
    d: crate::formats::DecodedResult,
    dialect: &'static str,
    line: u64,
) -> ToolResult {
    ToolResult {
        id: d.id.map(Into::into),
        name: d.name.map(Into::into),
        content: JsonText::of_opt(d.wrapped.or(d.content)),
        is_error: d.is_error,
        dialect,
        line,
    }
}

impl Interpreter {
    pub(super) fn walk(&mut self, node: &Node, ctx: &Ctx) -> bool {
        if ctx.depth > MAX_DEPTH {
            self.too_deep = true;
            return false;
        }
        let deeper = Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        let ctx = &deeper;
        match node.kind() {
            Kind::Object => match node.object() {
                Some(obj) => self.walk_obj(node, &obj, ctx),
                None => false,
            },
            Kind::Array => {
                let mut found = false;
                // Turns this list gave so far start here (the turn open before it, if
                // any, is flushed first).
                let first = self.events.len() + usize::from(self.open.is_some());
                for item in node.items() {
                    let given = self.events.len() + usize::from(self.open.is_some());
                    self.copied_call = None;
                    found |= self.walk(&item, ctx);
                    if let Some(id) = self.copied_call.take()
                        && !self.recording
                    {
                        self.place_before_copy(first..given, &id);
                    }
                }
                found
            }
            _ => false,
        }
    }

    pub(super) fn walk_obj(&mut self, node: &Node, obj: &Obj, ctx: &Ctx) -> bool {
        if let Some(role) = message_role(obj) {
            self.message(node, obj, role, ctx);
            return true;
        }
        // An Interactions event inside another value: its `step.start` holds a
        // placeholder for arguments that come later, never a call of its own.
        if streams::is_interactions_event(obj) {
            self.stream_event(node, obj, streams::Kind::Interactions, ctx);
            return true;
        }
        // A Gemini Interactions resource: its function_call steps (`outputs` in the
        // first API version) are calls, its function_result steps their results.
        if obj.has("id")
            && obj.has("status")
            && let Some(steps) = obj.arr("steps").or_else(|| obj.arr("outputs"))
            && steps
                .iter()
                .any(|s| s.object().is_some_and(|s| s.has("type")))
        {
            self.interaction(&steps, obj, ctx);
            return true;
        }
        // A response object: its id keys the turn of the messages inside.
        if let Some(output) = obj.arr("output")
            && (obj.is("object", "response") || obj.has("status") && obj.has("id"))
        {
            let key = obj.str("id").map(|id| hash(&id));
            for item in &output {
                if let Some(item_obj) = item.object() {
                    self.item(item, &item_obj, ctx, native::OPENAI_RESPONSES, key);
                }
            }
            self.item_results_done();
            return true;
        }
        // A bare Responses item (an `input` list of a request, a batch line).
        if let Some(kind) = obj.str("type")
            && (native::is_responses_call_item(obj) || kind.ends_with("_call_output"))
        {
            self.item(node, obj, ctx, native::OPENAI_RESPONSES, None);
            return true;
        }
        // Bare call and result objects outside any message.
        let mut turn = Turn::new(Role::Assistant, ctx.lines.line(node.offset()));
        if self.block(node, obj, &mut turn, ctx) {
            self.submit(turn, None);
            return true;
        }
        // OpenHands: an observation event answers the action with the same call id.
        if obj.has("observation")
            && let Some(meta) = obj.obj("tool_call_metadata")
            && let Some(id) = meta.str("tool_call_id")
        {
            self.result(ToolResult {
                id: Some(id.into_owned()),
                name: meta.str("function_name").map(Into::into),
                content: JsonText::of_opt(obj.get("content")),
                is_error: obj
                    .obj("extras")
                    .and_then(|e| e.get("exit_code"))
                    .and_then(|c| c.u64())
                    .is_some_and(|c| c != 0),
                dialect: native::OPENAI,
                line: ctx.lines.line(node.offset()),
            });
        }
        let mut inner = ctx.clone();
        if let Some(id) = obj.str("responseId").or_else(|| obj.str("response_id")) {
            inner.response = Some(hash(&id));
        } else if (obj.has("choices") || obj.has("candidates")) && obj.has("id") {
            inner.response = obj.str("id").map(|id| hash(&id));
        }
        let mut found = false;
        // Claude Code's structured copy of a tool result holds no calls.
        for child in obj.values_except("toolUseResult") {
            found |= self.walk(&child, &inner);
        }
        // A Gemini response is a known shape also when its candidates hold no parts (a
        // stream's last chunk, with only its finish reason): not text to read.
        found || obj.items("candidates").next().is_some()
    }

    /// A list (a snapshot of the whole history) repeats a call given before, after
    /// messages it gives for the first time: those came before that call's message.
    fn place_before_copy(&mut self, new: std::ops::Range<usize>, id: &str) {
        let end = new.end.min(self.events.len());
        for event in self.events.get_mut(new.start..end).unwrap_or_default() {
            if let crate::model::Event::Turn(turn) = event
                && turn.placement.is_none()
            {
                turn.placement = Some(crate::model::Placement::Before(id.to_owned()));
            }
        }
    }

    /// One message of any format: its text, native calls and results.
    fn message(&mut self, node: &Node, obj: &Obj, role: Role, ctx: &Ctx) {
        if let Some(key) = langchain_body_key(obj)
            && let Some(body_node) = obj.get(key)
            && let Some(body) = body_node.object()
        {
            let inner = Ctx {
                langchain: true,
                ..ctx.clone()
            };
            self.message(&body_node, &body, role, &inner);
            return;
        }
        let line = ctx.lines.line(node.offset());
        // The copies this message holds, apart from any before it.
        let outer_copy = self.copied_call.take();
        let key = obj
            .str("id")
            .filter(|_| obj.has("type") || obj.has("model") || ctx.langchain)
            .map(|id| hash(&id))
            .or(ctx.response);
        let mut turn = Turn::new(role, line);
        turn.origin = ctx.origin;
        // Results logged inside the message that made the calls follow its turn.
        let mut pending_results: Vec<ToolResult> = Vec::new();

        // A canonical transcript's tool message holds its result as a part.
        let answered = role == Role::Tool && !obj.has("parts");
        if answered {
            self.tool_message(node, obj, ctx);
        }
        match obj.get("content") {
            Some(content) if content.kind() == Kind::String => {
                let text = content.str().unwrap_or_default();
                let line = ctx.lines.line(content.offset());
                if role != Role::Tool {
                    turn.push_text(text, line, false);
                }
            }
            // A tool message's content parts are its result, read above.
            Some(content) if content.kind() == Kind::Array && !answered => {
                for block in content.items() {
                    self.content_block(&block, &mut turn, ctx);
                }
                if role == Role::User && !self.open_named.is_empty() {
                    pending_results.extend(self.cline_results(&content, ctx));
                }
            }
            _ => {}
        }
        // Parts are written once each (toolsift's own transcript, Gemini's contents): a
        // call repeated with its id and arguments in another message is made again.
        let distinct = std::mem::replace(&mut self.distinct_steps, true);
        for block in obj.items("parts") {
            self.content_block(&block, &mut turn, ctx);
        }
        self.distinct_steps = distinct;
        for key in ["reasoning_content", "reasoning"] {
            if let Some(r) = obj.get(key).filter(|r| r.kind() == Kind::String) {
                turn.push_text(
                    r.str().unwrap_or_default(),
                    ctx.lines.line(r.offset()),
                    true,
                );
            }
        }
        // Cohere's tool plan is what the model says before its calls: text, not reasoning.
        if let Some(plan) = obj.get("tool_plan").filter(|p| p.kind() == Kind::String) {
            turn.push_text(
                plan.str().unwrap_or_default(),
                ctx.lines.line(plan.offset()),
                false,
            );
        }
        // LangChain keeps a provider's reasoning beside the message (a serialized
        // message's body, or a message dict, which names its role by `type`).
        if ctx.langchain || !obj.has("role") && super::langchain_role(obj).is_some() {
            for (text, at) in streams::langchain_reasoning(obj) {
                turn.push_text(text, ctx.lines.line(at.offset()), true);
            }
        }
        // A tool message's `tool_calls` name the calls it answers (xAI repeats a
        // server-side call in the message holding its output): no new calls.
        let tool_calls = obj.get("tool_calls").filter(|_| role != Role::Tool);
        match tool_calls {
            Some(calls) if calls.kind() == Kind::Array => {
                let mut in_order = Vec::new();
                for entry in calls.items() {
                    if let Some(e) = entry.object()
                        && let Some(call) = native::tool_calls_entry(&entry, &e, ctx.lines)
                    {
                        in_order.push((call.id.clone(), call.name.clone()));
                        self.add_call(&mut turn, call);
                    }
                }
                if !in_order.is_empty() {
                    self.calls_in_order = (in_order, 0);
                }
            }
            Some(calls) if calls.kind() == Kind::String => {
                let text = calls.str().unwrap_or_default();
                for call in native::tool_calls_from_repr(&text, ctx.lines.line(calls.offset())) {
                    self.add_call(&mut turn, call);
                }
            }
            _ => {
                // Only the raw provider copy: LangChain keeps it in additional_kwargs.
                if let Some(extra) = obj.obj("additional_kwargs")
                    && let Some(calls) = extra.arr("tool_calls")
                {
                    for entry in calls {
                        if let Some(e) = entry.object()
                            && let Some(call) = native::tool_calls_entry(&entry, &e, ctx.lines)
                        {
                            self.add_call(&mut turn, call);
                        }
                    }
                }
            }
        }
        // Groq: the tools the API ran while it answered, each with its output.
        for entry in obj.items("executed_tools") {
            if let Some(e) = entry.object()
                && let Some(tool) = native::executed_tool(&entry, &e, ctx.lines, native::OPENAI)
            {
                pending_results.extend(self.add_executed(&mut turn, tool));
            }
        }
        // Gemini CLI: each entry of `toolCalls` is a call with its results inside.
        for entry in obj.items("toolCalls") {
            let Some(e) = entry.object() else { continue };
            let Some(call) = native::gemini_cli_call(&entry, &e, ctx.lines) else {
                continue;
            };
            let id = call.id.clone();
            self.add_call(&mut turn, call);
            for part in e.items("result") {
                let Some(response) = part.object().and_then(|p| p.obj("functionResponse")) else {
                    continue;
                };
                let d = crate::formats::gemini::function_response(&response);
                let mut result =
                    decoded_result(d, native::GEMINI_CLI, ctx.lines.line(part.offset()));
                result.id = result.id.or_else(|| id.clone());
                result.is_error |= crate::formats::gemini::cli_tool_call_failed(&e);
                pending_results.push(result);
            }
        }
        for entry in obj.items("invalid_tool_calls") {
            if let Some(e) = entry.object()
                && let Some(mut call) = native::tool_calls_entry(&entry, &e, ctx.lines)
            {
                if call.is_valid() {
                    call.errors.push("invalid tool call".into());
                }
                self.add_call(&mut turn, call);
            }
        }
        if let Some(fc) = obj.get("function_call")
            && let Some(fc_obj) = fc.object()
            && let Some(call) = native::function_call(&fc, &fc_obj, ctx.lines)
        {
            self.add_call(&mut turn, call);
        }
        // A copy of a message whose calls were given before adds its text to that
        // message (a snapshot after the stream: the stream gave no reasoning).
        if role == Role::Assistant
            && turn.calls.is_empty()
            && !self.recording
            && let Some(id) = &self.copied_call
        {
            turn.placement = Some(crate::model::Placement::Within(id.clone()));
        }
        if outer_copy.is_some() {
            self.copied_call = outer_copy;
        }
        self.submit(turn, key);
        for result in pending_results {
            self.result(result);
        }
    }

    /// `role: "tool"` / `"function"` messages are results.
    fn tool_message(&mut self, node: &Node, obj: &Obj, ctx: &Ctx) {
        let ids: Vec<String> = match obj.get("tool_call_id").and_then(|n| n.str()) {
            Some(id) => vec![id.into_owned()],
            None if obj.has("tool_call_ids") => obj
                .arr("tool_call_ids")
                .unwrap_or_default()
                .iter()
                .filter_map(|n| n.str().map(Into::into))
                .collect(),
            // xAI: the calls the message answers, repeated in it.
            None => obj
                .items("tool_calls")
                .filter_map(|c| c.object()?.str("id").map(Into::into))
                .collect(),
        };
        let dialect = if obj.is("role", "function") {
            native::OPENAI_FUNCTION_CALL
        } else if obj.is("type", "tool") || ctx.langchain {
            native::LANGCHAIN
        } else if obj.is("role", "ROLE_TOOL") {
            native::XAI
        } else {
            native::OPENAI
        };
        let mut base = decoded_result(
            crate::formats::openai::tool_message(obj),
            dialect,
            ctx.lines.line(node.offset()),
        );
        base.id = None;
        if ids.is_empty() {
            // A tool message that names no call (xAI's gRPC messages, Ollama's) answers
            // the calls of the message before it in order.
            let (calls, answered) = &mut self.calls_in_order;
            if base.name.is_none()
                && let Some((id, name)) = calls.get(*answered)
            {
                *answered += 1;
                base.id = id.clone();
                base.name = Some(name.clone());
            }
            self.result(base);
            return;
        }
        for id in ids {
            self.result(ToolResult {
                id: Some(id),
                ..base.clone()
            });
        }
    }

    /// One entry of a `content` or `parts` list.
    fn content_block(&mut self, node: &Node, turn: &mut Turn, ctx: &Ctx) {
        match node.kind() {
            Kind::String => {
                let text = node.str().unwrap_or_default();
                turn.push_text(text, ctx.lines.line(node.offset()), false);
            }
            Kind::Object => {
                let Some(obj) = node.object() else { return };
                if self.block(node, &obj, turn, ctx) {
                    return;
                }
                let line = ctx.lines.line(node.offset());
                let kind = obj.str("type");
                match kind.as_deref() {
                    Some("thinking") => {
                        let before = turn.texts.len();
                        turn.push_text(obj.str("thinking").unwrap_or_default(), line, true);
                        if turn.texts.len() > before
                            && let Some(signature) = obj.str("signature")
                        {
                            turn.sign_last_reasoning(&signature);
                        }
                    }
                    Some("reasoning") if obj.has("text") => {
                        turn.push_text(obj.str("text").unwrap_or_default(), line, true);
                    }
                    Some("reasoning") => {
                        for part in obj
                            .arr("summary")
                            .unwrap_or_default()
                            .into_iter()
                            .chain(obj.arr("content").unwrap_or_default())
                        {
                            if let Some(p) = part.object() {
                                turn.push_text(p.str("text").unwrap_or_default(), line, true);
                            }
                        }
                    }
                    _ => {
                        if let Some(text) = obj.str("text") {
                            let thought = obj.get("thought").and_then(|t| t.bool()) == Some(true);
                            turn.push_text(text, line, thought);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Call and result blocks that can stand inside or outside a message. Returns true
    /// when the object was one.
    fn block(&mut self, node: &Node, obj: &Obj, turn: &mut Turn, ctx: &Ctx) -> bool {
        let line = ctx.lines.line(node.offset());
        if let Some(kind) = obj.str("type") {
            if native::is_anthropic_call_type(&kind) {
                if let Some(call) = native::anthropic_block(node, obj, ctx.lines) {
                    self.add_call(turn, call);
                    return true;
                }
            } else if kind == "call" && obj.has("arguments") {
                if let Some(call) = native::toolsift_call(node, obj, ctx.lines) {
                    self.add_call(turn, call);
                    return true;
                }
            } else if kind == "result" && obj.has("content") && obj.has("is_error") {
                self.results_after_turn.push(ToolResult {
                    id: obj.str("call_id").map(Into::into),
                    name: obj.str("name").map(Into::into),
                    content: JsonText::of_opt(obj.get("content")),
                    is_error: obj.get("is_error").and_then(|e| e.bool()).unwrap_or(false),
                    dialect: native::TOOLSIFT,
                    line,
                });
                return true;
            } else if let Some(d) = crate::formats::anthropic::result(obj) {
                self.results_after_turn
                    .push(decoded_result(d, native::ANTHROPIC, line));
                return true;
            }
        }
        for key in ["functionCall", "function_call"] {
            if let Some(fc_node) = obj.get(key)
                && let Some(fc) = fc_node.object()
                && fc.has("name")
            {
                if crate::formats::gemini::is_streamed_call(&fc) {
                    // Streamed Gemini arguments: the stream state assembles them.
                    self.gemini_partial_start(&fc, line, ctx.response);
                    return true;
                }
                if let Some(mut call) = native::gemini_function_call(node, &fc, ctx.lines) {
                    // Digested as written, without the file's layout, as `convert`
                    // digests it.
                    let arguments = fc.get("args").map_or(Cow::Borrowed("{}"), |a| {
                        crate::json::without_layout(a.text())
                    });
                    self.give_id(&mut call, &arguments);
                    self.add_call(turn, call);
                    return true;
                }
            }
            if let Some(fc) = obj.obj(key)
                && !fc.has("name")
                && self.gemini_partial_active()
            {
                self.gemini_partial_continue(&fc);
                return true;
            }
        }
        for key in ["functionResponse", "function_response"] {
            if let Some(fr) = obj.obj(key) {
                let d = crate::formats::gemini::function_response(&fr);
                self.results_after_turn
                    .push(decoded_result(d, native::GEMINI, line));
                return true;
            }
        }
        if let Some(tu_node) = obj.get("toolUse")
            && let Some(tu) = tu_node.object()
            && let Some(call) = native::bedrock_tool_use(&tu_node, &tu, ctx.lines)
        {
            self.add_call(turn, call);
            return true;
        }
        if let Some(tr) = obj.obj("toolResult") {
            let d = crate::formats::bedrock::tool_result(&tr);
            self.results_after_turn
                .push(decoded_result(d, native::BEDROCK, line));
            return true;
        }
        false
    }

    /// One Responses-style item (API output, request input, Codex payload).
    pub(super) fn item(
        &mut self,
        node: &Node,
        obj: &Obj,
        ctx: &Ctx,
        dialect: &'static str,
        key: Option<TurnKey>,
    ) {
        let Some(kind) = obj.str("type") else { return };
        let line = ctx.lines.line(node.offset());
        let group_key = key.unwrap_or_else(|| hash(&format!("\u{0}items{}", self.item_group)));
        let mut turn = Turn::new(Role::Assistant, line);
        turn.origin = ctx.origin;
        match kind.as_ref() {
            _ if native::is_responses_call_item(obj) => {
                if let Some((call, result)) =
                    native::responses_item_with_result(node, obj, ctx.lines, dialect)
                {
                    self.add_call(&mut turn, call);
                    // After the model's items of this turn: a result ends a turn.
                    self.item_results.extend(result);
                }
            }
            _ if let Some(d) = crate::formats::responses::call_output(obj) => {
                self.item_group += 1;
                self.item_results_done();
                self.result(decoded_result(d, dialect, line));
                return;
            }
            "reasoning" => self.content_block(node, &mut turn, ctx),
            "message" => {
                let role = obj
                    .str("role")
                    .and_then(|r| Role::from_name(&r))
                    .unwrap_or(Role::Assistant);
                if role != Role::Assistant {
                    self.item_group += 1;
                    self.item_results_done();
                    self.message(
                        node,
                        obj,
                        role,
                        &Ctx {
                            response: None,
                            ..ctx.clone()
                        },
                    );
                    self.item_group += 1;
                    return;
                }
                for block in obj.items("content") {
                    self.content_block(&block, &mut turn, ctx);
                }
            }
            _ => return,
        }
        self.submit(turn, Some(group_key));
    }

    /// The steps of a Gemini Interactions resource, one turn keyed by its id.
    fn interaction(&mut self, steps: &[Node], obj: &Obj, ctx: &Ctx) {
        let key = obj.str("id").map(|id| hash(&id));
        let line = steps.first().map_or(0, |s| ctx.lines.line(s.offset()));
        let mut turn = Turn::new(Role::Assistant, line);
        turn.origin = ctx.origin;
        let mut results = Vec::new();
        for step in steps {
            let Some(s) = step.object() else { continue };
            if let Some(call) =
                native::interactions_step(step, &s, ctx.lines, native::GEMINI_INTERACTIONS)
            {
                self.add_call(&mut turn, call);
            } else if s.is("type", "function_result") {
                results.push(ToolResult {
                    id: s.str("call_id").map(Into::into),
                    name: s.str("name").map(Into::into),
                    content: JsonText::of_opt(s.get("result")),
                    is_error: s.get("is_error").and_then(|e| e.bool()).unwrap_or(false),
                    dialect: native::GEMINI_INTERACTIONS,
                    line: ctx.lines.line(step.offset()),
                });
            }
        }
        self.submit(turn, key);
        for r in results {
            self.result(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::LineIndex;
    use crate::model::Event;

    #[test]
    fn a_gemini_response_whose_candidate_holds_no_parts_is_known_and_empty() {
        let line = r#"{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model"},"finishReason":"STOP","index":0}]}]}"#;
        let mut interp = Interpreter::new();
        let doc = crate::json::Doc::parse(line).unwrap();
        assert!(interp.feed(doc.root(), &LineIndex::new(line, 1)));
        interp.finish();
        let texts = interp
            .drain()
            .any(|e| matches!(e, Event::Turn(t) if !t.texts.is_empty()));
        assert!(!texts);
    }

    #[test]
    fn a_tool_message_repeating_its_call_answers_it() {
        // xAI's ROLE_TOOL output of a server-side call, given without the call itself.
        let line = r#"{"id":"r","outputs":[{"index":1,"message":{"role":"ROLE_TOOL","content":"4","tool_calls":[{"id":"call_1","type":"TOOL_CALL_TYPE_CODE_EXECUTION_TOOL","function":{"name":"code_execution","arguments":"{}"}}]}}]}"#;
        let mut interp = Interpreter::new();
        let doc = crate::json::Doc::parse(line).unwrap();
        interp.feed(doc.root(), &LineIndex::new(line, 1));
        interp.finish();
        let events: Vec<Event> = interp.drain().collect();
        assert!(
            events
                .iter()
                .all(|e| !matches!(e, Event::Turn(t) if !t.calls.is_empty())),
            "{events:?}"
        );
        let results: Vec<&ToolResult> = events
            .iter()
            .filter_map(|e| match e {
                Event::Result(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].id.as_deref(), Some("call_1"));
        assert_eq!(results[0].dialect, native::XAI);
    }

    #[test]
    fn each_thinking_block_keeps_its_own_signature() {
        // An empty block's signature signs nothing read: it is not given to the
        // thinking before it.
        let line = r#"{"id":"m","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s1"},{"type":"thinking","thinking":"","signature":"s2"},{"type":"thinking","thinking":"b"},{"type":"thinking","thinking":"c","signature":"s3"}]}"#;
        let mut interp = Interpreter::new();
        let doc = crate::json::Doc::parse(line).unwrap();
        interp.feed(doc.root(), &LineIndex::new(line, 1));
        interp.finish();
        let signed: Vec<(String, Option<String>)> = interp
            .drain()
            .filter_map(|e| match e {
                Event::Turn(t) => Some(t.texts),
                _ => None,
            })
            .flatten()
            .map(|t| (t.text.clone(), t.signature.as_deref().map(Into::into)))
            .collect();
        assert_eq!(
            signed,
            [
                ("a".into(), Some("s1".into())),
                ("b".into(), None),
                ("c".into(), Some("s3".into()))
            ]
        );
    }
}
