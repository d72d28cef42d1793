//! The channel engine: per turn, channels in `--formats` order; the first that yields a
//! valid call wins, unless `--all`. Calls inside the model's reasoning are kept back
//! unless the turn has no other call (`--reasoning`). Records go out in input order.

use crate::dialects::{self, Channel, Hit, Resume, ScanContext, Scanner};
use crate::model::{Call, Event, Origin, Role, ToolResult, Turn};
use crate::output::{Output, Source};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;

mod stats;
mod window;

pub(crate) use stats::Stats;
use window::{PendingText, report_hits};

thread_local! {
    /// The vectors of a window's hits and chosen calls, kept for the next window. On
    /// text dense with calls they hold hundreds of kilobytes; freed after each window,
    /// their memory went back to the kernel and came back as page faults in the next.
    static SPARE_HITS: Cell<Vec<Hit>> = const { Cell::new(Vec::new()) };
    static SPARE_CHOSEN: RefCell<Vec<Vec<Chosen>>> = const { RefCell::new(Vec::new()) };
}

/// An empty vector for chosen calls, with the capacity of a recycled one if any.
fn spare_chosen() -> Vec<Chosen> {
    SPARE_CHOSEN.with(|spare| spare.borrow_mut().pop().unwrap_or_default())
}

/// Keeps a drained vector of chosen calls for [`spare_chosen`] (a few at most).
fn recycle_chosen(mut calls: Vec<Chosen>) {
    calls.clear();
    if calls.capacity() > 0 {
        SPARE_CHOSEN.with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < 8 {
                spare.push(calls);
            }
        });
    }
}

/// Moves the picked calls (in channel order, then call order, as `select` gives them)
/// out of the channels' lists.
fn take_picked(found: &mut [Vec<Chosen>], picked: &[Pick]) -> Vec<Chosen> {
    debug_assert!(picked.windows(2).all(|w| w[0] < w[1]));
    if let Some(&(ch, _)) = picked.first()
        && picked.len() == found[ch].len()
        && picked.iter().all(|&(c, _)| c == ch)
    {
        return std::mem::take(&mut found[ch]);
    }
    let mut chosen = spare_chosen();
    let mut next = picked.iter().peekable();
    for (ch, calls) in found.iter_mut().enumerate() {
        for (i, c) in calls.drain(..).enumerate() {
            if next.next_if_eq(&&(ch, i)).is_some() {
                chosen.push(c);
            }
        }
    }
    chosen
}

/// What to do with calls found inside reasoning (`<think>`, thinking blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reasoning {
    /// Report them like any other call.
    Include,
    /// Never report them.
    Exclude,
    /// Report them only when the turn has no call outside reasoning.
    Fallback,
}

/// What the user asked for.
#[derive(Clone)]
pub struct Options {
    /// The channels to read calls from (`--formats`), tried in [`Channel::ALL`]'s order.
    pub formats: Vec<Channel>,
    /// `--all`: every channel's calls, not only the first channel that yields.
    pub all: bool,
    /// `--with-results`: write the results of calls too.
    pub with_results: bool,
    /// `--with-text`: write the text around calls too.
    pub with_text: bool,
    /// `--roles`: the roles whose turns are read.
    pub roles: Vec<Role>,
    /// `--dialects`: only these (all channels).
    pub dialects: Option<Vec<String>>,
    /// Tool contracts from `--tools`: calls are validated against them.
    pub contracts: std::sync::Arc<crate::contracts::Contracts>,
    /// The dialect rows in force (built-in plus `--dialect-file`).
    pub registry: &'static dialects::Registry,
    /// `--strict`: no repairs of malformed calls.
    pub strict: bool,
    /// `--reasoning`: what to do with calls found inside reasoning.
    pub reasoning: Reasoning,
    /// `--manifest`, `--skip-unchanged`: a line per input is kept here.
    pub manifest: Option<std::sync::Arc<crate::manifest::Plan>>,
}

/// A call chosen for a turn, with where it sat in the turn's text (for `--with-text`).
#[derive(Clone)]
struct Chosen {
    channel: Channel,
    call: Call,
    /// (text index, start, end) for calls found in text.
    span: Option<(usize, usize, usize)>,
    /// Its id is not the source's but made for its results to name it.
    generated_id: bool,
}

