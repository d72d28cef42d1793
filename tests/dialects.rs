//! Model-native dialects from the command line: the listing, user dialects from
//! `--dialect-file`, and raw-text values typed by `--tools` schemas.

use crate::common::toolsift;
use predicates::prelude::*;
use serde_json::{Value, json};
use std::io::Write;

fn calls(args: &[&str]) -> Vec<Value> {
    let out = toolsift().arg("extract").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn brief(v: &[Value]) -> Vec<Value> {
    v.iter()
        .map(|c| json!([c["dialect"], c["name"], c["arguments"], c.get("id")]))
        .collect()
}

#[test]
fn the_listing_names_every_model_dialect() {
    let out = toolsift().args(["dialects", "--json"]).output().unwrap();
    let names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    for want in [
        "hermes",
        "llama3-json",
        "llama3-python-tag",
        "llama3-builtin",
        "mistral",
        "mistral-v11",
        "functools",
        "functionary-v3.1",
        "functionary-v3.2",
        "granite",
        "granite-20b-fc",
        "internlm",
        "jamba",
        "minimax-m1",
        "nemotron",
        "longcat",
        "apertus",
        "gigachat",
        "gigachat-3.1",
        "command-r",
        "xlam",
        "kimi-k2",
        "deepseek-r1",
        "deepseek-v3.1",
        "harmony",
        "llamacpp-generic",
        "sarashina",
        "qwen3-coder",
        "seed-oss",
        "glm",
        "minimax-m2",
        "step3",
        "deepseek-dsml",
        "pythonic",
        "llama4-pythonic",
        "olmo3",
        "lfm2",
        "functiongemma",
        "gemma4",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from `toolsift dialects`"
        );
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "a dialect is listed twice");
}

#[test]
fn user_dialects_from_a_file_work_end_to_end() {
    // --all: the json-channel call would otherwise end the turn's fallback.
    let got = calls(&[
        "--all",
        "--dialect-file",
        "tests/data/acme-dialects.json",
        "tests/data/acme.txt",
    ]);
    assert_eq!(
        brief(&got),
        [
            json!(["acme", "get_weather", {"city": "Zürich", "days": 2}, "c1"]),
            json!(["acme-xml", "read_file", {"path": "src/<main>.rs", "lines": [1, 20]}, null]),
            json!(["acme-py", "list_events", {"day": "2026-11-22", "limit": 3}, null]),
            json!(["acme-py", "notify", {"user": "me", "urgent": false}, null]),
        ]
    );
    // Without the file, the same text holds no call toolsift knows.
    assert!(calls(&["tests/data/acme.txt"]).is_empty());
    // --dialects can pick a user dialect.
    let only = calls(&[
        "--dialect-file",
        "tests/data/acme-dialects.json",
        "--dialects",
        "acme-py",
        "tests/data/acme.txt",
    ]);
    assert_eq!(only.len(), 2);
    // The listing shows user dialects too.
    toolsift()
        .args([
            "dialects",
            "--dialect-file",
            "tests/data/acme-dialects.json",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("acme-xml").and(predicate::str::contains("Acme-Coder")));
}

/// A user row may have markers with no `<`, `[` or `{`: such text is still scanned
/// (built-in syntaxes all need one of those, so text without them is skipped).
#[test]
fn user_rows_without_brackets_are_still_found() {
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.json");
    std::fs::write(
        &rows,
        r#"{"dialects": [{"family": "pythonic", "name": "bare-py", "open": "CALL>",
            "close": "<END", "syntax": "lines"}]}"#,
    )
    .unwrap();
    let text = dir.path().join("t.txt");
    std::fs::write(&text, "Sure.\nCALL> get_weather(city='Paris', days=2)\n").unwrap();
    let got = calls(&[
        "--dialect-file",
        rows.to_str().unwrap(),
        text.to_str().unwrap(),
    ]);
    assert_eq!(
        brief(&got),
        [json!(["bare-py", "get_weather", {"city": "Paris", "days": 2}, null])]
    );
}

