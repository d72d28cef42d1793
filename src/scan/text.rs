//! A piece of message text as the scanners see it: the text, its file lines, and what
//! is found in it once and shared (the offsets of `<`, `[` and `{`, WIL blocks,
//! reasoning regions).

use super::regions::{OpenRegions, ReasoningOpening, RegionMap, reasoning_regions_at};
use std::sync::{LazyLock, OnceLock};

/// A piece of message text for the json and text channels.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    /// The text itself.
    pub text: String,
    pub(crate) line: u64,
    /// Inside the model's reasoning (thinking blocks, `reasoning_content`).
    pub(crate) reasoning: bool,
    /// The text stands in its file as it is, so its line breaks are file lines. Text
    /// decoded from a JSON string sits on the lines of the string instead.
    pub(crate) raw: bool,
    /// The text is the source of a JSON value of no known shape: the json channel reads
    /// it (a whole call object), the text channel does not, as text syntaxes inside its
    /// strings are read from their decoded values instead (escapes undone).
    pub(crate) json_source: bool,
    /// The signature the provider gave this reasoning (Anthropic's thinking block):
    /// `convert` sends it back with the thinking, which Anthropic takes only so.
    pub(crate) signature: Option<Box<str>>,
    /// How many line breaks come before each block of `LINE_BLOCK` bytes (and one more
    /// entry for the end), counted once when a line is first asked for.
    breaks_before: OnceLock<Vec<usize>>,
    /// Offsets of every `<`, `[` and `{`, found in one pass and shared by the scanners;
    /// boxed, and only when there are some, so that a text stays small to move and to
    /// allocate in a turn's vector (most message texts hold none).
    openers: OnceLock<Option<Box<Openers>>>,
    /// Whether `WIL` or `wil` occurs at all (WIL sentinels are searched only then).
    wil: OnceLock<bool>,
    /// UICP's `BEGIN WIL … END WIL` blocks, found once.
    wil_blocks: OnceLock<Vec<(usize, usize)>>,
    /// Reasoning regions, found once: a window asks when it is cut and again per channel.
    reasoning_regions: OnceLock<Vec<(usize, usize)>>,
    /// The line breaks of the whole text, when its reader counted them already.
    breaks: Option<u64>,
    /// Regions opened before the text starts and still open there (a window of a longer
    /// text that starts inside `<think>`).
    open_before: OpenRegions,
    /// The text starts where a completion does, so a `</think>` with no opening before
    /// it closes reasoning that a prefilled `<think>` opened: a message's text.
    completion_start: bool,
}

/// Where the bytes that can open a call sit in a text.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Openers {
    pub(crate) angle: Vec<usize>,
    pub(crate) square: Vec<usize>,
    /// `[` and `{` together, in order: where JSON values may start.
    pub(crate) json: Vec<usize>,
    /// The `{` whose nearest byte before them, past white space, can end a name (see
    /// [`name_byte`]): the only braces that a marker or recipient written before a name
    /// can precede (`>>>f {`, `call:f{`, `to=functions.f json{`). Picked out while the
    /// sweep has the bytes in cache; each scanner that looks back from a brace would
    /// otherwise load the text at every one of them.
    pub(crate) named_braces: Vec<usize>,
    /// The `{` of JSON members (`"key": {`), which [`Openers::named_braces`] leaves out:
    /// the name before them is the lone `:`, which no built-in marker or recipient can
    /// be. Apart, because JSON written in text is full of them.
    pub(crate) member_braces: Vec<usize>,
}

/// A byte that can end a name written right before a brace: a letter, a digit, one of
/// `_-.:/`, or part of a multi-byte character.
pub(crate) fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'_' | b'-' | b'.' | b':' | b'/')
}

/// Searchers for `WIL` and `wil`, built once: building one costs more than searching a
/// short message text, and every text of a transcript is searched.
static WIL_FINDERS: LazyLock<[memchr::memmem::Finder<'static>; 2]> = LazyLock::new(|| {
    [
        memchr::memmem::Finder::new(b"WIL"),
        memchr::memmem::Finder::new(b"wil"),
    ]
});

/// Whether `WIL` or `wil` occurs: WIL sentinels are searched (in any case) only then.
pub(crate) fn holds_wil(bytes: &[u8]) -> bool {
    WIL_FINDERS.iter().any(|f| f.find(bytes).is_some())
}

