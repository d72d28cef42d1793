//! How the rows' scanners report what they found: hits at the lines where their spans
//! start, spans widened over the markers that wrap a group of calls.

/// Adds the calls one row found over `start..end` as hits: each at the line where the
/// span starts, and, from a row whose special tokens were stripped, marked so and weaker
/// than a marked dialect over the same text.
pub(crate) fn push_hits(
    out: &mut Vec<super::Hit>,
    text: &crate::model::Text,
    calls: Vec<crate::model::Call>,
    (start, end): (usize, usize),
    stripped: bool,
) {
    out.reserve(calls.len());
    for mut call in calls {
        call.line = text.line_at(start);
        if stripped {
            call.repairs.insert(0, "stripped-markers");
        }
        out.push(super::Hit {
            call,
            start,
            end,
            balanced: false,
            specificity: if stripped {
                super::STRIPPED
            } else {
                super::MARKED
            },
        });
    }
}

/// Widens a span over markers that wrap a group of calls (`<|tool_calls_section_begin|>`
/// … `<|tool_calls_section_end|>`) when only whitespace separates them from it, so the
/// markers are not left behind as text.
pub(crate) fn absorb_wrappers(
    s: &str,
    mut start: usize,
    mut end: usize,
    wrappers: &[(&str, &str)],
) -> (usize, usize) {
    loop {
        let before = s[..start].trim_end();
        let after_ws = s[end..].len() - s[end..].trim_start().len();
        let after = &s[end + after_ws..];
        let mut moved = false;
        for (open, close) in wrappers {
            if !open.is_empty() && before.ends_with(open) {
                start = before.len() - open.len();
                moved = true;
            }
            if !close.is_empty() && after.starts_with(close) {
                end = end + after_ws + close.len();
                moved = true;
            }
        }
        if !moved {
            return (start, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_are_taken_in_when_adjacent() {
        let s = "x <S> <c>1</c> </S> y";
        let w = [("<S>", "</S>")];
        let (a, b) = absorb_wrappers(s, 6, 14, &w);
        assert_eq!(&s[a..b], "<S> <c>1</c> </S>");
        let (a, b) = absorb_wrappers("<S> z <c></c>", 6, 13, &w);
        assert_eq!((a, b), (6, 13));
    }
}
