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