/// With `--all`, the picks less the second readings of one text: where the spans of
/// calls from two channels (or two dialects) overlap, the longer span is the call
/// (a JSON call quoted in an XML call's argument is part of it), and at equal length
/// the earlier channel's. The calls of one construct share its span and dialect.
fn one_reading(found: &[Vec<Chosen>], picks: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let span = |&(ch, i): &(usize, usize)| found[ch][i].span;
    if picks.iter().filter(|p| span(p).is_some()).count() < 2 {
        return picks;
    }
    let mut rank: Vec<usize> = (0..picks.len())
        .filter(|&r| span(&picks[r]).is_some())
        .collect();
    rank.sort_by_key(|&r| {
        let (t, a, b) = span(&picks[r]).expect("with a span");
        (t, std::cmp::Reverse(b - a), r)
    });
    // Kept spans per text, by start: they never overlap, so a new one can overlap only
    // its neighbours.
    let mut kept: BTreeMap<(usize, usize), (usize, &str)> = BTreeMap::new();
    let mut dropped = vec![false; picks.len()];
    for r in rank {
        let (ch, i) = picks[r];
        let (t, a, b) = found[ch][i].span.expect("with a span");
        let dialect = found[ch][i].call.dialect;
        if kept.get(&(t, a)) == Some(&(b, dialect)) {
            continue;
        }
        let before = kept.range((t, 0)..=(t, a)).next_back();
        let after = kept.range((t, a)..(t + 1, 0)).next();
        if before.is_some_and(|(_, &(end, _))| end > a)
            || after.is_some_and(|(&(_, start), _)| start < b)
        {
            dropped[r] = true;
        } else {
            kept.insert((t, a), (b, dialect));
        }
    }
    picks
        .into_iter()
        .enumerate()
        .filter(|&(r, _)| !dropped[r])
        .map(|(_, p)| p)
        .collect()
}

/// Runs the channels over the turns of all sources and writes records.
pub struct Engine<'o> {
    options: Options,
    scanners: Vec<&'static dyn Scanner>,
    out: &'o mut Output,
    /// Per source: turns seen, call ids with their names (to name results), and the
    /// calls of notebook outputs (an output re-printed later is a copy).
    turns: u64,
    /// The calls waiting for their results: the most recent, not all (see
    /// [`crate::recent::RecentMap`]); the result of a call forgotten is named as the
    /// result of an unknown call is.
    calls: crate::recent::RecentMap<String, (String, u64)>,
    /// The calls without an id of the last turn that had calls (its index; each call's
    /// name and whether a result answered it): a result with no id answers them in
    /// order, or the first of the tool it names (a SWE-agent observation answers the
    /// action before it).
    unnamed_calls: (u64, Vec<(String, Option<String>, bool)>),
    /// How many calls the current source gave so far: the ordinal of a generated id.
    ordinal: usize,
    notebook_calls: HashSet<String>,
    file: String,
    /// Whether the current source held something of a transcript's shape: a message
    /// (not only text read as it stands), a structured call, or a result.
    structured: bool,
    /// Calls written from the current source.
    source_calls: u64,
    /// The current source was JSON of no known shape, described (see
    /// [`Engine::set_unknown_shape`]).
    unknown_shape: Option<String>,
    window: Option<PendingText>,
    /// The calls each channel found in the current turn (kept for their capacity).
    found: Vec<Vec<Chosen>>,
    /// What the scanners could not read, waiting for [`Engine::take_notes`].
    notes: dialects::Notes,
    /// Per source: notes reported, the last one (a window scanned again repeats it),
    /// and those over the limit.
    noted: u64,
    last_note: Option<(u64, String)>,
    notes_not_shown: u64,
    pub(crate) stats: Stats,
    /// Where the manifest lines of the inputs read go (from [`Options::manifest`]).
    pub(crate) manifest: Option<crate::manifest::Recorder>,
}

/// How many calls a text read in windows holds, waiting for its turn to be settled,
/// before it is settled anyway (see [`Engine::settle_held`]).
pub(crate) const MAX_HELD_CALLS: usize = 4096;

/// How many scanner notes a source reports before it only counts them.
const MAX_NOTES_PER_SOURCE: u64 = 20;

