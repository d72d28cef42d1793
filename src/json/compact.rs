//! JSON text written compact in one pass, with no tape.
//!
//! A call's arguments are most often a JSON object given as text (OpenAI's `arguments`
//! string, JSON written in a message). Parsing that text into a tape and then walking
//! the tape to write it out compact read every byte twice; [`compact_text`] validates
//! and writes in the same pass; [`compact_escaped`] does the same for JSON text held
//! in a JSON string, reading the string as written. Both take only the common cases and
//! leave the rest (a repeated or escaped key, very deep nesting) to the tape and [`super::Node::write_compact`], so
//! that their output is the same. One reader serves both: only white space, quotes and
//! strings are read differently ([`Form`]).

use super::bytes::next_string_byte;
use super::number::number_end;
use super::write::{COMPACT_DEPTH, write_str};
use super::{key_bit, unescape};

/// Appends `text`, one JSON value with white space around it allowed, as compact JSON,
/// byte for byte as [`super::Node::write_compact`] writes it. `None` (with `out` half
/// written) when the text is not valid JSON, or when it holds a case left to the tape:
/// a key that repeats or holds an escape, or nesting deeper than 100 levels
/// (`COMPACT_DEPTH`). Numbers are copied as written. `Some(true)` when a string held
/// half a surrogate pair, written U+FFFD, for the caller to note (a refused text is read
/// again by the tape, which decides for itself).
pub(crate) fn compact_text(text: &str, out: &mut String) -> Option<bool> {
    Compactor::<Plain>::run(text, out)
}

/// Appends, as compact JSON, the JSON text that a JSON string holds, given the string's
/// body as written (between its quotes, escapes and all, already validated): what
/// [`compact_text`] writes for the decoded text, without decoding it into a copy first.
/// An OpenAI call's `arguments` is such a string, and decoding it was a pass of its
/// own. `None` (with `out` half written) wherever [`compact_text`] would give up, and
/// also for the rare escapes that are easier decoded first: a `\u` escape (in the
/// decoded text or in the string) that stands for a quote, a backslash, a control
/// character or half a surrogate pair.
pub(crate) fn compact_escaped(body: &str, out: &mut String) -> Option<()> {
    Compactor::<Written>::run(body, out).map(drop)
}

/// `text`, one valid JSON value, without the white space between its tokens, every
/// token as written (escapes and numbers untouched): the value, whatever the layout of
/// the file it sits in. Borrowed when it has no such white space.
pub(crate) fn without_layout(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Past the string: its closing quote is the first one no backslash
                // escapes.
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b if is_space(b) => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| !is_space(b))
                    .map_or(bytes.len(), |n| i + n);
                out.get_or_insert_with(|| String::with_capacity(text.len()))
                    .push_str(&text[copied..i]);
                copied = end;
                i = end;
            }
            _ => i += 1,
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied.min(text.len())..]);
            std::borrow::Cow::Owned(out)
        }
    }
}

/// Objects with more keys than this are left to the tape, which checks repeats with a
/// set: here each key that shares a summary bit is compared with the others.
const MAX_KEYS: usize = 256;

/// How the JSON text is written in the bytes the compactor reads: as it is ([`Plain`]),
/// or inside a JSON string ([`Written`]). The structure of objects, arrays, literals and
/// numbers is read the same way for both; white space, quotes and strings differ.
trait Form: Sized {
    /// Passes over the JSON text's white space at the cursor.
    fn ws(s: &[u8], i: &mut usize);
    /// Whether the JSON text has a quote at `i`.
    fn at_quote(s: &[u8], i: usize) -> bool;
    /// A string at the cursor (on its quote), written out; the cursor after its end.
    fn string(c: &mut Compactor<'_, '_, Self>) -> Option<()>;
    /// A key at the cursor (on its quote) that holds no escape of any kind: the span of
    /// its bytes, which are then its text; the cursor after its end.
    fn key(c: &mut Compactor<'_, '_, Self>) -> Option<(usize, usize)>;
}

/// JSON text as it is.
struct Plain;

/// JSON text written inside a JSON string: its quotes are written `\"`, its line breaks
/// and tabs (white space between values) `\n`, `\r`, `\t`; the rest of its structure as
/// it is.
struct Written;

