//! No call and no value is lost on the way to the records: reused call ids, values
//! serde_json cannot hold (half a surrogate pair, deep nesting), numbers as written, and
//! Gemini's streamed argument paths.

use crate::common::toolsift;
use std::io::Write;

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

/// The same call (id, name and arguments) in two examples of a fine-tuning file is two
/// calls: each line is its own conversation (its first messages differ). A request log
/// whose history grows from line to line replays its calls: each is reported once.
#[test]
fn the_same_call_in_two_conversations_is_two_calls_and_a_replayed_history_one() {
    let example = |question: &str| {
        format!(
            r#"{{"messages":[{{"role":"system","content":"Fly the drone."}},{{"role":"user","content":"{question}"}},{{"role":"assistant","tool_calls":[{{"id":"call_id","type":"function","function":{{"name":"takeoff","arguments":"{{\"altitude\": 100}}"}}}}]}}]}}"#
        )
    };
    let input = [example("Take off."), example("Lift it to 100 m.")].join("\n");
    assert_eq!(calls(&extract_lines(&[], &input)).len(), 2);
    let first = r#"{"role":"user","content":"Weather?"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"sunny"}"#;
    let second = r#"{"role":"assistant","tool_calls":[{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}"#;
    let input = format!(
        "{{\"model\":\"m\",\"messages\":[{first}]}}\n{{\"model\":\"m\",\"messages\":[{first},{second}]}}"
    );
    let lines = extract_lines(&["--with-results"], &input);
    assert_eq!(
        calls(&lines),
        [
            ("\"get_weather\"".into(), "{}".into()),
            ("\"get_time\"".into(), "{}".into()),
        ]
    );
    assert_eq!(results(&lines), [r#""sunny""#]);
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

// ---- 2. values serde_json cannot hold ------------------------------------------------

fn deep(n: usize) -> String {
    format!("{}1{}", "[".repeat(n), "]".repeat(n))
}

#[test]
fn result_content_is_kept_as_written() {
    let d = deep(130);
    let input = [
        r#"{"role":"tool","tool_call_id":"c1","content":"half \ud800 pair"}"#.to_owned(),
        format!(r#"{{"role":"tool","tool_call_id":"c2","content":{d}}}"#),
        r#"{"type":"function_call_output","call_id":"c3","output":"x\udc00"}"#.to_owned(),
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"c4","content":[{"type":"text","text":"\ud800"}]}]}"#.to_owned(),
        format!(
            r#"{{"role":"user","parts":[{{"functionResponse":{{"name":"f","id":"c5","response":{{"deep":{d}}}}}}}]}}"#
        ),
        r#"{"type":"message_start","message":{"id":"m"}}"#.to_owned(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_result","tool_use_id":"c6","content":"\udfff"}}"#.to_owned(),
        r#"{"type":"message_stop"}"#.to_owned(),
    ]
    .join("\n");
    let lines = extract_lines(&["--with-results"], &input);
    assert_eq!(
        results(&lines),
        [
            r#""half \ud800 pair""#.to_owned(),
            d.clone(),
            r#""x\udc00""#.into(),
            r#"[{"type":"text","text":"\ud800"}]"#.into(),
            format!(r#"{{"deep":{d}}}"#),
            r#""\udfff""#.into(),
        ]
    );
}

#[test]
fn call_values_are_kept_as_written() {
    let d = deep(130);
    let input = [
        r#"{"type":"response_item","timestamp":"t","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"x\ud800"}}"#.to_owned(),
        r#"{"type":"response_item","timestamp":"t","payload":{"type":"local_shell_call","call_id":"c2","action":{"type":"exec","command":["ls","\ud800"]}}}"#.to_owned(),
        format!(
            r#"{{"type":"response_item","timestamp":"t","payload":{{"type":"local_shell_call","call_id":"c3","action":{{"type":"exec","command":{d}}}}}}}"#
        ),
        r#"{"role":"assistant","tool_calls":[{"id":"c4","type":"custom","custom":{"name":"patch","input":"\udc00"}}]}"#.to_owned(),
    ]
    .join("\n");
    let lines = extract_lines(&[], &input);
    assert_eq!(
        calls(&lines),
        [
            ("\"apply_patch\"".into(), r#"{"input":"x\ud800"}"#.into()),
            (
                "\"local_shell\"".into(),
                r#"{"type":"exec","command":["ls","\ud800"]}"#.into()
            ),
            (
                "\"local_shell\"".into(),
                format!(r#"{{"type":"exec","command":{d}}}"#)
            ),
            ("\"patch\"".into(), r#"{"input":"\udc00"}"#.into()),
        ]
    );
    assert!(
        lines.iter().all(|l| !l.contains("\"valid\":false")),
        "{lines:?}"
    );
}

#[test]
fn streamed_object_arguments_are_kept_or_the_call_is_invalid() {
    let d = deep(130);
    let chunk = |args: &str, finish: &str| {
        format!(
            r#"{{"id":"s","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"k1","function":{{"name":"f","arguments":{args}}}}}]}}{finish}}}]}}"#
        )
    };
    let input = [
        chunk(&format!(r#"{{"deep":{d}}}"#), r#","finish_reason":"tool_calls""#),
        r#"{"type":"message_start","message":{"id":"m"}}"#.into(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"k2","name":"g","input":{"s":"\ud800"}}}"#.into(),
        r#"{"type":"content_block_stop","index":0}"#.into(),
        r#"{"type":"message_stop"}"#.into(),
    ]
    .join("\n");
    let lines = extract_lines(&[], &input);
    let got = calls(&lines);
    assert_eq!(got.len(), 2, "{lines:?}");
    for ((name, args), line) in got.iter().zip(&lines) {
        // Kept as written, or invalid with a reason: never an empty object that passes.
        let kept = args != "{}";
        assert!(kept || line.contains("\"valid\":false"), "{name}: {line}");
    }
    assert_eq!(got[1].1, r#"{"s":"\ud800"}"#);
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
        r#"{"type":"response_item","timestamp":"t","payload":{"type":"local_shell_call","call_id":"n4","action":{"type":"exec","timeout_ms":1.50,"n":123456789012345678901234567890}}}"#.to_owned(),
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
            r#"{"type":"exec","timeout_ms":1.50,"n":123456789012345678901234567890}"#,
            NUMBERS,
        ],
        "{lines:?}"
    );
}

#[test]
fn numbers_in_results_and_typed_values_pass_through_as_written() {
    let input = format!(
        "{}\n{}\n",
        r#"{"role":"assistant","content":"<function_calls><invoke name=\"pay\"><parameter name=\"amount\">1.50</parameter><parameter name=\"id\">123456789012345678901234567890</parameter></invoke></function_calls>"}"#,
        format_args!(r#"{{"role":"tool","tool_call_id":"c","content":{NUMBERS}}}"#)
    );
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    let mut f = std::fs::File::create(&tools).unwrap();
    f.write_all(
        br#"{"pay": {"type": "object", "properties": {"amount": {"type": "number", "minimum": 1}, "id": {"type": "integer"}}}}"#,
    )
    .unwrap();
    let tools = tools.to_string_lossy().into_owned();
    let lines = extract_lines(&["--with-results", "--tools", &tools], &input);
    assert_eq!(
        calls(&lines),
        [(
            "\"pay\"".into(),
            r#"{"amount":1.50,"id":123456789012345678901234567890}"#.into()
        )],
        "{lines:?}"
    );
    assert!(lines[0].contains("\"valid\":true"), "{}", lines[0]);
    assert_eq!(results(&lines), [NUMBERS]);
}

// ---- 4. Gemini streamed argument paths ------------------------------------------------

fn gemini_chunk(fc: &str) -> String {
    format!(
        r#"{{"candidates":[{{"content":{{"role":"model","parts":[{{"functionCall":{fc}}}]}},"index":0}}],"responseId":"r"}}"#
    )
}

/// The calls of one Gemini stream: a call `f` whose arguments come as `fragments`,
/// then a plain call `after`.
fn gemini_stream(fragments: &[&str]) -> Vec<String> {
    let mut input = vec![gemini_chunk(r#"{"name":"f","willContinue":true}"#)];
    for frag in fragments {
        input.push(gemini_chunk(&format!(
            r#"{{"partialArgs":[{frag}],"willContinue":true}}"#
        )));
    }
    input.push(gemini_chunk("{}"));
    input.push(gemini_chunk(r#"{"name":"after","args":{"ok":true}}"#));
    extract_lines(&[], &input.join("\n"))
}

#[test]
fn gemini_paths_read_keys_and_indexes_as_written() {
    let lines = gemini_stream(&[
        r#"{"jsonPath":"$.codes.2024","stringValue":"a"}"#,
        r#"{"jsonPath":"$['x.y']","numberValue":1}"#,
        r#"{"jsonPath":"$.tags[0]","stringValue":"t0"}"#,
        r#"{"jsonPath":"$.tags[1]","stringValue":"t1"}"#,
    ]);
    assert_eq!(
        calls(&lines)[0].1,
        r#"{"codes":{"2024":"a"},"x.y":1,"tags":["t0","t1"]}"#
    );
    assert!(!lines[0].contains("\"valid\":false"), "{}", lines[0]);
}

#[test]
fn a_gemini_path_that_is_no_member_keeps_the_other_arguments() {
    let lines = gemini_stream(&[
        r#"{"jsonPath":"$.city","stringValue":"Oslo"}"#,
        r#"{"jsonPath":"$[0]","stringValue":"x"}"#,
    ]);
    assert_eq!(calls(&lines)[0].1, r#"{"city":"Oslo"}"#, "{lines:?}");
    assert!(lines[0].contains("\"valid\":false"), "{}", lines[0]);
    assert!(lines[0].contains("$[0]"), "{}", lines[0]);
    assert_eq!(calls(&lines)[1].0, "\"after\"");
}

#[test]
fn huge_gemini_indexes_and_deep_paths_are_errors_of_their_call() {
    let deep = format!("${}", ".a".repeat(30_000));
    let deep_frag = format!(r#"{{"jsonPath":"{deep}","stringValue":"x"}}"#);
    for frag in [
        r#"{"jsonPath":"$.a[50000000]","stringValue":"x"}"#,
        r#"{"jsonPath":"$.a[18446744073709551616]","stringValue":"x"}"#,
        deep_frag.as_str(),
    ] {
        let lines = gemini_stream(&[r#"{"jsonPath":"$.keep","numberValue":1}"#, frag]);
        let got = calls(&lines);
        assert_eq!(got.len(), 2, "{lines:?}");
        assert!(lines[0].contains("\"valid\":false"), "{}", &lines[0][..200]);
        assert!(got[0].1.starts_with(r#"{"keep":1"#), "{}", &got[0].1);
        assert_eq!(got[1], ("\"after\"".into(), r#"{"ok":true}"#.into()));
    }
}

#[test]
fn a_whole_gemini_call_in_one_chunk_is_complete() {
    let input = [
        gemini_chunk(
            r#"{"name":"f","partialArgs":[{"jsonPath":"$.city","stringValue":"Oslo"}],"willContinue":false}"#,
        ),
        gemini_chunk(r#"{"name":"g","partialArgs":[{"jsonPath":"$.n","numberValue":2}]}"#),
    ]
    .join("\n");
    let lines = extract_lines(&[], &input);
    assert_eq!(
        calls(&lines),
        [
            ("\"f\"".into(), r#"{"city":"Oslo"}"#.into()),
            ("\"g\"".into(), r#"{"n":2}"#.into()),
        ]
    );
    assert!(lines.iter().all(|l| !l.contains("truncated")), "{lines:?}");
}
