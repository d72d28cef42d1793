//! Model-native syntaxes (issue 4): every fixture under fixtures/models is extracted and
//! its calls compared with tests/expect/models/<stem>.jsonl, which was written from the
//! formats' documentation and peers' parsers independently of toolsift's code.

use crate::common::{root, toolsift};
use serde_json::{Map, Value};
use std::fs;

/// The fields an expectation pins, from a toolsift record or an expectation line.
fn pinned(v: &Value) -> Value {
    let mut out = Map::new();
    for key in ["dialect", "name", "arguments", "id", "in_reasoning"] {
        if let Some(x) = v.get(key) {
            out.insert(key.into(), x.clone());
        }
    }
    let repairs: Vec<Value> = v
        .get("repairs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        // Whether string arguments were decoded is pinned by the snapshots; the
        // expectations name that one repair by a different word.
        .filter(|r| !matches!(r.as_str(), Some("string-arguments" | "decoded-arguments")))
        .cloned()
        .collect();
    if !repairs.is_empty() {
        out.insert("repairs".into(), Value::Array(repairs));
    }
    Value::Object(out)
}

#[test]
fn every_model_fixture_gives_the_expected_calls() {
    let dir = root().join("fixtures/models");
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    entries.sort();
    for path in entries {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let expect_path = root().join(format!("tests/expect/models/{stem}.jsonl"));
        let expected: Vec<Value> = fs::read_to_string(&expect_path)
            .unwrap_or_else(|_| panic!("{stem}: no {}", expect_path.display()))
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| pinned(&serde_json::from_str(l).unwrap()))
            .collect();
        let out = toolsift()
            .args(["extract", "--reasoning", "include"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| pinned(&serde_json::from_str(l).unwrap()))
            .collect();
        if got != expected {
            failures.push(format!(
                "{stem}:\n  expected {}\n  got      {}",
                serde_json::to_string(&expected).unwrap(),
                serde_json::to_string(&got).unwrap()
            ));
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} model fixtures");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
