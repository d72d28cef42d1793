//! The dialect rows in force for a run: the built-in rows of each family, plus any read
//! from `--dialect-file`, with an index of their opening markers so that one pass over
//! the text's `<` and `[` finds every candidate of every row.

use super::{literal, markers, xml_params};
use memchr::memmem;
use std::sync::OnceLock;

/// The rows of the data-driven families.
pub struct Registry {
    pub(crate) markers: Vec<&'static markers::MarkerRow>,
    pub(crate) params: Vec<&'static xml_params::ParamRow>,
    pub(crate) literals: Vec<&'static literal::LiteralRow>,
    pub(crate) marker_opens: OpenIndex,
    pub(crate) param_opens: OpenIndex,
    /// What each entry of `param_opens` is: (marker, row, wrapper index or the call).
    pub(crate) param_entries: Vec<(&'static str, usize, Option<usize>)>,
    pub(crate) literal_opens: OpenIndex,
    /// Rows came from `--dialect-file`: their markers may hold no `<`, `[` or `{`.
    pub(crate) user_rows: bool,
}

impl Registry {
    /// The built-in rows only.
    pub fn builtin() -> &'static Registry {
        static BUILTIN: OnceLock<Registry> = OnceLock::new();
        BUILTIN.get_or_init(|| Registry::new(Vec::new(), Vec::new(), Vec::new()))
    }

    /// The built-in rows followed by user rows (which are tried after the built-in ones
    /// at the same position, and lose to them on the same span).
    pub(crate) fn new(
        user_markers: Vec<&'static markers::MarkerRow>,
        user_params: Vec<&'static xml_params::ParamRow>,
        user_literals: Vec<&'static literal::LiteralRow>,
    ) -> Registry {
        let user_rows =
            !user_markers.is_empty() || !user_params.is_empty() || !user_literals.is_empty();
        let mut markers: Vec<_> = markers::ROWS.iter().collect();
        markers.extend(user_markers);
        let mut params: Vec<_> = xml_params::ROWS.iter().collect();
        params.extend(user_params);
        let mut literals: Vec<_> = literal::ROWS.iter().collect();
        literals.extend(user_literals);
        let param_entries = xml_params::opens(&params);
        Registry {
            marker_opens: OpenIndex::new(markers.iter().map(|r| r.open))
                .names_before_brace(markers.iter().map(|r| r.head_before_brace())),
            param_opens: OpenIndex::new(param_entries.iter().map(|e| e.0)),
            param_entries,
            literal_opens: OpenIndex::new(literals.iter().map(|r| r.open)).names_before_brace(
                literals
                    .iter()
                    .map(|r| matches!(r.syntax, literal::Syntax::Braced { .. })),
            ),
            markers,
            params,
            literals,
            user_rows,
        }
    }
}

/// Where each row's opening marker can start, keyed so that a `<` or `[` in the text is
/// matched against only the rows whose marker has the same next byte.
pub(crate) struct OpenIndex {
    opens: Vec<&'static str>,
    /// Rows whose marker holds a `<` (or `[`), by the byte after it; the offset of that
    /// `<` inside the marker.
    angle: Vec<Vec<(u16, u16)>>,
    square: Vec<Vec<(u16, u16)>>,
    /// Rows whose marker ends with its first `[` (`[`, `functools[`): any byte may
    /// follow; the offset of that `[` inside the marker.
    square_tail: Vec<(u16, u16)>,
    /// Rows whose marker holds neither: searched with memmem.
    other: Vec<u16>,
    /// Whether any row is in `angle` / `square`.
    any_angle: bool,
    any_square: bool,
    /// Rows of `other` whose marker is always followed by a name and a `{` (`call:NAME{`,
    /// `>>>NAME\n{`): found from the text's `{`s instead of a search of every byte.
    before_brace: Vec<u16>,
    /// Whether a row of `before_brace` could stand before a JSON member's `{` (`"k": {`,
    /// whose name is the lone `:`): a marker that is empty, `:` or ends with `"`. No
    /// built-in one is, so those braces are passed over.
    members_too: bool,
}

/// The longest name between such a marker and its `{`.
const MAX_NAME: usize = 160;

impl OpenIndex {
    pub(crate) fn new(opens: impl Iterator<Item = &'static str>) -> OpenIndex {
        let opens: Vec<&'static str> = opens.collect();
        let mut index = OpenIndex {
            angle: vec![Vec::new(); 256],
            square: vec![Vec::new(); 256],
            square_tail: Vec::new(),
            other: Vec::new(),
            before_brace: Vec::new(),
            members_too: false,
            opens: Vec::new(),
            any_angle: false,
            any_square: false,
        };
        for (row, open) in opens.iter().enumerate() {
            let row = row as u16;
            let bytes = open.as_bytes();
            match bytes.iter().position(|&b| b == b'<' || b == b'[') {
                Some(k) if k + 1 < bytes.len() => {
                    let table = if bytes[k] == b'<' {
                        &mut index.angle
                    } else {
                        &mut index.square
                    };
                    table[bytes[k + 1] as usize].push((row, k as u16));
                }
                Some(k) if bytes[k] == b'[' => index.square_tail.push((row, k as u16)),
                _ => index.other.push(row),
            }
        }
        index.opens = opens;
        index.any_angle = index.angle.iter().any(|v| !v.is_empty());
        index.any_square = index.square.iter().any(|v| !v.is_empty());
        index
    }

