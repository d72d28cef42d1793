//! The one validating pass that builds a document's tape: the span of every value, with
//! strings skipped a run at a time and nothing decoded.

use super::bytes::next_string_byte;
use super::number::number_end;
use super::{Slot, key_bit};

/// Values nested deeper than this are validated (by serde_json, without recursion) but
/// not put on the tape: they look like empty containers, and the walker, which stops at
/// the same depth, says that it did not search them.
pub(crate) const MAX_NESTING: usize = 160;

/// The most values one document's tape holds (a slot of 40 bytes each: 40 MiB). A
/// document denser than that (millions of numbers in a few megabytes) is not read as
/// JSON: its tape would be many times its size.
pub(crate) const MAX_VALUES: usize = 1 << 20;

/// The one-pass validating scanner behind [`super::Doc::parse`].
struct Tape<'s> {
    s: &'s [u8],
    i: usize,
    slots: Vec<Slot>,
}

impl Tape<'_> {
    #[inline(always)]
    fn ws(&mut self) {
        // Most separators are followed by nothing or by one space.
        match self.s.get(self.i) {
            Some(&b) if b > b' ' => return,
            Some(b' ') if self.s.get(self.i + 1).is_some_and(|&b| b > b' ') => {
                self.i += 1;
                return;
            }
            _ => {}
        }
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize, key: (usize, usize), key_escaped: bool) -> Option<()> {
        self.ws();
        let start = self.i;
        let slot = self.slots.len();
        if slot >= MAX_VALUES {
            return None;
        }
        self.slots.push(Slot {
            start: start as u32,
            end: start as u32,
            key: (key.0 as u32, key.1 as u32),
            key_escaped,
            after: 0,
            keys: 0,
            unique: true,
            escaped: false,
        });
        let mut escaped = false;
        match *self.s.get(self.i)? {
            b'{' | b'[' if depth >= MAX_NESTING => {
                let mut values = serde_json::Deserializer::from_slice(&self.s[self.i..])
                    .into_iter::<serde::de::IgnoredAny>();
                values.next()?.ok()?;
                self.i += values.byte_offset();
            }
            b'{' => {
                self.i += 1;
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    // The walker asks an object for many keys it does not have: a
                    // summary of the keys it does have answers most of those at once.
                    let (mut keys, mut unique) = (0u64, true);
                    loop {
                        self.ws();
                        if self.s.get(self.i) != Some(&b'"') {
                            return None;
                        }
                        let (k0, escaped) = (self.i + 1, self.string()?);
                        let k = (k0, self.i - 1);
                        let bit = if escaped {
                            u64::MAX
                        } else {
                            key_bit(&self.s[k.0..k.1])
                        };
                        unique &= keys & bit == 0;
                        keys |= bit;
                        self.ws();
                        if self.s.get(self.i) != Some(&b':') {
                            return None;
                        }
                        self.i += 1;
                        self.value(depth + 1, k, escaped)?;
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                    let s = &mut self.slots[slot];
                    s.keys = keys;
                    s.unique = unique;
                }
            }
            b'[' => {
                self.i += 1;
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.value(depth + 1, (0, 0), false)?;
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
            }
            b'"' => escaped = self.string()?,
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            b'-' | b'0'..=b'9' => self.number()?,
            _ => return None,
        }
        let after = self.slots.len();
        let s = &mut self.slots[slot];
        s.end = self.i as u32;
        s.after = after as u32;
        s.escaped = escaped;
        Some(())
    }

    /// A string at the cursor (on its `"`); leaves the cursor after the closing quote
    /// and says whether it held an escape.
    #[inline(always)]
    fn string(&mut self) -> Option<bool> {
        let s = self.s;
        let mut escaped = false;
        let mut i = self.i + 1;
        loop {
            i = next_string_byte(s, i)?;
            match s[i] {
                b'"' => {
                    self.i = i + 1;
                    return Some(escaped);
                }
                b'\\' => {}
                // Raw control characters are not allowed inside strings.
                _ => return None,
            }
            escaped = true;
            match *s.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = s.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// A number (see [`number_end`]), passed over.
    fn number(&mut self) -> Option<()> {
        self.i = number_end(self.s, self.i)?;
        Some(())
    }
}

/// Scans `s` as one JSON value with white space around it allowed, recording every
/// value in `slots` (emptied first): whether it is one, and the slots.
pub(super) fn scan(s: &[u8], mut slots: Vec<Slot>) -> (bool, Vec<Slot>) {
    slots.clear();
    let mut tape = Tape { s, i: 0, slots };
    let ok = tape.value(0, (0, 0), false).is_some() && {
        tape.ws();
        tape.i == tape.s.len()
    };
    (ok, tape.slots)
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn the_tape_agrees_with_serde_json() {
        let valid = [
            r#"{"a": [1, -2.5e+3, true, false, null, "x\"y\u00e9"], "b": {}, "c": []}"#,
            " [ 0 , {\"\\u0041\": \"\"} ] ",
            r#""just a string""#,
            "-0",
            "1E5",
        ];
        for t in valid {
            assert!(Doc::parse(t).is_ok(), "{t}");
        }
        let invalid = [
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "1e",
            "-",
            "tru",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "[1] 2",
            "{\"a\":1,}",
            "nul",
            "{1: 2}",
            "",
            "   ",
        ];
        for t in invalid {
            assert!(Doc::parse(t).is_err(), "{t}");
            assert!(
                serde_json::from_str::<Value>(t).is_err(),
                "serde accepts {t}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let doc = "[".repeat(100_000);
        assert!(Doc::parse(&doc).is_err());
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        let parsed = Doc::parse(&deep).unwrap();
        assert!(parsed.root().object().unwrap().has("a"));
    }
}
