//! The dialect registry. The tool channel reads structured call objects (`native`); the
//! json and text channels run scanners over the text of a turn. A scanner reports hits
//! (a call and the span of text it came from) under one or more dialect names; dialects
//! of one family are rows of data read by one scanner.

pub(crate) mod anthropic_xml;
pub(crate) mod cline;
pub(crate) mod dialect_file;
pub(crate) mod harmony;
pub(crate) mod hits;
pub(crate) mod json_text;
pub(crate) mod literal;
pub(crate) mod mandrake_xml;
pub(crate) mod markers;
pub(crate) mod minimax_m3;
pub(crate) mod native;
pub(crate) mod natural;
pub(crate) mod registry;
pub(crate) mod shapes;
pub(crate) mod swe_agent;
pub(crate) mod wil;
pub(crate) mod xml_params;

pub use registry::Registry;

use crate::model::{Call, Text, Turn};
use crate::tools::Tool;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Where a call was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// Structured call objects of an API or log format.
    Tool,
    /// JSON written inside message text.
    Json,
    /// Other text syntaxes (XML-ish tags, pythonic calls, ...).
    Text,
}

impl Channel {
    /// The three channels, in the order a turn tries them.
    pub const ALL: [Channel; 3] = [Channel::Tool, Channel::Json, Channel::Text];

    /// The channel's name in records and options.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Tool => "tool",
            Channel::Json => "json",
            Channel::Text => "text",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Channel {
    type Err = String;
    fn from_str(s: &str) -> Result<Channel, String> {
        Channel::ALL
            .into_iter()
            .find(|c| c.name() == s.trim())
            .ok_or_else(|| format!("unknown channel '{s}' (expected tool, json or text)"))
    }
}

/// A call found in text, with the byte span it came from.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) call: Call,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Higher wins when two hits overlap: specific markers beat bare JSON.
    pub(crate) specificity: u8,
    /// The span is JSON values between markers, with no other bracket or quote: a walk
    /// of the text's JSON (`scan::json_values_skipping`) that comes to it outside any
    /// value may pass over it, and is outside any value again at its end.
    pub(crate) balanced: bool,
}

/// Bare JSON, found anywhere.
pub(crate) const GENERIC: u8 = 1;
/// A marked syntax whose special tokens were stripped (`call:f{…}`, `f[ARGS]{…}`).
pub(crate) const STRIPPED: u8 = 2;
/// A syntax with its own markers or tags.
pub(crate) const MARKED: u8 = 3;

/// What a scanner may look at besides the text itself.
pub(crate) struct ScanContext<'t> {
    pub(crate) turn: &'t Turn,
    /// Tools declared with `--tools`.
    pub(crate) tools: &'t [Tool],
    /// The dialect rows in force (built-in and `--dialect-file`).
    pub(crate) registry: &'t Registry,
    /// `--strict`: no repairs; calls that need one are invalid.
    pub(crate) strict: bool,
    /// `--dialects`: when set, only these.
    pub(crate) selected: Option<&'t [String]>,
    /// Set when the text is a window of a longer one: where the next window may start.
    pub(crate) resume: Option<&'t Resume>,
    /// Where a scanner says what it saw and could not read (a dialect's markers around
    /// no call), for a warning: nothing between markers is dropped without one.
    pub(crate) notes: Option<&'t Notes>,
}

/// Warnings from the scanners: (file line, message) waiting to be reported, at most
/// [`MAX_NOTES`] at a time, and how many more there were.
#[derive(Default)]
pub(crate) struct Notes {
    pub(crate) waiting: std::cell::RefCell<Vec<(u64, String)>>,
    pub(crate) over: std::cell::Cell<u64>,
}

/// How many notes wait for the reader to report them; more are counted only.
pub(crate) const MAX_NOTES: usize = 64;

impl ScanContext<'_> {
    /// Records a warning about the text at `line`.
    pub(crate) fn note(&self, line: u64, message: impl FnOnce() -> String) {
        if let Some(notes) = self.notes {
            let mut waiting = notes.waiting.borrow_mut();
            if waiting.len() < MAX_NOTES {
                waiting.push((line, message()));
            } else {
                notes.over.set(notes.over.get() + 1);
            }
        }
    }
}

