//! `toolsift convert`: every legacy history fixture migrates to every target and reads
//! back the same (`--verify`); Mandrake's XML comes back byte for byte; the text around
//! calls tiles each message; every `--to json` output passes the published schema; its
//! calls are extract's, on every fixture; and the batch options write what they say,
//! and nothing else.

use crate::common;
use crate::common::{root, toolsift};
use serde_json::Value;
use std::path::{Path, PathBuf};

const TARGETS: [&str; 7] = [
    "json",
    "openai",
    "anthropic",
    "gemini",
    "responses",
    "mandrake-json",
    "xml",
];

/// The message-shaped histories with calls written in text.
fn histories() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root().join("fixtures/convert")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl")
            ) {
                files.push(path);
            }
        }
    }
    files.push(root().join("fixtures/mandrake/legacy-xml-history.json"));
    files.push(root().join("fixtures/cline/api_conversation_history.json"));
    files.sort();
    assert!(files.len() >= 12, "{files:?}");
    files
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn convert(args: &[&str]) -> std::process::Output {
    toolsift().arg("convert").args(args).output().unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn every_history_converts_to_every_target_and_verifies() {
    for file in histories() {
        let f = rel(&file);
        for to in TARGETS {
            // Mandrake's `server.method` names, renamed as the README says.
            let out = convert(&["--to", to, "--verify", "--rename-tools", "dots", &f]);
            let err = stderr(&out);
            assert!(
                out.status.success() && !common::lost(&err),
                "{f} -> {to}: {err}"
            );
            assert!(!out.stdout.is_empty(), "{f} -> {to}");
        }
    }
}

#[test]
fn calls_and_results_of_the_histories_are_found() {
    // (file, calls, results): counted from the histories by hand (fixtures/convert/SOURCES.md).
    let expected = [
        ("fixtures/mandrake/legacy-xml-history.json", 2, 2),
        ("fixtures/convert/mandrake/notes-session.json", 6, 6),
        (
            "fixtures/convert/anthropic-legacy/cookbook-calculator.json",
            1,
            1,
        ),
        (
            "fixtures/convert/anthropic-legacy/weather-sql-multiturn.json",
            5,
            5,
        ),
    ];
    for (file, calls, results) in expected {
        let out = convert(&["--to", "json", file]);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let parts: Vec<&Value> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap())
            .collect();
        let count = |kind: &str| parts.iter().filter(|p| p["type"] == kind).count();
        assert_eq!((count("call"), count("result")), (calls, results), "{file}");
        // Every result answers a call of the conversation.
        for r in parts.iter().filter(|p| p["type"] == "result") {
            let id = r["call_id"].as_str().expect("paired");
            assert!(
                parts.iter().any(|p| p["type"] == "call" && p["id"] == id),
                "{file}: {r}"
            );
        }
    }
}

/// The text of each message of a Mandrake-style history (`content` strings).
fn contents(doc: &Value) -> Vec<String> {
    let messages = doc
        .get("messages")
        .unwrap_or(doc)
        .as_array()
        .expect("messages");
    messages
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn mandrake_xml_to_json_to_xml_is_byte_exact() {
    let dir = tempfile::tempdir().unwrap();
    for file in histories()
        .iter()
        .filter(|f| rel(f).contains("mandrake") && rel(f).ends_with(".json"))
    {
        let original: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        let json = dir.path().join("step.json");
        let out = convert(&["--to", "json", &rel(file), "-o", json.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let out = convert(&["--to", "xml", json.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let back: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(contents(&back), contents(&original), "{}", rel(file));
    }
}

#[test]
fn jsonl_histories_convert_line_by_line() {
    let file = "fixtures/convert/mandrake/sessions.jsonl";
    let lines = std::fs::read_to_string(root().join(file)).unwrap();
    let out = convert(&["--to", "openai", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), lines.lines().count());
    for line in text.lines() {
        let doc: Value = serde_json::from_str(line).unwrap();
        assert!(doc["messages"].is_array(), "{line}");
    }
    // Through the canonical form and back to Mandrake's XML, each conversation as it was.
    let dir = tempfile::tempdir().unwrap();
    let out = convert(&["--to", "json", file]);
    let step = dir.path().join("step.jsonl");
    std::fs::write(&step, &out.stdout).unwrap();
    let out = convert(&["--to", "xml", step.to_str().unwrap()]);
    let back = String::from_utf8(out.stdout).unwrap();
    for (a, b) in back.lines().zip(lines.lines()) {
        let (a, b): (Value, Value) = (
            serde_json::from_str(a).unwrap(),
            serde_json::from_str(b).unwrap(),
        );
        assert_eq!(contents(&a), contents(&b));
    }
}

/// The canonical transcripts of every history, each validated against the schema that
/// `toolsift schema transcript` prints.
#[test]
fn canonical_output_passes_the_published_schema() {
    let out = toolsift().args(["schema", "transcript"]).output().unwrap();
    assert!(out.status.success());
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for file in histories() {
        let f = rel(&file);
        let out = convert(&["--to", "json", &f]);
        let text = String::from_utf8(out.stdout).unwrap();
        let docs: Vec<Value> = if f.ends_with(".jsonl") {
            text.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap()]
        };
        for doc in docs {
            let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{f}: {errors:?}");
        }
    }
    // The schema is not vacuous: a part of an unknown type fails it.
    let bad = serde_json::json!({"messages": [{"role": "user", "parts": [{"type": "nope"}]}]});
    assert!(!validator.is_valid(&bad));
}

/// Text parts and the written calls and results of each message give back its text:
/// nothing that is not a call or a result is lost or moved.
#[test]
fn text_and_written_pieces_tile_every_message() {
    for file in histories() {
        let f = rel(&file);
        if f.ends_with(".jsonl") || f.contains("cline") {
            // Cline's results span several content blocks; their tiling is the
            // blocks', checked by `--verify` above.
            continue;
        }
        let source: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let out = convert(&["--to", "json", &f]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut texts: Vec<String> = Vec::new();
        if let Some(system) = source.get("system").and_then(Value::as_str) {
            texts.push(system.to_owned());
        }
        let messages = source
            .get("messages")
            .unwrap_or(&source)
            .as_array()
            .unwrap();
        for m in messages {
            texts.push(match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<String>(),
                _ => String::new(),
            });
        }
        let tiled: Vec<String> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                m["parts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| match p["type"].as_str() {
                        Some("text") => p["text"].as_str().unwrap().to_owned(),
                        _ => p["written"]["text"].as_str().unwrap_or_default().to_owned(),
                    })
                    .collect::<String>()
            })
            .collect();
        assert_eq!(tiled, texts, "{f}");
        let calls = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap())
            .filter(|p| p["type"] == "call")
            .count();
        assert!(calls > 0, "{f}");
    }
}

