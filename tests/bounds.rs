//! Bounded under any input: odd or hostile inputs finish, with the right records and a
//! bounded number of messages. Times are measured in `bench/run --adversarial`, not here.

mod common;
use common::toolsift;

#[test]
fn a_file_of_bad_lines_gives_a_bounded_number_of_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    let mut text: String = (0..5000).map(|i| format!("not json {i}\n")).collect();
    text.push_str(r#"{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}"#);
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    let out = toolsift()
        .args(["extract", "--input", "jsonl"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 21, "{err}");
    assert!(
        lines[20].ends_with("4980 more warnings about this input were not shown"),
        "{err}"
    );
    // The one call after them is still found.
    let records = common::records(&out.stdout);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].name(), Some("f"));
}
