//! A lazily parsed JSON tree that remembers where every value sits in its source text.
//!
//! serde_json's `Value` forgets positions, but records must name the line where a call
//! starts, also in pretty-printed documents. A [`Node`] is a borrowed `RawValue` plus the
//! document it came from: its byte offset is the distance between the two pointers, and
//! children are parsed one level at a time, only when the walker asks for them.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// One JSON value inside a document, with its offset.
#[derive(Clone, Copy)]
pub struct Node<'a> {
    raw: &'a RawValue,
    doc: &'a str,
}

/// The kind of a JSON value, read from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl<'a> Node<'a> {
    /// Parses `doc` as one JSON value; trailing whitespace is allowed, anything else is not.
    pub fn parse(doc: &'a str) -> Result<Node<'a>, serde_json::Error> {
        let raw: &'a RawValue = serde_json::from_str(doc)?;
        Ok(Node { raw, doc })
    }

    /// The exact source text of this value.
    pub fn text(&self) -> &'a str {
        self.raw.get()
    }

    /// Byte offset of this value in its document.
    pub fn offset(&self) -> usize {
        self.raw.get().as_ptr() as usize - self.doc.as_ptr() as usize
    }

    pub fn kind(&self) -> Kind {
        match self.text().as_bytes().first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// Parses one level of an object. `None` when this is not an object.
    pub fn object(&self) -> Option<Obj<'a>> {
        if self.kind() != Kind::Object {
            return None;
        }
        let entries: Entries<'a> = serde_json::from_str(self.text()).ok()?;
        Some(Obj {
            entries: entries.0,
            doc: self.doc,
        })
    }

    /// Parses one level of an array. `None` when this is not an array.
    pub fn array(&self) -> Option<Vec<Node<'a>>> {
        if self.kind() != Kind::Array {
            return None;
        }
        let items: Vec<&'a RawValue> = serde_json::from_str(self.text()).ok()?;
        Some(
            items
                .into_iter()
                .map(|raw| Node { raw, doc: self.doc })
                .collect(),
        )
    }

    /// The string value, unescaped (borrowed when it holds no escapes).
    pub fn str(&self) -> Option<Cow<'a, str>> {
        if self.kind() != Kind::String {
            return None;
        }
        let s: MaybeBorrowed<'a> = serde_json::from_str(self.text()).ok()?;
        Some(s.0)
    }

    pub fn bool(&self) -> Option<bool> {
        match self.text() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    pub fn u64(&self) -> Option<u64> {
        self.text().parse().ok()
    }

    /// A fully parsed copy, for values that go into records as they are.
    pub fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

/// The entries of one object, in source order.
pub struct Obj<'a> {
    entries: Vec<(Cow<'a, str>, &'a RawValue)>,
    doc: &'a str,
}

impl<'a> Obj<'a> {
    /// The value of `key`; with duplicate keys the last one wins, as in serde_json.
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, raw)| Node { raw, doc: self.doc })
    }

    pub fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// The string value of `key`, if it is a string.
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        self.get(key)?.str()
    }

    /// The object value of `key`, if it is an object.
    pub fn obj(&self, key: &str) -> Option<Obj<'a>> {
        self.get(key)?.object()
    }

    /// The array value of `key`, if it is an array.
    pub fn arr(&self, key: &str) -> Option<Vec<Node<'a>>> {
        self.get(key)?.array()
    }

    /// Whether `key` holds this exact string.
    pub fn is(&self, key: &str, want: &str) -> bool {
        self.str(key).is_some_and(|s| s == want)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, Node<'a>)> + '_ {
        self.entries
            .iter()
            .map(|(k, raw)| (k.as_ref(), Node { raw, doc: self.doc }))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A string that borrows from the input when it can.
struct MaybeBorrowed<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for MaybeBorrowed<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeBorrowed<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeBorrowed(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MaybeBorrowed(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(MaybeBorrowed(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The entries of an object, each value left unparsed.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(key) = map.next_key::<MaybeBorrowed<'de>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    entries.push((key.0, value));
                }
                Ok(Entries(entries))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, _: S) -> Result<Self::Value, S::Error> {
                Err(de::Error::custom("expected an object"))
            }
        }
        d.deserialize_map(V)
    }
}

/// Maps byte offsets of one text to 1-based line numbers.
pub struct LineIndex {
    /// Offsets of every `\n` in the text.
    newlines: Vec<usize>,
    /// Line number of the text's first line in its file.
    first_line: u64,
    /// For text made from another format (a YAML mapping written as JSON): offsets
    /// where a value starts, with its line in the original file, sorted by offset.
    anchors: Vec<(usize, u64)>,
}

impl LineIndex {
    pub fn new(text: &str, first_line: u64) -> LineIndex {
        LineIndex {
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
            first_line,
            anchors: Vec::new(),
        }
    }

    /// Every offset maps to `line`: for text whose own line breaks do not match its file
    /// (a YAML scalar, a re-serialized body).
    pub fn fixed(line: u64) -> LineIndex {
        LineIndex {
            newlines: Vec::new(),
            first_line: line,
            anchors: Vec::new(),
        }
    }

    /// Lines given by anchors: an offset gets the line of the last anchor at or before it.
    pub fn anchored(first_line: u64, anchors: Vec<(usize, u64)>) -> LineIndex {
        LineIndex {
            newlines: Vec::new(),
            first_line,
            anchors,
        }
    }

    pub fn line(&self, offset: usize) -> u64 {
        if !self.anchors.is_empty() {
            let i = self.anchors.partition_point(|&(at, _)| at <= offset);
            return match i {
                0 => self.first_line,
                i => self.anchors[i - 1].1,
            };
        }
        self.first_line + self.newlines.partition_point(|&nl| nl < offset) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_lines_follow_the_source() {
        let doc = "{\n  \"a\": [1,\n {\"b\": \"x\\ny\"}],\n  \"c\": null\n}\n";
        let root = Node::parse(doc).unwrap();
        let obj = root.object().unwrap();
        let a = obj.arr("a").unwrap();
        let inner = a[1].object().unwrap();
        let lines = LineIndex::new(doc, 1);
        assert_eq!(lines.line(a[1].offset()), 3);
        assert_eq!(inner.str("b").unwrap(), "x\ny");
        assert!(obj.get("c").unwrap().is_null());
        assert_eq!(lines.line(root.offset()), 1);
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let root = Node::parse(r#"{"na\u006de": "f"}"#).unwrap();
        assert!(root.object().unwrap().is("name", "f"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let doc = "[".repeat(100_000);
        assert!(Node::parse(&doc).is_err());
    }
}