/// The blocks of [`Text::wil_blocks`]; `open`: the text starts inside a block, which
/// is the first (from 0).
fn wil_blocks(bytes: &[u8], open: bool) -> Vec<(usize, usize)> {
    const BEGIN: &[u8] = b"BEGIN ";
    const END: &[u8] = b"END ";
    let [upper, lower] = &*WIL_FINDERS;
    let (upper, lower) = (upper.find_iter(bytes), lower.find_iter(bytes));
    let mut hits: Vec<usize> = upper.chain(lower).collect();
    hits.sort_unstable();
    let behind = |at: usize, word: &[u8]| {
        at >= word.len() && bytes[at - word.len()..at].eq_ignore_ascii_case(word)
    };
    let mut blocks = Vec::new();
    let mut hits = hits.into_iter();
    if open {
        let end = hits
            .by_ref()
            .find(|&at| at >= END.len() && behind(at, END))
            .map_or(bytes.len(), |at| at - END.len());
        blocks.push((0, end));
    }
    while let Some(begin) = hits.by_ref().find(|&at| behind(at, BEGIN)) {
        let body = begin + 3;
        let end = hits
            .by_ref()
            .find(|&at| at >= body + END.len() && behind(at, END))
            .map_or(bytes.len(), |at| at - END.len());
        blocks.push((begin - BEGIN.len(), end));
    }
    blocks
}

/// The block of [`Text::line_at`]'s counts: a line lookup counts at most this many bytes.
const LINE_BLOCK: usize = 4096;

/// The block of [`Text::sweep`].
const SWEEP_BLOCK: usize = 256 << 10;

impl Openers {
    const EMPTY: Openers = Openers {
        angle: Vec::new(),
        square: Vec::new(),
        json: Vec::new(),
        named_braces: Vec::new(),
        member_braces: Vec::new(),
    };

    /// No `<`, `[` or `{` at all (the brace lists are parts of `json`).
    fn is_empty(&self) -> bool {
        self.angle.is_empty() && self.json.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.angle.clear();
        self.square.clear();
        self.json.clear();
        self.named_braces.clear();
        self.member_braces.clear();
    }

    /// Adds the openers of `text[from..to]`.
    pub(crate) fn add(&mut self, text: &[u8], from: usize, to: usize) {
        for at in memchr::memchr3_iter(b'<', b'[', b'{', &text[from..to]) {
            self.add_one(text, from + at);
        }
    }

    /// Lists the opener at `at`, after those listed already.
    pub(crate) fn add_one(&mut self, text: &[u8], at: usize) {
        match text[at] {
            b'<' => self.angle.push(at),
            b'[' => {
                self.square.push(at);
                self.json.push(at);
            }
            _ => {
                self.json.push(at);
                self.sort_brace(text, at);
            }
        }
    }

    /// Lists the `{` at `at` among the named or member braces, by what stands before it.
    /// Each run of white space is walked back over from one brace at most.
    fn sort_brace(&mut self, text: &[u8], at: usize) {
        let mut p = at;
        while p > 0 && text[p - 1].is_ascii_whitespace() {
            p -= 1;
        }
        if p > 0 && name_byte(text[p - 1]) {
            if p >= 2 && text[p - 1] == b':' && text[p - 2] == b'"' {
                self.member_braces.push(at);
            } else {
                self.named_braces.push(at);
            }
        }
    }

    /// Adds the openers of `bytes` and (with `find_wil`) says whether `WIL` or `wil`
    /// occurs, in one sweep over blocks small enough to stay in cache from one search to
    /// the next; `each_block` sees every block while it is there too. The sweep stops
    /// after a block at whose end `angle` or `json` holds more than `limit` gives for
    /// the bytes swept (text that dense is cut short, see [`crate::input`]): the second
    /// value is where it stopped, the end of `bytes` when it did not.
    pub(crate) fn sweep(
        &mut self,
        bytes: &[u8],
        find_wil: bool,
        limit: &dyn Fn(usize) -> usize,
        mut each_block: impl FnMut(&[u8]),
    ) -> (bool, usize) {
        // Not looked for is not found: the searches below stop at the first.
        let mut wil = !find_wil;
        for from in (0..bytes.len()).step_by(SWEEP_BLOCK) {
            let to = (from + SWEEP_BLOCK).min(bytes.len());
            self.add(bytes, from, to);
            // The needle may start in the block before.
            wil = wil || holds_wil(&bytes[from.saturating_sub(2)..to]);
            each_block(&bytes[from..to]);
            if to < bytes.len() && {
                let limit = limit(to);
                self.angle.len() > limit || self.json.len() > limit
            } {
                return (wil && find_wil, to);
            }
        }
        (wil && find_wil, bytes.len())
    }

