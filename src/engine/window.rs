//! Plain text read window by window: the calls of each window taken once, the turn
//! committed to a channel as soon as nothing later can change it, and where the next
//! window may start.

use super::{Chosen, Engine, MAX_HELD_CALLS, Reasoning, recycle_chosen, spare_chosen};
use crate::dialects::{Channel, Hit, Resume};
use crate::model::{Origin, Role, Text, Turn, Window};
use std::io;

/// The calls found so far in a plain text read window by window.
pub(super) struct PendingText {
    /// Per channel, in `--formats` order.
    found: Vec<Vec<Chosen>>,
    /// Offset up to which calls were taken.
    done: usize,
    /// Per channel, the end of the furthest call taken (it may reach into the next
    /// window).
    covered: Vec<usize>,
    /// The channel that has won the turn already: the first channel that can find
    /// calls in text has a valid call outside reasoning, so nothing later can change
    /// the choice. Its calls are written as they are found, the others dropped, and
    /// memory does not grow with the text.
    committed: Option<usize>,
    /// Calls written so far under `committed`.
    written: u64,
    /// The turn was settled (see `settle_held`) on a channel with no valid call outside
    /// reasoning: with `--reasoning fallback` its calls inside reasoning are written, as
    /// a whole read writes them when there is no other.
    reasoning_kept: bool,
}

/// What a window's hits tell its [`Resume`], besides what the scanners said: the next
/// window must not start inside a call, and one that ends at the window's end (or with
/// only white space after it) may run on, or absorb what follows (a closing `)`, a
/// fence), in a longer text. And a tag still open at the end (no `>` after the last `<`)
/// is no candidate yet for any scanner that needs its `>`.
pub(super) fn report_hits(resume: &Resume, text: &Text, hits: &[Hit]) {
    /// Bytes after a call that a dialect may look at to end or extend it.
    const LOOK_AHEAD: usize = 64;
    let s = text.text.as_str();
    if let Some(&last) = text.openers().angle.last()
        && memchr::memchr(b'>', &s.as_bytes()[last..]).is_none()
    {
        resume.unsettled_from(last);
    }
    for h in hits {
        resume.span(h.start, h.end);
        if crate::scan::skip_ws(s, h.end) + LOOK_AHEAD >= s.len() {
            resume.unsettled_from(h.start);
        }
    }
}

