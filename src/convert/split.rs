//! Cuts message text around the calls and results written in it. Calls are found by
//! the channel engine exactly as `extract` finds them (same dialects, same channel
//! fallback); results by the result dialects of [`super::results`]. The pieces tile
//! the text: text parts plus the `written` text of calls and results give back the
//! message byte for byte.

use super::model::{CallPart, Message, Part, Raw, ResultPart, Role, TextPart, Written};
use super::results;
use crate::engine::Engine;
use crate::model::{Call, Text, Turn};

/// Wrappers a dialect's calls or results stand in, which belong to their span: the
/// first piece inside takes the opening, the last the closing.
const WRAPPERS: &[(&str, &str, &[&str])] = &[
    (
        "<function_calls>",
        "</function_calls>",
        &["anthropic-xml", "anthropic-xml-legacy"],
    ),
    (
        "<function_results>",
        "</function_results>",
        &[results::ANTHROPIC_LEGACY],
    ),
];

/// One call or result found in a text part.
struct Piece {
    start: usize,
    end: usize,
    dialect: String,
    kind: PieceKind,
}

enum PieceKind {
    Call(Box<CallPart>),
    Result(Box<ResultPart>),
}

/// Splits the text parts of every message: calls in the messages of `call_roles` that
/// have no native call, results in every message but the system prompt.
pub fn split(messages: &mut [Message], engine: &mut Engine, call_roles: &[Role]) {
    // Calls not answered yet: a result written in text counts only when one is open,
    // so a pasted or quoted result in a conversation without calls stays text.
    let mut open = 0usize;
    let mut cline = false;
    for m in messages.iter_mut() {
        split_message(m, engine, call_roles, &mut open);
        cline |= m.parts.iter().any(|p| {
            matches!(p, Part::Call(c) if c.written.as_ref().is_some_and(|w| w.dialect == crate::dialects::cline::NAME))
        });
        if cline && m.role == Role::User {
            results::cline(&mut m.parts, &mut open);
        }
    }
}

fn split_message(m: &mut Message, engine: &mut Engine, call_roles: &[Role], open: &mut usize) {
    for p in &m.parts {
        match p {
            Part::Call(_) => *open += 1,
            Part::Result(_) => *open = open.saturating_sub(1),
            _ => {}
        }
    }
    let texts: Vec<usize> = m
        .parts
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p, Part::Text(t) if !t.text.is_empty()))
        .map(|(i, _)| i)
        .collect();
    if texts.is_empty() || m.role == Role::System {
        return;
    }
    let mut pieces: Vec<Vec<Piece>> = texts.iter().map(|_| Vec::new()).collect();
    let native = m.parts.iter().any(|p| matches!(p, Part::Call(_)));
    if call_roles.contains(&m.role) && !native {
        let mut turn = Turn::new(crate::model::Role::Assistant, 1);
        for &i in &texts {
            if let Part::Text(t) = &m.parts[i] {
                turn.texts.push(Text::new(t.text.as_str(), 1, false, true));
            }
        }
        for (call, t, start, end) in engine.calls_in_texts(&turn) {
            let text = &turn.texts[t].text;
            let (start, end) = narrow(text, start, end, &call);
            let dialect = call.dialect.to_owned();
            pieces[t].push(Piece {
                start,
                end,
                dialect,
                kind: PieceKind::Call(Box::new(call_part(call, &text[start..end]))),
            });
        }
    }
    for found in pieces.iter_mut() {
        outermost(found);
    }
    for (t, &i) in texts.iter().enumerate() {
        let Part::Text(part) = &m.parts[i] else {
            continue;
        };
        let mut calls = pieces[t].iter().map(|p| p.start).collect::<Vec<_>>();
        calls.sort_unstable();
        for found in results::find(&part.text) {
            let overlaps = pieces[t]
                .iter()
                .any(|p| found.start < p.end && p.start < found.end);
            // The calls of this text before the result are open too.
            let before = calls.iter().filter(|&&c| c < found.start).count();
            let results_before = pieces[t]
                .iter()
                .filter(|p| matches!(p.kind, PieceKind::Result(_)) && p.start < found.start)
                .count();
            if !overlaps && *open + before > results_before {
                pieces[t].push(Piece {
                    start: found.start,
                    end: found.end,
                    dialect: found.dialect.to_owned(),
                    kind: PieceKind::Result(Box::new(found.result)),
                });
            }
        }
    }
    for p in pieces.iter().flatten() {
        match p.kind {
            PieceKind::Call(_) => *open += 1,
            PieceKind::Result(_) => *open = open.saturating_sub(1),
        }
    }
    if pieces.iter().all(Vec::is_empty) {
        return;
    }
    // Rebuild the parts, back to front so that indices stay valid.
    for (t, &i) in texts.iter().enumerate().rev() {
        let mut found = std::mem::take(&mut pieces[t]);
        if found.is_empty() {
            continue;
        }
        let Part::Text(part) = &m.parts[i] else {
            continue;
        };
        found.sort_by_key(|p| p.start);
        let text = part.text.as_str();
        absorb(text, &mut found);
        let mut out: Vec<Part> = Vec::new();
        let mut extra = part.extra.clone();
        let mut at = 0;
        for p in found {
            if p.start > at {
                out.push(Part::Text(TextPart {
                    text: text[at..p.start].to_owned(),
                    extra: std::mem::take(&mut extra),
                }));
            }
            let written = Some(Written {
                dialect: p.dialect,
                text: text[p.start..p.end].to_owned(),
            });
            out.push(match p.kind {
                PieceKind::Call(mut c) => {
                    c.written = written;
                    Part::Call(*c)
                }
                PieceKind::Result(mut r) => {
                    r.written = written;
                    Part::Result(*r)
                }
            });
            at = p.end;
        }
        if at < text.len() {
            out.push(Part::Text(TextPart {
                text: text[at..].to_owned(),
                extra,
            }));
        }
        m.parts.splice(i..=i, out);
    }
}

