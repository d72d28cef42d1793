//! The json channel's bare JSON: every top-level JSON value in the text (fenced or not)
//! that has a call shape, plus UICP's `emit_batch({...})` call syntax.

use super::{Channel, DialectRow, GENERIC, Hit, MARKED, ScanContext, Scanner, shapes};
use crate::model::{Call, Text};
use crate::scan;
use memchr::memmem;

pub struct JsonText;
pub static JSON_TEXT: JsonText = JsonText;

pub const UICP_CALL: &str = "uicp-call";

impl Scanner for JsonText {
    fn channel(&self) -> Channel {
        Channel::Json
    }

    fn rows(&self) -> Vec<DialectRow> {
        let mut rows: Vec<DialectRow> = shapes::ROWS
            .iter()
            .map(|r| DialectRow::new(r.name, Channel::Json, r.summary, r.example))
            .collect();
        rows.push(DialectRow::new(
            UICP_CALL,
            Channel::Json,
            "UICP emit_batch({...}) / emit_plan({...}) call syntax",
            r#"emit_batch({"batch": [{"op": "dom.set", "params": {"html": "<p>Hi</p>"}}]})"#,
        ));
        rows
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let s = text.text.as_str();
        for found in scan::json_values(s) {
            let slice = &s[found.start..found.end];
            for call in calls_in_json(slice, ctx.strict) {
                let mut call = call;
                call.line = text.line_at(found.start);
                out.push(Hit {
                    call,
                    start: found.start,
                    end: found.end,
                    specificity: GENERIC,
                });
            }
        }
        for name in ["emit_batch", "emit_plan"] {
            let mut from = 0;
            while let Some(off) = memmem::find(&s.as_bytes()[from..], name.as_bytes()) {
                let at = from + off;
                from = at + name.len();
                let rest = &s[from..];
                let Some(paren) = rest.strip_prefix('(') else {
                    continue;
                };
                let lead = paren.len() - paren.trim_start().len();
                let open = from + 1 + lead;
                if !s[open..].starts_with('{') {
                    continue;
                }
                let Some(json_end) = scan::balanced_end(s, open) else {
                    continue;
                };
                let after = &s[json_end..];
                let rest = after.trim_start();
                let end = if rest.starts_with(')') {
                    json_end + (after.len() - rest.len()) + 1
                } else {
                    json_end
                };
                let Ok(parsed) = scan::parse_json(&s[open..json_end], ctx.strict) else {
                    continue;
                };
                let mut call = Call::new(name, UICP_CALL, text.line_at(at));
                shapes::set_args(&mut call, Some(&parsed.value));
                call.repairs.extend(parsed.repairs);
                out.push(Hit {
                    call,
                    start: at,
                    end,
                    specificity: MARKED,
                });
            }
        }
    }
}

/// The calls of one JSON text: parsed with repairs (named in each call), or, with
/// `strict`, reported invalid when a repair would have been needed.
pub fn calls_in_json(slice: &str, strict: bool) -> Vec<Call> {
    let Ok(parsed) = scan::parse_json(slice, false) else {
        return Vec::new();
    };
    let mut calls = shapes::calls(&parsed.value, None);
    for call in &mut calls {
        if parsed.repairs.is_empty() {
            continue;
        }
        if strict {
            call.arguments.clear();
            call.arguments_raw = Some(slice.to_owned());
            call.errors.push(format!(
                "needs a repair ({}), and --strict allows none",
                parsed.repairs.join(", ")
            ));
        } else {
            call.repairs.extend(parsed.repairs.iter().copied());
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Role, Turn};

    pub fn scan_text(text: &str, strict: bool) -> Vec<Hit> {
        let turn = Turn::new(Role::Assistant, 1);
        let ctx = ScanContext {
            turn: &turn,
            tools: &[],
            strict,
            selected: None,
        };
        let t = Text {
            text: text.into(),
            line: 1,
            reasoning: false,
            raw: true,
        };
        let mut out = Vec::new();
        JSON_TEXT.scan(&t, &ctx, &mut out);
        super::super::resolve(out)
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
    fn unclosed_call_at_the_end_is_closed() {
        let hits = scan_text(
            "Calling now: {\"name\": \"f\", \"arguments\": {\"a\": \"b",
            false,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.repairs, ["unclosed-brace"]);
    }
}
