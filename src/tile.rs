//! How a message's text is cut around the calls and results found in it, shared by
//! `extract --with-text` and `convert`: the pieces are put in text order, each widened
//! to what belongs to it (a wrapper such as `<function_calls>`, a log's copy of the
//! call, the white space between two pieces), and the text between them is what is
//! left. Text and pieces then tile the message: nothing is written twice or lost.

use crate::model::Call;

/// Wrappers a dialect's pieces stand in, which belong to their spans: the first piece
/// inside takes the opening, the last the closing.
const WRAPPERS: &[(&str, &str, &[&str])] = &[
    (
        "<function_calls>",
        "</function_calls>",
        &["anthropic-xml", "anthropic-xml-legacy"],
    ),
    (
        "<function_results>",
        "</function_results>",
        &["anthropic-function-results"],
    ),
];

/// A call or result found in a text.
pub(crate) struct Span<'c> {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) dialect: &'static str,
    /// The call, for pieces that are calls.
    pub(crate) call: Option<&'c Call>,
}

/// Which spans stand on their own: a span inside another (JSON quoted in an XML call's
/// arguments, a call inside another's value) belongs to the outer one; of two that
/// overlap without one holding the other, the earlier in `spans` is kept.
pub(crate) fn outermost(spans: &[Span]) -> Vec<bool> {
    let mut keep = vec![true; spans.len()];
    for (i, s) in spans.iter().enumerate() {
        for (j, o) in spans.iter().enumerate() {
            if i == j || !keep[j] || (s.start, s.end) == (o.start, o.end) {
                continue;
            }
            let inside = o.start <= s.start && s.end <= o.end;
            let overlap = s.start < o.end && o.start < s.end;
            let holds = s.start <= o.start && o.end <= s.end;
            if inside || (overlap && j < i && !holds) {
                keep[i] = false;
                break;
            }
        }
    }
    keep
}

/// Widens `spans` (in text order, none overlapping another) to what belongs to them.
pub(crate) fn widen(text: &str, spans: &mut [Span]) {
    // Calls of one value (a `{"tool_calls": […]}` wrapper, a marker's array) share its
    // span: the last of them is written with it, the others with nothing.
    for i in 1..spans.len() {
        if (spans[i - 1].start, spans[i - 1].end) == (spans[i].start, spans[i].end) {
            spans[i - 1].end = spans[i - 1].start;
        }
    }
    for (open, close, dialects) in WRAPPERS {
        let mut i = 0;
        while i < spans.len() {
            if !dialects.contains(&spans[i].dialect) {
                i += 1;
                continue;
            }
            let before = text[..spans[i].start].trim_end();
            let low = if i == 0 { 0 } else { spans[i - 1].end };
            if before.len() >= low + open.len() && before.ends_with(open) {
                // The run of this dialect's pieces inside the wrapper.
                let mut j = i;
                while j + 1 < spans.len()
                    && dialects.contains(&spans[j + 1].dialect)
                    && text[spans[j].end..spans[j + 1].start].trim().is_empty()
                {
                    j += 1;
                }
                spans[i].start = before.len() - open.len();
                let after = crate::scan::skip_ws(text, spans[j].end);
                let high = spans.get(j + 1).map_or(text.len(), |p| p.start);
                if text[after..high].starts_with(close) {
                    spans[j].end = after + close.len();
                }
                i = j + 1;
            } else {
                i += 1;
            }
        }
    }
    // Mandrake's history repeats each call: the model's copy, then the formatted one.
    for i in 0..spans.len() {
        if spans[i].dialect != crate::dialects::mandrake_xml::NAME {
            continue;
        }
        let high = spans.get(i + 1).map_or(text.len(), |p| p.start);
        if let Some(call) = spans[i].call
            && let Some(end) = mandrake_copy(text, spans[i].end, high, call)
        {
            spans[i].end = end;
        }
    }
    for i in 1..spans.len() {
        let (prev_end, start) = (spans[i - 1].end, spans[i].start);
        if prev_end < start && text[prev_end..start].trim().is_empty() {
            spans[i].start = prev_end;
        }
    }
}

/// Mandrake's history writes each call twice: as the model wrote it, then formatted
/// (with an empty `<description>`). When the block after `end` (past white space, and
/// before `high`) is the same call, returns the end of that copy.
fn mandrake_copy(text: &str, end: usize, high: usize, call: &Call) -> Option<usize> {
    let at = crate::scan::skip_ws(text, end);
    if at >= high || !text[at..high].starts_with("<tool_call>") {
        return None;
    }
    let close = at + text[at..high].find("</tool_call>")? + "</tool_call>".len();
    let turn = crate::model::Turn::new(crate::model::Role::Assistant, 1);
    let ctx = crate::dialects::ScanContext {
        turn: &turn,
        tools: &[],
        registry: crate::dialects::Registry::builtin(),
        strict: false,
        selected: None,
        resume: None,
        notes: None,
    };
    let mut hits = Vec::new();
    crate::dialects::Scanner::scan(
        &crate::dialects::mandrake_xml::MANDRAKE_XML,
        &crate::model::Text::new(&text[at..close], 1, false, true),
        &ctx,
        &mut hits,
    );
    let copy = hits.first()?;
    (copy.call.name == call.name && copy.call.arguments == call.arguments && copy.end == close - at)
        .then_some(close)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, end: usize, dialect: &'static str) -> Span<'static> {
        Span {
            start,
            end,
            dialect,
            call: None,
        }
    }

    #[test]
    fn wrappers_and_white_space_belong_to_the_calls() {
        let text = "Hi.\n<function_calls>\n<invoke name=\"a\"></invoke>\n<invoke name=\"b\"></invoke>\n</function_calls>\nBye.";
        let a = text.find("<invoke").unwrap();
        let a_end = text.find("</invoke>").unwrap() + 9;
        let b = text.rfind("<invoke").unwrap();
        let b_end = text.rfind("</invoke>").unwrap() + 9;
        let mut spans = [
            span(a, a_end, "anthropic-xml"),
            span(b, b_end, "anthropic-xml"),
        ];
        widen(text, &mut spans);
        assert_eq!(&text[..spans[0].start], "Hi.\n");
        assert_eq!(spans[0].end, spans[1].start);
        assert_eq!(&text[spans[1].end..], "\nBye.");
    }

    #[test]
    fn a_span_inside_another_is_not_its_own() {
        let spans = [
            span(0, 50, "mandrake-xml"),
            span(10, 20, "json-name-arguments"),
            span(60, 70, "x"),
        ];
        assert_eq!(outermost(&spans), [true, false, true]);
        // Overlapping without holding: the first found stays.
        let spans = [span(0, 20, "a"), span(10, 30, "b")];
        assert_eq!(outermost(&spans), [true, false]);
    }

    #[test]
    fn calls_of_one_value_are_written_once() {
        let text = "{\"tool_calls\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}";
        let mut spans = [
            span(0, text.len(), "mandrake-json"),
            span(0, text.len(), "mandrake-json"),
        ];
        widen(text, &mut spans);
        assert_eq!((spans[0].start, spans[0].end), (0, 0));
        assert_eq!((spans[1].start, spans[1].end), (0, text.len()));
    }
}