/// What the scanners of one window tell the engine about where the next window may
/// start (see [`Resume::point`]). Scanners that report say which of their candidates
/// could turn out otherwise if the text went on past the window's end, and which
/// constructs a window must not start inside. Only scanners whose
/// [`Scanner::reports_resume`] is true are trusted with it.
#[derive(Debug)]
pub(crate) struct Resume {
    /// Where the next window starts unless something says otherwise (a full overlap
    /// before the cut): candidates before it are taken from this window.
    pub(crate) lo: usize,
    /// How far back a construct that `lo` falls inside (a call, a value, a candidate
    /// unsettled) may take the next window's start: one more overlap. A construct that
    /// starts earlier is longer than the documented limit, and the window starts at `lo`.
    floor: usize,
    unsettled: std::cell::Cell<usize>,
    spans: std::cell::RefCell<Vec<(usize, usize)>>,
}

impl Resume {
    pub(crate) fn new(lo: usize, floor: usize) -> Resume {
        Resume {
            lo,
            floor: floor.min(lo),
            unsettled: std::cell::Cell::new(usize::MAX),
            spans: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// A candidate at `at` whose outcome depends on text past the end of the window (a
    /// value still open, a close marker not found): the next window starts before it.
    pub(crate) fn unsettled_from(&self, at: usize) {
        self.unsettled.set(self.unsettled.get().min(at));
    }

    /// A construct (a call, a JSON value) the next window must not start inside: it
    /// would see its inside without its opening.
    pub(crate) fn span(&self, start: usize, end: usize) {
        if end > self.floor && end > start + 1 {
            self.spans.borrow_mut().push((start, end));
        }
    }

    /// The spans reported, and the earliest unsettled candidate's start to `end`.
    pub(crate) fn constructs(self, end: usize) -> Vec<(usize, usize)> {
        let mut spans = self.spans.into_inner();
        let unsettled = self.unsettled.get();
        if unsettled < end {
            spans.push((unsettled, end));
        }
        spans
    }

    /// The latest line start in `floor..=hi` of `text` (after `floor`) that is before
    /// every unsettled candidate and inside no reported span or context region
    /// (`regions`); `lo` when there is none.
    pub(crate) fn point(self, text: &str, hi: usize, regions: &[(usize, usize)]) -> usize {
        let mut spans = self.spans.into_inner();
        spans.extend(
            regions
                .iter()
                .filter(|&&(a, b)| b > self.floor && b > a + 1),
        );
        spans.sort_unstable();
        // The largest end among the spans that start before each one, and the span
        // that has it: a point is inside some span exactly when that end is beyond it.
        let mut reach: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for &(a, b) in &spans {
            let best = reach.last().copied().unwrap_or((0, 0));
            reach.push(if b > best.0 { (b, a) } else { best });
        }
        let bytes = text.as_bytes();
        // A candidate unsettled since before `floor` is longer than the limit: the
        // window starts no later than `lo`, for what follows it.
        let unsettled = self.unsettled.get();
        let mut want = if unsettled > self.floor {
            hi.min(unsettled)
        } else {
            self.lo
        }
        .min(bytes.len());
        loop {
            if want <= self.floor {
                return self.lo;
            }
            // The line that holds `want` starts after the last line break before it.
            let at = match memchr::memrchr(b'\n', &bytes[self.floor..want]) {
                Some(n) => self.floor + n + 1,
                // No line starts there: the construct itself, or the character before
                // `hi` (which may fall inside one).
                None => match (self.floor + 1..=want)
                    .rev()
                    .find(|&k| text.is_char_boundary(k))
                {
                    Some(k) => k,
                    None => return self.lo,
                },
            };
            let i = spans.partition_point(|&(a, _)| a < at);
            match reach.get(i.wrapping_sub(1)) {
                Some(&(end, start)) if end > at => want = start,
                _ => return at,
            }
        }
    }
}

impl ScanContext<'_> {
    pub(crate) fn enabled(&self, dialect: &str) -> bool {
        self.selected.is_none_or(|s| s.iter().any(|d| d == dialect))
    }

    /// A candidate of a text-channel scanner at `at`, when the text is a window: the next
    /// window starts before it (text scanners do not say whether what they found there
    /// could change in a longer text, so every candidate past the cheap checks counts).
    /// Candidates before the full overlap are taken from this window, as they always were.
    pub(crate) fn candidate(&self, at: usize) {
        if let Some(resume) = self.resume.filter(|r| at >= r.lo) {
            resume.unsettled_from(at);
        }
    }

    /// Whether the user named this dialect in `--dialects`.
    pub(crate) fn explicitly(&self, dialect: &str) -> bool {
        self.selected
            .is_some_and(|s| s.iter().any(|d| d == dialect))
    }

    /// The declared spelling of a tool name (compared case-insensitively).
    pub(crate) fn declared(&self, name: &str) -> Option<&str> {
        self.tools
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .map(|t| t.name.as_str())
    }

    /// The argument schema of a declared tool (its exact declared name).
    pub(crate) fn schema(&self, name: &str) -> Option<&serde_json::Value> {
        self.tools
            .iter()
            .find(|t| t.name == name)
            .map(|t| &t.schema)
    }
}

/// A syntax (or family of syntaxes) for calls written inside message text.
pub(crate) trait Scanner: Sync {
    fn channel(&self) -> Channel;
    /// The dialects this scanner reports, for `toolsift dialects` and `--dialects`.
    fn rows(&self, registry: &Registry) -> Vec<DialectRow>;
    /// Appends the calls found in `text` to `out`, with their spans.
    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>);
    /// Whether `scan` tells [`ScanContext::resume`] enough for a window's next one to
    /// start later than a full overlap back: the json channel's scanners report every
    /// candidate whose outcome could change with more text, and the constructs a window
    /// must not start inside; the text channel's report every candidate past their
    /// cheap checks ([`ScanContext::candidate`]). Calls are reported by the engine.
    fn reports_resume(&self) -> bool {
        false
    }
}

