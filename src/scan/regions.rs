//! The model's reasoning and other context regions of a text (`<think>…</think>`, a
//! Harmony `analysis` message, …): where they are, and which are open where a window
//! of a longer text starts.

use super::tags::find_ci;
use memchr::memmem;

/// Regions of `text` that are the model's reasoning: `<think>…</think>`,
/// `<thinking>…</thinking>`, `<seed:think>…</seed:think>`, `<mm:think>…</mm:think>`
/// (MiniMax-M3), `<|open|>think<|sep|>…<|close|>think<|sep|>` (Kimi K3), `[THINK]…[/THINK]`
/// (an unclosed opener runs to the end), the Harmony `analysis` channel, an Inkling
/// `<|content_thinking|>` message, a Muse Glimmer message to `self`, and the text before
/// a `</think>` (or K3's `<|close|>think<|sep|>`) that no opener opened (templates of
/// Qwen3, DeepSeek-R1 and V4, and Kimi K3, put the opener in the prompt, so the
/// completion starts inside the reasoning).
#[cfg(test)]
pub(crate) fn reasoning_regions(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let angle: Vec<usize> = memchr::memchr_iter(b'<', bytes).collect();
    let square: Vec<usize> = memchr::memchr_iter(b'[', bytes).collect();
    reasoning_regions_at(text, &angle, &square, true, None)
}

/// [`reasoning_regions`], from the offsets of the text's `<` and `[`. `completion_start`:
/// the text starts where the completion does (not a later window of it), so a bare
/// `</think>` closes reasoning that began at its start. `open`: reasoning opened before
/// the text starts (a window that starts inside it), closed as that opening is.
pub(crate) fn reasoning_regions_at(
    text: &str,
    angle: &[usize],
    square: &[usize],
    completion_start: bool,
    open: Option<ReasoningOpening>,
) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    if let Some(kind) = open {
        let end = kind.end(text, 0);
        out.push((0, end));
        from = end.max(1);
    }
    let (mut a, mut q) = (0, 0);
    loop {
        // The next `<` or `[`, in order.
        let at = match (angle.get(a), square.get(q)) {
            (Some(&x), Some(&y)) if x < y => {
                a += 1;
                x
            }
            (Some(&x), None) => {
                a += 1;
                x
            }
            (_, Some(&y)) => {
                q += 1;
                y
            }
            (None, None) => break,
        };
        // Every opening below has a `t`, `s`, `m`, `|` or `/` next: most brackets are
        // passed at a look.
        if at < from
            || !matches!(
                bytes.get(at + 1),
                Some(b't' | b'T' | b's' | b'm' | b'|' | b'/')
            )
        {
            continue;
        }
        let rest = &bytes[at..];
        let starts =
            |p: &str| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes());
        if bytes[at + 1] == b'/' {
            // Only the first closer can end reasoning opened in the prompt.
            if completion_start && out.is_empty() && from == 0 && starts("</think>") {
                out.push((0, at + "</think>".len()));
                from = at + "</think>".len();
            }
            continue;
        }
        if starts(K3_THINK_CLOSE) {
            if completion_start && out.is_empty() && from == 0 {
                out.push((0, at + K3_THINK_CLOSE.len()));
                from = at + K3_THINK_CLOSE.len();
            }
            continue;
        }
        if let Some(kind) = ReasoningOpening::opened_at(bytes, at) {
            let end = kind.end(text, at + kind.opening().len());
            out.push((at, end));
            from = end.max(at + 1);
        }
    }
    out
}

/// ReasoningOpening openings closed by a tag of their own (an unclosed one runs to the end).
const TAGGED_REASONING: [(&str, &str); 6] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<seed:think>", "</seed:think>"),
    ("<mm:think>", "</mm:think>"),
    ("<|open|>think<|sep|>", K3_THINK_CLOSE),
    ("[THINK]", "[/THINK]"),
];

/// ReasoningOpening messages, each ending at the first of its end markers (or the next message).
const REASONING_MESSAGES: [(&str, &[&str]); 3] = [
    (HARMONY_ANALYSIS, HARMONY_ENDS),
    (INKLING_THINKING, INKLING_ENDS),
    (GLIMMER_SELF, GLIMMER_ENDS),
];

/// Which opening started a reasoning region: a row of [`TAGGED_REASONING`] or of
/// [`REASONING_MESSAGES`]. A window that starts inside the region carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReasoningOpening {
    Tagged(u8),
    Message(u8),
}