/// Keeps the calls that no other call of the text holds: JSON quoted inside an XML
/// call's arguments, or a call inside another's value, belongs to the outer call. Of
/// two calls that overlap without one holding the other, the first found (the earlier
/// channel) is kept.
fn outermost(pieces: &mut Vec<Piece>) {
    let spans: Vec<(usize, usize)> = pieces.iter().map(|p| (p.start, p.end)).collect();
    let mut keep = vec![true; pieces.len()];
    for (i, &(a, b)) in spans.iter().enumerate() {
        for (j, &(c, d)) in spans.iter().enumerate() {
            if i == j || !keep[j] || (a, b) == (c, d) {
                continue;
            }
            let inside = c <= a && b <= d;
            let overlap = a < d && c < b;
            if inside || (overlap && j < i && !(a <= c && d <= b)) {
                keep[i] = false;
                break;
            }
        }
    }
    let mut k = keep.into_iter();
    pieces.retain(|_| k.next().unwrap_or(true));
}

/// Widens the pieces of one text so that what belongs to them is theirs: a wrapper
/// around a dialect's pieces, a copy of a call that a log wrote right after it, and the
/// white space between two pieces (the layout of the calls, not prose).
fn absorb(text: &str, pieces: &mut [Piece]) {
    // Calls of one value (a `{"tool_calls": […]}` wrapper, a marker's array) share its
    // span: the last of them is written with it, the others with nothing.
    for i in 1..pieces.len() {
        if (pieces[i - 1].start, pieces[i - 1].end) == (pieces[i].start, pieces[i].end) {
            pieces[i - 1].end = pieces[i - 1].start;
        }
    }
    for (open, close, dialects) in WRAPPERS {
        let mut i = 0;
        while i < pieces.len() {
            if !dialects.contains(&pieces[i].dialect.as_str()) {
                i += 1;
                continue;
            }
            let before = text[..pieces[i].start].trim_end();
            let low = if i == 0 { 0 } else { pieces[i - 1].end };
            if before.len() >= low + open.len() && before.ends_with(open) {
                // The run of this dialect's pieces inside the wrapper.
                let mut j = i;
                while j + 1 < pieces.len()
                    && dialects.contains(&pieces[j + 1].dialect.as_str())
                    && text[pieces[j].end..pieces[j + 1].start].trim().is_empty()
                {
                    j += 1;
                }
                pieces[i].start = before.len() - open.len();
                let after = crate::scan::skip_ws(text, pieces[j].end);
                let high = pieces.get(j + 1).map_or(text.len(), |p| p.start);
                if text[after..high].starts_with(close) {
                    pieces[j].end = after + close.len();
                }
                i = j + 1;
            } else {
                i += 1;
            }
        }
    }
    // Mandrake's history repeats each call: the model's copy, then the formatted one.
    for i in 0..pieces.len() {
        if pieces[i].dialect != crate::dialects::mandrake_xml::NAME {
            continue;
        }
        let high = pieces.get(i + 1).map_or(text.len(), |p| p.start);
        if let PieceKind::Call(c) = &pieces[i].kind
            && let Some(end) = results::mandrake_copy(text, pieces[i].end, high, c)
        {
            pieces[i].end = end;
        }
    }
    for i in 1..pieces.len() {
        let (prev_end, start) = (pieces[i - 1].end, pieces[i].start);
        if prev_end < start && text[prev_end..start].trim().is_empty() {
            pieces[i].start = prev_end;
        }
    }
}

/// The span of one call among JSON values written one after another: a dialect that
/// reads values run together reports the whole run, but each value is its own call
/// (or not a call at all, such as a result written after it).
fn narrow(text: &str, start: usize, end: usize, call: &Call) -> (usize, usize) {
    let span = &text[start..end];
    let values = crate::scan::json_values(span);
    if values.len() < 2 {
        return (start, end);
    }
    for v in &values {
        if v.unclosed {
            continue;
        }
        let Ok(doc) = crate::json::Doc::parse(&span[v.start..v.end]) else {
            continue;
        };
        let found = crate::dialects::shapes::calls(doc.root(), None);
        if found
            .iter()
            .any(|c| c.name == call.name && c.arguments == call.arguments)
        {
            return (start + v.start, start + v.end);
        }
    }
    (start, end)
}

/// A call found in text as a call part: its arguments as written when the text holds
/// them as a JSON object, else as toolsift read them.
fn call_part(call: Call, span: &str) -> CallPart {
    let arguments = if call.is_valid() {
        raw_arguments(span, &call.arguments)
            .map(Raw::new)
            .unwrap_or_else(|| {
                Raw::new(serde_json::to_string(&*call.arguments).expect("a map serializes"))
            })
    } else {
        Raw::empty_object()
    };
    let mut part = CallPart::new(call.name, arguments);
    part.id = call.id;
    part.namespace = call.namespace;
    part.arguments_raw = call.arguments_raw;
    part
}

/// The text of the first JSON object in `span` that reads as `arguments`.
fn raw_arguments<'a>(
    span: &'a str,
    arguments: &serde_json::Map<String, serde_json::Value>,
) -> Option<&'a str> {
    for (at, _) in span.match_indices('{').take(64) {
        let Some(end) = crate::scan::balanced_end(span, at) else {
            continue;
        };
        let candidate = &span[at..end];
        if let Ok(map) =
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(candidate)
            && map == *arguments
        {
            return Some(candidate);
        }
    }
    None
}