impl<'o> Engine<'o> {
    /// An engine that writes the records of `options` on `out`.
    pub fn new(options: Options, out: &'o mut Output) -> Self {
        let manifest = options.manifest.clone().map(crate::manifest::Recorder::new);
        Engine {
            manifest,
            options,
            scanners: dialects::scanners(),
            out,
            turns: 0,
            calls: crate::recent::RecentMap::default(),
            unnamed_calls: (0, Vec::new()),
            ordinal: 0,
            notebook_calls: HashSet::new(),
            file: String::new(),
            structured: false,
            source_calls: 0,
            unknown_shape: None,
            window: None,
            found: Vec::new(),
            notes: Default::default(),
            noted: 0,
            last_note: None,
            notes_not_shown: 0,
            stats: Stats::default(),
        }
    }

    /// Hands what the scanners noted since the last call to `report` as (line, message),
    /// each once, at most [`MAX_NOTES_PER_SOURCE`] per source.
    pub(crate) fn take_notes(&mut self, mut report: impl FnMut(u64, &str)) {
        self.notes_not_shown += self.notes.over.take();
        let notes = std::mem::take(&mut *self.notes.waiting.borrow_mut());
        for note in notes {
            if self
                .last_note
                .as_ref()
                .is_some_and(|(line, message)| note.0 < *line || note == (*line, message.clone()))
            {
                continue;
            }
            if self.noted < MAX_NOTES_PER_SOURCE {
                self.noted += 1;
                report(note.0, &note.1);
            } else {
                self.notes_not_shown += 1;
            }
            self.last_note = Some(note);
        }
    }

    /// How many notes of the current source were over the limit.
    pub(crate) fn notes_not_shown(&self) -> u64 {
        self.notes_not_shown
    }

    /// Where records go (for `check`, which collects them).
    pub(crate) fn output(&mut self) -> &mut Output {
        self.out
    }

    /// Starts a new source: turn numbers and call pairing are per source.
    pub fn start_source(&mut self, file: &str) {
        self.out.start_file();
        self.file = file.to_owned();
        self.structured = false;
        self.source_calls = 0;
        self.unknown_shape = None;
        self.turns = 0;
        self.calls.clear();
        self.unnamed_calls.1.clear();
        self.ordinal = 0;
        self.notebook_calls.clear();
        self.notes.waiting.borrow_mut().clear();
        self.notes.over.set(0);
        self.noted = 0;
        self.last_note = None;
        self.notes_not_shown = 0;
    }

    /// Whether the current source held a message, a structured call or a result, of any
    /// role; text read as it stands (plain text, JSON of no known shape) does not count.
    pub(crate) fn read_structure(&self) -> bool {
        self.structured
    }

    /// How many calls the current source gave.
    pub(crate) fn source_calls(&self) -> u64 {
        self.source_calls
    }

    /// Notes that the current source, read, was JSON of no known transcript shape
    /// (described: its top-level keys) in which no call was found; counted for
    /// `--stats`, and named by `check`'s finding.
    pub(crate) fn set_unknown_shape(&mut self, shape: String) {
        self.stats.unknown_shape += 1;
        self.unknown_shape = Some(shape);
    }

    /// The current source's shape as noted by [`Engine::set_unknown_shape`].
    pub(crate) fn unknown_shape(&self) -> Option<&str> {
        self.unknown_shape.as_deref()
    }

    /// Takes the next event of the current source: finds the calls of a turn or window and writes their records.
    pub fn event(&mut self, event: Event) -> io::Result<()> {
        self.structured |= match &event {
            // The decoded strings of JSON of no known shape are no message text.
            Event::Turn(turn) => {
                !turn.calls.is_empty()
                    || turn.texts.iter().any(|t| !t.raw)
                        && !turn.texts.first().is_some_and(|t| t.json_source)
            }
            Event::Result(_) => true,
            Event::Window(_) | Event::Conversation(_) => false,
        };
        match event {
            Event::Turn(turn) => self.turn(turn),
            Event::Result(result) => self.result(result),
            Event::Window(window) => self.window(window),
            // Records are per call: which conversation holds it is convert's concern.
            Event::Conversation(_) => Ok(()),
        }
    }

    fn turn(&mut self, mut turn: Turn) -> io::Result<()> {
        if !self.options.roles.contains(&turn.role) {
            turn.recycle();
            return Ok(());
        }
        let index = self.turns;
        self.turns += 1;
        let mut native = std::mem::take(&mut turn.calls);
        let chosen = self.choose(&turn, &mut native, index);
        let written = if self.options.with_text {
            self.write_with_text(&turn, &chosen, index)
        } else {
            chosen.iter().try_for_each(|c| self.write_call(c, index))
        };
        recycle_chosen(chosen);
        turn.calls = native;
        turn.recycle();
        written
    }