    /// Marks the rows (by the flags, in row order) whose marker, when it holds no `<` or
    /// `[`, always comes right before a name and a `{`.
    pub(crate) fn names_before_brace(mut self, flags: impl Iterator<Item = bool>) -> OpenIndex {
        for (row, flag) in flags.enumerate() {
            let row = row as u16;
            if flag && let Some(i) = self.other.iter().position(|&r| r == row) {
                self.other.remove(i);
                self.before_brace.push(row);
                let open = self.opens[row as usize];
                self.members_too |= open.is_empty() || open == ":" || open.ends_with('"');
            }
        }
        self
    }

    /// Every (start, row) where an enabled row's opening marker occurs in `text`, in text
    /// order (rows in registry order at one start).
    pub(crate) fn candidates(
        &self,
        text: &crate::model::Text,
        enabled: impl Fn(usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let s = text.text.as_bytes();
        let openers = text.openers();
        let mut out = Vec::new();
        let mut look = |positions: &[usize], table: &[Vec<(u16, u16)>]| {
            for &at in positions {
                let Some(&next) = s.get(at + 1) else {
                    continue;
                };
                for &(row, k) in &table[next as usize] {
                    let (row, k) = (row as usize, k as usize);
                    if at >= k
                        && s[at - k..].starts_with(self.opens[row].as_bytes())
                        && enabled(row)
                    {
                        out.push((at - k, row));
                    }
                }
            }
        };
        if self.any_angle {
            look(&openers.angle, &self.angle);
        }
        if self.any_square {
            look(&openers.square, &self.square);
        }
        for &(row, k) in &self.square_tail {
            let (row, k) = (row as usize, k as usize);
            if !enabled(row) {
                continue;
            }
            let open = self.opens[row].as_bytes();
            out.extend(
                openers
                    .square
                    .iter()
                    .filter(|&&at| at >= k && s[at - k..].starts_with(open))
                    .map(|&at| (at - k, row)),
            );
        }
        for &row in &self.other {
            let row = row as usize;
            if self.opens[row].is_empty() || !enabled(row) {
                continue;
            }
            out.extend(memmem::find_iter(s, self.opens[row].as_bytes()).map(|at| (at, row)));
        }
        let rows: Vec<usize> = self
            .before_brace
            .iter()
            .map(|&r| r as usize)
            .filter(|&r| enabled(r))
            .collect();
        if !rows.is_empty() {
            let members: &[usize] = if self.members_too {
                &openers.member_braces
            } else {
                &[]
            };
            for &at in openers.named_braces.iter().chain(members) {
                // Back over white space, then over the name (with its `functions.`,
                // `call:` or `:0` parts).
                let mut p = at;
                while p > 0 && at - p < 16 && s[p - 1].is_ascii_whitespace() {
                    p -= 1;
                }
                let name_end = p;
                while p > 0
                    && name_end - p < MAX_NAME
                    && (s[p - 1].is_ascii_alphanumeric()
                        || matches!(s[p - 1], b'_' | b'-' | b'.' | b':'))
                {
                    p -= 1;
                }
                if p == name_end {
                    continue;
                }
                for &row in &rows {
                    let open = self.opens[row].as_bytes();
                    // A byte compared first spares a call to compare most names whole.
                    if open.first() == s.get(p) && s[p..name_end].starts_with(open) {
                        out.push((p, row));
                    } else if open.last() == s.get(p.wrapping_sub(1)) && s[..p].ends_with(open) {
                        out.push((p - open.len(), row));
                    }
                }
            }
        }
        if out.len() > 1 {
            out.sort_unstable();
            out.dedup();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Text;

    #[test]
    fn candidates_in_text_order() {
        let index =
            OpenIndex::new(["<tool_call>", "[TOOL_CALLS]", ">>>", "fn call<|x|>", "["].into_iter());
        let text = Text::new(
            "a [TOOL_CALLS] <tool_call> >>>f fn call<|x|> <tool",
            1,
            false,
            true,
        );
        let found = index.candidates(&text, |_| true);
        assert_eq!(
            found,
            [(2, 1), (2, 4), (15, 0), (27, 2), (32, 3)],
            "{found:?}"
        );
        assert!(index.candidates(&text, |row| row == 0).len() == 1);
    }

    #[test]
    fn a_marker_ending_in_a_quote_still_sees_json_member_braces() {
        // `"k": {` is passed over for the built-in markers, but not for one that can
        // stand there (a user row's, say).
        let text = Text::new("{\"k\": {}} call:f{}", 1, false, true);
        let quoted = OpenIndex::new(["k\""].into_iter()).names_before_brace([true].into_iter());
        assert_eq!(quoted.candidates(&text, |_| true), [(2, 0)]);
        let call = OpenIndex::new(["call:"].into_iter()).names_before_brace([true].into_iter());
        assert_eq!(call.candidates(&text, |_| true), [(10, 0)]);
    }
}
