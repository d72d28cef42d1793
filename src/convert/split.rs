//! Cuts message text around the calls and results written in it. Calls are found by
//! the channel engine exactly as `extract` finds them (same dialects, same channel
//! fallback); results by the result dialects of [`super::results`]. The pieces tile
//! the text: text parts plus the `written` text of calls and results give back the
//! message byte for byte.

use super::model::{CallPart, Message, Part, Raw, ResultPart, Role, TextPart, Written};
use super::results;
use crate::engine::Engine;
use crate::model::{Call, Text, Turn};
use crate::tile;

/// One call or result found in a text part.
struct Piece {
    start: usize,
    end: usize,
    dialect: &'static str,
    kind: PieceKind,
}

enum PieceKind {
    Call(Box<Call>),
    Result(Box<ResultPart>),
}

impl Piece {
    fn span(&self) -> tile::Span<'_> {
        tile::Span {
            start: self.start,
            end: self.end,
            dialect: self.dialect,
            call: match &self.kind {
                PieceKind::Call(c) => Some(c),
                PieceKind::Result(_) => None,
            },
        }
    }
}

/// Splits the text parts of every message: calls in the messages of `call_roles` that
/// have no native call, results in every message but the system prompt. `raw`: the
/// text was read straight from a file (plain model output), which may hold any number
/// of completions; else each message's text starts where its completion does, so a
/// `</think>` with no opening before it closes reasoning a prefilled `<think>` opened,
/// as extract reads a message (and the calls in it stay in the reasoning).
pub(crate) fn split(
    messages: &mut [Message],
    engine: &mut Engine,
    call_roles: &[Role],
    origin: crate::model::Origin,
    raw: bool,
) {
    // Calls not answered yet: a result written in text counts only when one is open,
    // so a pasted or quoted result in a conversation without calls stays text.
    let mut open = 0usize;
    let mut cline = false;
    for m in messages.iter_mut() {
        split_message(m, engine, call_roles, origin, raw, &mut open);
        cline |= m.parts.iter().any(|p| {
            matches!(p, Part::Call(c) if c.written.as_ref().is_some_and(|w| w.dialect == crate::dialects::cline::NAME))
        });
        // Today's Cline calls with native `tool_use` blocks, but still answers in text.
        if (cline || results::has_cline_header(&m.parts)) && m.role == Role::User {
            results::cline(&mut m.parts, &mut open);
        }
    }
}

fn split_message(
    m: &mut Message,
    engine: &mut Engine,
    call_roles: &[Role],
    origin: crate::model::Origin,
    raw: bool,
    open: &mut usize,
) {
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
    // Calls read from the decoded strings of a text that is JSON of no known shape, as
    // extract reads them: they cannot be cut out of the JSON, which stays whole, and
    // follow it.
    let mut after: Vec<Vec<Call>> = texts.iter().map(|_| Vec::new()).collect();
    let native = m.parts.iter().any(|p| matches!(p, Part::Call(_)));
    if call_roles.contains(&m.role) && !native {
        let mut turn = Turn::new(crate::model::Role::Assistant, 1);
        turn.origin = origin;
        // For each text of the turn: the text part it is, and whether it is a string
        // decoded from that part.
        let mut text_of: Vec<(usize, bool)> = Vec::new();
        for (t, &i) in texts.iter().enumerate() {
            if let Part::Text(part) = &m.parts[i] {
                if raw
                    && part.text.trim_start().starts_with(['{', '['])
                    && let Ok(doc) = crate::json::Doc::parse(&part.text)
                {
                    let lines = crate::json::LineIndex::new(&part.text, 1);
                    let strings = crate::transcript::push_unknown_json(
                        &mut turn,
                        doc.root(),
                        &part.text,
                        1,
                        &lines,
                    );
                    text_of.push((t, false));
                    text_of.extend(std::iter::repeat_n((t, true), strings));
                    continue;
                }
                // Read as raw text, so that the same call made twice in one message
                // is on two lines, two calls.
                let text = Text::new(part.text.as_str(), 1, false, true);
                turn.texts.push(if raw {
                    text
                } else {
                    text.at_completion_start()
                });
                text_of.push((t, false));
            }
        }
        for (call, at, start, end) in engine.calls_in_texts(&turn) {
            let (t, decoded) = text_of[at];
            if decoded {
                after[t].push(call);
                continue;
            }
            let text = &turn.texts[at].text;
            let (start, end) = narrow(text, start, end, &call);
            pieces[t].push(Piece {
                start,
                end,
                dialect: call.dialect,
                kind: PieceKind::Call(Box::new(call)),
            });
        }
    }
    for found in pieces.iter_mut() {
        let spans: Vec<tile::Span> = found.iter().map(|p| p.span()).collect();
        let mut keep = tile::outermost(&spans).into_iter();
        found.retain(|_| keep.next().unwrap_or(true));
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
                    dialect: found.dialect,
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
    *open += after.iter().map(Vec::len).sum::<usize>();
    if pieces.iter().all(Vec::is_empty) && after.iter().all(Vec::is_empty) {
        return;
    }
    // Rebuild the parts, back to front so that indices stay valid.
    for (t, &i) in texts.iter().enumerate().rev() {
        let mut found = std::mem::take(&mut pieces[t]);
        let calls_after = std::mem::take(&mut after[t]);
        if found.is_empty() && calls_after.is_empty() {
            continue;
        }
        let Part::Text(part) = &m.parts[i] else {
            continue;
        };
        found.sort_by_key(|p| p.start);
        let text = part.text.as_str();
        let mut spans: Vec<tile::Span> = found.iter().map(|p| p.span()).collect();
        tile::widen(text, &mut spans);
        let widened: Vec<(usize, usize)> = spans.iter().map(|s| (s.start, s.end)).collect();
        for (p, (start, end)) in found.iter_mut().zip(widened) {
            (p.start, p.end) = (start, end);
        }
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
                dialect: p.dialect.to_owned(),
                text: text[p.start..p.end].to_owned(),
            });
            out.push(match p.kind {
                PieceKind::Call(c) => {
                    let mut c = call_part(*c, &text[p.start..p.end]);
                    c.written = written;
                    Part::Call(c)
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
        out.extend(
            calls_after
                .into_iter()
                .map(|c| Part::Call(call_part(c, ""))),
        );
        m.parts.splice(i..=i, out);
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
