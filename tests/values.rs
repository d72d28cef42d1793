//! No call and no value is lost on the way to the records: reused call ids, values
//! serde_json cannot hold (half a surrogate pair, deep nesting), numbers as written, and
//! Gemini's streamed argument paths.

mod common;

use common::toolsift;

/// `extract` over `input` on standard input: the output lines as written, which must
/// be success (the records are compared as text: some hold `\ud800`, which serde_json
/// refuses).
fn extract_lines(args: &[&str], input: &str) -> Vec<String> {
    let out = toolsift()
        .arg("extract")
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(Into::into)
        .collect()
}

/// The value of `"key":` in a record line, as written: the JSON value that starts
/// there, found by its brackets and quotes.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let from = line
        .find(&format!(",\"{key}\":"))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + key.len()
        + 4;
    let b = line.as_bytes();
    let (mut depth, mut in_str, mut i) = (0usize, false, from);
    while i < b.len() {
        match (in_str, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => in_str = false,
            (false, b'"') => in_str = true,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') if depth == 0 => break,
            (false, b'}' | b']') => depth -= 1,
            (false, b',') if depth == 0 => break,
            _ => {}
        }
        i += 1;
        if depth == 0 && !in_str && i > from && matches!(b[i - 1], b'"' | b'}' | b']') {
            break;
        }
    }
    &line[from..i]
}

