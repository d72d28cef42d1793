//! Python literals (`{'a': [1, True, None]}`) read as JSON values.
//!
//! Some logs store structured data as a Python `repr` (SWE-agent's `tool_calls`), and
//! pythonic tool calls write their arguments as Python literals.

use serde_json::{Map, Number, Value};

/// Parses a whole Python literal; `None` on anything else.
pub(crate) fn parse(text: &str) -> Option<Value> {
    let mut p = Parser::new(text);
    let v = p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

/// Parses one literal at the start of `text` and returns it with the bytes it used.
pub(crate) fn parse_prefix(text: &str) -> Option<(Value, usize)> {
    let mut p = Parser::new(text);
    let v = p.value()?;
    Some((v, p.i))
}

/// [`parse_prefix`] for what a model wrote: a raw line break inside a quoted string
/// (`unescaped-newline`) and a quote inside one that does not end it, because no
/// delimiter follows it (`unescaped-quote`), are read as text and named.
/// The literal starts at `at` in `text`; `ends` is shared by the reads of one text.
pub(crate) fn parse_prefix_repairing(
    text: &str,
    at: usize,
    ends: &mut StringEnds,
) -> Option<(Value, usize, Vec<&'static str>)> {
    let mut p = Parser::new(text);
    p.i = at;
    p.repairs = Some(Vec::new());
    p.ends = Some(ends);
    let v = p.value()?;
    Some((v, p.i - at, p.repairs.unwrap_or_default()))
}

/// The longest string read with repairs: an unclosed quote costs a bounded look.
const MAX_REPAIRED_STRING: usize = 64 << 10;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
    /// Repairs allowed, and those made.
    repairs: Option<Vec<&'static str>>,
    /// With repairs: where strings of this text can end, kept across reads.
    ends: Option<&'a mut StringEnds>,
}

/// Where quotes that a delimiter follows lie in one text, for each quote character:
/// with repairs, a string ends only at one of them, so a string with none within the
/// bound is not read at all. A search is kept: the span it covered holds none up to
/// what it found, so strings opened one after another in a text that closes none cost
/// one search in all, not one each. Escapes are not considered (an escaped quote counts
/// too), so the spans are a property of the text alone, whatever the string's start.
#[derive(Default)]
pub(crate) struct StringEnds {
    /// Per quote (`"`, `'`): a span `[from, to)` with no such quote in it, and the
    /// one found at its end, if the search found one.
    known: [(usize, usize, Option<usize>); 2],
}

impl StringEnds {
    /// Whether such a quote lies in `from..=bound` of `s`.
    fn any_within(&mut self, s: &[u8], quote: u8, from: usize, bound: usize) -> bool {
        let (a, b, found) = &mut self.known[usize::from(quote == b'\'')];
        let covered = *a <= from && from <= *b;
        if covered {
            match *found {
                Some(x) => return x <= bound,
                None if bound < *b => return false,
                None => {}
            }
        }
        let (start, search) = if covered { (*a, *b) } else { (from, from) };
        let mut i = search;
        let hit = loop {
            let Some(n) = s.get(i..).and_then(|r| memchr::memchr(quote, r)) else {
                break None;
            };
            let at = i + n;
            if at > bound {
                break None;
            }
            if ends_string(s, at + 1) {
                break Some(at);
            }
            i = at + 1;
        };
        *a = start;
        (*b, *found) = match hit {
            Some(x) => (x, Some(x)),
            None => (bound + 1, None),
        };
        hit.is_some()
    }
}

/// Whether what follows `at` (after spaces and tabs) may follow a string's end.
fn ends_string(s: &[u8], at: usize) -> bool {
    let rest = &s[at.min(s.len())..];
    match rest.iter().find(|b| !matches!(b, b' ' | b'\t')) {
        None => true,
        Some(b) => matches!(b, b',' | b')' | b']' | b'}' | b':' | b'\n' | b'\r'),
    }
}

