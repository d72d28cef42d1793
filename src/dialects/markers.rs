//! Dialects that put JSON between markers: a family, so each dialect is a row of data
//! (its markers, how the name and arguments are laid out, the keys it uses) read by one
//! scanner. Adding a model of this family is a row here or in a `--dialect-file`.

use super::hits::{absorb_wrappers, push_hits};
use super::{Channel, DialectRow, Hit, ScanContext, Scanner, shapes};
use crate::json::{Doc, Kind, Node, Obj};
use crate::model::{Call, Text};
use crate::scan::skip_ws;
use crate::{pyliteral, scan};
use memchr::memmem;

/// What follows the opening marker.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Payload {
    /// Call objects in JSON, up to the closing marker (or, with no closing marker or
    /// when it never comes, the one value that follows).
    Json {
        body: Body,
        keys: Option<&'static Keys>,
    },
    /// `[{"NAME": {arguments}}]`: the function name is the key (Apertus).
    NameKeyed,
    /// A head holding the name (and maybe an id), the `head_end` marker, then the JSON
    /// arguments, maybe in a Markdown fence. An empty `head_end` means the head runs
    /// up to the `{` (markers stripped).
    Named {
        head_end: &'static str,
        id_marker: Option<&'static str>,
        head: Head,
    },
    /// `NAME<open>{json}`: the open marker sits between the name and the arguments
    /// (`get_weather[ARGS]{…}` once `[TOOL_CALLS]` was stripped).
    NameBefore { id_marker: Option<&'static str> },
}

/// The JSON allowed after the marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// An object, an array of objects, or several objects.
    Any,
    /// An array of call objects.
    Array,
    /// Call objects one after another (one per line), no array.
    Lines,
    /// A Python literal (single quotes, `True`, `None`).
    Python,
}

/// How the head of a [`Payload::Named`] call gives its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// The head is the name.
    Name,
    /// `functions.NAME:INDEX` (Kimi K2): the name inside, the whole head as the id.
    Indexed,
}

/// The keys of a dialect's call objects, when they are not the usual ones
/// (`name`/`arguments`/`parameters`/`id`, which are always understood).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keys {
    pub(crate) name: &'static [&'static str],
    pub(crate) arguments: &'static [&'static str],
    pub(crate) id: &'static [&'static str],
}

/// One dialect of the family.
#[derive(Debug)]
pub(crate) struct MarkerRow {
    pub(crate) name: &'static str,
    /// The models that write it, for `toolsift dialects` and the README.
    pub(crate) models: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) example: &'static str,
    pub(crate) open: &'static str,
    pub(crate) close: Option<&'static str>,
    pub(crate) payload: Payload,
    /// Markers around a group of calls, taken into the call's span when adjacent.
    pub(crate) wrappers: &'static [(&'static str, &'static str)],
    /// The special tokens were stripped: found calls carry `stripped-markers` and lose
    /// to a marked dialect over the same text.
    pub(crate) stripped: bool,
}

const JSON: Payload = Payload::Json {
    body: Body::Any,
    keys: None,
};

const fn json(body: Body) -> Payload {
    Payload::Json { body, keys: None }
}

const fn row(
    name: &'static str,
    models: &'static str,
    summary: &'static str,
    example: &'static str,
    open: &'static str,
    close: Option<&'static str>,
    payload: Payload,
) -> MarkerRow {
    MarkerRow {
        name,
        models,
        summary,
        example,
        open,
        close,
        payload,
        wrappers: &[],
        stripped: false,
    }
}

const KIMI_SECTION: &[(&str, &str)] =
    &[("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>")];
const DEEPSEEK_SECTION: &[(&str, &str)] = &[("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")];
/// The usual keys, for a call object that has a name and nothing else.
const PLAIN_KEYS: Keys = Keys {
    name: &["name"],
    arguments: &["arguments", "parameters"],
    id: &["id"],
};
const INKLING_KEYS: Keys = Keys {
    name: &["name"],
    arguments: &["args"],
    id: &[],
};
const COHERE_KEYS: Keys = Keys {
    name: &["tool_name"],
    arguments: &["parameters"],
    id: &["tool_call_id"],
};

