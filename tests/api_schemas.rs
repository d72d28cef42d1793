//! The vendored request schemas (fixtures/api-schemas/) accept the requests the providers
//! document and refuse the ones their APIs answer with HTTP 400.

use crate::common;

use crate::common::api_schemas::validate;
use serde_json::{Value, json};

fn assert_valid(target: &str, name: &str, request: Value) {
    let errors = validate(target, &request);
    assert!(errors.is_empty(), "{target} {name}: {errors:#?}");
}

/// Fails unless some violation is reported at `pointer` and mentions `needle`.
fn assert_invalid(target: &str, name: &str, request: Value, pointer: &str, needle: &str) {
    let errors = validate(target, &request);
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with(&format!("{pointer}: ")) && e.contains(needle)),
        "{target} {name}: expected a violation at {pointer} mentioning {needle:?}, got {errors:#?}"
    );
}

fn weather_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {"location": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
        "required": ["location"],
        "additionalProperties": false
    })
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

fn openai_tool_round() -> Value {
    json!([
        {"role": "developer", "content": "You are terse."},
        {"role": "user", "content": "Weather in Paris and in Bogotá?"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"location\": \"Paris\"}"}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"location\": \"Bogotá\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "14°C"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "18°C"}]},
        {"role": "assistant", "content": "Paris 14°C, Bogotá 18°C."}
    ])
}

#[test]
fn openai_accepts_documented_requests() {
    assert_valid("openai", "bare messages", openai_tool_round());
    assert_valid(
        "openai",
        "full request",
        json!({
            "model": "gpt-4.1",
            "messages": openai_tool_round(),
            "tools": [{"type": "function", "function": {
                "name": "get_weather", "description": "Current weather",
                "parameters": weather_parameters(), "strict": true}}],
            "tool_choice": "auto",
            "parallel_tool_calls": true,
            "temperature": 0.2,
            "max_completion_tokens": 200,
            "metadata": {"any key": "any value"}
        }),
    );
    assert_valid(
        "openai",
        "messages without model",
        json!({"messages": openai_tool_round(), "tools": []}),
    );
    assert_valid(
        "openai",
        "image part",
        json!([
            {"role": "system", "content": [{"type": "text", "text": "Describe images."}]},
            {"role": "user", "name": "ana", "content": [
                {"type": "text", "text": "What is in this image?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}}
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "A cat."}], "refusal": null}
        ]),
    );
}

#[test]
fn openai_refuses_what_the_api_refuses() {
    let mut request = openai_tool_round();
    request[1]["reasoning_content"] = json!("thinking…");
    assert_invalid(
        "openai",
        "unknown message field",
        request,
        "/1",
        "reasoning_content",
    );

    let mut request = openai_tool_round();
    request[2]["tool_calls"][0]["function"]["arguments"] = json!({"location": "Paris"});
    assert_invalid(
        "openai",
        "object arguments",
        request,
        "/2/tool_calls/0/function/arguments",
        "is not of type \"string\"",
    );

    let mut request = openai_tool_round();
    request[2]["tool_calls"][1]["index"] = json!(1);
    assert_invalid(
        "openai",
        "tool call field",
        request,
        "/2/tool_calls/1",
        "index",
    );

    let mut request = openai_tool_round();
    request[3].as_object_mut().unwrap().remove("tool_call_id");
    assert_invalid("openai", "no tool_call_id", request, "/3", "tool_call_id");

    assert_invalid(
        "openai",
        "unknown role",
        json!([{"role": "model", "content": "hi"}]),
        "/0/role",
        "is not one of",
    );
    assert_invalid(
        "openai",
        "unknown top-level field",
        json!({"messages": openai_tool_round(), "system": "be terse"}),
        "/",
        "system",
    );
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

fn anthropic_tool_round() -> Value {
    json!({
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and in Bogotá?"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "EqQBCgIYAhIM"},
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"location": "Paris"}},
                {"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {"location": "Bogotá"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "14°C"},
                {"type": "tool_result", "tool_use_id": "toolu_02", "is_error": true,
                 "content": [{"type": "text", "text": "station offline"}]}
            ]},
            {"role": "assistant", "content": [
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                {"type": "text", "text": "Paris 14°C; Bogotá unknown."}
            ]}
        ]
    })
}

