//! JSON values written compact, byte for byte as serde_json writes them, from the tape.

use super::Node;
use super::bytes::next_string_byte;
use super::unescape::unescape;
use serde_json::Value;
use std::borrow::Cow;

impl Node<'_> {
    /// This value as compact JSON text that loses nothing: as serde_json writes it when
    /// it can hold the value, else as written with only its white space dropped (half a
    /// surrogate pair, which serde_json refuses and a `String` cannot hold; nesting
    /// deeper than serde_json reads). Never `null` for something else.
    pub(crate) fn kept_compact(&self) -> String {
        let mut out = String::with_capacity(self.text().len());
        // Half a surrogate pair read as U+FFFD would lose it: then kept as written, and
        // nothing is noted on the document.
        let mut lossy = false;
        if self.write_compact(&mut out, &mut lossy) && !lossy {
            return out;
        }
        // A repeated key (the last one wins, in the first one's place), or a value
        // deeper than the tape writes: serde_json, when it reads it.
        if let Ok(value) = serde_json::from_str::<Value>(self.text()) {
            return value.to_string();
        }
        minify(self.text())
    }
}

/// How deep [`Node::write_compact`] goes before leaving the value to serde_json.
pub(super) const COMPACT_DEPTH: usize = 100;

impl Node<'_> {
    /// Appends this value as compact JSON, byte for byte as serde_json writes it after
    /// reading it into a `Value`: no white space, strings with serde_json's escapes,
    /// numbers as written (`arbitrary_precision` keeps them so). False (with `out` half written) when that takes more
    /// than a copy: a duplicate key, a lone surrogate, or nesting deeper than
    /// [`COMPACT_DEPTH`]; the caller then goes through serde_json. Half a surrogate pair
    /// is written U+FFFD and sets `lossy`.
    pub(crate) fn write_compact(&self, out: &mut String, lossy: &mut bool) -> bool {
        self.compact(out, 0, lossy).is_some()
    }

    fn compact(&self, out: &mut String, depth: usize, lossy: &mut bool) -> Option<()> {
        if depth > COMPACT_DEPTH || self.beyond_tape() {
            return None;
        }
        let text = self.text();
        match text.as_bytes()[0] {
            b'{' => {
                out.push('{');
                // Keys that all differ in their summary bit cannot repeat.
                let unique = self.object().is_some_and(|o| o.unique);
                // The keys seen: a list while short, a set beyond (objects of thousands
                // of keys stay linear).
                let mut keys: Vec<Cow<str>> = Vec::new();
                let mut many: std::collections::HashSet<Cow<str>> = Default::default();
                for (n, child) in self.children().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    let s = self.doc.slots[child.i];
                    let raw = &self.doc.text[s.key.0 as usize..s.key.1 as usize];
                    let key = if s.key_escaped {
                        Cow::Owned(unescape(
                            raw,
                            memchr::memchr(b'\\', raw.as_bytes())?,
                            lossy,
                        )?)
                    } else {
                        Cow::Borrowed(raw)
                    };
                    // serde_json keeps the last of duplicate keys, in the first one's place.
                    if !unique && (keys.contains(&key) || many.contains(&key)) {
                        return None;
                    }
                    write_str(out, raw, &key);
                    out.push(':');
                    child.compact(out, depth + 1, lossy)?;
                    if !unique {
                        if keys.len() < 16 {
                            keys.push(key);
                        } else {
                            many.insert(key);
                        }
                    }
                }
                out.push('}');
            }
            b'[' => {
                out.push('[');
                for (n, child) in self.children().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    child.compact(out, depth + 1, lossy)?;
                }
                out.push(']');
            }
            b'"' => {
                let raw = &text[1..text.len() - 1];
                let first = self
                    .slot()
                    .escaped
                    .then(|| memchr::memchr(b'\\', raw.as_bytes()));
                match first.flatten() {
                    Some(first) if !canonical_escapes(raw.as_bytes(), first) => {
                        write_str(out, raw, &unescape(raw, first, lossy)?)
                    }
                    _ => out.push_str(text),
                }
            }
            b't' | b'f' | b'n' => out.push_str(text),
            // A number is the model's text: written as it is (`1.50`, `1e2`, `-0`, and
            // integers beyond 64 bits), as serde_json with `arbitrary_precision` keeps it.
            _ => out.push_str(text),
        }
        Some(())
    }
}

/// Valid JSON text without the white space between its tokens; strings are copied as
/// written, escapes and all. It reads no structure, so no depth is too deep.
pub(super) fn minify(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\n' | b'\r' | b'\t' => i += 1,
            b'"' => {
                // The closing quote: the first one not escaped (the text is valid).
                let mut end = i + 1;
                loop {
                    end = next_string_byte(b, end).unwrap_or(b.len() - 1);
                    match b[end] {
                        b'\\' => end += 2,
                        _ => break,
                    }
                }
                out.push_str(&text[i..=end]);
                i = end + 1;
            }
            _ => {
                let run = b[i..]
                    .iter()
                    .position(|&c| matches!(c, b' ' | b'\n' | b'\r' | b'\t' | b'"'))
                    .map_or(b.len(), |n| i + n);
                out.push_str(&text[i..run]);
                i = run;
            }
        }
    }
    out
}

/// Whether every escape in a string body (the first at `first`) is one serde_json
/// writes too, so that the body is already as serde_json would write it.
pub(super) fn canonical_escapes(raw: &[u8], first: usize) -> bool {
    let mut at = first;
    loop {
        match raw.get(at + 1) {
            Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => {}
            // `\/`, and `\u` escapes (serde_json writes most such characters as they are).
            _ => return false,
        }
        match memchr::memchr(b'\\', &raw[at + 2..]) {
            Some(n) => at += 2 + n,
            None => return true,
        }
    }
}

/// Appends a JSON string whose source text is `raw` and whose decoded text is `text`:
/// as written when it holds no escape, else with serde_json's escapes.
pub(super) fn write_str(out: &mut String, raw: &str, text: &str) {
    if raw.len() == text.len() {
        out.push('"');
        out.push_str(raw);
        out.push('"');
    } else {
        out.push_str(&serde_json::to_string(text).expect("a string serializes"));
    }
}
