//! The json channel's bare JSON: every top-level JSON value in the text (fenced or not)
//! that has a call shape, plus UICP's `emit_batch({...})` call syntax.

use super::{Channel, DialectRow, GENERIC, Hit, MARKED, ScanContext, Scanner, shapes};
use crate::model::{Call, Text};
use crate::scan;
use memchr::memmem;
use std::sync::OnceLock;

pub(crate) struct JsonText;
pub(crate) static JSON_TEXT: JsonText = JsonText;

pub(crate) const UICP_CALL: &str = "uicp-call";

impl Scanner for JsonText {
    fn channel(&self) -> Channel {
        Channel::Json
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        let mut rows: Vec<DialectRow> = shapes::ROWS
            .iter()
            .map(|r| DialectRow::new(r.name, Channel::Json, r.summary, r.example).models(r.models))
            .collect();
        rows.push(DialectRow::new(
            UICP_CALL,
            Channel::Json,
            "UICP emit_batch({...}) / emit_plan({...}) call syntax",
            r#"emit_batch({"batch": [{"op": "dom.set", "params": {"html": "<p>Hi</p>"}}]})"#,
        ));
        rows
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let s = text.text.as_str();
        // Blocks of JSON between markers found already (a Hermes block) are passed over:
        // their values are inside a marked call, and would lose to it.
        let mut balanced: Vec<(usize, usize)> = out
            .iter()
            .filter(|h| h.balanced)
            .map(|h| (h.start, h.end))
            .collect();
        balanced.sort_unstable();
        balanced.dedup();
        let (values, open, ended_at_breaks) =
            scan::json_values_skipping(s, Some(&text.openers().json), &balanced);
        if let Some(resume) = ctx.resume {
            // A value still open could close past the end; a closed one is read alike
            // whatever follows, and the next window must not start inside it, nor inside
            // one ended at a line break only because of what was inside it.
            if let Some(open) = open {
                resume.unsettled_from(open);
            }
            for found in values.iter().filter(|f| !f.unclosed) {
                resume.span(found.start, found.end);
            }
            for &(start, end) in &ended_at_breaks {
                resume.span(start, end);
            }
        }
        // Values inside a marked call found already (a Hermes block) would lose to it:
        // they are not parsed a second time.
        let mut marked: Vec<(usize, usize)> = out
            .iter()
            .filter(|h| h.specificity == MARKED)
            .map(|h| (h.start, h.end))
            .collect();
        marked.sort_unstable();
        let inside = |start: usize, end: usize| {
            let i = marked.partition_point(|&(a, _)| a <= start);
            i > 0 && marked[i - 1].1 >= end
        };
        // The end of a value that could not be read and whose inside was read.
        let mut covered = 0;
        for found in &values {
            if inside(found.start, found.end) || found.start < covered {
                continue;
            }
            let slice = &s[found.start..found.end];
            // UICP's call syntax: the object is the argument of emit_batch( / emit_plan(.
            if let Some((name, at)) = uicp_call_before(s, found.start) {
                let mut call = Call::new(name, UICP_CALL, text.line_at(at));
                let read = scan::with_json(slice, ctx.strict, |root, repairs| {
                    shapes::set_args(&mut call, Some(root));
                    call.repairs.extend(repairs);
                });
                if read.is_err() {
                    continue;
                }
                let after = &s[found.end..];
                let rest = after.trim_start();
                let end = if rest.starts_with(')') {
                    found.end + (after.len() - rest.len()) + 1
                } else {
                    found.end
                };
                out.push(Hit {
                    call,
                    start: at,
                    end,
                    balanced: false,
                    specificity: MARKED,
                });
                continue;
            }
            for (mut call, span) in calls_in_json_spans(slice, ctx.strict, found.call_keys) {
                let (start, end) = match span {
                    Some((a, b)) => {
                        // The values inside were read with it.
                        covered = covered.max(found.end);
                        (found.start + a, found.start + b)
                    }
                    None => (found.start, found.end),
                };
                call.line = text.line_at(start);
                out.push(Hit {
                    call,
                    start,
                    end,
                    balanced: false,
                    specificity: GENERIC,
                });
            }
        }
    }
}