#[test]
fn anthropic_accepts_documented_requests() {
    assert_valid("anthropic", "partial request", anthropic_tool_round());
    assert_valid(
        "anthropic",
        "bare messages",
        anthropic_tool_round()["messages"].clone(),
    );
    let mut full = anthropic_tool_round();
    full["model"] = json!("claude-sonnet-4-5");
    full["max_tokens"] = json!(1024);
    full["tools"] = json!([{"name": "get_weather", "description": "Current weather",
                            "input_schema": weather_parameters()}]);
    full["tool_choice"] = json!({"type": "auto", "disable_parallel_tool_use": false});
    full["thinking"] = json!({"type": "enabled", "budget_tokens": 2048});
    full["metadata"] = json!({"user_id": "u-1"});
    full["stop_sequences"] = json!(["\n\nHuman:"]);
    full["temperature"] = json!(1);
    full["stream"] = json!(false);
    assert_valid("anthropic", "full request", full);
    assert_valid(
        "anthropic",
        "image and document blocks",
        json!({"messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}},
            {"type": "text", "text": "Compare these.", "cache_control": {"type": "ephemeral"}}
        ]}]}),
    );
}

#[test]
fn anthropic_refuses_what_the_api_refuses() {
    let mut request = anthropic_tool_round();
    request["messages"][2]["content"][0]["name"] = json!("get_weather");
    assert_invalid(
        "anthropic",
        "tool_result with a name",
        request,
        "/messages/2/content/0",
        "name",
    );

    let mut request = anthropic_tool_round();
    request["messages"][1]["content"][2]["input"] = json!("{\"location\": \"Paris\"}");
    assert_invalid(
        "anthropic",
        "string input",
        request,
        "/messages/1/content/2/input",
        "is not of type \"object\"",
    );

    let mut request = anthropic_tool_round();
    request["messages"][0]["name"] = json!("ana");
    assert_invalid("anthropic", "message field", request, "/messages/0", "name");

    assert_invalid(
        "anthropic",
        "unknown block type",
        json!({"messages": [{"role": "user", "content": [{"type": "tool_call", "id": "x"}]}]}),
        "/messages/0/content/0/type",
        "is not one of",
    );
    assert_invalid(
        "anthropic",
        "tool_use without input",
        json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}]),
        "/0/content/0",
        "input",
    );
}

// ---------------------------------------------------------------------------------------------
// Gemini generateContent

fn gemini_tool_round() -> Value {
    json!({
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris and in Bogotá?"}]},
            {"role": "model", "parts": [
                {"text": "Planning the calls.", "thought": true},
                {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
                 "thoughtSignature": "CiQBcsjafE4="},
                {"functionCall": {"id": "c2", "name": "get_weather", "args": {"location": "Bogotá"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"temperature": 14}}},
                {"functionResponse": {"id": "c2", "name": "get_weather", "response": {"error": "offline"}}}
            ]},
            {"role": "model", "parts": [{"text": "Paris 14°C."}]}
        ]
    })
}

#[test]
fn gemini_accepts_documented_requests() {
    assert_valid("gemini", "partial request", gemini_tool_round());
    assert_valid(
        "gemini",
        "bare contents",
        gemini_tool_round()["contents"].clone(),
    );
    let mut full = gemini_tool_round();
    full["tools"] = json!([{"functionDeclarations": [{
        "name": "get_weather", "description": "Current weather",
        "parameters": {"type": "OBJECT", "properties": {"location": {"type": "STRING"}}}}]}]);
    full["toolConfig"] = json!({"functionCallingConfig": {"mode": "AUTO"}});
    full["generationConfig"] = json!({"temperature": 0.2, "maxOutputTokens": 256,
                                      "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 1024}});
    assert_valid("gemini", "full request", full);
    assert_valid(
        "gemini",
        "image parts",
        json!({"contents": [{"role": "user", "parts": [
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
            {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}},
            {"text": "Compare these."}
        ]}]}),
    );
}

#[test]
fn gemini_refuses_what_the_api_refuses() {
    let mut request = gemini_tool_round();
    request["contents"][1]["parts"][1]["function_call"] = json!({"name": "x"});
    assert_invalid(
        "gemini",
        "snake_case part key",
        request,
        "/contents/1/parts/1",
        "function_call",
    );

    let mut request = gemini_tool_round();
    request["contents"][2]["parts"][0]["functionResponse"]["response"] = json!("14°C");
    assert_invalid(
        "gemini",
        "string response",
        request,
        "/contents/2/parts/0/functionResponse/response",
        "is not of type \"object\"",
    );

    let mut request = gemini_tool_round();
    request["contents"][1]["parts"][1]["functionCall"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    assert_invalid(
        "gemini",
        "unnamed call",
        request,
        "/contents/1/parts/1/functionCall",
        "name",
    );

    assert_invalid(
        "gemini",
        "assistant role",
        json!([{"role": "assistant", "parts": [{"text": "hi"}]}]),
        "/0/role",
        "is not one of",
    );
    assert_invalid(
        "gemini",
        "unknown content key",
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}], "content": "hi"}]}),
        "/contents/0",
        "content",
    );
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

