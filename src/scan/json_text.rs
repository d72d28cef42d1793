//! JSON values written in text: found in one linear pass that is string- and
//! escape-aware, with values that never close kept from swallowing the rest.

use crate::json::bytes_equal;
use std::cell::Cell;

/// The end (exclusive) of the JSON value that starts at `start` (a `{` or `[`), found by
/// counting brackets outside strings. `None` when it never closes: the caller resumes
/// after the opener instead of losing the rest of the text.
pub(crate) fn balanced_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i = string_end(bytes, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index after the closing quote of the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        let at = quote_or_backslash(bytes, i)?;
        if bytes[at] == b'\\' {
            i = at + 2;
            if i > bytes.len() {
                return None;
            }
        } else {
            return Some(at + 1);
        }
    }
}

/// The next `"` or `\\` at or after `i`. Keys and short values end within a few words,
/// read eight bytes at a time; longer strings are searched with memchr.
#[inline]
fn quote_or_backslash(bytes: &[u8], mut i: usize) -> Option<usize> {
    let words_end = (i + 32).min(bytes.len());
    while i + 8 <= words_end {
        let word = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("eight bytes"));
        let found = bytes_equal(word, b'"') | bytes_equal(word, b'\\');
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr2(b'"', b'\\', bytes.get(i..)?).map(|n| i + n)
}

/// A JSON value found in text.
pub(crate) struct Found {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// It never closed: it runs to the end of the text.
    pub(crate) unclosed: bool,
    /// For a top-level value, or one directly inside a top-level value that never
    /// closes: whether one of its double-quoted strings starts like a call key (`"name"`
    /// with `"arguments"`, `"tool…"`, ...), seen during the walk. `None` when not known.
    pub(crate) call_keys: Option<bool>,
}

/// Call keys seen in the strings of one value.
#[derive(Default, Clone, Copy)]
struct Keys {
    strong: bool,
    name: bool,
    args: bool,
}

impl Keys {
    fn see(&mut self, s: &[u8]) {
        // One comparison per string, chosen by its first byte.
        let starts = |w: &[u8]| s.starts_with(w);
        match s.first() {
            Some(b't') => self.strong |= starts(b"tool"),
            Some(b'e') => self.strong |= starts(b"event"),
            Some(b'f') => self.strong |= starts(b"function"),
            Some(b'b') => self.strong |= starts(b"batch"),
            Some(b'n') => self.name |= starts(b"name"),
            Some(b'a') => self.args |= starts(b"arg"),
            Some(b'p') => self.args |= starts(b"param"),
            Some(b'i') => self.args |= starts(b"input"),
            _ => {}
        }
    }

    fn any(self) -> bool {
        self.strong || (self.name && self.args)
    }
}

/// Top-level JSON objects and arrays in text, in order, in one linear pass. A value
/// inside another is not listed. An opener that never closes does not swallow the rest:
/// the values that close inside it are listed as if scanning resumed right after it,
/// and the opener itself is listed (to the end of the text, for repair) when it looks
/// like the start of an object.
pub(crate) fn json_values(text: &str) -> Vec<Found> {
    json_values_skipping(text, None, &[]).0
}

/// [`json_values`], the first opener still open at the end of the text (every value
/// from there on could be read otherwise if the text went on), and the values that
/// closed on later quotes and were ended at a line break in a string instead (a walk
/// read all of them to decide: see [`walk_values`]). `openers`, the offsets of
/// every `{` and `[` when they are known already, lets the scan jump from one value to
/// the next opener instead of searching for it. The walk passes over `skip` (sorted
/// spans that hold balanced JSON and markers only, see [`crate::dialects::Hit::balanced`])
/// when it comes to one outside any value: their values are not listed, and the rest is
/// as without skipping.
pub(crate) fn json_values_skipping(
    text: &str,
    openers: Option<&[usize]>,
    skip: &[(usize, usize)],
) -> (Vec<Found>, Option<usize>, Vec<(usize, usize)>) {
    let budget = Cell::new(RESTART_BYTES_PER_BYTE * text.len() + RESTART_BYTES);
    let mut ended_at_breaks = Vec::new();
    let (found, open) = walk_values(
        text,
        0,
        openers,
        skip,
        MAX_RESTARTS,
        &budget,
        &mut ended_at_breaks,
    );
    (found, open, ended_at_breaks)
}

