//! Natural tool use (the .NET middleware seed), both generations:
//! `<ToolName>` + fenced JSON + `</ToolName>`, and `<tool_call name="ToolName">` with
//! fenced or bare JSON. Without `--tools` a tag-named call needs a fenced JSON body;
//! with `--tools` only declared names count, reported with the declared spelling.
//! Malformed tags stay text.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner, shapes};
use crate::model::{Call, Text};
use crate::scan;
use memchr::memmem;

pub(crate) const TAG: &str = "natural-tag";
pub(crate) const TOOL_CALL: &str = "natural-tool-call";

/// Tags that wrap other things than calls, even around fenced JSON.
const NOT_TOOLS: &[&str] = &[
    "think",
    "thinking",
    "reasoning",
    "example",
    "examples",
    "output",
    "answer",
    "result",
    "response",
    "code",
    "pre",
    "json",
    "data",
    "tool_call",
    "tool_calls",
    "tool_result",
    "tool_response",
    "function_calls",
    "function_results",
    "invoke",
    "environment_details",
    "context",
    "document",
    "file",
    "instructions",
    "system",
    "user",
    "assistant",
];

pub(crate) struct Natural;
pub(crate) static NATURAL: Natural = Natural;

impl Scanner for Natural {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![
            DialectRow::new(
                TAG,
                Channel::Text,
                "Natural tool use v1: <ToolName> + fenced JSON + </ToolName>",
                "<GetWeather>\n```json\n{\"location\": \"Paris\"}\n```\n</GetWeather>",
            ),
            DialectRow::new(
                TOOL_CALL,
                Channel::Text,
                "Natural tool use v2: <tool_call name=\"ToolName\"> with fenced or bare JSON",
                "<tool_call name=\"GetWeather\">\n```json\n{\"location\": \"Paris\"}\n```\n</tool_call>",
            ),
        ]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let s = text.text.as_str();
        let mut i = 0;
        // Per tag name, the point after which its closing tag is known to be absent.
        let mut unclosed: Vec<(&str, usize)> = Vec::new();
        let mut tool_call_unclosed = usize::MAX;
        for &at in &text.openers().angle {
            if at < i {
                continue;
            }
            i = at + 1;
            let rest = &s[at + 1..];
            if let Some(attrs) = rest.strip_prefix("tool_call")
                && attrs.starts_with(char::is_whitespace)
            {
                if ctx.enabled(TOOL_CALL) {
                    ctx.candidate(at);
                }
                if ctx.enabled(TOOL_CALL)
                    && at < tool_call_unclosed
                    && let Some(hit) = tool_call_tag(s, at, ctx, &mut tool_call_unclosed)
                {
                    i = hit.end;
                    out.push(with_line(hit, text));
                }
                continue;
            }
            let Some(name) = scan::ident(rest) else {
                continue;
            };
            if !rest[name.len()..].starts_with('>') || !ctx.enabled(TAG) {
                continue;
            }
            if unclosed.iter().any(|&(n, after)| n == name && at >= after) {
                continue;
            }
            if let Some(hit) = name_tag(s, at, name, ctx, &mut unclosed) {
                i = hit.end;
                out.push(with_line(hit, text));
            }
        }
    }
}

fn with_line(mut hit: Hit, text: &Text) -> Hit {
    hit.call.line = text.line_at(hit.start);
    hit
}

/// `<Name>` … `</Name>` with a fenced JSON body.
fn name_tag<'s>(
    s: &'s str,
    at: usize,
    name: &'s str,
    ctx: &ScanContext,
    unclosed: &mut Vec<(&'s str, usize)>,
) -> Option<Hit> {
    let body_start = at + name.len() + 2;
    // A call's body starts with its fence (or, for a declared tool, its JSON): checked
    // first, so tags in prose (`<br>`, `<b>`) cost one look.
    let head = s[body_start..].trim_start();
    if head.len() < 3 {
        // Nothing yet after the tag but white space (a fence may follow in more text).
        ctx.candidate(at);
    }
    if !(head.starts_with("```") || (!ctx.tools.is_empty() && head.starts_with(['{', '[']))) {
        return None;
    }
    ctx.candidate(at);
    let declared = if ctx.tools.is_empty() {
        if NOT_TOOLS.iter().any(|t| t.eq_ignore_ascii_case(name)) {
            return None;
        }
        name.to_owned()
    } else {
        ctx.declared(name)?.to_owned()
    };
    let close = format!("</{name}>");
    let Some((body_end, end)) = body_close(s, body_start, &format!("<{name}>"), &close) else {
        unclosed.push((name, at));
        return None;
    };
    let body = &s[body_start..body_end];
    let json = match scan::first_fence(body) {
        Some(fence) if fence.info.is_empty() || fence.info.eq_ignore_ascii_case("json") => {
            fence.body.trim()
        }
        Some(_) => return None,
        // Only a declared tool may carry bare JSON.
        None if !ctx.tools.is_empty() && body.trim_start().starts_with(['{', '[']) => body.trim(),
        None => return None,
    };
    Some(Hit {
        call: call_from_json(&declared, TAG, json, ctx.strict),
        start: at,
        end,
        balanced: false,
        specificity: MARKED,
    })
}