thread_local! {
    /// The key stack of the last run, kept for its capacity.
    static SPARE_KEYS: std::cell::Cell<Vec<(usize, usize)>> = const { std::cell::Cell::new(Vec::new()) };
}

struct Compactor<'t, 'o, F> {
    text: &'t str,
    s: &'t [u8],
    i: usize,
    out: &'o mut String,
    /// The spans of the keys of the objects open, innermost last.
    keys: Vec<(usize, usize)>,
    /// A string held half a surrogate pair, written U+FFFD.
    lossy: bool,
    form: std::marker::PhantomData<F>,
}

impl<F: Form> Compactor<'_, '_, F> {
    /// Whether a string was written lossily, when the text is taken.
    fn run(text: &str, out: &mut String) -> Option<bool> {
        let mut c = Compactor::<F> {
            text,
            s: text.as_bytes(),
            i: 0,
            out,
            keys: SPARE_KEYS.take(),
            lossy: false,
            form: std::marker::PhantomData,
        };
        let done = c.value(0).and_then(|()| {
            c.ws();
            (c.i == c.s.len()).then_some(())
        });
        c.keys.clear();
        SPARE_KEYS.set(c.keys);
        done.map(|()| c.lossy)
    }

    #[inline(always)]
    fn ws(&mut self) {
        F::ws(self.s, &mut self.i);
    }

    /// Copies `text[from..to]`, whose ends sit on ASCII bytes (structure, quotes,
    /// backslashes).
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
            b'[' => self.array(depth),
            _ if F::at_quote(self.s, self.i) => F::string(self),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
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
            if !F::at_quote(self.s, self.i) {
                return None;
            }
            // A key with an escape is compared unescaped: left to the tape.
            let (from, to) = F::key(self)?;
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
            self.keys.push((from, to));
            self.out.push('"');
            self.copy(from, to);
            self.out.push('"');
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

    fn literal(&mut self, word: &str) -> Option<()> {
        if !self.s[self.i..].starts_with(word.as_bytes()) {
            return None;
        }
        self.i += word.len();
        self.out.push_str(word);
        Some(())
    }

    /// A number, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, copied as written:
    /// the model's text, which `arbitrary_precision` keeps in a `Value` too. Its bytes
    /// are the same in both forms.
    fn number(&mut self) -> Option<()> {
        let from = self.i;
        let end = number_end(self.s, from)?;
        self.i = end;
        self.copy(from, end);
        Some(())
    }
}

