//! MiniMax-M3 tool calls: every structural tag carries the namespace marker
//! `]<]minimax[>[`, an `<invoke name="f">` holds one element per argument, named after
//! the key, and elements nest to write objects and arrays (an array's elements are
//! `<item>`s):
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="book">
//! ]<]minimax[>[<city>Lyon]<]minimax[>[</city>
//! ]<]minimax[>[<guests>]<]minimax[>[<item>Ana]<]minimax[>[</item>]<]minimax[>[</guests>
//! ]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Keys are element names, so the XML-parameter family (a fixed parameter tag with the
//! key inside it) cannot read it. Leaf values are the text between the tags, typed by
//! the `--tools` schema when there is one and otherwise strings (a JSON object or array
//! written as text is read as JSON, as in the XML-parameter family).

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::scan;
use crate::scan::skip_ws;
use memchr::memmem;
use serde_json::{Map, Value};

pub(crate) const NAME: &str = "minimax-m3";

const NS: &str = "]<]minimax[>[";
const BLOCK_OPEN: &str = "]<]minimax[>[<tool_call>";
const BLOCK_CLOSE: &str = "]<]minimax[>[</tool_call>";
const INVOKE_OPEN: &str = "]<]minimax[>[<invoke";
const INVOKE_CLOSE: &str = "]<]minimax[>[</invoke>";
const ELEMENT_OPEN: &str = "]<]minimax[>[<";
const ELEMENT_CLOSE: &str = "]<]minimax[>[</";

/// Nesting deeper than this is not read as elements (the text stays a value).
const MAX_DEPTH: usize = 32;
/// The longest an element's or invoke's tag may be.
const MAX_TAG: usize = 256;

pub(crate) struct MinimaxM3;
pub(crate) static MINIMAX_M3: MinimaxM3 = MinimaxM3;

impl Scanner for MinimaxM3 {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![
            DialectRow::new(
                NAME,
                Channel::Text,
                "]<]minimax[>[ before every tag: <tool_call><invoke name=\"f\"> with one element per argument, named after the key (nested for objects, <item> for arrays)",
                "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">\n]<]minimax[>[<city>Paris]<]minimax[>[</city>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
            )
            .models("MiniMax-M3"),
        ]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let finder = memmem::Finder::new(NS);
        let mut from = 0;
        while let Some(n) = finder.find(&s.as_bytes()[from..]) {
            let at = from + n;
            let rest = &s[at..];
            let found = if rest.starts_with(BLOCK_OPEN) {
                ctx.candidate(at);
                block(s, at, ctx)
            } else if rest.starts_with(INVOKE_OPEN) {
                ctx.candidate(at);
                invoke(s, at, ctx).map(|(call, end)| (vec![call], end))
            } else {
                None
            };
            let Some((calls, end)) = found else {
                from = at + NS.len();
                continue;
            };
            for mut call in calls {
                call.line = text.line_at(at);
                out.push(Hit {
                    call,
                    start: at,
                    end,
                    balanced: false,
                    specificity: MARKED,
                });
            }
            from = end.max(at + NS.len());
        }
    }
}

/// The invokes of a `<tool_call>` block at `at`, and where the block ends.
fn block(s: &str, at: usize, ctx: &ScanContext) -> Option<(Vec<Call>, usize)> {
    let mut p = skip_ws(s, at + BLOCK_OPEN.len());
    let mut calls = Vec::new();
    while s[p..].starts_with(INVOKE_OPEN) {
        let (call, end) = invoke(s, p, ctx)?;
        calls.push(call);
        p = skip_ws(s, end);
    }
    if calls.is_empty() {
        return None;
    }
    if s[p..].starts_with(BLOCK_CLOSE) {
        return Some((calls, p + BLOCK_CLOSE.len()));
    }
    for call in &mut calls {
        push_once(&mut call.repairs, "missing-close-tag");
    }
    Some((calls, p))
}