    /// Appends the openers of a piece of text found on its own (`piece`, offsets in
    /// it), which now starts at `shift` in `text`: as if `add` had found them there.
    /// Only the braces whose sorting looked at the piece's first two bytes are sorted
    /// again (what stood before them lies before the piece): the first byte that is not
    /// white space, and the second when the first is the piece's first.
    pub(crate) fn append_piece(&mut self, piece: &Openers, text: &[u8], shift: usize) {
        let moved = |v: &mut Vec<usize>, from: &[usize], edge: &[usize]| {
            v.extend(
                from.iter()
                    .map(|&o| o + shift)
                    .filter(|o| !edge.contains(o)),
            )
        };
        moved(&mut self.angle, &piece.angle, &[]);
        moved(&mut self.square, &piece.square, &[]);
        moved(&mut self.json, &piece.json, &[]);
        let solid = |from: usize| {
            text[from..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map(|n| from + n)
        };
        let mut edge = [usize::MAX; 2];
        if let Some(first) = solid(shift) {
            edge[0] = first;
            if first == shift {
                edge[1] = solid(first + 1).unwrap_or(usize::MAX);
            }
        }
        for at in edge {
            if text.get(at) == Some(&b'{') {
                self.sort_brace(text, at);
            }
        }
        moved(&mut self.named_braces, &piece.named_braces, &edge);
        moved(&mut self.member_braces, &piece.member_braces, &edge);
    }
}

impl Text {
    /// A text that starts on `line`; `reasoning`: inside the model's reasoning; `raw`: it stands in its file as it is.
    pub fn new(text: impl Into<String>, line: u64, reasoning: bool, raw: bool) -> Text {
        Text {
            text: text.into(),
            line,
            reasoning,
            raw,
            json_source: false,
            signature: None,
            breaks_before: OnceLock::new(),
            openers: OnceLock::new(),
            wil: OnceLock::new(),
            wil_blocks: OnceLock::new(),
            reasoning_regions: OnceLock::new(),
            breaks: None,
            open_before: OpenRegions::default(),
            completion_start: !raw,
        }
    }

    /// The text starts where a completion does, though its line breaks are file lines
    /// (convert cuts a message's text with the lines of its calls told apart).
    pub(crate) fn at_completion_start(mut self) -> Text {
        self.completion_start = true;
        self.reasoning_regions.take();
        self
    }

    /// A window's text whose openers, `WIL` search and line breaks were found as it was
    /// read (see [`crate::input`]'s pieces).
    pub(crate) fn swept(text: String, line: u64, openers: Openers, wil: bool, breaks: u64) -> Text {
        let mut t = Text::new(text, line, false, true);
        // Kept even when empty, as `sweep` does: the lists go back for the next window.
        let _ = t.openers.set(Some(Box::new(openers)));
        let _ = t.wil.set(wil);
        t.breaks = Some(breaks);
        t
    }

    /// The spans of `<think>…</think>` and the like in the text (see
    /// [`reasoning_regions_at`]).
    pub(crate) fn reasoning_regions(&self) -> &[(usize, usize)] {
        self.reasoning_regions.get_or_init(|| {
            let openers = self.openers();
            // A message of a transcript starts where its completion does; plain text
            // may hold any number of completions (and is read in windows that could
            // not tell the first from the next), so a bare `</think>` says nothing there.
            reasoning_regions_at(
                &self.text,
                &openers.angle,
                &openers.square,
                self.completion_start,
                self.open_before.reasoning,
            )
        })
    }

    /// Regions opened before the text starts and still open there.
    pub(crate) fn open_before(&self) -> OpenRegions {
        self.open_before
    }

