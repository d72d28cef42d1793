//! Pairs results with their calls and gives every call an id. A result that names its
//! call (`tool_call_id`, `tool_use_id`) keeps it; one that does not (text results,
//! Gemini responses without ids) answers the earliest call before it still
//! unanswered, of its name when it gives one.

use super::model::{Part, Transcript, generated_id};

/// What pairing found that a user should hear about.
#[derive(Default, Debug)]
pub struct Pairing {
    /// Results with no call before them to answer.
    pub orphans: usize,
}

pub fn pair(t: &mut Transcript, conversation: usize) -> Pairing {
    adopt_result_ids(t);
    let mut ordinal = 0;
    let mut used: std::collections::HashSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => c.id.clone(),
            _ => None,
        })
        .collect();
    for m in &mut t.messages {
        for p in &mut m.parts {
            if let Part::Call(c) = p {
                if c.id.is_none() {
                    let mut id = generated_id(conversation, ordinal, c);
                    while used.contains(&id) {
                        id.push('_');
                    }
                    used.insert(id.clone());
                    c.id = Some(id);
                }
                ordinal += 1;
            }
        }
    }
    // (id, name, answered) of the calls seen so far.
    let mut calls: Vec<(String, String, bool)> = Vec::new();
    let mut pairing = Pairing::default();
    // How many calls there were at the last result.
    let mut since = 0;
    for m in &mut t.messages {
        for p in &mut m.parts {
            match p {
                Part::Call(c) => calls.push((
                    c.id.clone().expect("every call has an id now"),
                    c.name.clone(),
                    false,
                )),
                Part::Result(r) => {
                    let found = match &r.call_id {
                        Some(id) => calls.iter().position(|c| &c.0 == id),
                        // By name when the result gives one that an open call has;
                        // else by position: the first open call since the last
                        // result (calls left open before it were abandoned), or the
                        // first open call at all. A legacy result may name another
                        // tool, but a harness that named results by their tool (Cline)
                        // is believed: no open call of that name, no pairing.
                        None => {
                            let open = |c: &(String, String, bool)| !c.2;
                            let named = |c: &(String, String, bool)| {
                                r.name
                                    .as_ref()
                                    .is_some_and(|n| n == &c.1 || ends_with_method(&c.1, n))
                            };
                            let trusted = r.name.is_some()
                                && r.written
                                    .as_ref()
                                    .is_some_and(|w| w.dialect == super::results::CLINE);
                            let recent = since.min(calls.len());
                            calls[recent..]
                                .iter()
                                .position(|c| open(c) && named(c))
                                .map(|i| i + recent)
                                .or_else(|| calls.iter().position(|c| open(c) && named(c)))
                                .or_else(|| {
                                    (!trusted)
                                        .then(|| {
                                            calls[recent..]
                                                .iter()
                                                .position(open)
                                                .map(|i| i + recent)
                                                .or_else(|| calls.iter().position(open))
                                        })
                                        .flatten()
                                })
                        }
                    };
                    since = calls.len();
                    match found {
                        Some(i) => {
                            let call = &mut calls[i];
                            call.2 = true;
                            if r.call_id.is_none() {
                                r.call_id = Some(call.0.clone());
                            }
                            if r.name.is_none() {
                                r.name = Some(call.1.clone());
                            }
                        }
                        None => {
                            if r.call_id.is_none() {
                                pairing.orphans += 1;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    pairing
}

/// A result named by method alone answers a namespaced call (`server.method`).
fn ends_with_method(call: &str, name: &str) -> bool {
    call.rsplit_once('.').is_some_and(|(_, m)| m == name)
}

/// A call written without an id (Gemini's `functionCall`) whose result names an id no
/// call has: the client gave the call that id when it ran it (a recording's next
/// request replays it so). The earliest call before the result with no id, not given
/// one yet, and of the result's tool when it names one, takes the result's id.
fn adopt_result_ids(t: &mut Transcript) {
    let known: std::collections::HashSet<String> = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Call(c) => c.id.clone(),
            _ => None,
        })
        .collect();
    // (message, part, name) of the calls with no id seen so far, not given one.
    let mut idless: Vec<(usize, usize, String)> = Vec::new();
    let mut given: Vec<(usize, usize, String)> = Vec::new();
    for (mi, m) in t.messages.iter().enumerate() {
        for (pi, p) in m.parts.iter().enumerate() {
            match p {
                Part::Call(c) if c.id.is_none() => idless.push((mi, pi, c.name.clone())),
                Part::Result(r) => {
                    let Some(id) = r.call_id.as_ref().filter(|id| !known.contains(*id)) else {
                        continue;
                    };
                    if given.iter().any(|g| &g.2 == id) {
                        continue;
                    }
                    let at = idless
                        .iter()
                        .position(|c| r.name.as_ref().is_none_or(|n| *n == c.2));
                    if let Some(at) = at {
                        let (cm, cp, _) = idless.remove(at);
                        given.push((cm, cp, id.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    for (mi, pi, id) in given {
        if let Part::Call(c) = &mut t.messages[mi].parts[pi] {
            c.id = Some(id);
        }
    }
}
