//! OpenAI Harmony (gpt-oss): a message addressed to a tool. The header names the
//! recipient (`to=functions.NAME`) before or after the channel, may carry a
//! `<|constrain|>json` (with or without a space before it), and the arguments follow
//! `<|message|>` up to `<|call|>`. A call on the `analysis` channel is reasoning.
//!
//! Decoded with the special tokens skipped, a call leaves a remnant:
//! `assistantcommentary to=functions.get_weather json{"city": "Paris"}`, or with the
//! recipient first, `assistant to=functions.read_filecommentary json{"path": "a"}`
//! (the channel glued to the name). Those are calls too, marked `stripped-markers`.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::scan;

pub(crate) const NAME: &str = "harmony";
const MESSAGE: &str = "<|message|>";
/// Tokens that end a message body.
const ENDS: [&str; 4] = ["<|call|>", "<|end|>", "<|return|>", "<|start|>"];
/// How far back from `<|message|>` a header may start.
const MAX_HEADER: usize = 512;

pub(crate) struct Harmony;
pub(crate) static HARMONY: Harmony = Harmony;

impl Scanner for Harmony {
    fn channel(&self) -> Channel {
        Channel::Json
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![DialectRow::new(
            NAME,
            Channel::Json,
            "OpenAI Harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{json}<|call|> (recipient before or after the channel; analysis-channel calls are reasoning; also the remnant left when the special tokens were stripped)",
            "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
        )
        .models("gpt-oss-20b, gpt-oss-120b")]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let openers = text.openers();
        let mut ends = scan::NextFind::default();
        let mut from = 0;
        for &at in &openers.angle {
            if at < from || !s[at..].starts_with(MESSAGE) {
                continue;
            }
            let Some(hit) = message(s, from, at, ctx, &mut ends) else {
                continue;
            };
            // A message with no end token runs to the end of the text.
            if hit.end == s.len()
                && let Some(resume) = ctx.resume
            {
                resume.unsettled_from(hit.start);
            }
            from = hit.end;
            let mut hit = hit;
            hit.call.line = text.line_at(hit.start);
            out.push(hit);
        }
        let mut marked: Vec<(usize, usize)> = out
            .iter()
            .filter(|h| h.call.dialect == NAME)
            .map(|h| (h.start, h.end))
            .collect();
        marked.sort_unstable();
        let recipients = recipients_before_braces(s.as_bytes(), &openers.named_braces);
        for (k, &to) in recipients.iter().enumerate() {
            let i = marked.partition_point(|&(a, _)| a <= to);
            if i > 0 && to < marked[i - 1].1 {
                continue;
            }
            // A remnant's JSON ends before the next recipient: many unclosed ones cost
            // a short scan each, not one to the end of the text.
            let limit = recipients.get(k + 1).copied().unwrap_or(s.len());
            let found = remnant(&s[..limit], to, ctx.strict);
            if limit == s.len()
                && found.as_ref().is_none_or(|(_, span)| span.1 == s.len())
                && let Some(resume) = ctx.resume
            {
                resume.unsettled_from(found.as_ref().map_or(to, |(_, span)| span.0.min(to)));
            }
            if let Some((call, span)) = found {
                super::hits::push_hits(out, text, vec![call], span, true);
            }
        }
    }
}

/// The recipient of a function call, with the special tokens around it or not.
const RECIPIENT: &str = "to=functions.";
const CHANNELS: [&str; 2] = ["commentary", "analysis"];

