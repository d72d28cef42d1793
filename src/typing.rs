//! Schema-guided typing of values that text dialects write as raw strings (XML
//! parameters, pythonic and WIL slots): the declared JSON Schema type decides, and a
//! value that does not convert stays the string it was.

use serde_json::{Number, Value};

/// The schema of property `key` in an arguments schema, if declared.
pub(crate) fn property<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema.get("properties")?.get(key)
}

/// `raw` converted to the type the schema asks for; the string itself when the schema
/// says string, gives no type, or the conversion fails.
pub(crate) fn coerce(raw: &str, schema: &Value) -> Value {
    convert(raw, schema, 0).unwrap_or_else(|| Value::String(raw.to_owned()))
}

fn convert(raw: &str, schema: &Value, depth: usize) -> Option<Value> {
    if depth > 16 {
        return None;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            // A string option accepts anything: try the others first, in order.
            return options
                .iter()
                .filter(|o| !is_string_only(o))
                .find_map(|o| convert(raw, o, depth + 1))
                .or_else(|| {
                    options
                        .iter()
                        .any(is_string_only)
                        .then(|| Value::String(raw.to_owned()))
                });
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) => to_type(raw, t),
        Some(Value::Array(types)) => {
            let types: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            types
                .iter()
                .filter(|t| **t != "string")
                .find_map(|t| to_type(raw, t))
                .or_else(|| {
                    types
                        .contains(&"string")
                        .then(|| Value::String(raw.to_owned()))
                })
        }
        _ => None,
    }
}

fn is_string_only(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("string")
}

fn to_type(raw: &str, t: &str) -> Option<Value> {
    let trimmed = raw.trim();
    match t {
        "string" => Some(Value::String(raw.to_owned())),
        "integer" => {
            // Digits as written, however many.
            if let Some(n) = crate::json::json_number(trimmed)
                && !trimmed.contains(['.', 'e', 'E'])
            {
                return Some(Value::Number(n));
            }
            // `3.0` is an integer in JSON Schema.
            let f = trimmed.parse::<f64>().ok()?;
            (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
        }
        "number" => {
            if let Some(n) = crate::json::json_number(trimmed) {
                return Some(Value::Number(n));
            }
            let f = trimmed.parse::<f64>().ok()?;
            Number::from_f64(f).map(Value::Number)
        }
        "boolean" => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => matches!(trimmed, "null" | "None" | "").then_some(Value::Null),
        "object" => match serde_json::from_str(trimmed) {
            Ok(v @ Value::Object(_)) => Some(v),
            _ => crate::pyliteral::parse(trimmed).filter(Value::is_object),
        },
        "array" => match serde_json::from_str(trimmed) {
            Ok(v @ Value::Array(_)) => Some(v),
            _ => crate::pyliteral::parse(trimmed).filter(Value::is_array),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_from_the_schema() {
        assert_eq!(coerce(" 3 ", &json!({"type": "integer"})), json!(3));
        assert_eq!(coerce("3.0", &json!({"type": "integer"})), json!(3));
        assert_eq!(coerce("2.5", &json!({"type": "number"})), json!(2.5));
        assert_eq!(coerce("True", &json!({"type": "boolean"})), json!(true));
        assert_eq!(coerce("[1, 2]", &json!({"type": "array"})), json!([1, 2]));
        assert_eq!(
            coerce("{'a': None}", &json!({"type": "object"})),
            json!({"a": null})
        );
    }

    #[test]
    fn strings_stay_strings() {
        // Looks numeric, but the schema says string.
        assert_eq!(coerce("00123", &json!({"type": "string"})), json!("00123"));
        // Does not convert: kept as written.
        assert_eq!(coerce("three", &json!({"type": "integer"})), json!("three"));
        assert_eq!(coerce("3", &json!({})), json!("3"));
    }

    #[test]
    fn first_option_that_converts() {
        let s = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert_eq!(coerce("7", &s), json!(7));
        assert_eq!(coerce("seven", &s), json!("seven"));
        let s = json!({"type": ["null", "boolean"]});
        assert_eq!(coerce("false", &s), json!(false));
        assert_eq!(coerce("null", &s), json!(null));
    }
}
