//! Calls written as code: pythonic lists (`[get_weather(city="Paris", days=3), f()]`,
//! keyword arguments, Python literals), one call per line, a single `tool.call(...)`,
//! and Gemma's `call:NAME{key:<|"|>text<|"|>,n:3}` literals. A family of rows: markers
//! around the calls and the syntax inside. Requiring keyword arguments and a whole list
//! of calls keeps prose such as `[see(docs)]` out.

use super::hits::push_hits;
use super::{Channel, DialectRow, Hit, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::scan::skip_ws;
use crate::{pyliteral, scan};
use memchr::memmem;
use serde_json::{Map, Number, Value};

/// The calls' syntax inside the markers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Syntax {
    /// `[f(a=1), g()]`.
    List,
    /// `f(a=1)` calls one after another, separated by line breaks or commas.
    Lines,
    /// One `name.METHOD(a=1)` call (Llama 3.1 built-in tools use `.call`).
    Single { method: &'static str },
    /// `call:NAME{key:value,...}` whose strings sit between `delim` (Gemma); an empty
    /// delimiter accepts any known one, or bare text (special tokens stripped).
    Braced { delim: &'static str },
}

/// One dialect of the family.
#[derive(Debug)]
pub(crate) struct LiteralRow {
    pub(crate) name: &'static str,
    pub(crate) models: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) example: &'static str,
    /// `[` for a bare list (the marker is the list itself).
    pub(crate) open: &'static str,
    pub(crate) close: Option<&'static str>,
    pub(crate) syntax: Syntax,
    pub(crate) stripped: bool,
}

/// Gemma's string delimiters, tried when a stripped call shows one.
const GEMMA_DELIMS: &[&str] = &["<|\"|>", "<escape>"];

/// The longest bare word (a number, `true`, `null`) before its `,` or `}`.
const MAX_BARE_WORD: usize = 64;
/// The longest bare text value of a call whose string delimiters were stripped.
const MAX_BARE_TEXT: usize = 64 << 10;

pub(crate) const ROWS: &[LiteralRow] = &[
    LiteralRow {
        name: "pythonic",
        models: "Llama 3.2 (pythonic template), Llama 4, ToolACE, Ultravox",
        summary: "Pythonic call lists with keyword arguments",
        example: "[get_weather(city='Paris', days=3), get_time()]",
        open: "[",
        close: None,
        syntax: Syntax::List,
        stripped: false,
    },
    LiteralRow {
        name: "llama4-pythonic",
        models: "Llama 4 Scout/Maverick",
        summary: "<|python_start|>[pythonic calls]<|python_end|>",
        example: "<|python_start|>[get_weather(city='Paris')]<|python_end|>",
        open: "<|python_start|>",
        close: Some("<|python_end|>"),
        syntax: Syntax::List,
        stripped: false,
    },
    LiteralRow {
        name: "lfm2",
        models: "Liquid LFM2, LFM2.5",
        summary: "<|tool_call_start|>[pythonic calls]<|tool_call_end|>",
        example: "<|tool_call_start|>[get_weather(location=\"Paris\")]<|tool_call_end|>",
        open: "<|tool_call_start|>",
        close: Some("<|tool_call_end|>"),
        syntax: Syntax::List,
        stripped: false,
    },
    LiteralRow {
        name: "olmo3",
        models: "Olmo 3",
        summary: "<function_calls> with one pythonic call per line </function_calls>",
        example: "<function_calls>get_weather(city=\"Paris\")\nget_time(zone=\"UTC\")</function_calls>",
        open: "<function_calls>",
        close: Some("</function_calls>"),
        syntax: Syntax::Lines,
        stripped: false,
    },
    LiteralRow {
        name: "llama3-builtin",
        models: "Llama 3.1/3.3 built-in tools (brave_search, wolfram_alpha)",
        summary: "<|python_tag|>TOOL.call(key=value), up to <|eom_id|>",
        example: "<|python_tag|>brave_search.call(query=\"weather in Paris\")<|eom_id|>",
        open: "<|python_tag|>",
        close: Some("<|eom_id|>"),
        syntax: Syntax::Single { method: ".call" },
        stripped: false,
    },
    LiteralRow {
        name: "functiongemma",
        models: "FunctionGemma 270M",
        summary: "<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>",
        example: "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
        open: "<start_function_call>",
        close: Some("<end_function_call>"),
        syntax: Syntax::Braced { delim: "<escape>" },
        stripped: false,
    },
    LiteralRow {
        name: "gemma4",
        models: "Gemma 4",
        summary: "<|tool_call>call:NAME{key:<|\"|>text<|\"|>,n:3}<tool_call|>",
        example: "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>",
        open: "<|tool_call>",
        close: Some("<tool_call|>"),
        syntax: Syntax::Braced { delim: "<|\"|>" },
        stripped: false,
    },
    LiteralRow {
        name: "gemma4",
        models: "",
        summary: "",
        example: "",
        open: "call:",
        close: None,
        syntax: Syntax::Braced { delim: "" },
        stripped: true,
    },
];

pub(crate) struct Literal;
pub(crate) static LITERAL: Literal = Literal;

impl Scanner for Literal {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, registry: &super::Registry) -> Vec<DialectRow> {
        registry
            .literals
            .iter()
            .filter(|r| !r.stripped)
            .map(|r| DialectRow::new(r.name, Channel::Text, r.summary, r.example).models(r.models))
            .collect()
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let registry = ctx.registry;
        let candidates = registry
            .literal_opens
            .candidates(text, |r| ctx.enabled(registry.literals[r].name));
        let s = text.text.as_str();
        let mut from = 0;
        let mut ends = pyliteral::StringEnds::default();
        for (at, r) in candidates {
            if at < from {
                continue;
            }
            let row = registry.literals[r];
            if may_start_call(row, s, at) {
                ctx.candidate(at);
            }
            let Some((calls, end)) = row_calls(row, s, at, &mut ends) else {
                continue;
            };
            push_hits(out, text, calls, (at, end), row.stripped);
            from = end;
        }
    }
}