/// All built-in scanners of the json and text channels.
pub(crate) fn scanners() -> Vec<&'static dyn Scanner> {
    vec![
        &markers::MARKERS,
        &harmony::HARMONY,
        &json_text::JSON_TEXT,
        &natural::NATURAL,
        &mandrake_xml::MANDRAKE_XML,
        &xml_params::XML_PARAMS,
        &minimax_m3::MINIMAX_M3,
        &cline::CLINE,
        &anthropic_xml::ANTHROPIC_XML,
        &literal::LITERAL,
        &wil::WIL,
        &swe_agent::SWE_AGENT_COMMAND,
    ]
}

/// One row of `toolsift dialects`.
#[derive(Clone, Debug)]
pub struct DialectRow {
    /// The dialect's name, as `--dialects` takes it.
    pub name: String,
    pub(crate) channel: Channel,
    pub(crate) summary: String,
    pub(crate) example: String,
    /// The models that write it, when known.
    pub(crate) models: String,
}

impl DialectRow {
    pub(crate) fn new(name: &str, channel: Channel, summary: &str, example: &str) -> DialectRow {
        DialectRow {
            name: name.into(),
            channel,
            summary: summary.into(),
            example: example.into(),
            models: String::new(),
        }
    }

    pub(crate) fn models(mut self, models: &str) -> DialectRow {
        self.models = models.into();
        self
    }
}

/// Every dialect toolsift knows, tool channel first.
pub fn all_rows(registry: &Registry) -> Vec<DialectRow> {
    let mut rows: Vec<DialectRow> = native::DIALECTS
        .iter()
        .map(|d| DialectRow::new(d.name, Channel::Tool, d.summary, d.example))
        .collect();
    let mut rest: Vec<DialectRow> = scanners()
        .into_iter()
        .flat_map(|s| s.rows(registry))
        .collect();
    rest.sort_by_key(|r| r.channel);
    rows.extend(rest);
    rows
}

