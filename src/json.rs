//! A lazily parsed JSON tree that remembers where every value sits in its source text.
//!
//! serde_json's `Value` forgets positions, but records must name the line where a call
//! starts, also in pretty-printed documents. [`Doc::parse`] validates a document and
//! records the span of every value on a tape in one pass (strings are skipped with
//! memchr), so walking it never reads the same bytes twice; strings are unescaped and
//! values fully parsed only when asked for.

use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// How deep the values of a document are walked (calls and messages looked for, paths
/// of streamed arguments built): no transcript format nests this deep, and a hostile
/// input must not exhaust the stack or take quadratic time.
pub(crate) const MAX_WALK_DEPTH: usize = 128;

mod bytes;
mod compact;
mod lines;
mod number;
mod tape;
mod unescape;
mod write;

pub(crate) use bytes::bytes_equal;
pub(crate) use compact::{compact_escaped, compact_text, without_layout};
pub(crate) use lines::LineIndex;
pub(crate) use tape::MAX_VALUES;
use unescape::unescape;

/// A parsed document: its text and a tape of every value in it, built in one pass.
pub(crate) struct Doc<'a> {
    text: &'a str,
    slots: Slots<'a>,
    /// Some string of it was decoded with half a surrogate pair read as U+FFFD (see
    /// [`Doc::lossy`]).
    lossy: std::cell::Cell<bool>,
}

/// A document's tape: its own, or lent by a batch of documents parsed on another thread
/// (see [`Doc::from_tape`]).
enum Slots<'a> {
    Own(Vec<Slot>),
    Lent(&'a [Slot]),
}

impl std::ops::Deref for Slots<'_> {
    type Target = [Slot];

    #[inline(always)]
    fn deref(&self) -> &[Slot] {
        match self {
            Slots::Own(slots) => slots,
            Slots::Lent(slots) => slots,
        }
    }
}

thread_local! {
    /// Tape buffers left by documents gone, for the next ones (a document read inside
    /// another, such as a call's arguments, takes a second one).
    static SPARE: std::cell::RefCell<Vec<Vec<Slot>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many spare tape buffers a thread keeps.
const SPARES: usize = 4;

fn take_spare() -> Vec<Slot> {
    SPARE.with(|spare| spare.borrow_mut().pop().unwrap_or_default())
}

fn give_spare(mut slots: Vec<Slot>) {
    if slots.capacity() <= SPARE_MAX {
        slots.clear();
        SPARE.with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARES {
                spare.push(slots);
            }
        });
    }
}

/// Lets this thread's spare tape buffers go now rather than when the thread exits.
pub(crate) fn release_spares() {
    let _ = SPARE.try_with(|spare| std::mem::take(&mut *spare.borrow_mut()));
}

/// Buffers larger than this go back to the allocator instead of being kept.
const SPARE_MAX: usize = 1 << 16;

impl Drop for Doc<'_> {
    fn drop(&mut self) {
        if let Slots::Own(slots) = &mut self.slots {
            give_spare(std::mem::take(slots));
        }
    }
}

/// One value on the tape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    // Offsets are 32-bit: a smaller tape is a faster one (documents are < 4 GiB).
    start: u32,
    end: u32,
    /// For an object member: the key's span without its quotes.
    key: (u32, u32),
    /// Whether the key holds an escape (and must be unescaped to compare).
    key_escaped: bool,
    /// The index after this value's last descendant: its next sibling, if any.
    after: u32,
    /// For an object: one bit per key, and whether no two keys share a bit (see
    /// [`Obj`]), worked out while the keys are read.
    keys: u64,
    unique: bool,
    /// For a string: whether it holds an escape (without one, it reads as it is).
    escaped: bool,
}

/// One JSON value inside a document, with its offset.
#[derive(Clone, Copy)]
pub(crate) struct Node<'a> {
    doc: &'a Doc<'a>,
    i: usize,
}