impl ReasoningOpening {
    /// The reasoning opening at `at` in `bytes`, if one is there.
    pub(crate) fn opened_at(bytes: &[u8], at: usize) -> Option<ReasoningOpening> {
        let rest = bytes.get(at..)?;
        let starts =
            |p: &str| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes());
        if let Some(k) = TAGGED_REASONING.iter().position(|(open, _)| starts(open)) {
            return Some(ReasoningOpening::Tagged(k as u8));
        }
        REASONING_MESSAGES
            .iter()
            .position(|(open, _)| starts(open))
            .map(|k| ReasoningOpening::Message(k as u8))
    }

    fn opening(self) -> &'static str {
        match self {
            ReasoningOpening::Tagged(k) => TAGGED_REASONING[k as usize].0,
            ReasoningOpening::Message(k) => REASONING_MESSAGES[k as usize].0,
        }
    }

    /// The end of the region whose body starts at `body`: past its closing tag, or at
    /// its message's end marker, or the text's end.
    fn end(self, text: &str, body: usize) -> usize {
        match self {
            ReasoningOpening::Tagged(k) => {
                let close = TAGGED_REASONING[k as usize].1;
                find_ci(text, close, body).map_or(text.len(), |end| end + close.len())
            }
            ReasoningOpening::Message(k) => REASONING_MESSAGES[k as usize]
                .1
                .iter()
                .filter_map(|m| {
                    memmem::find(&text.as_bytes()[body..], m.as_bytes()).map(|n| body + n)
                })
                .min()
                .unwrap_or(text.len()),
        }
    }
}

/// Context regions open at some point of a text: what a window starting there must be
/// told, as it cannot see their openings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OpenRegions {
    pub(crate) reasoning: Option<ReasoningOpening>,
    /// Inside UICP's `BEGIN WIL … END WIL`.
    pub(crate) wil: bool,
}

/// The context regions of a window with the opening of each, kept after the window
/// is gone: which of them are open where the next window starts.
#[derive(Debug, Default)]
pub(crate) struct RegionMap {
    reasoning: Vec<(usize, usize, ReasoningOpening)>,
    wil: Vec<(usize, usize)>,
}

impl RegionMap {
    /// The map of reasoning regions, each with its opening, and of WIL blocks.
    pub(crate) fn new(
        reasoning: Vec<(usize, usize, ReasoningOpening)>,
        wil: Vec<(usize, usize)>,
    ) -> RegionMap {
        RegionMap { reasoning, wil }
    }

    /// The regions open at `at`: opened before it and not closed by then.
    pub(crate) fn open_at(&self, at: usize) -> OpenRegions {
        OpenRegions {
            reasoning: self
                .reasoning
                .iter()
                .find(|&&(a, b, _)| a < at && at < b)
                .map(|&(_, _, kind)| kind),
            wil: self.wil.iter().any(|&(a, b)| a < at && at < b),
        }
    }
}

const HARMONY_ANALYSIS: &str = "<|channel|>analysis";
const HARMONY_ENDS: &[&str] = &["<|end|>", "<|start|>", "<|call|>", "<|return|>"];
/// Kimi K3's end of reasoning.
const K3_THINK_CLOSE: &str = "<|close|>think<|sep|>";
/// An Inkling message whose content is thinking, up to the message's end.
const INKLING_THINKING: &str = "<|content_thinking|>";
const INKLING_ENDS: &[&str] = &[
    "<|end_message|>",
    "<|content_model_end_sampling|>",
    "<|message_model|>",
];
/// A Muse Glimmer message the model addresses to itself: its reasoning.
const GLIMMER_SELF: &str = "<|start|>assistant to=self<|message|>";
const GLIMMER_ENDS: &[&str] = &["<|eom|>", "<|eot|>", "<|start|>"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::tags::first_fence;
    #[test]
    fn fences_and_reasoning() {
        let f = first_fence("x\n```json\n{\"a\":1}\n```\n").unwrap();
        assert_eq!((f.info, f.body), ("json", "{\"a\":1}\n"));
        let h = "<|start|>assistant<|channel|>analysis<|message|>maybe {x}<|end|><|start|>assistant<|channel|>final<|message|>done";
        let r = reasoning_regions(h);
        assert_eq!(r.len(), 1);
        assert!(h[r[0].0..r[0].1].contains("maybe {x}") && !h[r[0].0..r[0].1].contains("done"));
        let t = "a <think>plan {x}</think> b [THINK]more";
        let r = reasoning_regions(t);
        assert_eq!(r.len(), 2);
        assert_eq!(&t[r[0].0..r[0].1], "<think>plan {x}</think>");
        assert_eq!(r[1].1, t.len());
        let t = "a <seed:think>plan {x}</seed:think> b";
        assert_eq!(reasoning_regions(t), [(2, 35)]);
        // `<think>` was in the prompt: the completion starts inside the reasoning.
        let t = "plan {x}\n</think>\n{\"a\": 1} </think>";
        assert_eq!(reasoning_regions(t), [(0, 17)]);
        assert!(reasoning_regions_at(t, &[9, 25], &[], false, None).is_empty());
        assert_eq!(
            reasoning_regions("x <think>y</think> z </think>"),
            [(2, 18)]
        );
    }
}