    /// The calls of one turn after channel fallback: channels in `--formats` order,
    /// each scanned only while no earlier one has a valid call outside reasoning
    /// (unless --all wants them all).
    fn choose(&mut self, turn: &Turn, native: &mut Vec<Call>, index: u64) -> Vec<Chosen> {
        let mut decided = false;
        // Per channel, in `--formats` order; the vectors are reused from turn to turn.
        let mut found = std::mem::take(&mut self.found);
        for &channel in &self.options.formats {
            let calls = if decided {
                Vec::new()
            } else {
                self.channel_calls(channel, turn, native, None)
            };
            decided |= !self.options.all
                && calls
                    .iter()
                    .any(|c| c.call.is_valid() && !c.call.in_reasoning);
            found.push(calls);
        }
        let chosen = self.decide(&mut found, turn.origin, index);
        for calls in found.drain(..) {
            recycle_chosen(calls);
        }
        self.found = found;
        chosen
    }

    /// The calls found in a turn's texts after channel fallback, each with the text it
    /// sat in and its span there (text index, start, end), in text order: what
    /// `convert` splits message text around. The turn's native calls are left alone.
    pub fn calls_in_texts(&mut self, turn: &Turn) -> Vec<(Call, usize, usize, usize)> {
        let index = self.turns;
        self.turns += 1;
        let mut chosen: Vec<(Call, usize, usize, usize)> = self
            .choose(turn, &mut Vec::new(), index)
            .into_iter()
            .filter_map(|mut c| {
                // Convert's pairing gives the ids a source does not.
                if c.generated_id {
                    c.call.id = None;
                }
                c.span.map(|(t, a, b)| (c.call, t, a, b))
            })
            .collect();
        chosen.sort_by_key(|c| (c.1, c.2));
        chosen
    }

    /// The constructs a windowed read protects in a turn's first text, as its scanners
    /// report them to a window's [`Resume`] when the text is read as one window: every
    /// candidate's and value's span, and each candidate still open at the end, to the
    /// end. The fuzz targets measure the documented limit on them.
    pub(crate) fn constructs_in_text(&self, turn: &Turn) -> Vec<(usize, usize)> {
        let len = turn.texts.first().map_or(0, |t| t.text.len());
        let resume = Resume::new(len, 0);
        for &channel in &self.options.formats {
            if channel != Channel::Tool {
                self.channel_calls(channel, turn, &mut Vec::new(), Some(&resume));
            }
        }
        resume.constructs(len)
    }

    /// Applies the reasoning policy and channel fallback to the calls each channel found
    /// in one turn (in `--formats` order), and counts what was chosen. The chosen calls
    /// are moved out of `found`.
    fn decide(&mut self, found: &mut [Vec<Chosen>], origin: Origin, index: u64) -> Vec<Chosen> {
        self.stats.turns += 1;
        // Most turns hold no call at all.
        let Some(first) = found.iter().position(|calls| !calls.is_empty()) else {
            return Vec::new();
        };
        let mut chosen = if !self.options.all
            && found[first]
                .iter()
                .all(|c| c.call.is_valid() && !c.call.in_reasoning)
        {
            // Most turns with calls: the first channel with any has only valid calls
            // outside reasoning, which every policy takes whole.
            std::mem::take(&mut found[first])
        } else {
            let picked = match self.options.reasoning {
                Reasoning::Include => self.select(found, true),
                Reasoning::Exclude => self.select(found, false),
                Reasoning::Fallback => {
                    let outside = self.select(found, false);
                    if outside.iter().any(|&(ch, i)| found[ch][i].call.is_valid()) {
                        outside
                    } else {
                        self.select(found, true)
                    }
                }
            };
            take_picked(found, &picked)
        };
        if origin == Origin::Notebook {
            let seen = &mut self.notebook_calls;
            chosen.retain(|c| {
                c.channel == Channel::Tool
                    || seen.insert(format!("{}\u{0}{:?}", c.call.name, c.call.arguments))
            });
        }
        if !chosen.is_empty() {
            self.stats.turns_with_calls += 1;
            if chosen[0].channel != self.options.formats[0] {
                self.stats.fallbacks += 1;
            }
        }
        for c in &mut chosen {
            // A SWE-agent action has no id, and its observation answers it: both get
            // the id `convert` gives the call.
            let generated =
                c.call.id.is_none() && matches!(origin, Origin::SweAgent | Origin::MiniSweAgent);
            c.generated_id = generated;
            if generated {
                let arguments = match &c.call.arguments_raw {
                    Some(raw) => raw.clone(),
                    None => serde_json::to_string(&*c.call.arguments).unwrap_or_default(),
                };
                c.call.id = Some(crate::formats::generated_call_id(
                    0,
                    self.ordinal,
                    &c.call.name,
                    &arguments,
                ));
            }
            self.ordinal += 1;
            self.count(c, index, generated);
        }
        chosen
    }

