//! The tool channel: structured call objects of every API and log format, recognized by
//! shape wherever they sit. The providers' shapes are decoded in [`crate::formats`];
//! this module names the dialects and builds extract's call from each decoded one.

use crate::formats::{self, Args, DecodedCall};
use crate::json::{Node, Obj};
use crate::model::Call;
use crate::pyliteral;
use serde_json::{Map, Value};

pub(crate) const OPENAI: &str = "openai";
pub(crate) const OPENAI_FUNCTION_CALL: &str = "openai-function-call";
pub(crate) const OPENAI_CUSTOM: &str = "openai-custom";
pub(crate) const OPENAI_CHAT_STREAM: &str = "openai-chat-stream";
pub(crate) const OPENAI_RESPONSES: &str = "openai-responses";
pub(crate) const OPENAI_RESPONSES_STREAM: &str = "openai-responses-stream";
pub(crate) const OLLAMA: &str = "ollama";
pub(crate) const ANTHROPIC: &str = "anthropic";
pub(crate) const ANTHROPIC_STREAM: &str = "anthropic-stream";
pub(crate) const GEMINI: &str = "gemini";
pub(crate) const GEMINI_STREAM: &str = "gemini-stream";
pub(crate) const BEDROCK: &str = "bedrock";
pub(crate) const BEDROCK_STREAM: &str = "bedrock-stream";
pub(crate) const COHERE_STREAM: &str = "cohere-stream";
pub(crate) const XAI: &str = "xai";
pub(crate) const LANGCHAIN: &str = "langchain";
pub(crate) const LANGCHAIN_STREAM: &str = "langchain-stream";
pub(crate) const CODEX: &str = "codex";
pub(crate) const SWE_AGENT_TRAJECTORY: &str = "swe-agent-trajectory";
pub(crate) const GEMINI_CLI: &str = "gemini-cli";
pub(crate) const GEMINI_INTERACTIONS: &str = "gemini-interactions";
pub(crate) const GEMINI_INTERACTIONS_STREAM: &str = "gemini-interactions-stream";
pub(crate) const TOOLSIFT: &str = "toolsift";

/// One row of `toolsift dialects` for the tool channel.
pub(crate) struct NativeDialect {
    pub(crate) name: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) example: &'static str,
}

