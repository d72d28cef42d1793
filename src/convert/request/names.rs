//! Tool names in a request: `--rename-tools`, the names Anthropic refuses, and each
//! result named as the call it answers.

use super::super::encode::Notes;
use super::super::model::{Part, Transcript};
use super::plural;
use std::collections::HashMap;

/// How `--rename-tools` renames the tool names an API refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rename {
    /// `server.method` becomes `server__method`.
    Dots,
    /// `.` becomes `__`, any other character outside `[a-zA-Z0-9_-]` `_`, and a name
    /// over 64 characters is cut, a hash of the whole name at its end.
    Safe,
}

impl Rename {
    fn flag(self) -> &'static str {
        match self {
            Rename::Dots => "--rename-tools dots",
            Rename::Safe => "--rename-tools safe",
        }
    }

    /// The name written for `name`, or `None` when it is written as it is.
    fn apply(self, name: &str) -> Option<String> {
        match self {
            Rename::Dots => name.contains('.').then(|| name.replace('.', "__")),
            Rename::Safe => {
                if super::super::rules::anthropic_name(name) {
                    return None;
                }
                let mut out = String::with_capacity(name.len() + 4);
                for c in name.chars() {
                    match c {
                        '.' => out.push_str("__"),
                        c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => out.push(c),
                        _ => out.push('_'),
                    }
                }
                if out.len() > 64 {
                    let hash = xxhash_rust::xxh3::xxh3_64(name.as_bytes());
                    out.truncate(47);
                    out.push_str(&format!("_{hash:016x}"));
                }
                if out.is_empty() {
                    out.push_str("tool");
                }
                Some(out)
            }
        }
    }
}

/// `--rename-tools`: each refused name written another way on every call and result,
/// the whole mapping in the notes. Not done at all when the renaming could not be
/// undone: two names mapped to one, a new name that another tool already has, or
/// (`dots`) a name that already holds `__`.
pub(super) fn rename_tools(t: &mut Transcript, how: Rename, notes: &mut Notes) {
    let names: std::collections::BTreeSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => Some(c.name.clone()),
            Part::Result(r) => r.name.clone(),
            _ => None,
        })
        .collect();
    let mapping: std::collections::BTreeMap<String, String> = names
        .iter()
        .filter_map(|n| Some((n.clone(), how.apply(n)?)))
        .collect();
    if mapping.is_empty() {
        return;
    }
    let mut taken: HashMap<&str, &str> = HashMap::new();
    for name in names.iter().filter(|n| !mapping.contains_key(*n)) {
        taken.insert(name, name);
    }
    let mut clash = None;
    for (old, new) in &mapping {
        if let Some(other) = taken.insert(new, old) {
            clash.get_or_insert_with(|| format!("{old} and {other} would both be {new}"));
        }
    }
    if how == Rename::Dots
        && let Some(name) = names.iter().find(|n| n.contains("__"))
    {
        clash.get_or_insert_with(|| format!("{name} already holds \"__\""));
    }
    if let Some(why) = clash {
        notes.add(format!(
            "tool names not renamed: {why}, so {} could not be undone",
            how.flag()
        ));
        return;
    }
    for p in t.messages.iter_mut().flat_map(|m| &mut m.parts) {
        let name = match p {
            Part::Call(c) => Some(&mut c.name),
            Part::Result(r) => r.name.as_mut(),
            _ => None,
        };
        if let Some(name) = name
            && let Some(new) = mapping.get(name.as_str())
        {
            *name = new.clone();
        }
    }
    let shown: Vec<String> = mapping
        .iter()
        .map(|(old, new)| format!("{old} -> {new}"))
        .collect();
    notes.add(format!(
        "{} renamed by {} on every call and result: {}",
        plural(mapping.len(), "tool name", "tool names"),
        how.flag(),
        shown.join(", ")
    ));
}

/// Anthropic refuses tool names outside `[a-zA-Z0-9_-]{1,64}`: said once, with the way
/// to rename them.
pub(super) fn names_refused(t: &Transcript, notes: &mut Notes) {
    let refused: std::collections::BTreeSet<&str> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) if !super::super::rules::anthropic_name(&c.name) => Some(c.name.as_str()),
            _ => None,
        })
        .collect();
    if let Some(first) = refused.first() {
        notes.add(format!(
            "{} Anthropic refuses (such as {first}): --rename-tools safe (or dots) renames them on every call and result",
            plural(refused.len(), "tool name", "tool names")
        ));
    }
}