pub(crate) const ROWS: &[MarkerRow] = &[
    row(
        "hermes",
        "Hermes 2 Pro/3, Qwen2.5/Qwen3, QwQ, SmolLM3, Granite 4, EXAONE, Falcon3",
        "<tool_call>{json}</tool_call>, repeated for parallel calls; unclosed at the end counts",
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        "<tool_call>",
        Some("</tool_call>"),
        JSON,
    ),
    row(
        "mistral",
        "Mistral 7B v0.3, Mistral Nemo, Mistral Large 2407",
        "[TOOL_CALLS] followed by a JSON array of calls",
        "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abc123xyz\"}]",
        "[TOOL_CALLS]",
        None,
        JSON,
    ),
    row(
        "mistral-v11",
        "Magistral, Devstral, Mistral Small 3.x, Ministral",
        "[TOOL_CALLS]name[ARGS]{json}, with [CALL_ID]id in Small 3.2; also without [ARGS]",
        "[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Paris\"}",
        "[TOOL_CALLS]",
        None,
        Payload::Named {
            head_end: "[ARGS]",
            id_marker: Some("[CALL_ID]"),
            head: Head::Name,
        },
    ),
    // The same calls when `[ARGS]` is not in the text (a decoder that dropped it, or the
    // v11 tokenizer's text form `[TOOL_CALLS]name{json}`): the name runs up to the `{`.
    // Listed once, under the row above.
    row(
        "mistral-v11",
        "",
        "",
        "",
        "[TOOL_CALLS]",
        None,
        Payload::Named {
            head_end: "",
            id_marker: Some("[CALL_ID]"),
            head: Head::Name,
        },
    ),
    MarkerRow {
        stripped: true,
        ..row(
            "mistral-v11",
            "",
            "",
            "",
            "[ARGS]",
            None,
            Payload::NameBefore {
                id_marker: Some("[CALL_ID]"),
            },
        )
    },
    row(
        "llama3-python-tag",
        "Llama 3.1/3.2/3.3 Instruct",
        "<|python_tag|> followed by a {name, parameters} object, up to <|eom_id|> or <|eot_id|>",
        "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>",
        "<|python_tag|>",
        None,
        JSON,
    ),
    row(
        "functools",
        "FireFunction v2, Phi-4-mini",
        "functools[...] followed by a JSON array of calls",
        " functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
        "functools[",
        None,
        json(Body::Array),
    ),
    row(
        "functionary-v3.1",
        "Functionary v3.1 (Llama 3.1)",
        "<function=name>{json}</function>",
        "<function=get_weather>{\"city\": \"Paris\"}</function>",
        "<function=",
        Some("</function>"),
        Payload::Named {
            head_end: ">",
            id_marker: None,
            head: Head::Name,
        },
    ),
    row(
        "functionary-v3.2",
        "Functionary v3.2",
        ">>>name then the JSON arguments on the next line; >>>all starts plain text",
        ">>>get_weather\n{\"city\": \"Paris\"}",
        ">>>",
        None,
        Payload::Named {
            head_end: "\n",
            id_marker: None,
            head: Head::Name,
        },
    ),
    row(
        "granite",
        "Granite 3.0/3.1",
        "<|tool_call|> followed by a JSON array of calls",
        "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
        "<|tool_call|>",
        None,
        json(Body::Array),
    ),
    row(
        "granite-20b-fc",
        "Granite 20B function calling",
        "<function_call> before each JSON call object",
        "<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",
        "<function_call>",
        None,
        json(Body::Lines),
    ),
    row(
        "internlm",
        "InternLM2 / 2.5 chat",
        "<|action_start|><|plugin|> {name, parameters} <|action_end|>",
        "<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|action_end|>",
        "<|action_start|><|plugin|>",
        Some("<|action_end|>"),
        JSON,
    ),
    row(
        "jamba",
        "AI21 Jamba 1.5, Hunyuan-A13B, Apriel 1.5",
        "<tool_calls>[array of calls]</tool_calls>",
        "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</tool_calls>",
        "<tool_calls>",
        Some("</tool_calls>"),
        json(Body::Array),
    ),
    row(
        "minimax-m1",
        "MiniMax-M1, MiniMax-Text-01",
        "<tool_calls> with one JSON call object per line </tool_calls>",
        "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_calls>",
        "<tool_calls>",
        Some("</tool_calls>"),
        json(Body::Lines),
    ),
    row(
        "nemotron",
        "Nemotron Nano v2, Nemotron Deci",
        "<TOOLCALL>[array of calls]</TOOLCALL>",
        "<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]</TOOLCALL>",
        "<TOOLCALL>",
        Some("</TOOLCALL>"),
        JSON,
    ),
    row(
        "longcat",
        "LongCat-Flash",
        "<longcat_tool_call>{json}</longcat_tool_call>",
        "<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</longcat_tool_call>",
        "<longcat_tool_call>",
        Some("</longcat_tool_call>"),
        JSON,
    ),
    row(
        "apertus",
        "Apertus",
        "<|tools_prefix|>[{\"NAME\": {arguments}}]<|tools_suffix|>: the name is the key",
        "<|tools_prefix|>[{\"get_weather\": {\"city\": \"Paris\"}}]<|tools_suffix|>",
        "<|tools_prefix|>",
        Some("<|tools_suffix|>"),
        Payload::NameKeyed,
    ),
    row(
        "gigachat",
        "GigaChat 3",
        "function call<|role_sep|> followed by a {name, arguments} object",
        "function call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",
        "function call<|role_sep|>",
        None,
        JSON,
    ),
    row(
        "gigachat-3.1",
        "GigaChat 3.1",
        "<|function_call|> followed by a {name, arguments} object",
        "<|function_call|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",
        "<|function_call|>",
        None,
        JSON,
    ),
    row(
        "command-r",
        "Cohere Command R7B, Command A",
        "<|START_ACTION|>[{tool_call_id, tool_name, parameters}]<|END_ACTION|>",
        "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]<|END_ACTION|>",
        "<|START_ACTION|>",
        Some("<|END_ACTION|>"),
        // The template writes a list; one call alone is read too.
        Payload::Json {
            body: Body::Any,
            keys: Some(&COHERE_KEYS),
        },
    ),
    row(
        "inkling",
        "Inkling",
        "<|message_model|>NAME<|content_invoke_tool_json|>{\"name\", \"args\"}<|end_message|>",
        "<|message_model|>get_weather<|content_invoke_tool_json|>{\"name\": \"get_weather\", \"args\": {\"city\": \"Paris\"}}<|end_message|>",
        "<|content_invoke_tool_json|>",
        Some("<|end_message|>"),
        Payload::Json {
            body: Body::Any,
            keys: Some(&INKLING_KEYS),
        },
    ),
    // A name before the JSON arguments, inside Hermes' tags (the GLM-style
    // `<arg_key>` form is the `glm` row's; `<tool_call>{json}` is Hermes').
    row(
        "laguna",
        "Poolside Laguna",
        "<tool_call>NAME\\n{arguments}</tool_call> (also GLM-style arg_key/arg_value and Hermes JSON)",
        "<tool_call>get_weather\n{\"city\": \"Paris\"}\n</tool_call>",
        "<tool_call>",
        Some("</tool_call>"),
        Payload::Named {
            head_end: "",
            id_marker: None,
            head: Head::Name,
        },
    ),
    row(
        "sarashina",
        "SB Intuitions Sarashina",
        "<|tool_calls|> followed by a Python-literal list of {name, arguments} dicts",
        "<|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Paris'}}]",
        "<|tool_calls|>",
        None,
        json(Body::Python),
    ),
    MarkerRow {
        wrappers: KIMI_SECTION,
        ..row(
            "kimi-k2",
            "Kimi K2, K2-Thinking",
            "<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|> in a tool-calls section",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>",
            "<|tool_call_begin|>",
            Some("<|tool_call_end|>"),
            Payload::Named {
                head_end: "<|tool_call_argument_begin|>",
                id_marker: None,
                head: Head::Indexed,
            },
        )
    },
    MarkerRow {
        stripped: true,
        ..row(
            "kimi-k2",
            "",
            "",
            "",
            "functions.",
            None,
            Payload::Named {
                head_end: "",
                id_marker: None,
                head: Head::Indexed,
            },
        )
    },
    MarkerRow {
        wrappers: DEEPSEEK_SECTION,
        ..row(
            "deepseek-r1",
            "DeepSeek-R1, DeepSeek-V3-0324, R1 distills",
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME then ```json arguments```<｜tool▁call▁end｜>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>",
            Some("<｜tool▁call▁end｜>"),
            Payload::Named {
                head_end: "\n",
                id_marker: None,
                head: Head::Name,
            },
        )
    },
    MarkerRow {
        wrappers: DEEPSEEK_SECTION,
        ..row(
            "deepseek-v3.1",
            "DeepSeek-V3.1, V3.2-Exp",
            "<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>",
            Some("<｜tool▁call▁end｜>"),
            Payload::Named {
                head_end: "<｜tool▁sep｜>",
                id_marker: None,
                head: Head::Name,
            },
        )
    },
];

