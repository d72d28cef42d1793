//! JSON text written compact in one pass, with no tape.
//!
//! A call's arguments are most often a JSON object given as text (OpenAI's `arguments`
//! string, JSON written in a message). Parsing that text into a tape and then walking
//! the tape to write it out compact read every byte twice; [`compact_text`] validates
//! and writes in the same pass. It takes only the common cases and leaves the rest
//! (a repeated or escaped key, a number serde_json would print differently, very deep
//! nesting) to [`super::Node::write_compact`], so that its output is the same.

use super::{COMPACT_DEPTH, key_bit, next_string_byte, unescape, write_str};

/// Appends `text`, one JSON value with white space around it allowed, as compact JSON,
/// byte for byte as [`super::Node::write_compact`] writes it. `None` (with `out` half
/// written) when the text is not valid JSON, or when it holds a case left to the tape:
/// a key that repeats or holds an escape, a number that is not a plain integer of at
/// most 18 digits, or nesting deeper than [`COMPACT_DEPTH`].
pub fn compact_text(text: &str, out: &mut String) -> Option<()> {
    let mut c = Compactor {
        text,
        s: text.as_bytes(),
        i: 0,
        out,
        keys: Vec::new(),
    };
    c.value(0)?;
    c.ws();
    (c.i == c.s.len()).then_some(())
}

/// Objects with more keys than this are left to the tape, which checks repeats with a
/// set: here each key that shares a summary bit is compared with the others.
const MAX_KEYS: usize = 256;

struct Compactor<'t, 'o> {
    text: &'t str,
    s: &'t [u8],
    i: usize,
    out: &'o mut String,
    /// The spans of the keys of the objects open, innermost last.
    keys: Vec<(usize, usize)>,
}

