//! Dialects that write each argument between XML-style tags, as raw text with no
//! escaping (`<function=f><parameter=p>…</parameter></function>`, `<invoke name="f">
//! <parameter name="p">…`, `<arg_key>k</arg_key><arg_value>v</arg_value>`): a family of
//! rows that say where the name and each key sit. Values are raw text: a closing tag
//! inside a value is resolved by the well-formed-remainder rule, values are typed by the
//! `--tools` schema when there is one, and otherwise stay strings unless they are JSON
//! objects or arrays.

use super::hits::absorb_wrappers;
use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::scan;
use crate::scan::skip_ws;
use serde_json::Value;

/// Literal text around one captured piece: `before` CAPTURE `after`. An empty `after`
/// ends the capture at the end of the line or the next `<`. An `after` that starts
/// with a quote also allows attributes between that quote and the rest of `after`
/// (`name="x" string="true">`, `tool="f" index="1"<|sep|>`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tpl {
    pub(crate) before: &'static str,
    pub(crate) after: &'static str,
}

/// One dialect of the family.
#[derive(Debug)]
pub(crate) struct ParamRow {
    pub(crate) name: &'static str,
    pub(crate) models: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) example: &'static str,
    /// Containers of one or more calls (`<tool_call>`, `<minimax:tool_call>`); any of them.
    pub(crate) wrappers: &'static [(&'static str, &'static str)],
    /// A call counts only inside one of the wrappers (their markers are what tell this
    /// dialect from another with the same call syntax).
    pub(crate) wrapper_required: bool,
    /// Markers around the wrappers, taken into the span when adjacent.
    pub(crate) outer: &'static [(&'static str, &'static str)],
    pub(crate) call_open: Tpl,
    pub(crate) call_close: &'static str,
    pub(crate) param_open: Tpl,
    /// Between the key and the value (`<arg_value>`), or empty.
    pub(crate) value_open: &'static str,
    pub(crate) param_close: &'static str,
    /// A parameter attribute that says whether the value is a string or JSON: JSON
    /// when it reads `false` (`string="false"`) or names a JSON type other than
    /// string (`type="number"`), the raw string otherwise (`string="true"`,
    /// `type="string"`).
    pub(crate) string_attr: Option<&'static str>,
    /// The template writes a line break after the opening tag and one before the
    /// closing tag (`<parameter=p>\nvalue\n</parameter>`): that pair is the template's.
    /// Elsewhere every character between the tags is the value's (code ends in `\n`).
    pub(crate) value_newlines: bool,
    /// The call's body may be one JSON object of arguments instead of parameters
    /// (`<｜DSML｜invoke name="f">\n{"city": "Paris"}\n</｜DSML｜invoke>`).
    pub(crate) json_body: bool,
}

const fn tpl(before: &'static str, after: &'static str) -> Tpl {
    Tpl { before, after }
}