/// `<tool_call name="Name">` … `</tool_call>`, fenced JSON first, else bare JSON.
fn tool_call_tag(s: &str, at: usize, ctx: &ScanContext, unclosed_after: &mut usize) -> Option<Hit> {
    let tag_end = scan::tag_end(s, at)?;
    let attrs = &s[at + "<tool_call".len()..tag_end];
    let name = scan::attribute(attrs, "name")?;
    if name.is_empty() {
        return None;
    }
    let name = if ctx.tools.is_empty() {
        name
    } else {
        ctx.declared(name)?
    };
    let body_start = tag_end + 1;
    let Some((body_end, end)) = body_close(s, body_start, "<tool_call", "</tool_call>") else {
        *unclosed_after = at;
        return None;
    };
    let body = &s[body_start..body_end];
    let json = match scan::first_fence(body) {
        Some(fence) => fence.body.trim(),
        None => body.trim(),
    };
    let call = if json.starts_with(['{', '[']) {
        call_from_json(name, TOOL_CALL, json, ctx.strict)
    } else {
        let mut call = Call::new(name, TOOL_CALL, 0);
        call.invalid_arguments(body.trim(), "no JSON arguments in the tool_call block");
        call
    };
    Some(Hit {
        call,
        start: at,
        end,
        balanced: false,
        specificity: MARKED,
    })
}

/// Where a call's body ends and its closing tag: after the JSON (bare or fenced), read
/// string-aware, when the closing tag follows it (so a closing tag written inside a
/// JSON string does not cut the call); otherwise at the first closing tag.
fn body_close(s: &str, body_start: usize, open: &str, close: &str) -> Option<(usize, usize)> {
    let skip = |p: usize| p + (s[p..].len() - s[p..].trim_start().len());
    // The JSON does not run past the next opening tag (many unclosed tags stay linear).
    let limit = memmem::find(&s.as_bytes()[body_start..], open.as_bytes())
        .map_or(s.len(), |n| body_start + n);
    let mut p = skip(body_start);
    let fenced = s[p..].starts_with("```");
    if fenced {
        p = skip(p + s[p..].find('\n').unwrap_or(s.len() - p));
    }
    if p < limit
        && s[p..].starts_with(['{', '['])
        && let Some(json_end) = scan::balanced_end(&s[..limit], p)
    {
        let mut q = skip(json_end);
        if fenced {
            q = s[q..]
                .strip_prefix("```")
                .map_or(usize::MAX, |_| skip(q + 3));
        }
        if q != usize::MAX && s[q..].starts_with(close) {
            return Some((q, q + close.len()));
        }
    }
    let n = memmem::find(&s.as_bytes()[body_start..], close.as_bytes())?;
    Some((body_start + n, body_start + n + close.len()))
}

fn call_from_json(name: &str, dialect: &'static str, json: &str, strict: bool) -> Call {
    let mut call = Call::new(name, dialect, 0);
    shapes::json_arguments(&mut call, json, strict, true);
    call
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_with(text: &str, tools: &[String]) -> Vec<Hit> {
        super::super::scan_for_test(&NATURAL, text, tools, false)
    }

    #[test]
    fn a_closing_tag_inside_a_json_string_does_not_cut_the_call() {
        let hits = scan_with(
            "<Write>\n```json\n{\"code\": \"x </Write> y\"}\n```\n</Write>",
            &[],
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.arguments["code"], "x </Write> y");
        let hits = scan_with(
            "<tool_call name=\"W\">\n{\"code\": \"a </tool_call> b\"}\n</tool_call>",
            &[],
        );
        assert_eq!(hits[0].call.arguments["code"], "a </tool_call> b");
        assert!(hits[0].call.repairs.is_empty());
    }

    #[test]
    fn v1_needs_a_fence_without_tools() {
        let hits = scan_with(
            "Here's the weather: <GetWeather>\n```json\n{\"location\": \"Paris\"}\n```\n</GetWeather> ok",
            &[],
        );
        assert_eq!(hits[0].call.name, "GetWeather");
        assert!(scan_with("<b>bold</b> and <GetWeather>{\"a\":1}</GetWeather>", &[]).is_empty());
    }

    #[test]
    fn with_tools_only_declared_names_in_declared_spelling() {
        let tools = vec!["get_weather".to_string()];
        let hits = scan_with(
            "<GET_WEATHER>{\"a\":1}</GET_WEATHER><Other>\n```\n{}\n```\n</Other>",
            &tools,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.name, "get_weather");
    }

    #[test]
    fn v2_fenced_wins_over_bare_and_malformed_tags_stay_text() {
        let hits = scan_with(
            "<tool_call name='GetWeather'>\n```json\n{\"location\": \"Seattle\"}\n```\n{\"location\": \"Portland\"}\n</tool_call>",
            &[],
        );
        assert_eq!(hits[0].call.arguments["location"], "Seattle");
        let hits = scan_with(
            "<tool_call name=\"GetWeather\">{\"location\": \"Paris\"}</tool_call>",
            &[],
        );
        assert_eq!(hits[0].call.arguments["location"], "Paris");
        for bad in [
            "name=\"X\">{}</tool_call>",
            "<tool_call name=\"X\">{}",
            "<tool_call>{}</tool_call>",
            "<tool_call name=X>{}</tool_call>",
        ] {
            assert!(scan_with(bad, &[]).is_empty(), "{bad}");
        }
    }
}