fn calls(lines: &[String]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter(|l| l.starts_with(r#"{"type":"call""#))
        .map(|l| {
            (
                field(l, "name").to_owned(),
                field(l, "arguments").to_owned(),
            )
        })
        .collect()
}

fn results(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.starts_with(r#"{"type":"result""#))
        .map(|l| field(l, "content").to_owned())
        .collect()
}

/// An OpenAI fine-tuning line: one conversation, its call numbered `call_1`.
fn fine_tuning_line(name: &str, path: &str, result: &str) -> String {
    format!(
        r#"{{"messages":[{{"role":"user","content":"go"}},{{"role":"assistant","tool_calls":[{{"id":"call_1","type":"function","function":{{"name":"{name}","arguments":"{{\"path\":\"{path}\"}}"}}}}]}},{{"role":"tool","tool_call_id":"call_1","content":"{result}"}}]}}"#
    )
}

// ---- 1. reused call ids ------------------------------------------------------------

#[test]
fn a_call_id_reused_by_another_conversation_is_a_new_call() {
    let input = [
        fine_tuning_line("read_file", "a", "A"),
        fine_tuning_line("delete_file", "a", "gone"),
        fine_tuning_line("read_file", "b", "B"),
    ]
    .join("\n");
    let lines = extract_lines(&["--with-results"], &input);
    assert_eq!(
        calls(&lines),
        [
            ("\"read_file\"".into(), r#"{"path":"a"}"#.into()),
            ("\"delete_file\"".into(), r#"{"path":"a"}"#.into()),
            ("\"read_file\"".into(), r#"{"path":"b"}"#.into()),
        ]
    );
    assert_eq!(results(&lines), [r#""A""#, r#""gone""#, r#""B""#]);
}

#[test]
fn check_forbids_a_call_whose_id_an_earlier_call_used() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("train.jsonl");
    let input = [
        fine_tuning_line("read_file", "a", "A"),
        fine_tuning_line("delete_file", "a", "gone"),
    ]
    .join("\n");
    std::fs::write(&file, input).unwrap();
    let out = toolsift()
        .args(["check", "--forbid", "delete_file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "delete_file was called");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("delete_file"), "{stdout}");
}

#[test]
fn two_responses_that_number_their_calls_alike_keep_both() {
    let response = |id: &str, city: &str| {
        format!(
            r#"{{"id":"{id}","object":"chat.completion","choices":[{{"index":0,"message":{{"role":"assistant","content":null,"tool_calls":[{{"id":"call_0","type":"function","function":{{"name":"get_weather","arguments":"{{\"city\":\"{city}\"}}"}}}}]}},"finish_reason":"tool_calls"}}]}}"#
        )
    };
    // As one document (a list of responses) and as JSON Lines.
    let list = format!("[{},\n{}]", response("r1", "Paris"), response("r2", "Oslo"));
    let jsonl = format!("{}\n{}\n", response("r1", "Paris"), response("r2", "Oslo"));
    for input in [list, jsonl] {
        let lines = extract_lines(&[], &input);
        assert_eq!(
            calls(&lines),
            [
                ("\"get_weather\"".into(), r#"{"city":"Paris"}"#.into()),
                ("\"get_weather\"".into(), r#"{"city":"Oslo"}"#.into()),
            ],
            "{input}"
        );
    }
}

#[test]
fn the_same_call_and_result_seen_again_are_one() {
    // A log that writes a message again (a copy, a resumed session): one call, one result.
    let line = fine_tuning_line("read_file", "a", "A");
    let lines = extract_lines(&["--with-results"], &format!("{line}\n{line}\n"));
    assert_eq!(calls(&lines).len(), 1, "{lines:?}");
    assert_eq!(results(&lines), [r#""A""#]);
    // The same id answered with other content is another result.
    let a = r#"{"role":"tool","tool_call_id":"call_9","content":"first"}"#;
    let b = r#"{"role":"tool","tool_call_id":"call_9","content":"second"}"#;
    let lines = extract_lines(&["--with-results"], &format!("{a}\n{b}\n{a}\n"));
    assert_eq!(results(&lines), [r#""first""#, r#""second""#]);
}

#[test]
fn concatenated_sessions_give_the_calls_of_the_files_read_apart() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    std::fs::write(
        &a,
        [
            fine_tuning_line("read_file", "x", "1"),
            fine_tuning_line("write_file", "x", "2"),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        [
            fine_tuning_line("delete_file", "x", "3"),
            fine_tuning_line("read_file", "y", "4"),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let apart = toolsift()
        .args(["extract", "--with-results"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let both = std::fs::read_to_string(&a).unwrap() + &std::fs::read_to_string(&b).unwrap();
    let joined = extract_lines(&["--with-results"], &both);
    let apart: Vec<String> = String::from_utf8(apart.stdout)
        .unwrap()
        .lines()
        .map(Into::into)
        .collect();
    assert_eq!(calls(&apart).len(), 4);
    assert_eq!(calls(&joined), calls(&apart));
    assert_eq!(results(&joined), results(&apart));
}

// ---- 3. numbers as written -----------------------------------------------------------

const NUMBERS: &str =
    r#"{"big":123456789012345678901234567890,"a":1.50,"b":1e2,"c":-0,"d":-0.0,"e":2.5E-3}"#;

#[test]
fn numbers_in_arguments_pass_through_as_written() {
    let escaped = serde_json::to_string(NUMBERS).unwrap();
    // Repeated keys send the arguments through serde_json's map.
    let repeated = r#"{"x":1,"x":1.50,"n":123456789012345678901234567890}"#;
    let input = [
        format!(
            r#"{{"role":"assistant","tool_calls":[{{"id":"n1","type":"function","function":{{"name":"f","arguments":{escaped}}}}}]}}"#
        ),
        format!(
            r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"n2","name":"g","input":{}}}]}}"#,
            NUMBERS.replace(',', " , ")
        ),
        format!(
            r#"{{"role":"assistant","tool_calls":[{{"id":"n3","type":"function","function":{{"name":"h","arguments":{}}}}}]}}"#,
            serde_json::to_string(repeated).unwrap()
        ),
        format!(
            r#"{{"type":"response_item","timestamp":"t","payload":{{"type":"local_shell_call","call_id":"n4","action":{{"type":"exec","timeout_ms":1.50,"n":123456789012345678901234567890}}}}}}"#
        ),
        format!(r#"{{"role":"assistant","content":"<tool_call>{{\"name\": \"t\", \"arguments\": {}}}</tool_call>"}}"#, NUMBERS.replace('"', "\\\"")),
    ]
    .join("\n");
    let lines = extract_lines(&[], &input);
    let got: Vec<String> = calls(&lines).into_iter().map(|(_, a)| a).collect();
    assert_eq!(
        got,
        [
            NUMBERS,
            NUMBERS,
            r#"{"x":1.50,"n":123456789012345678901234567890}"#,
            r#"{"timeout_ms":1.50,"n":123456789012345678901234567890}"#,
            NUMBERS,
        ],
        "{lines:?}"
    );
}