impl Plain {
    /// The string at the cursor (on its `"`), passed over. `Some(None)` when it can be
    /// copied as written (no escape, or only escapes serde_json writes the same way),
    /// `Some(Some(at))` with the offset of its first backslash when it must be
    /// unescaped and written again.
    #[inline(always)]
    fn scan(c: &mut Compactor<'_, '_, Plain>) -> Option<Option<usize>> {
        let s = c.s;
        let mut first = None;
        let mut canonical = true;
        let mut i = c.i + 1;
        loop {
            i = next_string_byte(s, i)?;
            match s[i] {
                b'"' => {
                    c.i = i + 1;
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
}

impl Form for Plain {
    #[inline(always)]
    fn ws(s: &[u8], i: &mut usize) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = s.get(*i) {
            *i += 1;
        }
    }

    #[inline(always)]
    fn at_quote(s: &[u8], i: usize) -> bool {
        s.get(i) == Some(&b'"')
    }

    fn string(c: &mut Compactor<'_, '_, Plain>) -> Option<()> {
        let from = c.i;
        match Plain::scan(c)? {
            None => c.copy(from, c.i),
            Some(first) => {
                let raw = &c.text[from + 1..c.i - 1];
                let text = unescape(raw, first - from - 1, &mut c.lossy)?;
                write_str(c.out, raw, &text);
            }
        }
        Some(())
    }

    fn key(c: &mut Compactor<'_, '_, Plain>) -> Option<(usize, usize)> {
        let from = c.i + 1;
        match Plain::scan(c)? {
            None if memchr::memchr(b'\\', &c.s[from..c.i - 1]).is_none() => Some((from, c.i - 1)),
            _ => None,
        }
    }
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

impl Form for Written {
    /// A space, or a written `\n`, `\r`, `\t`.
    #[inline(always)]
    fn ws(s: &[u8], i: &mut usize) {
        loop {
            match s.get(*i) {
                Some(b' ') => *i += 1,
                Some(b'\\') if matches!(s.get(*i + 1), Some(b'n' | b'r' | b't')) => *i += 2,
                _ => return,
            }
        }
    }

    #[inline(always)]
    fn at_quote(s: &[u8], i: usize) -> bool {
        s.get(i) == Some(&b'\\') && s.get(i + 1) == Some(&b'"')
    }

    /// Written out as [`compact_text`] writes it: the escapes serde_json writes the
    /// same way are kept, a `\/` becomes `/`, a `\u` escape of a plain character becomes
    /// the character.
    fn string(c: &mut Compactor<'_, '_, Written>) -> Option<()> {
        let s = c.s;
        let mut i = c.i + 2;
        c.out.push('"');
        loop {
            // A run with no backslash is decoded text as it is: the written string
            // holds no raw quote or control character.
            let run_end = super::unescape::next_backslash(s, i);
            c.copy(i, run_end);
            i = run_end;
            match *s.get(i + 1)? {
                b'"' => {
                    c.out.push('"');
                    c.i = i + 2;
                    return Some(());
                }
                b'/' => {
                    c.out.push('/');
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
                            c.out.push('\\');
                            c.out.push(char::from(escaped));
                        }
                        b'/' => c.out.push('/'),
                        // `\\u00fc`: a character of the decoded text, which serde_json
                        // writes as it is (Python's json.dumps writes every non-ASCII
                        // character so).
                        b'u' if used == 3 => {
                            c.out.push(plain_char(c.text.get(i + 3..i + 7)?)?);
                            i += 4;
                        }
                        _ => return None,
                    }
                    i += used;
                }
                b'u' => {
                    c.out.push(plain_char(c.text.get(i + 2..i + 6)?)?);
                    i += 6;
                }
                // A written `\n`, `\t` and the like: a raw control character inside a
                // decoded string, which JSON does not allow.
                _ => return None,
            }
        }
    }

    /// Taken only when the key holds no escape of either kind: then its written bytes
    /// are its decoded ones.
    fn key(c: &mut Compactor<'_, '_, Written>) -> Option<(usize, usize)> {
        let from = c.i + 2;
        let to = from + memchr::memchr(b'\\', &c.s[from..])?;
        if c.s.get(to + 1) != Some(&b'"') {
            return None;
        }
        c.i = to + 2;
        Some((from, to))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Doc;
    use super::super::tests::random_json;
    use super::*;
    use std::borrow::Cow;

    /// What the tape writes for `text`, if it takes it.
    fn by_tape(text: &str) -> Option<String> {
        let doc = Doc::parse(text).ok()?;
        let mut out = String::new();
        doc.root()
            .write_compact(&mut out, &mut false)
            .then_some(out)
    }

    fn by_pass(text: &str) -> Option<String> {
        let mut out = String::new();
        compact_text(text, &mut out).map(|_| out)
    }

    #[test]
    fn without_layout_takes_out_only_the_white_space_between_tokens() {
        let text = "{\n  \"a b\": \"x \\\" y\",\r\n\t\"n\" : [ 1.50e3 , \"\\u00e9 \" ]\n}";
        assert_eq!(
            without_layout(text),
            "{\"a b\":\"x \\\" y\",\"n\":[1.50e3,\"\\u00e9 \"]}"
        );
        let compact = r#"{"a":"b c"}"#;
        assert!(matches!(without_layout(compact), Cow::Borrowed(s) if s == compact));
        assert_eq!(without_layout(" 7 "), "7");
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
            r#"{"n": [1.50, 1e2, -0, -0.0, 2.5E-3, 123456789012345678901234567890]}"#,
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
    fn a_taken_text_tells_of_half_a_surrogate_pair() {
        let mut out = String::new();
        // Decoded before the error further on is found: refused, nothing to tell.
        assert_eq!(compact_text(r#"["\ud800", x]"#, &mut out), None);
        // Taken: told, as the tape notes it when it writes the text.
        out.clear();
        assert_eq!(compact_text(r#"["\ud800"]"#, &mut out), Some(true));
        assert_eq!(out, "[\"\u{fffd}\"]");
        out.clear();
        assert_eq!(compact_text(r#"["\ud83d\ude00"]"#, &mut out), Some(false));
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
            Some(first) => super::super::unescape(body, first, &mut false)?,
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
