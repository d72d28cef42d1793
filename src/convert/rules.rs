//! The rules of each target API that no schema states: which message answers which
//! call, what may be empty, what ids and names look like. Each broken rule is an HTTP
//! 400 from the API, so `--verify` reports it and fails the file.
//!
//! A call still open at the very end of a history (the model's last turn, not yet
//! answered) is what a client sends to get that answer: not an error.

use super::model::Format;
use serde_json::Value;
use std::collections::HashSet;

/// The broken rules of one written document, one line each (`messages[3]: …`).
pub fn check(doc: &Value, to: Format) -> Vec<String> {
    let mut out = Vec::new();
    match to {
        Format::Openai => openai(items(doc, "messages"), &mut out),
        Format::Anthropic => anthropic(items(doc, "messages"), &mut out),
        Format::Gemini => gemini(items(doc, "contents"), &mut out),
        Format::Responses => responses(items(doc, "input"), &mut out),
        Format::Json | Format::MandrakeJson | Format::Xml => {}
    }
    out
}

/// The document's list: a bare array, or the array under `key`.
fn items<'v>(doc: &'v Value, key: &str) -> &'v [Value] {
    let list = match doc {
        Value::Array(_) => Some(doc),
        _ => doc.get(key),
    };
    list.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// An id the Anthropic API takes (`^[a-zA-Z0-9_-]+$`).
pub(crate) fn anthropic_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A tool name the Anthropic API takes (`^[a-zA-Z0-9_-]{1,64}$`).
pub(crate) fn anthropic_name(name: &str) -> bool {
    name.len() <= 64 && anthropic_id(name)
}

fn openai(messages: &[Value], out: &mut Vec<String>) {
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        let at = format!("messages[{i}]");
        if m.get("reasoning_content").is_some() {
            out.push(format!("{at}: reasoning_content is not a request field"));
        }
        if let Some(Value::Array(parts)) = m.get("content")
            && parts.is_empty()
        {
            out.push(format!("{at}: content is an empty array"));
        }
        match role(m) {
            "tool" => {
                out.push(format!(
                    "{at}: a tool message that does not follow an assistant message with tool_calls"
                ));
                i += 1;
            }
            "assistant" => {
                let calls = m.get("tool_calls").and_then(Value::as_array);
                let content = m.get("content").is_some_and(|c| !c.is_null());
                if calls.is_some_and(Vec::is_empty) {
                    out.push(format!("{at}: tool_calls is empty"));
                }
                if !content && calls.is_none_or(Vec::is_empty) {
                    out.push(format!(
                        "{at}: an assistant message with neither content nor tool_calls"
                    ));
                }
                i += 1;
                let Some(calls) = calls.filter(|c| !c.is_empty()) else {
                    continue;
                };
                let mut open: Vec<&str> = calls
                    .iter()
                    .map(|c| c.get("id").and_then(Value::as_str).unwrap_or(""))
                    .collect();
                while let Some(t) = messages.get(i).filter(|t| role(t) == "tool") {
                    let id = t.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                    match open.iter().position(|o| *o == id) {
                        Some(p) => {
                            open.remove(p);
                        }
                        None => out.push(format!(
                            "messages[{i}]: tool_call_id {id:?} answers no call of messages[{}]",
                            i - 1
                        )),
                    }
                    i += 1;
                }
                if !open.is_empty() && i < messages.len() {
                    out.push(format!(
                        "{at}: tool_calls {open:?} are not answered by the tool messages right after it"
                    ));
                }
            }
            _ => i += 1,
        }
    }
}