pub(crate) const DIALECTS: &[NativeDialect] = &[
    NativeDialect {
        name: OPENAI,
        summary: "OpenAI Chat Completions tool_calls (responses, request history, batch output)",
        example: r#"{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}"#,
    },
    NativeDialect {
        name: OPENAI_FUNCTION_CALL,
        summary: "OpenAI legacy functions API (one call per message, no id)",
        example: r#"{"function_call":{"name":"f","arguments":"{\"a\":1}"}}"#,
    },
    NativeDialect {
        name: OPENAI_CUSTOM,
        summary: "OpenAI custom (free-form) tool calls; the text becomes {\"input\": text}",
        example: r#"{"tool_calls":[{"id":"call_1","type":"custom","custom":{"name":"sql","input":"SELECT 1"}}]}"#,
    },
    NativeDialect {
        name: OPENAI_CHAT_STREAM,
        summary: "OpenAI Chat Completions chunks, delta.tool_calls reassembled by index",
        example: r#"data: {"object":"chat.completion.chunk","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a"}}]}}]}"#,
    },
    NativeDialect {
        name: OPENAI_RESPONSES,
        summary: "OpenAI Responses API output items: function_call, custom_tool_call, local_shell_call, mcp_call",
        example: r#"{"type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}"#,
    },
    NativeDialect {
        name: OPENAI_RESPONSES_STREAM,
        summary: "OpenAI Responses API stream events, output_item.done authoritative",
        example: r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"a\":"}"#,
    },
    NativeDialect {
        name: OLLAMA,
        summary: "Ollama native tool_calls whose arguments are already an object",
        example: r#"{"message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}}"#,
    },
    NativeDialect {
        name: ANTHROPIC,
        summary: "Anthropic Messages tool_use, server_tool_use and mcp_tool_use blocks",
        example: r#"{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":1}}"#,
    },
    NativeDialect {
        name: ANTHROPIC_STREAM,
        summary: "Anthropic stream events, input_json_delta pieces reassembled per block",
        example: r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
    },
    NativeDialect {
        name: GEMINI,
        summary: "Gemini functionCall parts (camelCase or snake_case)",
        example: r#"{"parts":[{"functionCall":{"name":"f","args":{"a":1}}}]}"#,
    },
    NativeDialect {
        name: GEMINI_STREAM,
        summary: "Gemini streamed function-call arguments (partialArgs by jsonPath)",
        example: r#"{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true}}"#,
    },
    NativeDialect {
        name: GEMINI_INTERACTIONS,
        summary: "Gemini Interactions API resources: function_call steps (or outputs); built-in tool steps are not calls",
        example: r#"{"id":"v1_1","status":"requires_action","steps":[{"type":"function_call","id":"c1","name":"f","arguments":{"a":1}}]}"#,
    },
    NativeDialect {
        name: GEMINI_INTERACTIONS_STREAM,
        summary: "Gemini Interactions API stream events: step.start function_call + step.delta arguments_delta pieces, final at step.stop",
        example: r#"{"event_type":"step.delta","index":0,"delta":{"type":"arguments_delta","partial_arguments":"{\"a\":1}"}}"#,
    },
    NativeDialect {
        name: GEMINI_CLI,
        summary: "Gemini CLI session files: toolCalls of gemini messages, results inside them",
        example: r#"{"type":"gemini","content":"","toolCalls":[{"id":"c1","name":"read_file","args":{"path":"a"}}]}"#,
    },
    NativeDialect {
        name: BEDROCK,
        summary: "Amazon Bedrock Converse toolUse blocks",
        example: r#"{"toolUse":{"toolUseId":"t1","name":"f","input":{"a":1}}}"#,
    },
    NativeDialect {
        name: BEDROCK_STREAM,
        summary: "Amazon Bedrock ConverseStream events: contentBlockStart toolUse + contentBlockDelta input pieces (JSON, or the binary event stream of a cassette)",
        example: r#"{"contentBlockDelta":{"delta":{"toolUse":{"input":"{\"a\":1}"}},"contentBlockIndex":1}}"#,
    },
    NativeDialect {
        name: COHERE_STREAM,
        summary: "Cohere v2 chat stream events: tool-call-start (id, name, first piece) + tool-call-delta argument pieces, joined by index; tool-plan-delta text is the model's text",
        example: r#"{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"{\"a\":1}"}}}}}"#,
    },
    NativeDialect {
        name: XAI,
        summary: "xAI gRPC API messages as JSON (pydantic-ai's .xai.yaml cassettes): tool_calls typed TOOL_CALL_TYPE_* (client-side, or a server-side tool such as web_search); a ROLE_TOOL message repeating a server-side call holds its result",
        example: r#"{"role":"ROLE_ASSISTANT","tool_calls":[{"id":"call_1","type":"TOOL_CALL_TYPE_CLIENT_SIDE_TOOL","function":{"name":"f","arguments":"{\"a\":1}"}}]}"#,
    },
    NativeDialect {
        name: LANGCHAIN,
        summary: "LangChain / LangGraph messages (dicts, `{type, data}`, dumpd constructors): tool_calls with args objects, invalid_tool_calls, ToolMessage results",
        example: r#"{"type":"ai","tool_calls":[{"name":"f","args":{"a":1},"id":"call_1","type":"tool_call"}]}"#,
    },
    NativeDialect {
        name: LANGCHAIN_STREAM,
        summary: "LangChain / LangGraph AIMessageChunk tool_call_chunks, joined by message and index (`stream_mode=\"messages\"` tuples, dumpd constructors)",
        example: r#"["messages",[{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessageChunk"],"kwargs":{"id":"run-1","content":"","tool_call_chunks":[{"name":"f","args":"{\"a\":1}","id":"call_1","index":0}]}},{"langgraph_node":"agent"}]]"#,
    },
    NativeDialect {
        name: CODEX,
        summary: "Codex CLI rollout response_item calls (function_call with namespace, custom_tool_call, local_shell_call)",
        example: r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"call_1"}}"#,
    },
    NativeDialect {
        name: TOOLSIFT,
        summary: "toolsift's canonical transcript (`convert --to json`): call and result parts",
        example: r#"{"messages":[{"role":"assistant","parts":[{"type":"call","id":"call_1","name":"f","arguments":{"a":1}}]}]}"#,
    },
    NativeDialect {
        name: SWE_AGENT_TRAJECTORY,
        summary: "SWE-agent trajectory step missing from the history, as bash {\"command\": action}",
        example: r#"{"trajectory":[{"action":"submit"}]}"#,
    },
];

fn line_of(node: &Node, lines: &crate::json::LineIndex) -> u64 {
    lines.line(node.offset())
}