/// The kind of a JSON value, read from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl<'a> Doc<'a> {
    /// Parses `text` as one JSON value; trailing whitespace is allowed, anything else
    /// is not. One validating pass builds the tape; on error, serde_json says what is
    /// wrong, so messages are the same as everywhere else.
    pub(crate) fn parse(text: &'a str) -> Result<Doc<'a>, serde_json::Error> {
        if text.len() > u32::MAX as usize {
            return Err(serde::de::Error::custom(
                "a JSON document larger than 4 GiB is not supported",
            ));
        }
        // The tape's buffer is reused from one document to the next (one per thread).
        let (ok, slots) = tape::scan(text.as_bytes(), take_spare());
        if ok {
            return Ok(Doc {
                text,
                slots: Slots::Own(slots),
                lossy: Default::default(),
            });
        }
        let too_many = slots.len() >= MAX_VALUES;
        give_spare(slots);
        if too_many {
            return Err(serde::de::Error::custom(format_args!(
                "more than {MAX_VALUES} values in one JSON value"
            )));
        }
        match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Err(e) => Err(e),
            // The tape is stricter than serde_json nowhere on purpose; if it ever is,
            // serde_json's verdict wins and the error names the disagreement.
            Ok(_) => Err(serde::de::Error::custom(
                "the JSON scanner rejected a value serde_json accepts",
            )),
        }
    }

    pub(crate) fn root(&self) -> Node<'_> {
        Node { doc: self, i: 0 }
    }

    /// The tape, to be carried to another thread with the text and made a document
    /// again there by [`Doc::from_tape`].
    pub(crate) fn tape(&self) -> &[Slot] {
        &self.slots
    }

    /// The document that [`Doc::parse`] made of `text`, from its tape (borrowed, not
    /// copied).
    pub(crate) fn from_tape(text: &'a str, tape: &'a [Slot]) -> Doc<'a> {
        Doc {
            text,
            slots: Slots::Lent(tape),
            lossy: Default::default(),
        }
    }

    /// Whether a string of this document read so far held half a surrogate pair, read
    /// as U+FFFD ([`Node::str`] and what decodes through it): the reader says so, on the
    /// record's line.
    pub(crate) fn lossy(&self) -> bool {
        self.lossy.get()
    }
}

impl<'a> Node<'a> {
    fn slot(&self) -> &Slot {
        &self.doc.slots[self.i]
    }

    /// The exact source text of this value.
    pub(crate) fn text(&self) -> &'a str {
        let s = self.doc.slots[self.i];
        &self.doc.text[s.start as usize..s.end as usize]
    }

    /// Byte offset of this value in its document.
    pub(crate) fn offset(&self) -> usize {
        self.slot().start as usize
    }

    pub(crate) fn kind(&self) -> Kind {
        match self.doc.text.as_bytes()[self.slot().start as usize] {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b't' | b'f' => Kind::Bool,
            b'n' => Kind::Null,
            _ => Kind::Number,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The children of a container, in source order.
    fn children(self) -> impl Iterator<Item = Node<'a>> + 'a {
        let doc = self.doc;
        let end = doc.slots[self.i].after as usize;
        let mut c = self.i + 1;
        std::iter::from_fn(move || {
            if c >= end {
                return None;
            }
            let node = Node { doc, i: c };
            c = doc.slots[c].after as usize;
            Some(node)
        })
    }

    /// One level of an object. `None` when this is not an object.
    pub(crate) fn object(&self) -> Option<Obj<'a>> {
        if self.kind() != Kind::Object {
            return None;
        }
        let s = self.slot();
        Some(Obj {
            doc: self.doc,
            i: self.i,
            keys: s.keys,
            unique: s.unique,
        })
    }

    /// One level of an array. `None` when this is not an array.
    pub(crate) fn array(&self) -> Option<Vec<Node<'a>>> {
        (self.kind() == Kind::Array).then(|| self.children().collect())
    }

    /// The elements of an array, without collecting them (nothing for other kinds).
    pub(crate) fn items(self) -> impl Iterator<Item = Node<'a>> + 'a {
        let array = self.kind() == Kind::Array;
        self.children().filter(move |_| array)
    }

    /// The string value, unescaped (borrowed when it holds no escapes); half a surrogate
    /// pair reads as U+FFFD and is noted on the document ([`Doc::lossy`]).
    pub(crate) fn str(&self) -> Option<Cow<'a, str>> {
        if self.kind() != Kind::String {
            return None;
        }
        let text = self.text();
        let inner = &text[1..text.len() - 1];
        if !self.slot().escaped {
            return Some(Cow::Borrowed(inner));
        }
        let first = memchr::memchr(b'\\', inner.as_bytes())?;
        let mut lossy = false;
        let text = unescape(inner, first, &mut lossy);
        if lossy {
            self.doc.lossy.set(true);
        }
        text.map(Cow::Owned)
    }

    pub(crate) fn bool(&self) -> Option<bool> {
        match self.text() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    pub(crate) fn u64(&self) -> Option<u64> {
        self.text().parse().ok()
    }

    /// A fully parsed copy, as serde_json reads the text.
    #[cfg(test)]
    pub(crate) fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }

    /// A parsed copy in which half a surrogate pair reads as U+FFFD (noted as
    /// [`Node::str`] notes it), for values serde_json refuses; `None` for a value nested
    /// deeper than the tape holds ([`tape::MAX_NESTING`]).
    pub(crate) fn lossy_value(&self) -> Option<Value> {
        if self.beyond_tape() {
            return None;
        }
        Some(match self.kind() {
            Kind::Object => {
                let mut map = serde_json::Map::new();
                for (key, child) in self.object()?.iter() {
                    map.insert(key.into_owned(), child.lossy_value()?);
                }
                Value::Object(map)
            }
            Kind::Array => Value::Array(
                self.items()
                    .map(|c| c.lossy_value())
                    .collect::<Option<_>>()?,
            ),
            Kind::String => Value::String(self.str()?.into_owned()),
            Kind::Number => Value::Number(serde_json::from_str(self.text()).ok()?),
            Kind::Bool => Value::Bool(self.bool()?),
            Kind::Null => Value::Null,
        })
    }

    /// A container nested deeper than the tape records ([`tape::MAX_NESTING`]): it has
    /// content, but no children on the tape.
    fn beyond_tape(&self) -> bool {
        let text = self.text();
        matches!(text.as_bytes()[0], b'{' | b'[')
            && self.slot().after as usize == self.i + 1
            && !text[1..text.len() - 1].trim_ascii().is_empty()
    }

    /// The member key of this value (its raw text, unescaped when needed).
    fn key(&self) -> Cow<'a, str> {
        let s = self.doc.slots[self.i];
        let (k0, k1) = (s.key.0 as usize, s.key.1 as usize);
        let raw = &self.doc.text[k0..k1];
        if !s.key_escaped {
            return Cow::Borrowed(raw);
        }
        let quoted = &self.doc.text[k0 - 1..k1 + 1];
        serde_json::from_str::<MaybeBorrowed<'a>>(quoted).map_or(Cow::Borrowed(raw), |m| m.0)
    }
}

