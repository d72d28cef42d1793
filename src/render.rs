//! `toolsift tools render`: contracts as Markdown for a system prompt, in the way the
//! natural-tool-use middleware wrote them: `## name`, `Description:`, `Parameters:`
//! with nested schema details, `Returns:`, and an `Example:` call whose arguments are
//! generated from the schema, written in the chosen style.

use crate::ExitCode;
use crate::cli::{RenderArgs, RenderStyle};
use crate::tools::{self, Tool};
use anyhow::{Context, Result};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::io::{self, Write};

pub(crate) fn run(args: RenderArgs) -> Result<ExitCode> {
    let mut tools = Vec::new();
    for path in &args.files {
        tools.extend(tools::load(path)?);
    }
    let mut out = io::stdout().lock();
    out.write_all(render(&tools, args.style).as_bytes())
        .and_then(|()| out.flush())
        .context(crate::pipeline::STDOUT)?;
    Ok(ExitCode::Success)
}

/// The Markdown for every tool, separated by blank lines.
pub(crate) fn render(tools: &[Tool], style: RenderStyle) -> String {
    let mut md = String::new();
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            md.push('\n');
        }
        tool_md(&mut md, tool, style);
    }
    md
}

fn tool_md(md: &mut String, tool: &Tool, style: RenderStyle) {
    let _ = writeln!(md, "## {}\n", tool.name);
    if let Some(d) = &tool.description {
        let _ = writeln!(md, "Description: {}\n", d.trim());
    }
    let properties = tool.schema.get("properties").and_then(Value::as_object);
    match properties.filter(|p| !p.is_empty()) {
        None => md.push_str("Parameters: none\n\n"),
        Some(props) => {
            md.push_str("Parameters:\n");
            params_md(md, props, required(&tool.schema), 0, 0);
            md.push('\n');
        }
    }
    if let Some(returns) = &tool.returns {
        md.push_str("Returns:\n");
        details_md(md, returns, 0, 0);
        md.push('\n');
    }
    let args = match example(&tool.schema, 0) {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    md.push_str("Example:\n");
    md.push_str(&example_call(&tool.name, &args, style));
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

const MAX_DEPTH: usize = 8;

/// `- p (required|optional): description` lines with their details below.
fn params_md(
    md: &mut String,
    props: &Map<String, Value>,
    req: Vec<&str>,
    indent: usize,
    depth: usize,
) {
    let pad = "  ".repeat(indent);
    for (name, schema) in props {
        let need = if req.contains(&name.as_str()) {
            "required"
        } else {
            "optional"
        };
        let _ = write!(md, "{pad}- {name} ({need})");
        match schema.get("description").and_then(Value::as_str) {
            Some(d) => {
                let _ = writeln!(md, ": {}", d.trim());
            }
            None => md.push('\n'),
        }
        details_md(md, schema, indent + 1, depth + 1);
    }
}

/// The schema details as bullets: type, enum, bounds, items, nested properties.
fn details_md(md: &mut String, schema: &Value, indent: usize, depth: usize) {
    let pad = "  ".repeat(indent);
    if depth > MAX_DEPTH {
        return;
    }
    let get = |k: &str| schema.get(k);
    let line = |md: &mut String, label: &str, value: String| {
        let _ = writeln!(md, "{pad}- {label}: {value}");
    };
    if let Some(t) = type_name(schema) {
        line(md, "Type", t);
    }
    if indent == 0
        && let Some(d) = get("description").and_then(Value::as_str)
    {
        line(md, "Description", d.trim().to_owned());
    }
    if let Some(Value::Array(values)) = get("enum") {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        line(md, "Enum", values.join(", "));
    }
    if let Some(c) = get("const") {
        line(md, "Const", c.to_string());
    }
    for (key, label) in [
        ("minimum", "Minimum"),
        ("exclusiveMinimum", "Exclusive minimum"),
        ("maximum", "Maximum"),
        ("exclusiveMaximum", "Exclusive maximum"),
        ("minLength", "Min length"),
        ("maxLength", "Max length"),
        ("pattern", "Pattern"),
        ("format", "Format"),
        ("minItems", "Min items"),
        ("maxItems", "Max items"),
        ("uniqueItems", "Unique items"),
        ("default", "Default"),
    ] {
        if let Some(v) = get(key) {
            let shown = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            line(md, label, shown);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = get(key) {
            let _ = writeln!(
                md,
                "{pad}- {}:",
                if key == "anyOf" { "Any of" } else { "One of" }
            );
            for option in options {
                details_md(md, option, indent + 1, depth + 1);
            }
        }
    }
    if let Some(items) = get("items") {
        if items.get("properties").is_some() || items.get("enum").is_some() {
            let _ = writeln!(md, "{pad}- Items:");
            details_md(md, items, indent + 1, depth + 1);
        } else if let Some(t) = type_name(items) {
            line(md, "Items", t);
        }
    }
    if let Some(props) = get("properties").and_then(Value::as_object)
        && !props.is_empty()
        && indent > 0
    {
        let _ = writeln!(md, "{pad}- Properties:");
        params_md(md, props, required(schema), indent + 1, depth + 1);
    }
}

fn type_name(schema: &Value) -> Option<String> {
    match schema.get("type")? {
        Value::String(t) => Some(t.clone()),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" | "),
        ),
        _ => None,
    }
}

/// Example arguments from a schema: the default or first example when given, else the
/// first enum value, the minimum or 42, `true`, `minItems` items (at least one),
/// nested objects with every property, and `"value"` for strings.
pub(crate) fn example(schema: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let get = |k: &str| schema.get(k);
    if let Some(v) = get("default") {
        return v.clone();
    }
    if let Some(Value::Array(ex)) = get("examples")
        && let Some(first) = ex.first()
    {
        return first.clone();
    }
    if let Some(c) = get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = get("enum")
        && let Some(first) = values.first()
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = get(key)
            && let Some(first) = options.first()
        {
            return example(first, depth + 1);
        }
    }
    let t = match get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if get("properties").is_some() => "object",
        _ => "string",
    };
    match t {
        "object" => {
            let mut o = Map::new();
            if let Some(props) = get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    o.insert(k.clone(), example(v, depth + 1));
                }
            }
            Value::Object(o)
        }
        "array" => {
            let n = get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .clamp(1, 16);
            let item = get("items").map_or(json!("value"), |i| example(i, depth + 1));
            Value::Array(vec![item; n as usize])
        }
        "integer" => get("minimum").cloned().unwrap_or(json!(42)),
        "number" => get("minimum").cloned().unwrap_or(json!(42)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => json!("value"),
    }
}