/// Whether a call could start at `at` for the pythonic list row (`[` and a name with
/// `(` or `.` after it, or the end of the text before that is known); always for
/// the rows with a marker of their own, which prose rarely holds. A window's reader
/// asks: what could not start a call here never can, however the text goes on.
fn may_start_call(row: &LiteralRow, s: &str, at: usize) -> bool {
    if row.open != "[" {
        return true;
    }
    let p = skip_ws(s, at + 1);
    let Some(name) = scan::ident(&s[p..]) else {
        return p >= s.len();
    };
    let q = p + name.len();
    q >= s.len() || s[q..].starts_with(['(', '.'])
}

/// The calls of one row at `at`, and where they end (after the close marker).
fn row_calls(
    row: &LiteralRow,
    s: &str,
    at: usize,
    ends: &mut pyliteral::StringEnds,
) -> Option<(Vec<Call>, usize)> {
    let body = if row.open == "[" {
        at
    } else {
        at + row.open.len()
    };
    let p = skip_ws(s, body);
    let (mut calls, end) = match row.syntax {
        Syntax::List => {
            if !s[p..].starts_with('[') {
                return None;
            }
            call_list(s, p, ends)?
        }
        Syntax::Lines => call_lines(s, p, ends)?,
        Syntax::Single { method } => {
            let (mut call, end) = one_call(s, p, ends)?;
            call.name = call.name.strip_suffix(method)?.to_owned();
            (vec![call], end)
        }
        Syntax::Braced { delim } => braced_call(s, p, delim, row.stripped)?,
    };
    for call in &mut calls {
        call.dialect = row.name;
        call.raw_strings = true;
    }
    let mut end = end;
    if let Some(close) = row.close {
        let after = skip_ws(s, end);
        if s[after..].starts_with(close) {
            end = after + close.len();
        } else if row.name != "llama3-builtin" {
            for call in &mut calls {
                call.repairs.push("missing-close-tag");
            }
        }
    }
    Some((calls, end))
}

