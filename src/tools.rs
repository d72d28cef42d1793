//! Tool contracts (`--tools FILE`): the declared tools with their argument schemas, read
//! from any of the usual ways of writing them down.

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Map, Value};
use std::path::Path;

/// One declared tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    /// The JSON Schema of its arguments (`{}` when none is given).
    pub(crate) schema: Value,
    /// The schema of what it returns, when the contract says (MCP `outputSchema`,
    /// Gemini `response`).
    pub(crate) returns: Option<Value>,
}

impl Tool {
    /// A tool known only by name (any arguments).
    pub fn named(name: &str) -> Tool {
        Tool {
            name: name.to_owned(),
            description: None,
            schema: Value::Object(Map::new()),
            returns: None,
        }
    }
}

const EXPECTED: &str = "expected an OpenAI tools array, Anthropic tools, an MCP tools/list result, Gemini functionDeclarations, or a {\"name\": schema} map";

/// Reads a contracts file.
pub(crate) fn load(path: &Path) -> Result<Vec<Tool>> {
    Ok(load_noting(path)?.0)
}

/// [`load`], and what was read otherwise than written (`tool T: type "float" read as
/// "number"`), for warnings.
pub(crate) fn load_noting(path: &Path) -> Result<(Vec<Tool>, Vec<String>)> {
    let text = crate::config_file::read(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not JSON ({EXPECTED})", path.display()))?;
    let tools = from_value(&value);
    if tools.is_empty() {
        bail!("{}: no tools found ({EXPECTED})", path.display());
    }
    let mut notes = Vec::new();
    let mut tools = tools;
    for tool in &mut tools {
        let mut renamed = Vec::new();
        python_types(&mut tool.schema, 0, &mut renamed);
        renamed.sort_unstable();
        renamed.dedup();
        for (from, to) in renamed {
            notes.push(format!(
                "tool {}: type \"{from}\" read as \"{to}\"",
                tool.name
            ));
        }
    }
    Ok((tools, notes))
}

/// Python's type names, which real tool lists put where JSON Schema's belong
/// (`"type": "float"`), and the JSON Schema type each means.
const PYTHON_TYPES: &[(&str, &str)] = &[
    ("float", "number"),
    ("int", "integer"),
    ("bool", "boolean"),
    ("str", "string"),
    ("dict", "object"),
    ("list", "array"),
];

/// Renames Python type names in every `type` of `schema` (a string or a list of them),
/// noting each renaming.
fn python_types(v: &mut Value, depth: usize, renamed: &mut Vec<(&'static str, &'static str)>) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(o) => {
            let mut rename = |t: &mut Value| {
                if let Value::String(s) = t
                    && let Some(&(from, to)) = PYTHON_TYPES.iter().find(|(f, _)| f == s)
                {
                    *s = to.to_owned();
                    renamed.push((from, to));
                }
            };
            match o.get_mut("type") {
                Some(Value::Array(list)) => list.iter_mut().for_each(&mut rename),
                Some(t) => rename(t),
                None => {}
            }
            // Data, not schemas: a default may hold `{"type": "list"}` as it is.
            for (key, child) in o.iter_mut() {
                if !matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                    python_types(child, depth + 1, renamed);
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|i| python_types(i, depth + 1, renamed)),
        _ => {}
    }
}

/// The tools a JSON value declares, in any supported layout.
pub(crate) fn from_value(value: &Value) -> Vec<Tool> {
    match value {
        Value::Array(items) => items.iter().flat_map(from_entry).collect(),
        Value::Object(o) => {
            for key in [
                "tools",
                "functionDeclarations",
                "function_declarations",
                "functions",
            ] {
                if let Some(inner) = o.get(key) {
                    return from_value(inner);
                }
            }
            if let Some(result) = o.get("result") {
                return from_value(result);
            }
            let single = from_entry(value);
            if !single.is_empty() {
                return single;
            }
            // A plain {"name": schema} map.
            o.iter()
                .filter(|(_, v)| v.is_object())
                .map(|(name, schema)| Tool {
                    name: name.clone(),
                    description: schema
                        .get("description")
                        .and_then(Value::as_str)
                        .map(Into::into),
                    schema: normalized(schema.clone()),
                    returns: None,
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// One entry of a list: OpenAI `{type:function, function:{...}}`, a bare function
/// (`name` with `parameters`, `input_schema` or `inputSchema`), or a Gemini tool.
fn from_entry(entry: &Value) -> Vec<Tool> {
    let Some(o) = entry.as_object() else {
        return Vec::new();
    };
    if let Some(f) = o.get("function").and_then(Value::as_object) {
        return named(f).into_iter().collect();
    }
    for key in ["functionDeclarations", "function_declarations"] {
        if let Some(inner) = o.get(key) {
            return from_value(inner);
        }
    }
    named(o).into_iter().collect()
}

fn named(o: &Map<String, Value>) -> Option<Tool> {
    let name = o.get("name")?.as_str()?;
    let schema = [
        "parameters",
        "input_schema",
        "inputSchema",
        "parametersJsonSchema",
    ]
    .iter()
    .find_map(|k| o.get(*k))
    .cloned();
    // A bare {"name": ...} with nothing else is not a tool declaration.
    if schema.is_none() && !o.contains_key("description") {
        return None;
    }
    Some(Tool {
        name: name.to_owned(),
        description: o.get("description").and_then(Value::as_str).map(Into::into),
        schema: normalized(schema.unwrap_or_else(|| Value::Object(Map::new()))),
        returns: ["outputSchema", "output_schema", "response", "returns"]
            .iter()
            .find_map(|k| o.get(*k))
            .cloned()
            .map(normalized),
    })
}

/// Gemini writes OpenAPI types in capitals (`"OBJECT"`, `"STRING"`): JSON Schema's are
/// lower case.
fn normalized(mut schema: Value) -> Value {
    fn walk(v: &mut Value, depth: usize) {
        if depth > 64 {
            return;
        }
        match v {
            Value::Object(o) => {
                if let Some(Value::String(t)) = o.get_mut("type")
                    && t.chars().all(|c| c.is_ascii_uppercase())
                {
                    *t = t.to_ascii_lowercase();
                }
                for (_, child) in o.iter_mut() {
                    walk(child, depth + 1);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, depth + 1)),
            _ => {}
        }
    }
    walk(&mut schema, 0);
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(v: Value) -> Vec<String> {
        from_value(&v).into_iter().map(|t| t.name).collect()
    }

    #[test]
    fn every_layout() {
        assert_eq!(
            names(json!([{"type":"function","function":{"name":"a","parameters":{}}}])),
            ["a"]
        );
        assert_eq!(
            names(json!({"tools":[{"name":"b","input_schema":{"type":"object"}}]})),
            ["b"]
        );
        assert_eq!(
            names(json!({"jsonrpc":"2.0","result":{"tools":[{"name":"c","inputSchema":{}}]}})),
            ["c"]
        );
        assert_eq!(
            names(json!({"functionDeclarations":[{"name":"d","parameters":{}}]})),
            ["d"]
        );
        assert_eq!(
            names(json!([{"functionDeclarations":[{"name":"e","description":"x"}]}])),
            ["e"]
        );
        assert_eq!(
            names(json!({"f":{"type":"object"},"g":{"type":"object"}})),
            ["f", "g"]
        );
        assert!(names(json!([1, 2])).is_empty());
    }
}