/// One `<invoke name="f">…</invoke>` at `at`, and where it ends.
fn invoke(s: &str, at: usize, ctx: &ScanContext) -> Option<(Call, usize)> {
    let head = at + INVOKE_OPEN.len();
    if !s[head..].starts_with([' ', '\t']) {
        return None;
    }
    let window = &s.as_bytes()[head..(head + MAX_TAG).min(s.len())];
    let gt = memchr::memchr(b'>', window)?;
    let attrs = &s[head..head + gt];
    if attrs.contains(['<', '\n']) {
        return None;
    }
    let name = scan::attribute(attrs, "name")?.trim();
    if !scan::is_tool_name(name) {
        return None;
    }
    let declared = ctx.declared(name);
    let schema = declared.and_then(|n| ctx.schema(n));
    let mut call = Call::new(declared.unwrap_or(name), NAME, 0);
    let mut members: Vec<(String, Node)> = Vec::new();
    let mut p = head + gt + 1;
    let end = loop {
        let q = skip_ws(s, p);
        if s[q..].starts_with(INVOKE_CLOSE) {
            break q + INVOKE_CLOSE.len();
        }
        match element(s, q, 0, &mut call.repairs) {
            Some((key, node, after)) => {
                members.push((key, node));
                p = after;
            }
            // Text, another invoke, the block's end, or the end of the text: the
            // invoke was cut off here.
            None => {
                push_once(&mut call.repairs, "missing-close-tag");
                break q;
            }
        }
    };
    let mut args = Map::new();
    for (key, node) in members {
        let value = to_json(node, schema.and_then(|sc| property(sc, &key)));
        insert(&mut args, key, value);
    }
    call.arguments = args.into();
    Some((call, end))
}

/// An element's content: text, or child elements (with the text between them).
enum Node {
    Text(String),
    Children(Vec<(String, Node)>, String),
}

/// The element at `at` (`]<]minimax[>[<key>`), and where it ends. An element that is
/// never closed ends where its parent's close (or the text) begins, and is marked.
fn element(
    s: &str,
    at: usize,
    depth: usize,
    repairs: &mut Vec<&'static str>,
) -> Option<(String, Node, usize)> {
    if depth > MAX_DEPTH || !s[at..].starts_with(ELEMENT_OPEN) || s[at..].starts_with(ELEMENT_CLOSE)
    {
        return None;
    }
    let head = at + ELEMENT_OPEN.len();
    let window = &s.as_bytes()[head..(head + MAX_TAG).min(s.len())];
    let gt = memchr::memchr(b'>', window)?;
    let key = &s[head..head + gt];
    if !is_key(key) {
        return None;
    }
    let close = format!("{ELEMENT_CLOSE}{key}>");
    let mut p = head + gt + 1;
    let mut text = String::new();
    let mut children = Vec::new();
    loop {
        let Some(n) = memmem::find(&s.as_bytes()[p..], NS.as_bytes()) else {
            // Cut off: the rest of the text is the value.
            text.push_str(&s[p..]);
            push_once(repairs, "missing-close-tag");
            return Some((key.to_owned(), node(text, children), s.len()));
        };
        text.push_str(&s[p..p + n]);
        p += n;
        if s[p..].starts_with(&close) {
            return Some((key.to_owned(), node(text, children), p + close.len()));
        }
        if s[p..].starts_with(ELEMENT_CLOSE) {
            // Another element's close (the parent's, the invoke's): this one was
            // never closed.
            push_once(repairs, "missing-close-tag");
            return Some((key.to_owned(), node(text, children), p));
        }
        match element(s, p, depth + 1, repairs) {
            Some((child, value, end)) => {
                children.push((child, value));
                p = end;
            }
            // The marker before something that is not a tag: part of the value.
            None => {
                text.push_str(NS);
                p += NS.len();
            }
        }
    }
}

/// An element name: a key, not a closing tag or text with markup.
fn is_key(key: &str) -> bool {
    !key.is_empty()
        && !key.starts_with('/')
        && !key.contains(['<', '>', '\n', ' ', '"'])
        && key.len() <= 128
}

fn node(text: String, children: Vec<(String, Node)>) -> Node {
    if children.is_empty() {
        Node::Text(text)
    } else {
        Node::Children(children, text)
    }
}

/// A member added to an object; a key written twice collects its values in an array
/// (as the servers' M3 parsers do).
fn insert(map: &mut Map<String, Value>, key: String, value: Value) {
    match map.get_mut(&key) {
        Some(Value::Array(items)) => items.push(value),
        Some(existing) => {
            let first = existing.take();
            *existing = Value::Array(vec![first, value]);
        }
        None => {
            map.insert(key, value);
        }
    }
}

fn schema_type(schema: Option<&Value>) -> Option<&str> {
    schema?.get("type")?.as_str()
}

/// The schema of member `key` under an object schema (or one of its `anyOf`/`oneOf`/
/// `allOf` branches, or its `additionalProperties`).
fn property<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    if let Some(p) = crate::typing::property(schema, key) {
        return Some(p);
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(p) = property(branch, key) {
                return Some(p);
            }
        }
    }
    schema.get("additionalProperties").filter(|a| a.is_object())
}

