//! Dialects that put JSON between markers: a family, so each dialect is a row of data
//! (its markers and payload) read by one scanner.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner, shapes};
use crate::model::{Call, Text};
use crate::scan;
use memchr::memmem;

/// What follows the opening marker.
#[derive(Clone, Copy)]
pub enum Payload {
    /// One or more JSON call objects or arrays, up to the closing marker (or, with no
    /// closing marker, the one value that follows).
    Json,
    /// `NAME[CALL_ID]ID[ARGS]{json}`: the name, an optional id, then the arguments.
    NameArgs {
        args: &'static str,
        id: Option<&'static str>,
    },
}

/// One dialect of the family.
pub struct MarkerRow {
    pub name: &'static str,
    pub summary: &'static str,
    pub example: &'static str,
    pub open: &'static str,
    pub close: Option<&'static str>,
    pub payload: Payload,
}

pub const ROWS: &[MarkerRow] = &[
    MarkerRow {
        name: "hermes",
        summary: "Hermes / Qwen <tool_call>{json}</tool_call>, repeated for parallel calls; unclosed at the end counts",
        example: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        open: "<tool_call>",
        close: Some("</tool_call>"),
        payload: Payload::Json,
    },
    MarkerRow {
        name: "mistral",
        summary: "Mistral [TOOL_CALLS] followed by a JSON array of calls",
        example: "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abc123xyz\"}]",
        open: "[TOOL_CALLS]",
        close: None,
        payload: Payload::Json,
    },
    MarkerRow {
        name: "mistral-v11",
        summary: "Mistral v11+ [TOOL_CALLS]name[ARGS]{json}, with [CALL_ID]id in Small 3.2",
        example: "[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Paris\"}",
        open: "[TOOL_CALLS]",
        close: None,
        payload: Payload::NameArgs {
            args: "[ARGS]",
            id: Some("[CALL_ID]"),
        },
    },
];

pub struct Markers;
pub static MARKERS: Markers = Markers;

impl Scanner for Markers {
    fn channel(&self) -> Channel {
        Channel::Json
    }

    fn rows(&self) -> Vec<DialectRow> {
        ROWS.iter()
            .map(|r| DialectRow::new(r.name, Channel::Json, r.summary, r.example))
            .collect()
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let s = text.text.as_str();
        // Each distinct opening marker is searched once; at each occurrence the rows
        // that share it are tried in order.
        let mut opens: Vec<&str> = Vec::new();
        for row in ROWS.iter().filter(|r| ctx.enabled(r.name)) {
            if !opens.contains(&row.open) {
                opens.push(row.open);
            }
        }
        for open in opens {
            let mut from = 0;
            let mut no_close_after = usize::MAX;
            let openers = text.openers();
            let starts = if open.starts_with('<') {
                &openers.angle
            } else {
                &openers.square
            };
            for &at in starts {
                if at < from || !s[at..].starts_with(open) {
                    continue;
                }
                from = at + open.len();
                for row in ROWS
                    .iter()
                    .filter(|r| r.open == open && ctx.enabled(r.name))
                {
                    let found = match row.payload {
                        Payload::Json => json_payload(row, s, at, ctx.strict, &mut no_close_after),
                        Payload::NameArgs { args, id } => {
                            name_args_payload(row, s, at, args, id, ctx.strict)
                        }
                    };
                    if let Some((calls, end)) = found {
                        for mut call in calls {
                            call.line = text.line_at(at);
                            out.push(Hit {
                                call,
                                start: at,
                                end,
                                specificity: MARKED,
                            });
                        }
                        from = end.max(from);
                        break;
                    }
                }
            }
        }
    }
}