/// Sets arguments from a node that holds a JSON string, an object, or null.
fn set_arguments(call: &mut Call, node: Option<Node>) {
    let Some(node) = node else { return };
    if node.kind() == crate::json::Kind::String {
        call.set_arguments_string(node);
    } else {
        call.set_arguments_json(node);
    }
}

/// An entry of a `tool_calls` array: OpenAI (`function`), OpenAI custom (`custom`), or
/// LangChain (`name` + `args`).
pub(crate) fn tool_calls_entry(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    let d = formats::openai::tool_calls_entry(obj)?;
    let kind = d.kind;
    // xAI's protobuf enum names the kind of tool (`TOOL_CALL_TYPE_CLIENT_SIDE_TOOL`, …).
    let xai = obj
        .str("type")
        .is_some_and(|t| t.starts_with("TOOL_CALL_TYPE_"));
    let dialect = match (kind, d.args) {
        _ if xai => XAI,
        // OpenAI writes the arguments as a JSON string; Ollama as an object (with an
        // `id` since 0.12).
        ("function", Args::Encoded(a)) if a.kind() == crate::json::Kind::Object => OLLAMA,
        ("custom", _) => OPENAI_CUSTOM,
        ("tool_call" | "invalid_tool_call", _) => LANGCHAIN,
        _ => OPENAI,
    };
    let mut call = decoded(d, dialect, line_of(node, lines))?;
    if kind == "invalid_tool_call" {
        // LangChain already says what is wrong; its message replaces ours.
        let error = obj.str("error").map(|e| e.into_owned());
        call.errors = vec![error.unwrap_or_else(|| "invalid tool call".into())];
        if call.arguments_raw.is_none()
            && let Some(raw) = obj.str("args")
        {
            call.arguments_raw = Some(raw.into_owned());
            call.arguments.clear();
        }
    }
    Some(call)
}

/// A `tool_calls` value that is a Python repr (SWE-agent writes them so).
pub(crate) fn tool_calls_from_repr(text: &str, line: u64) -> Vec<Call> {
    let Some(Value::Array(items)) = pyliteral::parse(text) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let text = item.to_string();
            let doc = crate::json::Doc::parse(&text).ok()?;
            let node = doc.root();
            let obj = node.object()?;
            let mut call = tool_calls_entry(&node, &obj, &crate::json::LineIndex::fixed(line))?;
            call.line = line;
            Some(call)
        })
        .collect()
}

/// The legacy `function_call` object of a message.
pub(crate) fn function_call(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    decoded(
        formats::openai::function_call(obj),
        OPENAI_FUNCTION_CALL,
        line_of(node, lines),
    )
}

/// Anthropic `tool_use`, `server_tool_use` and `mcp_tool_use` content blocks.
pub(crate) fn anthropic_block(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    decoded(
        formats::anthropic::call(obj)?,
        ANTHROPIC,
        line_of(node, lines),
    )
}

/// A call part of toolsift's canonical transcript: each member taken when it is a
/// string, the arguments object (or JSON text in a string).
pub(crate) fn toolsift_call(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    let part = formats::canonical::call(obj);
    let name = part.name.string()?;
    let mut call =
        Call::new(name, TOOLSIFT, line_of(node, lines)).with_id(part.id.string().map(Into::into));
    call.namespace = part.namespace.string().map(Into::into);
    set_arguments(&mut call, part.arguments);
    if let Some(raw) = part.arguments_raw.string() {
        call.invalid_arguments(&raw, "arguments are not a JSON object (arguments_raw)");
    }
    Some(call)
}

pub(crate) use formats::anthropic::is_call_type as is_anthropic_call_type;

/// A Gemini part's `functionCall` (or `function_call`) object, when it is complete.
pub(crate) fn gemini_function_call(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    decoded(
        formats::gemini::function_call(obj),
        GEMINI,
        line_of(node, lines),
    )
}

/// An entry of a Gemini CLI message's `toolCalls`.
pub(crate) fn gemini_cli_call(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    decoded(
        formats::gemini::cli_tool_call(obj),
        GEMINI_CLI,
        line_of(node, lines),
    )
}

/// A tool the API ran while it answered (Groq's `executed_tools`).
pub(crate) struct ExecutedTool {
    pub(crate) call: Call,
    /// Its arguments as written, which its generated id digests.
    pub(crate) arguments: String,
    /// Its output, which names its tool but not yet its call (it has no id).
    pub(crate) result: Option<crate::model::ToolResult>,
}

