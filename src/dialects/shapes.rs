//! Call shapes of JSON written in text: which objects are calls, and of which dialect.
//! Only objects of these shapes are calls; any other JSON in prose is not.

use crate::json::{Kind, Node, Obj};
use crate::model::Call;
use crate::scan;
use std::borrow::Cow;

pub(crate) const KSI: &str = "ksi";
pub(crate) const KSI_EVENT: &str = "ksi-event";
pub(crate) const IKIGAI: &str = "ikigai";
pub(crate) const MANDRAKE_JSON: &str = "mandrake-json";
pub(crate) const NAME_ARGUMENTS: &str = "json-name-arguments";
pub(crate) const LLAMA3_JSON: &str = "llama3-json";
/// `{tool_name, parameters}` outside Command R's action markers (its `Action: ```json`
/// form): the dialect of those markers.
const COMMAND_R: &str = "command-r";
pub(crate) const OPENAI_JSON: &str = "openai-json";
pub(crate) const LLAMACPP_GENERIC: &str = "llamacpp-generic";
pub(crate) const UICP_BATCH: &str = "uicp-batch";
pub(crate) const XLAM: &str = "xlam";

/// One row of `toolsift dialects` for the shapes read here.
pub(crate) struct ShapeRow {
    pub(crate) name: &'static str,
    /// The models or systems that write it.
    pub(crate) models: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) example: &'static str,
}

pub(crate) const ROWS: &[ShapeRow] = &[
    ShapeRow {
        name: KSI,
        models: "KSI agents",
        summary: "KSI tool use block",
        example: r#"{"type": "ksi_tool_use", "id": "ksiu_1", "name": "agent:status", "input": {"agent_id": "a1"}}"#,
    },
    ShapeRow {
        name: KSI_EVENT,
        models: "KSI agents (legacy events)",
        summary: "KSI legacy event (name = event, arguments = data)",
        example: r#"{"event": "agent:status", "data": {"agent_id": "a1", "status": "ready"}}"#,
    },
    ShapeRow {
        name: IKIGAI,
        models: "ikigai",
        summary: "ikigai {tool, params}, alone or in {reasoning, tool_calls: [...]}",
        example: r#"{"tool": "bash", "params": {"command": "ls"}}"#,
    },
    ShapeRow {
        name: MANDRAKE_JSON,
        models: "Mandrake",
        summary: "Mandrake {name: server.method, arguments}, alone or in {tool_calls: [...]}; adds namespace",
        example: r#"{"name": "ripper.read_file", "arguments": {"path": "/tmp/a"}}"#,
    },
    ShapeRow {
        name: NAME_ARGUMENTS,
        models: "generic; Ollama leaks bare objects run together",
        summary: "Generic {name, arguments} objects, alone, in arrays or run together",
        example: r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
    },
    ShapeRow {
        name: XLAM,
        models: "Salesforce xLAM",
        summary: "xLAM: a bare JSON array of {name, arguments} calls",
        example: r#"[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]"#,
    },
    ShapeRow {
        name: LLAMA3_JSON,
        models: "Llama 3.x Instruct, Llama 4 (JSON mode)",
        summary: "Llama 3.x JSON tool calls ({name, parameters})",
        example: r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#,
    },
    ShapeRow {
        name: OPENAI_JSON,
        models: "models imitating the OpenAI API in text",
        summary: "OpenAI-shaped calls written as text ({function: {name, arguments}} or {tool_calls: [...]})",
        example: r#"{"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]}"#,
    },
    ShapeRow {
        name: LLAMACPP_GENERIC,
        models: "llama.cpp generic grammar (any model)",
        summary: "llama.cpp generic grammar output {tool_call: {name, arguments}}",
        example: r#"{"tool_call": {"name": "f", "arguments": {"a": 1}}}"#,
    },
    ShapeRow {
        name: UICP_BATCH,
        models: "UICP actors",
        summary: "UICP {batch: [envelopes]} as emit_batch",
        example: r#"{"batch": [{"op": "window.create", "params": {"title": "Notes"}}]}"#,
    },
];

/// The calls a JSON value holds, if it has a call shape. `marker` names the dialect when
/// the value sat inside a dialect's markers (Hermes, Mistral, ...). The value is read
/// from the JSON tape: arguments objects are copied out as compact text.
pub(crate) fn calls(value: Node, marker: Option<&'static str>) -> Vec<Call> {
    match value.kind() {
        Kind::Array => {
            // An array counts only when every element is a call (xLAM, Mistral).
            let mut all = Vec::new();
            for item in value.items() {
                let found = object_calls(item, marker);
                if found.is_empty() {
                    return Vec::new();
                }
                all.extend(found);
            }
            // A bare array of {name, arguments} calls is xLAM's format.
            if marker.is_none() {
                for call in &mut all {
                    if call.dialect == NAME_ARGUMENTS {
                        call.dialect = XLAM;
                    }
                }
            }
            all
        }
        Kind::Object => object_calls(value, marker),
        _ => Vec::new(),
    }
}

