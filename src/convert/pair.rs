//! Pairs results with their calls and gives every call an id. A result that names its
//! call (`tool_call_id`, `tool_use_id`) keeps it; one that does not (text results,
//! Gemini responses without ids) answers the earliest call before it still
//! unanswered, of its name when it gives one.

use super::model::{Part, Transcript};
use crate::formats::generated_call_id;

/// What pairing found that a user should hear about.
#[derive(Default, Debug)]
pub(crate) struct Pairing {
    /// Results with no call before them to answer.
    pub(crate) orphans: usize,
    /// Ids given to calls whose id an earlier call had (old, new), when asked for.
    pub(crate) renamed: Vec<(String, String)>,
}

/// Pairs `t`'s results with its calls. `unique`: a call whose id an earlier call has
/// (a provider that numbers each response's calls from `call_0`) gets an id of its own,
/// and so do the results that answer it: a request's ids are unique.
/// A transcript of several conversations pairs each apart, and its `n`th (in the order
/// they began) generates ids as conversation `n`, as when each is written alone.
pub(crate) fn pair(t: &mut Transcript, conversation: usize, unique: bool) -> Pairing {
    if !t.holds_several() {
        return pair_one(t, conversation, unique);
    }
    let order: Vec<u32> = t.messages.iter().map(|m| m.conversation).collect();
    // Pairing reads messages only: they are taken apart and put back in their places.
    let messages = Transcript {
        messages: std::mem::take(&mut t.messages),
        ..Transcript::default()
    };
    let mut pairing = Pairing::default();
    let mut pieces: Vec<(u32, std::vec::IntoIter<super::model::Message>)> = Vec::new();
    for (n, mut piece) in messages.apart().into_iter().enumerate() {
        let got = pair_one(&mut piece, n, unique);
        pairing.orphans += got.orphans;
        pairing.renamed.extend(got.renamed);
        pieces.push((piece.messages[0].conversation, piece.messages.into_iter()));
    }
    for c in order {
        if let Some((_, rest)) = pieces.iter_mut().find(|(of, _)| *of == c) {
            t.messages.extend(rest.next());
        }
    }
    pairing
}