/// `emit_batch(` or `emit_plan(` right before `start` (white space allowed): the name
/// and where the call starts.
fn uicp_call_before(s: &str, start: usize) -> Option<(&'static str, usize)> {
    let before = s[..start].trim_end().strip_suffix('(')?.trim_end();
    ["emit_batch", "emit_plan"]
        .into_iter()
        .find(|name| before.ends_with(name))
        .map(|name| (name, before.len() - name.len()))
}

/// Every call shape has one of these words among its keys: JSON without them (configs,
/// examples, code) is passed over without being parsed. A `name` alone is not enough:
/// it needs its arguments beside it.
fn may_hold_call(slice: &str) -> bool {
    static WORDS: OnceLock<[memmem::Finder<'static>; 9]> = OnceLock::new();
    let [
        tool,
        event,
        function,
        batch,
        name,
        arguments,
        parameters,
        args,
        input,
    ] = WORDS.get_or_init(|| {
        [
            "tool",
            "event",
            "function",
            "batch",
            "name",
            "argument",
            "parameters",
            "args",
            "input",
        ]
        .map(memmem::Finder::new)
    });
    // Keys are quoted: code and number lists are rejected by one search.
    if memchr::memchr2(b'"', b'\'', slice.as_bytes()).is_none() {
        return false;
    }
    let has = |f: &memmem::Finder| f.find(slice.as_bytes()).is_some();
    has(tool)
        || has(event)
        || has(function)
        || has(batch)
        || (has(name) && (has(arguments) || has(parameters) || has(args) || has(input)))
}

/// The calls of one JSON text: parsed with repairs (named in each call), or, with
/// `strict`, reported invalid when a repair would have been needed.
pub(crate) fn calls_in_json(slice: &str, strict: bool) -> Vec<Call> {
    calls_in_json_hinted(slice, strict, None)
}

/// [`calls_in_json`], told by the scan whether the value's double-quoted strings hold a
/// call key. Single-quoted (Python-literal) keys are not seen by the scan: a value with
/// a `'` is checked again.
pub(crate) fn calls_in_json_hinted(
    slice: &str,
    strict: bool,
    call_keys: Option<bool>,
) -> Vec<Call> {
    calls_in_json_spans(slice, strict, call_keys)
        .into_iter()
        .map(|(call, _)| call)
        .collect()
}

/// [`calls_in_json_hinted`], each call with its own span in `slice` when it is not the
/// whole: the calls whole inside a value that cannot be read, and that value's call,
/// which ends where the first of them starts.
fn calls_in_json_spans(
    slice: &str,
    strict: bool,
    call_keys: Option<bool>,
) -> Vec<(Call, Option<(usize, usize)>)> {
    let may = match call_keys {
        Some(true) => true,
        Some(false) => memchr::memchr(b'\'', slice.as_bytes()).is_some() && may_hold_call(slice),
        None => may_hold_call(slice),
    };
    if !may {
        return Vec::new();
    }
    let read = scan::with_json(slice, false, |root, repairs| {
        (shapes::calls(root, None), repairs)
    });
    let Ok((mut calls, repairs)) = read else {
        // Not JSON even with repairs, yet it names a call: report it, never drop it, and
        // the calls that are whole inside it (a model that restarts a call midway).
        let mut inner = Vec::new();
        inner_calls(slice, 0, strict, 0, &mut inner);
        let outer_end = inner.first().map_or(slice.len(), |(_, (start, _))| *start);
        let mut out: Vec<(Call, Option<(usize, usize)>)> = unreadable_call(slice)
            .into_iter()
            .map(|call| (call, (outer_end < slice.len()).then_some((0, outer_end))))
            .collect();
        out.extend(inner.into_iter().map(|(call, span)| (call, Some(span))));
        return out;
    };
    for call in &mut calls {
        if repairs.is_empty() {
            continue;
        }
        if strict {
            call.arguments.clear();
            call.arguments_raw = Some(slice.to_owned());
            call.errors.push(format!(
                "needs a repair ({}), and --strict allows none",
                repairs.join(", ")
            ));
        } else {
            call.repairs.extend(repairs.iter().copied());
        }
    }
    calls.into_iter().map(|call| (call, None)).collect()
}

/// How deep [`inner_calls`] looks into values that cannot be read.
const MAX_INNER_DEPTH: usize = 4;

/// The calls of the values inside `slice` (a value that cannot be read, at `offset` of
/// the outermost), each read on its own, with their spans; a value inside that cannot
/// be read either is looked into in turn.
fn inner_calls(
    slice: &str,
    offset: usize,
    strict: bool,
    depth: usize,
    out: &mut Vec<(Call, (usize, usize))>,
) {
    if depth >= MAX_INNER_DEPTH {
        return;
    }
    let inside = &slice[1..];
    for found in scan::json_values(inside) {
        if found.unclosed {
            continue;
        }
        let value = &inside[found.start..found.end];
        if !may_hold_call(value) {
            continue;
        }
        let at = offset + 1 + found.start;
        let read = scan::with_json(value, false, |root, repairs| {
            (shapes::calls(root, None), repairs)
        });
        match read {
            Ok((calls, repairs)) => {
                for mut call in calls {
                    if strict && !repairs.is_empty() {
                        let error = format!(
                            "needs a repair ({}), and --strict allows none",
                            repairs.join(", ")
                        );
                        call.invalid_arguments(value, &error);
                    } else {
                        call.repairs.extend(repairs.iter().copied());
                    }
                    out.push((call, (at, at + value.len())));
                }
            }
            Err(_) => inner_calls(value, at, strict, depth + 1, out),
        }
    }
}

/// A call whose JSON cannot be read: `{"name": "f", "arguments": …` with broken JSON
/// after it. Named from its `name` (or `tool`) key, invalid, with its raw text.
fn unreadable_call(slice: &str) -> Option<Call> {
    let has_arguments = ["\"arguments\"", "\"parameters\"", "\"params\"", "\"input\""]
        .iter()
        .any(|k| slice.contains(k));
    if !has_arguments {
        return None;
    }
    let name = ["\"name\"", "\"tool\""].iter().find_map(|key| {
        let after = &slice[slice.find(key)? + key.len()..];
        let value = after
            .trim_start()
            .strip_prefix(':')?
            .trim_start()
            .strip_prefix('"')?;
        let name = &value[..value.find('"')?];
        scan::is_tool_name(name).then_some(name)
    })?;
    let mut call = Call::new(name, shapes::NAME_ARGUMENTS, 0);
    let error = scan::with_json(slice, true, |_, _| ())
        .err()
        .unwrap_or_default();
    call.invalid_arguments(slice, &format!("the call is not valid JSON: {error}"));
    Some(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_open_at_the_end_is_unsettled_and_closed_ones_are_spans() {
        let text = "{\"a\": 1}\nprose {\"name\": \"f\", \"arguments\": {\"b\": [1]";
        let (unsettled, spans) = super::super::resume_for_test(&JSON_TEXT, text);
        assert_eq!(unsettled, Some(15));
        // The value inside the open one is listed too: it counts while its opener is open.
        assert_eq!(spans, [(0, 8), (48, 51)]);
        let (unsettled, _) =
            super::super::resume_for_test(&JSON_TEXT, "{\"a\": 1} and {\"b\": 2}\n");
        assert_eq!(unsettled, None);
    }

    pub(crate) fn scan_text(text: &str, strict: bool) -> Vec<Hit> {
        super::super::resolve(super::super::scan_for_test(&JSON_TEXT, text, &[], strict))
    }

    #[test]
    fn calls_in_prose_and_examples_that_are_not() {
        let text = "Config: {\"example\": \"nested_json\"}\nNow: {\"name\": \"f\", \"arguments\": {\"s\": \"a { b\"}}{\"name\": \"g\", \"arguments\": {}}\n";
        let hits = scan_text(text, false);
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
        assert_eq!(hits[0].call.line, 2);
    }

    #[test]
    fn uicp_call_syntax() {
        let hits = scan_text(
            "emit_batch({\"batch\":[{\"method\":\"dom.set\",\"params\":{}}]})",
            false,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].call.name.as_str(), hits[0].call.dialect),
            ("emit_batch", UICP_CALL)
        );
    }

    #[test]
    fn strict_refuses_repairs() {
        let text = "{\"name\": \"f\", \"arguments\": {\"a\": 1,}}";
        let lenient = scan_text(text, false);
        assert_eq!(lenient[0].call.repairs, ["trailing-comma"]);
        let strict = scan_text(text, true);
        assert!(!strict[0].call.is_valid());
        assert_eq!(strict[0].call.arguments_raw.as_deref(), Some(text));
    }

    #[test]
    fn a_call_that_cannot_be_read_is_still_reported() {
        let text = "Calling {\"name\": \"deploy\", \"arguments\": {\"env\": \"prod\" \"force\": true}} now";
        let hits = scan_text(text, false);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.name, "deploy");
        assert!(!hits[0].call.is_valid());
        assert!(
            hits[0]
                .call
                .arguments_raw
                .as_deref()
                .unwrap()
                .contains("\"force\": true")
        );
    }

    #[test]
    fn arguments_are_copied_as_compact_text() {
        let text = "Now: {\"name\": \"f\", \"arguments\": {\"b\": 1.50, \"a\": [\"\\u00e9\", {}]}}";
        let hits = scan_text(text, false);
        assert_eq!(hits.len(), 1);
        // Read from the JSON tape and written compact without building a map; the
        // number as written.
        assert_eq!(
            hits[0].call.arguments.compact(),
            Some(r#"{"b":1.50,"a":["é",{}]}"#)
        );
    }

    #[test]
    fn arguments_too_deep_or_unreadable_make_the_call_invalid() {
        let deep = format!(
            "{{\"name\": \"f\", \"arguments\": {}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        // Half a surrogate pair reads as U+FFFD: as the whole arguments string, that is
        // not JSON.
        let string = r#"{"name": "h", "arguments": "\ud800"}"#.to_owned();
        let openai = r#"{"function": {"name": "k", "arguments": "\udc00"}}"#.to_owned();
        for (text, name) in [(deep, "f"), (string, "h"), (openai, "k")] {
            let hits = scan_text(&text, false);
            assert_eq!(hits.len(), 1, "{text}");
            let call = &hits[0].call;
            assert_eq!(call.name, name);
            assert!(!call.is_valid());
            assert!(call.errors[0].starts_with("arguments are not valid JSON"));
            let raw = call.arguments_raw.as_deref().unwrap();
            assert!(text.contains(raw) || raw == "\u{fffd}", "{raw}");
        }
        // Inside an arguments object, it is one character of a value.
        let hits = scan_text(r#"{"name": "g", "arguments": {"s": "\ud800!"}}"#, false);
        assert!(hits[0].call.is_valid());
        assert_eq!(hits[0].call.arguments["s"], "\u{fffd}!");
    }

    #[test]
    fn a_whole_call_inside_one_that_cannot_be_read_is_recovered() {
        for (text, inner) in [
            (
                r#"{"name": "f", "parameters": {{"name": "f", "parameters": {}}"#,
                "f",
            ),
            (
                r#"x {"name": "f", "parameters": {{"name": "g", "parameters": {"a": 1}}} y"#,
                "g",
            ),
        ] {
            let hits = scan_text(text, false);
            let got: Vec<(&str, bool)> = hits
                .iter()
                .map(|h| (h.call.name.as_str(), h.call.is_valid()))
                .collect();
            assert_eq!(got, [("f", false), (inner, true)], "{text}");
        }
    }

    #[test]
    fn unclosed_call_at_the_end_is_closed() {
        let hits = scan_text(
            "Calling now: {\"name\": \"f\", \"arguments\": {\"a\": \"b",
            false,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.repairs, ["unclosed-brace"]);
    }
}