impl MarkerRow {
    /// Whether the marker is always followed by a name and the `{` of the arguments.
    pub(crate) fn head_before_brace(&self) -> bool {
        matches!(self.payload, Payload::Named { head_end, .. } if head_end.is_empty() || head_end == "\n")
            && !self.open.contains(['<', '['])
    }
}

pub(crate) struct Markers;
pub(crate) static MARKERS: Markers = Markers;

impl Scanner for Markers {
    fn channel(&self) -> Channel {
        Channel::Json
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, registry: &super::Registry) -> Vec<DialectRow> {
        // Variants of a row (its form without some marker) are listed under it, once.
        let mut listed = std::collections::HashSet::new();
        registry
            .markers
            .iter()
            .filter(|r| !r.stripped && listed.insert(r.name))
            .map(|r| DialectRow::new(r.name, Channel::Json, r.summary, r.example).models(r.models))
            .collect()
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let registry = ctx.registry;
        let s = text.text.as_str();
        let candidates = registry
            .marker_opens
            .candidates(text, |r| ctx.enabled(registry.markers[r].name));
        if candidates.is_empty() {
            return;
        }
        let mut from = 0;
        // Per row: once its close marker was not found after some point, it is not
        // found after any later one, so many unclosed markers cost one search.
        let mut no_close_after = vec![usize::MAX; registry.markers.len()];
        for (at, r) in candidates {
            if at < from {
                continue;
            }
            let row = registry.markers[r];
            let mut reading = Reading {
                strict: ctx.strict,
                at_end: false,
                values: None,
                no_call: false,
            };
            let found = match row.payload {
                Payload::Json { body, keys } => {
                    json_payload(row, s, at, body, keys, &mut no_close_after[r], &mut reading)
                }
                Payload::NameKeyed => json_payload(
                    row,
                    s,
                    at,
                    Body::Array,
                    None,
                    &mut no_close_after[r],
                    &mut reading,
                ),
                Payload::Named {
                    head_end,
                    id_marker,
                    head,
                } => named_payload(row, s, at, head_end, id_marker, head, &mut reading),
                Payload::NameBefore { id_marker } => {
                    name_before_payload(row, s, at, id_marker, &mut reading)
                }
            };
            if reading.at_end
                && let Some(resume) = ctx.resume
            {
                resume.unsettled_from(found.as_ref().map_or(at, |f| f.1.min(at)));
            }
            let Some((calls, start, end)) = found else {
                if reading.no_call {
                    ctx.note(text.line_at(at), || {
                        format!(
                            "{}: the JSON after {} names no tool; no call read from it",
                            row.name, row.open
                        )
                    });
                }
                continue;
            };
            let span = absorb_wrappers(s, start, end, row.wrappers);
            let first = out.len();
            push_hits(out, text, calls, span, row.stripped);
            // JSON values between markers that hold no other bracket or quote: the
            // walk of the text's JSON may pass over the block. (Only marked blocks:
            // the bare values inside one lose to it; see `json_text`.)
            let balanced = !row.stripped
                && reading.values.is_some_and(|(a, b)| {
                    a >= span.0 && b <= span.1 && plain(&s[span.0..a]) && plain(&s[b..span.1])
                });
            for hit in &mut out[first..] {
                hit.balanced = balanced;
            }
            from = span.1;
        }
    }
}

