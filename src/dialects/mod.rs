//! The dialect registry. The tool channel reads structured call objects (`native`); the
//! json and text channels run every enabled [`TextDialect`] over the text of a turn.
//! A dialect is a value in a list, not a variant of a closed enum, so families of
//! dialects can be added as rows of data.

pub mod native;
pub mod swe_agent;

use crate::model::{Call, Text, Turn};
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
    pub const ALL: [Channel; 3] = [Channel::Tool, Channel::Json, Channel::Text];

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

/// What a text dialect may look at besides the text itself.
pub struct ScanContext<'t> {
    pub turn: &'t Turn,
}

/// A syntax for calls written inside message text.
pub trait TextDialect: Sync {
    fn name(&self) -> &str;
    fn channel(&self) -> Channel;
    fn summary(&self) -> &str;
    fn example(&self) -> &str;
    /// Appends the calls found in `text` to `out`.
    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Call>);
}

/// All built-in text and json dialects, in the order they are tried.
pub fn text_dialects() -> Vec<&'static dyn TextDialect> {
    vec![&swe_agent::SWE_AGENT_COMMAND]
}

/// One row of `toolsift dialects`.
pub struct DialectRow {
    pub name: String,
    pub channel: Channel,
    pub summary: String,
    pub example: String,
}

/// Every dialect toolsift knows, tool channel first.
pub fn all_rows() -> Vec<DialectRow> {
    let mut rows: Vec<DialectRow> = native::DIALECTS
        .iter()
        .map(|d| DialectRow {
            name: d.name.into(),
            channel: Channel::Tool,
            summary: d.summary.into(),
            example: d.example.into(),
        })
        .collect();
    rows.extend(text_dialects().into_iter().map(|d| DialectRow {
        name: d.name().into(),
        channel: d.channel(),
        summary: d.summary().into(),
        example: d.example().into(),
    }));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_round_trip() {
        for c in Channel::ALL {
            assert_eq!(c.name().parse::<Channel>().unwrap(), c);
        }
        assert!("xml".parse::<Channel>().is_err());
    }

    #[test]
    fn dialect_names_are_unique() {
        let rows = all_rows();
        let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), rows.len());
    }
}