    /// Counts a chosen call for `--stats`, and remembers its name for its result;
    /// `generated`: its id is not the source's, so a result without one answers it.
    fn count(&mut self, c: &Chosen, index: u64, generated: bool) {
        let entry = self
            .stats
            .dialects
            .entry((c.channel, c.call.dialect))
            .or_default();
        entry.0 += 1;
        entry.1 += u64::from(!c.call.is_valid());
        entry.2 += u64::from(!c.call.repairs.is_empty());
        // Results are named after their calls; without results, nothing to keep.
        if !self.options.with_results {
            return;
        }
        if let Some(id) = &c.call.id {
            self.calls.insert(id.clone(), (c.call.name.clone(), index));
        }
        if c.call.id.is_none() || generated {
            if self.unnamed_calls.0 != index {
                self.unnamed_calls.0 = index;
                self.unnamed_calls.1.clear();
            }
            if self.unnamed_calls.1.len() < 256 {
                let id = c.call.id.clone();
                self.unnamed_calls.1.push((c.call.name.clone(), id, false));
            }
        }
    }

    fn write_call(&mut self, c: &Chosen, turn: u64) -> io::Result<()> {
        self.source_calls += 1;
        let source = Source {
            file: &self.file,
            line: c.call.line,
            turn,
        };
        self.out.call(&c.call, c.channel.name(), source)
    }

    /// Text pieces and calls in message order: text around each call found in text
    /// (cut as `convert` cuts it, see [`crate::tile`]), then the native calls (which
    /// carry no position in the text). A call inside another's span (`--all`) follows
    /// the one that holds it.
    fn write_with_text(&mut self, turn: &Turn, chosen: &[Chosen], index: u64) -> io::Result<()> {
        for (t, text) in turn.texts.iter().enumerate() {
            let mut here: Vec<(&Chosen, usize, usize)> = chosen
                .iter()
                .filter_map(|c| match c.span {
                    Some((i, start, end)) if i == t => Some((c, start, end)),
                    _ => None,
                })
                .collect();
            here.sort_by_key(|&(_, start, end)| (start, std::cmp::Reverse(end)));
            let spans: Vec<crate::tile::Span> = here
                .iter()
                .map(|&(c, start, end)| crate::tile::Span {
                    start,
                    end,
                    dialect: c.call.dialect,
                    call: Some(&c.call),
                })
                .collect();
            let keep = crate::tile::outermost(&spans);
            let mut outer: Vec<crate::tile::Span> = spans
                .into_iter()
                .zip(&keep)
                .filter_map(|(s, &k)| k.then_some(s))
                .collect();
            crate::tile::widen(&text.text, &mut outer);
            let widened: Vec<(usize, usize)> = outer.iter().map(|s| (s.start, s.end)).collect();
            drop(outer);
            let mut next = widened.into_iter();
            let mut at = 0;
            for (&(c, _, _), &k) in here.iter().zip(&keep) {
                if k && let Some((start, end)) = next.next() {
                    if start > at {
                        self.write_text(text, at, start, index)?;
                    }
                    at = at.max(end);
                }
                self.write_call(c, index)?;
            }
            if at < text.text.len() {
                self.write_text(text, at, text.text.len(), index)?;
            }
        }
        for c in chosen.iter().filter(|c| c.span.is_none()) {
            self.write_call(c, index)?;
        }
        Ok(())
    }

    fn write_text(
        &mut self,
        text: &crate::model::Text,
        start: usize,
        end: usize,
        turn: u64,
    ) -> io::Result<()> {
        let piece = &text.text[start..end];
        if piece.trim().is_empty() {
            return Ok(());
        }
        let source = Source {
            file: &self.file,
            line: text.line_at(start),
            turn,
        };
        self.out.text(piece, text.reasoning, source)
    }