/// The example call in the chosen style.
fn example_call(name: &str, args: &Map<String, Value>, style: RenderStyle) -> String {
    let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
    match style {
        RenderStyle::Natural => format!("<{name}>\n```json\n{pretty}\n```\n</{name}>\n"),
        RenderStyle::Json => {
            let call = json!({"name": name, "arguments": args});
            format!(
                "```json\n{}\n```\n",
                serde_json::to_string_pretty(&call).unwrap_or_default()
            )
        }
        RenderStyle::Xml => {
            let (server, method) = match name.split_once('.') {
                Some((s, m)) => (Some(s), m),
                None => (None, name),
            };
            let mut x = String::from("<tool_call>\n");
            if let Some(server) = server {
                let _ = writeln!(x, "<server>{server}</server>");
            }
            let _ = writeln!(x, "<method>{method}</method>");
            let _ = write!(x, "<arguments>\n{pretty}\n</arguments>\n</tool_call>\n");
            x
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_follow_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1},
                "n": {"type": "number"},
                "on": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "opts": {"type": "object", "properties": {"deep": {"type": "string"}}},
                "city": {"type": "string"}
            }
        });
        assert_eq!(
            example(&schema, 0),
            json!({"unit": "celsius", "days": 1, "n": 42, "on": true, "tags": ["value", "value"],
                   "opts": {"deep": "value"}, "city": "value"})
        );
    }
}