/// Where a stripped remnant's `to=functions.` may stand: for each `{` with a name before
/// it (`braces`, the text's `named_braces`), the recipient that ends the run of at most
/// three words (name, channel, `json`) before it, in text order. A remnant's JSON
/// follows its recipient within those words, so walking back from the braces finds
/// every remnant without a search of the whole text; [`remnant`] checks the words. Each
/// walk stops at the first byte that is neither white space nor a name's, and `{` is
/// such a byte, so the walks together cover the text at most once.
fn recipients_before_braces(s: &[u8], braces: &[usize]) -> Vec<usize> {
    let word = crate::model::name_byte;
    let mut out = Vec::new();
    for &brace in braces {
        let mut p = brace;
        for _ in 0..3 {
            while p > 0 && s[p - 1].is_ascii_whitespace() {
                p -= 1;
            }
            let end = p;
            while p > 0 && word(s[p - 1]) {
                p -= 1;
            }
            if p == end {
                break;
            }
            if s[p..].starts_with(b"functions.") && s[..p].ends_with(b"to=") {
                out.push(p - 3);
                break;
            }
        }
    }
    out
}

/// The call left at `to` (a `to=functions.`) when the special tokens were stripped:
/// `[assistant][channel] to=functions.NAME[channel] [json|code]{json}`, ending in `s`:
/// the call and its span.
fn remnant(s: &str, to: usize, strict: bool) -> Option<(Call, (usize, usize))> {
    let name_at = to + RECIPIENT.len();
    let rest = &s[name_at..];
    let glued = &rest[..rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/')))
        .unwrap_or(rest.len())];
    // What came before `to=`: the channel when it came first, and the role, glued to
    // each other and to the text before them (`Checking.assistantcommentary`).
    let before = s[..to].trim_end_matches([' ', '\t']);
    let mut channel = CHANNELS.into_iter().find(|c| before.ends_with(c));
    let mut start = before.len() - channel.map_or(0, str::len);
    if s[..start].ends_with("assistant") {
        start -= "assistant".len();
    } else if channel.is_none() {
        start = to;
    }
    let mut name = glued;
    let mut p = name_at + glued.len();
    if channel.is_none() {
        // The recipient came first: the channel is glued to the name, or follows it.
        if let Some(c) = CHANNELS
            .into_iter()
            .find(|c| glued.len() > c.len() && glued.ends_with(c))
        {
            name = &glued[..glued.len() - c.len()];
            channel = Some(c);
        } else {
            let q = scan::skip_ws(s, p);
            if let Some(c) = CHANNELS.into_iter().find(|c| s[q..].starts_with(c)) {
                channel = Some(c);
                p = q + c.len();
            }
        }
    }
    if !scan::is_tool_name(name) {
        return None;
    }
    // `<|constrain|>json` leaves its word; `<|message|>` leaves nothing.
    p = scan::skip_ws(s, p);
    if let Some(c) = ["json", "code"].into_iter().find(|c| s[p..].starts_with(c)) {
        p = scan::skip_ws(s, p + c.len());
    }
    if !s[p..].starts_with('{') {
        return None;
    }
    let end = scan::balanced_end(s, p)?;
    let mut call = Call::new(name, NAME, 0);
    call.in_reasoning = channel == Some("analysis");
    super::shapes::json_arguments(&mut call, &s[p..end], strict, false);
    Some((call, (start, end)))
}

/// Harmony's built-in tools, declared by the system message when enabled:
/// `browser.search`, `python`, `container.exec`.
const BUILTIN_NAMESPACES: [&str; 3] = ["browser", "python", "container"];