fn blocks(m: &Value) -> &[Value] {
    m.get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn kind(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

fn anthropic(messages: &[Value], out: &mut Vec<String>) {
    let mut ids = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        let r = role(m);
        if r != "user" && r != "assistant" {
            out.push(format!("{at}: role {r:?} (user or assistant)"));
        }
        if i > 0 && role(&messages[i - 1]) == r {
            out.push(format!("{at}: two {r} messages in a row"));
        }
        match m.get("content") {
            Some(Value::String(s)) if blank(s) => {
                out.push(format!("{at}: empty or white-space-only content"));
            }
            Some(Value::Array(b)) if b.is_empty() => out.push(format!("{at}: empty content")),
            None => out.push(format!("{at}: no content")),
            _ => {}
        }
        let mut seen_other = false;
        for (j, b) in blocks(m).iter().enumerate() {
            let at = format!("{at}.content[{j}]");
            match kind(b) {
                "text" => {
                    if b.get("text").and_then(Value::as_str).is_none_or(blank) {
                        out.push(format!("{at}: empty or white-space-only text block"));
                    }
                    seen_other = true;
                }
                "tool_use" => {
                    if r != "assistant" {
                        out.push(format!("{at}: tool_use in a {r} message"));
                    }
                    let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                    if !anthropic_id(id) {
                        out.push(format!("{at}: id {id:?} is not ^[a-zA-Z0-9_-]+$"));
                    }
                    if !ids.insert(id.to_owned()) {
                        out.push(format!("{at}: id {id:?} used twice"));
                    }
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                    if !anthropic_name(name) {
                        out.push(format!(
                            "{at}: name {name:?} is not ^[a-zA-Z0-9_-]{{1,64}}$"
                        ));
                    }
                    if !b.get("input").is_some_and(Value::is_object) {
                        out.push(format!("{at}: input is not an object"));
                    }
                    seen_other = true;
                }
                "tool_result" => {
                    if r != "user" {
                        out.push(format!("{at}: tool_result in a {r} message"));
                    }
                    if seen_other {
                        out.push(format!("{at}: tool_result after another block"));
                    }
                    let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                    let asked = i.checked_sub(1).map(|p| &messages[p]).is_some_and(|p| {
                        blocks(p).iter().any(|c| {
                            kind(c) == "tool_use" && c.get("id").and_then(Value::as_str) == Some(id)
                        })
                    });
                    if !asked {
                        out.push(format!(
                            "{at}: tool_use_id {id:?} answers no tool_use of the message before"
                        ));
                    }
                    if let Some(Value::Array(parts)) = b.get("content") {
                        for (k, p) in parts.iter().enumerate() {
                            if kind(p) == "text"
                                && p.get("text").and_then(Value::as_str).is_none_or(blank)
                            {
                                out.push(format!("{at}.content[{k}]: empty text block"));
                            }
                        }
                    }
                }
                _ => seen_other = true,
            }
        }
        // Every tool_use answered in the next message (unless this is the last).
        if let Some(next) = messages.get(i + 1) {
            let answered: HashSet<&str> = blocks(next)
                .iter()
                .filter(|b| kind(b) == "tool_result")
                .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
                .collect();
            for b in blocks(m).iter().filter(|b| kind(b) == "tool_use") {
                let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                if !answered.contains(id) {
                    out.push(format!(
                        "{at}: tool_use {id:?} is not answered by a tool_result in the next message"
                    ));
                }
            }
        }
    }
    if let Some(last) = messages.last().filter(|m| role(m) == "assistant") {
        let ends_blank = match last.get("content") {
            Some(Value::String(s)) => s.ends_with(char::is_whitespace),
            Some(Value::Array(b)) => b.last().is_some_and(|b| {
                kind(b) == "text"
                    && b.get("text")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.ends_with(char::is_whitespace))
            }),
            _ => false,
        };
        if ends_blank {
            out.push(format!(
                "messages[{}]: a final assistant message ends with white space",
                messages.len() - 1
            ));
        }
    }
}