    /// The calls of one turn after channel fallback.
    /// Channel fallback over the calls each channel found (in `--formats` order).
    fn select(&self, found: &[Vec<Chosen>], with_reasoning: bool) -> Vec<(usize, usize)> {
        let mut first_invalid: Option<Vec<(usize, usize)>> = None;
        let mut all: Vec<(usize, usize)> = Vec::new();
        // With --all, the calls kept so far by line, name and a digest of the arguments
        // that equal arguments share, then by id: a repeat is looked for among a few,
        // not all.
        let mut kept: HashMap<(u64, &str, u64), ById> = HashMap::new();
        for (ch, channel_calls) in found.iter().enumerate() {
            let calls: Vec<(usize, usize)> = channel_calls
                .iter()
                .enumerate()
                .filter(|(_, c)| with_reasoning || !c.call.in_reasoning)
                .map(|(i, _)| (ch, i))
                .collect();
            if calls.is_empty() {
                continue;
            }
            let call = |&(ch, i): &(usize, usize)| &found[ch][i].call;
            if self.options.all {
                for c in calls {
                    // The same call found by two channels at one place is one call:
                    // same line, name and arguments, and no two different ids.
                    let this = call(&c);
                    let key = (this.line, this.name.as_str(), digest_map(&this.arguments));
                    let by_id = kept.entry(key).or_default();
                    let equal = |picks: &Vec<Pick>| {
                        picks.iter().any(|a| call(a).arguments == this.arguments)
                    };
                    let id = this.id.as_deref();
                    let repeat = match id {
                        Some(_) => [None, id].iter().any(|k| by_id.get(k).is_some_and(equal)),
                        None => by_id.values().any(equal),
                    };
                    if !repeat {
                        by_id.entry(id).or_default().push(c);
                        all.push(c);
                    }
                }
                continue;
            }
            if calls.iter().any(|c| call(c).is_valid()) {
                return calls;
            }
            // No valid call here: the next channel may have one; these are kept in
            // case none does, rather than dropped.
            first_invalid.get_or_insert(calls);
        }
        if self.options.all {
            one_reading(found, all)
        } else {
            first_invalid.unwrap_or_default()
        }
    }

    /// Checks a call against the tool contracts, if any: validation comes before
    /// channel fallback, so a turn whose calls all break their contracts falls back.
    fn validate(&self, call: &mut Call) {
        if !self.options.contracts.is_empty() {
            self.options.contracts.check(call);
        }
    }

    /// The calls one channel finds in a turn; the tool channel takes the turn's native
    /// calls (moved out of `native`).
    fn channel_calls(
        &self,
        channel: Channel,
        turn: &Turn,
        native: &mut Vec<Call>,
        resume: Option<&Resume>,
    ) -> Vec<Chosen> {
        let enabled = |dialect: &str| {
            self.options
                .dialects
                .as_ref()
                .is_none_or(|d| d.iter().any(|n| n == dialect))
        };
        if channel == Channel::Tool {
            if native.is_empty() {
                return Vec::new();
            }
            let mut out = spare_chosen();
            out.reserve(native.len());
            for mut call in native.drain(..) {
                if enabled(call.dialect) {
                    self.validate(&mut call);
                    out.push(Chosen {
                        channel,
                        call,
                        span: None,
                        generated_id: false,
                    });
                }
            }
            return out;
        }
        let ctx = ScanContext {
            turn,
            tools: self.options.contracts.tools(),
            registry: self.options.registry,
            strict: self.options.strict,
            selected: self.options.dialects.as_deref(),
            resume,
            notes: Some(&self.notes),
        };
        let mut out = Vec::new();
        for (t, text) in turn.texts.iter().enumerate() {
            if text.json_source && channel == Channel::Text {
                continue;
            }
            // SWE-agent's fenced actions need no opener: their turns are always scanned.
            if !self.options.registry.user_rows
                && !ctx.explicitly("wil")
                && !matches!(
                    turn.origin,
                    crate::model::Origin::SweAgent | crate::model::Origin::MiniSweAgent
                )
                && !text.may_hold_call()
            {
                continue;
            }
            let mut hits: Vec<Hit> = SPARE_HITS.take();
            for scanner in self.scanners.iter().filter(|s| s.channel() == channel) {
                scanner.scan(text, &ctx, &mut hits);
            }
            if let Some(resume) = resume {
                report_hits(resume, text, &hits);
            }
            hits.retain(|h| enabled(h.call.dialect));
            if hits.is_empty() {
                SPARE_HITS.set(hits);
                continue;
            }
            let regions = if text.reasoning {
                &[][..]
            } else {
                text.reasoning_regions()
            };
            let mut hits = dialects::resolve(hits);
            if out.capacity() == 0 {
                out = spare_chosen();
            }
            out.reserve(hits.len());
            for hit in hits.drain(..) {
                let mut call = hit.call;
                if self.options.strict && !call.repairs.is_empty() && call.is_valid() {
                    // --strict: a call that needed any repair is reported as written.
                    let needed = call.repairs.join(", ");
                    call.repairs.clear();
                    call.invalid_arguments(
                        &text.text[hit.start..hit.end],
                        &format!("needs a repair ({needed}), and --strict allows none"),
                    );
                }
                call.in_reasoning = call.in_reasoning
                    || text.reasoning
                    || regions
                        .iter()
                        .any(|&(a, b)| hit.start >= a && hit.start < b);
                self.validate(&mut call);
                out.push(Chosen {
                    channel,
                    call,
                    span: Some((t, hit.start, hit.end)),
                    generated_id: false,
                });
            }
            SPARE_HITS.set(hits);
        }
        out
    }