/// The entries of one object, in source order.
#[derive(Clone, Copy)]
pub(crate) struct Obj<'a> {
    doc: &'a Doc<'a>,
    i: usize,
    /// One bit per key (of its length and first and last bytes): a key whose bit is
    /// not set is not there.
    keys: u64,
    /// No two keys share a bit, so no key is there twice: a lookup may stop at the first
    /// match (with duplicates, the last one wins).
    unique: bool,
}

#[inline(always)]
fn key_bit(key: &[u8]) -> u64 {
    let (first, last) = (
        key.first().copied().unwrap_or(0),
        key.last().copied().unwrap_or(0),
    );
    let mix = (key.len() as u64).wrapping_mul(31) ^ u64::from(first) ^ (u64::from(last) << 3);
    1 << (mix.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// Whether two slices of the same length hold the same bytes: keys are short, and a
/// few word compares cost less than a call to `memcmp`.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4"));
    match n {
        16.. => a == b,
        8.. => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4.. => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => a.iter().zip(b).all(|(x, y)| x == y),
    }
}

impl<'a> Obj<'a> {
    fn node(&self) -> Node<'a> {
        Node {
            doc: self.doc,
            i: self.i,
        }
    }

    /// The value of `key`; with duplicate keys the last one wins, as in serde_json.
    #[inline(always)]
    pub(crate) fn get(&self, key: &str) -> Option<Node<'a>> {
        // Inlined, so that the bit of a literal key is worked out at compile time and
        // the walker's many questions about absent keys cost a test each.
        if self.keys & key_bit(key.as_bytes()) == 0 {
            return None;
        }
        self.find(key)
    }

    fn find(&self, key: &str) -> Option<Node<'a>> {
        let mut found = None;
        let text = self.doc.text.as_bytes();
        for child in self.node().children() {
            let s = &self.doc.slots[child.i];
            let matches = if s.key_escaped {
                child.key() == key
            } else {
                (s.key.1 - s.key.0) as usize == key.len()
                    && same_bytes(&text[s.key.0 as usize..s.key.1 as usize], key.as_bytes())
            };
            if matches {
                found = Some(child);
                if self.unique {
                    break;
                }
            }
        }
        found
    }

    #[inline]
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The string value of `key`, if it is a string.
    #[inline]
    pub(crate) fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        self.get(key)?.str()
    }

    /// The object value of `key`, if it is an object.
    #[inline]
    pub(crate) fn obj(&self, key: &str) -> Option<Obj<'a>> {
        self.get(key)?.object()
    }

    /// The array value of `key`, if it is an array.
    #[inline]
    pub(crate) fn arr(&self, key: &str) -> Option<Vec<Node<'a>>> {
        self.get(key)?.array()
    }

    /// The elements of the array value of `key` (nothing when it is not an array).
    #[inline]
    pub(crate) fn items(&self, key: &str) -> impl Iterator<Item = Node<'a>> + use<'a> {
        self.get(key).into_iter().flat_map(Node::items)
    }

    /// Whether `key` holds this exact string.
    #[inline]
    pub(crate) fn is(&self, key: &str, want: &str) -> bool {
        self.str(key).is_some_and(|s| s == want)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (Cow<'a, str>, Node<'a>)> + use<'a> {
        self.node().children().map(|c| (c.key(), c))
    }

    /// The values of the members whose key is not `skip`, in source order: a walk that
    /// needs no key but one compares it without making it.
    pub(crate) fn values_except(
        &self,
        skip: &'static str,
    ) -> impl Iterator<Item = Node<'a>> + use<'a> {
        let doc = self.doc;
        self.node().children().filter(move |c| {
            let s = &doc.slots[c.i];
            if s.key_escaped {
                return c.key() != skip;
            }
            let raw = &doc.text.as_bytes()[s.key.0 as usize..s.key.1 as usize];
            !same_bytes(raw, skip.as_bytes())
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.doc.slots[self.i].after as usize == self.i + 1
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

/// A number written as JSON text (`1.50`, `1e2`, thirty digits), kept as written
/// (serde_json's `arbitrary_precision`); `None` for text that is no JSON number.
pub(crate) fn json_number(text: &str) -> Option<serde_json::Number> {
    let b = text.as_bytes();
    let plain =
        matches!(b.first(), Some(b'-' | b'0'..=b'9')) && b.last().is_some_and(u8::is_ascii_digit);
    plain.then(|| serde_json::from_str(text).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json writes after reading `text` into a `Value`.
    fn serde_compact(text: &str) -> String {
        serde_json::to_string(&serde_json::from_str::<Value>(text).unwrap()).unwrap()
    }

    fn compact(text: &str) -> Option<String> {
        let doc = Doc::parse(text).unwrap();
        let mut out = String::new();
        doc.root()
            .write_compact(&mut out, &mut false)
            .then_some(out)
    }

    #[test]
    fn kept_text_loses_nothing() {
        let kept = |text: &str| {
            let doc = Doc::parse(text).unwrap();
            let kept = doc.root().kept_compact();
            // Kept as written: nothing was read as U+FFFD.
            assert!(!doc.lossy(), "{text}");
            kept
        };
        // What serde_json holds, as it writes it.
        assert_eq!(
            kept(r#" { "a" : [ 1.50 , "\u00e9" ] } "#),
            r#"{"a":[1.50,"é"]}"#
        );
        assert_eq!(kept(r#"{"a": 1, "a": 2}"#), r#"{"a":2}"#);
        // What it cannot hold, as written, white space dropped.
        assert_eq!(
            kept("{ \"a\" : \"x \\ud800 \\\" y\" ,\n \"b\": [ 1 ] }"),
            r#"{"a":"x \ud800 \" y","b":[1]}"#
        );
        let deep = format!("{} 1 {}", "[ ".repeat(200), " ]".repeat(200));
        assert_eq!(kept(&deep), deep.replace(' ', ""));
        let doc = Doc::parse(r#"{"a": ["\ud800", 2]}"#).unwrap();
        assert_eq!(
            doc.root().lossy_value(),
            Some(serde_json::json!({"a": ["\u{fffd}", 2]}))
        );
        assert!(doc.lossy());
    }

    #[test]
    fn same_bytes_is_slice_equality() {
        let a: Vec<u8> = (0..24).map(|i| b'a' + i).collect();
        for n in 0..=20 {
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 1;
                assert!(!same_bytes(&a[..n], &b[..n]), "{n} {at}");
            }
            assert!(same_bytes(&a[..n], &a.clone()[..n]), "{n}");
            assert!(!same_bytes(&a[..n], &a[..n + 1]), "{n}");
        }
    }

    #[test]
    fn the_last_of_duplicate_keys_wins() {
        for text in [
            r#"{"a": 1, "b": 2, "a": 3}"#,
            r#"{"a": 1, "a\u0062": 0, "a": 3}"#,
            r#"{"x": {"k": "first", "k": "last"}, "a": 3}"#,
        ] {
            let doc = Doc::parse(text).unwrap();
            let root = doc.root().object().unwrap();
            assert_eq!(root.get("a").unwrap().text(), "3", "{text}");
        }
        let doc = Doc::parse(r#"{"x": {"k": "first", "k": "last"}}"#).unwrap();
        let x = doc.root().object().unwrap().obj("x").unwrap();
        assert_eq!(x.str("k").as_deref(), Some("last"));
        // Keys all different: the first match is the answer.
        let doc = Doc::parse(r#"{"a": 1, "b": 2, "c": 3}"#).unwrap();
        assert_eq!(doc.root().object().unwrap().get("b").unwrap().text(), "2");
    }

    #[test]
    fn compact_text_is_what_serde_json_writes() {
        let cases = [
            r#"{}"#,
            r#" { "a" : 1 , "b" : [ 1 , 2 , { } , [ ] ] } "#,
            r#"{"s": "plain ascii", "u": "Zürich 東京 😀", "esc": "a\nb\tc\"d\\e\/f"}"#,
            r#"{"ctl": "\u0000\u001f\u007f\b\f\r", "uni": "Z\u00fcrich \ud83d\ude00 \u2028"}"#,
            r#"{"k\u00e9y": 1, "k\"q": 2, "k\\": 3}"#,
            r#"{"mixed": "a\\\"b\n\u0001", "canon": "\\\\n\t\"", "slash": "x\/y\n"}"#,
            r#"{"end": "\\", "endq": "\"", "two": "\n\n", "upper": "\u001F"}"#,
            r#"{"n": [0, -1, 1.5, 1.50, 1e5, 1E2, -0, -0.0, 1.0, 3.14159, 2.5e-3]}"#,
            r#"{"big": [123456789012345678, 1234567890123456789, 12345678901234567890, 123456789012345678901234, -9223372036854775808]}"#,
            r#"{"lit": [true, false, null], "nested": {"a": {"b": {"c": [[[]]]}}}}"#,
            "{\n  \"code\": \"fn main() {\\n    println!(\\\"{}\\\", 1);\\n}\",\n  \"x\": 2\n}",
        ];
        for text in cases {
            let out = compact(text).unwrap();
            // serde_json writes an exponent its own way (`1e+5`); read back, the value
            // is the same.
            assert_eq!(serde_compact(&out), serde_compact(text), "{text}");
            if !text.contains(['e', 'E']) || !text.contains("\"n\"") {
                assert_eq!(out, serde_compact(text), "{text}");
            }
        }
        // Numbers as written.
        assert_eq!(
            compact(r#"[1.50, 1e2, 1E+2, -0, -0.0, 2.5e-3, 123456789012345678901234567890]"#)
                .as_deref(),
            Some("[1.50,1e2,1E+2,-0,-0.0,2.5e-3,123456789012345678901234567890]")
        );
    }

    /// Random JSON text (with white space, escapes of every kind, unicode, numbers in
    /// many spellings), from a fixed seed.
    pub(super) fn random_json(seed: &mut u64, depth: usize, out: &mut String) {
        fn next(seed: &mut u64, n: u64) -> u64 {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed % n
        }
        let ws = |k: u64| [" ", "", "\n  ", "\t", "\r\n"][k as usize % 5];
        let pieces = [
            "a",
            "Zürich",
            "東京",
            "😀",
            "\\n",
            "\\t",
            "\\\"",
            "\\\\",
            "\\/",
            "\\u00e9",
            "\\u0001",
            "\\u001F",
            "\\b",
            "\\f",
            "\\r",
            "\\ud83d\\ude00",
            "\\u2028",
            "\\u0022",
            "\\u005C",
            "\\u005c",
            "\\u000A",
            "\\u0009",
            "\\u007f",
            "\\u0000",
            "\\uD83D\\uDE00",
            "{",
            "}",
            "[",
            "<tool_call>",
            " ",
            "\u{7f}",
        ];
        let numbers = [
            "0",
            "-1",
            "42",
            "1.5",
            "1.50",
            "-0",
            "-0.0",
            "1e5",
            "1E+2",
            "2.5e-3",
            "1.0",
            "123456789012345678",
            "12345678901234567890",
            "99999999999999999999999",
            "-9223372036854775808",
            "3.141592653589793238",
        ];
        let choice = if depth > 4 {
            2 + next(seed, 4)
        } else {
            next(seed, 6)
        };
        match choice {
            0 | 1 => {
                let (open, close) = if choice == 0 { ('{', '}') } else { ('[', ']') };
                out.push(open);
                let n = next(seed, 4);
                for k in 0..n {
                    if k > 0 {
                        out.push(',');
                    }
                    out.push_str(ws(next(seed, 5)));
                    if open == '{' {
                        // Distinct keys (duplicates go to serde_json, tested apart).
                        let piece = pieces[next(seed, pieces.len() as u64) as usize];
                        out.push_str(&format!("\"k{k}{piece}\""));
                        out.push_str(ws(next(seed, 5)));
                        out.push(':');
                        out.push_str(ws(next(seed, 5)));
                    }
                    random_json(seed, depth + 1, out);
                    out.push_str(ws(next(seed, 5)));
                }
                out.push(close);
            }
            2 | 3 => {
                out.push('"');
                for _ in 0..next(seed, 5) {
                    out.push_str(pieces[next(seed, pieces.len() as u64) as usize]);
                }
                out.push('"');
            }
            4 => out.push_str(numbers[next(seed, numbers.len() as u64) as usize]),
            _ => out.push_str(["true", "false", "null"][next(seed, 3) as usize]),
        }
    }

    #[test]
    fn compact_text_matches_serde_json_on_random_json() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut checked = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            random_json(&mut seed, 0, &mut text);
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let expected = serde_json::to_string(&value).unwrap();
            let doc = Doc::parse(&text).expect("serde_json reads it, so must the tape");
            let mut out = String::new();
            if doc.root().write_compact(&mut out, &mut false) {
                // Numbers are written as they are, which serde_json reads to the same value.
                assert_eq!(serde_compact(&out), expected, "{text}");
                assert!(out.len() <= text.len(), "{text}");
                checked += 1;
            }
        }
        assert!(checked > 15_000, "{checked}");
    }

    #[test]
    fn many_keys_are_checked_for_repeats_as_few_are() {
        let keys: Vec<String> = (0..300).map(|i| format!("\"k{i}\": {i}")).collect();
        let text = format!("{{{}}}", keys.join(", "));
        let want = serde_json::to_string(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
        assert_eq!(compact(&text).as_deref(), Some(want.as_str()));
        // A repeat of an early key far down is still seen (and left to serde_json).
        for early_or_late in ["k3", "k200"] {
            let repeated = format!("{{{}, \"{early_or_late}\": 0}}", keys.join(", "));
            assert_eq!(compact(&repeated), None, "{early_or_late}");
        }
    }

    #[test]
    fn compact_text_leaves_hard_cases_to_serde_json() {
        // serde_json keeps the last of duplicate keys: left to it.
        assert_eq!(compact(r#"{"a": 1, "b": 2, "a": 3}"#), None);
        assert_eq!(compact(r#"{"a": {"k": 1, "k": 1}}"#), None);
        // Half a surrogate pair, which serde_json refuses, reads as U+FFFD.
        assert_eq!(
            compact(r#"{"a": "\ud800"}"#).as_deref(),
            Some("{\"a\":\"\u{fffd}\"}")
        );
        assert_eq!(
            compact(r#"{"\udc00": 1}"#).as_deref(),
            Some("{\"\u{fffd}\":1}")
        );
        let deep = format!("{}1{}", "[".repeat(150), "]".repeat(150));
        assert_eq!(compact(&deep), None);
    }

    #[test]
    fn escaped_keys_are_unescaped() {
        let parsed = Doc::parse(r#"{"na\u006de": "f"}"#).unwrap();
        assert!(parsed.root().object().unwrap().is("name", "f"));
    }
}
