//! What every writer shares, those of [`super::write`] and of [`crate::formats`]:
//! the notes of what a target could not take, the source's fields written back where
//! the target holds them, and messages built from runs of blocks.

use super::emit::J;
use super::model::{Format, Message, Raw, ResultPart, Transcript};
use super::rules::{accepted, is_api};
use std::collections::BTreeSet;

/// What a writer could not carry over, one line each (deduplicated, in order).
#[derive(Default, Debug)]
pub(crate) struct Notes {
    lines: BTreeSet<String>,
    /// Fields not written, by what held them: one line each at the end.
    dropped: std::collections::BTreeMap<String, BTreeSet<String>>,
}

impl Notes {
    pub(crate) fn add(&mut self, note: impl Into<String>) {
        self.lines.insert(note.into());
    }

    /// Fields of `what` (top-level fields, message fields…) the target does not hold.
    pub(crate) fn dropped<'k>(&mut self, what: &str, keys: impl IntoIterator<Item = &'k str>) {
        self.dropped
            .entry(what.to_owned())
            .or_default()
            .extend(keys.into_iter().map(str::to_owned));
    }

    pub(crate) fn merge(&mut self, other: Notes) {
        self.lines.extend(other.lines);
        for (what, keys) in other.dropped {
            self.dropped.entry(what).or_default().extend(keys);
        }
    }

    /// Every note, one line each.
    pub(crate) fn lines(self) -> Vec<String> {
        let mut out: Vec<String> = self.lines.into_iter().collect();
        for (what, keys) in self.dropped {
            let keys: Vec<String> = keys.into_iter().collect();
            out.push(format!(
                "{what} of the source format not written ({}): kept only by --to json",
                keys.join(", ")
            ));
        }
        out
    }
}

/// The formats whose messages share OpenAI's shape: fields kept in `extra` by one are
/// written back by the others.
pub(crate) fn family(f: Format) -> Format {
    match f {
        Format::Xml | Format::MandrakeJson | Format::Openai => Format::Openai,
        other => other,
    }
}

/// Whether fields kept from the source can be written back in `to`.
pub(crate) fn same_family(t: &Transcript, to: Format) -> bool {
    t.source.is_some_and(|s| family(s) == family(to))
}

/// A document with its messages under `key`, or the bare array when the source was one.
pub(crate) fn document(
    t: &Transcript,
    key: &str,
    messages: Vec<J>,
    to: Format,
    notes: &mut Notes,
) -> J {
    if t.bare && t.extra.is_empty() {
        return J::Arr(messages);
    }
    let mut doc = J::obj().with(key, J::Arr(messages));
    keep_extra(&mut doc, &t.extra, t, to, notes, "top-level fields");
    doc
}

/// Top-level request fields that mean the same in OpenAI, Anthropic and Responses.
const PORTABLE: &[&str] = &["model", "temperature", "top_p", "metadata", "stream"];

/// Writes `extra` back when the target is of the source's family; else notes it.
pub(crate) fn keep_extra(
    j: &mut J,
    extra: &[(String, Raw)],
    t: &Transcript,
    to: Format,
    notes: &mut Notes,
    what: &str,
) {
    if extra.is_empty() {
        return;
    }
    if same_family(t, to) && !is_api(to) {
        j.push_extra(extra);
    } else if same_family(t, to) {
        // A request takes back only the fields its API knows there.
        // A null is not a value the request's field takes (`"user": null`).
        let (kept, dropped): (Vec<_>, Vec<_>) = extra
            .iter()
            .filter(|(k, _)| !j.has(k))
            .cloned()
            .partition(|(k, v)| accepted(to, what, k) && v.as_str() != "null");
        j.push_extra(&kept);
        if !dropped.is_empty() {
            notes.dropped(what, dropped.iter().map(|(k, _)| k.as_str()));
        }
    } else {
        // A few request fields mean the same in every API that has them; a null is
        // none set (`"temperature": null`), which not every API takes.
        let portable: Vec<(String, Raw)> = extra
            .iter()
            .filter(|(k, v)| {
                what == "top-level fields"
                    && !matches!(to, Format::Gemini | Format::Json)
                    && PORTABLE.contains(&k.as_str())
                    && v.as_str() != "null"
            })
            .cloned()
            .collect();
        j.push_extra(&portable);
        let extra: Vec<&(String, Raw)> = extra
            .iter()
            .filter(|(k, _)| !portable.iter().any(|(p, _)| p == k))
            .collect();
        if extra.is_empty() {
            return;
        }
        notes.dropped(what, extra.iter().map(|(k, _)| k.as_str()));
    }
}

/// A result's content as a string (targets whose results are text).
pub(crate) fn content_string(r: &ResultPart) -> String {
    r.content
        .as_string()
        .unwrap_or_else(|| Raw::compact(r.content.as_str()).0)
}

pub(crate) fn role_name(m: &Message, t: &Transcript, to: Format) -> String {
    match &m.role_as_written {
        Some(r) if same_family(t, to) => r.clone(),
        _ => m.role.name().to_owned(),
    }
}

pub(crate) fn text_block(
    text: &str,
    extra: &[(String, Raw)],
    t: &Transcript,
    to: Format,
    notes: &mut Notes,
) -> J {
    let mut j = J::obj()
        .with("type", J::str("text"))
        .with("text", J::str(text));
    keep_extra(&mut j, extra, t, to, notes, "content block fields");
    j
}

/// Messages being built: role, blocks, and the message whose fields they carry.
pub(crate) type Grouped<'m> = Vec<(String, Vec<J>, Option<&'m Message>)>;

/// Ends a run of blocks as a message of `role`; blocks for `joins` (the role results
/// go to) join a message of that role right before them.
pub(crate) fn push_grouped<'m>(
    role: &str,
    joins: &str,
    blocks: &mut Vec<J>,
    out: &mut Grouped<'m>,
    m: &'m Message,
) {
    if blocks.is_empty() {
        return;
    }
    match out.last_mut() {
        Some((r, b, _)) if r == role && role == joins => b.append(blocks),
        _ => out.push((role.to_owned(), std::mem::take(blocks), Some(m))),
    }
}
