//! `--verify`: the conversion read back and compared with what was read from the source:
//! the text of each role, the reasoning, every call (name, arguments, id where the
//! target keeps ids), every result (content, error flag) and which call it answers.
//! Message boundaries may differ (OpenAI splits a turn at each call; Mandrake joins a
//! turn and its results), so text is compared per role, in order.

use super::model::{CallPart, Format, Part, ResultPart, Role, Transcript};
use serde_json::Value;

/// The differences, one line each; none when nothing would be lost.
pub(crate) fn compare(source: &Transcript, back: &Transcript, to: Format) -> Vec<String> {
    let mut out = Vec::new();
    let a = Summary::of(source);
    let b = Summary::of(back);
    for (role, (ta, tb)) in ["system", "user", "assistant"]
        .iter()
        .zip(a.texts.iter().zip(&b.texts))
    {
        if ta != tb {
            out.push(format!(
                "{role} text differs at byte {}: {} became {}",
                first_difference(ta, tb),
                excerpt(ta, first_difference(ta, tb)),
                excerpt(tb, first_difference(ta, tb))
            ));
        }
    }
    if a.reasoning != b.reasoning {
        out.push("reasoning text differs".into());
    }
    if a.calls.len() != b.calls.len() {
        out.push(format!("calls: {} became {}", a.calls.len(), b.calls.len()));
    }
    let ids = !matches!(to, Format::Gemini | Format::Xml | Format::MandrakeJson);
    for (i, (x, y)) in a.calls.iter().zip(&b.calls).enumerate() {
        if x.name != y.name {
            out.push(format!("call {i}: name {:?} became {:?}", x.name, y.name));
        }
        if arguments(x) != arguments(y) {
            out.push(format!("call {i} ({}): arguments differ", x.name));
        }
        if ids && x.id != y.id {
            out.push(format!(
                "call {i} ({}): id {:?} became {:?}",
                x.name, x.id, y.id
            ));
        }
    }
    if a.results.len() != b.results.len() {
        out.push(format!(
            "results: {} became {}",
            a.results.len(),
            b.results.len()
        ));
    }
    for (i, ((x, px), (y, py))) in a.results.iter().zip(&b.results).enumerate() {
        if !same_content(x, y) {
            out.push(format!("result {i}: content differs"));
        }
        if x.is_error != y.is_error && !matches!(to, Format::Openai | Format::Responses) {
            out.push(format!(
                "result {i}: error flag {} became {}",
                x.is_error, y.is_error
            ));
        }
        if px != py {
            out.push(format!(
                "result {i}: answers call {px:?}, became call {py:?}"
            ));
        }
    }
    // The XML and JSON-in-text targets put a history of their own dialect back as it
    // was: every message byte for byte.
    if source.source == Some(to) && matches!(to, Format::Xml | Format::MandrakeJson) {
        let whole =
            |t: &Transcript| -> Vec<String> { t.messages.iter().map(message_text).collect() };
        let (wa, wb) = (whole(source), whole(back));
        if wa.len() != wb.len() {
            out.push(format!("messages: {} became {}", wa.len(), wb.len()));
        } else if let Some(i) = (0..wa.len()).find(|&i| wa[i] != wb[i]) {
            out.push(format!("message {i} is not reproduced byte for byte"));
        }
    }
    out
}

/// A message's text with its calls and results as written.
fn message_text(m: &super::model::Message) -> String {
    let mut s = String::new();
    for p in &m.parts {
        match p {
            Part::Text(t) => s.push_str(&t.text),
            Part::Call(c) => s.push_str(c.written.as_ref().map_or("", |w| w.text.as_str())),
            Part::Result(r) => s.push_str(r.written.as_ref().map_or("", |w| w.text.as_str())),
            _ => {}
        }
    }
    s
}

struct Summary<'t> {
    /// System, user and assistant text, each joined in order.
    texts: [String; 3],
    reasoning: String,
    calls: Vec<&'t CallPart>,
    /// Each result with the index of the call it answers.
    results: Vec<(&'t ResultPart, Option<usize>)>,
}