/// Removes hits that overlap a more specific (or earlier) one and orders the rest by
/// position: one span is never reported twice.
pub(crate) fn resolve(mut hits: Vec<Hit>) -> Vec<Hit> {
    // Hits are large: they are ranked by index, then put in order by swaps.
    let mut rank: Vec<usize> = (0..hits.len()).collect();
    rank.sort_by(|&a, &b| {
        let (a, b) = (&hits[a], &hits[b]);
        b.specificity
            .cmp(&a.specificity)
            .then(a.start.cmp(&b.start))
    });
    // Kept spans never overlap (several calls of one value share its span), so the
    // neighbours by start are the only ones a new span can overlap.
    let mut spans: BTreeMap<usize, (usize, u8, &str)> = BTreeMap::new();
    let mut kept: Vec<(usize, usize)> = Vec::with_capacity(hits.len());
    for (order, &i) in rank.iter().enumerate() {
        let hit = &hits[i];
        // One construct's calls share its span and dialect; another dialect that reads
        // the same text is a second reading of it, not more calls.
        let same = spans.get(&hit.start) == Some(&(hit.end, hit.specificity, hit.call.dialect));
        let before = spans.range(..=hit.start).next_back();
        let after = spans.range(hit.start..).next();
        let overlaps = !same
            && (before.is_some_and(|(_, &(end, _, _))| end > hit.start)
                || after.is_some_and(|(&start, _)| start < hit.end));
        if !overlaps {
            spans.insert(hit.start, (hit.end, hit.specificity, hit.call.dialect));
            kept.push((hit.start, order));
        }
    }
    // By position; at one position, in rank order: put in that order in their own
    // vector (which the engine keeps from one window to the next), the dropped last,
    // and cut off.
    kept.sort_unstable();
    let count = kept.len();
    let mut placed = vec![false; hits.len()];
    let mut order: Vec<usize> = Vec::with_capacity(hits.len());
    for (_, r) in kept {
        placed[rank[r]] = true;
        order.push(rank[r]);
    }
    order.extend((0..hits.len()).filter(|&i| !placed[i]));
    gather_in_place(&mut hits, order);
    hits.truncate(count);
    hits
}

