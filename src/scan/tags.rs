//! Small readers of tagged text shared by the scanners: fences, case-blind and
//! in-order searches, tag ends, names, attributes and typed values.

use memchr::memmem;

/// A fenced code block: its info string and body.
pub(crate) struct Fence<'t> {
    pub(crate) info: &'t str,
    pub(crate) body: &'t str,
}

/// The first fenced block (``` or ~~~) in `text`, if it closes.
pub(crate) fn first_fence(text: &str) -> Option<Fence<'_>> {
    let open = memmem::find(text.as_bytes(), b"```")?;
    let after = open + 3;
    let line_end = text[after..].find('\n').map(|n| after + n)?;
    let info = text[after..line_end].trim();
    let body_start = line_end + 1;
    let close = memmem::find(&text.as_bytes()[body_start..], b"```")?;
    Some(Fence {
        info,
        body: &text[body_start..body_start + close],
    })
}

/// Finds `needle` at or after `from`, ASCII case-insensitively.
pub(crate) fn find_ci(text: &str, needle: &str, from: usize) -> Option<usize> {
    let hay = text.as_bytes();
    let n = needle.as_bytes();
    if n.is_empty() || from > hay.len() {
        return None;
    }
    let first = n[0].to_ascii_lowercase();
    let other = n[0].to_ascii_uppercase();
    let mut i = from;
    while let Some(off) = memchr::memchr2(first, other, &hay[i..]) {
        let at = i + off;
        if hay.len() - at >= n.len() && hay[at..at + n.len()].eq_ignore_ascii_case(n) {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// Searches of one text for a few fixed strings (closing tags, end tokens), made in text
/// order: a search that found nothing, or found an occurrence further on, answers the
/// later ones too. Many unclosed blocks then cost one search each, not one to the end
/// of the text each.
#[derive(Default)]
pub(crate) struct NextFind {
    /// The string's searcher (built once: building one costs more than a short
    /// search), where its last search started, and what it found.
    seen: Vec<(memmem::Finder<'static>, Span)>,
    /// The same, for searches of positions that [`NextFind::find_first`] names.
    first: Vec<(&'static str, Span)>,
}

/// Where a search started and what it found.
type Span = (usize, Option<usize>);

/// Whether a search from `from` is answered by an earlier one: none found from where it
/// started, or the one found is still ahead.
fn answers((searched, found): Span, from: usize) -> bool {
    searched <= from && found.is_none_or(|at| at >= from)
}

impl NextFind {
    /// The first `needle` in `s` at or after `from`. `s` must be the same text for
    /// every search.
    pub(crate) fn find(&mut self, s: &str, needle: &str, from: usize) -> Option<usize> {
        let k = match self
            .seen
            .iter()
            .position(|(f, _)| f.needle() == needle.as_bytes())
        {
            Some(k) if answers(self.seen[k].1, from) => return self.seen[k].1.1,
            Some(k) => k,
            None => {
                let finder = memmem::Finder::new(needle.as_bytes()).into_owned();
                self.seen.push((finder, (usize::MAX, None)));
                self.seen.len() - 1
            }
        };
        let found = self.seen[k]
            .0
            .find(s.as_bytes().get(from..)?)
            .map(|n| from + n);
        self.seen[k].1 = (from, found);
        found
    }

    /// The first position at or after `from` that `search` finds, for a `search` that
    /// finds the first position with a property of the position alone (not of where the
    /// search started), named by `key`: like [`NextFind::find`], one search then answers
    /// the later ones up to what it found.
    pub(crate) fn find_first(
        &mut self,
        key: &'static str,
        from: usize,
        search: impl FnOnce(usize) -> Option<usize>,
    ) -> Option<usize> {
        let k = match self.first.iter().position(|(n, _)| *n == key) {
            Some(k) if answers(self.first[k].1, from) => return self.first[k].1.1,
            Some(k) => k,
            None => {
                self.first.push((key, (usize::MAX, None)));
                self.first.len() - 1
            }
        };
        let found = search(from);
        self.first[k].1 = (from, found);
        found
    }
}

/// The `>` that ends the tag opened by the `<` at `at`, if it comes before any other `<`:
/// text that opens tag after tag and closes none costs one look per tag, not one to
/// the end of the text.
pub(crate) fn tag_end(s: &str, at: usize) -> Option<usize> {
    let from = at + 1;
    let n = memchr::memchr2(b'>', b'<', s.as_bytes().get(from..)?)?;
    (s.as_bytes()[from + n] == b'>').then_some(from + n)
}

/// The first byte at or after `p` that is not ASCII white space.
pub(crate) fn skip_ws(s: &str, mut p: usize) -> usize {
    let b = s.as_bytes();
    while p < b.len() && b[p].is_ascii_whitespace() {
        p += 1;
    }
    p
}

/// Whether a tool name is a plausible identifier (not a template placeholder such as
/// `$TOOL_NAME` or prose).
pub(crate) fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
        && !name.starts_with(['.', '-'])
}

/// An identifier at the start of `s` (`[A-Za-z_][A-Za-z0-9_]*`), and its length.
pub(crate) fn ident(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    if !b
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return None;
    }
    let end = b
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .unwrap_or(b.len());
    // Every byte before `end` is ASCII, so `end` is a character boundary.
    Some(&s[..end])
}

/// The value of attribute `name` in a tag's attribute text (`name="x"` or `name='x'`).
pub(crate) fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(off) = attrs[from..].find(name) {
        let at = from + off;
        from = at + name.len();
        let before_ok = at == 0 || attrs.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = attrs[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let rest = rest[1..].trim_start();
        let quote = rest.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let body = &rest[1..];
        return body.find(quote).map(|end| &body[..end]);
    }
    None
}

/// A parameter value written as raw text: a JSON object, array, number or boolean is
/// read as JSON, anything else stays the string it is.
pub(crate) fn typed_value(raw: &str) -> serde_json::Value {
    let t = raw.trim();
    let json_like = t.starts_with(['{', '['])
        || t == "true"
        || t == "false"
        || (t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) && t.parse::<f64>().is_ok());
    if json_like && let Ok(v) = serde_json::from_str::<serde_json::Value>(t) {
        return v;
    }
    serde_json::Value::String(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn strings_found_once_answer_later_searches() {
        let s = "<a></b> x </a> <a> </a> <b></b> tail";
        let mut next = NextFind::default();
        for from in 0..=s.len() + 1 {
            for needle in ["</a>", "</b>", "</c>"] {
                let want = s.get(from..).and_then(|r| r.find(needle)).map(|n| from + n);
                assert_eq!(next.find(s, needle, from), want, "{needle} from {from}");
            }
        }
    }

    #[test]
    fn positions_found_once_answer_later_searches() {
        let s = "a1 b a2 a3 b";
        let mut next = NextFind::default();
        let mut searches = 0;
        for from in 0..=s.len() {
            let want = s[from..].find('b').map(|n| from + n);
            let found = next.find_first("b", from, |f| {
                searches += 1;
                s[f..].find('b').map(|n| f + n)
            });
            assert_eq!(found, want, "from {from}");
        }
        // One search up to the first `b`, one after it, one after the second.
        assert_eq!(searches, 3);
    }

    #[test]
    fn a_tag_ends_at_its_own_gt() {
        assert_eq!(tag_end("<a b=\"c\">x", 0), Some(8));
        assert_eq!(tag_end("<a b <c>", 0), None);
        assert_eq!(tag_end("<a", 0), None);
        assert_eq!(tag_end("x<a>", 1), Some(3));
    }

    #[test]
    fn tool_names() {
        assert!(
            is_tool_name("get_weather")
                && is_tool_name("ripper.read_file")
                && is_tool_name("mcp__gh__x")
        );
        assert!(!is_tool_name("$TOOL_NAME") && !is_tool_name("two words") && !is_tool_name(""));
    }
}