pub(crate) const ROWS: &[ParamRow] = &[
    ParamRow {
        name: "seed-oss",
        models: "ByteDance Seed-OSS",
        summary: "<seed:tool_call><function=f><parameter=p>raw</parameter></function></seed:tool_call>",
        example: "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
        wrappers: &[("<seed:tool_call>", "</seed:tool_call>")],
        wrapper_required: true,
        outer: &[],
        call_open: tpl("<function=", ">"),
        call_close: "</function>",
        param_open: tpl("<parameter=", ">"),
        value_open: "",
        param_close: "</parameter>",
        string_attr: None,
        value_newlines: false,
        json_body: false,
    },
    ParamRow {
        name: "qwen3-coder",
        models: "Qwen3-Coder, Qwen3.5+, Nemotron-3 Nano/Super, Step-3.5",
        summary: "<tool_call><function=f><parameter=p>raw</parameter></function></tool_call> (newlines optional)",
        example: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        wrappers: &[("<tool_call>", "</tool_call>")],
        wrapper_required: false,
        outer: &[],
        call_open: tpl("<function=", ">"),
        call_close: "</function>",
        param_open: tpl("<parameter=", ">"),
        value_open: "",
        param_close: "</parameter>",
        string_attr: None,
        value_newlines: true,
        json_body: false,
    },
    ParamRow {
        name: "glm",
        models: "GLM-4.5, GLM-4.6, GLM-4.7, GLM-5, Poolside Laguna",
        summary: "<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call> (4.5 with newlines, 4.7 without)",
        example: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
        wrappers: &[],
        wrapper_required: false,
        outer: &[],
        call_open: tpl("<tool_call>", ""),
        call_close: "</tool_call>",
        param_open: tpl("<arg_key>", "</arg_key>"),
        value_open: "<arg_value>",
        param_close: "</arg_value>",
        string_attr: None,
        value_newlines: false,
        json_body: false,
    },
    ParamRow {
        name: "minimax-m2",
        models: "MiniMax-M2, M2.1, M2.5",
        summary: "<minimax:tool_call><invoke name=\"f\"><parameter name=\"p\">raw</parameter></invoke></minimax:tool_call>",
        example: "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</minimax:tool_call>",
        wrappers: &[("<minimax:tool_call>", "</minimax:tool_call>")],
        wrapper_required: true,
        outer: &[],
        call_open: tpl("<invoke name=\"", "\">"),
        call_close: "</invoke>",
        param_open: tpl("<parameter name=\"", "\">"),
        value_open: "",
        param_close: "</parameter>",
        string_attr: None,
        value_newlines: false,
        json_body: false,
    },
    ParamRow {
        name: "step3",
        models: "StepFun Step-3",
        summary: "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"p\">raw</steptml:parameter></steptml:invoke><｜tool_call_end｜>",
        example: "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\">\n<steptml:parameter name=\"city\">Paris</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>",
        // Step-3's parser wants `function<｜tool_sep｜>` before the invoke; a block
        // without it is still this dialect's (another dialect reading the invoke alone
        // would report it a second time).
        wrappers: &[
            (
                "<｜tool_call_begin｜>function<｜tool_sep｜>",
                "<｜tool_call_end｜>",
            ),
            ("<｜tool_call_begin｜>", "<｜tool_call_end｜>"),
        ],
        wrapper_required: false,
        outer: &[("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>")],
        call_open: tpl("<steptml:invoke name=\"", "\">"),
        call_close: "</steptml:invoke>",
        param_open: tpl("<steptml:parameter name=\"", "\">"),
        value_open: "",
        param_close: "</steptml:parameter>",
        string_attr: None,
        value_newlines: false,
        json_body: false,
    },
    ParamRow {
        name: "deepseek-dsml",
        models: "DeepSeek-V3.2 (function_calls), DeepSeek-V4 (tool_calls)",
        summary: "<｜DSML｜invoke name=\"f\"> with <｜DSML｜parameter name=\"p\" string=\"true|false\"> children",
        example: "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        wrappers: &[
            ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
            ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
        ],
        wrapper_required: false,
        outer: &[],
        call_open: tpl("<｜DSML｜invoke name=\"", "\">"),
        call_close: "</｜DSML｜invoke>",
        param_open: tpl("<｜DSML｜parameter name=\"", "\">"),
        value_open: "",
        param_close: "</｜DSML｜parameter>",
        string_attr: Some("string"),
        value_newlines: false,
        json_body: true,
    },
    ParamRow {
        name: "deepseek-dsml-v4.1",
        models: "DeepSeek-V4.1",
        summary: "DSML with a space after the token: <｜DSML｜ calls>, <｜DSML｜ invoke name=\"f\">, <｜DSML｜ parameter name=\"p\" string=\"true|false\">",
        example: "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"get_weather\">\n<｜DSML｜ parameter name=\"city\" string=\"true\">Paris</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>",
        wrappers: &[("<｜DSML｜ calls>", "</｜DSML｜ calls>")],
        wrapper_required: false,
        outer: &[],
        call_open: tpl("<｜DSML｜ invoke name=\"", "\">"),
        call_close: "</｜DSML｜ invoke>",
        param_open: tpl("<｜DSML｜ parameter name=\"", "\">"),
        value_open: "",
        param_close: "</｜DSML｜ parameter>",
        string_attr: Some("string"),
        value_newlines: false,
        json_body: true,
    },
    ParamRow {
        name: "gigachat-3.5",
        models: "GigaChat 3.5",
        summary: "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"p\" string=\"true|false\">v</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
        example: "<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"get_weather\">\n<｜GCML｜parameter name=\"city\" string=\"true\">Paris</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>",
        wrappers: &[("<｜GCML｜tool_calls>", "</｜GCML｜tool_calls>")],
        wrapper_required: false,
        outer: &[],
        call_open: tpl("<｜GCML｜invoke name=\"", "\">"),
        call_close: "</｜GCML｜invoke>",
        param_open: tpl("<｜GCML｜parameter name=\"", "\">"),
        value_open: "",
        param_close: "</｜GCML｜parameter>",
        string_attr: Some("string"),
        value_newlines: false,
        json_body: false,
    },
    ParamRow {
        name: "kimi-k3",
        models: "Kimi K3",
        summary: "XTML: <|open|>call tool=\"f\" index=\"N\"<|sep|> with <|open|>argument key=\"k\" type=\"T\"<|sep|>v<|close|>argument<|sep|> in a tools channel",
        example: "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
        wrappers: &[("<|open|>tools<|sep|>", "<|close|>tools<|sep|>")],
        wrapper_required: false,
        outer: &[],
        call_open: tpl("<|open|>call tool=\"", "\"<|sep|>"),
        call_close: "<|close|>call<|sep|>",
        param_open: tpl("<|open|>argument key=\"", "\"<|sep|>"),
        value_open: "",
        param_close: "<|close|>argument<|sep|>",
        string_attr: Some("type"),
        value_newlines: false,
        json_body: false,
    },
    ParamRow {
        name: "muse-glimmer",
        models: "Muse Glimmer",
        summary: "ATEM: <atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"p\">raw</atem:parameter></atem:invoke></atem:function_calls>",
        example: "<atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>",
        wrappers: &[("<atem:function_calls>", "</atem:function_calls>")],
        wrapper_required: true,
        outer: &[],
        call_open: tpl("<atem:invoke name=\"", "\">"),
        call_close: "</atem:invoke>",
        param_open: tpl("<atem:parameter name=\"", "\">"),
        value_open: "",
        param_close: "</atem:parameter>",
        string_attr: None,
        value_newlines: false,
        json_body: false,
    },
];