#[test]
fn a_bad_dialect_file_is_a_usage_error() {
    for (body, message) in [
        (
            "{\"dialects\": [{\"family\": \"markers\", \"name\": \"x\"}]}",
            "missing field `open`",
        ),
        (
            "{\"dialects\": [{\"family\": \"regex\", \"name\": \"x\"}]}",
            "unknown variant `regex`",
        ),
        (
            "{\"dialects\": [{\"family\": \"markers\", \"name\": \"hermes\", \"open\": \"<h>\"}]}",
            "is defined twice (or is a built-in dialect)",
        ),
        (
            "{\"dialects\": [{\"family\": \"markers\", \"name\": \"x\", \"open\": \"<x>\", \"payload\": \"named\"}]}",
            "a named payload needs head_end",
        ),
        ("not json", "not a dialect file"),
    ] {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(body.as_bytes()).unwrap();
        toolsift()
            .args(["extract", "--dialect-file"])
            .arg(file.path())
            .arg("tests/data/acme.txt")
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn raw_text_values_are_typed_by_the_tools_schema() {
    let mut tools = tempfile::NamedTempFile::new().unwrap();
    write!(
        tools,
        r#"[{{"name": "get_weather", "input_schema": {{"type": "object", "properties": {{
            "city": {{"type": "string"}}, "days": {{"type": "integer"}}, "metric": {{"type": "boolean"}},
            "zip": {{"type": "string"}}}}}}}}]"#
    )
    .unwrap();
    let text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n<parameter=zip>\n75001\n</parameter>\n</function>\n</tool_call>\n";
    let run = |with_tools: bool| {
        let mut cmd = toolsift();
        cmd.arg("extract");
        if with_tools {
            cmd.arg("--tools").arg(tools.path());
        }
        let out = cmd.write_stdin(text).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["arguments"].clone()
    };
    assert_eq!(
        run(true),
        json!({"city": "Paris", "days": 3, "metric": true, "zip": "75001"})
    );
    // Without a schema, values stay the strings they were written as.
    assert_eq!(
        run(false),
        json!({"city": "Paris", "days": "3", "metric": "true", "zip": "75001"})
    );
}

#[test]
fn pythonic_cline_and_anthropic_values_are_typed_too() {
    let mut tools = tempfile::NamedTempFile::new().unwrap();
    write!(
        tools,
        r#"{{"book": {{"type": "object", "properties": {{"n": {{"type": "integer"}},
            "ok": {{"type": "boolean"}}, "code": {{"type": "string"}},
            "opts": {{"anyOf": [{{"type": "integer"}}, {{"type": "object"}}]}}}}}}}}"#
    )
    .unwrap();
    for text in [
        "[book(n=\"3\", ok=\"true\", code=\"007\", opts=\"{\\\"a\\\": 1}\")]",
        "<invoke name=\"book\">\n<parameter name=\"n\">3</parameter>\n<parameter name=\"ok\">true</parameter>\n<parameter name=\"code\">007</parameter>\n<parameter name=\"opts\">{\"a\": 1}</parameter>\n</invoke>",
    ] {
        let out = toolsift()
            .args(["extract", "--tools"])
            .arg(tools.path())
            .write_stdin(text)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["arguments"],
            json!({"n": 3, "ok": true, "code": "007", "opts": {"a": 1}}),
            "{text}"
        );
        assert_eq!(v["valid"], true);
    }
}

#[test]
fn a_user_dialect_whose_markers_hold_no_bracket_is_read() {
    // Plain text with no `<`, `[` or `{` is passed over by the built-in dialects; a
    // user row may need no bracket at all.
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.json");
    std::fs::write(
        &rows,
        r#"{"dialects": [{"family": "pythonic", "name": "percent-py", "open": "%%call ", "close": " %%", "syntax": "lines"}]}"#,
    )
    .unwrap();
    let out = toolsift()
        .args(["extract", "--input", "text", "--dialect-file"])
        .arg(&rows)
        .write_stdin("Pinging now. %%call ping(host='a', count=2) %%\n")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(
        brief(&got),
        [json!(["percent-py", "ping", {"host": "a", "count": 2}, null])]
    );
}
