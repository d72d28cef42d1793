//! The channel engine: per turn, channels in `--formats` order; the first that yields a
//! valid call wins, unless `--all`. Records go to the output in input order.

use crate::dialects::{Channel, ScanContext, TextDialect};
use crate::model::{Call, Event, Role, ToolResult, Turn};
use crate::output::{Output, Source};
use std::collections::HashMap;
use std::io;

/// What the user asked for.
pub struct Options {
    pub formats: Vec<Channel>,
    pub all: bool,
    pub with_results: bool,
    pub roles: Vec<Role>,
}

/// Runs the channels over the turns of all sources and writes records.
pub struct Engine<'o> {
    options: Options,
    dialects: Vec<&'static dyn TextDialect>,
    out: &'o mut Output,
    /// Per source: turns seen, and call ids with their names (to name results).
    turns: u64,
    calls: HashMap<String, (String, u64)>,
    file: String,
}

impl<'o> Engine<'o> {
    pub fn new(
        options: Options,
        dialects: Vec<&'static dyn TextDialect>,
        out: &'o mut Output,
    ) -> Self {
        Engine {
            options,
            dialects,
            out,
            turns: 0,
            calls: HashMap::new(),
            file: String::new(),
        }
    }

    /// Starts a new source: turn numbers and call pairing are per source.
    pub fn start_source(&mut self, file: &str) {
        self.file = file.to_owned();
        self.turns = 0;
        self.calls.clear();
    }

    pub fn event(&mut self, event: Event) -> io::Result<()> {
        match event {
            Event::Turn(turn) => self.turn(turn),
            Event::Result(result) => self.result(result),
        }
    }

    fn turn(&mut self, turn: Turn) -> io::Result<()> {
        if !self.options.roles.contains(&turn.role) {
            return Ok(());
        }
        let index = self.turns;
        self.turns += 1;
        let selected = self.select(&turn);
        for (channel, call) in &selected {
            if let Some(id) = &call.id {
                self.calls.insert(id.clone(), (call.name.clone(), index));
            }
            let source = Source {
                file: &self.file,
                line: call.line,
                turn: index,
            };
            self.out.call(call, channel.name(), source)?;
        }
        Ok(())
    }

    /// The calls of one turn after channel fallback.
    fn select(&self, turn: &Turn) -> Vec<(Channel, Call)> {
        let mut first_invalid: Option<Vec<(Channel, Call)>> = None;
        let mut all: Vec<(Channel, Call)> = Vec::new();
        for &channel in &self.options.formats {
            let calls = self.channel_calls(channel, turn);
            if calls.is_empty() {
                continue;
            }
            if self.options.all {
                for call in calls {
                    // The same call found by two channels at one place is one call.
                    let dup = all.iter().any(|(_, c)| {
                        c.line == call.line && c.name == call.name && c.arguments == call.arguments
                    });
                    if !dup {
                        all.push((channel, call));
                    }
                }
                continue;
            }
            if calls.iter().any(Call::is_valid) {
                return calls.into_iter().map(|c| (channel, c)).collect();
            }
            first_invalid.get_or_insert_with(|| calls.into_iter().map(|c| (channel, c)).collect());
        }
        if self.options.all {
            all
        } else {
            // No channel gave a valid call: report the first one's invalid calls rather
            // than drop them.
            first_invalid.unwrap_or_default()
        }
    }

    fn channel_calls(&self, channel: Channel, turn: &Turn) -> Vec<Call> {
        if channel == Channel::Tool {
            return turn.calls.clone();
        }
        let ctx = ScanContext { turn };
        let mut out = Vec::new();
        for text in &turn.texts {
            for dialect in self.dialects.iter().filter(|d| d.channel() == channel) {
                let before = out.len();
                dialect.scan(text, &ctx, &mut out);
                for call in &mut out[before..] {
                    call.in_reasoning |= text.reasoning;
                }
            }
        }
        out
    }

    fn result(&mut self, result: ToolResult) -> io::Result<()> {
        if !self.options.with_results {
            return Ok(());
        }
        let paired = result.id.as_ref().and_then(|id| self.calls.get(id));
        let name = paired.map(|(n, _)| n.as_str());
        let turn = paired
            .map(|(_, t)| *t)
            .unwrap_or(self.turns.saturating_sub(1));
        let source = Source {
            file: &self.file,
            line: result.line,
            turn,
        };
        self.out.result(&result, name, source)
    }
}