fn responses_tool_round() -> Value {
    json!([
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": [
            {"type": "input_text", "text": "Weather where this photo was taken?"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}
        ]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Looks like Paris."}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"location\": \"Paris\"}"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_time", "arguments": "{}", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": "14°C"},
        {"type": "function_call_output", "call_id": "call_2",
         "output": [{"type": "input_text", "text": "09:00"}]},
        {"type": "message", "role": "assistant", "content": "Paris, 14°C at 09:00."}
    ])
}

#[test]
fn responses_accepts_documented_requests() {
    assert_valid("responses", "bare input", responses_tool_round());
    assert_valid(
        "responses",
        "full request",
        json!({
            "model": "gpt-5",
            "instructions": "Be terse.",
            "input": responses_tool_round(),
            "tools": [{"type": "function", "name": "get_weather", "description": "Current weather",
                       "parameters": weather_parameters(), "strict": true}],
            "tool_choice": "auto",
            "reasoning": {"effort": "low", "summary": "auto"},
            "store": false,
            "include": ["reasoning.encrypted_content"]
        }),
    );
    assert_valid(
        "responses",
        "output message passed back",
        json!({"input": [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Hi.", "annotations": [], "logprobs": []}]},
            {"type": "item_reference", "id": "rs_1"},
            {"role": "user", "content": "Thanks"}
        ]}),
    );
}

#[test]
fn responses_refuses_what_the_api_refuses() {
    let mut request = responses_tool_round();
    request[5]["output"] = json!({"temperature": 14});
    assert_invalid("responses", "object output", request, "/5/output", "anyOf");

    let mut request = responses_tool_round();
    request[3]["arguments"] = json!({"location": "Paris"});
    assert_invalid(
        "responses",
        "object arguments",
        request,
        "/3/arguments",
        "is not of type \"string\"",
    );

    let mut request = responses_tool_round();
    request[5]["is_error"] = json!(true);
    assert_invalid("responses", "error flag", request, "/5", "is_error");

    let mut request = responses_tool_round();
    request[2].as_object_mut().unwrap().remove("summary");
    assert_invalid(
        "responses",
        "reasoning without summary",
        request,
        "/2",
        "summary",
    );

    assert_invalid(
        "responses",
        "chat-style tool message",
        json!([{"role": "tool", "tool_call_id": "call_1", "content": "14°C"}]),
        "/0/role",
        "is not one of",
    );
    assert_invalid(
        "responses",
        "unknown item type",
        json!({"input": [{"type": "tool_result", "call_id": "c"}]}),
        "/input/0/type",
        "is not one of",
    );
}

// ---------------------------------------------------------------------------------------------
// Every conversion of every fixture

/// The fixtures that hold conversations (the providers' schemas and sources aside).
fn conversation_fixtures() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![common::root().join("fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "api-schemas" {
                    stack.push(path);
                }
            } else if !name.ends_with(".md") && !name.ends_with(".py") && !name.ends_with(".snap") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `convert --to TARGET` of every fixture that converts is a request the target's API
