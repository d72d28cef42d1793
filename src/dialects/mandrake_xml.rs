//! Mandrake's legacy XML calls: `<tool_call>` holding `<server>`/`<method>` (early
//! builds: `<server_name>`/`<method_name>`), an optional `<description>` and
//! `<arguments>` with raw JSON. Nothing in it is XML-escaped: contents are raw text.
//! The history repeats a call (as the model wrote it, then formatted): an identical
//! call right after another, with only white space between, is that copy.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner, shapes};
use crate::model::{Call, Text};
use crate::scan;
use memchr::memmem;

pub(crate) const NAME: &str = "mandrake-xml";
const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

pub(crate) struct MandrakeXml;
pub(crate) static MANDRAKE_XML: MandrakeXml = MandrakeXml;

impl Scanner for MandrakeXml {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![DialectRow::new(
            NAME,
            Channel::Text,
            "Mandrake legacy XML <tool_call> with <server>, <method> and raw-JSON <arguments>; name server.method",
            "<tool_call>\n<server>ripper</server>\n<method>read_file</method>\n<arguments>\n{\"path\": \"/tmp/a.txt\"}\n</arguments>\n</tool_call>",
        )]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let mut from = 0;
        let mut previous: Option<(Call, usize)> = None;
        for &at in &text.openers().angle {
            if at < from || !s[at..].starts_with(OPEN) {
                continue;
            }
            let body_start = at + OPEN.len();
            let head = s[body_start..].trim_start();
            if head.len() < "<server".len() {
                ctx.candidate(at);
            }
            if !head.starts_with("<server") && !head.starts_with("<method") {
                from = body_start;
                continue;
            }
            ctx.candidate(at);
            let (body_end, end, closed) =
                match memmem::find(&s.as_bytes()[body_start..], CLOSE.as_bytes()) {
                    Some(n) => (body_start + n, body_start + n + CLOSE.len(), true),
                    None => (s.len(), s.len(), false),
                };
            from = end.max(body_start);
            let body = &s[body_start..body_end];
            let Some(mut call) = parse_block(body, ctx.strict) else {
                continue;
            };
            if !closed {
                call.repairs.push("missing-close-tag");
            }
            call.line = text.line_at(at);
            let copy = previous.as_ref().is_some_and(|(prev, prev_end)| {
                prev.name == call.name
                    && prev.arguments == call.arguments
                    && s[*prev_end..at].trim().is_empty()
            });
            previous = Some((call.clone(), end));
            if copy {
                continue;
            }
            out.push(Hit {
                call,
                start: at,
                end,
                balanced: false,
                specificity: MARKED,
            });
        }
    }
}

/// The first `<tag>…</tag>` of a block, raw.
pub(crate) fn element<'a>(body: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = body.find(&open)? + open.len();
    let len = body[start..].find(&close)?;
    Some(&body[start..start + len])
}

/// The `<arguments>` text. JSON inside may itself hold `</arguments>`: the closing tag
/// chosen is the first after which the text is valid JSON (marked when not the first).
fn arguments(body: &str) -> (&str, bool) {
    let Some(start) = body.find("<arguments>").map(|i| i + "<arguments>".len()) else {
        return ("", false);
    };
    let closes: Vec<usize> = body[start..]
        .match_indices("</arguments>")
        .map(|(i, _)| start + i)
        .collect();
    let Some(&first) = closes.first() else {
        return ("", false);
    };
    for (n, &close) in closes.iter().enumerate() {
        let raw = body[start..close].trim();
        if serde_json::from_str::<serde::de::IgnoredAny>(raw).is_ok() {
            return (raw, n > 0);
        }
    }
    (body[start..first].trim(), false)
}

fn parse_block(body: &str, strict: bool) -> Option<Call> {
    // A tool without a server (rendered by `toolsift tools render --style xml` for a
    // name with no `server.` part) is named by its method alone.
    let server = element(body, "server")
        .or_else(|| element(body, "server_name"))
        .map(str::trim);
    let method = element(body, "method")
        .or_else(|| element(body, "method_name"))?
        .trim();
    if server.is_some_and(|s| !scan::is_tool_name(s)) || !scan::is_tool_name(method) {
        return None;
    }
    let mut call = match server {
        Some(server) => {
            let mut call = Call::new(format!("{server}.{method}"), NAME, 0);
            call.namespace = Some(server.to_owned());
            call
        }
        None => Call::new(method, NAME, 0),
    };
    let (raw, ambiguous) = arguments(body);
    if raw.is_empty() {
        return Some(call);
    }
    if ambiguous {
        call.repairs.push("ambiguous-delimiter");
    }
    shapes::json_arguments(&mut call, raw, strict, true);
    Some(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&MANDRAKE_XML, text, &[], false)
    }

    #[test]
    fn raw_json_arguments_and_the_logged_copy() {
        let raw = "<tool_call>\n<server>ripper</server>\n<method>read_file</method>\n<arguments>\n{\"path\": \"a</arguments>b\"}\n</arguments>\n</tool_call>";
        let hits = scan_text(raw);
        assert_eq!(hits[0].call.name, "ripper.read_file");
        assert_eq!(hits[0].call.arguments["path"], "a</arguments>b");
        assert_eq!(hits[0].call.repairs, ["ambiguous-delimiter"]);
        let text = "I'll read it.<tool_call>\n<server>ripper</server>\n<method>read_file</method>\n<arguments>\n{\"path\": \"/a\"}\n</arguments>\n</tool_call><tool_call>\n<server>ripper</server>\n<method>read_file</method>\n<description></description>\n<arguments>\n{\n  \"path\": \"/a\"\n}\n</arguments>\n</tool_call><tool_result>\n<result>\n{}\n</result>\n</tool_result>";
        let hits = scan_text(text);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.namespace.as_deref(), Some("ripper"));
    }

    #[test]
    fn early_spelling_and_bad_json() {
        let hits = scan_text(
            "<tool_call><server_name>s</server_name><method_name>m</method_name><arguments>{oops</arguments></tool_call>",
        );
        assert_eq!(hits[0].call.name, "s.m");
        assert!(!hits[0].call.is_valid());
        let hits = scan_text(
            "<tool_call>\n<method>get_time</method>\n<arguments>\n{}\n</arguments>\n</tool_call>",
        );
        assert_eq!(
            (
                hits[0].call.name.as_str(),
                hits[0].call.namespace.as_deref()
            ),
            ("get_time", None)
        );
    }
}