/// An element's value: a leaf typed by its schema (a string without one), children as
/// an array when the schema says array or, without a schema, when every child is an
/// `<item>`; as an object otherwise.
fn to_json(node: Node, schema: Option<&Value>) -> Value {
    match node {
        Node::Text(raw) => match schema {
            Some(sc) if raw.trim().is_empty() && schema_type(Some(sc)) == Some("array") => {
                Value::Array(Vec::new())
            }
            Some(sc) if raw.trim().is_empty() && schema_type(Some(sc)) == Some("object") => {
                Value::Object(Map::new())
            }
            Some(sc) => crate::typing::coerce(&raw, sc),
            None => object_or_string(&raw),
        },
        Node::Children(children, text) => {
            let as_array = match schema_type(schema) {
                Some(t) => t == "array",
                None => schema.is_none() && children.iter().all(|(k, _)| k == "item"),
            };
            if as_array {
                let items = schema.and_then(|sc| sc.get("items"));
                return Value::Array(
                    children
                        .into_iter()
                        .map(|(_, v)| to_json(v, items))
                        .collect(),
                );
            }
            let mut map = Map::new();
            for (key, child) in children {
                let child_schema = schema.and_then(|sc| property(sc, &key));
                let value = to_json(child, child_schema);
                insert(&mut map, key, value);
            }
            // Text between the children is kept, not dropped.
            if !text.trim().is_empty() {
                let mut key = "$text".to_owned();
                while map.contains_key(&key) {
                    key.insert(0, '$');
                }
                map.insert(key, Value::String(text));
            }
            Value::Object(map)
        }
    }
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

fn push_once(repairs: &mut Vec<&'static str>, repair: &'static str) {
    if !repairs.contains(&repair) {
        repairs.push(repair);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&MINIMAX_M3, text, &[], false)
    }

    fn args(h: &Hit) -> Value {
        Value::Object((*h.call.arguments).clone())
    }

    fn m(tag: &str) -> String {
        format!("{NS}{tag}")
    }

    #[test]
    fn nested_elements_are_objects_and_items_are_arrays() {
        let text = format!(
            "Booking.\n{}\n{}\n{}Lyon{}\n{}{}4{}{}\n{}{}Ana{}{}Bo{}{}\n{}\n{}",
            m("<tool_call>"),
            m("<invoke name=\"book\">"),
            m("<city>"),
            m("</city>"),
            m("<room>"),
            m("<beds>"),
            m("</beds>"),
            m("</room>"),
            m("<guests>"),
            m("<item>"),
            m("</item>"),
            m("<item>"),
            m("</item>"),
            m("</guests>"),
            m("</invoke>"),
            m("</tool_call>"),
        );
        let hits = scan_text(&text);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.name, "book");
        assert_eq!(
            args(&hits[0]),
            json!({"city": "Lyon", "room": {"beds": "4"}, "guests": ["Ana", "Bo"]})
        );
        assert!(hits[0].call.repairs.is_empty());
        assert_eq!((hits[0].start, hits[0].end), (9, text.len()));
    }

    #[test]
    fn several_invokes_share_the_block() {
        let text = format!(
            "{}{}{}{}{}",
            m("<tool_call>"),
            m("<invoke name=\"a\">"),
            m("</invoke>"),
            m("<invoke name=\"b\">"),
            m("</invoke>") + &m("</tool_call>"),
        );
        let hits = scan_text(&text);
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(hits[0].end, hits[1].end);
    }

    #[test]
    fn a_truncated_call_is_kept_and_marked() {
        let text = format!(
            "{}{}{}Par",
            m("<tool_call>"),
            m("<invoke name=\"get_weather\">"),
            m("<city>")
        );
        let hits = scan_text(&text);
        assert_eq!(args(&hits[0]), json!({"city": "Par"}));
        assert_eq!(hits[0].call.repairs, ["missing-close-tag"]);
    }

    #[test]
    fn a_value_keeps_markup_that_is_not_a_tag() {
        let text = format!(
            "{}{}if a < b {NS} c</b>{}{}",
            m("<invoke name=\"f\">"),
            m("<expr>"),
            m("</expr>"),
            m("</invoke>"),
        );
        let hits = scan_text(&text);
        assert_eq!(
            args(&hits[0]),
            json!({"expr": format!("if a < b {NS} c</b>")})
        );
    }

    #[test]
    fn prose_naming_the_marker_is_not_a_call() {
        for t in [
            "the ]<]minimax[>[ marker",
            "]<]minimax[>[<tool_call> then text",
            "]<]minimax[>[<invoke>",
        ] {
            assert!(scan_text(t).is_empty(), "{t}");
        }
    }
}