fn parts(m: &Value) -> &[Value] {
    m.get("parts")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The data keys of a Gemini part (one per part).
const PART_DATA: &[&str] = &[
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
];

fn gemini(contents: &[Value], out: &mut Vec<String>) {
    for (i, c) in contents.iter().enumerate() {
        let at = format!("contents[{i}]");
        let r = role(c);
        if r != "user" && r != "model" {
            out.push(format!("{at}: role {r:?} (user or model)"));
        }
        if parts(c).is_empty() {
            out.push(format!("{at}: no parts"));
        }
        for (j, p) in parts(c).iter().enumerate() {
            let at = format!("{at}.parts[{j}]");
            let data = PART_DATA.iter().filter(|k| p.get(**k).is_some()).count();
            if data != 1 {
                out.push(format!("{at}: {data} kinds of data in one part"));
            }
            if p.get("text").and_then(Value::as_str) == Some("") {
                out.push(format!("{at}: empty text"));
            }
            if let Some(f) = p.get("functionCall") {
                if f.get("name")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    out.push(format!("{at}: functionCall without a name"));
                }
                if f.get("args").is_some_and(|a| !a.is_object()) {
                    out.push(format!("{at}: functionCall.args is not an object"));
                }
            }
            if let Some(f) = p.get("functionResponse") {
                if f.get("name")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    out.push(format!("{at}: functionResponse without a name"));
                }
                if !f.get("response").is_some_and(Value::is_object) {
                    out.push(format!("{at}: functionResponse.response is not an object"));
                }
            }
        }
        // The turn after a function-call turn: one functionResponse per functionCall,
        // each naming its call.
        let calls: Vec<&Value> = parts(c)
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .collect();
        // A function-call turn comes right after the user's turn or a function-response
        // turn, never right after another model turn.
        if !calls.is_empty() && i > 0 && role(&contents[i - 1]) == "model" {
            out.push(format!(
                "{at}: a function-call turn right after another model turn"
            ));
        }
        let Some(next) = contents.get(i + 1) else {
            continue;
        };
        if calls.is_empty() {
            continue;
        }
        let mut responses: Vec<&Value> = parts(next)
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .collect();
        for call in &calls {
            let name = call.get("name");
            let id = call.get("id");
            let found = responses.iter().position(|r| match (id, r.get("id")) {
                (Some(a), Some(b)) => a == b && r.get("name") == name,
                _ => r.get("name") == name,
            });
            match found {
                Some(p) => {
                    responses.remove(p);
                }
                None => out.push(format!(
                    "{at}: functionCall {} is not answered by a functionResponse naming it in the next turn",
                    name.and_then(Value::as_str).unwrap_or("")
                )),
            }
        }
        if !responses.is_empty() {
            out.push(format!(
                "contents[{}]: {} functionResponse parts answer no functionCall of the turn before",
                i + 1,
                responses.len()
            ));
        }
    }
}

/// A Responses call item and the output item that answers it.
const RESPONSES_CALLS: &[(&str, &str)] = &[
    ("function_call", "function_call_output"),
    ("custom_tool_call", "custom_tool_call_output"),
];