/// An entry of an OpenAI-compatible message's `executed_tools` (Groq), with its output.
pub(crate) fn executed_tool(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
    dialect: &'static str,
) -> Option<ExecutedTool> {
    let d = formats::openai::executed_tool(obj)?;
    let held = d.result;
    let arguments = match d.args {
        Args::Encoded(a) => a
            .str()
            .map_or_else(|| a.text().to_owned(), |a| a.into_owned()),
        _ => String::new(),
    };
    let call = decoded(d, dialect, line_of(node, lines))?;
    let result = held.map(|(content, is_error)| crate::model::ToolResult {
        id: None,
        name: Some(call.name.clone()),
        content: crate::model::JsonText::of(&content),
        is_error,
        dialect,
        line: lines.line(content.offset()),
    });
    Some(ExecutedTool {
        call,
        arguments,
        result,
    })
}

/// A Gemini Interactions step (or output) that is a client's function call.
pub(crate) fn interactions_step(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
    dialect: &'static str,
) -> Option<Call> {
    decoded(
        formats::gemini::interactions_call(obj)?,
        dialect,
        line_of(node, lines),
    )
}

/// Bedrock Converse `toolUse`.
pub(crate) fn bedrock_tool_use(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
) -> Option<Call> {
    decoded(
        formats::bedrock::tool_use(obj),
        BEDROCK,
        line_of(node, lines),
    )
}

/// A Responses API item that is a call to a named tool. `dialect` tells Codex rollouts
/// from API responses.
pub(crate) fn responses_item(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
    dialect: &'static str,
) -> Option<Call> {
    responses_item_with_result(node, obj, lines, dialect).map(|(call, _)| call)
}

/// [`responses_item`], with the result the item holds itself (a remote MCP call's
/// `output`, or its `error`).
pub(crate) fn responses_item_with_result(
    node: &Node,
    obj: &Obj,
    lines: &crate::json::LineIndex,
    dialect: &'static str,
) -> Option<(Call, Option<crate::model::ToolResult>)> {
    let mut d = formats::responses::call(obj)?;
    // A call of any kind is named by its `call_id`, else (none, or xAI's `""`) by its
    // item's `id`.
    d.id = obj
        .str("call_id")
        .filter(|id| !id.is_empty())
        .or_else(|| obj.str("id"));
    let held = d.result;
    let line = line_of(node, lines);
    let call = decoded(d, dialect, line)?;
    let result = held.map(|(content, is_error)| crate::model::ToolResult {
        id: call.id.clone(),
        name: Some(call.name.clone()),
        content: crate::model::JsonText::of(&content),
        is_error,
        dialect,
        line: lines.line(content.offset()),
    });
    Some((call, result))
}

pub(crate) use formats::responses::is_call_item as is_responses_call_item;

/// A decoded call as extract reports it; `None` when it names no tool.
fn decoded(d: DecodedCall, dialect: &'static str, line: u64) -> Option<Call> {
    let name = d.called(d.tool_name()?);
    let mut call = Call::new(name, dialect, line).with_id(d.id.map(Into::into));
    call.namespace = d.namespace.map(Into::into);
    match d.args {
        Args::Absent | Args::Input(None) | Args::Action(None) => {}
        Args::Encoded(node) | Args::Object(node) => set_arguments(&mut call, Some(node)),
        Args::Input(Some(input)) => call.arguments = crate::model::Arguments::input(&input),
        Args::Action(Some(action)) => {
            if let Some(action) = action.object() {
                call.arguments = shell_action(&action);
            }
        }
    }
    Some(call)
}

/// A shell call's action as arguments: the action as written, `type` included (a
/// later action type is told apart by it), each value kept whole.
fn shell_action(action: &Obj) -> crate::model::Arguments {
    let mut text = String::from("{");
    for (key, value) in action.iter() {
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(&serde_json::to_string(&key).expect("a string serializes"));
        text.push(':');
        text.push_str(&value.kept_compact());
    }
    text.push('}');
    crate::model::Arguments::from_compact(text)
}

/// How deep a `partialArgs` path may go: as deep as the walker reads values.
const MAX_PATH_DEPTH: usize = crate::json::MAX_WALK_DEPTH;

/// How many array elements the paths of one call may skip (filled with `null`): an
/// index read from a path must not size an allocation beyond this.
const MAX_SKIPPED: usize = 1024;