/// How deep walks of the rest after a value that never closes may nest (see
/// [`walk_values`]): each is a walk of its own, to the end of the text.
const MAX_RESTARTS: usize = 64;

/// What those walks may cover in all: this many times the text, and this many bytes
/// more. A text far past what a model writes (thousands of values cut off in strings)
/// stops restarting there; any text of model output restarts at every one.
const RESTART_BYTES_PER_BYTE: usize = 8;
const RESTART_BYTES: usize = 4 << 20;

/// [`json_values_skipping`] from `from` on. A value that holds a string with a raw line
/// break in it (a call cut off inside a string, then prose) pairs every later quote
/// wrongly, and either never closes, hiding every value after it, or closes only on
/// later brackets: when a walk from that line break finds a value with call keys, the
/// broken value ends at the line break and the values after it are that walk's. A value
/// that closed is told as it closes, and the walk goes on from the break, so any
/// number of them cost one pass; a value that never closes is told only at the end of
/// the text, by a walk of the rest that may come to nothing, so such walks nest at most
/// `restarts` deep and cover at most `budget` bytes in all.
fn walk_values(
    text: &str,
    mut from: usize,
    openers: Option<&[usize]>,
    skip: &[(usize, usize)],
    restarts: usize,
    budget: &Cell<usize>,
    ended_at_breaks: &mut Vec<(usize, usize)>,
) -> (Vec<Found>, Option<usize>) {
    let mut out = Vec::new();
    loop {
        match walk_once(
            text,
            from,
            openers,
            skip,
            restarts,
            budget,
            Some(ended_at_breaks),
        ) {
            Walk::Done(values, open) => {
                out.extend(values);
                return (out, open);
            }
            Walk::BrokenAt(at, value) => {
                ended_at_breaks.push(value);
                // What comes before the break, from a walk that stops there.
                let before = openers.map(|o| &o[..o.partition_point(|&p| p < at)]);
                if let Walk::Done(values, _) =
                    walk_once(&text[..at], from, before, skip, 0, budget, None)
                {
                    out.extend(values);
                }
                from = at + 1;
            }
        }
    }
}

/// One walk of [`walk_values`]: to the end, or to the line break of a closed value that
/// ends there (only with `closed_breaks`), with that value's span as it closed.
enum Walk {
    Done(Vec<Found>, Option<usize>),
    BrokenAt(usize, (usize, usize)),
}

