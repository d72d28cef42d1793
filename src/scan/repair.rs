//! JSON written by a model read tolerantly: strict first, then the named repairs models
//! need (trailing commas, raw line breaks in strings, unclosed braces, Python literals).

use crate::json::{Doc, Node};
use crate::pyliteral;

/// Reads JSON written by a model and hands its root to `read`, with the repairs it
/// needed. Strict JSON first; then, unless `strict`, the repairs models need, each
/// named: `trailing-comma`, `unescaped-newline`, `unclosed-brace` (closers added at the
/// end of the text), `python-literals`. The value is read from the JSON tape, never
/// built as a `serde_json::Value`: calls take their arguments as compact text.
pub(crate) fn with_json<R>(
    text: &str,
    strict: bool,
    read: impl FnOnce(Node<'_>, Vec<&'static str>) -> R,
) -> Result<R, String> {
    let tape_error = match Doc::parse(text) {
        Ok(doc) => return Ok(read(doc.root(), Vec::new())),
        Err(e) => e,
    };
    // What serde_json says of the text as a value: the message users have always seen
    // (the tape's fallback reads it as `IgnoredAny`, which words some errors otherwise).
    let first_error = || {
        serde_json::from_str::<serde_json::Value>(text)
            .err()
            .unwrap_or(tape_error)
            .to_string()
    };
    if strict {
        return Err(first_error());
    }
    let (fixed, repairs) = repair(text);
    if !repairs.is_empty()
        && let Ok(doc) = Doc::parse(&fixed)
    {
        return Ok(read(doc.root(), repairs));
    }
    if let Some(value) = pyliteral::parse(text.trim()) {
        let json = value.to_string();
        if let Ok(doc) = Doc::parse(&json) {
            return Ok(read(doc.root(), vec!["python-literals"]));
        }
    }
    Err(first_error())
}

/// One pass that removes trailing commas, escapes raw control characters inside
/// strings and closes what is still open at the end.
fn repair(text: &str) -> (String, Vec<&'static str>) {
    let mut out = String::with_capacity(text.len() + 8);
    let mut repairs: Vec<&'static str> = Vec::new();
    let mut stack: Vec<char> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            if escaped {
                escaped = false;
                out.push(c);
            } else if c == '\\' {
                escaped = true;
                out.push(c);
            } else if c == '"' {
                in_string = false;
                out.push(c);
            } else if c == '\n' || c == '\r' || c == '\t' {
                note(&mut repairs, "unescaped-newline");
                out.push_str(match c {
                    '\n' => "\\n",
                    '\r' => "\\r",
                    _ => "\\t",
                });
            } else {
                out.push(c);
            }
            i += 1;
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if matches!(next, Some('}') | Some(']')) {
                    note(&mut repairs, "trailing-comma");
                    i += 1;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    if in_string || !stack.is_empty() {
        note(&mut repairs, "unclosed-brace");
        if escaped {
            out.pop();
        }
        if in_string {
            out.push('"');
        }
        // A dangling `"key":` or `,` cannot be closed into valid JSON.
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        if out.ends_with(',') {
            out.pop();
        }
        while let Some(close) = stack.pop() {
            out.push(close);
        }
    }
    (out, repairs)
}

fn note(repairs: &mut Vec<&'static str>, name: &'static str) {
    if !repairs.contains(&name) {
        repairs.push(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The value `with_json` reads, as serde_json sees it, and the repairs.
    fn parse_json(text: &str, strict: bool) -> Result<(serde_json::Value, Vec<&str>), String> {
        with_json(text, strict, |root, repairs| (root.value(), repairs))
    }

    #[test]
    fn repairs_are_named() {
        let (v, repairs) = parse_json("{\"a\": [1, 2,], }", false).unwrap();
        assert_eq!(
            (v, repairs),
            (serde_json::json!({"a": [1, 2]}), vec!["trailing-comma"])
        );
        let (v, repairs) = parse_json("{\"a\": \"line\nbreak\"}", false).unwrap();
        assert_eq!(v["a"], "line\nbreak");
        assert_eq!(repairs, ["unescaped-newline"]);
        let (v, repairs) = parse_json("{\"a\": {\"b\": \"c", false).unwrap();
        assert_eq!(v["a"]["b"], "c");
        assert_eq!(repairs, ["unclosed-brace"]);
        let (v, repairs) = parse_json("{'a': True, 'b': None}", false).unwrap();
        assert_eq!(v, serde_json::json!({"a": true, "b": null}));
        assert_eq!(repairs, ["python-literals"]);
        assert!(parse_json("{'a': True}", true).is_err());
        assert!(parse_json("{\"a\": 1,}", true).is_err());
        assert_eq!(
            parse_json("{\"a\": 1} {", false).map(|p| p.1),
            Err("trailing characters at line 1 column 10".into())
        );
    }
}
