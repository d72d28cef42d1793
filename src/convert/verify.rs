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

    fn with_user_text(text: &str) -> Transcript {
        conversation(text, "f", "{}", "ok", true)
    }

    #[test]
    fn a_text_difference_names_its_byte_and_both_excerpts() {
        let found = compare(&with_user_text("hi"), &with_user_text("ho"), Format::Openai);
        assert_eq!(found, [r#"user text differs at byte 1: "i" became "o""#]);
        // Within a character: the excerpts start at its first byte (é and è share one).
        let found = compare(
            &with_user_text("h\u{e9}llo"),
            &with_user_text("h\u{e8}llo"),
            Format::Openai,
        );
        assert_eq!(
            found,
            ["user text differs at byte 1: \"\u{e9}llo\" became \"\u{e8}llo\""]
        );
        // An excerpt is 24 bytes at most, cut before a character it would split.
        let long = format!("x{}", "a".repeat(22));
        let found = compare(
            &with_user_text(&format!("{long}\u{e9}z")),
            &with_user_text(&format!("{long}bz")),
            Format::Openai,
        );
        assert_eq!(
            found,
            ["user text differs at byte 23: \"\u{e9}z\" became \"bz\""]
        );
        let found = compare(
            &with_user_text(&format!("_{}\u{e9}", "a".repeat(22))),
            &with_user_text("b"),
            Format::Openai,
        );
        assert_eq!(
            found,
            [format!(
                "user text differs at byte 0: \"_{}\" became \"b\"",
                "a".repeat(22)
            )]
        );
        // One text the start of the other: they differ where the shorter ends.
        let found = compare(
            &with_user_text("hi"),
            &with_user_text("hi!"),
            Format::Openai,
        );
        assert_eq!(found, [r#"user text differs at byte 2: "" became "!""#]);
    }

    #[test]
    fn white_space_alone_beside_calls_is_layout() {
        let a = with_user_text("hi");
        let mut b = a.clone();
        b.messages[1]
            .parts
            .insert(0, Part::Text(TextPart::new(" \n ")));
        assert!(compare(&a, &b, Format::Anthropic).is_empty());
        b.messages[1].parts[0] = Part::Text(TextPart::new(" . "));
        assert_eq!(
            compare(&a, &b, Format::Anthropic),
            [r#"assistant text differs at byte 0: "" became " . ""#]
        );
    }

    #[test]
    fn reasoning_counts_and_error_flags_are_compared() {
        let a = with_user_text("hi");
        let mut b = a.clone();
        b.messages[1]
            .parts
            .push(Part::Reasoning(TextPart::new("think")));
        assert_eq!(compare(&a, &b, Format::Openai), ["reasoning text differs"]);
        let mut b = a.clone();
        b.messages.truncate(1);
        assert_eq!(
            compare(&a, &b, Format::Openai),
            ["calls: 1 became 0", "results: 1 became 0"]
        );
        // OpenAI and Responses have no error flag: its loss is said elsewhere.
        let mut b = a.clone();
        if let Part::Result(r) = &mut b.messages[2].parts[0] {
            r.is_error = true;
        }
        assert_eq!(
            compare(&a, &b, Format::Anthropic),
            ["result 0: error flag false became true"]
        );
        assert!(compare(&a, &b, Format::Openai).is_empty());
        assert!(compare(&a, &b, Format::Responses).is_empty());
    }

    fn result(content: &str, is_error: bool) -> ResultPart {
        let mut r = ResultPart::new(Raw::new(content));
        r.is_error = is_error;
        r
    }

    #[test]
    fn contents_are_the_same_in_each_form_a_target_gives_them() {
        let same =
            |a: &str, b: &str, error: bool| same_content(&result(a, error), &result(b, error));
        assert!(same(r#"{"a":1}"#, r#""{\"a\": 1}""#, false));
        assert!(same(r#""{\"a\": 1}""#, r#"{"a":1}"#, false));
        assert!(same(r#"[{"type":"text","text":"x"}]"#, r#""x""#, false));
        assert!(!same(r#"{"a":1}"#, r#""{\"a\": 2}""#, false));
        assert!(!same(r#""x""#, r#""y""#, false));
        // An error written as {"error": message} is its message, and only an error.
        assert!(same(r#"{"error":"boom"}"#, r#""boom""#, true));
        assert!(same(r#""boom""#, r#"{"error":"boom"}"#, true));
        assert!(!same(r#"{"error":"boom"}"#, r#""boom""#, false));
        assert!(!same(r#"{"error":"boom","code":1}"#, r#""boom""#, true));
        assert!(!same(r#"{"fault":"boom"}"#, r#""boom""#, true));
    }

    #[test]
    fn a_history_of_the_target_s_own_dialect_comes_back_byte_for_byte() {
        use super::super::model::Written;
        let written = |text: &str| {
            Some(Written {
                dialect: "mandrake-xml".into(),
                text: text.into(),
            })
        };
        let mut a = with_user_text("hi");
        a.source = Some(Format::Xml);
        if let Part::Call(c) = &mut a.messages[1].parts[0] {
            c.written = written("<tool_call>f</tool_call>");
        }
        if let Part::Result(r) = &mut a.messages[2].parts[0] {
            r.written = written("<tool_result>ok</tool_result>");
        }
        assert!(compare(&a, &a.clone(), Format::Xml).is_empty());
        for (m, p) in [(1, 0), (2, 0)] {
            let mut b = a.clone();
            match &mut b.messages[m].parts[p] {
                Part::Call(c) => c.written = written("<tool_call> f</tool_call>"),
                Part::Result(r) => r.written = written("<tool_result> ok</tool_result>"),
                _ => unreachable!(),
            }
            assert_eq!(
                compare(&a, &b, Format::Xml),
                [format!("message {m} is not reproduced byte for byte")]
            );
            // Another target writes calls its own way: not compared so.
            assert!(compare(&a, &b, Format::Anthropic).is_empty());
        }
        let mut b = a.clone();
        b.messages[0].parts.push(Part::Text(TextPart::new(" ")));
        assert_eq!(
            compare(&a, &b, Format::Xml),
            ["message 0 is not reproduced byte for byte"]
        );
        let mut b = a.clone();
        let mut empty = Message::new(Role::User);
        empty.parts.push(Part::Text(TextPart::new(" ")));
        b.messages.push(empty);
        assert_eq!(compare(&a, &b, Format::Xml), ["messages: 3 became 4"]);
        let mut b = a.clone();
        b.source = Some(Format::Openai);
        b.messages[0].parts.push(Part::Text(TextPart::new(" ")));
        a.source = Some(Format::Openai);
        assert!(compare(&a, &b, Format::Xml).is_empty());
    }
}