impl Compactor<'_, '_> {
    #[inline(always)]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    /// Copies `text[from..to]`, whose ends sit on ASCII bytes (structure, quotes).
    #[inline(always)]
    fn copy(&mut self, from: usize, to: usize) {
        self.out.push_str(&self.text[from..to]);
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > COMPACT_DEPTH {
            return None;
        }
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => self.object(depth),
            b'[' => {
                self.i += 1;
                self.out.push('[');
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    self.out.push(']');
                    return Some(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.ws();
                    match *self.s.get(self.i)? {
                        b',' => self.out.push(','),
                        b']' => {
                            self.i += 1;
                            self.out.push(']');
                            return Some(());
                        }
                        _ => return None,
                    }
                    self.i += 1;
                }
            }
            b'"' => {
                let from = self.i;
                match self.string()? {
                    None => self.copy(from, self.i),
                    Some(first) => {
                        let raw = &self.text[from + 1..self.i - 1];
                        write_str(self.out, raw, &unescape(raw, first - from - 1)?);
                    }
                }
                Some(())
            }
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        self.i += 1;
        self.out.push('{');
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.out.push('}');
            return Some(());
        }
        let base = self.keys.len();
        let mut bits = 0u64;
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return None;
            }
            let from = self.i;
            // A key with an escape is compared unescaped: left to the tape.
            if self.string()?.is_some() {
                return None;
            }
            let key = (from + 1, self.i - 1);
            let bit = key_bit(&self.s[key.0..key.1]);
            if bits & bit != 0 {
                let name = &self.s[key.0..key.1];
                if self.keys[base..]
                    .iter()
                    .any(|&(a, b)| &self.s[a..b] == name)
                {
                    return None;
                }
            }
            if self.keys.len() - base == MAX_KEYS {
                return None;
            }
            bits |= bit;
            self.keys.push(key);
            self.copy(from, self.i);
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            self.out.push(':');
            self.value(depth + 1)?;
            self.ws();
            match *self.s.get(self.i)? {
                b',' => self.out.push(','),
                b'}' => {
                    self.i += 1;
                    self.out.push('}');
                    self.keys.truncate(base);
                    return Some(());
                }
                _ => return None,
            }
            self.i += 1;
        }
    }

    /// A string at the cursor (on its `"`); leaves the cursor after the closing quote.
    /// `Some(None)` when it can be copied as written (no escape, or only escapes
    /// serde_json writes the same way), `Some(Some(at))` with the offset of its first
    /// backslash when it must be unescaped and written again.
    #[inline(always)]
    fn string(&mut self) -> Option<Option<usize>> {
        let s = self.s;
        let mut first = None;
        let mut canonical = true;
        let mut i = self.i + 1;
        loop {
            i = next_string_byte(s, i)?;
            match s[i] {
                b'"' => {
                    self.i = i + 1;
                    return Some(if canonical { None } else { first });
                }
                b'\\' => {}
                // Raw control characters are not allowed inside strings.
                _ => return None,
            }
            first.get_or_insert(i);
            match *s.get(i + 1)? {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'/' => {
                    canonical = false;
                    i += 2;
                }
                b'u' => {
                    let hex = s.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    canonical = false;
                    i += 6;
                }
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        if !self.s[self.i..].starts_with(word.as_bytes()) {
            return None;
        }
        self.i += word.len();
        self.out.push_str(word);
        Some(())
    }

    /// An integer of at most 18 digits, which serde_json prints as written; any other
    /// number (a fraction, an exponent, `-0`, more digits) is left to the tape.
    fn integer(&mut self) -> Option<()> {
        let from = self.i;
        let mut i = from + usize::from(self.s[from] == b'-');
        let digits = i;
        while self.s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let n = i - digits;
        let leading_zero = n > 1 && self.s[digits] == b'0';
        let negative_zero = n == 1 && digits > from && self.s[digits] == b'0';
        // A fraction or exponent after the digits is no `,`, `]`, `}` or end: the
        // caller refuses it.
        if n == 0 || n > 18 || leading_zero || negative_zero {
            return None;
        }
        self.i = i;
        self.copy(from, i);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Doc;
    use super::super::tests::random_json;
    use super::*;

    /// What the tape writes for `text`, if it takes it.
    fn by_tape(text: &str) -> Option<String> {
        let doc = Doc::parse(text).ok()?;
        let mut out = String::new();
        doc.root().write_compact(&mut out).then_some(out)
    }

    fn by_pass(text: &str) -> Option<String> {
        let mut out = String::new();
        compact_text(text, &mut out).map(|()| out)
    }

    #[test]
    fn writes_what_the_tape_writes() {
        for text in [
            "{}",
            " [ ] ",
            r#" { "a" : 1 , "b" : [ 1 , 2 , { } , [ ] ] } "#,
            r#"{"s": "plain ascii", "u": "Zürich 東京 😀", "esc": "a\nb\tc\"d\\e"}"#,
            r#"{"slash": "x\/y", "uni": "Z\u00fcrich \ud83d\ude00 \u2028", "c": "\u0001"}"#,
            r#"{"n": [0, -1, 42, 123456789012345678, true, false, null]}"#,
            "{\n  \"code\": \"fn main() {\\n    println!(\\\"{}\\\", 1);\\n}\",\n  \"x\": 2\n}",
            r#"{"command": "grep -rn \"x\" src/", "env": {"LANG": "C.UTF-8"}, "timeout": 44}"#,
            r#"{"a": {"k": 1}, "b": {"k": 2}, "k": 3}"#,
        ] {
            let want = by_tape(text).expect("the tape takes it");
            assert_eq!(by_pass(text).as_deref(), Some(want.as_str()), "{text}");
        }
    }

    #[test]
    fn leaves_hard_cases_and_invalid_text_alone() {
        for text in [
            // Repeated keys (the last wins, in the first one's place), escaped keys.
            r#"{"a": 1, "b": 2, "a": 3}"#,
            r#"{"x": {"k": 1, "k": 2}}"#,
            r#"{"k\u00e9": 1}"#,
            // Numbers serde_json prints its own way.
            "[1.5]",
            "[1e5]",
            "[-0]",
            "[1234567890123456789]",
            // Not JSON.
            "",
            "{",
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            "[01]",
            "[-]",
            "[tru]",
            "\"a\u{1}b\"",
            r#""\x""#,
            r#""\u12""#,
            r#""\u+123""#,
            "[1] x",
            "{'a': 1}",
        ] {
            assert_eq!(by_pass(text), None, "{text}");
        }
        let deep = format!(
            "{}{}",
            "[".repeat(COMPACT_DEPTH + 2),
            "]".repeat(COMPACT_DEPTH + 2)
        );
        assert_eq!(by_pass(&deep), None);
        let shallow = format!("{}{}", "[".repeat(COMPACT_DEPTH), "]".repeat(COMPACT_DEPTH));
        assert_eq!(by_pass(&shallow), Some(shallow.clone()));
    }

    #[test]
    fn sees_a_repeat_among_many_keys() {
        let keys: Vec<String> = (0..200).map(|i| format!("\"k{i}\": {i}")).collect();
        let text = format!("{{{}}}", keys.join(", "));
        assert_eq!(by_pass(&text), by_tape(&text));
        for early_or_late in ["k3", "k150"] {
            let repeated = format!("{{{}, \"{early_or_late}\": 0}}", keys.join(", "));
            assert_eq!(by_pass(&repeated), None, "{early_or_late}");
        }
        let too_many: Vec<String> = (0..=MAX_KEYS).map(|i| format!("\"k{i}\": 1")).collect();
        assert_eq!(by_pass(&format!("{{{}}}", too_many.join(","))), None);
    }

    /// On random JSON, and on random cuts and byte changes of it: whenever this pass
    /// writes something, the text is JSON and the tape writes the same.
    #[test]
    fn agrees_with_the_tape_on_random_json() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let (mut taken, mut tried) = (0, 0);
        for n in 0..20_000u64 {
            let mut text = String::new();
            random_json(&mut seed, 0, &mut text);
            let mut bytes = text.into_bytes();
            // Every third text is damaged: cut short, or one byte changed.
            if n % 3 == 1 {
                bytes.truncate((n as usize * 7919) % (bytes.len() + 1));
            } else if n % 3 == 2 && !bytes.is_empty() {
                let at = (n as usize * 104_729) % bytes.len();
                let pool = b"{}[]\",:\\ 0-.etu";
                bytes[at] = pool[n as usize % pool.len()];
            }
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            tried += 1;
            if let Some(out) = by_pass(&text) {
                taken += 1;
                assert_eq!(Some(out), by_tape(&text), "{text}");
            }
        }
        assert!(taken > tried / 3, "{taken} of {tried}");
    }
}
