//! JSON output for the writers: a small tree of what to write, laid out compact (one
//! line, for JSON Lines) or indented by two spaces. Values kept from the source
//! ([`Raw`]) keep every token as written; only the white space between tokens is laid
//! out again.

use super::model::Raw;

/// A JSON value to write.
#[derive(Clone, Debug)]
pub(crate) enum J {
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
    Str(String),
    Raw(Raw),
    Bool(bool),
    Null,
}

impl J {
    pub(crate) fn obj() -> J {
        J::Obj(Vec::new())
    }

    pub(crate) fn str(s: impl Into<String>) -> J {
        J::Str(s.into())
    }

    /// Adds a member (to an object; a no-op on anything else).
    pub(crate) fn with(mut self, key: &str, value: J) -> J {
        self.push(key, value);
        self
    }

    pub(crate) fn push(&mut self, key: &str, value: J) {
        if let J::Obj(members) = self {
            members.push((key.to_owned(), value));
        }
    }

    /// Adds a member only when there is a value.
    pub(crate) fn push_some(&mut self, key: &str, value: Option<J>) {
        if let Some(v) = value {
            self.push(key, v);
        }
    }

    /// Adds the members of `extra` whose keys are not there yet.
    pub(crate) fn push_extra(&mut self, extra: &[(String, Raw)]) {
        if let J::Obj(members) = self {
            for (k, v) in extra {
                if !members.iter().any(|(m, _)| m == k) {
                    members.push((k.clone(), J::Raw(v.clone())));
                }
            }
        }
    }

    /// Whether this is an object with a member `key`.
    pub(crate) fn has(&self, key: &str) -> bool {
        matches!(self, J::Obj(members) if members.iter().any(|(k, _)| k == key))
    }

    /// Whether this is the string `s`.
    pub(crate) fn is_str(&self, s: &str) -> bool {
        matches!(self, J::Str(v) if v == s)
    }

    /// The JSON text: indented by two spaces, or on one line.
    pub(crate) fn render(&self, pretty: bool) -> String {
        let mut out = String::new();
        self.write(&mut out, pretty, 0);
        out
    }

    fn write(&self, out: &mut String, pretty: bool, depth: usize) {
        match self {
            J::Obj(members) => {
                if members.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, pretty, depth + 1);
                    write_str(out, k);
                    out.push(':');
                    if pretty {
                        out.push(' ');
                    }
                    v.write(out, pretty, depth + 1);
                }
                newline(out, pretty, depth);
                out.push('}');
            }
            J::Arr(items) => {
                if items.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, pretty, depth + 1);
                    v.write(out, pretty, depth + 1);
                }
                newline(out, pretty, depth);
                out.push(']');
            }
            J::Str(s) => write_str(out, s),
            J::Raw(raw) => layout(raw.as_str(), out, pretty, depth),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Null => out.push_str("null"),
        }
    }
}

fn newline(out: &mut String, pretty: bool, depth: usize) {
    if pretty {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

/// A JSON string as serde_json writes it (only what must be escaped is).
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push_str(&serde_json::to_string(s).expect("a string serializes"));
}

/// Lays out one JSON value given as valid text: tokens copied as they are, white space
/// between them replaced by this writer's. The text comes from a parsed source, so it
/// is valid; should it not be, it is copied as it is rather than altered.
pub(crate) fn layout(text: &str, out: &mut String, pretty: bool, depth: usize) {
    if !pretty {
        out.push_str(&crate::json::without_layout(text));
        return;
    }
    let bytes = text.as_bytes();
    let start = out.len();
    let mut depth = depth;
    // Whether the container just opened is still empty (`{}` and `[]` stay together).
    let mut just_opened = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'"' => {
                if just_opened {
                    newline(out, pretty, depth);
                    just_opened = false;
                }
                let end = string_end(bytes, i);
                out.push_str(&text[i..end]);
                i = end;
                continue;
            }
            b'{' | b'[' => {
                if just_opened {
                    newline(out, pretty, depth);
                }
                out.push(b as char);
                depth += 1;
                just_opened = true;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if !just_opened {
                    newline(out, pretty, depth);
                }
                just_opened = false;
                out.push(b as char);
            }
            b',' => {
                out.push(',');
                newline(out, pretty, depth);
            }
            b':' => {
                out.push(':');
                if pretty {
                    out.push(' ');
                }
            }
            _ => {
                if just_opened {
                    newline(out, pretty, depth);
                    just_opened = false;
                }
                let end = bytes[i..]
                    .iter()
                    .position(|c| {
                        matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']' | b':')
                    })
                    .map_or(bytes.len(), |n| i + n);
                out.push_str(&text[i..end]);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    if !valid_json(&out[start..]) && valid_json(text) {
        out.truncate(start);
        out.push_str(text);
    }
}

/// The offset after the closing quote of the string that starts at `at`.
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn valid_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_keep_every_token() {
        let raw = "{ \"n\" : 1.50e3, \"big\": 123456789012345678901234567890,\n \"s\": \"a \\u00e9 {\\\"x\\\": [1, 2]}\", \"e\": {}, \"a\": [ ] }";
        let compact = J::Raw(Raw::new(raw)).render(false);
        assert_eq!(
            compact,
            r#"{"n":1.50e3,"big":123456789012345678901234567890,"s":"a \u00e9 {\"x\": [1, 2]}","e":{},"a":[]}"#
        );
        let pretty = J::obj().with("v", J::Raw(Raw::new(raw))).render(true);
        assert_eq!(
            pretty,
            "{\n  \"v\": {\n    \"n\": 1.50e3,\n    \"big\": 123456789012345678901234567890,\n    \"s\": \"a \\u00e9 {\\\"x\\\": [1, 2]}\",\n    \"e\": {},\n    \"a\": []\n  }\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&pretty).unwrap();
        assert_eq!(back["v"]["s"], "a é {\"x\": [1, 2]}");
    }

    #[test]
    fn nested_arrays_and_scalars() {
        let raw = "[1,[2,[]],{\"a\":[true,null]},\"x\"]";
        assert_eq!(J::Raw(Raw::new(raw)).render(false), raw);
        assert_eq!(
            J::Raw(Raw::new(raw)).render(true),
            "[\n  1,\n  [\n    2,\n    []\n  ],\n  {\n    \"a\": [\n      true,\n      null\n    ]\n  },\n  \"x\"\n]"
        );
        assert_eq!(J::Raw(Raw::new(" 42 ")).render(true), "42");
    }
}
