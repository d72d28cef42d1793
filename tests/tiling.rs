//! `extract --with-text` cuts text as `convert` does: text records and calls come in
//! message order and, with the calls' own text, give back the message; a wrapper
//! around calls belongs to them, and no call is written as text too.

use crate::common::{Record, records, toolsift};

fn with_text(args: &[&str], input: &str) -> Vec<Record> {
    let out = toolsift()
        .args(["extract", "--with-text", "--input", "text"])
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    records(&out.stdout)
}

fn texts(records: &[Record]) -> Vec<&str> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_function_calls_wrapper_is_part_of_the_calls() {
    let input = "Checking both.\n<function_calls>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n<invoke name=\"b\">\n</invoke>\n</function_calls>\nDone.";
    let recs = with_text(&[], input);
    assert_eq!(texts(&recs), ["Checking both.\n", "\nDone."]);
    let kinds: Vec<&str> = recs
        .iter()
        .map(|r| match r {
            Record::Text { .. } => "text",
            _ => r.name().unwrap(),
        })
        .collect();
    assert_eq!(kinds, ["text", "a", "b", "text"]);
}

#[test]
fn with_all_channels_calls_come_in_message_order_and_never_as_text() {
    // The text channel finds the pythonic call, the json channel the JSON one after it:
    // channel order is not message order.
    let input = "First [p(a=1)] then {\"name\": \"j\", \"arguments\": {\"k\": 1}} end";
    let recs = with_text(&["--all"], input);
    let order: Vec<String> = recs
        .iter()
        .map(|r| match r {
            Record::Text { text, .. } => format!("text:{text}"),
            _ => format!("call:{}", r.name().unwrap()),
        })
        .collect();
    assert_eq!(
        order,
        [
            "text:First ",
            "call:p",
            "text: then ",
            "call:j",
            "text: end"
        ]
    );
}

#[test]
fn a_logged_copy_of_a_mandrake_call_is_not_text() {
    let call = "<tool_call>\n<server>s</server>\n<method>m</method>\n<arguments>\n{\"a\": 1}\n</arguments>\n</tool_call>";
    let copy = "<tool_call>\n<server>s</server>\n<method>m</method>\n<description></description>\n<arguments>\n{\n  \"a\": 1\n}\n</arguments>\n</tool_call>";
    let input = format!("Reading.{call}{copy}Read.");
    let recs = with_text(&[], &input);
    assert_eq!(texts(&recs), ["Reading.", "Read."]);
    assert_eq!(recs.iter().filter(|r| r.is_call()).count(), 1);
}

#[test]
fn each_text_of_a_message_is_tiled_with_its_own_calls() {
    // Two text blocks in one message, a call in each: each call sits in its own block.
    let input = r#"{"role":"assistant","content":[{"type":"text","text":"First <tool_call>{\"name\": \"one\", \"arguments\": {}}</tool_call> after one."},{"type":"text","text":"Second <tool_call>{\"name\": \"two\", \"arguments\": {}}</tool_call> after two."}]}"#;
    let out = toolsift()
        .args(["extract", "--with-text", "--input", "json"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success());
    let got: Vec<String> = records(&out.stdout)
        .iter()
        .map(|r| match r {
            Record::Text { text, .. } => format!("text {text}"),
            Record::Call { name, .. } => format!("call {name}"),
            Record::Result { .. } => "result".to_owned(),
        })
        .collect();
    assert_eq!(
        got,
        [
            "text First ",
            "call one",
            "text  after one.",
            "text Second ",
            "call two",
            "text  after two."
        ]
    );
}

#[test]
fn a_message_that_is_only_a_call_gives_no_empty_text() {
    let records = with_text(
        &[],
        r#"<tool_call>{"name": "only", "arguments": {}}</tool_call>"#,
    );
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].name(), Some("only"));
}