impl<'t> Summary<'t> {
    fn of(t: &'t Transcript) -> Summary<'t> {
        let mut s = Summary {
            texts: Default::default(),
            reasoning: String::new(),
            calls: Vec::new(),
            results: Vec::new(),
        };
        for m in &t.messages {
            let slot = match m.role {
                Role::System => Some(0),
                Role::User => Some(1),
                Role::Assistant => Some(2),
                Role::Tool => None,
            };
            for p in &m.parts {
                match p {
                    // White space alone between calls and results is their layout,
                    // which a target may write otherwise.
                    Part::Text(x) if x.text.trim().is_empty() => {}
                    Part::Text(x) => {
                        if let Some(slot) = slot {
                            s.texts[slot].push_str(&x.text);
                        }
                    }
                    Part::Reasoning(x) => s.reasoning.push_str(&x.text),
                    Part::Call(c) => s.calls.push(c),
                    Part::Result(r) => {
                        let answers = r
                            .call_id
                            .as_ref()
                            .and_then(|id| s.calls.iter().position(|c| c.id.as_ref() == Some(id)));
                        s.results.push((r, answers));
                    }
                    Part::Block(_) => {}
                }
            }
        }
        s
    }
}

fn arguments(c: &CallPart) -> (Value, Option<&str>) {
    (c.arguments.value(), c.arguments_raw.as_deref())
}

/// Equal contents: the same JSON, or a string holding the other's JSON text (targets
/// whose results are text carry structured content as its text), or text blocks
/// holding the same text.
fn same_content(x: &ResultPart, y: &ResultPart) -> bool {
    // An error written as `{"error": message}` is that message.
    let unwrap = |r: &ResultPart, v: Value| match v {
        Value::Object(o) if r.is_error && o.len() == 1 && o.contains_key("error") => {
            o.into_iter().next().map(|(_, v)| v).unwrap_or(Value::Null)
        }
        v => v,
    };
    let (a, b) = (unwrap(x, x.content.value()), unwrap(y, y.content.value()));
    if a == b {
        return true;
    }
    let as_json = |v: &Value| match v {
        Value::String(s) => serde_json::from_str::<Value>(s).ok(),
        _ => None,
    };
    as_json(&a).is_some_and(|v| v == b)
        || as_json(&b).is_some_and(|v| v == a)
        || x.content_text() == y.content_text()
}

fn first_difference(a: &str, b: &str) -> usize {
    let n = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let mut n = n;
    while !a.is_char_boundary(n.min(a.len())) {
        n -= 1;
    }
    n
}

fn excerpt(s: &str, at: usize) -> String {
    let at = at.min(s.len());
    let mut end = (at + 24).min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}", &s[at..end])
}

#[cfg(test)]
mod tests {
    use super::super::model::{Message, Raw, TextPart};
    use super::*;

    fn conversation(text: &str, name: &str, args: &str, answer: &str, paired: bool) -> Transcript {
        let mut c = CallPart::new(name, Raw::new(args));
        c.id = Some("c1".into());
        let mut r = ResultPart::new(Raw::string(answer));
        r.call_id = paired.then(|| "c1".into());
        let mut user = Message::new(Role::User);
        user.parts = vec![Part::Text(TextPart::new(text))];
        let mut model = Message::new(Role::Assistant);
        model.parts = vec![Part::Call(c)];
        let mut tool = Message::new(Role::Tool);
        tool.parts = vec![Part::Result(r)];
        Transcript {
            messages: vec![user, model, tool],
            ..Transcript::default()
        }
    }

    #[test]
    fn every_kind_of_difference_is_reported() {
        let a = conversation("hi", "f", r#"{"x":1}"#, "ok", true);
        assert!(compare(&a, &a.clone(), Format::Anthropic).is_empty());
        let cases = [
            (
                conversation("ho", "f", r#"{"x":1}"#, "ok", true),
                "user text differs",
            ),
            (conversation("hi", "g", r#"{"x":1}"#, "ok", true), "name"),
            (
                conversation("hi", "f", r#"{"x":2}"#, "ok", true),
                "arguments differ",
            ),
            (
                conversation("hi", "f", r#"{"x":1}"#, "no", true),
                "content differs",
            ),
            (
                conversation("hi", "f", r#"{"x":1}"#, "ok", false),
                "answers call",
            ),
        ];
        for (b, needle) in cases {
            let found = compare(&a, &b, Format::Anthropic);
            assert!(
                found.iter().any(|d| d.contains(needle)),
                "{needle}: {found:?}"
            );
        }
        // Ids are compared where the target keeps them, not in Gemini's.
        let mut b = a.clone();
        if let Part::Call(c) = &mut b.messages[1].parts[0] {
            c.id = Some("other".into());
        }
        if let Part::Result(r) = &mut b.messages[2].parts[0] {
            r.call_id = Some("other".into());
        }
        assert!(
            compare(&a, &b, Format::Anthropic)
                .iter()
                .any(|d| d.contains("id"))
        );
        assert!(compare(&a, &b, Format::Gemini).is_empty());
    }
}