/// JSON right after `open`: up to the close marker, or, when the dialect has none or
/// it never comes, the one JSON value that follows (marked when the close is missing).
/// Nothing but JSON may follow the marker, so a marker named in prose costs nothing.
fn json_payload(
    row: &MarkerRow,
    s: &str,
    at: usize,
    strict: bool,
    no_close_after: &mut usize,
) -> Option<(Vec<Call>, usize)> {
    let after = at + row.open.len();
    let start = after + (s[after..].len() - s[after..].trim_start().len());
    if !s[start..].starts_with(['[', '{']) {
        return None;
    }
    // Once a close marker was not found after some point, it is not found after any
    // later one: many unclosed markers cost one search, not one each.
    let closed_at = row
        .close
        .filter(|_| start < *no_close_after)
        .and_then(|close| {
            let found = memmem::find(&s.as_bytes()[start..], close.as_bytes())
                .map(|n| (start + n, start + n + close.len()));
            if found.is_none() {
                *no_close_after = start;
            }
            found
        });
    let (body_end, end) = match closed_at {
        Some(pair) => pair,
        None => {
            // An unclosed block ends where the next one starts.
            let limit = memmem::find(&s.as_bytes()[start..], row.open.as_bytes())
                .map_or(s.len(), |n| start + n);
            let end = scan::balanced_end(&s[..limit], start).unwrap_or(limit);
            (end, end)
        }
    };
    let body = &s[start..body_end];
    let mut calls = Vec::new();
    for found in scan::json_values(body) {
        calls.extend(super::json_text::calls_in_json(
            &body[found.start..found.end],
            strict,
        ));
    }
    if calls.is_empty() {
        return None;
    }
    for call in &mut calls {
        call.dialect = row.name;
        if row.close.is_some() && closed_at.is_none() {
            call.repairs.push("missing-close-tag");
        }
    }
    Some((calls, end))
}

/// `[TOOL_CALLS]name[CALL_ID]id[ARGS]{json}`.
fn name_args_payload(
    row: &MarkerRow,
    s: &str,
    at: usize,
    args_marker: &str,
    id_marker: Option<&str>,
    strict: bool,
) -> Option<(Vec<Call>, usize)> {
    let head_start = at + row.open.len();
    let args_at = head_start + memmem::find(&s.as_bytes()[head_start..], args_marker.as_bytes())?;
    let head = &s[head_start..args_at];
    let (name, id) = match id_marker.and_then(|m| head.find(m).map(|i| (i, m))) {
        Some((i, m)) => (
            head[..i].trim(),
            Some(head[i + m.len()..].trim().to_owned()),
        ),
        None => (head.trim(), None),
    };
    if !scan::is_tool_name(name) {
        return None;
    }
    let json_start = args_at + args_marker.len();
    let lead = s[json_start..].len() - s[json_start..].trim_start().len();
    let json_start = json_start + lead;
    if !s[json_start..].starts_with('{') {
        return None;
    }
    let end = scan::balanced_end(s, json_start).unwrap_or(s.len());
    let slice = &s[json_start..end];
    let mut call = Call::new(name, row.name, 0).with_id(id);
    match scan::parse_json(slice, strict) {
        Ok(parsed) => {
            shapes::set_args(&mut call, Some(&parsed.value));
            call.repairs.extend(parsed.repairs);
        }
        Err(e) => call.invalid_arguments(slice, &format!("arguments are not valid JSON: {e}")),
    }
    Some((vec![call], end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&MARKERS, text, &[], false)
    }

    #[test]
    fn hermes_parallel_and_unclosed() {
        let hits = scan_text(
            "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}",
        );
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(hits[1].call.repairs, ["missing-close-tag"]);
        assert_eq!(hits[1].call.line, 4);
    }

    #[test]
    fn mistral_both_generations() {
        let hits = scan_text(
            "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": 1}, \"id\": \"abcdefghi\"}]",
        );
        assert_eq!(
            (hits[0].call.dialect, hits[0].call.id.as_deref()),
            ("mistral", Some("abcdefghi"))
        );
        let hits = scan_text(
            "[TOOL_CALLS]get_weather[CALL_ID]x1y2z3[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]f[ARGS]{}",
        );
        assert_eq!(hits.len(), 2);
        assert_eq!(
            (hits[0].call.dialect, hits[0].call.id.as_deref()),
            ("mistral-v11", Some("x1y2z3"))
        );
        assert_eq!(hits[1].call.name, "f");
    }
}