/// Whether a recipient outside `functions.` is a tool: a built-in one, or a name (or the
/// namespace of a name) declared with `--tools`.
fn is_tool_namespace(recipient: &str, tools: &[crate::tools::Tool]) -> bool {
    let namespace = recipient.split('.').next().unwrap_or(recipient);
    BUILTIN_NAMESPACES.contains(&namespace)
        || tools.iter().any(|t| {
            t.name == recipient
                || t.name
                    .strip_prefix(namespace)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
}

/// The call whose `<|message|>` is at `msg`, if its header names a recipient.
fn message(
    s: &str,
    from: usize,
    msg: usize,
    ctx: &ScanContext,
    ends: &mut scan::NextFind,
) -> Option<Hit> {
    let strict = ctx.strict;
    let mut lo = msg.saturating_sub(MAX_HEADER).max(from);
    while !s.is_char_boundary(lo) {
        lo += 1;
    }
    let window = &s[lo..msg];
    // The header starts at the last `<|start|>`, else at the last `<|channel|>`, after
    // the end of any earlier message.
    let after_prev = ENDS[..3]
        .iter()
        .filter_map(|e| window.rfind(e).map(|i| i + e.len()))
        .max()
        .unwrap_or(0);
    // A header whose `<|start|>assistant` was in the prompt starts at its recipient or
    // its channel, whichever comes first.
    let word_of = |i: usize| {
        // After the last white space, which may be wider than a byte (U+00A0).
        window[..i]
            .char_indices()
            .rfind(|(_, c)| c.is_whitespace())
            .map_or(0, |(w, c)| w + c.len_utf8())
    };
    let header_at = window[after_prev..]
        .rfind("<|start|>")
        .map(|i| after_prev + i)
        .or_else(|| {
            let channel = after_prev + window[after_prev..].find("<|channel|>")?;
            Some(match window[after_prev..channel].rfind("to=") {
                Some(i) => word_of(after_prev + i).max(after_prev),
                None => channel,
            })
        })
        .or_else(|| window.rfind("to=").map(word_of))?;
    let header = &window[header_at..];
    let to = header.find("to=")?;
    let recipient = &header[to + 3..];
    let recipient = &recipient[..recipient
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(recipient.len())];
    let name = match recipient.strip_prefix("functions.") {
        Some(name) => name,
        // `to=user` and any other recipient that is no tool: a message, not a call.
        None if is_tool_namespace(recipient, ctx.tools) => recipient,
        None => return None,
    };
    if !scan::is_tool_name(name) {
        return None;
    }
    let channel = header.find("<|channel|>").map(|c| {
        let rest = &header[c + "<|channel|>".len()..];
        &rest[..rest
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(rest.len())]
    });
    let body_start = msg + MESSAGE.len();
    let (body_end, end) = ENDS
        .iter()
        .filter_map(|e| {
            ends.find(s, e, body_start).map(|at| {
                // `<|call|>` belongs to the call; a following header does not.
                (at, if *e == "<|start|>" { at } else { at + e.len() })
            })
        })
        .min()
        .unwrap_or((s.len(), s.len()));
    let body = s[body_start..body_end].trim();
    let mut call = Call::new(name, NAME, 0);
    call.in_reasoning = channel == Some("analysis");
    super::shapes::json_arguments(&mut call, body, strict, false);
    Some(Hit {
        call,
        start: lo + header_at,
        end,
        balanced: false,
        specificity: MARKED,
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_message_without_its_end_token_is_unsettled() {
        let open = "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}";
        let resume = |text: &str| super::super::resume_for_test(&HARMONY, text).0;
        assert_eq!(resume(open), Some(0));
        assert_eq!(resume(&format!("{open}<|call|>\nmore")), None);
        // A remnant whose JSON is not closed yet.
        assert_eq!(resume("ok. to=functions.f json{\"a\": "), Some(4));
        assert_eq!(resume("ok. to=functions.f json{\"a\": 1} done"), None);
    }
    use super::*;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&HARMONY, text, &[], false)
    }

    #[test]
    fn a_header_after_wide_white_space_is_read_without_a_panic() {
        let hits = scan_text("note\u{a0}to=functions.f<|message|>{\"a\": 1}<|call|>");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.name, "f");
    }

    #[test]
    fn remnants_of_stripped_special_tokens() {
        let text = "analysisNeed the weather.assistantcommentaryChecking.assistantcommentary to=functions.get_weather json{\"city\": \"Paris\"}assistant to=functions.read_filecommentary json{\"path\": \"a\"}assistantanalysis to=functions.run_analysis code{}";
        let hits = scan_text(text);
        let got: Vec<(&str, bool)> = hits
            .iter()
            .map(|h| (h.call.name.as_str(), h.call.in_reasoning))
            .collect();
        assert_eq!(
            got,
            [
                ("get_weather", false),
                ("read_file", false),
                ("run_analysis", true)
            ]
        );
        assert_eq!(hits[0].call.arguments["city"], "Paris");
        assert!(hits.iter().all(|h| h.call.repairs == ["stripped-markers"]));
        assert!(text[hits[0].start..].starts_with("assistantcommentary to="));
        // Named in prose, with no JSON after it, it is not a call.
        assert!(scan_text("Send it to=functions.f later.").is_empty());
        // With its tokens, the call is found once, marked as such.
        let whole = scan_text(
            "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>",
        );
        assert_eq!(whole.len(), 1);
        assert!(whole[0].call.repairs.is_empty());
    }

    #[test]
    fn every_remnant_recipient_is_found_back_from_its_brace() {
        // Each text is read whole (no later recipient bounds a remnant), so the memmem
        // search this replaced and the walk back from the braces must agree on every
        // recipient that starts a remnant.
        let texts = [
            "assistantcommentary to=functions.get_weather json{\"city\": \"Paris\"}",
            "assistant to=functions.read_filecommentary json{\"path\": \"a\"}",
            "to=functions.f commentary json {}",
            "to=functions.f commentary\n\tjson\n{}",
            "to=functions.f{} to=functions.g code{} to=functions.h\n{}",
            "to=functions.wetter_für_köln json{} x to=functions.a.b:c/d{}",
            "to=functions.f json x {} to=functions.f commentary json code {}",
            "{\"to=functions.f\": {}} to=functions. json{} =to=functions.f{}",
            "Send it to=functions.f later. {} [to=functions.g]{}",
        ];
        for text in texts {
            let swept = Text::new(text, 1, false, true);
            let found = recipients_before_braces(text.as_bytes(), &swept.openers().named_braces);
            for to in memchr::memmem::find_iter(text.as_bytes(), RECIPIENT) {
                if remnant(text, to, false).is_some() {
                    assert!(
                        found.contains(&to),
                        "{text:?}: the recipient at {to} is missed"
                    );
                }
            }
            assert!(found.windows(2).all(|w| w[0] < w[1]), "{text:?}: {found:?}");
        }
        let hits = scan_text("to=functions.f commentary\n\tjson\n{\"a\": 1}");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.arguments["a"], 1);
    }

    #[test]
    fn recipient_before_or_after_the_channel() {
        let hits = scan_text(
            "<|start|>assistant<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|><|start|>assistant to=functions.get_time<|channel|>commentary<|constrain|>json<|message|>{}<|call|>",
        );
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["get_weather", "get_time"]);
        assert_eq!(hits[0].call.arguments["city"], "Paris");
        assert!(hits.iter().all(|h| !h.call.in_reasoning));
    }

    #[test]
    fn analysis_channel_calls_are_reasoning() {
        let hits = scan_text(
            "<|channel|>analysis to=functions.lookup <|constrain|>json<|message|>{\"q\": \"x\"}<|call|>",
        );
        assert_eq!(hits.len(), 1);
        assert!(hits[0].call.in_reasoning);
    }

    #[test]
    fn messages_to_the_user_are_not_calls() {
        assert!(
            scan_text("<|start|>assistant<|channel|>final to=user<|message|>{\"a\": 1}<|end|>")
                .is_empty()
        );
        assert!(
            scan_text("<|start|>assistant to=user<|channel|>commentary<|message|>Hi<|end|>")
                .is_empty()
        );
        let hits = scan_text(
            "<|start|>assistant<|channel|>analysis to=browser.search code<|message|>{\"query\": \"x\"}<|call|>",
        );
        assert_eq!(hits[0].call.name, "browser.search");
    }

    #[test]
    fn messages_without_recipient_are_not_calls() {
        assert!(
            scan_text("<|start|>assistant<|channel|>final<|message|>{\"a\": 1}<|end|>").is_empty()
        );
    }
}