fn responses(items: &[Value], out: &mut Vec<String>) {
    let call_of = |k: &str| RESPONSES_CALLS.iter().find(|(c, _)| *c == k);
    let output_of = |k: &str| RESPONSES_CALLS.iter().find(|(_, o)| *o == k);
    let answered: HashSet<(&str, &str)> = items
        .iter()
        .filter_map(|it| {
            let (call, _) = output_of(kind(it))?;
            Some((*call, it.get("call_id").and_then(Value::as_str)?))
        })
        .collect();
    // The calls of the last model turn (no item but calls and reasoning after them)
    // may be open.
    let open_tail = items
        .iter()
        .rposition(|it| kind(it) != "reasoning" && call_of(kind(it)).is_none())
        .map_or(0, |p| p + 1);
    let mut called = HashSet::new();
    for (i, it) in items.iter().enumerate() {
        let at = format!("input[{i}]");
        let k = kind(it);
        if let Some((call, output)) = call_of(k) {
            let id = it.get("call_id").and_then(Value::as_str).unwrap_or("");
            // The API answers a call_id given twice with "not unique".
            if !called.insert((*call, id)) {
                out.push(format!("{at}: call_id {id:?} not unique"));
            }
            if !answered.contains(&(*call, id)) && i < open_tail {
                out.push(format!("{at}: {call} {id:?} has no {output}"));
            }
            let (field, what) = match *call {
                "function_call" => ("arguments", "arguments"),
                _ => ("input", "input"),
            };
            if !it.get(field).is_some_and(Value::is_string) {
                out.push(format!("{at}: {what} is not a string"));
            }
            continue;
        }
        if let Some((call, output)) = output_of(k) {
            let id = it.get("call_id").and_then(Value::as_str).unwrap_or("");
            if !called.contains(&(*call, id)) {
                out.push(format!("{at}: {output} {id:?} answers no {call} before it"));
            }
            match it.get("output") {
                Some(Value::String(_)) => {}
                Some(Value::Array(parts)) => {
                    for (k, p) in parts.iter().enumerate() {
                        if !matches!(kind(p), "input_text" | "input_image" | "input_file") {
                            out.push(format!(
                                "{at}.output[{k}]: {:?} is not an input content part",
                                kind(p)
                            ));
                        }
                    }
                }
                _ => out.push(format!(
                    "{at}: output is neither a string nor input content parts"
                )),
            }
            continue;
        }
        if k == "reasoning" {
            if !it.get("id").is_some_and(Value::is_string) {
                out.push(format!("{at}: reasoning item without an id"));
            }
            if !it.get("summary").is_some_and(Value::is_array) {
                out.push(format!("{at}: reasoning item without a summary"));
            }
            if it.get("content").is_some_and(Value::is_null) {
                out.push(format!("{at}: reasoning content is null"));
            }
        }
    }
}

/// The fields read from a source that a target's request takes back, by what holds
/// them (the `what` of `encode::keep_extra`); any other field of the source is not
/// written and is named in the notes. `tests/api_schemas.rs` checks every row against
/// the providers' published schemas (`fixtures/api-schemas/`).
pub const ACCEPTED: &[(Format, &str, &[&str])] = &[
    (
        Format::Openai,
        "top-level fields",
        &[
            "audio",
            "frequency_penalty",
            "function_call",
            "functions",
            "logit_bias",
            "logprobs",
            "max_completion_tokens",
            "max_tokens",
            "metadata",
            "modalities",
            "model",
            "n",
            "parallel_tool_calls",
            "prediction",
            "presence_penalty",
            "prompt_cache_key",
            "reasoning_effort",
            "response_format",
            "safety_identifier",
            "seed",
            "stop",
            "store",
            "stream",
            "stream_options",
            "temperature",
            "tool_choice",
            "tools",
            "top_logprobs",
            "top_p",
            "user",
            "verbosity",
            "web_search_options",
        ],
    ),
    (Format::Openai, "message fields", &["name"]),
    (Format::Openai, "tool message fields", &[]),
    (Format::Openai, "call fields", &[]),
    (Format::Openai, "content block fields", &[]),
    (
        Format::Anthropic,
        "top-level fields",
        &[
            "cache_control",
            "container",
            "max_tokens",
            "metadata",
            "model",
            "stop_sequences",
            "stream",
            "temperature",
            "thinking",
            "tool_choice",
            "tools",
            "top_k",
            "top_p",
        ],
    ),
    (Format::Anthropic, "message fields", &[]),
    (
        Format::Anthropic,
        "content block fields",
        &["cache_control", "citations"],
    ),
    (
        Format::Anthropic,
        "call fields",
        &["cache_control", "caller"],
    ),
    (Format::Anthropic, "result fields", &["cache_control"]),
    (Format::Anthropic, "reasoning fields", &["signature"]),
    (
        Format::Gemini,
        "top-level fields",
        &[
            "cachedContent",
            "generationConfig",
            "safetySettings",
            "toolConfig",
            "tools",
        ],
    ),
    (Format::Gemini, "message fields", &[]),
    (
        Format::Gemini,
        "part fields",
        &[
            "thought",
            "thoughtSignature",
            "videoMetadata",
            "mediaResolution",
        ],
    ),
    (Format::Gemini, "reasoning fields", &["thoughtSignature"]),
    (Format::Gemini, "call fields", &["thoughtSignature"]),
    (Format::Gemini, "result fields", &[]),
    (
        Format::Responses,
        "top-level fields",
        &[
            "background",
            "include",
            "instructions",
            "max_output_tokens",
            "max_tool_calls",
            "metadata",
            "model",
            "parallel_tool_calls",
            "previous_response_id",
            "prompt",
            "prompt_cache_key",
            "reasoning",
            "safety_identifier",
            "store",
            "stream",
            "stream_options",
            "temperature",
            "text",
            "tool_choice",
            "tools",
            "top_logprobs",
            "top_p",
            "truncation",
            "user",
        ],
    ),
    (Format::Responses, "message fields", &[]),
    (Format::Responses, "content fields", &[]),
    (
        Format::Responses,
        "reasoning fields",
        &["encrypted_content", "status", "content"],
    ),
    (
        Format::Responses,
        "call fields",
        &["id", "status", "namespace"],
    ),
    (Format::Responses, "result fields", &["id", "status"]),
    (
        Format::Responses,
        "custom call fields",
        &["id", "namespace"],
    ),
    (Format::Responses, "custom result fields", &["id"]),
];