    /// Tells a window which regions were open where it starts.
    pub(crate) fn set_open_before(&mut self, open: OpenRegions) {
        self.open_before = open;
        self.reasoning_regions.take();
        self.wil_blocks.take();
    }

    /// Whether the text holds `WIL` or `wil` anywhere, found once (or starts inside a
    /// block opened before it).
    pub(crate) fn maybe_wil(&self) -> bool {
        self.open_before.wil || *self.wil.get_or_init(|| holds_wil(self.text.as_bytes()))
    }

    /// UICP's `BEGIN WIL … END WIL` blocks: the offset of each `BEGIN WIL` and of its
    /// `END WIL`, or the text's end when it has none. `BEGIN` and `END` match in any
    /// case, `WIL` in upper or lower case. Searched once per text, and only when `WIL`
    /// or `wil` occurs. The search visits each `WIL`/`wil` and looks behind it: English
    /// is full of "will", but far fuller of the `b` a case-blind search would stop at.
    pub(crate) fn wil_blocks(&self) -> &[(usize, usize)] {
        self.wil_blocks.get_or_init(|| {
            if !self.maybe_wil() {
                return Vec::new();
            }
            wil_blocks(self.text.as_bytes(), self.open_before.wil)
        })
    }

    /// Whether a call in a built-in text syntax could be in this text at all. Each of
    /// them holds a `<`, `[` or `{` (tags, markers, JSON, Python lists), except WIL,
    /// which needs its `BEGIN WIL` (or `--dialects wil`, which the caller checks, as it
    /// does rows from `--dialect-file`). Most message texts hold none of these, and no
    /// scanner needs to look at them.
    pub(crate) fn may_hold_call(&self) -> bool {
        let o = self.openers();
        !o.angle.is_empty() || !o.json.is_empty() || !self.wil_blocks().is_empty()
    }

    /// The offsets of `<`, `[` and `{` in the text.
    pub(crate) fn openers(&self) -> &Openers {
        static NONE: Openers = Openers::EMPTY;
        self.openers
            .get_or_init(|| {
                let mut o = Openers::default();
                o.add(self.text.as_bytes(), 0, self.text.len());
                (!o.is_empty()).then(|| Box::new(o))
            })
            .as_deref()
            .unwrap_or(&NONE)
    }

    /// Finds the openers and (with `find_wil`) whether `WIL` or `wil` occurs in one
    /// sweep over blocks small enough to stay in cache from one search to the next: on
    /// a large text with no call these searches are most of the work there is.
    pub(crate) fn sweep(&self, find_wil: bool) {
        self.sweep_within(Openers::default(), find_wil, &|_| usize::MAX);
    }

    /// [`Text::sweep`], stopped as [`Openers::sweep`] stops past `limit`: false
    /// when it stopped before the end (the lists then hold the openers of a first part
    /// of the text only, enough to tell where to cut it). `openers` are lists to fill,
    /// emptied first: a window's, reused from the window before.
    pub(crate) fn sweep_within(
        &self,
        mut openers: Openers,
        find_wil: bool,
        limit: &dyn Fn(usize) -> usize,
    ) -> bool {
        openers.clear();
        let (wil, swept) = openers.sweep(self.text.as_bytes(), find_wil, limit, |_| {});
        let _ = self.openers.set(Some(Box::new(openers)));
        let _ = self.wil.set(wil);
        swept == self.text.len()
    }

    /// The opener lists found, taken out of the text (to be filled again for another).
    pub(crate) fn take_openers(&mut self) -> Option<Openers> {
        self.openers.take().flatten().map(|o| *o)
    }

    /// The file line of a byte offset in the text: the breaks before its block, plus
    /// those in the block up to it. A window of short lines holds a hundred thousand
    /// breaks; counting them per block costs a vector of a few thousand entries and one
    /// counting pass, where listing each of them cost a push per break.
    pub(crate) fn line_at(&self, offset: usize) -> u64 {
        if !self.raw {
            return self.line;
        }
        let bytes = self.text.as_bytes();
        let breaks_before = self.breaks_before.get_or_init(|| {
            let mut counts = Vec::with_capacity(bytes.len() / LINE_BLOCK + 2);
            let mut before = 0;
            for block in bytes.chunks(LINE_BLOCK) {
                counts.push(before);
                before += memchr::memchr_iter(b'\n', block).count();
            }
            counts.push(before);
            counts
        });
        let offset = offset.min(bytes.len());
        let block = offset / LINE_BLOCK;
        let within = memchr::memchr_iter(b'\n', &bytes[block * LINE_BLOCK..offset]).count();
        self.line + (breaks_before[block] + within) as u64
    }