/// `[call, call, ...]` starting at `at`. Each call is read on its own: one whose
/// keyword arguments cannot be read is reported invalid with their text.
fn call_list(s: &str, at: usize, ends: &mut pyliteral::StringEnds) -> Option<(Vec<Call>, usize)> {
    let mut p = skip_ws(s, at + 1);
    let mut calls = Vec::new();
    loop {
        // A call read whole is one that a `,` or the `]` follows; otherwise (a string
        // ended early) its text up to such a `)` is kept, invalid.
        let read =
            one_call(s, p, ends).filter(|&(_, next)| s[skip_ws(s, next)..].starts_with([',', ']']));
        let (call, next) = read.or_else(|| unreadable_call(s, p, list_item_end))?;
        calls.push(call);
        p = skip_ws(s, next);
        match s.as_bytes().get(p)? {
            b',' => p = skip_ws(s, p + 1),
            b']' => return Some((calls, p + 1)),
            _ => return None,
        }
    }
}

/// Calls one after another (line breaks or commas between), at least one. Each call
/// is read on its own, as in a list: one whose arguments cannot be read is reported
/// invalid with their text.
fn call_lines(s: &str, at: usize, ends: &mut pyliteral::StringEnds) -> Option<(Vec<Call>, usize)> {
    let mut calls = Vec::new();
    let mut line_call = |p: usize| one_call(s, p, ends).or_else(|| unreadable_call(s, p, line_end));
    let (call, mut end) = line_call(at)?;
    calls.push(call);
    loop {
        let mut p = skip_ws(s, end);
        if s[p..].starts_with(',') {
            p = skip_ws(s, p + 1);
        }
        match line_call(p) {
            Some((call, next)) => {
                calls.push(call);
                end = next;
            }
            None => return Some((calls, end)),
        }
    }
}

/// `name(key=value, ...)` at `p`; the name may be dotted.
fn one_call(s: &str, p: usize, ends: &mut pyliteral::StringEnds) -> Option<(Call, usize)> {
    let mut end = p;
    loop {
        let part = scan::ident(&s[end..])?;
        end += part.len();
        if s[end..].starts_with('.') {
            end += 1;
        } else {
            break;
        }
    }
    let name = &s[p..end];
    if !s[end..].starts_with('(') {
        return None;
    }
    let mut call = Call::new(name, "", 0);
    let mut q = skip_ws(s, end + 1);
    loop {
        if s[q..].starts_with(')') {
            return Some((call, q + 1));
        }
        let key = scan::ident(&s[q..])?;
        q = skip_ws(s, q + key.len());
        if !s[q..].starts_with('=') {
            return None;
        }
        q = skip_ws(s, q + 1);
        let (value, used, repairs) = pyliteral::parse_prefix_repairing(s, q, ends)?;
        for repair in repairs {
            if !call.repairs.contains(&repair) {
                call.repairs.push(repair);
            }
        }
        call.arguments.insert(key.to_owned(), value);
        q = skip_ws(s, q + used);
        if s[q..].starts_with(',') {
            q = skip_ws(s, q + 1);
        } else if !s[q..].starts_with(')') {
            return None;
        }
    }
}

/// `name(key=…)` at `p` whose arguments cannot be read (bytes, `1e999`, a quote left
/// open): the call, invalid, with the text between its parentheses, and where it ends.
/// A keyword argument first is what makes it a call; prose such as `see(docs)` is not.
fn unreadable_call(s: &str, p: usize, ends: fn(&str) -> bool) -> Option<(Call, usize)> {
    let name = scan::ident(&s[p..])?;
    let mut end = p + name.len();
    while s[end..].starts_with('.') {
        end += 1 + scan::ident(&s[end + 1..])?.len();
    }
    let name = &s[p..end];
    let open = end;
    if !s[open..].starts_with('(') {
        return None;
    }
    let q = skip_ws(s, open + 1);
    let key = scan::ident(&s[q..])?;
    if !s[skip_ws(s, q + key.len())..].starts_with('=') {
        return None;
    }
    // Looked for within a bounded reach: text that opens call after call and closes
    // none must not be scanned to its end from every opening.
    let reach = &s[..floor_char_boundary(s, open.saturating_add(UNREADABLE_REACH))];
    let close = matching_paren(reach, open)
        .filter(|&c| ends(&s[c + 1..]))
        .or_else(|| element_end(reach, open, ends))?;
    let mut call = Call::new(name, "", 0);
    call.invalid_arguments(
        s[open + 1..close].trim(),
        "the arguments are not Python literals",
    );
    Some((call, close + 1))
}

