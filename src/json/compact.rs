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
    // A string decoded on the way may note half a surrogate pair; if the text is then
    // refused, the tape reads it again and decides whether that note stands.
    let lossy_before = super::LOSSY.get();
    let mut c = Compactor {
        text,
        s: text.as_bytes(),
        i: 0,
        out,
        keys: Vec::new(),
    };
    let done = c.value(0).is_some() && {
        c.ws();
        c.i == c.s.len()
    };
    if !done {
        super::LOSSY.set(lossy_before);
    }
    done.then_some(())
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

/// Appends, as compact JSON, the JSON text that a JSON string holds, given the string's
/// body as written (between its quotes, escapes and all, already validated): what
/// [`compact_text`] writes for the decoded text, without decoding it into a copy first.
/// An OpenAI call's `arguments` is such a string, and decoding it was a pass of its
/// own. `None` (with `out` half written) wherever [`compact_text`] would give up, and
/// also for the rare escapes that are easier decoded first: a `\u` escape (in the
/// decoded text or in the string) that stands for a quote, a backslash, a control
/// character or half a surrogate pair.
pub fn compact_escaped(body: &str, out: &mut String) -> Option<()> {
    let mut c = Escaped {
        text: body,
        s: body.as_bytes(),
        i: 0,
        out,
        keys: Vec::new(),
    };
    c.value(0)?;
    c.ws();
    (c.i == c.s.len()).then_some(())
}

/// The character of four hexadecimal digits when serde_json writes it as it is: not a
/// control character, quote or backslash (which it escapes), nor half a surrogate pair.
fn plain_char(hex: &str) -> Option<char> {
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    (c >= ' ' && c != '"' && c != '\\').then_some(c)
}

/// [`compact_escaped`]'s reader: it reads the JSON inside the string ("decoded"),
/// walking the string's own bytes ("written"). Outside the decoded text's strings, its
/// quotes are written `\"` and its line breaks and tabs `\n`, `\r`, `\t`; the rest of
/// its structure is written as it is.
struct Escaped<'t, 'o> {
    text: &'t str,
    s: &'t [u8],
    i: usize,
    out: &'o mut String,
    keys: Vec<(usize, usize)>,
}

impl Escaped<'_, '_> {
    /// Decoded white space: a space, or a written `\n`, `\r`, `\t`.
    #[inline(always)]
    fn ws(&mut self) {
        loop {
            match self.s.get(self.i) {
                Some(b' ') => self.i += 1,
                Some(b'\\') if matches!(self.s.get(self.i + 1), Some(b'n' | b'r' | b't')) => {
                    self.i += 2
                }
                _ => return,
            }
        }
    }