impl Engine<'_> {
    /// One window of a plain text too large to hold at once (see `input`). Calls that
    /// start before `keep_before` (an offset in the whole text) are kept, once; the last
    /// window decides the turn as if the text had been read whole.
    pub(super) fn window(&mut self, mut w: Window) -> io::Result<()> {
        if !self.options.roles.contains(&Role::Assistant) {
            return Ok(());
        }
        let pending = self.window.get_or_insert_with(|| PendingText {
            found: vec![Vec::new(); self.options.formats.len()],
            done: 0,
            covered: vec![0; self.options.formats.len()],
            committed: None,
            written: 0,
            reasoning_kept: false,
        });
        let done = pending.done;
        let committed = pending.committed;
        let mut turn = Turn::new(Role::Assistant, w.text.line);
        // The text goes back into the window when scanned: dropping the window recycles
        // its buffers and counts its lines for the reader.
        let cut = w.text.text.len();
        let text = std::mem::replace(&mut w.text, Text::new(String::new(), 0, false, true));
        turn.texts.push(text);
        // When every scanner this window runs says what it left open at the window's
        // end (and where its candidates are), the next window's start is chosen from
        // what they say. Once a channel has won the turn, only its scanners run.
        let reports = self
            .options
            .formats
            .iter()
            .enumerate()
            .all(|(f, &channel)| {
                committed.is_some_and(|won| won != f)
                    || self
                        .scanners
                        .iter()
                        .filter(|s| s.channel() == channel)
                        .all(|s| s.reports_resume())
            });
        // Then the next window may also start later than a full overlap back, and
        // earlier when its start would fall inside a construct this window saw
        // (overlapping candidates of several dialects can run on past a full overlap).
        // Back by one more overlap at most (`lo` may be nearer the cut than that: the
        // line start after it), and never past half of `lo`: every window moves on by a
        // quarter of its length at least.
        let lo = w.keep_before - w.offset;
        let floor = lo - w.overlap.max(cut.saturating_sub(lo)).min(lo / 2);
        let resume = (!w.last && reports).then(|| Resume::new(lo, floor));
        let hi = w.latest_keep - w.offset;
        // Once a channel has won the turn, the others' calls would be dropped: they are
        // not looked for.
        let found: Vec<Vec<Chosen>> = self
            .options
            .formats
            .iter()
            .enumerate()
            .map(|(f, &channel)| {
                if committed.is_some_and(|won| won != f) {
                    Vec::new()
                } else {
                    self.channel_calls(channel, &turn, &mut Vec::new(), resume.as_ref())
                }
            })
            .collect();
        if let Some(text) = turn.texts.pop() {
            w.text = text;
        }
        if let Some(resume) = resume {
            let regions = w.text.context_regions();
            let keep = resume.point(&w.text.text, hi, &regions);
            w.keep_before = w.offset + keep;
        }
        let pending = self.window.as_mut().expect("created above");
        for ((all, covered), mut calls) in pending
            .found
            .iter_mut()
            .zip(pending.covered.iter_mut())
            .zip(found)
        {
            let before = *covered;
            all.reserve(calls.len());
            for mut c in calls.drain(..) {
                let (start, end) = c.span.map_or((0, 0), |s| (w.offset + s.1, w.offset + s.2));
                // Taken once: from the window where it starts before the cut, and not
                // again as a part of a call of its channel taken from the last window.
                if start >= done.max(before) && (w.last || start < w.keep_before) {
                    // Offsets in the whole stream: `--all` compares the spans of calls
                    // of different channels.
                    c.span = c.span.map(|_| (0, start, end));
                    *covered = (*covered).max(end);
                    all.push(c);
                }
            }
            recycle_chosen(calls);
        }
        pending.done = w.keep_before;
        // With --all every channel is reported, in channel order: nothing to commit.
        let first_text = self
            .options
            .formats
            .iter()
            .position(|&c| c != Channel::Tool);
        if !self.options.all
            && pending.committed.is_none()
            && let Some(f) = first_text
            && pending.found[f]
                .iter()
                .any(|c| c.call.is_valid() && !c.call.in_reasoning)
        {
            pending.committed = Some(f);
        }
        if !w.last && pending.committed.is_none() {
            self.settle_held(w.text.line)?;
        }
        let pending = self.window.as_mut().expect("created above");
        // Once a channel without WIL has won, later windows are scanned for its calls
        // only, and WIL's sentinels (which keep a cut out of a WIL block) are moot.
        if pending
            .committed
            .is_some_and(|f| self.options.formats[f] != Channel::Text)
        {
            w.sentinels_moot = true;
        }
        if let Some(f) = pending.committed {
            let mut calls = std::mem::replace(&mut pending.found[f], spare_chosen());
            for other in pending.found.iter_mut() {
                other.clear();
            }
            let keep_reasoning = match self.options.reasoning {
                Reasoning::Include => true,
                Reasoning::Exclude => false,
                Reasoning::Fallback => pending.reasoning_kept,
            };
            if !keep_reasoning {
                calls.retain(|c| !c.call.in_reasoning);
            }
            pending.written += calls.len() as u64;
            let index = self.turns;
            for c in &calls {
                self.ordinal += 1;
                self.count(c, index, false);
                self.write_call(c, index)?;
            }
            recycle_chosen(calls);
            if w.last {
                let pending = self.window.take().expect("created above");
                self.stats.turns += 1;
                if pending.written > 0 {
                    self.stats.turns_with_calls += 1;
                    if self.options.formats[f] != self.options.formats[0] {
                        self.stats.fallbacks += 1;
                    }
                }
                self.turns += 1;
            }
            return Ok(());
        }
        if !w.last {
            return Ok(());
        }
        let pending = self.window.take().expect("created above");
        let mut found = pending.found;
        let index = self.turns;
        self.turns += 1;
        let chosen = self.decide(&mut found, Origin::Plain, index);
        if chosen.is_empty() && pending.written > 0 {
            self.stats.turns_with_calls += 1;
        }
        for c in &chosen {
            self.write_call(c, index)?;
        }
        Ok(())
    }

    /// Text with call after call and no call of an earlier channel would hold them all
    /// to its end (an earlier channel's call further on would still win the turn). Past
    /// [`MAX_HELD_CALLS`] the turn is settled now, with a warning: on the first channel
    /// that has a valid call (or, with none, any call), whose calls are then written as
    /// they are found; with `--all`, what is held is written and dropped.
    pub(super) fn settle_held(&mut self, line: u64) -> io::Result<()> {
        let Some(pending) = self.window.as_mut() else {
            return Ok(());
        };
        if pending.found.iter().map(Vec::len).sum::<usize>() <= MAX_HELD_CALLS {
            return Ok(());
        }
        if self.options.all {
            let mut held: Vec<Vec<Chosen>> = pending.found.iter_mut().map(std::mem::take).collect();
            // One turn, counted once when it ends.
            let counted = (
                self.stats.turns,
                self.stats.turns_with_calls,
                self.stats.fallbacks,
            );
            let chosen = self.decide(&mut held, Origin::Plain, self.turns);
            (
                self.stats.turns,
                self.stats.turns_with_calls,
                self.stats.fallbacks,
            ) = counted;
            let pending = self.window.as_mut().expect("checked above");
            pending.written += chosen.len() as u64;
            for c in &chosen {
                self.write_call(c, self.turns)?;
            }
            return Ok(());
        }
        // The channel a whole read would choose from what is held (see `select`): the
        // first with a valid call, else the first with any, counting calls inside
        // reasoning as the policy does.
        let pick = |with_reasoning: bool| {
            let counted = |c: &Chosen| with_reasoning || !c.call.in_reasoning;
            let valid = |calls: &Vec<Chosen>| calls.iter().any(|c| counted(c) && c.call.is_valid());
            let any = |calls: &Vec<Chosen>| calls.iter().any(counted);
            (
                pending.found.iter().position(valid),
                pending.found.iter().position(any),
            )
        };
        let (won, reasoning_kept) = match self.options.reasoning {
            Reasoning::Include => (pick(true), false),
            Reasoning::Exclude => (pick(false), false),
            Reasoning::Fallback => match pick(false) {
                (Some(f), _) => ((Some(f), None), false),
                _ => (pick(true), true),
            },
        };
        // With none (`--reasoning exclude`, every call inside reasoning), any channel
        // that holds calls: they are dropped, and memory stays bounded.
        let nonempty = || pending.found.iter().position(|calls| !calls.is_empty());
        if let Some(f) = won.0.or(won.1).or_else(nonempty) {
            pending.committed = Some(f);
            pending.reasoning_kept = reasoning_kept;
            let channel = self.options.formats[f].name();
            self.notes.waiting.borrow_mut().push((
                line,
                format!(
                    "more than {MAX_HELD_CALLS} calls in one text and the turn still open; \
                     it is settled on the {channel} channel here (calls of other channels \
                     further on in this text are not read)"
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    #[test]
    fn the_next_window_moves_back_a_whole_overlap_to_a_call_across_its_start() {
        // A window of 1,039 bytes with an overlap of 250: the reader's start for the next
        // one is the line start after the cut less the overlap, 48 bytes before the cut.
        // A call starts 191 bytes before that, on the same long line, and runs past it:
        // within one overlap, so the next window starts where the call does.
        let mut text = "a".repeat(699) + "\n";
        text += &"b".repeat(100);
        let call = text.len();
        text += "<tool_call><function=get_time><parameter=zone>";
        text += &"c".repeat(990 - text.len());
        text += "\nUTC</parameter></function></tool_call>\n";
        assert_eq!((text.len(), &text[990..991]), (1030, "\n"));
        text += "dddddddd\n";
        let options = Options {
            formats: Channel::ALL.to_vec(),
            all: false,
            with_results: false,
            with_text: false,
            roles: vec![Role::Assistant],
            dialects: None,
            contracts: Default::default(),
            registry: dialects::Registry::builtin(),
            strict: false,
            reasoning: Reasoning::Fallback,
            manifest: None,
        };
        let mut sink = Output::new(Box::new(io::sink()), false);
        let mut engine = Engine::new(options, &mut sink);
        let (back, passed) = std::sync::mpsc::channel();
        let window = Window {
            text: Text::new(text, 1, false, true),
            offset: 0,
            keep_before: 991,
            latest_keep: 991,
            overlap: 250,
            last: false,
            sentinels_moot: false,
            back: Some(back),
        };
        engine.event(Event::Window(window)).unwrap();
        assert_eq!(passed.try_recv().ok().map(|p| p.keep), Some(call));
    }
}