/// Builds an arguments object from Gemini `partialArgs` fragments keyed by JSON path
/// (`$.a.b`, `$.a[0]`, `$['a.b']`). A fragment that cannot be placed (a path that is
/// not one, that addresses no member of the arguments object, goes deeper than
/// [`MAX_PATH_DEPTH`], skips more than [`MAX_SKIPPED`] elements, or runs into a value of
/// another kind) is left out, and an error says so; the others are kept.
pub(crate) fn object_from_paths(
    fragments: &[(String, Value)],
) -> (Map<String, Value>, Vec<String>) {
    let mut root = Map::new();
    let mut errors = Vec::new();
    let mut skipped = 0usize;
    for (path, value) in fragments {
        let placed = parse_path(path).and_then(|steps| {
            let gap = check_path(&root, &steps)?;
            if gap > MAX_SKIPPED - skipped {
                return Err(format!(
                    "skips {gap} array elements (at most {MAX_SKIPPED} in a call)"
                ));
            }
            skipped += gap;
            insert_path(&mut root, &steps, value.clone());
            Ok(())
        });
        if let Err(why) = placed {
            let shown: String = path.chars().take(80).collect();
            let more = if shown.len() < path.len() { "…" } else { "" };
            errors.push(format!(
                "partialArgs path {shown}{more}: {why}; its value was left out"
            ));
        }
    }
    (root, errors)
}

/// One step of a `partialArgs` path.
enum Step {
    Key(String),
    Index(usize),
}

/// `$` and then `.key`, `['key']`, `["key"]` or `[N]` steps. A key written after a dot
/// is a key even when it is all digits (`$.codes.2024`); only `[N]` is an index.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let rest = path
        .strip_prefix('$')
        .ok_or_else(|| "not a JSON path (no leading $)".to_owned())?;
    let mut steps = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        if steps.len() == MAX_PATH_DEPTH {
            return Err(format!("deeper than {MAX_PATH_DEPTH} levels"));
        }
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix('.') {
            let len = after.find(['.', '[']).unwrap_or(after.len());
            if len == 0 {
                return Err("an empty key".into());
            }
            steps.push(Step::Key(after[..len].to_owned()));
            i += 1 + len;
        } else if let Some(after) = tail.strip_prefix('[') {
            if let Some(quote) = after.chars().next().filter(|c| matches!(c, '\'' | '"')) {
                let close = after[1..]
                    .find(&format!("{quote}]"))
                    .ok_or_else(|| "a quoted key with no end".to_owned())?;
                steps.push(Step::Key(after[1..1 + close].to_owned()));
                i += 1 + 1 + close + 2;
            } else {
                let close = after
                    .find(']')
                    .ok_or_else(|| "an index with no end".to_owned())?;
                let digits = &after[..close];
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("[{digits}] is no index"));
                }
                let index = digits
                    .parse::<usize>()
                    .map_err(|_| format!("index {digits} is too large"))?;
                steps.push(Step::Index(index));
                i += 1 + close + 1;
            }
        } else {
            return Err("expected . or [ in the path".into());
        }
    }
    match steps.first() {
        None => Err("no member of the arguments object (the path is $ alone)".into()),
        Some(Step::Index(_)) => Err("the arguments are an object, not an array".into()),
        Some(Step::Key(_)) => Ok(steps),
    }
}