const MAX_DEPTH: usize = 128;

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            s: text.as_bytes(),
            i: 0,
            depth: 0,
            repairs: None,
            ends: None,
        }
    }

    fn repaired(&mut self, name: &'static str) -> bool {
        match &mut self.repairs {
            Some(r) => {
                if !r.contains(&name) {
                    r.push(name);
                }
                true
            }
            None => false,
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => self.nested(|p| p.dict()),
            b'[' => self.nested(|p| p.list(b']')),
            b'(' => self.nested(|p| p.list(b')')),
            b'\'' | b'"' => self.string().map(Value::String),
            b'-' | b'+' | b'0'..=b'9' | b'.' => self.number(),
            _ => self.word(),
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Option<Value>) -> Option<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn dict(&mut self) -> Option<Value> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            let key = self.value()?;
            if !self.eat(b':') {
                // `{'a', 'b'}`: a set, which JSON writes as an array.
                return if map.is_empty() { self.set(key) } else { None };
            }
            let key = match key {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let v = self.value()?;
            map.insert(key, v);
            if !self.eat(b',') {
                return self.eat(b'}').then_some(Value::Object(map));
            }
        }
    }

    /// The rest of a set whose first item is read.
    fn set(&mut self, first: Value) -> Option<Value> {
        let mut items = vec![first];
        loop {
            if !self.eat(b',') {
                return self.eat(b'}').then_some(Value::Array(items));
            }
            if self.eat(b'}') {
                return Some(Value::Array(items));
            }
            items.push(self.value()?);
        }
    }

    fn list(&mut self, close: u8) -> Option<Value> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(Value::Array(items));
            }
            items.push(self.value()?);
            if !self.eat(b',') {
                return self.eat(close).then_some(Value::Array(items));
            }
        }
    }

    fn string(&mut self) -> Option<String> {
        let quote = self.s[self.i];
        let triple = self.s[self.i..].starts_with(&[quote; 3]);
        let start = self.i;
        self.i += if triple { 3 } else { 1 };
        // With repairs, a string ends only at a quote a delimiter follows: with none
        // within the bound, it cannot be read, and is not (text that opens string
        // after string and closes none costs a search per string, not a copy).
        if let Some(ends) = &mut self.ends
            && !triple
            && !ends.any_within(self.s, quote, self.i, start + MAX_REPAIRED_STRING)
        {
            return None;
        }
        let mut out = Vec::new();
        loop {
            // Plain bytes up to the next quote, escape or line break are copied at once:
            // text that opens string after string and closes none costs a search per
            // string, not a step per byte.
            let rest = self.s.get(self.i..)?;
            let plain = memchr::memchr3(quote, b'\\', b'\n', rest).unwrap_or(rest.len());
            if self.repairs.is_some() && self.i + plain - start > MAX_REPAIRED_STRING {
                return None;
            }
            out.extend_from_slice(&rest[..plain]);
            self.i += plain;
            let b = *self.s.get(self.i)?;
            if b == quote && (!triple || self.s[self.i..].starts_with(&[quote; 3])) {
                if !triple
                    && (!self.ends_string(self.i + 1) || self.quotes_code(&out, quote))
                    && self.repaired("unescaped-quote")
                {
                    out.push(b);
                    self.i += 1;
                    continue;
                }
                self.i += if triple { 3 } else { 1 };
                return String::from_utf8(out).ok();
            }
            if b == b'\\' {
                self.i += 1;
                let e = *self.s.get(self.i)?;
                self.i += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'0' => out.push(0),
                    b'\n' => {}
                    b'x' => out.extend(self.code_point(2)?),
                    b'u' => out.extend(self.code_point(4)?),
                    b'U' => out.extend(self.code_point(8)?),
                    b'\\' | b'\'' | b'"' => out.push(e),
                    other => out.extend([b'\\', other]),
                }
            } else {
                if b == b'\n' && !triple && !self.repaired("unescaped-newline") {
                    return None;
                }
                out.push(b);
                self.i += 1;
            }
        }
    }

    /// Whether the quote at the cursor, which a delimiter follows, is one of `quote`s
    /// inside code the string holds (`'python -c "f(x='\\,')"'`): the text read so far
    /// leaves a string of the other quote open (or a bracket open, and a closing
    /// bracket follows), and a later quote that a delimiter follows closes the string
    /// with every bracket and inner string of it closed. Only with repairs; then the
    /// quote is read as text.
    fn quotes_code(&self, read: &[u8], quote: u8) -> bool {
        if self.repairs.is_none() {
            return false;
        }
        let other = if quote == b'\'' { b'"' } else { b'\'' };
        let mut depth = 0isize;
        let mut open_other = false;
        for &b in read {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b if b == other => open_other = !open_other,
                _ => {}
            }
        }
        let depth_open = depth > 0;
        let closer_next = matches!(
            self.s
                .get(self.i + 1..)
                .and_then(|r| r.iter().find(|b| !matches!(b, b' ' | b'\t'))),
            Some(b')' | b']' | b'}')
        );
        if !(open_other || (depth_open && closer_next)) {
            return false;
        }
        let mut depth = depth.max(0);
        let end = self.s.len().min(self.i + MAX_REPAIRED_STRING);
        let mut i = self.i + 1;
        while i < end {
            match self.s[i] {
                b'\\' => i += 1,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                b if b == other => open_other = !open_other,
                b if b == quote && depth == 0 && !open_other && self.ends_string(i + 1) => {
                    return true;
                }
                _ => {}
            }
            i += 1;
        }
        false
    }

    /// Whether a quote before `at` can end a string: a delimiter (or nothing) follows.
    fn ends_string(&self, at: usize) -> bool {
        ends_string(self.s, at)
    }

    fn code_point(&mut self, digits: usize) -> Option<Vec<u8>> {
        let hex = std::str::from_utf8(self.s.get(self.i..self.i + digits)?).ok()?;
        let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
        self.i += digits;
        Some(c.to_string().into_bytes())
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' | b'_'
            )
        {
            self.i += 1;
        }
        let text: String = std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .chars()
            .filter(|&c| c != '_' && c != '+')
            .collect();
        // Python reads `1e999` as infinity, which JSON cannot hold: not a value.
        if !text.parse::<f64>().ok()?.is_finite() {
            return None;
        }
        // Written as JSON writes it: kept as written.
        if let Some(n) = crate::json::json_number(&text) {
            return Some(Value::Number(n));
        }
        let f: f64 = text.parse().ok()?;
        Number::from_f64(f).map(Value::Number)
    }

    fn word(&mut self) -> Option<Value> {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        match &self.s[start..self.i] {
            b"True" | b"true" => Some(Value::Bool(true)),
            b"False" | b"false" => Some(Value::Bool(false)),
            b"None" | b"null" => Some(Value::Null),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The quotes that a delimiter follows, found by the kept searches, are those a
    /// search from scratch finds, for any order of questions.
    #[test]
    fn kept_string_ends_answer_as_a_fresh_search() {
        let s = br#"a "b" c, 'd' "e x" "f", 'g'] h "i"  ) j"#;
        let brute = |quote: u8, from: usize, bound: usize| {
            (from..=bound.min(s.len() - 1)).any(|i| s[i] == quote && ends_string(s, i + 1))
        };
        let mut kept = StringEnds::default();
        for quote in [b'"', b'\'', b'"'] {
            for from in 0..s.len() {
                for bound in from..=s.len() {
                    assert_eq!(
                        kept.any_within(s, quote, from, bound),
                        brute(quote, from, bound),
                        "{} from {from} to {bound}",
                        quote as char
                    );
                }
            }
        }
    }

    /// Literals read with the ends of one text kept are those read with none kept.
    #[test]
    fn literals_read_with_kept_ends_are_read_alike() {
        let s = "f(a=\"x, b='y\"z', c=\"w\") g(q=\"open \n h(r='s') \"t\" , u=1)";
        for order in [false, true] {
            let mut kept = StringEnds::default();
            for at in 0..s.len() {
                let at = if order { s.len() - 1 - at } else { at };
                let fresh = parse_prefix_repairing(s, at, &mut StringEnds::default());
                assert_eq!(parse_prefix_repairing(s, at, &mut kept), fresh, "at {at}");
            }
        }
    }

    #[test]
    fn reads_python_reprs() {
        let v = parse(r#"[{'function': {'arguments': '{"command":"ls"}', 'name': 'bash'}, 'id': 'c1', 'n': -2.5, 'ok': True, 'x': None, 't': (1, 2)}]"#).unwrap();
        assert_eq!(
            v,
            json!([{"function": {"arguments": "{\"command\":\"ls\"}", "name": "bash"}, "id": "c1", "n": -2.5, "ok": true, "x": null, "t": [1, 2]}])
        );
    }

    #[test]
    fn escapes_and_quotes() {
        assert_eq!(parse(r#"'it\'s\n\u00e9'"#).unwrap(), json!("it's\né"));
        assert_eq!(parse(r#""a'b""#).unwrap(), json!("a'b"));
        assert_eq!(parse("'''multi\nline'''").unwrap(), json!("multi\nline"));
    }

    #[test]
    fn rejects_non_literals() {
        // `1e999` is Python's infinity: no JSON number holds it.
        for bad in [
            "foo",
            "{'a': }",
            "[1, 2",
            "'unterminated",
            "{'a' 1}",
            "1e999",
            "-1e999",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
        assert!(parse(&"[".repeat(1000)).is_none());
        assert_eq!(parse("[1e308, 1_000]").unwrap(), json!([1e308, 1000]));
    }
}
