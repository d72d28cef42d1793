//! Dialect fidelity (issue 20): agree with each inference server's own parser, and
//! where toolsift differs on purpose, say so (fixtures/models/SOURCES.md).

mod common;
use common::toolsift;
use serde_json::{Value, json};

/// The records `extract` writes for `text` with `args`.
fn extract(text: &str, args: &[&str]) -> Vec<Value> {
    let out = toolsift()
        .arg("extract")
        .args(args)
        .write_stdin(text)
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
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn python_type_names_in_a_contract_are_read_as_json_schema_types() {
    let out = toolsift()
        .args(["extract", "--tools", "tests/data/fidelity/python-types.json"])
        .write_stdin("{\"name\": \"set_temp\", \"arguments\": {\"celsius\": 21.5, \"room\": \"a\", \"on\": true, \"zones\": [1], \"opts\": {}}}")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("python-types.json: tool set_temp: type \"float\" read as \"number\""),
        "{stderr}"
    );
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["valid"], true, "{record}");
    // Typed for what it says: a string is not a float.
    let out = toolsift()
        .args([
            "extract",
            "--tools",
            "tests/data/fidelity/python-types.json",
        ])
        .write_stdin("{\"name\": \"set_temp\", \"arguments\": {\"celsius\": \"warm\"}}")
        .output()
        .unwrap();
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["valid"], false, "{record}");
    // What cannot be read at all is still an error of the run.
    toolsift()
        .args(["extract", "--tools", "tests/data/fidelity/bad-type.json"])
        .write_stdin("x")
        .assert()
        .code(2);
    let _ = (extract, json!(null));
}