/// How far past its `(` the end of a call whose arguments cannot be read is looked for.
const UNREADABLE_REACH: usize = 4096;

/// The largest char boundary of `s` at or before `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The `)` that closes the `(` at `open`, past brackets and quoted strings.
fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (bytes[i] == b')').then_some(i);
                }
            }
            q @ (b'\'' | b'"') => {
                i += 1;
                while *bytes.get(i)? != q {
                    if bytes[i] == b'\\' || bytes[i] == b'\n' {
                        // An escape, or a quote left open at the line's end.
                        if bytes[i] == b'\n' {
                            return None;
                        }
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// What may follow a call of a list: a `,` or the `]`.
fn list_item_end(rest: &str) -> bool {
    rest.trim_start().starts_with([',', ']'])
}

/// What may follow a call on its own line: the line's end, a `,`, a close marker, or
/// the end of the text.
fn line_end(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.is_empty() || rest.starts_with(['\n', '\r', ',', '<'])
}

/// With a quote left open: the first `)` after `open` that `ends` accepts.
fn element_end(s: &str, open: usize, ends: fn(&str) -> bool) -> Option<usize> {
    let mut from = open;
    while let Some(n) = memchr::memchr(b')', &s.as_bytes()[from..]) {
        let at = from + n;
        if ends(&s[at + 1..]) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// `call:NAME{...}` at `p` (the `call:` may be absent right after a marker).
fn braced_call(s: &str, p: usize, delim: &str, stripped: bool) -> Option<(Vec<Call>, usize)> {
    let name_at = if stripped {
        p
    } else {
        p + s[p..].strip_prefix("call:").map_or(0, |_| "call:".len())
    };
    let name_len = s[name_at..]
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
        .unwrap_or(s.len() - name_at);
    let name = &s[name_at..name_at + name_len];
    if !scan::is_tool_name(name) || !s[name_at + name_len..].starts_with('{') {
        return None;
    }
    let delims: Vec<&str> = if delim.is_empty() {
        GEMMA_DELIMS.to_vec()
    } else {
        vec![delim]
    };
    let mut parser = Braced {
        s,
        i: name_at + name_len,
        delims: &delims,
        bare: stripped,
        depth: 0,
        missing_comma: false,
    };
    let Value::Object(arguments) = parser.object()? else {
        return None;
    };
    let mut call = Call::new(name, "", 0);
    call.arguments = arguments.into();
    if parser.missing_comma {
        call.repairs.push("missing-comma");
    }
    Some((vec![call], parser.i))
}

/// Gemma's literal: `{key:value,...}` with unquoted keys, strings between a delimiter
/// token, bare numbers, booleans and null, nested objects and lists.
struct Braced<'a> {
    s: &'a str,
    i: usize,
    delims: &'a [&'a str],
    /// Strings may be bare text (their delimiters were stripped).
    bare: bool,
    depth: usize,
    /// A `,` between two arguments was missing (repair `missing-comma`).
    missing_comma: bool,
}

impl Braced<'_> {
    fn ws(&mut self) {
        self.i = skip_ws(self.s, self.i);
    }

    fn object(&mut self) -> Option<Value> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        self.i += 1; // `{`
        let mut map = Map::new();
        loop {
            self.ws();
            if self.s[self.i..].starts_with('}') {
                self.i += 1;
                self.depth -= 1;
                return Some(Value::Object(map));
            }
            let key = if let Some(k) = self.delimited() {
                k
            } else {
                let len = self.s[self.i..]
                    .bytes()
                    .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'"')))
                    .unwrap_or(0);
                if len == 0 {
                    return None;
                }
                let k = self.s[self.i..self.i + len].trim_matches('"').to_owned();
                self.i += len;
                k
            };
            self.ws();
            if !self.s[self.i..].starts_with(':') {
                return None;
            }
            self.i += 1;
            let value = self.value(b'}')?;
            let delimited = matches!(value, Value::String(_))
                && self.delims.iter().any(|d| self.s[..self.i].ends_with(d));
            map.insert(key, value);
            self.ws();
            if self.s[self.i..].starts_with(',') {
                self.i += 1;
            } else if delimited && self.key_follows() {
                // `city:<escape>NYC<escape>unit:…`: the next key right after a string.
                self.missing_comma = true;
            } else if !self.s[self.i..].starts_with('}') {
                return None;
            }
        }
    }

    /// Whether `key:` (a bare key and its colon) and a value are at the cursor: the
    /// next argument, its comma left out. The value must be a delimited string, or,
    /// when strings are delimited, a number, boolean, null, object or list.
    fn key_follows(&self) -> bool {
        let rest = &self.s[self.i..];
        let len = rest
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')))
            .unwrap_or(rest.len());
        len > 0
            && rest[len..]
                .strip_prefix(':')
                .map(str::trim_start)
                .is_some_and(|v| {
                    self.delims.iter().any(|d| v.starts_with(d))
                        || (!self.bare
                            && v.starts_with(|c: char| c.is_ascii_digit() || "-tfn{[".contains(c)))
                })
    }

    fn list(&mut self) -> Option<Value> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        self.i += 1; // `[`
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s[self.i..].starts_with(']') {
                self.i += 1;
                self.depth -= 1;
                return Some(Value::Array(items));
            }
            items.push(self.value(b']')?);
            self.ws();
            if self.s[self.i..].starts_with(',') {
                self.i += 1;
            } else if !self.s[self.i..].starts_with(']') {
                return None;
            }
        }
    }

    /// A string between delimiters at the cursor.
    fn delimited(&mut self) -> Option<String> {
        let rest = &self.s[self.i..];
        let delim = self.delims.iter().find(|d| rest.starts_with(**d))?;
        let body = &rest[delim.len()..];
        let len = memmem::find(body.as_bytes(), delim.as_bytes())?;
        self.i += delim.len() + len + delim.len();
        Some(body[..len].to_owned())
    }

    fn value(&mut self, closer: u8) -> Option<Value> {
        self.ws();
        let rest = &self.s[self.i..];
        if let Some(text) = self.delimited() {
            return Some(Value::String(text));
        }
        match rest.as_bytes().first()? {
            b'{' => return self.object(),
            b'[' => return self.list(),
            b'"' => {
                let (v, used) = pyliteral::parse_prefix(rest)?;
                self.i += used;
                return Some(v);
            }
            _ => {}
        }
        // A bare word: number, boolean, null, or (markers stripped) text. It is looked
        // for within a bound, so that many unclosed calls cost a short look each, not
        // one to the end of the text.
        let bound = if self.bare {
            MAX_BARE_TEXT
        } else {
            MAX_BARE_WORD
        };
        let window = &rest.as_bytes()[..rest.len().min(bound)];
        let len = match memchr::memchr3(b',', closer, b'}', window) {
            Some(len) => len,
            None if rest.len() <= bound => rest.len(),
            None => return None,
        };
        let word = rest[..len].trim();
        let value = match word {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            "null" | "None" => Value::Null,
            _ => {
                if let Some(n) = crate::json::json_number(word) {
                    Value::Number(n)
                } else if let Some(n) = word.parse::<f64>().ok().and_then(Number::from_f64) {
                    Value::Number(n)
                } else if self.bare && !word.is_empty() {
                    Value::String(word.to_owned())
                } else {
                    return None;
                }
            }
        };
        self.i += len;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&LITERAL, text, &[], false)
    }

    #[test]
    fn bare_values_are_looked_for_within_a_bound() {
        // Stripped delimiters: a long text value is still one value.
        let long = "word ".repeat(2000);
        let hits = scan_text(&format!("call:note{{text:{long},n:3}}"));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.arguments["text"], long.trim());
        // With delimiters, a bare word is a number, boolean or null: a run of text with
        // no `,` or `}` soon after is not one (and is not read to the end of the text).
        let open = "<start_function_call>call:f{a:<escape ".repeat(50);
        assert!(scan_text(&open).is_empty());
        let hits = scan_text("<start_function_call>call:f{a:3,b:true}<end_function_call>");
        assert_eq!(hits[0].call.arguments["a"], 3);
    }

    #[test]
    fn python_literals() {
        let hits = scan_text(
            "Sure: [get_weather(city=\"Paris\", days=3), book(opts={'a': [1, None], \"b\": True}), f()]",
        );
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["get_weather", "book", "f"]);
        assert_eq!(
            serde_json::Value::Object((*hits[1].call.arguments).clone()),
            json!({"opts": {"a": [1, null], "b": true}})
        );
    }

    #[test]
    fn each_call_of_a_list_is_read_on_its_own() {
        let text = "[get_weather(city='Paris'), f(x=b'z'), g(n=float('nan')), h(s='a), k(tags={'a', 'b'})]";
        let hits = scan_text(text);
        let got: Vec<(&str, bool)> = hits
            .iter()
            .map(|h| (h.call.name.as_str(), h.call.is_valid()))
            .collect();
        assert_eq!(
            got,
            [
                ("get_weather", true),
                ("f", false),
                ("g", false),
                ("h", false),
                ("k", true)
            ]
        );
        assert_eq!(hits[1].call.arguments_raw.as_deref(), Some("x=b'z'"));
        assert_eq!(
            hits[2].call.arguments_raw.as_deref(),
            Some("n=float('nan')")
        );
        assert_eq!(hits[3].call.arguments_raw.as_deref(), Some("s='a"));
        assert_eq!(hits[4].call.arguments["tags"], json!(["a", "b"]));
    }

    #[test]
    fn raw_newlines_and_inner_quotes_in_strings_are_repairs() {
        let hits = scan_text("[note(text='line one\nline two', title='it's here')]");
        assert_eq!(hits.len(), 1);
        let call = &hits[0].call;
        assert_eq!(call.arguments["text"], "line one\nline two");
        assert_eq!(call.arguments["title"], "it's here");
        assert_eq!(call.repairs, ["unescaped-newline", "unescaped-quote"]);
    }

    #[test]
    fn prose_is_not_pythonic() {
        for t in [
            "see [the docs](http://x)",
            "[see(docs)]",
            "[f(a=1) and more]",
            "array[i](x=1)",
        ] {
            assert!(scan_text(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn gemma_literals() {
        let hits = scan_text(
            "<|tool_call>call:f{city:<|\"|>Rome, IT<|\"|>,days:3,opts:{metric:true,tags:[<|\"|>a<|\"|>,2.5]}}<tool_call|>",
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(
            serde_json::Value::Object((*hits[0].call.arguments).clone()),
            json!({"city": "Rome, IT", "days": 3, "opts": {"metric": true, "tags": ["a", 2.5]}})
        );
        let hits = scan_text("thought\ncall:get_weather{city:Rome,days:3}");
        assert_eq!(hits[0].call.repairs, ["stripped-markers"]);
        assert_eq!(hits[0].call.arguments["city"], "Rome");
    }

    #[test]
    fn lines_and_single_calls() {
        let hits = scan_text("<function_calls>a(x=1)\nb(y='z')</function_calls>");
        let names: Vec<(&str, &str)> = hits
            .iter()
            .map(|h| (h.call.name.as_str(), h.call.dialect))
            .collect();
        assert_eq!(names, [("a", "olmo3"), ("b", "olmo3")]);
        let hits = scan_text("<|python_tag|>brave_search.call(query=\"x\")<|eom_id|>");
        assert_eq!(
            (hits[0].call.name.as_str(), hits[0].call.dialect),
            ("brave_search", "llama3-builtin")
        );
        assert!(scan_text("<|python_tag|>print(x)").is_empty());
    }
}