/// takes: it validates against the vendored schema (each document of JSON Lines output)
/// and keeps the rules no schema states (`toolsift::convert::rules`).
#[test]
fn every_conversion_of_every_fixture_is_a_request_the_api_takes() {
    use toolsift::testing::Format;
    let targets = [
        ("openai", Format::Openai),
        ("anthropic", Format::Anthropic),
        ("gemini", Format::Gemini),
        ("responses", Format::Responses),
    ];
    let mut failures = Vec::new();
    let mut converted = 0;
    for file in conversation_fixtures() {
        let rel = file
            .strip_prefix(common::root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (name, format) in targets {
            let out = common::toolsift()
                .args([
                    "convert",
                    "--compact",
                    "-q",
                    "--rename-tools",
                    "dots",
                    "--to",
                    name,
                ])
                .arg(&rel)
                .current_dir(common::root())
                .output()
                .unwrap();
            if !out.status.success() {
                // A fixture that does not convert is listed too, with why: a reader
                // that stops knowing a shape fails here instead of passing unseen.
                let err = String::from_utf8_lossy(&out.stderr);
                let why = err.lines().next().unwrap_or("no message");
                failures.push(format!("{rel} --to {name}: not converted: {why}"));
                continue;
            }
            converted += 1;
            for line in String::from_utf8(out.stdout).unwrap().lines() {
                let doc: Value = serde_json::from_str(line).unwrap();
                for e in validate(name, &doc)
                    .into_iter()
                    .chain(toolsift::testing::check(&doc, format))
                {
                    failures.push(format!("{rel} --to {name}: {e}"));
                }
            }
        }
    }
    assert!(converted > 200, "{converted} conversions");
    // What is still refused or not converted, each line a known gap (calls whose
    // results the readers do not pair yet, input that holds no conversation): the
    // list may only shrink. `TOOLSIFT_BLESS=1` rewrites it.
    let known_path = common::root().join("tests/data/api-refusals.txt");
    failures.sort();
    failures.dedup();
    if std::env::var_os("TOOLSIFT_BLESS").is_some() {
        std::fs::write(&known_path, failures.join("\n") + "\n").unwrap();
        return;
    }
    let known = std::fs::read_to_string(&known_path).unwrap_or_default();
    let known: std::collections::BTreeSet<&str> = known.lines().filter(|l| !l.is_empty()).collect();
    let found: std::collections::BTreeSet<&str> = failures.iter().map(String::as_str).collect();
    let new: Vec<&&str> = found.difference(&known).collect();
    let fixed: Vec<&&str> = known.difference(&found).collect();
    assert!(
        new.is_empty() && fixed.is_empty(),
        "requests the API would refuse, not in tests/data/api-refusals.txt:\n{}\n\nlisted there but fixed now (remove them: TOOLSIFT_BLESS=1 cargo test --test main api_schemas::):\n{}",
        new.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        fixed
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Each source field a request takes back (`rules::ACCEPTED`) is a field of the
/// provider's schema there.
#[test]
fn every_field_written_back_is_in_the_providers_schema() {
    use toolsift::testing::Format;
    let schema = |file: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(common::root().join("fixtures/api-schemas").join(file))
                .unwrap(),
        )
        .unwrap()
    };
    // Where each `what` lives in each schema.
    let places = |to: Format, what: &str| -> (&'static str, Vec<&'static str>) {
        match (to, what) {
            (Format::Openai, "top-level fields") => ("openai-chat-request.schema.json", vec![""]),
            (Format::Openai, "message fields") => (
                "openai-chat-request.schema.json",
                vec![
                    "ChatCompletionRequestAssistantMessage",
                    "ChatCompletionRequestUserMessage",
                    "ChatCompletionRequestSystemMessage",
                ],
            ),
            (Format::Anthropic, "top-level fields") => {
                ("anthropic-messages-request.schema.json", vec![""])
            }
            (Format::Anthropic, "content block fields") => (
                "anthropic-messages-request.schema.json",
                vec!["TextBlockParam"],
            ),
            (Format::Anthropic, "call fields") => (
                "anthropic-messages-request.schema.json",
                vec!["ToolUseBlockParam"],
            ),
            (Format::Anthropic, "result fields") => (
                "anthropic-messages-request.schema.json",
                vec!["ToolResultBlockParam"],
            ),
            (Format::Anthropic, "reasoning fields") => (
                "anthropic-messages-request.schema.json",
                vec!["ThinkingBlockParam"],
            ),
            (Format::Gemini, "top-level fields") => {
                ("gemini-generate-content-request.schema.json", vec![""])
            }
            (Format::Gemini, _) => ("gemini-generate-content-request.schema.json", vec!["Part"]),
            (Format::Responses, "top-level fields") => {
                ("openai-responses-request.schema.json", vec![""])
            }
            (Format::Responses, "message fields") => (
                "openai-responses-request.schema.json",
                vec!["EasyInputMessage"],
            ),
            (Format::Responses, "reasoning fields") => (
                "openai-responses-request.schema.json",
                vec!["ReasoningItem"],
            ),
            (Format::Responses, "call fields") => (
                "openai-responses-request.schema.json",
                vec!["FunctionToolCall"],
            ),
            (Format::Responses, "custom call fields") => (
                "openai-responses-request.schema.json",
                vec!["CustomToolCall"],
            ),
            (Format::Responses, "custom result fields") => (
                "openai-responses-request.schema.json",
                vec!["CustomToolCallOutput"],
            ),
            (Format::Responses, "result fields") => (
                "openai-responses-request.schema.json",
                vec!["FunctionCallOutputItemParam"],
            ),
            other => panic!("no place in the schemas for {other:?}"),
        }
    };
    for (to, what, keys) in toolsift::testing::ACCEPTED {
        if keys.is_empty() {
            continue;
        }
        let (file, defs) = places(*to, what);
        let doc = schema(file);
        for def in defs {
            let node = if def.is_empty() {
                &doc
            } else {
                &doc["$defs"][def]
            };
            let props = node["properties"]
                .as_object()
                .unwrap_or_else(|| panic!("{file} {def}"));
            for key in *keys {
                assert!(
                    props.contains_key(*key),
                    "{to:?} {what}: {key} is not in {file} {def}"
                );
            }
        }
    }
}