    /// The line breaks before `offset` in raw text: from the per-block counts when a
    /// call's line has made them, else from the reader's count of the whole text less
    /// those after `offset`, else counted in one pass.
    pub(crate) fn breaks_up_to(&self, offset: usize) -> u64 {
        let offset = offset.min(self.text.len());
        let count = |b: &[u8]| memchr::memchr_iter(b'\n', b).count() as u64;
        if self.breaks_before.get().is_some() {
            self.line_at(offset) - self.line
        } else if let Some(all) = self.breaks {
            // A window's cut is near its end: the few lines after it are counted.
            all - count(&self.text.as_bytes()[offset..])
        } else {
            count(&self.text.as_bytes()[..offset])
        }
    }
}

impl Text {
    /// The context regions of this text (a window, itself told what was open at its
    /// start) with the opening of each, kept after the window is gone: which of them
    /// are open where the next window starts.
    pub(crate) fn region_map(&self) -> RegionMap {
        let before = self.open_before();
        let reasoning = self
            .reasoning_regions()
            .iter()
            .filter_map(|&(a, b)| {
                let kind = match before.reasoning {
                    Some(kind) if a == 0 => Some(kind),
                    _ => ReasoningOpening::opened_at(self.text.as_bytes(), a),
                };
                // Reasoning before a bare `</think>` has no opening to carry; it is
                // closed in the text that holds it.
                kind.map(|kind| (a, b, kind))
            })
            .collect();
        let len = self.text.len();
        let wil = self
            .wil_blocks()
            .iter()
            .map(|&(begin, end)| (begin, (end + "END WIL".len()).min(len)))
            .collect();
        RegionMap::new(reasoning, wil)
    }