/// Whether a request of `to` takes a source field `key` held by `what`.
pub(crate) fn accepted(to: Format, what: &str, key: &str) -> bool {
    ACCEPTED
        .iter()
        .any(|(f, w, keys)| *f == to && *w == what && keys.contains(&key))
}

/// Whether `to` is an API request (the targets `prepare` changes anything for).
pub(crate) fn is_api(to: Format) -> bool {
    matches!(
        to,
        Format::Openai | Format::Anthropic | Format::Gemini | Format::Responses
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_calls_are_answered_right_after_their_message() {
        let good = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "assistant", "content": "done"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
        ]);
        assert_eq!(check(&good, Format::Openai), Vec::<String>::new());
        let split = json!({"messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "assistant", "content": "\n"},
            {"role": "tool", "tool_call_id": "a", "content": "1"}
        ]});
        let found = check(&split, Format::Openai);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("not answered"), "{found:?}");
        assert!(found[1].contains("does not follow"), "{found:?}");
        let empty = json!([{"role": "assistant", "tool_calls": [], "reasoning_content": "x"}]);
        assert_eq!(check(&empty, Format::Openai).len(), 3);
    }

    #[test]
    fn anthropic_results_come_first_in_the_next_message_with_good_ids() {
        let good = json!({"messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
                {"type": "text", "text": "thanks"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}}]}
        ]});
        assert_eq!(check(&good, Format::Anthropic), Vec::<String>::new());
        let bad = json!({"messages": [
            {"role": "assistant", "content": [
                {"type": "text", "text": "  "},
                {"type": "tool_use", "id": "functions.f:0", "name": "srv.f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "text", "text": "x"},
                {"type": "tool_result", "tool_use_id": "other", "content": "ok"}]},
            {"role": "user", "content": "again "}
        ]});
        let found = check(&bad, Format::Anthropic);
        for needle in [
            "white-space-only text block",
            "is not ^[a-zA-Z0-9_-]+$",
            "name \"srv.f\"",
            "tool_result after another block",
            "answers no tool_use",
            "not answered by a tool_result",
            "two user messages in a row",
        ] {
            assert!(
                found.iter().any(|f| f.contains(needle)),
                "{needle}: {found:?}"
            );
        }
        let prefill =
            json!([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b\n"}]);
        assert_eq!(check(&prefill, Format::Anthropic).len(), 1);
    }

    #[test]
    fn gemini_answers_each_call_once_by_name() {
        let good = json!({"contents": [
            {"role": "model", "parts": [
                {"functionCall": {"name": "f", "args": {}}},
                {"functionCall": {"name": "f", "args": {"x": 1}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "f", "response": {"content": 1}}},
                {"functionResponse": {"name": "f", "response": {"content": 2}}}]}
        ]});
        assert_eq!(check(&good, Format::Gemini), Vec::<String>::new());
        let bad = json!({"contents": [
            {"role": "model", "parts": [
                {"functionCall": {"name": "f", "args": []}},
                {"functionCall": {"name": "g", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "f", "response": "x"}},
                {"text": ""}]},
            {"role": "assistant", "parts": []}
        ]});
        let found = check(&bad, Format::Gemini);
        for needle in [
            "args is not an object",
            "response is not an object",
            "functionCall g is not answered",
            "empty text",
            "role \"assistant\"",
            "no parts",
        ] {
            assert!(
                found.iter().any(|f| f.contains(needle)),
                "{needle}: {found:?}"
            );
        }
    }

    #[test]
    fn responses_outputs_answer_calls_and_reasoning_has_an_id() {
        let good = json!([
            {"type": "message", "role": "user", "content": "hi"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"}
        ]);
        assert_eq!(check(&good, Format::Responses), Vec::<String>::new());
        let bad = json!({"input": [
            {"type": "reasoning", "summary": [], "content": null},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "message", "role": "user", "content": "hi"},
            {"type": "function_call_output", "call_id": "c9", "output": [{"type": "text", "text": "x"}]},
            {"type": "function_call", "call_id": "c1", "name": "g", "arguments": "{}"}
        ]});
        let found = check(&bad, Format::Responses);
        for needle in [
            "call_id \"c1\" not unique",
            "without an id",
            "content is null",
            "\"c1\" has no function_call_output",
            "answers no function_call",
            "not an input content part",
        ] {
            assert!(
                found.iter().any(|f| f.contains(needle)),
                "{needle}: {found:?}"
            );
        }
    }

    #[test]
    fn responses_custom_tool_calls_are_answered_by_their_own_outputs() {
        let good = json!([
            {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "x"},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "done"},
            {"type": "message", "role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
            {"type": "custom_tool_call", "call_id": "c3", "name": "patch", "input": "y"}
        ]);
        assert_eq!(check(&good, Format::Responses), Vec::<String>::new());
        let bad = json!([
            {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": 1},
            {"type": "function_call_output", "call_id": "c1", "output": "done"},
            {"type": "message", "role": "user", "content": "hi"}
        ]);
        let found = check(&bad, Format::Responses);
        for needle in [
            "input[0]: custom_tool_call \"c1\" has no custom_tool_call_output",
            "input[0]: input is not a string",
            "input[1]: function_call_output \"c1\" answers no function_call before it",
        ] {
            assert!(found.iter().any(|f| f == needle), "{needle}: {found:?}");
        }
    }

    #[test]
    fn gemini_function_call_turns_follow_the_users_turn_or_results() {
        let bad = json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"text": "let me look"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}
        ]);
        let found = check(&bad, Format::Gemini);
        assert_eq!(
            found,
            ["contents[2]: a function-call turn right after another model turn"]
        );
        let good = json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"text": "let me look"}, {"functionCall": {"name": "f", "args": {}}}]}
        ]);
        assert_eq!(check(&good, Format::Gemini), Vec::<String>::new());
    }

    #[test]
    fn a_request_takes_back_only_the_fields_its_api_knows_there() {
        assert!(accepted(Format::Openai, "message fields", "name"));
        assert!(!accepted(Format::Openai, "tool message fields", "name"));
        assert!(!accepted(Format::Anthropic, "message fields", "name"));
        assert!(accepted(Format::Anthropic, "reasoning fields", "signature"));
        assert!(accepted(Format::Responses, "call fields", "namespace"));
        assert!(!accepted(Format::Gemini, "call fields", "namespace"));
        assert!(!accepted(Format::Openai, "top-level fields", "usage"));
        assert!(accepted(Format::Openai, "top-level fields", "model"));
    }
}