#[test]
fn system_prompt_examples_are_not_calls() {
    let out = convert(&[
        "--to",
        "json",
        "fixtures/convert/mandrake/notes-session.json",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let system = &doc["messages"][0];
    assert_eq!(system["role"], "system");
    let parts = system["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1);
    assert!(parts[0]["text"].as_str().unwrap().contains("<tool_call>"));
}

#[test]
fn values_pass_through_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("numbers.json");
    let history = r#"{"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"big\": 123456789012345678901234567890, \"x\": 1.50, \"e\": 1e2, \"s\": \"\\u00e9\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "ok"}], "x_meta": {"n": 1.0}}
    ], "model": "m", "seed": 7}"#;
    std::fs::write(&file, history).unwrap();
    let out = convert(&["--to", "json", "--compact", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for kept in [
        r#""big": 123456789012345678901234567890"#,
        r#""x": 1.50"#,
        r#""e": 1e2"#,
        r#""x_meta":{"n":1.0}"#,
        r#""seed":7"#,
    ] {
        let kept = kept.replace(": ", ":");
        assert!(text.contains(&kept), "{kept} in {text}");
    }
    // Back to OpenAI: the arguments string and the extra fields as they were.
    let step = dir.path().join("step.json");
    std::fs::write(&step, &text).unwrap();
    let out = convert(&["--to", "openai", step.to_str().unwrap()]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // A message field the API does not know is not written in a request, and is said.
    assert!(doc["messages"][2].get("x_meta").is_none(), "{doc}");
    assert!(stderr(&out).contains("x_meta"), "{}", stderr(&out));
    // White space between tokens is laid out again; every token stays as written.
    assert_eq!(
        doc["messages"][1]["tool_calls"][0]["function"]["arguments"],
        r#"{"big":123456789012345678901234567890,"x":1.50,"e":1e2,"s":"\u00e9"}"#
    );
    assert_eq!(doc["seed"], 7);
    // `--to json` keeps it, number as written.
    let out = convert(&["--to", "json", "--compact", step.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(r#""x_meta":{"n":1.0}"#),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn input_that_cannot_be_kept_exactly_fails_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let surrogate = dir.path().join("surrogate.json");
    std::fs::write(
        &surrogate,
        r#"{"messages": [{"role": "user", "content": "a \ud800 b"}]}"#,
    )
    .unwrap();
    let bad_utf8 = dir.path().join("latin1.json");
    std::fs::write(
        &bad_utf8,
        b"{\"messages\": [{\"role\": \"user\", \"content\": \"caf\xe9\"}]}",
    )
    .unwrap();
    for (file, says) in [(&surrogate, "lone surrogate"), (&bad_utf8, "invalid UTF-8")] {
        let out = convert(&["--to", "json", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(
            err.contains(says) && err.contains(file.to_str().unwrap()),
            "{err}"
        );
    }
}

#[test]
fn ids_are_generated_once_and_stably() {
    let file = "fixtures/mandrake/legacy-xml-history.json";
    let a = convert(&["--to", "anthropic", file]);
    let b = convert(&["--to", "anthropic", file]);
    assert_eq!(a.stdout, b.stdout);
    let doc: Value = serde_json::from_slice(&a.stdout).unwrap();
    let text = doc.to_string();
    let ids: Vec<&str> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "tool_use")
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{text}");
    assert_ne!(ids[0], ids[1]);
    for id in ids {
        assert!(
            text.contains(&format!("\"tool_use_id\":\"{id}\"")),
            "{text}"
        );
    }
}

#[test]
fn converted_histories_are_read_by_extract() {
    // A conversion's calls are the calls extract finds in it, for each target.
    let file = "fixtures/convert/mandrake/notes-session.json";
    let names_in = |path: &str| -> Vec<String> {
        let out = toolsift().args(["extract", path]).output().unwrap();
        common::records(&out.stdout)
            .iter()
            .filter_map(|r| r.name().map(str::to_owned))
            .collect()
    };
    let want = names_in(file);
    assert_eq!(want.len(), 6, "{want:?}");
    let dir = tempfile::tempdir().unwrap();
    for to in TARGETS {
        let path = dir.path().join(format!("out-{to}.json"));
        let out = convert(&["--to", to, file, "-o", path.to_str().unwrap()]);
        assert!(out.status.success(), "{to}: {}", stderr(&out));
        assert_eq!(names_in(path.to_str().unwrap()), want, "{to}");
    }
}

fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn out_dir_keeps_relative_paths_and_never_overwrites_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let o = out_dir.to_str().unwrap();
    let out = convert(&["--to", "openai", "--out-dir", o, "fixtures/convert/cline"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        tree(&out_dir),
        [
            "task-1/api_conversation_history.json",
            "task-2/api_conversation_history.json",
            "task-3/api_conversation_history.json"
        ]
    );
    assert!(
        stderr(&out).contains("3 files, 3 conversations"),
        "{}",
        stderr(&out)
    );
    let first = out_dir.join("task-1/api_conversation_history.json");
    std::fs::write(&first, "kept").unwrap();
    let out = convert(&["--to", "openai", "--out-dir", o, "fixtures/convert/cline"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "kept");
    assert!(stderr(&out).contains("3 skipped"), "{}", stderr(&out));
    let out = convert(&[
        "--to",
        "openai",
        "--force",
        "--out-dir",
        o,
        "fixtures/convert/cline",
    ]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&std::fs::read(&first).unwrap()).unwrap();
    assert!(doc.is_array() || doc["messages"].is_array());
}

#[test]
fn dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = convert(&[
        "--to",
        "json",
        "--dry-run",
        "--out-dir",
        out_dir.to_str().unwrap(),
        "fixtures/convert/mandrake",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!out_dir.exists());
    let err = stderr(&out);
    assert!(
        err.contains("would write") && err.contains("4 would be written"),
        "{err}"
    );
}

#[test]
fn in_place_needs_a_backup_choice_and_keeps_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.json");
    let original = std::fs::read(root().join("fixtures/mandrake/legacy-xml-history.json")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let f = file.to_str().unwrap();
    let out = convert(&["--to", "json", "--in-place", f]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&file).unwrap(), original);
    let out = convert(&["--to", "json", "--in-place", "--backup", ".orig", f]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.path().join("history.json.orig")).unwrap(),
        original
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["source"], "xml");
}

#[test]
fn output_naming_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.json");
    let original = std::fs::read(root().join("fixtures/mandrake/legacy-xml-history.json")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let f = file.to_str().unwrap();
    let out = convert(&["--to", "json", f, "-o", f]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&file).unwrap(), original);
}

#[test]
fn one_bad_file_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(
        root().join("fixtures/mandrake/legacy-xml-history.json"),
        input.join("a.json"),
    )
    .unwrap();
    std::fs::write(input.join("b.json"), "{\"messages\": [oops").unwrap();
    std::fs::write(input.join("c.json"), "plain text, no conversation").unwrap();
    std::fs::copy(
        root().join("fixtures/cline/api_conversation_history.json"),
        input.join("d.json"),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = convert(&[
        "--to",
        "anthropic",
        "--out-dir",
        out_dir.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(tree(&out_dir), ["a.json", "d.json"]);
    let err = stderr(&out);
    assert!(err.contains("b.json") && err.contains("c.json"), "{err}");
    // Broken JSON fails; plain text found in a directory is no conversation, skipped.
    assert!(
        err.contains("4 files")
            && err.contains("1 failed")
            && err.contains("1 not a conversation (plain text)"),
        "{err}"
    );
    // Named on its own, plain text with no call still fails: there is nothing in it.
    let out = convert(&["--to", "json", input.join("c.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn a_write_error_on_standard_output_is_an_error_of_the_run() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .current_dir(root())
        .args([
            "convert",
            "--to",
            "json",
            "fixtures/mandrake/legacy-xml-history.json",
        ])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("toolsift: standard output:"),
        "{}",
        stderr(&out)
    );
}

/// A batch killed part way leaves every output whole: the old file or the new one.
#[test]
fn a_killed_batch_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let history =
        std::fs::read_to_string(root().join("fixtures/convert/mandrake/notes-session.json"))
            .unwrap();
    // Large files, so that a kill lands inside a write.
    let doc: Value = serde_json::from_str(&history).unwrap();
    let mut messages = doc["messages"].as_array().unwrap().clone();
    let one = messages.clone();
    for _ in 0..200 {
        messages.extend(one.iter().skip(1).cloned());
    }
    let big = serde_json::json!({ "messages": messages }).to_string();
    for i in 0..40 {
        std::fs::write(input.join(format!("s{i:02}.json")), &big).unwrap();
    }
    let out_dir = dir.path().join("out");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["convert", "--to", "json", "-j", "2", "--out-dir"])
        .arg(&out_dir)
        .arg(&input)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some outputs exist, before all do.
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(20) {
        if out_dir.exists()
            && tree(&out_dir)
                .iter()
                .filter(|f| !f.ends_with(".toolsift-tmp"))
                .count()
                >= 2
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let files = tree(&out_dir);
    let done: Vec<&String> = files
        .iter()
        .filter(|f| !f.ends_with(".toolsift-tmp"))
        .collect();
    assert!(!done.is_empty() && done.len() < 40, "{files:?}");
    for f in done {
        let doc: Value = serde_json::from_slice(&std::fs::read(out_dir.join(f)).unwrap())
            .unwrap_or_else(|e| panic!("{f} is partial: {e}"));
        assert!(doc["messages"].is_array());
    }
    // Only hidden temporary files may remain, which a walk never reads.
    for f in &files {
        let name = Path::new(f).file_name().unwrap().to_string_lossy();
        assert!(
            !f.ends_with(".toolsift-tmp") || name.starts_with('.'),
            "{f}"
        );
    }
}

#[test]
fn a_progress_bar_shows_in_a_terminal_only() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("note: `script` not found; the terminal test is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let history = std::fs::read(root().join("fixtures/mandrake/legacy-xml-history.json")).unwrap();
    for i in 0..300 {
        std::fs::write(input.join(format!("h{i:03}.json")), &history).unwrap();
    }
    let out_dir = dir.path().join("out");
    // An 80-column terminal: the bar fits it, so no redraw wraps onto a second line.
    let command = format!(
        "stty cols 80; {} convert --to json --out-dir {} {}",
        env!("CARGO_BIN_EXE_toolsift"),
        out_dir.display(),
        input.display()
    );
    // `script` runs the command in a pseudo-terminal and records what it shows.
    let log = dir.path().join("typescript");
    let out = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &command])
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success());
    let shown = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
    assert!(shown.contains("300 files, 300 conversations"), "{shown}");
    assert!(
        shown.contains("converting") && shown.contains("/300"),
        "{shown}"
    );
    let drawn: Vec<&str> = shown
        .split(['\r', '\n'])
        .map(|l| l.trim_start_matches("\u{1b}[2K"))
        .filter(|l| l.starts_with("converting"))
        .collect();
    assert!(drawn.len() > 1, "{shown}");
    for line in drawn {
        assert!(line.chars().count() <= 80, "{line:?}");
        assert!(!line.contains("eta 0s"), "{line:?}");
    }
    assert_eq!(tree(&out_dir).len(), 300);
    // Not a terminal: the summary alone.
    std::fs::remove_dir_all(&out_dir).unwrap();
    let out = convert(&[
        "--to",
        "json",
        "--out-dir",
        out_dir.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert!(!err.contains("converting"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn swe_agent_trajectories_convert_with_their_actions() {
    for file in [
        "fixtures/swe-agent/xml-actions.traj",
        "fixtures/swe-agent/function-calling.traj",
    ] {
        let out = convert(&["--to", "json", "--verify", file]);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        assert!(!common::lost(&stderr(&out)), "{}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let calls: Vec<String> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap())
            .filter(|p| p["type"] == "call")
            .map(|p| p["name"].as_str().unwrap().to_owned())
            .collect();
        let out = toolsift().args(["extract", file]).output().unwrap();
        let extracted: Vec<String> = common::records(&out.stdout)
            .iter()
            .filter_map(|r| r.name().map(str::to_owned))
            .collect();
        assert!(!calls.is_empty(), "{file}");
        // extract also reads the trajectory's steps after the history; the history's
        // calls come first, in the same order.
        assert_eq!(calls[..], extracted[..calls.len()], "{file}");
        // The trajectory itself is kept, as written.
        assert!(doc["extra"]["trajectory"].is_array(), "{file}");
    }
}

#[test]
fn plain_model_output_converts_as_one_assistant_message() {
    let file = "fixtures/hermes/qwen-parallel.txt";
    let out = convert(&["--to", "openai", "--verify", file]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("plain text: read through extract's reader"),
        "{err}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = doc["messages"].as_array().unwrap();
    let calls: Vec<&str> = messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .map(|c| c["function"]["name"].as_str().unwrap())
        .collect();
    let out = toolsift().args(["extract", file]).output().unwrap();
    let extracted: Vec<String> = common::records(&out.stdout)
        .iter()
        .filter_map(|r| r.name().map(str::to_owned))
        .collect();
    assert!(calls.len() >= 2, "{calls:?}");
    assert_eq!(calls, extracted);
    assert!(messages.iter().all(|m| m["role"] == "assistant"));
}

#[test]
fn verify_reports_what_a_target_loses_even_when_quiet() {
    // A call cut off by the end of its stream has arguments that are not an object:
    // Anthropic's `input` cannot hold them.
    let file = "fixtures/openai-chat/stream-truncated.sse";
    let out = convert(&["--to", "anthropic", "--verify", "-q", file]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(common::lost(&err), "{err}");
    assert!(err.contains("arguments differ"), "{err}");
    assert!(err.contains("1 would lose something"), "{err}");
    // Without --verify the same conversion says what it could not carry, and exits 0.
    let out = convert(&["--to", "anthropic", file]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("arguments that are not a JSON object"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_one_line_input_gives_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.jsonl");
    let line = std::fs::read_to_string(root().join("fixtures/convert/mandrake/sessions.jsonl"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    std::fs::write(&file, format!("{line}\n")).unwrap();
    let out = convert(&["--to", "openai", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert!(doc["messages"].is_array());
}

/// A folder of mixed histories (Mandrake, Cline, Anthropic legacy), a binary file and a
/// README; `big` makes every history large, so a kill lands inside the batch.
fn mixed_folder(dir: &Path, big: bool) -> Vec<(PathBuf, Vec<u8>)> {
    let mut originals = Vec::new();
    let mut add = |rel: &str, bytes: Vec<u8>| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        originals.push((path, bytes));
    };
    for (i, file) in histories().iter().enumerate() {
        let mut bytes = std::fs::read(file).unwrap();
        if big && file.extension().is_some_and(|e| e == "json") {
            let doc: Value = serde_json::from_slice(&bytes).unwrap();
            if let Some(messages) = doc.get("messages").and_then(Value::as_array) {
                let mut grown = messages.clone();
                for _ in 0..100 {
                    grown.extend(messages.iter().skip(1).cloned());
                }
                let mut doc = doc.clone();
                doc["messages"] = Value::Array(grown);
                bytes = serde_json::to_vec_pretty(&doc).unwrap();
            }
        }
        let name = file.file_name().unwrap().to_string_lossy();
        add(&format!("h{}/{i:02}-{name}", i % 3), bytes);
    }
    add(
        "img/logo.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01".to_vec(),
    );
    // Compressed: read, but not replaced in place (it would get plain text).
    add(
        "h0/parallel-tool-calls.json.gz",
        std::fs::read(root().join("fixtures/compressed/parallel-tool-calls.json.gz")).unwrap(),
    );
    add("README.txt", b"Histories of the old agent.\n".to_vec());
    originals
}

/// Every file below `dir` (hidden ones too) with its bytes.
fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// Each original is byte for byte in exactly one file of the tree: the input itself
/// (untouched, or unchanged by its conversion) or its one backup.
fn assert_each_original_in_one_place(dir: &Path, originals: &[(PathBuf, Vec<u8>)]) {
    let files = all_files(dir);
    for (path, bytes) in originals {
        let holders: Vec<&PathBuf> = files
            .iter()
            .filter(|(_, b)| b == bytes)
            .map(|(p, _)| p)
            .collect();
        assert_eq!(holders.len(), 1, "{}: held by {holders:?}", path.display());
        let backup = PathBuf::from(format!("{}.orig", path.display()));
        assert!(
            holders[0] == path || *holders[0] == backup,
            "{}: held by {}",
            path.display(),
            holders[0].display()
        );
    }
    for (p, _) in &files {
        assert!(!p.to_string_lossy().ends_with(".orig.orig"), "{p:?}");
    }
}

fn in_place(dir: &Path, to: &str) -> std::process::Output {
    toolsift()
        .args(["convert", "--to", to, "--in-place", "--backup", ".orig"])
        .arg(dir)
        .output()
        .unwrap()
}

#[test]
fn in_place_runs_in_a_row_keep_every_original_in_exactly_one_backup() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions");
    let originals = mixed_folder(&dir, false);
    let out = in_place(&dir, "json");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    // The binary, the compressed file and the README are skipped, counted, not failures.
    assert!(
        err.contains("1 binary skipped")
            && err.contains("1 compressed skipped")
            && err.contains("1 not a conversation"),
        "{err}"
    );
    assert_each_original_in_one_place(&dir, &originals);
    let converted = all_files(&dir);
    for run in 2..=3 {
        let out = in_place(&dir, "json");
        let err = stderr(&out);
        assert!(out.status.success(), "run {run}: {err}");
        // Backups are never inputs; a conversion equal to its input is left alone.
        assert!(err.contains("backups not read"), "run {run}: {err}");
        assert!(!err.contains("written"), "run {run}: {err}");
        assert_each_original_in_one_place(&dir, &originals);
        let mut now = all_files(&dir);
        let mut before = converted.clone();
        now.sort();
        before.sort();
        assert_eq!(now, before, "run {run} changed a file");
    }
    // Another target would need the backups' names: every file is refused, untouched.
    let out = in_place(&dir, "openai");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(".orig exists and holds another file"), "{err}");
    assert_each_original_in_one_place(&dir, &originals);
    // Checking the converted tree reads no backup.
    let out = toolsift()
        .args(["check", "--exclude", "*.orig", "--format", "json"])
        .arg(&dir)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!report.contains(".orig"), "{report}");
}

#[test]
fn a_backup_named_as_an_input_is_refused_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a.json.orig");
    std::fs::copy(
        root().join("fixtures/mandrake/legacy-xml-history.json"),
        &file,
    )
    .unwrap();
    let out = convert(&[
        "--to",
        "json",
        "--in-place",
        "--backup",
        ".orig",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("never converts a backup"),
        "{}",
        stderr(&out)
    );
}

/// Waits until `count(dir)` reaches `n` (or 30 s).
fn wait_for(n: usize, count: impl Fn() -> usize) {
    let start = std::time::Instant::now();
    while count() < n && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The backups below `dir`, counted by name while a run may be renaming and removing
/// files there (nothing is opened).
fn backups(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".orig") {
                n += 1;
            }
        }
    }
    n
}

fn signal(child: &std::process::Child, name: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn in_place_batches_killed_by_sigint_and_sigkill_lose_no_original() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions");
    let originals = mixed_folder(&dir, true);
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
            .args([
                "convert",
                "--to",
                "json",
                "-j",
                "1",
                "--in-place",
                "--backup",
                ".orig",
                "--manifest",
            ])
            .arg(tmp.path().join("m.jsonl"))
            .arg(&dir)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // SIGINT: the file under way is finished, no other is started, the run says so.
    let child = spawn();
    wait_for(2, || backups(&dir));
    signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("toolsift: interrupted: "), "{err}");
    assert!(err.contains(" not started"), "{err}");
    let done = backups(&dir);
    assert!(done >= 2 && done < originals.len() - 2, "{done}");
    // The manifest: a line per input, those done first (one worker), then the rest.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(tmp.path().join("m.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let started = lines
        .iter()
        .take_while(|l| l["status"] != "not started")
        .count();
    assert!(started >= done && started < lines.len(), "{lines:?}");
    assert!(
        lines[started..]
            .iter()
            .all(|l| l["status"] == "not started" && l["xxh3"].is_null() && l["calls"] == 0)
    );
    let written = lines.iter().filter(|l| l["status"] == "written").count();
    assert!(
        err.contains(&format!(
            "interrupted: {written} written, {} not started",
            lines.len() - started
        )),
        "{err}"
    );
    assert!(
        !all_files(&dir)
            .iter()
            .any(|(p, _)| p.to_string_lossy().ends_with(".toolsift-tmp")),
        "a temporary file was left"
    );
    assert_each_original_in_one_place(&dir, &originals);
    // SIGKILL: whatever it was doing, nothing is lost.
    let mut child = spawn();
    wait_for(done + 2, || backups(&dir));
    child.kill().unwrap();
    child.wait().unwrap();
    // The next run finishes the job and removes what the killed one left.
    let out = in_place(&dir, "json");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_each_original_in_one_place(&dir, &originals);
    assert!(
        !all_files(&dir)
            .iter()
            .any(|(p, _)| p.to_string_lossy().ends_with(".toolsift-tmp")),
        "a temporary file was left"
    );
}

#[test]
fn a_binary_file_is_skipped_in_a_folder_and_fails_when_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(
        root().join("fixtures/mandrake/legacy-xml-history.json"),
        dir.join("a.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("picture.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe",
    )
    .unwrap();
    let out_dir = tmp.path().join("out");
    let out = convert(&[
        "--to",
        "json",
        "--out-dir",
        out_dir.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("1 binary skipped") && err.contains("0 failed"),
        "{err}"
    );
    assert_eq!(tree(&out_dir), ["a.json"]);
    let out = convert(&["--to", "json", dir.join("picture.png").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("binary data"), "{}", stderr(&out));
}

#[test]
fn a_resumed_batch_says_one_line_and_update_replaces_only_older_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let o = out_dir.to_str().unwrap();
    let input = tmp.path().join("in");
    for (i, f) in histories().iter().take(4).enumerate() {
        let to = input.join(format!("{i}.json"));
        std::fs::create_dir_all(&input).unwrap();
        std::fs::copy(f, to).unwrap();
    }
    let i = input.to_str().unwrap();
    let out = convert(&["--to", "json", "--out-dir", o, i]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = convert(&["--to", "json", "--out-dir", o, i]);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    // Nothing converted: nothing counted but the files kept.
    assert!(
        err.starts_with("toolsift: 4 files, 0 conversations, 0 messages, 0 calls")
            && err.contains("4 skipped (output exists; --force)"),
        "{err}"
    );
    // An input changed after its output: kept and said, replaced with --update.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for f in std::fs::read_dir(&out_dir).unwrap() {
        let f = std::fs::File::options()
            .write(true)
            .open(f.unwrap().path())
            .unwrap();
        f.set_modified(old).unwrap();
    }
    let kept = out_dir.join("1.json");
    std::fs::write(&kept, "old output").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&kept)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let newer = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for n in 0..4 {
        let f = std::fs::File::options()
            .write(true)
            .open(input.join(format!("{n}.json")))
            .unwrap();
        f.set_modified(if n == 1 {
            std::time::SystemTime::now()
        } else {
            newer - std::time::Duration::from_secs(7200)
        })
        .unwrap();
    }
    let out = convert(&["--to", "json", "--out-dir", o, i]);
    let err = stderr(&out);
    assert!(
        err.contains(
            "4 skipped (output exists; --force), 1 of them older than their input (--update)"
        ),
        "{err}"
    );
    assert_eq!(std::fs::read(&kept).unwrap(), b"old output");
    let out = convert(&["--to", "json", "--update", "--out-dir", o, i]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("3 skipped") && err.starts_with("toolsift: 4 files, 1 conversation"),
        "{err}"
    );
    assert_ne!(std::fs::read(&kept).unwrap(), b"old output");
}

#[test]
fn out_dir_and_inputs_never_overlap_and_an_empty_folder_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    let od = tmp.path().join("od");
    std::fs::create_dir(&od).unwrap();
    let history = std::fs::read(root().join("fixtures/mandrake/legacy-xml-history.json")).unwrap();
    std::fs::write(od.join("x.json"), &history).unwrap();
    let run = |args: &[&str]| {
        toolsift()
            .current_dir(tmp.path())
            .args(["convert", "--to", "json"])
            .args(args)
            .output()
            .unwrap()
    };
    // The output directory is the input directory: each output would be its input.
    let out = run(&["--out-dir", "od", "od/"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("would replace its input"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(od.join("x.json")).unwrap(), history);
    // A named file whose path as given, under the output directory, is itself.
    let out = run(&["--out-dir", ".", "od/x.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read(od.join("x.json")).unwrap(), history);
    // The output directory above the input: outputs at the paths relative to it.
    let out = run(&["--out-dir", ".", "od/"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tmp.path().join("x.json").is_file());
    // An empty folder: said, not silence.
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let out = run(&["--out-dir", "out", "empty"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("0 files"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to convert"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn dry_run_writes_nothing_anywhere_and_documents_do_not_run_together() {
    let out = convert(&[
        "--to",
        "json",
        "--dry-run",
        "fixtures/convert/mandrake/notes-session.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("would write") && stderr(&out).contains("standard output"));
    // Several documents to one standard output: refused, or one per line.
    let out = convert(&["--to", "openai", "fixtures/convert/mandrake"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let out = convert(&["--to", "openai", "--compact", "fixtures/convert/mandrake"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
}

#[test]
fn output_in_a_missing_directory_is_refused_as_extract_does() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("no/such/dir/x.json");
    let out = convert(&[
        "--to",
        "json",
        "fixtures/convert/mandrake/notes-session.json",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
    assert!(!tmp.path().join("no").exists());
    let out = toolsift()
        .args([
            "extract",
            "fixtures/openai-chat/parallel-tool-calls.json",
            "-o",
            target.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn io_errors_are_words_on_the_users_paths() {
    let out = convert(&["--to", "json", "no-such-file.json"]);
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(
        err.contains("no-such-file.json: No such file or directory"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
    // An output directory that cannot be written (a file stands where it would be).
    let tmp = tempfile::tempdir().unwrap();
    let blocked = tmp.path().join("blocked");
    std::fs::write(&blocked, "a file").unwrap();
    let out = convert(&[
        "--to",
        "json",
        "--out-dir",
        blocked.join("sub").to_str().unwrap(),
        "fixtures/convert/mandrake/notes-session.json",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        !err.contains("os error") && !err.contains("toolsift-tmp"),
        "{err}"
    );
}

/// Files of one name in several folders, named one by one (as a shell glob names Cline
/// task folders), keep their folders under --out-dir, as `cp --parents` does.
#[test]
fn named_files_keep_their_paths_under_out_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let out = convert(&[
        "--to",
        "json",
        "--out-dir",
        out_dir.to_str().unwrap(),
        "fixtures/convert/cline/task-1/api_conversation_history.json",
        "fixtures/convert/cline/task-2/api_conversation_history.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        tree(&out_dir),
        [
            "fixtures/convert/cline/task-1/api_conversation_history.json",
            "fixtures/convert/cline/task-2/api_conversation_history.json"
        ]
    );
}

/// The calls and results of `file` converted to canonical JSON, in order, and the
/// names of the calls no result answers.
fn pairing(file: &str) -> (Vec<Value>, Vec<Value>, Vec<String>) {
    let out = convert(&["--to", "json", file]);
    assert!(out.status.success(), "{file}: {}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let parts: Vec<Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap().clone())
        .collect();
    let of = |kind: &str| -> Vec<Value> {
        parts
            .iter()
            .filter(|p| p["type"] == kind)
            .cloned()
            .collect()
    };
    let (calls, results) = (of("call"), of("result"));
    let open = calls
        .iter()
        .filter(|c| !results.iter().any(|r| r["call_id"] == c["id"]))
        .map(|c| c["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    (calls, results, open)
}

/// The records of `extract --with-results` of `file` of one type.
fn extracted(file: &str, kind: &str) -> Vec<Value> {
    let out = toolsift()
        .args(["extract", "--with-results", file])
        .output()
        .unwrap();
    assert!(out.status.success(), "{file}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == kind)
        .collect()
}

#[test]
fn swe_agent_observations_are_the_results_of_their_actions() {
    for file in [
        "fixtures/swe-agent/xml-actions.traj",
        "fixtures/swe-agent/function-calling.traj",
        "fixtures/corpus/swe-agent/function_calling_simple.traj",
        "fixtures/corpus/swe-agent/gpt4-test-repo-6e44b9.traj",
        "fixtures/corpus/swe-agent/marshmallow-1867-xml.traj",
        "fixtures/corpus/swe-agent/pydicom-1458-thought-action.traj",
    ] {
        let (calls, results, open) = pairing(file);
        assert!(open.is_empty(), "{file}: unanswered {open:?}");
        assert_eq!(calls.len(), results.len(), "{file}");
        // The same calls as extract, the final submit step included.
        let names: Vec<&str> = calls.iter().map(|c| c["name"].as_str().unwrap()).collect();
        let want = extracted(file, "call");
        let want: Vec<&str> = want.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, want, "{file}");
        let last = &calls.last().unwrap()["arguments"];
        assert!(
            names.last() == Some(&"submit") || last["command"].as_str().unwrap().trim() == "submit",
            "{file}: {last}"
        );
        // extract reads every observation as a result too.
        assert_eq!(extracted(file, "result").len(), calls.len(), "{file}");
    }
    // The submit step that only the trajectory holds comes with its observation.
    let (calls, results, _) = pairing("fixtures/corpus/swe-agent/gpt4-test-repo-6e44b9.traj");
    assert_eq!(calls.last().unwrap()["name"], "submit");
    let diff = results.last().unwrap()["content"].as_str().unwrap();
    assert!(
        diff.contains("diff --git a/tests/missing_colon.py"),
        "{diff}"
    );
}

#[test]
fn cline_text_results_answer_native_tool_use_calls() {
    let file = "fixtures/cline/native-tool-use/api_conversation_history.json";
    let (calls, results, open) = pairing(file);
    assert_eq!((calls.len(), results.len()), (6, 5), "{results:?}");
    // Only the final attempt_completion, which nothing answers.
    assert_eq!(open, ["attempt_completion"]);
    for r in &results {
        let call = calls.iter().find(|c| c["id"] == r["call_id"]).unwrap();
        assert_eq!(call["name"], r["name"], "{r}");
        assert!(call["id"].as_str().unwrap().starts_with("toolu_"), "{call}");
    }
    let error = |name: &str| {
        results.iter().find(|r| r["name"] == name).unwrap()["is_error"]
            .as_bool()
            .unwrap_or(false)
    };
    assert!(error("list_files") && error("search_files") && !error("read_file"));
    // The failure right after its header is that result's content, not user text.
    let search = results
        .iter()
        .find(|r| r["name"] == "search_files")
        .unwrap();
    assert!(
        search["content"]
            .as_str()
            .unwrap()
            .contains("unclosed group")
    );
    // extract reads the same results, with the ids of the calls they answer.
    let ids: Vec<Value> = extracted(file, "result")
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    let want: Vec<Value> = results.iter().map(|r| r["call_id"].clone()).collect();
    assert_eq!(ids, want);
}

#[test]
fn a_cline_failure_after_its_header_is_one_error_result() {
    let file = "fixtures/convert/cline/task-1/api_conversation_history.json";
    let out = convert(&["--to", "json", file]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = doc["messages"].as_array().unwrap();
    let failed: Vec<&Value> = messages
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| {
            p["type"] == "result"
                && p["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("The tool execution failed"))
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["is_error"], true);
    assert_eq!(failed[0]["name"], "execute_command");
    // No empty result for the header, no failure left as user text.
    for m in messages {
        for p in m["parts"].as_array().unwrap() {
            assert!(p["content"] != "", "{p}");
            if p["type"] == "text" {
                let t = p["text"].as_str().unwrap();
                assert!(!t.starts_with("The tool execution failed"), "{t}");
            }
        }
    }
    let (_, _, open) = pairing("fixtures/convert/cline/task-2/api_conversation_history.json");
    // The read_file cut off by "[Response interrupted by a tool use result…]" never ran;
    // the last attempt_completion has no reply.
    assert_eq!(open, ["read_file", "attempt_completion"]);
}

#[test]
fn results_of_recordings_answer_calls_replayed_under_other_ids() {
    for file in [
        "fixtures/corpus/cassettes/llm-tools-streaming-variant-c.yaml",
        "fixtures/corpus/cassettes/llm-gemini-tools-gzip-binary.yaml",
        "fixtures/corpus/cassettes/pydantic-ai-bedrock-mantle-reused-tool-call-ids-stream.yaml",
        "fixtures/corpus/cassettes/pydantic-ai-google-sse-tool-call-thought-signature.yaml",
    ] {
        let (calls, results, open) = pairing(file);
        assert!(open.is_empty(), "{file}: unanswered {open:?}");
        assert_eq!(calls.len(), results.len(), "{file}");
        // extract gives a result the id of the call it answers, when the call has one.
        let ids: Vec<Value> = extracted(file, "call")
            .iter()
            .filter_map(|c| c.get("id").cloned())
            .collect();
        for id in &ids {
            assert!(
                extracted(file, "result").iter().any(|r| r["id"] == *id),
                "{file}: {id}"
            );
        }
    }
    let (calls, _, _) = pairing("fixtures/corpus/cassettes/llm-tools-streaming-variant-c.yaml");
    assert_eq!(calls[0]["id"], "llm_version:0");
}

#[test]
fn responses_calls_keep_their_full_names_and_hosted_tools_are_calls() {
    // Codex's namespaced calls: the name the model called, in every target.
    for file in [
        "fixtures/codex/rollout.jsonl",
        "fixtures/corpus/codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        "fixtures/corpus/codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
        "fixtures/openai-responses/shell-call.json",
    ] {
        let (calls, _, _) = pairing(file);
        let names: Vec<&str> = calls.iter().map(|c| c["name"].as_str().unwrap()).collect();
        let want = extracted(file, "call");
        let want: Vec<&str> = want.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, want, "{file}");
    }
    for to in ["openai", "anthropic", "gemini", "responses"] {
        let out = convert(&["--to", to, "fixtures/codex/rollout.jsonl"]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("\"mcp__node_repl__js\""), "{to}: {text}");
    }
    // A remote MCP call carries its output (or error) as its result.
    let dir = std::env::temp_dir().join(format!("toolsift-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    std::fs::write(
        &file,
        r#"{"id":"resp_1","object":"response","output":[
{"id":"mcp_1","type":"mcp_call","server_label":"deepwiki","name":"ask_question","arguments":"{\"q\":\"a\"}","output":"an answer","error":null,"status":"completed"},
{"id":"mcp_2","type":"mcp_call","server_label":"deepwiki","name":"ask_question","arguments":"{\"q\":\"b\"}","output":null,"error":"timed out","status":"failed"},
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}]}"#,
    )
    .unwrap();
    let (calls, results, open) = pairing(file.to_str().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((calls.len(), results.len()), (2, 2));
    assert!(open.is_empty(), "{open:?}");
    assert_eq!(results[0]["content"], "an answer");
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(calls[0]["namespace"], "deepwiki");
}

#[test]
fn claude_code_tool_results_each_answer_their_tool_use() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("fixtures/corpus/claude-code"))
        .unwrap()
        .map(|e| rel(&e.unwrap().path()))
        .collect();
    files.sort();
    for file in &files {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let mut uses = 0;
        let mut answers = 0;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            for b in v["message"]["content"].as_array().into_iter().flatten() {
                uses += usize::from(b["type"] == "tool_use");
                answers += usize::from(b["type"] == "tool_result");
            }
        }
        let (calls, results, _) = pairing(file);
        let native: Vec<&Value> = calls
            .iter()
            .filter(|c| c["id"].as_str().is_some_and(|i| i.starts_with("toolu_")))
            .collect();
        assert_eq!((native.len(), results.len()), (uses, answers), "{file}");
        for r in &results {
            assert!(
                native.iter().any(|c| c["id"] == r["call_id"]),
                "{file}: {r}"
            );
        }
    }
    // Parallel calls over three lines of one message, answered in one line and in
    // several: every result a functionResponse of its own in Gemini.
    let call = |id: &str, n: u32| {
        format!(
            r#"{{"parentUuid":"p","sessionId":"s","type":"assistant","uuid":"a{n}","message":{{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"/f{n}"}}}}]}}}}"#
        )
    };
    let result = |ids: &[&str], n: u32| {
        let blocks: Vec<String> = ids
            .iter()
            .map(|id| {
                format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":"c {id}"}}"#)
            })
            .collect();
        format!(
            r#"{{"parentUuid":"p","sessionId":"s","type":"user","uuid":"u{n}","message":{{"role":"user","content":[{}]}}}}"#,
            blocks.join(",")
        )
    };
    let dir = std::env::temp_dir().join(format!("toolsift-cc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, lines) in [
        (
            "one-line.jsonl",
            vec![
                call("toolu_1", 1),
                call("toolu_2", 2),
                call("toolu_3", 3),
                result(&["toolu_1", "toolu_2", "toolu_3"], 4),
            ],
        ),
        (
            "several-lines.jsonl",
            vec![
                call("toolu_1", 1),
                call("toolu_2", 2),
                call("toolu_3", 3),
                result(&["toolu_1"], 4),
                result(&["toolu_2"], 5),
                result(&["toolu_3"], 6),
            ],
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let f = file.to_str().unwrap();
        let (calls, results, open) = pairing(f);
        assert_eq!((calls.len(), results.len()), (3, 3), "{name}");
        assert!(open.is_empty(), "{name}: {open:?}");
        let out = convert(&["--to", "gemini", f]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            text.matches("\"functionCall\"").count(),
            3,
            "{name}: {text}"
        );
        assert_eq!(
            text.matches("\"functionResponse\"").count(),
            3,
            "{name}: {text}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A document's call parts, each as (name, id).
fn call_parts(doc: &Value) -> Vec<(String, String)> {
    doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "call")
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or_default().to_owned();
            (s("name"), s("id"))
        })
        .collect()
}

#[test]
fn server_tool_calls_are_calls_and_go_back_to_anthropic_as_server_tools() {
    // A `server_tool_use` block (web search, code execution) is a call, as extract has it.
    let file = "fixtures/anthropic/message.json";
    let out = convert(&["--to", "json", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = call_parts(&doc);
    assert_eq!(
        calls.last(),
        Some(&("web_search".into(), "srvtoolu_01C".into())),
        "{calls:?}"
    );
    // Anthropic gets it back as the server's call, from the source or the canonical form.
    let dir = tempfile::tempdir().unwrap();
    let canonical = dir.path().join("message.json");
    std::fs::write(&canonical, &out.stdout).unwrap();
    for from in [file, canonical.to_str().unwrap()] {
        let out = convert(&["--to", "anthropic", from]);
        assert!(out.status.success(), "{}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let blocks = doc["messages"][0]["content"].as_array().unwrap();
        let kinds: Vec<&str> = blocks.iter().filter_map(|b| b["type"].as_str()).collect();
        assert_eq!(
            kinds,
            [
                "thinking",
                "text",
                "tool_use",
                "tool_use",
                "server_tool_use"
            ],
            "{from}"
        );
    }
    // Other formats have one kind of call: it is a function call there.
    let out = convert(&["--to", "openai", file]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["messages"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["get_weather", "get_time", "web_search"]);
}

#[test]
fn langchain_messages_convert_as_messages() {
    // Message dicts (`{"type": "ai", "data": {…}}`) and `dumpd` constructors, read as
    // extract reads them: roles, calls (an invalid one with its text), results.
    for (file, roles, calls, errors) in [
        (
            "fixtures/langchain/messages.json",
            &["user", "assistant", "tool", "tool"][..],
            &["multiply", "add", "divide"][..],
            0,
        ),
        (
            "fixtures/langchain/dumpd-messages.json",
            &[
                "system",
                "user",
                "assistant",
                "tool",
                "assistant",
                "tool",
                "assistant",
            ][..],
            &["get_weather", "get_forecast"][..],
            1,
        ),
    ] {
        let out = convert(&["--to", "json", file]);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let messages = doc["messages"].as_array().unwrap();
        let got: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
        assert_eq!(got, roles, "{file}");
        let names: Vec<String> = call_parts(&doc).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, calls, "{file}");
        let parts = || messages.iter().flat_map(|m| m["parts"].as_array().unwrap());
        let failed = parts()
            .filter(|p| p["type"] == "result" && p["is_error"] == true)
            .count();
        assert_eq!(failed, errors, "{file}");
        // Every result answers a call, by its id.
        for r in parts().filter(|p| p["type"] == "result") {
            assert!(
                call_parts(&doc)
                    .iter()
                    .any(|(_, id)| r["call_id"] == id.as_str()),
                "{file}: {r}"
            );
        }
        // The invalid call keeps the text the model wrote.
        if file.ends_with("/messages.json") {
            let divide = parts().find(|p| p["name"] == "divide").unwrap();
            assert_eq!(divide["arguments_raw"], "{\"a\": 1, \"b\":", "{divide}");
        }
        // An API gets the canonical roles, not LangChain's.
        let out = convert(&["--to", "openai", file]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got: Vec<&str> = doc
            .as_array()
            .or(doc["messages"].as_array())
            .unwrap()
            .iter()
            .filter_map(|m| m["role"].as_str())
            .collect();
        // The invalid call no result answers is the last turn's: it goes after the
        // results of its message's other calls.
        let mut api_roles = roles.to_vec();
        if file.ends_with("/messages.json") {
            api_roles.push("assistant");
        }
        assert_eq!(got, api_roles, "{file}");
    }
}

#[test]
fn calls_inside_reasoning_stay_in_the_reasoning() {
    // A prefilled `<think>` leaves the reasoning open: what comes before the bare
    // `</think>` is the model weighing a call, which stays the text it is.
    let file = "fixtures/reasoning/prefilled-think.json";
    let out = convert(&["--to", "json", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = doc["messages"][1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "call")
        .map(|p| p["arguments"]["city"].as_str().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(calls, ["Paris"]);
    assert!(
        doc["messages"][1]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains(r#"{"name": "get_weather", "arguments": {"city": "Rome"}}"#),
        "{doc}"
    );
    // Also when the message has no other call: a conversion keeps the reasoning as the
    // model wrote it, where extract's default (`--reasoning fallback`) reports the call.
    let dir = tempfile::tempdir().unwrap();
    let only = dir.path().join("only-in-reasoning.json");
    let text = "Maybe {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}.\n</think>\n\nI need to know the city.";
    let history = serde_json::json!({"messages": [
        {"role": "user", "content": "What's the weather?"},
        {"role": "assistant", "content": text},
    ]});
    std::fs::write(&only, history.to_string()).unwrap();
    let only = only.to_str().unwrap();
    let out = convert(&["--to", "json", only]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(call_parts(&doc), vec![], "{doc}");
    assert_eq!(doc["messages"][1]["parts"][0]["text"], text);
    let calls = |args: &[&str]| common::extract(args).iter().filter(|r| r.is_call()).count();
    assert_eq!(calls(&[only]), 1);
    assert_eq!(calls(&["--reasoning", "exclude", only]), 0);
}

#[test]
fn a_call_a_notebook_output_prints_again_is_one_call() {
    // The last output re-prints the prefilled completion (the call and its result)
    // before the answer: a copy, which stays the text it is, as extract reads it.
    let file = "fixtures/corpus/anthropic-legacy-xml/function_calling.ipynb";
    let out = convert(&["--to", "json", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = call_parts(&doc);
    assert_eq!(calls.len(), 1, "{calls:?}");
    let parts: Vec<&Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .collect();
    let results: Vec<&Value> = parts
        .iter()
        .filter(|p| p["type"] == "result")
        .copied()
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["call_id"], calls[0].1.as_str());
    let last = doc["messages"].as_array().unwrap().last().unwrap();
    let text = last["parts"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("<invoke>") && text.contains("<function_results>"),
        "{text}"
    );
}

/// Every fixture, as `convert` may be handed it: all but the API schemas (request
/// bodies, not transcripts) and the notes and scripts beside the fixtures.
fn every_fixture() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root().join("fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("api-schemas") {
                    stack.push(path);
                }
            } else if !matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "py")) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// One call as both commands say it: name, namespace (both write it apart from the
/// name), arguments (as values, with the text that is not an object) and id.
#[derive(Debug, PartialEq)]
struct Said {
    name: String,
    namespace: Option<String>,
    arguments: Value,
    arguments_raw: Option<String>,
    id: Option<String>,
}

impl std::fmt::Display for Said {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(ns) = &self.namespace {
            write!(f, "{ns}/")?;
        }
        write!(f, "{} {}", self.name, self.arguments)?;
        if let Some(raw) = &self.arguments_raw {
            write!(f, " raw={raw:?}")?;
        }
        if let Some(id) = &self.id {
            write!(f, " id={id}")?;
        }
        Ok(())
    }
}

/// The calls `extract FILE` reports, in order. A conversion keeps calls inside the
/// model's reasoning in the reasoning, also when the turn has no other (README,
/// `convert`): its calls are extract's with `--reasoning exclude`, where the default
/// (`fallback`) would report such a call.
fn extracted_calls(file: &str) -> Vec<Said> {
    let out = toolsift()
        .args(["extract", "--reasoning", "exclude", file])
        .output()
        .unwrap();
    common::records(&out.stdout)
        .into_iter()
        .filter_map(|r| match r {
            common::Record::Call {
                name,
                namespace,
                arguments,
                arguments_raw,
                id,
                ..
            } => Some(Said {
                name,
                namespace,
                arguments: Value::Object(arguments),
                arguments_raw,
                id,
            }),
            _ => None,
        })
        .collect()
}

/// The calls of `convert --to json FILE`'s output, in order; JSON Lines give one
/// conversation a line, read one after another. `None` when convert refuses the file.
fn converted_calls(file: &str) -> Option<Vec<Said>> {
    let out = convert(&["--to", "json", file]);
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    let mut calls = Vec::new();
    for doc in stream {
        let doc = doc.unwrap_or_else(|e| panic!("{file}: output is not JSON: {e}"));
        for m in doc["messages"].as_array().expect("messages") {
            for p in m["parts"].as_array().expect("parts") {
                if p["type"] != "call" {
                    continue;
                }
                let s = |k: &str| p[k].as_str().map(str::to_owned);
                calls.push(Said {
                    name: s("name").expect("a call has a name"),
                    namespace: s("namespace"),
                    arguments: p["arguments"].clone(),
                    arguments_raw: s("arguments_raw"),
                    id: s("id"),
                });
            }
        }
    }
    Some(calls)
}

/// The property: every fixture in which extract finds a call converts, and for every
/// fixture `convert --to json` accepts (all of them but the API schemas, which are no
/// transcripts, and the notes and scripts), its calls are
/// extract's calls, in order, with the same names, namespaces and arguments, and the
/// same ids and argument text wherever extract gives them. The failure lists every
/// file that differs, with both lists of calls.
#[test]
fn converted_calls_are_the_calls_extract_reports() {
    let mut checked = 0;
    let mut differing = Vec::new();
    for path in every_fixture() {
        let file = rel(&path);
        // A turn whose native call is broken: extract falls back to the call in its
        // text, convert keeps the native call as written (docs/convert.md).
        if file == "fixtures/channels/fallback.jsonl" {
            continue;
        }
        let Some(converted) = converted_calls(&file) else {
            // Refused: then extract finds no call in it either (a stream of a kind
            // extract reassembles converts through extract's reader).
            let extracted = extracted_calls(&file);
            if !extracted.is_empty() {
                differing.push(format!(
                    "{file}\n  convert refuses it; extract finds {} calls",
                    extracted.len()
                ));
            }
            continue;
        };
        checked += 1;
        let mut extracted = extracted_calls(&file);
        // An id is compared only where extract reports one: convert makes one up for a
        // call without. So is argument text that is not an object: convert also keeps
        // the text of an object encoded twice, which extract repairs (README).
        let mut converted = converted;
        for (e, c) in extracted.iter_mut().zip(converted.iter_mut()) {
            if e.id.is_none() {
                c.id = None;
            }
            if e.arguments_raw.is_none() {
                c.arguments_raw = None;
            }
        }
        if extracted != converted {
            let list = |calls: &[Said]| {
                calls
                    .iter()
                    .map(|c| format!("\n    {c}"))
                    .collect::<String>()
            };
            differing.push(format!(
                "{file}\n  extract ({}):{}\n  convert ({}):{}",
                extracted.len(),
                list(&extracted),
                converted.len(),
                list(&converted)
            ));
        }
    }
    assert!(checked >= 200, "only {checked} fixtures converted");
    assert!(
        differing.is_empty(),
        "{} of {checked} fixtures: convert's calls are not extract's:\n{}",
        differing.len(),
        differing.join("\n")
    );
}

/// Each JSON document of `out` (one, or one a line), with every `arguments` string
/// read as the JSON it holds: the white space a model wrote inside its arguments is
/// not kept by the canonical transcript, whose arguments are a value.
fn requests(out: &[u8]) -> Vec<Value> {
    fn arguments_as_values(v: &mut Value) {
        match v {
            Value::Object(members) => {
                for (k, x) in members.iter_mut() {
                    if k == "arguments"
                        && let Some(parsed) = x.as_str().and_then(|s| serde_json::from_str(s).ok())
                    {
                        *x = parsed;
                    }
                    arguments_as_values(x);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(arguments_as_values),
            _ => {}
        }
    }
    serde_json::Deserializer::from_slice(out)
        .into_iter::<Value>()
        .map(|d| {
            let mut d = d.expect("output is JSON");
            arguments_as_values(&mut d);
            d
        })
        .collect()
}

/// The canonical transcript is a whole stop on the way: for every fixture it accepts,
/// each API target written from `convert --to json FILE`'s output is the one written
/// from FILE (ids, order, results, the conversations a recording holds, thinking's
/// signatures, arguments and results an object's file layout held), but for the white
/// space a model wrote inside its argument text.
#[test]
fn a_target_written_from_the_canonical_transcript_is_the_one_written_from_the_source() {
    let tmp = tempfile::tempdir().unwrap();
    let canonical = tmp.path().join("canonical.json");
    let mut checked = 0;
    let mut differing = Vec::new();
    for path in every_fixture() {
        let file = rel(&path);
        let out = convert(&["--to", "json", &file]);
        if !out.status.success() {
            continue;
        }
        std::fs::write(&canonical, &out.stdout).unwrap();
        checked += 1;
        for to in ["openai", "anthropic", "gemini", "responses"] {
            let direct = convert(&["--to", to, &file]);
            let via = convert(&["--to", to, canonical.to_str().unwrap()]);
            if direct.status.code() != via.status.code()
                || requests(&direct.stdout) != requests(&via.stdout)
            {
                differing.push(format!("{file} --to {to}"));
            }
        }
    }
    assert!(checked >= 200, "only {checked} fixtures converted");
    assert!(
        differing.is_empty(),
        "{} conversions differ through the canonical transcript:\n{}",
        differing.len(),
        differing.join("\n")
    );
}

/// An --out-dir inside the directory converted: a second run does not read the first
/// run's outputs as inputs.
#[test]
fn outputs_under_an_out_dir_inside_the_input_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(
        root().join("fixtures/mandrake/legacy-xml-history.json"),
        input.join("a.json"),
    )
    .unwrap();
    let out_dir = input.join("out");
    let run = || {
        convert(&[
            "--to",
            "json",
            "--out-dir",
            out_dir.to_str().unwrap(),
            input.to_str().unwrap(),
        ])
    };
    assert!(run().status.success());
    let out = run();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("1 file under --out-dir not read"), "{err}");
    assert_eq!(tree(&out_dir), ["a.json"]);
}

/// A Claude Code session that logs its subagents' conversations inline converts, for
/// each API target, to the session and then each subagent's conversation, one per
/// line: every call of the session is in the output, none in the middle of another
/// conversation.
#[test]
fn subagents_of_a_session_are_conversations_of_their_own_in_api_targets() {
    let source = "fixtures/corpus/claude-code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl";
    let key = |calls: Vec<Said>| {
        let mut keys: Vec<String> = calls
            .iter()
            .map(|c| format!("{} {}", c.name, c.arguments))
            .collect();
        keys.sort();
        keys
    };
    let expected = key(extracted_calls(source));
    assert!(expected.len() > 100, "{}", expected.len());
    let dir = tempfile::tempdir().unwrap();
    for to in ["openai", "anthropic", "gemini", "responses"] {
        let out = toolsift()
            .args(["convert", "--verify", "--to", to, source])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{to}: {stderr}");
        assert!(
            stderr.contains("written as 5 conversations of their own"),
            "{to}: {stderr}"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), 6, "{to}");
        let written = dir.path().join(format!("out.{to}.jsonl"));
        std::fs::write(&written, &text).unwrap();
        let got = key(extracted_calls(written.to_str().unwrap()));
        assert_eq!(got, expected, "{to}");
    }
}

/// A native call that no result answers before the last turn (the user stopped it): by
/// default written as it is and `--verify` fails (the API would refuse it);
/// `--unanswered placeholder` answers it with a result saying none was recorded, which
/// every API target takes.
#[test]
fn unanswered_calls_fail_verify_unless_a_placeholder_answers_them() {
    let source = "fixtures/openai-chat/interrupted-call.json";
    for to in ["openai", "anthropic", "gemini", "responses"] {
        let out = toolsift()
            .args(["convert", "--verify", "--to", to, source])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{to}: {stderr}");
        assert!(stderr.contains("the API would refuse it"), "{to}: {stderr}");
        assert!(
            stderr.contains("--unanswered placeholder"),
            "{to}: {stderr}"
        );
        let out = toolsift()
            .args([
                "convert",
                "--verify",
                "--unanswered",
                "placeholder",
                "--to",
                to,
                source,
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{to}: {stderr}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("No result was recorded for this call."),
            "{to}"
        );
        assert!(text.contains("call_rm1"), "{to}");
    }
}

/// `--rename-tools safe` writes names Anthropic refuses (`agent:status`) in its alphabet,
/// on calls and results alike, and lists the mapping.
#[test]
fn rename_tools_safe_makes_every_name_one_anthropic_takes() {
    let source = "fixtures/ksi/agent-response.txt";
    let out = toolsift()
        .args(["convert", "--verify", "--to", "anthropic", source])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = toolsift()
        .args([
            "convert",
            "--verify",
            "--rename-tools",
            "safe",
            "--to",
            "anthropic",
            source,
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("agent:status -> agent_status"), "{stderr}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"agent_status\"") && !text.contains("agent:status"));
}

/// A server tool's result (`code_execution_tool_result`) is a result in every target, as
/// extract reads it, and an Anthropic target writes it back as it was: in the assistant
/// message, beside its call, under its own block type.
#[test]
fn server_tool_results_are_results_and_go_back_to_anthropic_as_they_were() {
    let source = "fixtures/corpus/anthropic/anthropic-programmatic-tool-calling.1.json";
    let results = |file: &str| -> Vec<String> {
        let out = toolsift()
            .args(["extract", "--with-results", file])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"type\":\"result\""))
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                format!("{} {}", v["id"], v["content"])
            })
            .collect()
    };
    let expected = results(source);
    assert_eq!(expected.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    for to in ["json", "anthropic"] {
        let out = toolsift()
            .args(["convert", "--verify", "--to", to, source])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{to}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = dir.path().join(format!("out.{to}.json"));
        std::fs::write(&written, &out.stdout).unwrap();
        assert_eq!(results(written.to_str().unwrap()), expected, "{to}");
        if to == "anthropic" {
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            let messages = doc["messages"].as_array().unwrap();
            assert_eq!(messages.len(), 1);
            let kinds: Vec<&str> = messages[0]["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["type"].as_str().unwrap())
                .collect();
            assert_eq!(
                kinds,
                [
                    "text",
                    "server_tool_use",
                    "tool_use",
                    "tool_use",
                    "tool_use",
                    "tool_use",
                    "code_execution_tool_result",
                    "text"
                ]
            );
        }
    }
}

/// An OpenAI-compatible endpoint (Snowflake Cortex) writes a zero-valued
/// `"function_call": {"name": "", "arguments": ""}` in every message; all-empty
/// `tool_calls` entries and `custom` members are the same. None is a call, for extract
/// or convert, and none is mentioned.
#[test]
fn zero_valued_placeholders_are_no_calls() {
    let file = "fixtures/openai-chat/zero-valued-placeholders.json";
    let out = toolsift()
        .args(["extract", file])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(stderr(&out), "");
    let calls = common::records(&out.stdout);
    let names: Vec<_> = calls.iter().filter_map(|r| r.name()).collect();
    assert_eq!(names, ["get_weather"]);
    for target in ["json", "openai", "anthropic", "gemini", "responses"] {
        let out = convert(&["--to", target, &root().join(file).to_string_lossy()]);
        assert!(out.status.success(), "{target}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{target}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains("function_call\":"), "{target}: {text}");
        assert!(!text.contains("\"name\": \"\""), "{target}: {text}");
        if target == "json" {
            assert_eq!(text.matches("\"type\": \"call\"").count(), 1, "{text}");
        }
    }
}

/// The converted documents of `convert --verify --compact --to TO FILE` (one a line),
/// with its messages; the conversion must pass its verification.
fn converted_documents(to: &str, file: &str) -> (Vec<Value>, String) {
    let out = convert(&["--verify", "--compact", "--to", to, file]);
    let err = stderr(&out);
    assert!(out.status.success(), "{file} --to {to}: {err}");
    let docs = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (docs, err)
}

/// The Claude Agent SDK's messages name no role (the line's `type` is it), and a
/// subagent's lines name the call that started it (`parent_tool_use_id`): the session
/// and the subagent are each a conversation, every call answered in the next message.
#[test]
fn agent_sdk_messages_take_their_role_from_the_line_and_subagents_stand_apart() {
    let file = "fixtures/corpus/claude-agent-sdk/harness-subagent-step-stream.json";
    let (docs, err) = converted_documents("anthropic", file);
    assert_eq!(docs.len(), 2, "{err}");
    let shape = |doc: &Value| -> Vec<String> {
        doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let blocks: Vec<String> = match &m["content"] {
                    Value::Array(blocks) => blocks
                        .iter()
                        .map(|b| {
                            let id = b["id"].as_str().or(b["tool_use_id"].as_str());
                            format!("{}:{}", b["type"].as_str().unwrap(), id.unwrap_or(""))
                        })
                        .collect(),
                    Value::String(_) => vec!["text:".into()],
                    other => panic!("content {other}"),
                };
                format!("{} {}", m["role"].as_str().unwrap(), blocks.join(","))
            })
            .collect()
    };
    assert_eq!(
        shape(&docs[0]),
        [
            "assistant tool_use:toolu_main_agent",
            "user tool_result:toolu_main_agent"
        ]
    );
    assert_eq!(
        shape(&docs[1]),
        [
            "user text:",
            "assistant tool_use:toolu_subagent_pwd,tool_use:toolu_subagent_echo",
            "user tool_result:toolu_subagent_pwd,tool_result:toolu_subagent_echo"
        ]
    );
    assert!(
        err.contains("written as 1 conversation of their own"),
        "{err}"
    );
}

/// Mistral's reasoning models write their thinking as an array of text chunks: one
/// reasoning part of their text, before the answer's text.
#[test]
fn thinking_written_as_text_chunks_is_reasoning() {
    let (docs, _) =
        converted_documents("json", "fixtures/corpus/openai-chat/mistral-reasoning.json");
    let parts = &docs[0]["messages"][0]["parts"];
    assert_eq!(parts[0]["type"], "reasoning", "{parts}");
    assert_eq!(
        parts[0]["text"],
        "The user is asking for 2+2. This is basic arithmetic. 2+2=4."
    );
    assert_eq!(parts[1]["type"], "text");
    assert_eq!(parts[1]["text"], "2 + 2 = 4");
}

/// A result whose content is an empty array (a web search that found nothing) is
/// written as its JSON text where a result is text: an empty content array is refused.
#[test]
fn a_result_of_an_empty_array_is_written_as_its_text() {
    let file = "fixtures/corpus/anthropic/anthropic-web-search-tool.1.json";
    let answer = "srvtoolu_01HyorfKHSCsjCUVH6WHcNUC";
    let (docs, _) = converted_documents("openai", file);
    let tool = docs[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_call_id"] == answer)
        .expect("the empty result's tool message");
    assert_eq!(tool["content"], "[]");
    let (docs, _) = converted_documents("responses", file);
    let output = docs[0]["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output" && i["call_id"] == answer)
        .expect("the empty result's output");
    assert_eq!(output["output"], "[]");
}

/// A Responses response that repeats its input beside its output: its output's call
/// is in the conversation, after the input.
#[test]
fn a_response_that_repeats_its_input_keeps_its_output() {
    let file = "fixtures/corpus/openai-responses/parallel-tool-call-wrapper.1.json";
    let (docs, _) = converted_documents("openai", file);
    let calls = &docs[0]["messages"][0]["tool_calls"];
    assert_eq!(calls[0]["id"], "call_parallel", "{}", docs[0]);
    assert_eq!(calls[0]["function"]["name"], "parallel");
}

/// JSON Lines of conversations convert line by line: a later line of no known shape
/// fails as that line (only a first line of none makes the input one for extract's
/// reader), and a conversation that is not one fails as its line.
#[test]
fn a_line_of_no_known_shape_after_conversations_fails_as_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lines.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}"#,
            "\n",
            r#"{"event":"heartbeat","n":1}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = convert(&["--to", "json", file.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("line 2: no conversation of a known shape"),
        "{err}"
    );
}

/// A system message between two of the model's messages goes to `systemInstruction`;
/// the model's function-call message then follows another model turn, which Gemini
/// refuses: it joins that turn, and the notes say so.
#[test]
fn gemini_joins_a_call_turn_to_the_model_turn_before_it() {
    let doc = r#"{"messages":[
        {"role":"user","content":"Refund order 1."},
        {"role":"assistant","content":"I will load the tool."},
        {"role":"system","content":"The tool refund is now available."},
        {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"refund","arguments":"{\"order\":1}"}}]},
        {"role":"tool","tool_call_id":"c1","content":"done"}
    ]}"#;
    let out = toolsift()
        .args(["convert", "--to", "gemini", "--verify", "-"])
        .write_stdin(doc)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let written: Value = serde_json::from_slice(&out.stdout).unwrap();
    let turns: Vec<(String, Vec<String>)> = written["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let kinds = c["parts"].as_array().unwrap().iter();
            let kinds = kinds.map(|p| p.as_object().unwrap().keys().next().unwrap().clone());
            (c["role"].as_str().unwrap().to_owned(), kinds.collect())
        })
        .collect();
    let expected = [
        ("user", vec!["text"]),
        ("model", vec!["text", "functionCall"]),
        ("user", vec!["functionResponse"]),
    ]
    .map(|(r, k)| {
        (
            r.to_owned(),
            k.into_iter().map(String::from).collect::<Vec<_>>(),
        )
    });
    assert_eq!(turns, expected);
    assert!(
        stderr(&out).contains("1 model turn with function calls joined"),
        "{}",
        stderr(&out)
    );
}

/// An Anthropic `tool_result` without content: `extract` reports its content as null,
/// `convert --to json` holds null too, and Anthropic gets a block without content
/// back (a null result is none, not the text `null`).
#[test]
fn a_result_without_content_is_null_and_written_back_without_content() {
    let doc = r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]}]}"#;
    let extracted = toolsift()
        .args(["extract", "--with-results", "-"])
        .write_stdin(doc)
        .output()
        .unwrap();
    let result = String::from_utf8(extracted.stdout).unwrap();
    let result: Value = serde_json::from_str(result.lines().nth(1).unwrap()).unwrap();
    assert_eq!(result["content"], Value::Null);
    let json = toolsift()
        .args(["convert", "--to", "json", "-"])
        .write_stdin(doc)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["messages"][1]["parts"][0]["content"], Value::Null);
    let anthropic = toolsift()
        .args(["convert", "--to", "anthropic", "--verify", "-"])
        .write_stdin(doc)
        .output()
        .unwrap();
    assert!(anthropic.status.success(), "{}", stderr(&anthropic));
    let anthropic: Value = serde_json::from_slice(&anthropic.stdout).unwrap();
    assert_eq!(
        anthropic["messages"][1]["content"][0],
        serde_json::json!({"type": "tool_result", "tool_use_id": "t1"})
    );
}

/// JSON Lines whose first line is cut (a capture that starts or was trimmed mid-record)
/// are no JSON document: they convert as `extract` reads them, the calls of the other
/// lines kept, instead of failing as "not JSON".
#[test]
fn json_lines_with_a_cut_first_line_convert_as_extract_reads_them() {
    let text = concat!(
        r#"{"type":"response.created","response":{"id":"resp_1","status":"in_pro"#,
        "\n",
        r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}}"#,
        "\n"
    );
    let out = toolsift()
        .args(["convert", "--to", "json", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("JSON Lines whose first line is not JSON"),
        "{}",
        stderr(&out)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls: Vec<&Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "call")
        .collect();
    assert_eq!(calls.len(), 1, "{doc}");
    assert_eq!(calls[0]["name"], "weather");
    assert_eq!(calls[0]["id"], "call_1");
    // A document that is only broken still fails as what it is.
    let broken = toolsift()
        .args(["convert", "--to", "json", "-"])
        .write_stdin("{\"messages\": [\n{\"role\": \"user\"\n")
        .output()
        .unwrap();
    assert!(!broken.status.success());
    assert!(
        stderr(&broken).contains("-: not JSON: EOF while parsing"),
        "{}",
        stderr(&broken)
    );
}

/// A replayed SWE-agent trajectory reuses the ids of the run it replays: the same
/// command run twice in its history, with the same id, is two calls (each history
/// message is a step of its own), in `extract` as in `convert`.
#[test]
fn a_swe_agent_command_run_twice_with_one_id_is_two_calls() {
    let step = |output: &str| {
        format!(
            r#"{{"role":"assistant","content":"Run it.","thought":"Run it.","action":"python reproduce.py","agent":"main","tool_calls":[{{"id":"call_1","type":"function","function":{{"name":"bash","arguments":"{{\"command\":\"python reproduce.py\"}}"}}}}],"message_type":"action"}},{{"role":"tool","content":"{output}","tool_call_ids":["call_1"],"agent":"main","message_type":"observation"}}"#
        )
    };
    let trajectory = format!(
        r#"{{"history":[{{"role":"user","content":"Fix it.","agent":"main","message_type":"user"}},{},{}],"trajectory":[],"info":{{}}}}"#,
        step("345"),
        step("344")
    );
    let extracted = toolsift()
        .args(["extract", "--with-results", "-"])
        .write_stdin(trajectory.as_str())
        .output()
        .unwrap();
    let records: Vec<Value> = String::from_utf8(extracted.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<String> = records
        .iter()
        .map(|r| format!("{} {}", r["type"].as_str().unwrap(), r["id"]))
        .collect();
    assert_eq!(
        kinds,
        [
            "call \"call_1\"",
            "result \"call_1\"",
            "call \"call_1\"",
            "result \"call_1\""
        ]
    );
    let converted = toolsift()
        .args(["convert", "--to", "json", "-"])
        .write_stdin(trajectory.as_str())
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&converted.stdout).unwrap();
    let calls = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "call")
        .count();
    assert_eq!(calls, 2, "{doc}");
    // The transcript written keeps each part once: read again, both calls are there.
    let again = toolsift()
        .args(["extract", "-"])
        .write_stdin(converted.stdout)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap().lines().count(), 2);
}

#[test]
fn an_anthropic_streams_signed_thinking_goes_back_to_anthropic_with_its_signature() {
    // Anthropic takes thinking back only with the signature its stream gave it (a
    // `signature_delta`); other targets have no field for it, and say so.
    let file = "fixtures/anthropic/stream-thinking.sse";
    let out = convert(&["--to", "anthropic", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["messages"][0]["content"][0],
        serde_json::json!({
            "type": "thinking",
            "thinking": "The user wants the weather; I will call get_weather.",
            "signature": "EqQBCkYIARgCIkCsig0"
        })
    );
    assert!(!stderr(&out).contains("reasoning part"), "{}", stderr(&out));
    let out = convert(&["--to", "gemini", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("reasoning fields of the source format not written (signature)"),
        "{}",
        stderr(&out)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("EqQBCkYIARgCIkCsig0"));
}

#[test]
fn a_recording_of_two_conversations_converts_to_two_requests() {
    // A manager agent delegates to a worker, whose conversation opens with its own
    // system prompt, then goes on: each request continues the conversation that opened
    // as it opens, so each API request holds one conversation, its calls answered.
    let file = "fixtures/corpus/cassettes/crewai-delegation-returns-to-the-manager.yaml";
    let out = convert(&["--verify", "--to", "openai", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shape = |doc: &Value| -> Vec<String> {
        doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let calls: Vec<&str> = m["tool_calls"]
                    .as_array()
                    .map(|c| {
                        c.iter()
                            .filter_map(|c| c["function"]["name"].as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                format!("{} {}", m["role"].as_str().unwrap(), calls.join(","))
            })
            .collect()
    };
    assert_eq!(
        lines.iter().map(shape).collect::<Vec<_>>(),
        [
            [
                "system ",
                "user ",
                "assistant Delegate_work_to_coworker",
                "tool ",
                "user ",
                "assistant "
            ],
            [
                "system ",
                "user ",
                "assistant scoring_examples",
                "tool ",
                "user ",
                "assistant "
            ],
        ]
    );
    assert!(stderr(&out).contains("its requests hold 2 conversations"));
    // `json` keeps the recording as it came, one document.
    let out = convert(&["--to", "json", file]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["messages"].as_array().unwrap().len(), 12);
}

#[test]
fn replayed_gemini_results_without_ids_answer_their_own_calls_once() {
    // Each request replays every functionResponse so far, by tool name only; the
    // second web_search is open when the first one's result is replayed.
    let file = "fixtures/corpus/cassettes/crewai-gemini-planner-then-worker.yaml";
    let out = convert(&["--verify", "--to", "openai", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let worker: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for m in worker["messages"].as_array().unwrap() {
        if let Some(calls) = m["tool_calls"].as_array() {
            for c in calls {
                pairs.push((
                    c["function"]["arguments"].as_str().unwrap().into(),
                    String::new(),
                ));
            }
        }
        if m["role"] == "tool" {
            let last = pairs.iter_mut().rfind(|p| p.1.is_empty()).unwrap();
            last.1 = m["content"].as_str().unwrap().into();
        }
    }
    assert_eq!(pairs.len(), 4, "{pairs:?}");
    // Each search's result names its own query.
    for (arguments, result) in &pairs[..2] {
        let query: Value = serde_json::from_str(arguments).unwrap();
        let query = query["query"].as_str().unwrap();
        assert!(
            result.contains(&format!("Search results for '{query}'")),
            "{pairs:?}"
        );
    }
    assert!(
        !stderr(&out).contains("with no call before them"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_call_without_an_id_in_a_recording_s_first_request_is_the_client_s_own() {
    // The request holds a history the client built (Ollama: no id, arguments as an
    // object) before any response: its call is no replay, and the tool's answer answers
    // it.
    let file = "fixtures/corpus/cassettes/openllmetry-ollama-history-built-by-the-client.yaml";
    let out = convert(&["--verify", "--to", "openai", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = doc["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["assistant", "tool", "assistant"]);
    let call = &messages[0]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_current_weather");
    assert_eq!(
        call["function"]["arguments"],
        r#"{"location":"San Francisco"}"#
    );
    assert_eq!(messages[1]["tool_call_id"], call["id"]);
    assert!(
        !stderr(&out).contains("with no call before them"),
        "{}",
        stderr(&out)
    );
}