/// The markers the index searches for, per row: each wrapper's open, then the call's.
pub(crate) fn opens(rows: &[&'static ParamRow]) -> Vec<(&'static str, usize, Option<usize>)> {
    let mut out = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (w, (open, _)) in row.wrappers.iter().enumerate() {
            out.push((*open, r, Some(w)));
        }
        out.push((row.call_open.before, r, None));
    }
    out
}

pub(crate) struct XmlParams;
pub(crate) static XML_PARAMS: XmlParams = XmlParams;

impl Scanner for XmlParams {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, registry: &super::Registry) -> Vec<DialectRow> {
        registry
            .params
            .iter()
            .map(|r| DialectRow::new(r.name, Channel::Text, r.summary, r.example).models(r.models))
            .collect()
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let registry = ctx.registry;
        let entries = &registry.param_entries;
        let candidates = registry
            .param_opens
            .candidates(text, |e| ctx.enabled(registry.params[entries[e].1].name));
        let s = text.text.as_str();
        let mut next = scan::NextFind::default();
        let mut from = 0;
        for (at, e) in candidates {
            if at < from {
                continue;
            }
            let (_, r, wrapper) = entries[e];
            let row = registry.params[r];
            let found = match wrapper {
                Some(w) => wrapped_calls(row, s, at, row.wrappers[w], ctx, &mut next),
                None if row.wrapper_required => None,
                None => one_call(row, s, at, ctx, &mut next).map(|(call, end)| (vec![call], end)),
            };
            let Some((calls, end)) = found else {
                continue;
            };
            let (start, end) = absorb_wrappers(s, at, end, row.outer);
            for mut call in calls {
                call.line = text.line_at(start);
                out.push(Hit {
                    call,
                    start,
                    end,
                    balanced: false,
                    specificity: MARKED,
                });
            }
            from = end;
        }
    }
}