    /// Whether a decoded quote (written `\"`) is at the cursor.
    #[inline(always)]
    fn at_quote(&self) -> bool {
        self.s.get(self.i) == Some(&b'\\') && self.s.get(self.i + 1) == Some(&b'"')
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
            b'\\' if self.at_quote() => self.string(),
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
            if !self.at_quote() {
                return None;
            }
            // A key is taken only when it holds no escape of either kind: then its
            // written bytes are its decoded ones.
            let from = self.i + 2;
            let to = from + memchr::memchr(b'\\', &self.s[from..])?;
            if self.s.get(to + 1) != Some(&b'"') {
                return None;
            }
            let key = (from, to);
            let bit = key_bit(&self.s[from..to]);
            if bits & bit != 0 {
                let name = &self.s[from..to];
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
            self.out.push('"');
            self.out.push_str(&self.text[from..to]);
            self.out.push('"');
            self.i = to + 2;
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

    /// A decoded string at the cursor (on its written `\"`), written out as
    /// [`compact_text`] writes it: the escapes serde_json writes the same way are kept,
    /// a `\/` becomes `/`.
    fn string(&mut self) -> Option<()> {
        let s = self.s;
        let mut i = self.i + 2;
        self.out.push('"');
        loop {
            // A run with no backslash is decoded text as it is: the written string
            // holds no raw quote or control character.
            let run_end = super::next_backslash(s, i);
            self.out.push_str(&self.text[i..run_end]);
            i = run_end;
            match *s.get(i + 1)? {
                b'"' => {
                    self.out.push('"');
                    self.i = i + 2;
                    return Some(());
                }
                b'/' => {
                    self.out.push('/');
                    i += 2;
                }
                // A decoded backslash: an escape of the decoded text.
                b'\\' => {
                    let (escaped, used) = match *s.get(i + 2)? {
                        b'\\' => match *s.get(i + 3)? {
                            b'"' => (b'"', 4),
                            b'\\' => (b'\\', 4),
                            b'/' => (b'/', 4),
                            _ => return None,
                        },
                        b => (b, 3),
                    };
                    match escaped {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            self.out.push('\\');
                            self.out.push(char::from(escaped));
                        }
                        b'/' => self.out.push('/'),
                        // `\u00fc`: a character of the decoded text, which serde_json
                        // writes as it is (Python's json.dumps writes every non-ASCII
                        // character so).
                        b'u' if used == 3 => {
                            self.out.push(plain_char(self.text.get(i + 3..i + 7)?)?);
                            i += 4;
                        }
                        _ => return None,
                    }
                    i += used;
                }
                b'u' => {
                    self.out.push(plain_char(self.text.get(i + 2..i + 6)?)?);
                    i += 6;
                }
                // A written `\n`, `\t` and the like: a raw control character inside a
                // decoded string, which JSON does not allow.
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

    /// As [`Compactor::integer`]: digits are written as they are decoded.
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
        if n == 0 || n > 18 || leading_zero || negative_zero {
            return None;
        }
        self.i = i;
        self.out.push_str(&self.text[from..i]);
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
    fn a_refused_text_leaves_no_note_of_half_a_surrogate_pair() {
        super::super::take_lossy();
        // Decoded before the error further on is found.
        assert_eq!(by_pass(r#"["\ud800", x]"#), None);
        assert!(!super::super::take_lossy());
        // Taken: the note stands, as it does when the tape writes the text.
        assert_eq!(by_pass(r#"["\ud800"]"#).as_deref(), Some("[\"\u{fffd}\"]"));
        assert!(super::super::take_lossy());
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

    /// The body of a JSON string holding `text`, escaped the way serde_json does, or
    /// (by `seed`) with some characters escaped otherwise: `\/`, `\uXXXX` (surrogate
    /// pairs beyond the BMP), escapes of the quote and backslash as `\u0022`, `\u005c`.
    fn written(text: &str, seed: &mut u64) -> String {
        let plain = serde_json::to_string(text).unwrap();
        let plain = &plain[1..plain.len() - 1];
        let mut out = String::new();
        let mut chars = plain.chars().peekable();
        while let Some(c) = chars.next() {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            let roll = *seed % 8;
            if c == '\\' {
                let next = chars.next().unwrap();
                match (next, roll) {
                    ('"', 0) => out.push_str("\\u0022"),
                    ('\\', 0) => out.push_str("\\u005c"),
                    ('n', 0) => out.push_str("\\u000a"),
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                continue;
            }
            match (c, roll) {
                ('/', 0 | 1) => out.push_str("\\/"),
                (c, 0) if c != ' ' => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                (c, _) => out.push(c),
            }
        }
        out
    }

    /// What the slower path writes for a string body: decoded, then [`compact_text`].
    fn by_decoding(body: &str) -> Option<String> {
        let text = match memchr::memchr(b'\\', body.as_bytes()) {
            Some(first) => super::super::unescape(body, first)?,
            None => body.to_owned(),
        };
        by_pass(&text)
    }

    fn by_escaped(body: &str) -> Option<String> {
        let mut out = String::new();
        compact_escaped(body, &mut out).map(|()| out)
    }

    #[test]
    fn writes_what_decoding_first_writes() {
        for text in [
            r#"{"command": "grep -rn \"x y\" src/ | head", "env": {"LANG": "C.UTF-8"}, "n": 44}"#,
            "{\n  \"code\": \"fn main() {\\n    println!(\\\"{}\\\", 1);\\n}\",\n  \"x\": [1, 2]\n}",
            r#"{"path": "a/b\/c", "esc": "tab\there \\ back", "uni": "Zürich 😀"}"#,
            r#" {"a": true, "b": null, "c": [], "d": {}} "#,
        ] {
            let body = &serde_json::to_string(text).unwrap();
            let body = &body[1..body.len() - 1];
            let want = by_decoding(body).expect("the slow path takes it");
            assert_eq!(by_escaped(body).as_deref(), Some(want.as_str()), "{body}");
        }
        // `\/` written as `\\/` and `\u` escapes written as themselves.
        let body = r#"{\"a\": \"x\\/y\", \"b\": \"\u00e9\/\", \"c\": \"Z\\u00fcrich\\n\"}"#;
        assert_eq!(
            by_escaped(body).as_deref(),
            Some(r#"{"a":"x/y","b":"é/","c":"Zürich\n"}"#)
        );
    }

    #[test]
    fn leaves_the_unusual_escapes_to_decoding() {
        for body in [
            // A `\u` escape inside the decoded text for a control character, a quote, or
            // a surrogate pair; one that is not hexadecimal.
            r#"{\"a\": \"\\u0001\"}"#,
            r#"{\"a\": \"\\u0022\"}"#,
            r#"{\"a\": \"\\ud83d\\ude00\"}"#,
            r#"{\"a\": \"\\u+0e9\"}"#,
            // A written escape that decodes to a quote, a backslash or a line break.
            r#"{\u0022a\": 1}"#,
            r#"{\"a\": \"x\u005cny\"}"#,
            // A raw line break inside a decoded string: not JSON.
            r#"{\"a\": \"x\ny\"}"#,
            // Half a surrogate pair, and (rarer than worth the code) a whole one.
            r#"{\"a\": \"\ud800\"}"#,
            r#"{\"a\": \"\ud83d\ude00\"}"#,
            // A key with an escape of either kind.
            r#"{\"k\/\": 1}"#,
            r#"{\"k\\\"\": 1}"#,
            // Not JSON once decoded (a backspace or form feed is no white space).
            r#"{\"a\":\b1}"#,
            r#"{\"a\":\f1}"#,
            r#"{\"a\": 1,}"#,
            r#"{\"a\"}"#,
            "",
            r#"\"unclosed"#,
        ] {
            assert_eq!(by_escaped(body), None, "{body}");
        }
    }

    /// On random JSON written as a string in several ways, and on damaged copies:
    /// whenever this pass writes something, decoding first writes the same.
    #[test]
    fn agrees_with_decoding_first_on_random_json() {
        let mut seed = 0x0DDB_1A5E_5BAD_5EEDu64;
        let (mut taken, mut tried) = (0, 0);
        for n in 0..20_000u64 {
            let mut text = String::new();
            random_json(&mut seed, 0, &mut text);
            let mut body = written(&text, &mut seed).into_bytes();
            if n % 4 == 3 && !body.is_empty() {
                let at = (n as usize * 7919) % body.len();
                let pool = b"{}[]\",:\\ 0-/nu";
                body[at] = pool[n as usize % pool.len()];
            }
            let Ok(body) = String::from_utf8(body) else {
                continue;
            };
            // Only bodies a JSON string could hold are given to it.
            if serde_json::from_str::<String>(&format!("\"{body}\"")).is_err() {
                continue;
            }
            tried += 1;
            if let Some(out) = by_escaped(&body) {
                taken += 1;
                assert_eq!(Some(out), by_decoding(&body), "{body}");
            }
        }
        assert!(taken > tried / 4, "{taken} of {tried}");
    }
}