    /// Regions whose opening tag gives meaning to what follows: reasoning, and WIL's
    /// `BEGIN WIL … END WIL`. A text read in windows is never cut inside one.
    pub(crate) fn context_regions(&self) -> Vec<(usize, usize)> {
        let mut out = self.reasoning_regions().to_vec();
        let len = self.text.len();
        out.extend(
            self.wil_blocks()
                .iter()
                .map(|&(begin, end)| (begin, (end + "END WIL".len()).min(len))),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_without_brackets_or_wil_blocks_hold_no_call() {
        let t = |s: &str| Text::new(s, 1, false, false).may_hold_call();
        assert!(!t(
            "plain words, punctuation: and \"quotes\"; a >>> prompt, call: f"
        ));
        assert!(!t("it will be fine; BEGIN with the wild west"));
        for s in ["a <tag>", "a [list]", "a {obj}", "BEGIN WIL\nx\nEND WIL"] {
            assert!(t(s), "{s}");
        }
    }

    #[test]
    fn the_line_of_every_offset_is_the_count_of_breaks_before_it() {
        // Texts around the block size, with runs of breaks and none, and offsets past
        // the end (which get the last line).
        let mut texts = vec![String::new(), "\n".into(), "a\nb".into()];
        for len in [LINE_BLOCK - 1, LINE_BLOCK, LINE_BLOCK + 1, 3 * LINE_BLOCK] {
            let text: String = (0..len)
                .map(|i| {
                    if i % 7 == 3 || i % 1000 < 20 {
                        '\n'
                    } else {
                        'x'
                    }
                })
                .collect();
            texts.push(text);
        }
        texts.push("é\n".repeat(LINE_BLOCK));
        for text in texts {
            let t = Text::new(text.clone(), 5, false, true);
            for offset in 0..=text.len() + 2 {
                let expected = text.as_bytes()[..offset.min(text.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64;
                assert_eq!(t.line_at(offset), 5 + expected, "offset {offset}");
            }
        }
        // Text decoded from a JSON string keeps the line of its string.
        assert_eq!(Text::new("a\nb\nc", 9, false, false).line_at(4), 9);
    }

    #[test]
    fn openers_of_pieces_appended_are_those_of_the_whole() {
        let alphabet = b"{{[<  \n\":ab";
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..3000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 58) as usize + 1;
            let text: Vec<u8> = (0..len)
                .map(|k| alphabet[((seed >> (k % 50)) as usize + k * 7) % alphabet.len()])
                .collect();
            let mut whole = Openers::default();
            whole.add(&text, 0, len);
            for cut in 0..=len {
                let mut joined = Openers::default();
                joined.add(&text, 0, cut);
                let mut piece = Openers::default();
                piece.add(&text[cut..], 0, len - cut);
                joined.append_piece(&piece, &text, cut);
                assert_eq!(
                    joined,
                    whole,
                    "{:?} cut at {cut}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    #[test]
    fn named_braces_are_those_with_a_name_byte_before_them() {
        let s = "a{ f {} \"k\": {} [{ ) {} é\n\t{ x/{ ,{ { y: {} \"a:b\":{}";
        let t = Text::new(s, 1, false, true);
        let before = |braces: &[usize]| -> Vec<String> {
            braces
                .iter()
                .map(|&at| s[..at].trim_end().chars().rev().take(4).collect())
                .collect()
        };
        let openers = t.openers();
        assert_eq!(
            before(&openers.named_braces),
            ["a", "f {a", "é }{", "/x {", ":y {"]
        );
        assert_eq!(before(&openers.member_braces), [":\"k\"", ":\"b:"]);
    }

    #[test]
    fn one_sweep_finds_what_the_separate_searches_find() {
        // "WIL" across each block boundary, openers on both sides.
        for cut in [SWEEP_BLOCK - 2, SWEEP_BLOCK - 1, SWEEP_BLOCK] {
            for needle in ["WIL", "wil", "WIX"] {
                let mut s = "a{b[c<d\n".repeat(SWEEP_BLOCK / 8 + 1);
                s.truncate(cut);
                s.push_str(needle);
                s.push_str("\n<x>[y]{z}\n");
                let swept = Text::new(s.clone(), 1, false, true);
                swept.sweep(true);
                let plain = Text::new(s.clone(), 1, false, true);
                assert_eq!(swept.openers(), plain.openers());
                for offset in [0, 1, cut / 2, cut, s.len()] {
                    assert_eq!(swept.line_at(offset), plain.line_at(offset), "{offset}");
                }
                assert_eq!(swept.maybe_wil(), needle != "WIX", "{needle} at {cut}");
            }
        }
    }

    #[test]
    fn wil_blocks_are_those_a_plain_search_finds() {
        // The reference: try every offset for the sentinels.
        fn reference(s: &[u8]) -> Vec<(usize, usize)> {
            let at = |i: usize, word: &[u8]| {
                s.len() >= i + word.len() + 3
                    && s[i..i + word.len()].eq_ignore_ascii_case(word)
                    && matches!(&s[i + word.len()..i + word.len() + 3], b"WIL" | b"wil")
            };
            let (mut blocks, mut from) = (Vec::new(), 0);
            while let Some(begin) = (from..s.len()).find(|&i| at(i, b"BEGIN ")) {
                let end = (begin + 9..s.len())
                    .find(|&i| at(i, b"END "))
                    .unwrap_or(s.len());
                blocks.push((begin, end));
                from = end;
            }
            blocks
        }
        let pieces = [
            "BEGIN WIL",
            "begin wil",
            "Begin WIL",
            "bEGIN Wil",
            "END WIL",
            "end wil",
            "End WIL",
            "friend will",
            "BEGIN ",
            "WIL",
            "wil",
            "Will",
            " ",
            "\n",
            "x",
            "BEGINWIL",
        ];
        let (mut seed, mut with_blocks) = (0x2545_f491_4f6c_dd1d_u64, 0);
        for _ in 0..5_000 {
            let mut s = String::new();
            let mut next = |n: usize| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (seed >> 33) as usize % n
            };
            for _ in 0..next(12) {
                s.push_str(pieces[next(pieces.len())]);
            }
            let text = Text::new(s.clone(), 1, false, true);
            assert_eq!(text.wil_blocks(), reference(s.as_bytes()), "{s:?}");
            with_blocks += usize::from(!text.wil_blocks().is_empty());
        }
        assert!(with_blocks > 500, "{with_blocks}");
    }
}