/// The calls inside one wrapper, and where the wrapper ends.
fn wrapped_calls(
    row: &ParamRow,
    s: &str,
    at: usize,
    (open, close): (&str, &str),
    ctx: &ScanContext,
    next: &mut scan::NextFind,
) -> Option<(Vec<Call>, usize)> {
    let mut p = skip_ws(s, at + open.len());
    if p + row.call_open.before.len() >= s.len() {
        ctx.candidate(at);
    }
    let mut calls = Vec::new();
    while s[p..].starts_with(row.call_open.before) {
        ctx.candidate(at);
        let (call, end) = one_call(row, s, p, ctx, next)?;
        calls.push(call);
        p = skip_ws(s, end);
    }
    if calls.is_empty() {
        return None;
    }
    if s[p..].starts_with(close) {
        Some((calls, p + close.len()))
    } else {
        for call in &mut calls {
            push_once(&mut call.repairs, "missing-close-tag");
        }
        Some((calls, p))
    }
}

/// The longest a name or key may be.
const MAX_HEAD: usize = 256;

/// What `tpl` captures at `at` (which starts with `tpl.before`): the capture, the
/// attributes after it, and where the tag ends.
fn capture<'s>(tpl: &Tpl, s: &'s str, at: usize) -> Option<(&'s str, &'s str, usize)> {
    let from = at + tpl.before.len();
    let window = &s[from..floor_char(s, (from + MAX_HEAD).min(s.len()))];
    if tpl.after.is_empty() {
        let n = memchr::memchr2(b'\n', b'<', window.as_bytes()).unwrap_or(window.len());
        return Some((window[..n].trim(), "", from + n));
    }
    // The capture ends at the first character of `after`.
    let n = window.find(tpl.after.chars().next()?)?;
    let name = &window[..n];
    if name.contains(['<', '>', '\n']) {
        return None;
    }
    let rest = &window[n..];
    if rest.starts_with(tpl.after) {
        return Some((name, "", from + n + tpl.after.len()));
    }
    // Attributes between the closing quote and the end of the tag: `name="x"
    // string="true">`, `tool="f" index="1"<|sep|>`.
    let tail = tpl.after.strip_prefix('"')?;
    if tail.is_empty() || !rest.starts_with('"') {
        return None;
    }
    let rest = &rest[1..];
    let close = rest.find(tail)?;
    let attrs = &rest[..close];
    if attrs.contains(['<', '>', '\n']) {
        return None;
    }
    Some((name, attrs, from + n + 1 + close + tail.len()))
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One call at `at` (which starts with the call's opening text), and where it ends.
fn one_call(
    row: &ParamRow,
    s: &str,
    at: usize,
    ctx: &ScanContext,
    next: &mut scan::NextFind,
) -> Option<(Call, usize)> {
    // A head cut short by the end of the text could read otherwise in a longer one.
    if at + row.call_open.before.len() + MAX_HEAD >= s.len() {
        ctx.candidate(at);
    }
    let (name, _, head_end) = capture(&row.call_open, s, at)?;
    let name = name.trim();
    if row.call_open.after.is_empty() && name.ends_with("\\n") {
        ctx.candidate(at);
        return escaped_call(row, s, at, ctx, next);
    }
    if !scan::is_tool_name(name) {
        return None;
    }
    ctx.candidate(at);
    let declared = ctx.declared(name);
    let mut call = Call::new(declared.unwrap_or(name), row.name, 0);
    let schema = declared.and_then(|n| ctx.schema(n));
    let mut p = skip_ws(s, head_end);
    // A name on its own line followed by JSON (`<tool_call>f\n{"a": 1}`) is the
    // JSON-body form of another dialect (Laguna), not a call without parameters.
    if row.call_open.after.is_empty() && !row.json_body && s[p..].starts_with('{') {
        return None;
    }
    if row.json_body
        && s[p..].starts_with('{')
        && let Some(end) = scan::balanced_end(s, p)
    {
        let read = scan::with_json(&s[p..end], ctx.strict, |root, repairs| {
            super::shapes::set_args(&mut call, Some(root));
            call.repairs.extend(repairs);
        });
        if read.is_ok() {
            p = skip_ws(s, end);
        }
    }
    while s[p..].starts_with(row.param_open.before) {
        let Some((key, attrs, key_end)) = capture(&row.param_open, s, p) else {
            break;
        };
        let key = key.trim().to_owned();
        let mut value_start = key_end;
        if !row.value_open.is_empty() {
            let q = skip_ws(s, key_end);
            if !s[q..].starts_with(row.value_open) {
                break;
            }
            value_start = q + row.value_open.len();
        }
        let (mut value_end, mut after, mut ambiguous) = value_close(row, s, value_start, next);
        // An unclosed value ends where the next parameter opens on a line of its own.
        if let Some(cut) = next_param(row, s, value_start, value_end) {
            (value_end, after, ambiguous) = (cut, cut, false);
        }
        if ambiguous {
            push_once(&mut call.repairs, "ambiguous-delimiter");
        }
        if after == value_end {
            push_once(&mut call.repairs, "missing-close-tag");
        }
        let raw = &s[value_start..value_end];
        let raw = if row.value_newlines {
            trim_template_breaks(raw)
        } else {
            raw
        };
        let as_string = row
            .string_attr
            .and_then(|a| scan::attribute(attrs, a))
            .map(|v| !json_marked(v));
        let value = match as_string {
            Some(true) => Value::String(raw.to_owned()),
            Some(false) => serde_json::from_str(raw.trim()).unwrap_or_else(|_| raw.into()),
            None => match schema.and_then(|sc| crate::typing::property(sc, &key)) {
                Some(prop) => crate::typing::coerce(raw, prop),
                None => object_or_string(raw),
            },
        };
        call.arguments.insert(key, value);
        p = skip_ws(s, after);
    }
    if s[p..].starts_with(row.call_close) {
        Some((call, p + row.call_close.len()))
    } else {
        push_once(&mut call.repairs, "missing-close-tag");
        Some((call, p))
    }
}

/// A call whose text was escaped once more (GLM-4.6 raw output: `<tool_call>f\\n<arg_key>`
/// with literal `\\n` separators and `\\"` in the values): read from its text with those
/// escapes undone, marked `escaped-text`. The call ends at its closing tag, or where the
/// next call opens.
fn escaped_call(
    row: &ParamRow,
    s: &str,
    at: usize,
    ctx: &ScanContext,
    next: &mut scan::NextFind,
) -> Option<(Call, usize)> {
    let close = next
        .find(s, row.call_close, at)
        .map(|n| n + row.call_close.len());
    let reopen = next.find(s, row.call_open.before, at + row.call_open.before.len());
    let end = match (close, reopen) {
        (Some(c), Some(o)) => c.min(o),
        (c, o) => c.or(o).unwrap_or(s.len()),
    };
    let copy = unescape(&s[at..end], usize::MAX).0;
    let (name, _, _) = capture(&row.call_open, &copy, 0)?;
    if !scan::is_tool_name(name.trim()) {
        return None;
    }
    // Offsets in the copy are not the text's: the copy's reading says nothing about
    // where a longer text could read otherwise (the call's start already did).
    let inner = ScanContext {
        resume: None,
        ..*ctx
    };
    let (mut call, inner_end) = one_call(row, &copy, 0, &inner, &mut scan::NextFind::default())?;
    call.repairs.insert(0, "escaped-text");
    let end = if inner_end == copy.len() {
        end
    } else {
        // The copy is shorter than the text by every escape undone before the end.
        at + unescape(&s[at..end], inner_end).1
    };
    Some((call, end))
}

/// `text` with its escapes undone (`\\n`, `\\t`, `\\r`, `\\"`, `\\\\`, `\\/`; others kept),
/// up to where the copy reaches `upto` bytes: the copy, and the offset in `text` it
/// stopped at.
fn unescape(text: &str, upto: usize) -> (String, usize) {
    let mut copy = String::with_capacity(text.len().min(upto));
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if copy.len() >= upto {
            return (copy, i);
        }
        if c != '\\' {
            copy.push(c);
            continue;
        }
        match chars.peek().map(|&(_, e)| e) {
            Some('n') => copy.push('\n'),
            Some('t') => copy.push('\t'),
            Some('r') => copy.push('\r'),
            Some(e @ ('"' | '\\' | '/')) => copy.push(e),
            Some(other) => {
                copy.push('\\');
                copy.push(other);
            }
            None => {
                copy.push('\\');
                continue;
            }
        }
        chars.next();
    }
    (copy, text.len())
}

/// Whether a parameter's string attribute says its value is JSON.
fn json_marked(v: &str) -> bool {
    matches!(
        v,
        "false" | "integer" | "number" | "boolean" | "object" | "array" | "null"
    )
}

fn push_once(repairs: &mut Vec<&'static str>, repair: &'static str) {
    if !repairs.contains(&repair) {
        repairs.push(repair);
    }
}

/// The first parameter opening in `s[from..to]` that starts a line and names a key:
/// the value before it was never closed (`<parameter=a>\n1\n<parameter=b>`).
fn next_param(row: &ParamRow, s: &str, from: usize, to: usize) -> Option<usize> {
    let open = row.param_open.before;
    let mut at = from;
    while let Some(n) = memchr::memmem::find(&s.as_bytes()[at..to], open.as_bytes()) {
        let p = at + n;
        let line_start = s[..p].trim_end_matches([' ', '\t']).ends_with('\n');
        if line_start
            && p > from
            && let Some((key, _, _)) = capture(&row.param_open, s, p)
            && scan::is_tool_name(key.trim())
        {
            return Some(p);
        }
        at = p + open.len();
    }
    None
}

/// Where a value ends: the first closing tag after which only another parameter, the
/// end of the call, a wrapper's end, or nothing follows. A value may hold text that
/// looks like its own closing tag (code that writes XML); when the first closing tag
/// is not the chosen one the call is marked ambiguous. With no closing tag at all the
/// value runs to the end of the call (or the text).
/// Returns (value end, position after the close, ambiguous).
fn value_close(
    row: &ParamRow,
    s: &str,
    from: usize,
    next: &mut scan::NextFind,
) -> (usize, usize, bool) {
    let close = row.param_close;
    let first = next.find(s, close, from);
    // Whether a close is well formed depends on what follows it, not on where the
    // value started: one search serves every value up to the close it finds, so text
    // of values closed by no well-formed tag costs one pass, not one per value.
    let well_formed = next.find_first(row.name, from, |mut search| {
        let finder = memchr::memmem::Finder::new(close);
        while let Some(at) = finder.find(&s.as_bytes()[search..]).map(|n| search + n) {
            let rest = s[at + close.len()..].trim_start();
            let well_formed = rest.is_empty()
                || rest.starts_with(row.param_open.before)
                || rest.starts_with(row.call_close)
                || row
                    .wrappers
                    .iter()
                    .chain(row.outer)
                    .any(|(_, c)| rest.starts_with(c));
            if well_formed {
                return Some(at);
            }
            search = at + close.len();
        }
        None
    });
    if let Some(at) = well_formed {
        return (at, at + close.len(), Some(at) != first);
    }
    match first {
        Some(at) => (at, at + close.len(), false),
        None => {
            let end = next.find(s, row.call_close, from).unwrap_or(s.len());
            (end, end, false)
        }
    }
}

/// The value without the line breaks a template puts around it: one after the opening
/// tag and one before the closing tag, taken as a pair (a value written inline that
/// ends in a line break keeps it).
fn trim_template_breaks(v: &str) -> &str {
    let Some(v) = v.strip_prefix("\r\n").or_else(|| v.strip_prefix('\n')) else {
        return v;
    };
    v.strip_suffix("\r\n")
        .or_else(|| v.strip_suffix('\n'))
        .unwrap_or(v)
}

/// With no schema: a JSON object or array is read as JSON, anything else is a string.
fn object_or_string(raw: &str) -> Value {
    let t = raw.trim();
    if t.starts_with(['{', '['])
        && let Ok(v @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(t)
    {
        return v;
    }
    Value::String(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_offset_in_the_unescaped_copy_maps_back_to_the_text() {
        let text = "a\\nb\\\"€\\qz";
        assert_eq!(
            unescape(text, usize::MAX),
            ("a\nb\"€\\qz".to_string(), text.len())
        );
        // "a\nb" is 3 bytes of the copy and 4 of the text; "\"" one and two.
        assert_eq!(unescape(text, 3).1, 4);
        assert_eq!(unescape(text, 4).1, 6);
        // Past "€" (3 bytes in both), never inside it.
        assert_eq!(unescape(text, 5).1, 9);
        assert_eq!(unescape(text, 7).1, 9);
        for upto in 0..=12 {
            assert!(text.is_char_boundary(unescape(text, upto).1), "{upto}");
        }
    }

    fn scan_text(text: &str, tools: &[String]) -> Vec<Hit> {
        super::super::resolve(super::super::scan_for_test(&XML_PARAMS, text, tools, false))
    }

    fn args(h: &Hit) -> Value {
        Value::Object((*h.call.arguments).clone())
    }

    #[test]
    fn a_closing_tag_inside_a_value_is_resolved_by_what_follows() {
        let text = "<tool_call>\n<function=write>\n<parameter=code>\nprint('</parameter>')\n</parameter>\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>";
        let hits = scan_text(text, &[]);
        assert_eq!(hits.len(), 1);
        assert_eq!(
            args(&hits[0]),
            json!({"code": "print('</parameter>')", "n": "2"})
        );
        assert_eq!(hits[0].call.repairs, ["ambiguous-delimiter"]);
        assert_eq!((hits[0].start, hits[0].end), (0, text.len()));
    }

    #[test]
    fn wrappers_decide_the_dialect_and_hold_several_calls() {
        let hits = scan_text(
            "<seed:tool_call><function=a><parameter=x>1</parameter></function></seed:tool_call> <function=b></function>",
            &[],
        );
        let got: Vec<(&str, &str)> = hits
            .iter()
            .map(|h| (h.call.name.as_str(), h.call.dialect))
            .collect();
        assert_eq!(got, [("a", "seed-oss"), ("b", "qwen3-coder")]);
        let hits = scan_text(
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"p\">v</parameter>\n</invoke>\n<invoke name=\"g\">\n</invoke>\n</minimax:tool_call>",
            &[],
        );
        assert_eq!(hits.len(), 2);
        assert_eq!((hits[0].start, hits[0].end), (hits[1].start, hits[1].end));
    }

    #[test]
    fn glm_keys_and_values_and_typing() {
        let hits = scan_text(
            "<tool_call>calc<arg_key>n</arg_key><arg_value>3</arg_value><arg_key>opts</arg_key><arg_value>{\"a\": 1}</arg_value></tool_call>",
            &[],
        );
        assert_eq!(args(&hits[0]), json!({"n": "3", "opts": {"a": 1}}));
        assert!(scan_text("<tool_call>\n{\"name\": \"f\"}</tool_call>", &[]).is_empty());
    }

    #[test]
    fn dsml_string_attribute_types_values() {
        let hits = scan_text(
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"s\" string=\"true\">3</｜DSML｜parameter><｜DSML｜parameter name=\"n\" string=\"false\">3</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
            &[],
        );
        assert_eq!(args(&hits[0]), json!({"s": "3", "n": 3}));
    }

    #[test]
    fn attributes_after_the_quote_and_type_names_decide_json() {
        let hits = scan_text(
            "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"s\" type=\"string\"<|sep|>3<|close|>argument<|sep|><|open|>argument key=\"n\" type=\"integer\"<|sep|>3<|close|>argument<|sep|><|open|>argument key=\"bad\" type=\"object\"<|sep|>{oops<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
            &[],
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.dialect, "kimi-k3");
        assert_eq!(args(&hits[0]), json!({"s": "3", "n": 3, "bad": "{oops"}));
        assert!(hits[0].call.repairs.is_empty());
    }

    #[test]
    fn a_name_line_before_json_is_not_a_glm_call() {
        assert!(scan_text("<tool_call>f\n{\"a\": 1}\n</tool_call>", &[]).is_empty());
    }

    /// A call of `row` with the given parameters, written in the row's own syntax.
    fn written(row: &ParamRow, params: &[(&str, &str, bool)]) -> String {
        let after = if row.call_open.after.is_empty() {
            "\n"
        } else {
            row.call_open.after
        };
        let mut t = format!("{}f{after}\n", row.call_open.before);
        for (key, value, closed) in params {
            t += &format!(
                "{}{key}{}{}{value}{}\n",
                row.param_open.before,
                row.param_open.after,
                row.value_open,
                if *closed { row.param_close } else { "" }
            );
        }
        t += row.call_close;
        match row.wrappers.first() {
            Some((open, close)) => format!("{open}{t}{close}"),
            None => t,
        }
    }

    #[test]
    fn every_row_keeps_a_values_line_breaks_unless_its_template_wraps_it() {
        for row in ROWS {
            let code = "def f():\n    return 1\n";
            let hits = scan_text(&written(row, &[("code", code, true)]), &[]);
            assert_eq!(hits.len(), 1, "{}", row.name);
            assert_eq!(hits[0].call.dialect, row.name);
            assert_eq!(hits[0].call.arguments["code"], code, "{}", row.name);
            let hits = scan_text(&written(row, &[("city", "\nParis\n", true)]), &[]);
            let want = if row.value_newlines {
                "Paris"
            } else {
                "\nParis\n"
            };
            assert_eq!(hits[0].call.arguments["city"], want, "{}", row.name);
        }
    }

    #[test]
    fn every_row_ends_an_unclosed_value_at_the_next_parameter() {
        for row in ROWS {
            let text = written(row, &[("city", "Dallas", false), ("state", "TX", true)]);
            let hits = scan_text(&text, &[]);
            assert_eq!(hits.len(), 1, "{}: {text}", row.name);
            assert_eq!(
                args(&hits[0]),
                json!({"city": "Dallas\n", "state": "TX"}),
                "{}",
                row.name
            );
            assert_eq!(hits[0].call.repairs, ["missing-close-tag"], "{}", row.name);
        }
    }

    #[test]
    fn a_truncated_call_is_kept_and_marked() {
        let hits = scan_text(
            "<function=f><parameter=a>1</parameter><parameter=b>par",
            &[],
        );
        assert_eq!(args(&hits[0]), json!({"a": "1", "b": "par"}));
        assert_eq!(hits[0].call.repairs, ["missing-close-tag"]);
    }
}