fn pair_one(t: &mut Transcript, conversation: usize, unique: bool) -> Pairing {
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
                    let mut id =
                        generated_call_id(conversation, ordinal, &c.name, c.arguments_text());
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
    // (message, part) of each call, and of each result with the call it answers.
    let mut call_at: Vec<(usize, usize)> = Vec::new();
    let mut answers: Vec<(usize, usize, usize)> = Vec::new();
    // How many calls there were at the last result.
    let mut since = 0;
    for (mi, m) in t.messages.iter_mut().enumerate() {
        for (pi, p) in m.parts.iter_mut().enumerate() {
            match p {
                Part::Call(c) => {
                    calls.push((
                        c.id.clone().expect("every call has an id now"),
                        c.name.clone(),
                        false,
                    ));
                    call_at.push((mi, pi));
                }
                Part::Result(r) => {
                    let found = match &r.call_id {
                        // The earliest open call of that id, else the last one: ids a
                        // provider reuses for later calls answer each in turn.
                        Some(id) => calls
                            .iter()
                            .position(|c| &c.0 == id && !c.2)
                            .or_else(|| calls.iter().rposition(|c| &c.0 == id)),
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
                            answers.push((mi, pi, i));
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
    if unique {
        pairing.renamed = unique_ids(t, &calls, &call_at, &answers);
    }
    pairing
}

/// Gives each call whose id an earlier call has an id of its own (`{id}_2`, …), and
/// the results that answer it (`answers`: message, part, call) the same; returns
/// (old, new) for each.
fn unique_ids(
    t: &mut Transcript,
    calls: &[(String, String, bool)],
    call_at: &[(usize, usize)],
    answers: &[(usize, usize, usize)],
) -> Vec<(String, String)> {
    let mut used: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut taken: std::collections::HashSet<String> = calls.iter().map(|c| c.0.clone()).collect();
    let mut new_ids: Vec<Option<String>> = vec![None; calls.len()];
    let mut renamed = Vec::new();
    for (i, (id, _, _)) in calls.iter().enumerate() {
        if used.insert(id) {
            continue;
        }
        let mut n = 2;
        let mut new = format!("{id}_{n}");
        while taken.contains(&new) {
            n += 1;
            new = format!("{id}_{n}");
        }
        taken.insert(new.clone());
        renamed.push((id.clone(), new.clone()));
        new_ids[i] = Some(new);
    }
    for (i, new) in new_ids.iter().enumerate() {
        let Some(new) = new else { continue };
        let (mi, pi) = call_at[i];
        if let Part::Call(c) = &mut t.messages[mi].parts[pi] {
            c.id = Some(new.clone());
        }
    }
    for &(mi, pi, i) in answers {
        if let (Some(new), Part::Result(r)) = (&new_ids[i], &mut t.messages[mi].parts[pi]) {
            r.call_id = Some(new.clone());
        }
    }
    renamed
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

#[cfg(test)]
mod tests {
    use super::super::model::{CallPart, Message, Raw, ResultPart, Role};
    use super::*;

    fn call(name: &str, args: &str) -> Part {
        Part::Call(CallPart::new(name, Raw::new(args)))
    }

    fn named_result(name: &str, content: &str) -> Part {
        let mut r = ResultPart::new(Raw::string(content));
        r.name = Some(name.into());
        Part::Result(r)
    }

    fn transcript(parts: Vec<Vec<Part>>) -> Transcript {
        let mut t = Transcript::default();
        for (i, p) in parts.into_iter().enumerate() {
            let mut m = Message::new(if i % 2 == 0 {
                Role::Assistant
            } else {
                Role::User
            });
            m.parts = p;
            t.messages.push(m);
        }
        t
    }

    fn ids(t: &Transcript) -> Vec<(String, Option<String>)> {
        t.messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Call(c) => Some(("call".into(), c.id.clone())),
                Part::Result(r) => Some(("result".into(), r.call_id.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_conversation_of_a_recording_pairs_apart_and_keeps_its_place() {
        // Conversation 0 calls `f` and conversation 1 answers an `f` by name only: the
        // answer is another conversation's, so it pairs with no call of 0.
        let mut t = transcript(vec![
            vec![call("f", "{}")],
            vec![named_result("f", "one's")],
            vec![call("f", r#"{"b":1}"#)],
            vec![named_result("f", "zero's")],
        ]);
        for (m, of) in t.messages.iter_mut().zip([0, 1, 1, 0]) {
            m.conversation = of;
        }
        let pairing = pair(&mut t, 0, false);
        assert_eq!(pairing.orphans, 1);
        let of: Vec<u32> = t.messages.iter().map(|m| m.conversation).collect();
        assert_eq!(of, [0, 1, 1, 0]);
        let got = ids(&t);
        // Conversation 1 gives ids as the second conversation does when written alone.
        let zero = got[0].1.clone().unwrap();
        assert!(zero.starts_with("call_0_"), "{zero}");
        assert_eq!(got[3], ("result".into(), Some(zero)));
        assert!(
            got[2].1.as_deref().unwrap().starts_with("call_1_0_"),
            "{got:?}"
        );
        assert_eq!(got[1], ("result".into(), None));
    }

    #[test]
    fn results_answered_out_of_order_pair_by_name() {
        let mut t = transcript(vec![
            vec![call("read", "{}"), call("write", "{}")],
            vec![named_result("write", "w"), named_result("read", "r")],
        ]);
        let pairing = pair(&mut t, 0, false);
        assert_eq!(pairing.orphans, 0);
        let got = ids(&t);
        // write's result answers write's call, read's answers read's.
        assert_eq!(got[2].1, got[1].1);
        assert_eq!(got[3].1, got[0].1);
    }

    #[test]
    fn two_identical_calls_get_two_ids_the_same_on_every_run() {
        let make = || {
            transcript(vec![
                vec![call("f", r#"{"a":1}"#), call("f", r#"{"a":1}"#)],
                vec![named_result("f", "1"), named_result("f", "2")],
            ])
        };
        let (mut a, mut b) = (make(), make());
        pair(&mut a, 0, false);
        pair(&mut b, 0, false);
        let got = ids(&a);
        assert_ne!(got[0].1, got[1].1);
        assert_eq!(got, ids(&b));
        // In order: the first result the first call.
        assert_eq!(got[2].1, got[0].1);
        assert_eq!(got[3].1, got[1].1);
    }

    #[test]
    fn an_id_a_provider_gives_two_calls_answers_each_in_turn_and_is_made_unique() {
        let with_id = |p: Part, id: &str| match p {
            Part::Call(mut c) => {
                c.id = Some(id.into());
                Part::Call(c)
            }
            Part::Result(mut r) => {
                r.call_id = Some(id.into());
                r.name = None;
                Part::Result(r)
            }
            other => other,
        };
        let make = || {
            transcript(vec![
                vec![with_id(call("f", "{}"), "c0")],
                vec![with_id(named_result("f", "1"), "c0")],
                vec![with_id(call("g", "{}"), "c0")],
                vec![with_id(named_result("g", "2"), "c0")],
            ])
        };
        let names = |t: &Transcript| -> Vec<Option<String>> {
            t.messages
                .iter()
                .flat_map(|m| &m.parts)
                .filter_map(|p| match p {
                    Part::Result(r) => Some(r.name.clone()),
                    _ => None,
                })
                .collect()
        };
        let mut kept = make();
        let pairing = pair(&mut kept, 0, false);
        assert!(pairing.renamed.is_empty());
        assert_eq!(names(&kept), [Some("f".into()), Some("g".into())]);
        assert!(ids(&kept).iter().all(|(_, id)| id.as_deref() == Some("c0")));
        let mut unique = make();
        let pairing = pair(&mut unique, 0, true);
        assert_eq!(pairing.renamed, [("c0".to_string(), "c0_2".to_string())]);
        let got: Vec<Option<String>> = ids(&unique).into_iter().map(|(_, id)| id).collect();
        assert_eq!(
            got,
            ["c0", "c0", "c0_2", "c0_2"].map(|s| Some(s.to_string()))
        );
        // A call of another id left open before it does not take the result; a second
        // result of a call answered already still answers it; a new id skips one in use.
        let mut t = transcript(vec![
            vec![
                with_id(call("x", "{}"), "x"),
                with_id(call("f", "{}"), "c0"),
                with_id(call("g", "{}"), "c0_2"),
            ],
            vec![
                with_id(named_result("f", "1"), "c0"),
                with_id(named_result("f", "again"), "c0"),
            ],
            vec![with_id(call("h", "{}"), "c0")],
        ]);
        let pairing = pair(&mut t, 0, true);
        assert_eq!(pairing.orphans, 0);
        assert_eq!(names(&t), [Some("f".into()), Some("f".into())]);
        assert_eq!(pairing.renamed, [("c0".to_string(), "c0_3".to_string())]);
    }

    #[test]
    fn a_result_with_no_call_before_it_is_an_orphan() {
        let mut t = transcript(vec![vec![], vec![named_result("f", "x")]]);
        assert_eq!(pair(&mut t, 0, false).orphans, 1);
        // Answered once: a second result of the same call is an orphan too.
        let mut t = transcript(vec![
            vec![call("f", "{}")],
            vec![named_result("f", "1"), named_result("f", "2")],
        ]);
        assert_eq!(pair(&mut t, 0, false).orphans, 1);
    }

    fn unnamed_result(content: &str) -> Part {
        Part::Result(ResultPart::new(Raw::string(content)))
    }

    /// The id of the call each result answers, as the index of that call.
    fn answered(t: &Transcript) -> Vec<Option<usize>> {
        let got = ids(t);
        let calls: Vec<&Option<String>> = got
            .iter()
            .filter(|(k, _)| k == "call")
            .map(|(_, id)| id)
            .collect();
        got.iter()
            .filter(|(k, _)| k == "result")
            .map(|(_, id)| {
                id.as_ref()
                    .and_then(|id| calls.iter().position(|c| c.as_ref() == Some(id)))
            })
            .collect()
    }

    #[test]
    fn a_result_without_an_id_answers_a_call_since_the_last_result_first() {
        // f#0 is left open (abandoned); g#1 is answered; then f#2 and h#3 are called.
        let mut t = transcript(vec![
            vec![call("f", "{}"), call("g", "{}")],
            vec![named_result("g", "g")],
            vec![call("f", r#"{"n":2}"#), call("h", "{}")],
            // By name: the f called since the last result, not the abandoned one.
            vec![named_result("f", "f")],
            vec![call("k", "{}")],
            // No name: the first open call since the last result (k#4), not h#3 or f#0.
            vec![unnamed_result("k")],
            vec![],
            // Nothing open since the last result: the first open call at all (f#0).
            vec![unnamed_result("late")],
        ]);
        pair(&mut t, 0, false);
        assert_eq!(answered(&t), [Some(1), Some(2), Some(4), Some(0)]);
    }

    #[test]
    fn a_named_result_with_no_call_of_its_name_answers_by_position_unless_cline_wrote_it() {
        use super::super::model::Written;
        let named = |dialect: Option<&str>| {
            let mut r = ResultPart::new(Raw::string("x"));
            r.name = Some("other".into());
            r.written = dialect.map(|d| Written {
                dialect: d.into(),
                text: "x".into(),
            });
            Part::Result(r)
        };
        for (dialect, orphans) in [
            (None, 0),
            (Some("mandrake-xml"), 0),
            (Some(super::super::results::CLINE), 1),
        ] {
            let mut t = transcript(vec![vec![call("f", "{}")], vec![named(dialect)]]);
            assert_eq!(pair(&mut t, 0, false).orphans, orphans, "{dialect:?}");
        }
        // A result named by method alone answers the namespaced call.
        let mut t = transcript(vec![
            vec![call("other", "{}"), call("server.read", "{}")],
            vec![named_result("read", "b")],
        ]);
        pair(&mut t, 0, false);
        assert_eq!(answered(&t), [Some(1)]);
        let mut t = transcript(vec![
            vec![call("server.xread", "{}"), call("read", "{}")],
            vec![named_result("read", "b")],
        ]);
        pair(&mut t, 0, false);
        assert_eq!(answered(&t), [Some(1)]);
    }

    #[test]
    fn generated_ids_number_the_calls_in_order() {
        let mut t = transcript(vec![vec![
            call("f", "{}"),
            call("g", "{}"),
            call("h", "{}"),
        ]]);
        pair(&mut t, 0, false);
        let prefixes: Vec<String> = ids(&t)
            .into_iter()
            .map(|(_, id)| id.unwrap()[..7].to_owned())
            .collect();
        assert_eq!(prefixes, ["call_0_", "call_1_", "call_2_"]);
    }

    #[test]
    fn a_call_without_an_id_takes_the_id_its_result_names() {
        let with_id = |name: Option<&str>, id: &str| {
            let mut r = ResultPart::new(Raw::string("r"));
            r.name = name.map(str::to_owned);
            r.call_id = Some(id.into());
            Part::Result(r)
        };
        let mut known = CallPart::new("k", Raw::empty_object());
        known.id = Some("k1".into());
        let mut t = transcript(vec![
            vec![Part::Call(known), call("f", "{}"), call("g", "{}")],
            vec![
                // A known id adopts nothing; the same new id twice adopts once.
                with_id(Some("f"), "k1"),
                with_id(Some("g"), "g9"),
                with_id(Some("g"), "g9"),
                with_id(None, "f8"),
            ],
        ]);
        pair(&mut t, 0, false);
        let got = ids(&t);
        // The call that has an id keeps it.
        assert_eq!(got[0], ("call".into(), Some("k1".into())));
        assert_eq!(got[1], ("call".into(), Some("f8".into())));
        assert_eq!(got[2], ("call".into(), Some("g9".into())));
        // A result before any call without an id gives none.
        let mut t = transcript(vec![
            vec![],
            vec![with_id(Some("f"), "f8")],
            vec![call("f", "{}")],
        ]);
        pair(&mut t, 0, false);
        assert_ne!(ids(&t)[1].1.as_deref(), Some("f8"));
    }

    #[test]
    fn a_generated_id_is_never_one_a_call_already_has() {
        let taken = generated_call_id(0, 1, "g", "{}");
        let mut holder = CallPart::new("f", Raw::empty_object());
        holder.id = Some(taken.clone());
        let mut t = transcript(vec![vec![Part::Call(holder), call("g", "{}")]]);
        pair(&mut t, 0, false);
        assert_eq!(ids(&t)[1].1, Some(format!("{taken}_")));
    }
}