    fn result(&mut self, mut result: ToolResult) -> io::Result<()> {
        if !self.options.with_results {
            return Ok(());
        }
        let last = self.turns.saturating_sub(1);
        let paired = match &result.id {
            Some(id) => self.calls.get(id).map(|(n, t)| (n.as_str(), *t)),
            // Right after a turn whose calls have no ids: the first of them not
            // answered yet, of the tool the result names when it names one.
            None if self.unnamed_calls.0 == last => self
                .unnamed_calls
                .1
                .iter_mut()
                .find(|(n, _, answered)| !*answered && result.name.as_ref().is_none_or(|r| r == n))
                .map(|(n, id, answered)| {
                    *answered = true;
                    result.id = id.clone();
                    (n.as_str(), last)
                }),
            None => None,
        };
        let name = paired.map(|(n, _)| n);
        let turn = paired.map_or(last, |(_, t)| t);
        let source = Source {
            file: &self.file,
            line: result.line,
            turn,
        };
        self.out.result(&result, name, source)
    }
}

/// A call in the channels' lists: (channel, index).
type Pick = (usize, usize);

/// Calls kept by `--all` at one line, name and arguments digest, by id.
type ById<'a> = HashMap<Option<&'a str>, Vec<Pick>>;

/// A digest of a JSON object that equal objects share, whatever the order of their
/// keys (serde_json's maps compare without regard to order).
fn digest_map(map: &serde_json::Map<String, serde_json::Value>) -> u64 {
    map.iter().fold(0u64, |sum, (k, v)| {
        sum.wrapping_add(digest(&(k, digest_value(v))))
    })
}

fn digest_value(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match value {
        Value::Object(map) => digest_map(map),
        Value::Array(items) => digest(&items.iter().map(digest_value).collect::<Vec<_>>()),
        // Numbers as serde_json writes them: equal numbers, equal text.
        other => digest(&other.to_string()),
    }
}

fn digest(value: &impl std::hash::Hash) -> u64 {
    use std::hash::{BuildHasher, RandomState};
    thread_local! {
        static STATE: RandomState = RandomState::new();
    }
    STATE.with(|s| s.hash_one(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_arguments_share_a_digest_whatever_the_key_order() {
        let map = |v: serde_json::Value| v.as_object().unwrap().clone();
        let a = map(json!({"a": 1, "b": {"x": [1, {"p": true, "q": null}], "y": "s"}}));
        let b = map(json!({"b": {"y": "s", "x": [1, {"q": null, "p": true}]}, "a": 1}));
        assert_eq!(a, b);
        assert_eq!(digest_map(&a), digest_map(&b));
        for other in [
            json!({"a": 2, "b": {"x": [1, {"p": true, "q": null}], "y": "s"}}),
            json!({"a": 1, "b": {"x": [{"p": true, "q": null}, 1], "y": "s"}}),
            json!({"a": 1.0, "b": {"x": [1, {"p": true, "q": null}], "y": "s"}}),
        ] {
            assert_ne!(digest_map(&a), digest_map(&map(other)));
        }
    }
}
