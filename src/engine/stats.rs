//! The counters of `--stats`, merged across workers, and their report.

use crate::dialects::Channel;
use std::collections::BTreeMap;

/// Counters for `--stats`, per channel and dialect.
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) turns: u64,
    pub(crate) turns_with_calls: u64,
    pub(crate) fallbacks: u64,
    /// Files of JSON of no known transcript shape, with no call found in their text.
    pub(crate) unknown_shape: u64,
    /// (channel, dialect) -> (calls, invalid, repaired)
    pub(crate) dialects: BTreeMap<(Channel, &'static str), (u64, u64, u64)>,
}

impl Stats {
    /// Adds another run's counts (a worker of `-j`).
    pub(crate) fn merge(&mut self, other: Stats) {
        self.turns += other.turns;
        self.turns_with_calls += other.turns_with_calls;
        self.fallbacks += other.fallbacks;
        self.unknown_shape += other.unknown_shape;
        for (key, (a, b, c)) in other.dialects {
            let e = self.dialects.entry(key).or_default();
            e.0 += a;
            e.1 += b;
            e.2 += c;
        }
    }
}

impl Stats {
    /// The `--stats` report, for stderr: every line a `toolsift: stats:` message, names
    /// from dialect files escaped.
    pub(crate) fn report(&self, paint: crate::style::Paint) -> String {
        use crate::diag::plural;
        let mut s = format!(
            "toolsift: stats: {}, {} with calls, {} to a later channel\n",
            plural(self.turns, "turn", "turns"),
            self.turns_with_calls,
            plural(self.fallbacks, "fallback", "fallbacks")
        );
        if self.unknown_shape > 0 {
            s.push_str(&format!(
                "toolsift: stats: files of no known shape: {}\n",
                self.unknown_shape
            ));
        }
        if self.dialects.is_empty() {
            return s;
        }
        let names: Vec<String> = self
            .dialects
            .keys()
            .map(|(_, d)| crate::diag::escape(d))
            .collect();
        let width = names
            .iter()
            .map(|d| d.chars().count())
            .max()
            .unwrap_or(7)
            .max(7);
        let header = format!(
            "{:<7}  {:<width$}  {:>7}  {:>7}  {:>8}",
            "channel", "dialect", "calls", "invalid", "repaired"
        );
        s.push_str(&format!("toolsift: stats: {}\n", paint.header(&header)));
        for (((channel, _), (calls, invalid, repaired)), dialect) in
            self.dialects.iter().zip(&names)
        {
            // Padded outside the style, so that columns line up with colour on.
            let pad = " ".repeat(width - dialect.chars().count());
            s.push_str(&format!(
                "toolsift: stats: {:<7}  {}{pad}  {:>7}  {:>7}  {:>8}\n",
                channel.name(),
                paint.path(dialect),
                calls,
                invalid,
                repaired
            ));
        }
        s
    }
}