/// How one marker's payload is read: with repairs or not, whether the reading ran into
/// the end of the text (more text could change what it found), and where the JSON
/// values are when they are all the block holds between its markers.
struct Reading {
    strict: bool,
    at_end: bool,
    values: Option<(usize, usize)>,
    /// JSON followed the marker, whole, and no call was in it.
    no_call: bool,
}

/// Text around JSON values that a walk of the JSON passes through outside any value: no
/// quote or brace, and square brackets that pair up (`[TOOL_CALLS]`).
fn plain(s: &str) -> bool {
    let mut depth = 0usize;
    for b in s.bytes() {
        match b {
            b'"' | b'{' | b'}' => return false,
            b'[' => depth += 1,
            b']' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

/// JSON right after the open marker: up to the close marker, or, when the dialect has
/// none or it never comes, the one value that follows (marked when the close is
/// missing). Nothing but JSON may follow the marker, so a marker named in prose costs
/// nothing.
fn json_payload(
    row: &MarkerRow,
    s: &str,
    at: usize,
    body_kind: Body,
    keys: Option<&Keys>,
    no_close_after: &mut usize,
    reading: &mut Reading,
) -> Option<(Vec<Call>, usize, usize)> {
    // A marker may end with the payload's first bracket (`functools[`).
    let after = at + row.open.len();
    let start = if row.open.ends_with(['[', '{']) {
        after - 1
    } else {
        skip_ws(s, after)
    };
    reading.at_end = start >= s.len();
    let first = *s.as_bytes().get(start)?;
    let allowed = match body_kind {
        Body::Array => first == b'[',
        Body::Lines => first == b'{',
        Body::Any | Body::Python => first == b'[' || first == b'{',
    };
    if !allowed {
        return None;
    }
    // The values come first, read string-aware: a close marker written inside a string
    // (code that prints `</tool_call>`) does not end the block. The close marker is
    // expected right after them.
    // A value does not run past the next opening marker: an unclosed one ends there,
    // and many unclosed markers cost one short scan each, not one to the end of the text.
    let limit = memmem::find(&s.as_bytes()[start + 1..], row.open.as_bytes())
        .map_or(s.len(), |n| start + 1 + n);
    // Up to the next block, all is read from text before it; the last block is read up
    // to the end of the text, and what it found there could go otherwise.
    let last_block = limit == s.len();
    let value_end = |p: usize| {
        if body_kind == Body::Python {
            pyliteral::parse_prefix(&s[p..limit]).map(|(_, used)| p + used)
        } else {
            scan::balanced_end(&s[..limit], p)
        }
    };
    let mut values_end = None;
    // Whether more than one value followed the marker.
    let mut chained = false;
    if let Some(mut end) = value_end(start) {
        // More values right after, alone, one per line, or after `;` (Llama 3's
        // parallel calls), up to the close marker.
        loop {
            let mut p = skip_ws(s, end);
            // `;` (Llama 3) or `,` between the values (two objects in one block).
            if s[p..].starts_with([';', ',']) {
                p = skip_ws(s, p + 1);
            }
            let more =
                s[p..].starts_with('{') || (body_kind != Body::Lines && s[p..].starts_with('['));
            match more.then(|| value_end(p)) {
                Some(Some(next)) if row.close.is_some() || s[p..].starts_with('{') => {
                    end = next;
                    chained = true;
                }
                found => {
                    reading.at_end |= last_block && (p >= s.len() || found == Some(None));
                    break;
                }
            }
        }
        values_end = Some(end);
    } else {
        reading.at_end |= last_block;
    }
    let closed_at = match (values_end, row.close) {
        (Some(end), Some(close)) => {
            let p = skip_ws(s, end);
            if s[p..].starts_with(close) {
                Some((end, p + close.len()))
            } else {
                // Words after the JSON (`{...} Let me check.</tool_call>`): the block
                // still closes at its marker, if one comes before the next block.
                let between = s.as_bytes().get(p..limit).unwrap_or_default();
                let found =
                    memmem::find(between, close.as_bytes()).map(|n| (end, p + n + close.len()));
                reading.at_end |= last_block && found.is_none();
                found
            }
        }
        // Broken JSON: the close marker is the best guess of where it ends.
        (None, Some(close)) if start < *no_close_after => {
            let found = memmem::find(&s.as_bytes()[start..], close.as_bytes())
                .map(|n| (start + n, start + n + close.len()));
            if found.is_none() {
                *no_close_after = start;
            }
            reading.at_end |= found.is_none();
            // A close marker after the next block's opening is that block's.
            found.filter(|&(c, _)| c <= limit)
        }
        // Searched before from an earlier start, and not found.
        (None, Some(_)) => {
            reading.at_end = true;
            None
        }
        _ => None,
    };
    let (body_end, end) = match (closed_at, values_end) {
        (Some(pair), _) => pair,
        (None, Some(end)) => (end, end),
        // An unclosed block ends where the next one starts.
        (None, None) => (limit, limit),
    };
    let body = &s[start..body_end];
    let mut calls = Vec::new();
    if body_kind == Body::Python {
        let (value, _) = pyliteral::parse_prefix(body)?;
        let json = value.to_string();
        calls = shapes::calls(Doc::parse(&json).ok()?.root(), None);
    } else {
        let read = |slice: &str, calls: &mut Vec<Call>| match (&row.payload, keys) {
            (Payload::NameKeyed, _) => calls.extend(name_keyed(slice, reading.strict)),
            (_, Some(keys)) => calls.extend(keyed(slice, keys, reading.strict)),
            _ => calls.extend(super::json_text::calls_in_json(slice, reading.strict)),
        };
        if values_end == Some(body_end) {
            reading.values = Some((start, body_end));
        }
        if !chained && values_end == Some(body_end) {
            // The body is the one value read above: no need to find it again.
            read(body, &mut calls);
        } else if matches!(row.payload, Payload::NameKeyed) && values_end.is_none() {
            // Cut short: the values inside (`{"location": …}`) are arguments, not calls.
            read(body, &mut calls);
        } else {
            for found in scan::json_values(body) {
                read(&body[found.start..found.end], &mut calls);
            }
        }
        if calls.is_empty() && keys.is_none() && !matches!(row.payload, Payload::NameKeyed) {
            // A name and no arguments: between the dialect's own markers, still a call.
            for found in scan::json_values(body) {
                calls.extend(keyed(
                    &body[found.start..found.end],
                    &PLAIN_KEYS,
                    reading.strict,
                ));
            }
        }
    }
    if calls.is_empty() {
        reading.no_call = values_end.is_some();
        return None;
    }
    for call in &mut calls {
        call.dialect = row.name;
        if row.close.is_some() && closed_at.is_none() {
            call.repairs.push("missing-close-tag");
        }
    }
    Some((calls, at, end))
}

/// Calls of a dialect with its own keys; the usual shapes when the keys are absent.
fn keyed(slice: &str, keys: &Keys, strict: bool) -> Vec<Call> {
    let read = scan::with_json(slice, strict, |root, repairs| {
        let mut calls = Vec::new();
        for item in items_of(root) {
            let Some(o) = item.object() else {
                return Vec::new();
            };
            let Some(name) = first_of(&o, keys.name)
                .and_then(|n| n.str())
                .filter(|n| scan::is_tool_name(n))
            else {
                calls.extend(shapes::calls(item, None));
                continue;
            };
            let id = first_of(&o, keys.id).and_then(|v| match v.kind() {
                Kind::String => v.str().map(Into::into),
                // The number as written.
                Kind::Number => serde_json::from_str::<serde_json::Value>(v.text())
                    .ok()
                    .map(|n| n.to_string()),
                _ => None,
            });
            let mut call = Call::new(name, "", 0).with_id(id);
            shapes::set_args(&mut call, first_of(&o, keys.arguments));
            call.repairs.extend(repairs.iter().copied());
            calls.push(call);
        }
        calls
    });
    read.unwrap_or_else(|_| super::json_text::calls_in_json(slice, strict))
}

/// The elements of an array, or the value itself.
fn items_of(root: Node) -> Vec<Node> {
    if root.kind() == Kind::Array {
        root.items().collect()
    } else {
        vec![root]
    }
}

/// The value of the first of `names` present in `o`.
fn first_of<'a>(o: &Obj<'a>, names: &[&str]) -> Option<Node<'a>> {
    names.iter().find_map(|k| o.get(k))
}

/// `[{"NAME": {arguments}}, ...]`.
fn name_keyed(slice: &str, strict: bool) -> Vec<Call> {
    let read = scan::with_json(slice, strict, |root, repairs| {
        let mut calls = Vec::new();
        for item in items_of(root) {
            let Some(o) = item.object() else {
                return Vec::new();
            };
            // One key (written more than once, the last value counts, as in serde_json).
            let mut entries = o.iter();
            let Some((name, mut args)) = entries.next() else {
                return Vec::new();
            };
            for (key, value) in entries {
                if key != name {
                    return Vec::new();
                }
                args = value;
            }
            if !scan::is_tool_name(&name) {
                return Vec::new();
            }
            let mut call = Call::new(name, "", 0);
            shapes::set_args(&mut call, Some(args));
            call.repairs.extend(repairs.iter().copied());
            calls.push(call);
        }
        calls
    });
    read.unwrap_or_default()
}

/// The longest a head (name and id) may be: a marker named in prose with no head end
/// after it costs a short look, not a search to the end of the text.
const MAX_HEAD: usize = 256;

/// `OPEN head HEAD_END {json} CLOSE?`.
fn named_payload(
    row: &MarkerRow,
    s: &str,
    at: usize,
    head_end: &str,
    id_marker: Option<&str>,
    head_kind: Head,
    reading: &mut Reading,
) -> Option<(Vec<Call>, usize, usize)> {
    let head_start = at + row.open.len();
    // A head cut short by the end of the text, or arguments that run into it.
    reading.at_end = head_start + MAX_HEAD >= s.len();
    let window = &s.as_bytes()[head_start..(head_start + MAX_HEAD).min(s.len())];
    let (head_stop, json_from) = if head_end.is_empty() {
        let n = memchr::memchr(b'{', window);
        // A head that holds what no name does (prose after the marker) is settled:
        // no text after it makes it a call.
        let head = window[..n.unwrap_or(window.len())].trim_ascii();
        // After a tag (`<tool_call>NAME`) the name comes right after it.
        let spaced = row.open.ends_with('>') && window.first().is_some_and(u8::is_ascii_whitespace);
        if spaced
            || head.iter().any(|&b| {
                b.is_ascii_whitespace()
                    || matches!(b, b'<' | b'>' | b'"' | b'[' | b']' | b'}' | b',')
            })
        {
            reading.at_end = false;
            return None;
        }
        let n = n?;
        (head_start + n, head_start + n)
    } else {
        let n = memmem::find(window, head_end.as_bytes())?;
        (head_start + n, head_start + n + head_end.len())
    };
    let head = &s[head_start..head_stop];
    // `>>>name` has no space after the marker; a Python prompt (`>>> x`, then a dict
    // printed on the next line) does.
    if head_end == "\n" && head.starts_with(char::is_whitespace) {
        return None;
    }
    let (head, id) = match id_marker.and_then(|m| head.find(m).map(|i| (i, m))) {
        Some((i, m)) => (&head[..i], Some(head[i + m.len()..].trim().to_owned())),
        None => (head, None),
    };
    let head = head.trim();
    let (name, id) = match head_kind {
        Head::Name => (head, id),
        Head::Indexed => {
            let bare = head.strip_prefix("functions.").unwrap_or(head);
            let (name, index) = bare.rsplit_once(':')?;
            if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (name, Some(format!("functions.{name}:{index}")))
        }
    };
    if !scan::is_tool_name(name) || (row.name == "functionary-v3.2" && name == "all") {
        return None;
    }
    // The arguments, maybe in a ```json fence.
    let mut json_start = skip_ws(s, json_from);
    let fenced = s[json_start..].starts_with("```");
    if fenced {
        let line_end = s[json_start..].find('\n');
        reading.at_end |= line_end.is_none();
        json_start = skip_ws(s, json_start + line_end?);
    }
    reading.at_end |= json_start + 3 >= s.len();
    if !s[json_start..].starts_with('{') {
        return None;
    }
    let mut call = Call::new(name, row.name, 0).with_id(id);
    // Broken arguments end at the call's own close marker, or where the next call
    // opens: they do not take the calls after them.
    if let Some((bound, closed)) = broken_bound(row, s, json_start) {
        let mut raw = s[json_start..bound].trim_end();
        if fenced {
            raw = raw.strip_suffix("```").unwrap_or(raw).trim_end();
        }
        shapes::json_arguments(&mut call, raw, true, false);
        let end = match (closed, row.close) {
            (true, Some(close)) => bound + close.len(),
            (_, close) => {
                if close.is_some() {
                    call.repairs.push("missing-close-tag");
                }
                json_start + raw.len()
            }
        };
        return Some((vec![call], at, end));
    }
    let json_end = scan::balanced_end(s, json_start).unwrap_or(s.len());
    reading.at_end |= json_end == s.len();
    let slice = &s[json_start..json_end];
    let mut end = json_end;
    if fenced && s[skip_ws(s, end)..].starts_with("```") {
        end = skip_ws(s, end) + 3;
    }
    shapes::json_arguments(&mut call, slice, reading.strict, false);
    if let Some(close) = row.close {
        let after = skip_ws(s, end);
        if s[after..].starts_with(close) {
            end = after + close.len();
        } else {
            call.repairs.push("missing-close-tag");
        }
    }
    Some((vec![call], at, end))
}

/// Where the arguments starting at `json_start` end when they are broken JSON that
/// would otherwise run into the next call: the row's close marker (`true`) or the next
/// open marker (`false`), the first met outside a JSON string before the value closes.
/// `None` when the value closes first (markers inside its strings are text), or when
/// the text ends first (JSON cut off at the end of the text, repaired). A string left
/// open to the end of the text ends at the first marker in it.
fn broken_bound(row: &MarkerRow, s: &str, json_start: usize) -> Option<(usize, bool)> {
    let bytes = s.as_bytes();
    let close = row.close.map(str::as_bytes);
    let open = row.open.as_bytes();
    let marker_at = |i: usize| {
        let rest = &bytes[i..];
        if close.is_some_and(|c| rest.starts_with(c)) {
            Some((i, true))
        } else if rest.starts_with(open) {
            Some((i, false))
        } else {
            None
        }
    };
    let mut depth = 0usize;
    let mut i = json_start;
    while i < bytes.len() {
        if i > json_start
            && let Some(found) = marker_at(i)
        {
            return Some(found);
        }
        match bytes[i] {
            b'"' => {
                let mut j = i + 1;
                loop {
                    match bytes.get(j) {
                        Some(b'\\') => j += 2,
                        Some(b'"') => break,
                        Some(_) => j += 1,
                        // Open to the end of the text: the first marker inside it.
                        None => return (i + 1..bytes.len()).find_map(marker_at),
                    }
                }
                i = j;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => match depth.checked_sub(1) {
                Some(0) | None => return None,
                Some(d) => depth = d,
            },
            _ => {}
        }
        i += 1;
    }
    None
}

/// `NAME[CALL_ID]ID<open>{json}`, read backwards from the open marker.
fn name_before_payload(
    row: &MarkerRow,
    s: &str,
    at: usize,
    id_marker: Option<&str>,
    reading: &mut Reading,
) -> Option<(Vec<Call>, usize, usize)> {
    let word_before = |end: usize| {
        let start = s[..end]
            .bytes()
            .rposition(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
            .map_or(0, |p| p + 1);
        (start < end).then_some(start)
    };
    let mut name_end = at;
    let mut id = None;
    let mut start = word_before(name_end)?;
    if let Some(m) = id_marker
        && s[..start].ends_with(m)
    {
        id = Some(s[start..at].to_owned());
        name_end = start - m.len();
        start = word_before(name_end)?;
    }
    let name = &s[start..name_end];
    if !scan::is_tool_name(name) || name.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let json_start = skip_ws(s, at + row.open.len());
    reading.at_end = json_start >= s.len();
    if !s[json_start..].starts_with('{') {
        return None;
    }
    let mut call = Call::new(name, row.name, 0).with_id(id);
    if let Some((bound, _)) = broken_bound(row, s, json_start) {
        // Broken arguments end before the next call's name (and id).
        let mut stop = word_before(bound).unwrap_or(bound);
        if let Some(m) = id_marker
            && s[..stop].ends_with(m)
        {
            stop = word_before(stop - m.len()).unwrap_or(stop - m.len());
        }
        let raw = s[json_start..stop.max(json_start)].trim_end();
        shapes::json_arguments(&mut call, raw, true, false);
        return Some((vec![call], start, json_start + raw.len()));
    }
    let end = scan::balanced_end(s, json_start).unwrap_or(s.len());
    reading.at_end |= end == s.len();
    let slice = &s[json_start..end];
    shapes::json_arguments(&mut call, slice, reading.strict, false);
    Some((vec![call], start, end))
}

#[cfg(test)]
mod tests {

    #[test]
    fn blocks_of_json_between_markers_only_are_balanced() {
        let balanced =
            |text: &str| -> Vec<bool> { scan_text(text).iter().map(|h| h.balanced).collect() };
        let call = r#"{"name": "f", "arguments": {}}"#;
        assert_eq!(
            balanced(&format!("<tool_call>\n{call}\n</tool_call>")),
            [true]
        );
        assert_eq!(
            balanced(&format!("[TOOL_CALLS][{call}, {call}]")),
            [true, true]
        );
        // Words (and a bracket) between the JSON and the close marker, or a missing close.
        assert_eq!(
            balanced(&format!("<tool_call>{call} see [1</tool_call>")),
            [false]
        );
        assert_eq!(balanced(&format!("<tool_call>{call} done")), [true]);
    }

    #[test]
    fn the_last_block_is_unsettled_only_when_more_text_could_change_it() {
        let resume = |text: &str| super::super::resume_for_test(&MARKERS, text).0;
        let closed = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n";
        assert_eq!(resume(closed), None);
        // Named in prose: nothing after it can make it a call.
        assert_eq!(
            resume(&format!("{closed}Calls go in <tool_call> tags.\n")),
            None
        );
        // No close marker yet, a value still open, or nothing but white space after it.
        let at = closed.len();
        for tail in [
            "<tool_call>{\"name\": \"g\", \"arguments\": {}}\nmore words",
            "<tool_call>{\"name\": \"g\", \"arguments\": {",
            "<tool_call>\n  ",
        ] {
            assert_eq!(resume(&format!("{closed}{tail}")), Some(at), "{tail}");
        }
        // An earlier block without its close is settled by the next block's opening.
        let text = format!("<tool_call>{{\"name\": \"g\", \"arguments\": {{}}}}\nwords\n{closed}");
        assert_eq!(resume(&text), None);
    }
    use super::*;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&MARKERS, text, &[], false)
    }

    #[test]
    fn words_between_the_json_and_the_close_marker_stay_inside_the_block() {
        let text = "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\nLet me check.\n</tool_call> then\n<tool_call>{\"name\": \"b\", \"arguments\": {}} and </tool_call>";
        let hits = scan_text(text);
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        for hit in &hits {
            assert!(hit.call.repairs.is_empty(), "{:?}", hit.call.repairs);
            assert!(text[..hit.end].ends_with("</tool_call>"));
        }
        // A close marker only after the next block's opening is not this block's.
        let hits = scan_text(
            "<tool_call>{\"name\": \"a\", \"arguments\": {}} oops\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
        );
        assert_eq!(hits[0].call.repairs, ["missing-close-tag"]);
        assert!(hits[1].call.repairs.is_empty());
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

    #[test]
    fn names_from_heads_and_sections_absorbed() {
        let text = "x <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|> y";
        let hits = super::super::resolve(scan_text(text));
        assert_eq!(hits.len(), 1);
        let c = &hits[0].call;
        assert_eq!(
            (c.name.as_str(), c.id.as_deref()),
            ("get_weather", Some("functions.get_weather:0"))
        );
        assert_eq!(&text[hits[0].start..hits[0].end], &text[2..text.len() - 2]);
    }

    #[test]
    fn stripped_markers_lose_to_marked_ones() {
        let hits = super::super::resolve(scan_text("[TOOL_CALLS]f[ARGS]{\"a\": 1}"));
        assert_eq!(hits.len(), 1);
        assert!(hits[0].call.repairs.is_empty());
        let hits = super::super::resolve(scan_text("ok. f[ARGS]{\"a\": 1}g[CALL_ID]x9[ARGS]{}"));
        let got: Vec<(&str, Option<&str>, &[&str])> = hits
            .iter()
            .map(|h| {
                (
                    h.call.name.as_str(),
                    h.call.id.as_deref(),
                    h.call.repairs.as_slice(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("f", None, &["stripped-markers"][..]),
                ("g", Some("x9"), &["stripped-markers"][..])
            ]
        );
    }

    #[test]
    fn name_keyed_and_own_keys() {
        let hits = scan_text("<|tools_prefix|>[{\"f\": {\"a\": 1}}, {\"g\": {}}]<|tools_suffix|>");
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
        let hits = scan_text(
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {\"a\": 1}}]<|END_ACTION|>",
        );
        assert_eq!(
            (hits[0].call.dialect, hits[0].call.id.as_deref()),
            ("command-r", Some("0"))
        );
        assert_eq!(hits[0].call.arguments["a"], 1);
    }

    #[test]
    fn inkling_args_and_laguna_names_before_json() {
        let hits = scan_text(
            "<|message_model|>f<|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {\"a\": 1}}<|end_message|>",
        );
        assert_eq!(
            (hits[0].call.dialect, hits[0].call.name.as_str()),
            ("inkling", "f")
        );
        assert_eq!(hits[0].call.arguments["a"], 1);
        let hits = super::super::resolve(scan_text(
            "<tool_call>g\n{\"b\": 2}\n</tool_call><tool_call>\n{\"name\": \"h\", \"arguments\": {}}\n</tool_call>",
        ));
        let got: Vec<(&str, &str)> = hits
            .iter()
            .map(|h| (h.call.dialect, h.call.name.as_str()))
            .collect();
        assert_eq!(got, [("laguna", "g"), ("hermes", "h")]);
        assert_eq!(hits[0].call.arguments["b"], 2);
        assert!(hits[0].call.repairs.is_empty());
        // GLM's key/value form is not a name before JSON.
        assert!(
            scan_text("<tool_call>g\n<arg_key>k</arg_key><arg_value>{}</arg_value></tool_call>")
                .is_empty()
        );
    }

    #[test]
    fn a_close_marker_inside_a_string_does_not_end_the_block() {
        let hits = scan_text(
            "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"code\": \"print('</tool_call>')\"}}\n</tool_call> after",
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.arguments["code"], "print('</tool_call>')");
        assert!(
            hits[0].call.repairs.is_empty(),
            "{:?}",
            hits[0].call.repairs
        );
        let hits = scan_text(
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {\"x\": \"<|END_ACTION|>\"}}]<|END_ACTION|>",
        );
        assert_eq!(hits[0].call.arguments["x"], "<|END_ACTION|>");
        // Broken JSON still ends at the close marker, repaired.
        let hits =
            scan_text("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1</tool_call> next");
        assert_eq!(hits[0].call.arguments["a"], 1);
    }

    #[test]
    fn a_name_without_arguments_in_markers_is_a_call() {
        for text in [
            "<tool_call>\n{\"name\": \"ping\"}\n</tool_call>",
            "<|START_ACTION|>{\"tool_name\": \"ping\"}<|END_ACTION|>",
        ] {
            let hits = scan_text(text);
            assert_eq!(hits.len(), 1, "{text}");
            assert_eq!(hits[0].call.name, "ping");
            assert!(hits[0].call.is_valid());
            assert!(hits[0].call.repairs.is_empty());
        }
    }

    #[test]
    fn a_truncated_apertus_call_keeps_its_name() {
        let hits = scan_text("<|tools_prefix|>[{\"get_weather\": {\"location\": \"London\"}");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.name, "get_weather");
        assert_eq!(hits[0].call.arguments["location"], "London");
        assert!(hits[0].call.repairs.contains(&"missing-close-tag"));
    }

    #[test]
    fn markers_named_in_prose_are_not_calls() {
        for t in [
            "use <tool_call> tags",
            "the >>>all marker",
            "functions.f:x{}",
            "call functools to",
            "[ARGS]{\"a\": 1}",
            "<function=f> then prose",
            ">>> config\n{\"debug\": true}",
        ] {
            assert!(scan_text(t).is_empty(), "{t}");
        }
    }
}