fn walk_once(
    text: &str,
    from: usize,
    openers: Option<&[usize]>,
    skip: &[(usize, usize)],
    restarts: usize,
    budget: &Cell<usize>,
    // Where the values ended at a break are told, when the walk ends them (see
    // `walk_values`); `None` walks on through such values.
    closed_breaks: Option<&mut Vec<(usize, usize)>>,
) -> Walk {
    let bytes = text.as_bytes();
    let mut next_skip = 0;
    // The open brackets, innermost last, each with the length `closed` had when it
    // opened: what was pushed since then lies inside it.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    // Closed values that count: top-level ones (with the call keys seen in them), and
    // those directly inside a bracket still open. A value that closes takes the place
    // of everything closed inside it, so this stays as short as the text's top level.
    let mut closed: Vec<Found> = Vec::new();
    let mut keys = Keys::default();
    // The keys of the value open directly inside the outermost one: when the outermost
    // never closes, its closed children are listed, with their own call keys.
    let mut child_keys = Keys::default();
    // Openers are visited in order: a cursor, not a search, finds the next one.
    let mut next_opener = 0;
    // The first raw line break in a string of the top-level value open now.
    let mut broken: Option<usize> = None;
    let mut i = from;
    while i < bytes.len() {
        if stack.is_empty() {
            let next = match openers {
                Some(at) => {
                    while at.get(next_opener).is_some_and(|&p| p < i) {
                        next_opener += 1;
                    }
                    at.get(next_opener).copied()
                }
                None => memchr::memchr2(b'{', b'[', &bytes[i..]).map(|off| i + off),
            };
            let Some(at) = next else { break };
            while skip.get(next_skip).is_some_and(|&(_, b)| b <= at) {
                next_skip += 1;
            }
            // The walk was outside any value from before the span to its first bracket:
            // it would be again at the span's end.
            if let Some(&(a, b)) = skip.get(next_skip)
                && i <= a
                && a <= at
            {
                i = b;
                next_skip += 1;
                continue;
            }
            i = at;
        } else {
            // Inside a value: on to the next quote or bracket, eight bytes at a time.
            while let Some(word) = bytes.get(i..i + 8) {
                let found = structural_in(u64::from_le_bytes(word.try_into().expect("8")));
                if found != 0 {
                    i += (found.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            if i >= bytes.len() {
                break;
            }
        }
        match bytes[i] {
            b'"' if !stack.is_empty() => match string_end(bytes, i) {
                Some(end) => {
                    keys.see(&bytes[i + 1..end]);
                    child_keys.see(&bytes[i + 1..end]);
                    if broken.is_none() && closed_breaks.is_some() {
                        broken = memchr::memchr(b'\n', &bytes[i + 1..end]).map(|n| i + 1 + n);
                    }
                    i = end;
                    continue;
                }
                // An unterminated string: nothing after it can close.
                None => break,
            },
            b'{' | b'[' => {
                if stack.is_empty() {
                    keys = Keys::default();
                    broken = None;
                } else if stack.len() == 1 {
                    child_keys = Keys::default();
                }
                stack.push((i, closed.len()));
            }
            // A closer of the other kind (`]` inside `{…`) is prose, not JSON: it closes
            // nothing (`]<]minimax[>[` after a broken value would close the value).
            b'}' | b']' if stack.last().is_some_and(|&(p, _)| bytes[p] + 2 != bytes[i]) => {}
            b'}' | b']' => {
                if let Some((start, inside)) = stack.pop() {
                    // A value that closed only because a string broken at a line end
                    // paired its quote with a later one: when a walk from the break
                    // finds a call inside the value, the value ends at the break, as
                    // when nothing closes it (below).
                    if stack.is_empty()
                        && let Some(at) = broken.take()
                        && breaks_off_a_call(text, at, i + 1, openers, skip)
                    {
                        return Walk::BrokenAt(at, (start, i + 1));
                    }
                    closed.truncate(inside);
                    closed.push(Found {
                        start,
                        end: i + 1,
                        unclosed: false,
                        call_keys: match stack.len() {
                            0 => Some(keys.any()),
                            1 => Some(child_keys.any()),
                            _ => None,
                        },
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    // A string that broke at a line end: the values from there on are a new walk's, when
    // it finds a call (see above), and the values before it are those of a walk that
    // stops there (this walk paired the broken string's quote with a later one, and may
    // have closed the values it was in with later brackets).
    let limit = text.len();
    let open = stack.first().map(|&(p, _)| p);
    if let Some(&(outer, _)) = stack.first()
        && restarts > 0
        && let Some(broken) = line_break_in_a_string(bytes, outer)
        && let Some(left) = budget.get().checked_sub(text.len() - broken)
        && let Some(ended_at_breaks) = closed_breaks
    {
        budget.set(left);
        let told = ended_at_breaks.len();
        let (rest, rest_open) = walk_values(
            text,
            broken + 1,
            openers,
            skip,
            restarts - 1,
            budget,
            ended_at_breaks,
        );
        if !rest.iter().any(|f| names_a_call(text, f)) {
            ended_at_breaks.truncate(told);
        } else {
            let before = openers.map(|at| &at[..at.partition_point(|&p| p < broken)]);
            let mut out = match walk_once(&text[..broken], from, before, skip, 0, budget, None) {
                Walk::Done(values, _) => values,
                Walk::BrokenAt(..) => Vec::new(),
            };
            out.extend(rest);
            // The outer value is still open: with more text, the rest could be read
            // otherwise, and so could it.
            return Walk::Done(out, open.or(rest_open));
        }
    }
    let mut out = closed;
    // An unclosed value is worth a repair only when it starts like a call, and only the
    // last few: a truncated call is at the end of the text, and trying every opener of
    // a long run of them would cost the rest of the text each time.
    let mut candidates: Vec<usize> = stack
        .iter()
        .map(|&(p, _)| p)
        .filter(|&p| bytes[p] == b'{' && looks_like_call_start(&text[p..]))
        .collect();
    let skip = candidates.len().saturating_sub(MAX_UNCLOSED);
    candidates.drain(..skip);
    // An unclosed value ends where a call starts on a later line: the repair (or the raw
    // text of an unreadable call) does not take in the calls after it.
    let mut later_calls: Vec<usize> = out
        .iter()
        .filter(|f| !f.unclosed && looks_like_call_start(&text[f.start..]))
        .map(|f| f.start)
        .collect();
    later_calls.sort_unstable();
    let unclosed: Vec<Found> = candidates
        .into_iter()
        .map(|start| {
            let line_end =
                memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |n| start + n);
            let next = later_calls[later_calls.partition_point(|&c| c <= line_end)..].first();
            let end = next.map_or(limit, |&c| {
                memchr::memrchr(b'\n', &bytes[..c])
                    .map_or(c, |n| n + 1)
                    .min(limit)
            });
            Found {
                start,
                end,
                unclosed: true,
                call_keys: None,
            }
        })
        .collect();
    out.extend(unclosed);
    // Starts are distinct; sorted, for the values added last.
    out.sort_unstable_by_key(|f| f.start);
    Walk::Done(out, open)
}

/// Whether a value found by a walk holds call keys. Python-style keys (`{'name': …`) are
/// not seen as keys by the walk: a value that starts with one counts too.
fn names_a_call(text: &str, f: &Found) -> bool {
    f.call_keys == Some(true) || starts_like_call(&text[f.start..], '\'')
}

/// Whether a walk from the line break at `at` to `end` (where the value holding the
/// break closed) finds a value with call keys that closes by then.
fn breaks_off_a_call(
    text: &str,
    at: usize,
    end: usize,
    openers: Option<&[usize]>,
    skip: &[(usize, usize)],
) -> bool {
    let upto = openers.map(|o| &o[..o.partition_point(|&p| p < end)]);
    match walk_once(&text[..end], at + 1, upto, skip, 0, &Cell::new(0), None) {
        Walk::Done(inside, _) => inside.iter().any(|f| !f.unclosed && names_a_call(text, f)),
        Walk::BrokenAt(..) => false,
    }
}

/// The high bit of each byte of `word` that is `"`, `{`, `}`, `[` or `]`; the lowest set
/// bit is exact. `[` and `]` differ from `{` and `}` by the 0x20 bit alone.
#[inline]
fn structural_in(word: u64) -> u64 {
    let folded = word | 0x2020_2020_2020_2020;
    bytes_equal(word, b'"') | bytes_equal(folded, b'{') | bytes_equal(folded, b'}')
}

/// The first raw line break inside a string of the value that opens at `start`, reading
/// its strings as the walk does (quote to unescaped quote); `None` when no string has one.
fn line_break_in_a_string(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    loop {
        let quote = i + memchr::memchr(b'"', &bytes[i..])?;
        match string_end(bytes, quote) {
            Some(end) => {
                if let Some(n) = memchr::memchr(b'\n', &bytes[quote..end]) {
                    return Some(quote + n);
                }
                i = end;
            }
            None => return memchr::memchr(b'\n', &bytes[quote..]).map(|n| quote + n),
        }
    }
}

/// How many unclosed openers of one text are tried with a repair.
const MAX_UNCLOSED: usize = 4;

/// `{` followed by a key that call shapes start with.
fn looks_like_call_start(rest: &str) -> bool {
    starts_like_call(rest, '"')
}

/// `{` followed by a key quoted with `quote` that call shapes start with.
fn starts_like_call(rest: &str, quote: char) -> bool {
    let Some(key) = rest[1..].trim_start().strip_prefix(quote) else {
        return false;
    };
    [
        "name",
        "tool",
        "type",
        "event",
        "function",
        "batch",
        "reasoning",
        "id",
    ]
    .iter()
    .any(|k| key.starts_with(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_balanced_span_is_passed_over_only_from_outside_any_value() {
        let starts = |text: &str, skip: &[(usize, usize)]| -> Vec<(usize, usize)> {
            json_values_skipping(text, None, skip)
                .0
                .iter()
                .map(|f| (f.start, f.end))
                .collect()
        };
        let text = r#"{"a": 1} <m>{"b": [2]}</m> [3] <m>{"c": 4}</m>"#;
        let all = starts(text, &[]);
        assert_eq!(all, [(0, 8), (12, 22), (27, 30), (34, 42)]);
        // Each block alone, then both: the values inside are left out, nothing else.
        assert_eq!(starts(text, &[(9, 26)]), [(0, 8), (27, 30), (34, 42)]);
        assert_eq!(starts(text, &[(9, 26), (31, 46)]), [(0, 8), (27, 30)]);
        // A block reached inside a value (an unclosed `[` before it) is walked as usual.
        let text = r#"[ {"a": 1} <m>{"b": 2}</m> ]"#;
        assert_eq!(starts(text, &[(11, 26)]), starts(text, &[]));
        let (_, open, _) = json_values_skipping("[ <m>{\"b\": 2}</m>", None, &[(2, 18)]);
        assert_eq!(open, Some(0));
    }

    #[test]
    fn braces_inside_strings_do_not_count() {
        let t = r#"x {"a": "b { c", "d": "e \" } f", "g": {"h": [1, "]"]}} y"#;
        let start = t.find('{').unwrap();
        assert_eq!(&t[balanced_end(t, start).unwrap()..], " y");
    }

    #[test]
    fn an_unclosed_brace_does_not_swallow_the_rest() {
        let t = r#"broken { "a": 1 and then {"name": "f", "arguments": {}} done"#;
        let found = json_values(t);
        let spans: Vec<&str> = found
            .iter()
            .filter(|f| !f.unclosed)
            .map(|f| &t[f.start..f.end])
            .collect();
        assert_eq!(spans, [r#"{"name": "f", "arguments": {}}"#]);
    }

    #[test]
    fn a_closer_of_the_other_kind_closes_nothing() {
        // `]` in prose inside an unclosed `{`: the values after it are still listed.
        let t = "{\"name\": \"f\", \"arguments\": {{\n]<]x[>[ then\n{\"name\": \"g\", \"arguments\": {}}";
        let spans: Vec<&str> = json_values(t)
            .iter()
            .filter(|f| !f.unclosed)
            .map(|f| &t[f.start..f.end])
            .collect();
        assert_eq!(spans, [r#"{"name": "g", "arguments": {}}"#]);
    }

    #[test]
    fn a_value_cut_off_inside_a_string_ends_at_that_line() {
        // Without the restart, the quote after `partial` would open a string running
        // over the prose and hide the call after it.
        let t = "one: {\"name\": \"w\", \"arguments\": {\"content\": \"partial\n\nThen \"quoted\" words.\n{\"name\": \"g\", \"arguments\": {}}\n";
        let found = json_values(t);
        let got: Vec<(&str, bool)> = found
            .iter()
            .map(|f| (&t[f.start..f.end], f.unclosed))
            .collect();
        assert_eq!(
            got,
            [
                (r#"{"name": "w", "arguments": {"content": "partial"#, true),
                (r#"{"name": "g", "arguments": {}}"#, false)
            ]
        );
        // With no call after it, the value runs to the end, for a repair.
        let t = "{\"name\": \"w\", \"arguments\": {\"content\": \"line one\nline two";
        let found = json_values(t);
        assert_eq!(
            (found.len(), found[0].end, found[0].unclosed),
            (1, t.len(), true)
        );
    }

    #[test]
    fn values_before_a_broken_string_are_those_of_a_walk_that_stops_there() {
        // The first value never closes; the quote after `partial` pairs with one in
        // Granite's array after the line break, and the array's brackets closed the cut
        // call's value: it was neither closed nor open at the end, and was lost.
        let t = [
            include_str!("../../fixtures/json/restarted-call.txt"),
            include_str!("../../fixtures/mandrake/json-calls.txt"),
            "\n",
            include_str!("../../fixtures/models/granite.txt"),
        ]
        .concat();
        let cut = t.find("{\"name\": \"ripper.write_file\"").unwrap();
        let broken = t.find("\"partial").unwrap() + "\"partial".len();
        let found = json_values(&t);
        assert!(
            found
                .iter()
                .any(|f| (f.start, f.end, f.unclosed) == (cut, broken, true)),
            "no unclosed value from {cut} to {broken}"
        );
        // The array after it is still read.
        let array = t.find("[{\"arguments\"").unwrap();
        assert!(found.iter().any(|f| f.start == array && !f.unclosed));
    }

    #[test]
    fn a_value_cut_off_in_a_string_stays_open_when_the_rest_is_read_on_its_own() {
        // The rest after the break holds a call: the values are that walk's, and the cut
        // value is still open at the end (more text could pair its quotes otherwise).
        let t = "{\"name\": \"f\", \"arguments\": {\"q\": \"cut off\nprose\n{\"name\": \"g\", \"arguments\": {}}\n";
        let (found, open, _) = json_values_skipping(t, None, &[]);
        let spans: Vec<(&str, bool)> = found
            .iter()
            .map(|f| (&t[f.start..f.end], f.unclosed))
            .collect();
        assert_eq!(
            spans,
            [
                ("{\"name\": \"f\", \"arguments\": {\"q\": \"cut off", true),
                ("{\"name\": \"g\", \"arguments\": {}}", false),
            ]
        );
        assert_eq!(open, Some(0));
    }

    #[test]
    fn an_unclosed_value_ends_where_a_call_starts_on_a_later_line() {
        let t = "{\"name\": \"f\", \"parameters\": {{\"name\": \"f\", \"parameters\": {}}\nwords\n{\"name\": \"g\", \"arguments\": {}}\n";
        let found = json_values(t);
        let unclosed: Vec<&str> = found
            .iter()
            .filter(|f| f.unclosed)
            .map(|f| &t[f.start..f.end])
            .collect();
        assert_eq!(
            unclosed,
            ["{\"name\": \"f\", \"parameters\": {{\"name\": \"f\", \"parameters\": {}}\nwords\n"]
        );
    }

    #[test]
    fn values_directly_inside_an_unclosed_opener_are_listed_and_theirs_are_not() {
        let t = r#"a { b [ {"k": 1} ] {"m": [2]} c"#;
        let spans: Vec<&str> = json_values(t)
            .iter()
            .filter(|f| !f.unclosed)
            .map(|f| &t[f.start..f.end])
            .collect();
        assert_eq!(spans, [r#"[ {"k": 1} ]"#, r#"{"m": [2]}"#]);
    }

    #[test]
    fn quotes_and_backslashes_are_found_where_a_plain_search_finds_them() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 58) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|k| {
                    let r = (seed >> ((k * 5) % 59)) as u8;
                    match r % 23 {
                        0 => b'"',
                        1 => b'\\',
                        2 => 0x80 | r,
                        _ => b'a' + r % 26,
                    }
                })
                .collect();
            for from in 0..=len {
                let want = bytes[from..]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\')
                    .map(|n| from + n);
                assert_eq!(
                    quote_or_backslash(&bytes, from),
                    want,
                    "{bytes:?} from {from}"
                );
            }
        }
    }
}