/// Reorders `items` so that position `j` holds what position `order[j]` held (`order`
/// is a permutation), by swaps along its cycles.
fn gather_in_place<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != at {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// Runs one scanner over a text, as the engine does, for the dialects' own tests.
#[cfg(test)]
pub(crate) fn scan_for_test(
    scanner: &dyn Scanner,
    text: &str,
    tools: &[String],
    strict: bool,
) -> Vec<Hit> {
    let turn = Turn::new(crate::model::Role::Assistant, 1);
    let tools: Vec<Tool> = tools.iter().map(|n| Tool::named(n)).collect();
    let ctx = ScanContext {
        turn: &turn,
        tools: &tools,
        registry: Registry::builtin(),
        strict,
        selected: None,
        resume: None,
        notes: None,
    };
    let mut out = Vec::new();
    scanner.scan(&Text::new(text, 1, false, true), &ctx, &mut out);
    out
}

/// What `scanner` tells a [`Resume`] about `text` (read as one window, with every
/// construct counted): the earliest unsettled start and the spans reported.
#[cfg(test)]
pub(crate) fn resume_for_test(
    scanner: &dyn Scanner,
    text: &str,
) -> (Option<usize>, Vec<(usize, usize)>) {
    let turn = Turn::new(crate::model::Role::Assistant, 1);
    let resume = Resume::new(0, 0);
    let ctx = ScanContext {
        turn: &turn,
        tools: &[],
        registry: Registry::builtin(),
        strict: false,
        selected: None,
        resume: Some(&resume),
        notes: None,
    };
    let mut out = Vec::new();
    scanner.scan(&Text::new(text, 1, false, true), &ctx, &mut out);
    let unsettled = Some(resume.unsettled.get()).filter(|&u| u != usize::MAX);
    let mut spans = resume.spans.take();
    spans.sort_unstable();
    (unsettled, spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_window_starts_at_a_line_start_before_all_that_is_open() {
        // Lines start at 0, 5, 11, 17, 20 and 25; the text ends at 28.
        let text = "aaaa\nbb {x\ny} cc\ndd\neeee\nff\n";
        assert_eq!(text.len(), 28);
        let point = |lo: usize, hi: usize, spans: &[(usize, usize)], unsettled: usize| {
            let r = Resume::new(lo, lo);
            for &(a, b) in spans {
                r.span(a, b);
            }
            r.unsettled_from(unsettled);
            r.point(text, hi, &[(19, 23)][..usize::from(unsettled == 22)])
        };
        let none = usize::MAX;
        // Nothing reported: the latest line start at or before `hi`.
        assert_eq!(point(0, 28, &[], none), 28);
        assert_eq!(point(0, 27, &[], none), 25);
        assert_eq!(point(0, 25, &[], none), 25);
        // Never inside a span: from line 3 (inside `{x\ny}`) back to the span's line.
        assert_eq!(point(0, 12, &[(8, 13)], none), 5);
        assert_eq!(point(0, 17, &[(8, 13)], none), 17);
        // A span that ends where a line starts does not hold it.
        assert_eq!(point(0, 11, &[(8, 11)], none), 11);
        // Before anything unsettled; a context region counts as a span.
        assert_eq!(point(0, 28, &[], 23), 20);
        assert_eq!(point(0, 28, &[], 22), 17);
        // Never before `lo`: with nothing later to go back to, `lo` itself.
        assert_eq!(point(17, 28, &[], 10), 17);
        assert_eq!(point(17, 28, &[(16, 26)], none), 28);
        assert_eq!(point(17, 27, &[(16, 26)], none), 17);
    }

    #[test]
    fn a_window_start_inside_a_construct_moves_back_as_far_as_the_floor() {
        // Lines start at 0, 5, 11, 17, 20 and 25; the text ends at 28.
        let text = "aaaa\nbb {x\ny} cc\ndd\neeee\nff\n";
        let point = |lo: usize, floor: usize, spans: &[(usize, usize)], unsettled: usize| {
            let r = Resume::new(lo, floor);
            for &(a, b) in spans {
                r.span(a, b);
            }
            r.unsettled_from(unsettled);
            r.point(text, lo, &[])
        };
        let none = usize::MAX;
        // `lo` (line 4) inside a call that starts on line 2: the window starts there.
        assert_eq!(point(20, 4, &[(8, 22)], none), 5);
        // Spans that overlap one another take it back together.
        assert_eq!(point(20, 4, &[(13, 22), (8, 14)], none), 5);
        // A construct that starts before the floor is longer than the limit: `lo`.
        assert_eq!(point(20, 12, &[(8, 22)], none), 20);
        // An unsettled candidate between the floor and `lo` is seen whole next time.
        assert_eq!(point(20, 4, &[], 12), 11);
        // One unsettled since before the floor leaves the spans to decide; with no line
        // start between the floor and a construct, the window starts where it does.
        assert_eq!(point(20, 6, &[(8, 22)], 2), 8);
        assert_eq!(point(20, 6, &[], 9), 9);
        assert_eq!(point(20, 4, &[(13, 22)], 2), 11);
        // Nothing at `lo`: it stays.
        assert_eq!(point(20, 4, &[(8, 14)], none), 20);
    }

    #[test]
    fn channel_names_round_trip() {
        for c in Channel::ALL {
            assert_eq!(c.name().parse::<Channel>().unwrap(), c);
        }
        assert!("xml".parse::<Channel>().is_err());
    }

    #[test]
    fn dialect_names_are_unique() {
        let rows = all_rows(Registry::builtin());
        let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn gathering_in_place_follows_every_cycle() {
        let orders: [&[usize]; 5] = [&[], &[0], &[1, 0], &[2, 0, 1, 3], &[3, 4, 0, 5, 1, 2]];
        for order in orders {
            let mut items: Vec<usize> = (0..order.len()).map(|i| i * 10).collect();
            gather_in_place(&mut items, order.to_vec());
            let expected: Vec<usize> = order.iter().map(|&i| i * 10).collect();
            assert_eq!(items, expected, "{order:?}");
        }
    }

    #[test]
    fn overlapping_hits_keep_the_specific_one() {
        let hit = |start, end, specificity| Hit {
            call: Call::new("f", "x", 1),
            start,
            end,
            specificity,
            balanced: false,
        };
        let kept = resolve(vec![
            hit(5, 20, GENERIC),
            hit(0, 25, MARKED),
            hit(30, 40, GENERIC),
            hit(30, 40, GENERIC),
        ]);
        let spans: Vec<(usize, usize)> = kept.iter().map(|h| (h.start, h.end)).collect();
        assert_eq!(spans, [(0, 25), (30, 40), (30, 40)]);
    }
}