fn object_calls(value: Node, marker: Option<&'static str>) -> Vec<Call> {
    let Some(o) = value.object() else {
        return Vec::new();
    };
    let dialect = |own: &'static str| marker.unwrap_or(own);
    fn name_of<'a>(o: &Obj<'a>, key: &str) -> Option<Cow<'a, str>> {
        o.str(key).filter(|n| scan::is_tool_name(n))
    }
    // KSI tool use.
    if o.is("type", "ksi_tool_use")
        && let Some(name) = name_of(&o, "name")
    {
        let mut call = Call::new(name, dialect(KSI), 0).with_id(id_of(&o));
        set_args(&mut call, o.get("input"));
        return vec![call];
    }
    // KSI legacy event: only event, data and underscore metadata keys.
    if let Some(name) = name_of(&o, "event")
        && o.iter()
            .all(|(k, _)| k == "event" || k == "data" || k.starts_with('_'))
    {
        let mut call = Call::new(name, dialect(KSI_EVENT), 0);
        set_args(&mut call, o.get("data"));
        return vec![call];
    }
    // ikigai.
    if let Some(name) = name_of(&o, "tool")
        && (o.has("params")
            || o.iter()
                .all(|(k, _)| matches!(&*k, "tool" | "reasoning" | "id")))
    {
        let mut call = Call::new(name, dialect(IKIGAI), 0).with_id(id_of(&o));
        set_args(&mut call, o.get("params"));
        return vec![call];
    }
    // Wrappers of several calls.
    if let Some(items) = o.get("tool_calls").filter(|v| v.kind() == Kind::Array) {
        return items
            .items()
            .flat_map(|i| object_calls(i, marker))
            .collect();
    }
    if let Some(inner) = o.get("tool_call").filter(|v| v.kind() == Kind::Object) {
        return object_calls(inner, Some(marker.unwrap_or(LLAMACPP_GENERIC)));
    }
    // OpenAI-shaped.
    if let Some(f) = o.obj("function")
        && let Some(name) = name_of(&f, "name")
    {
        let mut call = Call::new(name, dialect(OPENAI_JSON), 0).with_id(id_of(&o));
        // In this shape arguments are a JSON string by definition: not a repair.
        match f.get("arguments").or_else(|| f.get("parameters")) {
            Some(text) if text.kind() == Kind::String => call.set_arguments_string(text),
            other => set_args(&mut call, other),
        }
        return vec![call];
    }
    let named = name_of(&o, "name");
    let cohere = named.is_none();
    if let Some(name) = named.or_else(|| name_of(&o, "tool_name")) {
        // {name, arguments} (Mandrake, generic), {name, parameters} (Llama 3),
        // {tool_name, parameters} (Command R), {name, args}.
        if cohere && matches!(name.as_ref(), "directly-answer" | "directly_answer") {
            // Command R's way of saying it answers without a tool.
            return Vec::new();
        }
        let own = if cohere && o.has("parameters") {
            COMMAND_R
        } else if o.has("arguments") {
            if is_server_method(&name) {
                MANDRAKE_JSON
            } else {
                NAME_ARGUMENTS
            }
        } else if o.has("parameters") {
            LLAMA3_JSON
        } else if o.has("args") || o.has("input") {
            NAME_ARGUMENTS
        } else {
            return Vec::new();
        };
        let id = id_of(&o).or_else(|| o.str("tool_call_id").map(Into::into));
        let mut call = Call::new(name, dialect(own), 0).with_id(id);
        if is_server_method(&call.name) {
            call.namespace = call.name.split('.').next().map(Into::into);
        }
        let args = ["arguments", "parameters", "args", "input"]
            .into_iter()
            .find_map(|k| o.get(k));
        set_args(&mut call, args);
        return vec![call];
    }
    // UICP batch.
    if let Some(batch) = o.get("batch").filter(|v| v.kind() == Kind::Array)
        && batch.items().next().is_some()
        && batch.items().all(|e| {
            e.object().is_some_and(|e| {
                e.get("op")
                    .or_else(|| e.get("method"))
                    .is_some_and(|op| op.kind() == Kind::String)
            })
        })
    {
        let mut call = Call::new("emit_batch", dialect(UICP_BATCH), 0);
        set_args(&mut call, Some(value));
        return vec![call];
    }
    Vec::new()
}