/// A result is named as the call it answers (Gemini's `functionResponse` must name its
/// call).
pub(super) fn result_names(t: &mut Transcript) {
    let names: HashMap<String, String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => Some((c.id.clone()?, c.name.clone())),
            _ => None,
        })
        .collect();
    for p in t.messages.iter_mut().flat_map(|m| &mut m.parts) {
        if let Part::Result(r) = p
            && let Some(name) = r.call_id.as_ref().and_then(|id| names.get(id))
            && r.name.as_ref() != Some(name)
        {
            // The call's own name (Anthropic's 2023 notebooks name another tool in
            // the result; `--to json` keeps that).
            r.name = Some(name.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{message, named_call, result, text};
    use super::super::{WriteOptions, prepare};
    use super::*;
    use crate::convert::model::{Format, Raw, ResultPart, Role};

    fn names(t: &Transcript) -> Vec<String> {
        t.messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Call(c) => Some(c.name.clone()),
                Part::Result(r) => r.name.clone(),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rename_dots_renames_calls_and_results_alike_or_not_at_all() {
        let t = Transcript {
            messages: vec![
                message(
                    Role::Assistant,
                    (0..4)
                        .map(|i| named_call(&format!("srv.m{i}"), &format!("c{i}")))
                        .collect(),
                ),
                message(Role::User, vec![result("c0")]),
                // The calls no result answers stay in their message.
                message(Role::User, vec![text("next")]),
            ],
            ..Transcript::default()
        };
        let dots = WriteOptions {
            rename: Some(Rename::Dots),
            ..WriteOptions::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, dots, &mut notes);
        assert_eq!(
            names(&p),
            ["srv__m0", "srv__m1", "srv__m2", "srv__m3", "srv__m0"]
        );
        let lines = notes.lines();
        assert!(
            lines.iter().any(|l| l.starts_with("4 tool names renamed")
                && l.contains("srv.m0 -> srv__m0")
                && l.contains("srv.m3 -> srv__m3")),
            "{lines:?}"
        );
        // Without the option, the names are said and kept.
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, WriteOptions::default(), &mut notes);
        assert_eq!(names(&p)[0], "srv.m0");
        assert!(
            notes
                .lines()
                .iter()
                .any(|l| l.contains("--rename-tools safe"))
        );
        // A name already holding `__` could not be told back: nothing is renamed.
        let mut clash = t.clone();
        clash.messages[0].parts.push(named_call("a__b", "c9"));
        let mut notes = Notes::default();
        let p = prepare(&clash, Format::Anthropic, dots, &mut notes);
        assert_eq!(names(&p)[0], "srv.m0");
        assert!(notes.lines().iter().any(|l| l.contains("not renamed")));
    }

    #[test]
    fn rename_safe_maps_every_refused_name_one_to_one_or_not_at_all() {
        let long = "x".repeat(70);
        // 64 characters once mapped: not cut.
        let edge = format!("{}:", "y".repeat(63));
        // A result that names a tool no call has is renamed too.
        let mut orphan = ResultPart::new(Raw::string("ok"));
        orphan.name = Some("lone.tool".into());
        let orphan = Part::Result(orphan);
        let t = Transcript {
            messages: vec![
                message(
                    Role::Assistant,
                    vec![
                        named_call("agent:status", "c0"),
                        named_call("srv.m", "c1"),
                        named_call(&long, "c2"),
                        named_call("ok_name", "c3"),
                        named_call("my_web-search:go", "c4"),
                        named_call(&edge, "c5"),
                    ],
                ),
                message(Role::User, vec![result("c0"), result("c2"), orphan]),
                message(Role::User, vec![text("next")]),
            ],
            ..Transcript::default()
        };
        let safe = WriteOptions {
            rename: Some(Rename::Safe),
            ..WriteOptions::default()
        };
        let mut notes = Notes::default();
        let p = prepare(&t, Format::Anthropic, safe, &mut notes);
        let got = names(&p);
        assert_eq!(got[..2], ["agent_status", "srv__m"]);
        assert_eq!(got[2].len(), 64);
        assert!(got[2].starts_with("xxxx") && got[2] != long[..64]);
        assert_eq!(got[3], "ok_name");
        assert_eq!(got[4], "my_web-search_go");
        assert_eq!(got[5], format!("{}_", "y".repeat(63)));
        assert_eq!(got[6], "agent_status");
        assert_eq!(got[7], got[2]);
        assert_eq!(got[8], "lone__tool");
        assert!(got.iter().all(|n| crate::convert::rules::anthropic_name(n)));
        let lines = notes.lines();
        assert!(
            lines.iter().any(
                |l| l.starts_with("6 tool names renamed by --rename-tools safe")
                    && l.contains("agent:status -> agent_status")
            ),
            "{lines:?}"
        );
        // Onto a name another tool has: nothing is renamed, and the note says why.
        let mut clash = t.clone();
        clash.messages[0]
            .parts
            .push(named_call("agent_status", "c9"));
        let mut notes = Notes::default();
        let p = prepare(&clash, Format::Anthropic, safe, &mut notes);
        assert_eq!(names(&p)[0], "agent:status");
        let lines = notes.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("agent:status and agent_status would both be agent_status")),
            "{lines:?}"
        );
    }
}