/// Whether `steps` can be placed in `root` without replacing a value of another kind,
/// and how many array elements they skip.
fn check_path(root: &Map<String, Value>, steps: &[Step]) -> Result<usize, String> {
    let mut at = match &steps[0] {
        Step::Key(k) => root.get(k),
        Step::Index(_) => unreachable!("checked by parse_path"),
    };
    let mut gap = 0usize;
    for step in &steps[1..] {
        at = match (step, at) {
            (Step::Key(_), None | Some(Value::Null)) => None,
            (Step::Index(n), None | Some(Value::Null)) => {
                gap = gap.saturating_add(*n);
                None
            }
            (Step::Key(k), Some(Value::Object(map))) => map.get(k),
            (Step::Index(n), Some(Value::Array(items))) => {
                gap = gap.saturating_add(n.saturating_sub(items.len()));
                items.get(*n)
            }
            (step, Some(other)) => {
                let want = match step {
                    Step::Key(_) => "an object",
                    Step::Index(_) => "an array",
                };
                return Err(format!("goes into {}, not {want}", kind_name(other)));
            }
        };
    }
    Ok(gap)
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Places `value` at `steps` (checked by [`check_path`]), without recursion.
fn insert_path(root: &mut Map<String, Value>, steps: &[Step], value: Value) {
    let Step::Key(first) = &steps[0] else {
        unreachable!("checked by parse_path")
    };
    let mut target = root.entry(first.clone()).or_insert(Value::Null);
    for step in &steps[1..] {
        let here = target;
        target = match step {
            Step::Key(k) => {
                if !here.is_object() {
                    *here = Value::Object(Map::new());
                }
                let map = here.as_object_mut().expect("made an object above");
                map.entry(k.clone()).or_insert(Value::Null)
            }
            Step::Index(n) => {
                if !here.is_array() {
                    *here = Value::Array(Vec::new());
                }
                let items = here.as_array_mut().expect("made an array above");
                if items.len() <= *n {
                    items.resize(n + 1, Value::Null);
                }
                &mut items[*n]
            }
        };
    }
    append(target, value);
}

/// String fragments of one path concatenate; any other value replaces.
fn append(target: &mut Value, value: Value) {
    match (target, value) {
        (Value::String(s), Value::String(more)) => s.push_str(&more),
        (slot, v) => *slot = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::LineIndex;
    use serde_json::json;

    fn entry(text: &str) -> Call {
        let doc = crate::json::Doc::parse(text).unwrap();
        let node = doc.root();
        tool_calls_entry(&node, &node.object().unwrap(), &LineIndex::new(text, 1)).unwrap()
    }

    #[test]
    fn openai_ollama_langchain_entries() {
        let c = entry(
            r#"{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}"#,
        );
        assert_eq!(
            (c.dialect, c.id.as_deref(), c.arguments["a"].clone()),
            (OPENAI, Some("c1"), json!(1))
        );
        let c = entry(r#"{"function":{"name":"f","arguments":{"a":1}}}"#);
        assert_eq!(c.dialect, OLLAMA);
        // Ollama 0.12 and later give each call an id.
        let c = entry(r#"{"id":"call_x","function":{"index":0,"name":"f","arguments":{"a":1}}}"#);
        assert_eq!((c.dialect, c.id.as_deref()), (OLLAMA, Some("call_x")));
        let c = entry(r#"{"name":"f","args":{"a":1},"id":"c2","type":"tool_call"}"#);
        assert_eq!(c.dialect, LANGCHAIN);
        let c = entry(
            r#"{"name":"f","args":"{bad","id":"c3","error":"bad json","type":"invalid_tool_call"}"#,
        );
        assert!(!c.is_valid());
        assert!(c.errors.iter().any(|e| e == "bad json"));
    }

    #[test]
    fn half_a_surrogate_pair_is_read_as_a_replacement_character() {
        // serde_json refuses `\ud800` alone; the tape reads it as U+FFFD (and the
        // reader says so). As the whole arguments string, that is not JSON: invalid.
        let c =
            entry(r#"{"id":"c1","type":"function","function":{"name":"f","arguments":"\ud800"}}"#);
        assert!(!c.is_valid());
        assert_eq!(c.arguments_raw.as_deref(), Some("\u{fffd}"));
        assert!(c.errors[0].starts_with("arguments are not valid JSON"));
        // Inside a value, it is one character of the text, noted on the document.
        let text = r#"{"type":"function","function":{"name":"f","arguments":"{\"a\": \"\ud83d\ude00 \udc00\"}"}}"#;
        let doc = crate::json::Doc::parse(text).unwrap();
        let node = doc.root();
        let c = tool_calls_entry(&node, &node.object().unwrap(), &LineIndex::new(text, 1)).unwrap();
        assert!(c.is_valid());
        assert_eq!(c.arguments["a"], "\u{1f600} \u{fffd}");
        assert!(doc.lossy() && !c.lossy);
        // Written inside the JSON text the string holds, it is the call's to tell.
        let c = entry(
            r#"{"type":"function","function":{"name":"f","arguments":"{\"a\": \"\\udc00\"}"}}"#,
        );
        assert_eq!(c.arguments["a"], "\u{fffd}");
        assert!(c.lossy);
    }

    #[test]
    fn partial_args_build_nested_objects() {
        let (map, errors) = object_from_paths(&[
            ("$.location".into(), json!("Bos")),
            ("$.location".into(), json!("ton")),
            ("$.opts.days".into(), json!(3)),
            ("$.tags[1]".into(), json!("b")),
        ]);
        assert_eq!(
            Value::Object(map),
            json!({"location":"Boston","opts":{"days":3},"tags":[null,"b"]})
        );
        assert!(errors.is_empty());
    }
}