fn id_of(o: &Obj) -> Option<String> {
    o.str("id").map(Into::into)
}

/// `server.method`: exactly two non-empty dot-separated parts.
fn is_server_method(name: &str) -> bool {
    let mut parts = name.split('.');
    matches!((parts.next(), parts.next(), parts.next()), (Some(a), Some(b), None) if !a.is_empty() && !b.is_empty())
}

/// The arguments of a call from their JSON text, with the repairs it needed; JSON
/// that cannot be read (or, with `only_object`, is not an object) is kept raw and the
/// call is invalid.
pub(crate) fn json_arguments(call: &mut Call, raw: &str, strict: bool, only_object: bool) {
    let read = scan::with_json(raw, strict, |root, repairs| {
        if only_object && root.kind() != Kind::Object {
            return false;
        }
        set_args(call, Some(root));
        call.repairs.extend(repairs);
        true
    });
    match read {
        Ok(true) => {}
        Ok(false) => call.invalid_arguments(raw, "arguments are not a JSON object"),
        Err(e) => call.invalid_arguments(raw, &format!("arguments are not valid JSON: {e}")),
    }
}

/// Arguments given as an object, as JSON text (decoded and marked), or missing.
pub(crate) fn set_args(call: &mut Call, args: Option<Node>) {
    let Some(args) = args else {
        return;
    };
    match args.kind() {
        Kind::Null => {}
        Kind::String => {
            call.set_arguments_string(args);
            if call.is_valid() {
                call.repairs.insert(0, "string-arguments");
            }
        }
        // Deeper than the compact writer goes, or not an object at all: serde_json
        // reads it, and says what is wrong with it.
        _ => call.set_arguments_json(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use serde_json::json;

    /// The calls of a JSON value, read through the tape as the scanners do.
    fn value_calls(v: &Value) -> Vec<Call> {
        let text = v.to_string();
        let doc = crate::json::Doc::parse(&text).unwrap();
        calls(doc.root(), None)
    }

    fn one(v: Value) -> Call {
        let mut c = value_calls(&v);
        assert_eq!(c.len(), 1, "{v}");
        c.remove(0)
    }

    #[test]
    fn each_shape() {
        let c =
            one(json!({"type":"ksi_tool_use","id":"ksiu_1","name":"agent:status","input":{"a":1}}));
        assert_eq!((c.dialect, c.id.as_deref()), (KSI, Some("ksiu_1")));
        let c = one(json!({"event":"state:entity:create","data":{"type":"t"}}));
        assert_eq!(
            (c.dialect, c.name.as_str()),
            (KSI_EVENT, "state:entity:create")
        );
        assert!(one(json!({"event":"agent:ping"})).arguments.is_empty());
        assert_eq!(
            one(json!({"tool":"bash","params":{"command":"ls"}})).dialect,
            IKIGAI
        );
        let c = one(json!({"name":"ripper.read_file","arguments":{"path":"/a"}}));
        assert_eq!(
            (c.dialect, c.namespace.as_deref()),
            (MANDRAKE_JSON, Some("ripper"))
        );
        assert_eq!(one(json!({"name":"a.b.c","arguments":{}})).namespace, None);
        assert_eq!(
            one(json!({"name":"f","parameters":{}})).dialect,
            LLAMA3_JSON
        );
        let c = one(json!({"function":{"name":"f","arguments":"{\"a\":1}"}}));
        assert_eq!((c.dialect, c.repairs.len()), (OPENAI_JSON, 0));
        assert_eq!(
            one(json!({"tool_call":{"name":"f","arguments":{}}})).dialect,
            LLAMACPP_GENERIC
        );
        assert_eq!(
            one(json!({"batch":[{"op":"window.create","params":{}}]})).name,
            "emit_batch"
        );
        let wrapped = value_calls(
            &json!({"reasoning":"r","tool_calls":[{"tool":"a","params":{}},{"tool":"b","params":{}}]}),
        );
        assert_eq!(wrapped.len(), 2);
    }

    #[test]
    fn other_json_is_not_a_call() {
        for v in [
            json!({"example":"nested_json"}),
            json!({"name":"my-app","version":"1.0"}),
            json!([{"name":"f","arguments":{}}, 3]),
            json!({"event": "click", "x": 1}),
            json!({"name":"$TOOL","arguments":{}}),
        ] {
            assert!(value_calls(&v).is_empty(), "{v}");
        }
    }

    #[test]
    fn double_encoded_arguments() {
        let c = one(json!({"name":"f","arguments":"\"{\\\"a\\\":1}\""}));
        assert_eq!(c.arguments["a"], 1);
        assert_eq!(c.repairs, ["string-arguments", "double-encoded"]);
    }
}
