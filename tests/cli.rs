//! The command line as a user meets it: flags, exit codes, messages, bad input.

use crate::common;
use crate::common::{Record, extract, records, toolsift};
use predicates::prelude::*;
use std::io::Write;

fn write_temp(bytes: &[u8], suffix: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
    f
}

fn names(records: &[Record]) -> Vec<&str> {
    records.iter().filter_map(|r| r.name()).collect()
}

/// Each call as `name id line`, `-` for no id.
fn calls(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            assert!(r.is_call(), "{r:?}");
            format!(
                "{} {} {}",
                r.name().unwrap(),
                r.id().unwrap_or("-"),
                r.line()
            )
        })
        .collect()
}

const CHAT_CALLS: [&str; 2] = ["get_weather call_w1 14", "write_file call_w2 22"];

const CHAT: &str = "fixtures/openai-chat/parallel-tool-calls.json";

#[test]
fn help_and_version() {
    toolsift()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("toolsift "));
    toolsift()
        .args(["extract", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Examples:").and(predicate::str::contains("--with-results")),
        );
}

#[test]
fn usage_errors_exit_2() {
    toolsift().arg("frobnicate").assert().code(2);
    toolsift()
        .args(["extract", "--input", "xml", CHAT])
        .assert()
        .code(2);
    toolsift()
        .args(["extract", "-f", "tool,xml", CHAT])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("unknown channel 'xml'"));
    toolsift()
        .args(["extract", "--roles", "robot", CHAT])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown role 'robot'"));
}

/// The one-line message of a usage error.
fn usage_message(args: &[&str]) -> String {
    let out = toolsift().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "toolsift {args:?}");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn usage_errors_name_the_subcommand_typed() {
    // An invalid value: clap prints no usage line, the help is still the subcommand's.
    let m = usage_message(&["convert", "--to", "yaml"]);
    assert!(m.ends_with("(see 'toolsift convert --help')\n"), "{m}");
    let m = usage_message(&["tools", "render", "--style", "md", "x.json"]);
    assert!(m.ends_with("(see 'toolsift tools render --help')\n"), "{m}");
    let m = usage_message(&["tools", "rendr"]);
    assert!(m.contains("'render'") && m.ends_with("(see 'toolsift tools --help')\n"));
    let m = usage_message(&["check", "--formt", "json"]);
    assert!(m.contains("'--format'") && m.ends_with("(see 'toolsift check --help')\n"));
}

#[test]
fn an_option_of_toolsift_itself_given_to_a_subcommand_says_so() {
    for (flag, sub) in [("--version", "extract"), ("-V", "check")] {
        let m = usage_message(&[sub, flag]);
        assert!(m.contains(&format!("'toolsift {flag}'")), "{m}");
        assert!(!m.contains("similar argument"), "{m}");
        assert!(
            m.ends_with(&format!("(see 'toolsift {sub} --help')\n")),
            "{m}"
        );
    }
}

#[test]
fn a_mistyped_subcommand_suggests_the_closest() {
    let m = usage_message(&["chek"]);
    assert!(
        m.contains("a similar subcommand exists: 'check'") && !m.contains("schema"),
        "{m}"
    );
    let m = usage_message(&["convrt"]);
    assert!(m.contains("'convert'"), "{m}");
}

#[test]
fn summaries_say_one_in_the_singular() {
    // One file, one conversation, one message (with two calls).
    let out = toolsift()
        .args(["convert", "--to", "json", "--verify", CHAT])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: 1 file, 1 conversation, 1 message, 2 calls, 0 results, 0 warnings, 0 failed\n"
    );
    // One call over --max-calls.
    let legacy = "fixtures/openai-chat/function-call-legacy.json";
    let out = toolsift()
        .args(["check", "--allow-unknown", "--max-calls", "0", legacy])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(": 1 call, more than --max-calls 0"),
        "{report}"
    );
    assert!(report.contains("1 file, 1 call, 0 invalid"), "{report}");
    // One turn in --stats.
    let out = toolsift()
        .args(["extract", "--stats", CHAT])
        .output()
        .unwrap();
    let stats = String::from_utf8_lossy(&out.stderr);
    assert!(
        stats.starts_with("toolsift: stats: 1 turn, 1 with calls, 0 fallbacks"),
        "{stats}"
    );
}

#[test]
fn missing_file_is_reported_and_the_others_still_processed() {
    let out = toolsift()
        .args(["extract", "no/such.json", CHAT])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: no/such.json: No such file or directory\n"
    );
    assert_eq!(names(&records(&out.stdout)), ["get_weather", "write_file"]);
}

#[test]
fn a_directory_is_read_file_by_file_in_path_order() {
    let out = toolsift()
        .args(["extract", "fixtures/mistral"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let files: Vec<String> = records(&out.stdout)
        .iter()
        .map(|r| match r {
            Record::Call { source, .. } => source.file.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(!files.is_empty());
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    assert!(
        files.iter().any(|f| f.ends_with("v11.txt")) && files.iter().any(|f| f.ends_with("v3.txt"))
    );
}

#[test]
fn files_are_processed_in_order_with_their_names() {
    let recs = extract(&["fixtures/ollama/chat.json", CHAT]);
    let files: Vec<String> = recs
        .iter()
        .map(|r| match r {
            Record::Call { source, .. }
            | Record::Result { source, .. }
            | Record::Text { source, .. } => source.file.clone(),
        })
        .collect();
    assert_eq!(files, ["fixtures/ollama/chat.json", CHAT, CHAT]);
}

#[test]
fn stdin_is_read_with_no_file_or_dash() {
    let input = std::fs::read(CHAT).unwrap();
    for args in [vec!["extract"], vec!["extract", "-"]] {
        let out = toolsift()
            .args(&args)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert!(out.status.success());
        let recs = records(&out.stdout);
        assert_eq!(names(&recs), ["get_weather", "write_file"]);
        assert!(matches!(&recs[0], Record::Call { source, .. } if source.file == "-"));
    }
}

#[test]
fn empty_input_is_no_calls_and_success() {
    toolsift()
        .arg("extract")
        .write_stdin("")
        .assert()
        .success()
        .stdout("")
        .stderr("");
    toolsift()
        .arg("extract")
        .write_stdin("\n  \n")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn output_file_option() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.jsonl");
    toolsift()
        .args(["extract", "-o"])
        .arg(&path)
        .arg(CHAT)
        .assert()
        .success()
        .stdout("");
    let written = std::fs::read(&path).unwrap();
    assert_eq!(names(&records(&written)), ["get_weather", "write_file"]);
}

#[test]
fn with_results_adds_result_records_paired_by_id() {
    let recs = extract(&[
        "--with-results",
        "fixtures/openai-chat/request-history.json",
    ]);
    let results: Vec<_> = recs.iter().filter(|r| !r.is_call()).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].name(), Some("get_weather"));
    assert!(
        extract(&["fixtures/openai-chat/request-history.json"])
            .iter()
            .all(Record::is_call)
    );
}

#[test]
fn forced_input_framing() {
    // As text, a JSON document is one turn of prose: no native calls.
    assert!(extract(&["--input", "text", CHAT]).is_empty());
    assert_eq!(calls(&extract(&["--input", "json", CHAT])), CHAT_CALLS);
    assert_eq!(
        calls(&extract(&[
            "--input",
            "sse",
            "fixtures/anthropic/stream.sse"
        ])),
        ["write_file toolu_s1 17", "list_dir toolu_s2 32"]
    );
    assert_eq!(
        calls(&extract(&[
            "--input",
            "jsonl",
            "fixtures/codex/rollout.jsonl"
        ])),
        [
            "exec_command call_c1 4",
            "apply_patch call_c2 7",
            "mcp__node_repl__js call_c3 8",
            "local_shell call_c4 10"
        ]
    );
    assert_eq!(
        calls(&extract(&[
            "--input",
            "yaml",
            "fixtures/cassette/openai-stream.yaml"
        ])),
        ["get_time call_v1 11"]
    );
}

#[test]
fn formats_select_channels() {
    // The SWE-agent command format is a text-channel dialect.
    let xml = "fixtures/swe-agent/xml-actions.traj";
    assert_eq!(
        calls(&extract(&[xml])),
        ["bash call_0_442ba0cf 35", "bash call_1_8eeb3b24 49"]
    );
    assert!(extract(&["-f", "tool", xml]).is_empty());
    assert!(extract(&["-f", "text", CHAT]).is_empty());
    assert_eq!(calls(&extract(&["-f", "text,tool", CHAT])), CHAT_CALLS);
}

#[test]
fn all_reports_every_channel() {
    // A turn with a native call and a text-channel call: the fallback stops at the
    // first channel, --all reports both.
    let traj = r#"{"history":[{"role":"assistant","message_type":"action","content":"Run it.\n<command>\nls\n</command>",
        "tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"pwd\"}"}}]}],"trajectory":[{"action":"pwd"}]}"#;
    let f = write_temp(traj.as_bytes(), ".traj");
    let path = f.path().to_str().unwrap();
    let fallback = extract(&[path]);
    assert_eq!(fallback.len(), 1);
    let all = extract(&["--all", path]);
    assert_eq!(all.len(), 2);
    let channels: Vec<&str> = all
        .iter()
        .map(|r| match r {
            Record::Call { channel, .. } => channel.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(channels, ["tool", "text"]);
}

#[test]
fn all_keeps_calls_that_differ_only_in_their_id_and_merges_one_call_seen_twice() {
    // Two calls on one line, the same name and arguments, different ids: two calls.
    let two = r#"{"object":"response","id":"r","status":"completed","output":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call","call_id":"c2","name":"f","arguments":"{}"}]}"#;
    let f = write_temp(two.as_bytes(), ".json");
    assert_eq!(extract(&["--all", f.path().to_str().unwrap()]).len(), 2);
    // One call, native and written out again in the text of the same message: one.
    let once = r#"{"role":"assistant","content":"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}"#;
    let f = write_temp(once.as_bytes(), ".jsonl");
    assert_eq!(extract(&["--all", f.path().to_str().unwrap()]).len(), 1);
}

#[test]
fn roles_widen_what_is_scanned() {
    // The SWE-agent prompt holds an example <command>: not a call unless asked.
    let xml = "fixtures/swe-agent/xml-actions.traj";
    assert_eq!(
        calls(&extract(&[xml])),
        ["bash call_0_442ba0cf 35", "bash call_1_8eeb3b24 49"]
    );
    assert_eq!(
        calls(&extract(&["--roles", "assistant,user", xml])),
        [
            "bash call_0_afc6299e 29",
            "bash call_1_442ba0cf 35",
            "bash call_2_8eeb3b24 49"
        ]
    );
    assert_eq!(
        calls(&extract(&["--roles", "assistant,user,system", xml])),
        [
            "bash call_0_fda8f590 23",
            "bash call_1_afc6299e 29",
            "bash call_2_442ba0cf 35",
            "bash call_3_8eeb3b24 49"
        ]
    );
}

#[test]
fn claude_codes_copy_of_a_tool_result_is_not_searched_for_calls() {
    // A subagent's result, copied under `toolUseResult`, holds the subagent's own calls:
    // they were made (and logged) elsewhere, so they are not calls of this session.
    let line = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_t","type":"tool_result","content":"done"}]},"toolUseResult":{"content":[{"type":"tool_use","id":"toolu_sub","name":"Grep","input":{"pattern":"x"}}]},"extra":{"content":[{"type":"tool_use","id":"toolu_other","name":"Glob","input":{}}]}}"#;
    let out = toolsift()
        .arg("extract")
        .write_stdin(format!("{line}\n"))
        .output()
        .unwrap();
    assert!(out.status.success());
    // The same block under any other key is found: only the copy is passed over.
    assert_eq!(names(&records(&out.stdout)), ["Glob"]);
}

#[test]
fn half_a_surrogate_pair_is_noted_only_where_a_string_is_read_as_u_fffd() {
    let line = |args: &str| {
        let args = serde_json::to_string(args).unwrap();
        format!(
            r#"{{"choices":[{{"message":{{"role":"assistant","tool_calls":[{{"id":"c","type":"function","function":{{"name":"f","arguments":{args}}}}}]}}}}]}}"#
        ) + "\n"
    };
    // Arguments that are not JSON further on: the call is invalid, nothing was read as
    // U+FFFD, and nothing is said about it.
    let out = toolsift()
        .arg("extract")
        .write_stdin(line(r#"{"a": "\ud800", "b": x}"#))
        .output()
        .unwrap();
    assert!(matches!(
        records(&out.stdout)[..],
        [common::Record::Call {
            valid: Some(false),
            ..
        }]
    ));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Valid arguments: the half pair is read as U+FFFD, and that is said once.
    let out = toolsift()
        .arg("extract")
        .write_stdin(line(r#"{"a": "\ud800"}"#))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\u{fffd}"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("half a surrogate pair"));
}

/// The warning about half a surrogate pair, as it ends.
const HALF_PAIR: &str = "half a surrogate pair (like \\ud800 alone); it was read as U+FFFD";

#[test]
fn half_a_surrogate_pair_is_told_of_its_own_file_only() {
    // The half pair in a message's text (read as U+FFFD there), and again in the id of
    // a call the json channel finds in that text, after the record was read: that
    // decoding is not the input's, and nothing is said of it, neither here nor (as
    // once) about the file read next.
    let first = write_temp(
        br#"{"role":"assistant","content":"caf\ud800 <tool_call>{\"name\": \"f\", \"arguments\": {}, \"id\": \"x\\ud800\"}</tool_call>"}
"#,
        ".jsonl",
    );
    let second = write_temp(
        b"{\"role\":\"assistant\",\"content\":\"hello\"}\n{\"role\":\"user\",\"content\":\"x\"}\n",
        ".jsonl",
    );
    let (first, second) = (
        first.path().to_str().unwrap(),
        second.path().to_str().unwrap(),
    );
    let out = toolsift()
        .args(["extract", "-j", "1", first, second])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(names(&records(&out.stdout)), ["f"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains(HALF_PAIR)).collect();
    assert_eq!(
        said,
        [format!(
            "toolsift: {first}:1: a JSON string holds {HALF_PAIR}"
        )]
    );
    assert!(!stderr.contains(second), "{stderr}");
}

#[test]
fn half_a_surrogate_pair_in_arguments_is_told_at_its_line() {
    // Line 1 of 3: a call whose arguments text holds the half pair (decoded from the
    // arguments string, not from the record's own strings).
    let file = write_temp(
        br#"{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": \"\\ud800\"}"}}]}
{"role":"tool","tool_call_id":"c1","content":"done"}
{"role":"assistant","content":"all done"}
"#,
        ".jsonl",
    );
    let path = file.path().to_str().unwrap();
    let out = toolsift().args(["extract", path]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("\u{fffd}"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr,
        format!("toolsift: {path}:1: a JSON string holds {HALF_PAIR}\n")
    );
}

#[test]
fn arguments_deep_inside_a_document_are_kept_whole() {
    // A message 100 levels down whose arguments nest 60 more: past the depth to which
    // the tape records values. The arguments are read whole, not cut short.
    let nested = |depth: usize, inner: &str| {
        format!("{}{inner}{}", r#"{"x": "#.repeat(depth), "}".repeat(depth))
    };
    let message = |args: &str| {
        let message = format!(
            r#"{{"role": "assistant", "tool_calls": [{{"id": "c", "type": "function", "function": {{"name": "f", "arguments": {args}}}}}]}}"#
        );
        nested(100, &message) + "\n"
    };
    let out = toolsift()
        .arg("extract")
        .write_stdin(message(&nested(60, "1")))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    let args = serde_json::to_string(&record["arguments"]).unwrap();
    assert_eq!(args, nested(60, "1").replace(' ', ""));
    // Deeper than serde_json reads: still written whole, as written, not emptied.
    let out = toolsift()
        .arg("extract")
        .write_stdin(message(&nested(140, "1")))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let whole = format!(r#""arguments":{},"#, nested(140, "1").replace(' ', ""));
    assert!(text.contains(&whole), "{text}");
    assert!(!text.contains(r#""valid":false"#), "{text}");
}

/// The calls of fixtures/claude-code/session.jsonl.
const SESSION_CALLS: [&str; 3] = [
    "Bash toolu_cc1 4",
    "Read toolu_cc2 5",
    "mcp__github__create_issue toolu_cc3 9",
];

#[test]
fn bom_and_crlf_are_accepted() {
    let text = std::fs::read_to_string("fixtures/claude-code/session.jsonl").unwrap();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(text.replace('\n', "\r\n").into_bytes());
    let out = toolsift()
        .arg("extract")
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty());
    assert_eq!(calls(&records(&out.stdout)), SESSION_CALLS);

    let sse = std::fs::read_to_string("fixtures/anthropic/stream.sse").unwrap();
    let out = toolsift()
        .arg("extract")
        .write_stdin(sse.replace('\n', "\r\n"))
        .output()
        .unwrap();
    assert_eq!(
        calls(&records(&out.stdout)),
        ["write_file toolu_s1 17", "list_dir toolu_s2 32"]
    );
}

#[test]
fn a_jsonl_line_that_is_not_json_is_named_and_skipped_over() {
    let lines = std::fs::read_to_string("fixtures/codex/rollout.jsonl").unwrap();
    let mut broken: Vec<&str> = lines.lines().collect();
    broken.insert(2, "{\"timestamp\": \"2026-01-02\", \"type\": \"response_it");
    let out = toolsift()
        .arg("extract")
        .write_stdin(broken.join("\n"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: -:3: not JSON (EOF while parsing a string, column 48); scanning the line as text\n"
    );
    // The calls after it keep their lines, one further down.
    assert_eq!(
        calls(&records(&out.stdout)),
        [
            "exec_command call_c1 5",
            "apply_patch call_c2 8",
            "mcp__node_repl__js call_c3 9",
            "local_shell call_c4 11"
        ]
    );
}

#[test]
fn a_truncated_document_gets_one_message() {
    let text = std::fs::read_to_string(CHAT).unwrap();
    let cut = &text[..text.len() / 2];
    let f = write_temp(cut.as_bytes(), ".json");
    let out = toolsift().arg("extract").arg(f.path()).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("invalid JSON document (EOF while parsing"),
        "{err}"
    );
    assert!(
        err.starts_with(&format!("toolsift: {}:", f.path().display())),
        "{err}"
    );
}

#[test]
fn invalid_utf8_is_replaced_and_reported_once_with_its_line() {
    let mut bytes = std::fs::read("fixtures/claude-code/session.jsonl").unwrap();
    let second_line = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    // Inside the user's text on line 2: the record still parses.
    let at = second_line
        + bytes[second_line..]
            .windows(4)
            .position(|w| w == b"list")
            .unwrap();
    bytes[at] = 0xFF;
    let out = toolsift()
        .arg("extract")
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: -:2: invalid UTF-8; the bad bytes were replaced with U+FFFD\n"
    );
    assert_eq!(calls(&records(&out.stdout)), SESSION_CALLS);
}

#[test]
fn binary_junk_is_skipped_with_a_message() {
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let f = write_temp(&junk, ".bin");
    let out = toolsift()
        .arg("extract")
        .arg(f.path())
        .arg(CHAT)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("binary data (NUL byte at offset"), "{err}");
    assert_eq!(calls(&records(&out.stdout)), CHAT_CALLS);
}

/// Told the input is text, a NUL byte in it is one more character of the model's output
/// (a shell command that prints one); guessing, toolsift skips such a file as binary.
#[test]
fn text_named_as_text_is_read_with_its_nul_bytes() {
    let output = "<tool_call>{\"name\": \"exec\", \"arguments\": {\"command\": \"printf a\u{0}b\"}}</tool_call>";
    let out = toolsift()
        .args(["extract", "--input", "text"])
        .write_stdin(output)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(names(&records(&out.stdout)), ["exec"]);
    let out = toolsift()
        .arg("extract")
        .write_stdin(output)
        .output()
        .unwrap();
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("binary data (NUL byte at offset"));
}

#[test]
fn deep_nesting_does_not_crash() {
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let out = toolsift()
        .arg("extract")
        .write_stdin(deep.clone())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("JSON nested deeper than 128 levels"));
    let lines = format!("{{\"a\":{}1{}}}\n", "[".repeat(5000), "]".repeat(5000));
    let out = toolsift()
        .arg("extract")
        .write_stdin(lines)
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn a_50_mb_line_is_read() {
    let big = "x".repeat(50 * 1024 * 1024);
    let line = format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"s\",\"message\":{{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Write\",\"input\":{{\"content\":\"{big}\"}}}}]}}}}\n"
    );
    let out = toolsift()
        .arg("extract")
        .write_stdin(line.clone())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&out.stdout);
    assert_eq!(names(&recs), ["Write"]);
    // From a file, read and parsed on a second thread, with records after it.
    let after = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"after","arguments":"{}"}}]}"#;
    let file = write_temp(format!("{line}{after}\n{line}").as_bytes(), ".jsonl");
    let out = toolsift()
        .args(["extract", "-j", "2"])
        .arg(file.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(names(&records(&out.stdout)), ["Write", "after"]);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // Distinct calls, so none is merged away: megabytes of records, far more than a pipe
    // holds, written while the reader has gone after its first bytes.
    let input: String = (0..50_000).map(|i| call_line(&format!("f{i}"))).collect();
    let f = write_temp(input.as_bytes(), ".jsonl");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .arg("extract")
        .arg(f.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 100];
    std::io::Read::read_exact(&mut stdout, &mut buf).unwrap();
    assert!(buf.starts_with(br#"{"type":"call","name":"f0""#));
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn quiet_silences_warnings_not_errors() {
    toolsift()
        .args(["extract", "-q"])
        .write_stdin("{\"a\":1}\nnot json\n")
        .assert()
        .success()
        .stderr("");
    toolsift()
        .args(["extract", "-q", "missing.json"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("missing.json"));
}

#[test]
fn a_cut_stream_yields_truncated_calls() {
    let recs = extract(&["fixtures/openai-chat/stream-truncated.sse"]);
    match &recs[..] {
        [
            Record::Call {
                name,
                valid,
                errors,
                arguments_raw,
                ..
            },
        ] => {
            assert_eq!(name, "write_file");
            assert_eq!(*valid, Some(false));
            assert!(errors.as_ref().unwrap()[0].starts_with("truncated"));
            assert_eq!(
                arguments_raw.as_deref(),
                Some("{\"path\": \"a.txt\", \"con")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_sse_event_at_the_end_with_no_blank_line_after_it_is_read() {
    // The call is in the last event, which ends the input with no blank line: with a
    // line break, without one, and with its data over two lines.
    let path = "fixtures/openai-chat/stream-no-final-blank-line.sse";
    let sse = std::fs::read_to_string(path).unwrap();
    assert!(sse.ends_with("}\n") && !sse.ends_with("\n\n"));
    let (head, last) = sse.trim_end().rsplit_once('\n').unwrap();
    let split = last.replacen(r#""choices":"#, "\ndata: \"choices\":", 1);
    for input in [
        sse.clone(),
        sse.trim_end().to_owned(),
        format!("{head}\n{split}"),
    ] {
        for framing in ["auto", "sse"] {
            let out = toolsift()
                .args(["extract", "--input", framing])
                .write_stdin(input.clone())
                .output()
                .unwrap();
            assert!(out.status.success());
            let recs = records(&out.stdout);
            match &recs[..] {
                [
                    Record::Call {
                        name,
                        id,
                        arguments,
                        source,
                        ..
                    },
                ] => {
                    assert_eq!(
                        (name.as_str(), id.as_deref(), source.line),
                        ("get_weather", Some("call_last"), 3),
                        "{input}"
                    );
                    assert_eq!(arguments["city"], "Oslo");
                }
                other => panic!("{framing}: {input}\n{other:?}"),
            }
        }
    }
}

#[test]
fn sse_without_blank_lines_or_data_fields_gives_the_same_calls() {
    let sse = std::fs::read_to_string("fixtures/openai-chat/stream-parallel.sse").unwrap();
    let whole = extract(&["fixtures/openai-chat/stream-parallel.sse"]);
    assert_eq!(names(&whole), ["search", "read_file"]);
    let run = |input: String| {
        let out = toolsift()
            .args(["extract", "--input", "sse"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success());
        let recs = records(&out.stdout);
        recs.iter()
            .map(|r| match r {
                Record::Call {
                    name, arguments, ..
                } => format!("{name} {}", serde_json::Value::Object(arguments.clone())),
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>()
    };
    let want = run(sse.clone());
    // Captures that drop the blank lines between events: each data line that starts a
    // JSON value after a complete one is an event of its own.
    assert_eq!(run(sse.replace("\n\n", "\n")), want);
    // Captures that drop the `data:` field name: a bare JSON line is an event too.
    assert_eq!(run(sse.replace("data: {", "{")), want);
    assert_eq!(
        run(format!("event: start\n{}", sse.replace("data: ", ""))),
        want
    );
}

#[test]
fn bare_model_output_is_scanned_as_text() {
    // A JSON document of no known transcript shape is the model's own output: the
    // json channel reads the call in it.
    let recs = extract(&["fixtures/json/bare-model-output.json"]);
    match &recs[..] {
        [
            Record::Call {
                name,
                channel,
                dialect,
                ..
            },
        ] => {
            assert_eq!(
                (name.as_str(), channel.as_str(), dialect.as_str()),
                ("search", "json", "ikigai")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn dialects_lists_every_dialect() {
    let out = toolsift().args(["dialects", "--json"]).output().unwrap();
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    for want in [
        "openai",
        "openai-chat-stream",
        "anthropic",
        "anthropic-stream",
        "gemini",
        "bedrock",
        "langchain",
        "codex",
        "swe-agent-command",
    ] {
        assert!(names.contains(&want), "{want}");
    }
    toolsift()
        .arg("dialects")
        .assert()
        .success()
        .stdout(predicate::str::contains("CHANNEL"));
}

#[test]
fn line_buffered_output_streams_while_input_is_open() {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["extract", "--line-buffered"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let rollout = std::fs::read_to_string("fixtures/codex/rollout.jsonl").unwrap();
    // The call, then its output (which closes the turn): the record must arrive
    // before the input ends.
    for line in rollout.lines().take(6) {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("\"name\":\"exec_command\""), "{first}");
    for line in rollout.lines().skip(6) {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let rest: Vec<String> = stdout.lines().map(Result::unwrap).collect();
    assert_eq!(rest.len(), 3);
    assert!(child.wait().unwrap().success());
}

#[test]
fn adversarial_text_finishes() {
    // Openers that never close, repeated: each must not rescan the rest of the text.
    // 256 KB of each (1 MB with TOOLSIFT_TEST_BIG=1): tens of thousands of openers, so
    // a rescan of the rest is billions of steps at either size.
    let size = if common::big() { 1_000_000 } else { 256_000 };
    for unit in [
        "{\"a\": [",
        "<tool_call>{\"name\": ",
        "<tool_call name=\"x\">{",
        "<invoke name=\"f\">",
        "<br><GetWeather>\n```json\n",
        "[TOOL_CALLS]f[ARGS]{",
        "<read_file>\n<path>",
        "emit_batch({",
        "[f(a=",
        "{\"name\": \"f\", \"arguments\": {}}",
        "<function=f><parameter=p>",
        "<tool_call>f<arg_key>k</arg_key><arg_value>",
        "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{",
        "<|channel|>commentary to=functions.f<|message|>{",
        "call:f{a:",
        "<|START_ACTION|>[{",
        " functools[{",
        "<minimax:tool_call><invoke name=\"f\"><parameter name=\"p\">",
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\">",
        "f[ARGS]{",
        "<Write>\n```json\n{\"a\": \"",
    ] {
        let input = unit.repeat(size / unit.len());
        let out = toolsift()
            .arg("extract")
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success(), "{unit}");
    }
}

#[test]
fn json_between_markers_that_names_no_tool_is_a_warning_not_silence() {
    // Each dialect's markers around JSON that holds no call: one warning naming the line,
    // the dialect and the marker; the calls around it are still read.
    for (text, line, dialect, marker) in [
        (
            "<tool_call>\n{\"nam\": \"ping\"}\n</tool_call>",
            1,
            "hermes",
            "<tool_call>",
        ),
        (
            "ok\n<|START_ACTION|>[{\"tool_nam\": \"ping\"}]<|END_ACTION|>",
            2,
            "command-r",
            "<|START_ACTION|>",
        ),
        (
            "a\nb\n[TOOL_CALLS][{\"arguments\": {}}]",
            3,
            "mistral",
            "[TOOL_CALLS]",
        ),
    ] {
        let input =
            format!("{text}\n<tool_call>{{\"name\": \"f\", \"arguments\": {{}}}}</tool_call>\n");
        let out = toolsift()
            .arg("extract")
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(names(&records(&out.stdout)), ["f"], "{text}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr,
            format!(
                "toolsift: -:{line}: {dialect}: the JSON after {marker} names no tool; no call read from it\n"
            ),
        );
    }
    // A marker named in prose holds no JSON: nothing to say. Many blocks: twenty
    // warnings, then a count.
    toolsift()
        .arg("extract")
        .write_stdin("Calls go in <tool_call> tags; [TOOL_CALLS] starts them.\n")
        .assert()
        .success()
        .stdout("")
        .stderr("");
    let out = toolsift()
        .arg("extract")
        .write_stdin("<tool_call>{\"nam\": 1}</tool_call>\n".repeat(25))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 21, "{stderr}");
    assert!(
        stderr.ends_with("toolsift: -: 5 more notes about blocks read as no call were not shown\n"),
        "{stderr}"
    );
}

#[test]
fn a_corrupt_binary_cassette_body_is_named() {
    // gzip (told by its magic bytes, with no Content-Encoding) whose checksum is wrong.
    let cassette = "interactions:\n- request:\n    body: null\n  response:\n    body:\n      string: !!binary |\n        H4sIAAAAAAAAA6tWKkktLlGyUlAqS8wpTgUAjnKpJRAAAAA=\n";
    toolsift()
        .arg("extract")
        .write_stdin(cassette)
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains(
            "-:7: corrupt gzip body (corrupt gzip stream does not have a matching checksum)",
        ));
}

/// Plain text with calls of several dialects scattered through prose and code.
fn long_text_with_calls() -> String {
    let mut text = String::new();
    for i in 0..300 {
        text.push_str("Some prose about the build, with a code block:\n```rust\nfn f() { let v = vec![1, 2]; }\n```\n");
        match i % 5 {
            0 => text.push_str(&format!("<tool_call>\n{{\"name\": \"hermes{i}\", \"arguments\": {{\"n\": {i}}}}}\n</tool_call>\n")),
            1 => text.push_str(&format!("Then {{\"name\": \"generic{i}\", \"arguments\": {{\"s\": \"a {{ b\"}}}}\n")),
            2 => text.push_str(&format!("[TOOL_CALLS]mistral{i}[ARGS]{{\"x\": {i}}}\n")),
            3 => text.push_str("A config {\"retries\": 3} is not a call.\n"),
            _ => text.push_str(&format!("<think>\nmaybe {{\"name\": \"thought{i}\", \"arguments\": {{}}}}\n</think>\n")),
        }
    }
    text
}

#[test]
fn long_plain_text_is_scanned_in_windows_with_the_same_result() {
    let text = long_text_with_calls();
    let f = write_temp(text.as_bytes(), ".txt");
    let whole = toolsift()
        .args(["extract", "--input", "text"])
        .arg(f.path())
        .output()
        .unwrap();
    assert!(whole.status.success());
    let recs = records(&whole.stdout);
    assert_eq!(
        recs.len(),
        180,
        "{}",
        String::from_utf8_lossy(&whole.stdout)
    );
    for window in ["4096", "2000", "65536"] {
        let windowed = toolsift()
            .env("TOOLSIFT_TEXT_WINDOW", window)
            .args(["extract", "--input", "text"])
            .arg(f.path())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&whole.stdout),
            String::from_utf8_lossy(&windowed.stdout),
            "window {window}"
        );
    }
    // --with-text needs the text whole: windows are not used, output is the same.
    let with_text = |env: Option<&str>| {
        let mut cmd = toolsift();
        if let Some(w) = env {
            cmd.env("TOOLSIFT_TEXT_WINDOW", w);
        }
        cmd.args(["extract", "--with-text"])
            .arg(f.path())
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(with_text(None), with_text(Some("4096")));
}

#[test]
fn a_call_up_to_the_overlap_long_is_found_whole_across_a_default_window_cut() {
    // Prose, then a call of 0.9 MB over 30,000 lines that starts 0.8 MB before the cut
    // of the default window and runs past it: the next window reaches back 1 MiB and
    // holds the call whole.
    use toolsift::testing::{MAX_OVERLAP, TEXT_WINDOW};
    let line = "Plain prose about the weather, with no call in it at all.\n";
    let lines_before = (TEXT_WINDOW - 800_000) / line.len();
    let mut text = line.repeat(lines_before);
    let call_start = text.len();
    let row = format!("\"{}\",\n", "x".repeat(26));
    text.push_str("<tool_call>{\"name\": \"write\", \"arguments\": {\"lines\": [\n");
    text.push_str(&row.repeat(30_000));
    text.push_str("\"end\"]}}</tool_call>\n");
    assert!(call_start < TEXT_WINDOW && TEXT_WINDOW < text.len());
    assert!(text.len() - call_start < MAX_OVERLAP);
    text.push_str(&line.repeat(20_000));
    let f = write_temp(text.as_bytes(), ".txt");
    let out = toolsift().arg("extract").arg(f.path()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let recs = records(&out.stdout);
    assert_eq!(recs.len(), 1);
    let Record::Call {
        name,
        arguments,
        repairs,
        source,
        ..
    } = &recs[0]
    else {
        panic!("not a call: {:?}", recs[0]);
    };
    assert_eq!(name, "write");
    assert_eq!(arguments["lines"].as_array().unwrap().len(), 30_001);
    assert_eq!(source.line, lines_before as u64 + 1);
    assert_eq!(repairs, &None);
}

#[test]
fn calls_up_to_the_overlap_long_are_whole_across_later_window_cuts() {
    // Once the json channel has won, a window may move on to a short overlap before its
    // cut, unless a value is still open there. Calls of 0.9 MB, one after another, over
    // 12 MB: every later cut falls inside one or between two, and each is found whole.
    use toolsift::testing::{MAX_OVERLAP, TEXT_WINDOW};
    let first = "<tool_call>{\"name\": \"first\", \"arguments\": {}}</tool_call>\n";
    let mut text = first.to_owned();
    let row = format!("\"{}\",\n", "x".repeat(26));
    let call = format!(
        "{{\"name\": \"write\", \"arguments\": {{\"lines\": [\n{}\"end\"]}}}}\nSome prose.\n",
        row.repeat(30_000)
    );
    assert!(call.len() < MAX_OVERLAP);
    while text.len() < 2 * TEXT_WINDOW {
        text.push_str(&call);
    }
    let f = write_temp(text.as_bytes(), ".txt");
    let out = toolsift().arg("extract").arg(f.path()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let recs = records(&out.stdout);
    let count = (text.len() - first.len()) / call.len();
    assert_eq!(recs.len(), 1 + count);
    for (k, rec) in recs.iter().enumerate().skip(1) {
        assert_whole_write_call(rec, 2 + (k as u64 - 1) * 30_003);
    }
}

#[test]
fn calls_up_to_the_overlap_long_are_whole_across_the_cuts_of_short_windows() {
    // After the first window, prose with calls far apart is read in the shortest
    // windows (`LEAST_WINDOW`), and the next window starts a short overlap back. Calls of
    // 0.9 MB every 2.7 MB of prose, over 24 MB: cuts fall inside several of them, and
    // each is found whole, on its line.
    use toolsift::testing::{LEAST_WINDOW, MAX_OVERLAP, TEXT_WINDOW};
    let line = "Plain prose about the weather, with no call in it at all.\n";
    let row = format!("\"{}\",\n", "x".repeat(26));
    let call = format!(
        "<tool_call>{{\"name\": \"write\", \"arguments\": {{\"lines\": [\n{}\"end\"]}}}}</tool_call>\n",
        row.repeat(30_000)
    );
    assert!(call.len() < MAX_OVERLAP && LEAST_WINDOW < TEXT_WINDOW);
    let prose = line.repeat(2_700_000 / line.len());
    let (mut text, mut lines, mut starts) = (String::new(), 0u64, Vec::new());
    while text.len() < 4 * TEXT_WINDOW {
        text.push_str(&prose);
        lines += (prose.len() / line.len()) as u64;
        starts.push(lines + 1);
        text.push_str(&call);
        lines += 30_002;
    }
    let f = write_temp(text.as_bytes(), ".txt");
    let out = toolsift().arg("extract").arg(f.path()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let recs = records(&out.stdout);
    assert_eq!(recs.len(), starts.len());
    for (rec, &start) in recs.iter().zip(&starts) {
        assert_whole_write_call(rec, start);
    }
}

/// `rec` is the call `write` of the window tests, whole (30,001 lines, no repair), found
/// on `line`.
fn assert_whole_write_call(rec: &Record, line: u64) {
    let Record::Call {
        name,
        arguments,
        repairs,
        source,
        ..
    } = rec
    else {
        panic!("not a call: {rec:?}");
    };
    assert_eq!(name, "write");
    assert_eq!(arguments["lines"].as_array().unwrap().len(), 30_001);
    assert_eq!(repairs, &None);
    assert_eq!(source.line, line);
}

#[test]
fn windows_never_cut_inside_a_character() {
    // One long line of two-byte characters, no line break: windows must cut between
    // characters (no replacement characters, no warning).
    let text = format!(
        "{}{{\"name\": \"f\", \"arguments\": {{\"a\": \"ü\"}}}}{}",
        "é".repeat(3000),
        "é".repeat(3000)
    );
    for window in ["1000", "1001", "4096"] {
        let out = toolsift()
            .env("TOOLSIFT_TEXT_WINDOW", window)
            .args(["extract", "--input", "text"])
            .write_stdin(text.clone())
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "window {window}");
        assert_eq!(records(&out.stdout).len(), 1, "window {window}");
    }
}

#[test]
fn jobs_keep_file_order_and_lose_nothing() {
    // Every fixture, read by one worker and by several: the same bytes, in file order.
    let run = |jobs: &str| {
        let out = toolsift()
            .args([
                "extract",
                "--with-results",
                "--stats",
                "-j",
                jobs,
                "fixtures",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        // Warnings come as each worker finds them: the same lines, in any order; the
        // stats come last, in order.
        let stderr = String::from_utf8(out.stderr).unwrap();
        let (mut warnings, stats): (Vec<&str>, Vec<&str>) = stderr
            .lines()
            .partition(|l| !l.starts_with("toolsift: stats: "));
        warnings.sort_unstable();
        (out.stdout, format!("{warnings:?}\n{stats:?}"))
    };
    let (one, stats_one) = run("1");
    assert!(one.len() > 10_000);
    for jobs in ["2", "3", "8"] {
        let (many, stats_many) = run(jobs);
        assert_eq!(one, many, "-j {jobs} changed the records");
        assert_eq!(stats_one, stats_many, "-j {jobs} changed the stats");
    }
    // A file that cannot be read is reported and the others still come out in order.
    let out = toolsift()
        .args([
            "extract",
            "-j",
            "2",
            "fixtures/mistral",
            "no/such.json",
            "fixtures/hermes",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let files: Vec<String> = records(&out.stdout)
        .iter()
        .map(|r| match r {
            Record::Call { source, .. } => source.file.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    let mut order = files.clone();
    order.dedup();
    assert_eq!(
        order,
        [
            "fixtures/mistral/v11.txt",
            "fixtures/mistral/v3.txt",
            "fixtures/hermes/invalid-arguments.txt",
            "fixtures/hermes/no-arguments.txt",
            "fixtures/hermes/qwen-parallel.txt"
        ]
    );
}

/// A JSON Lines file of several megabytes, with everything the reader must report or
/// carry from one record to the next, as one thread reads it (`-j 1`) and as two do
/// (`-j 2` on one file: one thread reads and parses, the other walks).
#[test]
fn a_jsonl_file_read_on_two_threads_gives_what_one_thread_gives() {
    let mut data = b"\xEF\xBB\xBF".to_vec();
    let mut calls = 0;
    for k in 0..30_000 {
        let line = match k % 6 {
            0 => {
                calls += 1;
                format!(
                    r#"{{"id":"chatcmpl-{k}","object":"chat.completion","choices":[{{"index":0,"message":{{"role":"assistant","content":"step {k} {{\"not\": \"a call\"}}","tool_calls":[{{"id":"call_{k}","type":"function","function":{{"name":"f{k}","arguments":"{{\"n\": {k}, \"text\": \"{}\"}}"}}}}]}}}}]}}"#,
                    "é".repeat(k % 50)
                )
            }
            // Claude Code: one message over two lines, its call on the second.
            1 => format!(
                r#"{{"type":"assistant","message":{{"id":"msg_{k}","type":"message","role":"assistant","content":[{{"type":"text","text":"about to call"}}]}}}}"#
            ),
            2 => {
                calls += 1;
                format!(
                    r#"{{"type":"assistant","message":{{"id":"msg_{}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_{k}","name":"g","input":{{"k":{k}}}}}]}}}}"#,
                    k - 1
                )
            }
            3 => "   ".to_owned(),
            4 => format!(r#"{{"usage": {{"total_tokens": {k}}}}}"#),
            // A call written in the message text (the json channel).
            _ => {
                calls += 1;
                format!(
                    r#"{{"role":"assistant","content":"prose, then <tool_call>{{\"name\": \"h\", \"arguments\": {{\"k\": {k}}}}}</tool_call>"}}"#
                )
            }
        };
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        match k {
            // Each reported once, at its line, wherever the batches fall.
            5_000 => data.extend_from_slice(b"{\"content\": \"bad \xff byte\", \"role\": \"assistant\"}\n"),
            6_000 => data.extend_from_slice(b"{\"not json\n"),
            7_000 => data.extend_from_slice(
                br#"{"role":"assistant","content":null,"tool_calls":[{"id":"s","type":"function","function":{"name":"s","arguments":"{\"a\": \"\\ud800\"}"}}]}"#,
            ),
            8_000 => {
                data.extend_from_slice(&b"[".repeat(200));
                data.extend_from_slice(&b"]".repeat(200));
            }
            _ => continue,
        }
        data.push(b'\n');
    }
    assert!(data.len() > 2 << 20, "several batches of records");
    let file = write_temp(&data, ".jsonl");
    let path = file.path().to_str().unwrap();
    for flags in [&["--stats"][..], &["--all", "--with-results"]] {
        let mut args = flags.to_vec();
        args.push(path);
        let (one, warnings_one) = one_thread_and_two(&args, "");
        let found = records(&one);
        assert_eq!(names(&found).len(), calls + 1, "{flags:?}");
        for warning in [
            "invalid UTF-8",
            "not JSON",
            "half a surrogate pair",
            "nested deeper",
        ] {
            assert_eq!(
                warnings_one.matches(warning).count(),
                1,
                "{flags:?}: {warning}\n{warnings_one}"
            );
        }
    }
}

/// `toolsift extract ARGS` with `-j 1` and with `-j 2` (and the text window, if set):
/// the same records and the same messages. The records and the messages.
fn one_thread_and_two(args: &[&str], window: &str) -> (Vec<u8>, String) {
    let run = |jobs: &str| {
        let out = toolsift()
            .env("TOOLSIFT_TEXT_WINDOW", window)
            .args(["extract", "-j", jobs])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        (out.stdout, String::from_utf8(out.stderr).unwrap())
    };
    let (one, warnings_one) = run("1");
    let (two, warnings_two) = run("2");
    assert_eq!(warnings_one, warnings_two, "{args:?}, window {window:?}");
    assert!(
        one == two,
        "{args:?}, window {window:?}: the records differ"
    );
    (one, warnings_one)
}

/// A long text file read on two threads (one reads, checks and sweeps the next piece,
/// the other scans the current window) gives what one thread gives: the same records,
/// and the one message about bad UTF-8, on the line of the first bad byte, whatever
/// window holds it.
#[test]
fn a_long_text_file_read_on_two_threads_gives_what_one_thread_gives() {
    let prose = "Plain prose about the weather – and a 😀 – with no call in it.\n";
    let mut data = Vec::new();
    let mut lines = 0u64;
    let mut calls = 0;
    let mut bad_line = None;
    while data.len() < 9 << 20 {
        data.extend_from_slice(prose.repeat(500).as_bytes());
        lines += 500;
        data.extend_from_slice(
            b"<tool_call>{\"name\": \"f\", \"arguments\": {\"n\": 1}}</tool_call>\n",
        );
        lines += 1;
        calls += 1;
        if bad_line.is_none() && data.len() > 7 << 20 {
            data.extend_from_slice(b"a bad \xff byte\n");
            lines += 1;
            bad_line = Some(lines);
        }
    }
    let file = write_temp(&data, ".txt");
    let path = file.path().to_str().unwrap();
    for window in ["", "4096", "100000"] {
        let (one, warnings_one) = one_thread_and_two(&["--stats", path], window);
        assert_eq!(records(&one).len(), calls, "window {window:?}");
        let warning = format!(":{}: invalid UTF-8", bad_line.unwrap());
        assert_eq!(
            warnings_one.matches(&warning).count(),
            1,
            "window {window:?}: {warning}\n{warnings_one}"
        );
    }
}

/// A JSON Lines line holding one call to `name`.
fn call_line(name: &str) -> String {
    format!(
        "{{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{{\"id\":\"{name}\",\"type\":\"function\",\"function\":{{\"name\":\"{name}\",\"arguments\":\"{{}}\"}}}}]}}\n"
    )
}

/// Writes a file holding one call to `name`, making its directories.
fn call_file(path: &std::path::Path, name: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, call_line(name)).unwrap();
}

/// The file of each record, relative to `base`, with its call's name.
fn read_from(base: &std::path::Path, records: &[Record]) -> Vec<(String, String)> {
    let base = format!("{}/", base.display());
    records
        .iter()
        .map(|r| match r {
            Record::Call { source, name, .. } => (
                source.file.strip_prefix(&base).unwrap().to_owned(),
                name.clone(),
            ),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[cfg(unix)]
#[test]
fn a_directory_walk_skips_hidden_entries_and_links_unless_following() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    call_file(&d.join("b.jsonl"), "b");
    call_file(&d.join("a/x.jsonl"), "ax");
    call_file(&d.join(".hidden.jsonl"), "hidden");
    call_file(&d.join(".cache/c.jsonl"), "cached");
    call_file(&tmp.path().join("far/f.jsonl"), "far");
    symlink(tmp.path().join("far"), d.join("link")).unwrap();
    symlink(d.join("b.jsonl"), d.join("also-b.jsonl")).unwrap();
    let out = toolsift().arg("extract").arg(&d).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let seen = read_from(&d, &records(&out.stdout));
    assert_eq!(
        seen,
        [
            ("a/x.jsonl".into(), "ax".into()),
            ("b.jsonl".into(), "b".into())
        ]
    );
    for follow in ["-L", "--follow"] {
        let out = toolsift()
            .args(["extract", follow])
            .arg(&d)
            .output()
            .unwrap();
        assert!(out.status.success());
        let seen = read_from(&d, &records(&out.stdout));
        // b.jsonl is reached by its own name and by a link: read once, first in order.
        assert_eq!(
            seen,
            [
                ("a/x.jsonl".into(), "ax".into()),
                ("also-b.jsonl".into(), "b".into()),
                ("link/f.jsonl".into(), "far".into()),
            ]
        );
    }
}

#[cfg(unix)]
#[test]
fn a_link_loop_ends_with_one_warning_and_each_file_read_once() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    call_file(&d.join("x.jsonl"), "x");
    call_file(&tmp.path().join("beside.jsonl"), "beside");
    symlink(".", d.join("a")).unwrap();
    symlink("..", d.join("up")).unwrap();
    let out = toolsift()
        .args(["extract", "-L"])
        .arg(&d)
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("loops back").count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("{}: link loops back", d.join("a").display())));
    let seen = read_from(&d, &records(&out.stdout));
    assert_eq!(
        seen,
        [
            ("up/beside.jsonl".into(), "beside".into()),
            ("x.jsonl".into(), "x".into()),
        ]
    );
    // check walks the same way.
    toolsift()
        .args(["check", "-L"])
        .arg(&d)
        .assert()
        .success()
        .stdout("2 files, 2 calls, 0 invalid, 0 unknown tools\n");
}

#[cfg(unix)]
#[test]
fn a_fifo_inside_a_directory_is_skipped_and_the_run_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    call_file(&d.join("a.jsonl"), "a");
    let made = std::process::Command::new("mkfifo")
        .arg(d.join("b.jsonl"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo not available; FIFO check skipped");
        return;
    }
    for cmd in ["extract", "check"] {
        let out = toolsift()
            .arg(cmd)
            .arg(d)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd} did not complete");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        if cmd == "extract" {
            assert_eq!(names(&records(&out.stdout)), ["a"]);
        }
    }
}

#[test]
fn output_naming_an_input_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.jsonl");
    call_file(&input, "f");
    let before = std::fs::read(&input).unwrap();
    let same_by_another_name = tmp.path().join(".").join("in.jsonl");
    for cmd in ["extract", "check"] {
        for output in [&input, &same_by_another_name] {
            toolsift()
                .args([cmd, "-o"])
                .arg(output)
                .arg(CHAT)
                .arg(&input)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains("is also an input"));
            assert_eq!(std::fs::read(&input).unwrap(), before, "{cmd} changed it");
        }
    }
    // An output that does not exist yet, named as an input too.
    let missing = tmp.path().join("new.jsonl");
    toolsift()
        .args(["extract", "-o"])
        .arg(&missing)
        .arg(&missing)
        .assert()
        .code(2);
    assert!(!missing.exists());
    // Two missing files in a missing directory are not one file.
    toolsift()
        .args(["extract", "-o", "no/such/b.jsonl", "no/such/a.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is also an input").not());
}

#[test]
fn an_output_inside_a_directory_read_is_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    call_file(&d.join("a.jsonl"), "a");
    call_file(&d.join("b.jsonl"), "b");
    let out = d.join("out.jsonl");
    // The second run finds the first run's output in the directory.
    for _ in 0..2 {
        toolsift()
            .args(["extract", "-o"])
            .arg(&out)
            .arg(d)
            .assert()
            .success()
            .stdout("")
            .stderr("");
        assert_eq!(names(&records(&std::fs::read(&out).unwrap())), ["a", "b"]);
    }
    toolsift()
        .args(["check", "-o"])
        .arg(&out)
        .arg(d)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "2 files, 2 calls, 0 invalid, 0 unknown tools\n"
    );
    let mut left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["a.jsonl", "b.jsonl", "out.jsonl"],
        "no temporary file left"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_names_the_output_file() {
    for cmd in ["extract", "check"] {
        toolsift()
            .args([cmd, "-o", "/dev/full", CHAT])
            .assert()
            .code(2)
            .stderr("toolsift: /dev/full: No space left on device\n");
    }
    toolsift()
        .args(["extract", "-o", "no/such/dir/out.jsonl", CHAT])
        .assert()
        .code(2)
        .stderr("toolsift: no/such/dir/out.jsonl: cannot create: No such file or directory\n");
    // An output that cannot be a file.
    let dir = tempfile::tempdir().unwrap();
    toolsift()
        .args(["extract", "-o"])
        .arg(dir.path())
        .arg(CHAT)
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "toolsift: {}: cannot create: is a directory\n",
            dir.path().display()
        ));
    // Standard output that fails: the run ends with the reason, not quietly.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["extract", CHAT])
        .current_dir(common::root())
        .stdout(full)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: standard output: No space left on device\n"
    );
}

/// Killed while it writes, `extract -o` leaves the old file whole: never a partial one.
#[cfg(unix)]
#[test]
fn a_run_killed_mid_write_leaves_the_old_output() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.jsonl");
    let mut data = String::with_capacity(32 << 20);
    let mut i = 0;
    while data.len() < 30 << 20 {
        data += &call_line(&format!("f{i}"));
        i += 1;
    }
    std::fs::write(&input, data).unwrap();
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let target = out_dir.join("calls.jsonl");
    let old_len = call_line("old").len() as u64;
    let old = call_line("old").repeat(3);
    std::fs::write(&target, &old).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["extract", "-o"])
        .arg(&target)
        .arg(&input)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has written records: to its temporary file, or (were it to write
    // in place) to the target.
    let started = std::time::Instant::now();
    loop {
        let temp = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap())
            .find(|e| e.file_name().to_string_lossy().ends_with(".toolsift-tmp"));
        let temp_written = temp.is_some_and(|e| e.metadata().unwrap().len() > 0);
        let target_written = std::fs::metadata(&target).map_or(true, |m| m.len() != 3 * old_len);
        if temp_written || target_written {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before it was killed"
        );
        assert!(
            started.elapsed().as_secs() < 120,
            "no output after 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "it ended before the kill");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), old);
}

#[test]
fn compressed_cassette_bodies_are_decoded_and_corrupt_ones_named() {
    let cassette = |encoding: &str, base64: &str| {
        format!(
            "interactions:\n- request:\n    body: '{{}}'\n  response:\n    body:\n      string: !!binary |\n        {base64}\n    headers:\n      Content-Encoding:\n      - {encoding}\n"
        )
    };
    // zlib-wrapped deflate of a Gemini response with one call.
    let deflate = write_temp(
        cassette(
            "deflate",
            "eJwlyjEKwCAMBdC7/LkncO0xSoegqQhpIjadxLtXKbzxdUTSVBI5PwhHRzR1VkfoaCaMgNsSCzZUav6f69XoxXQnkRWV7hVr0TwftTxbH2OcywedLSJp",
        )
        .as_bytes(),
        ".yaml",
    );
    let out = toolsift()
        .arg("extract")
        .arg(deflate.path())
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(names(&records(&out.stdout)), ["ping"]);
    let corrupt = write_temp(cassette("gzip", "bm90IGd6aXA=").as_bytes(), ".yaml");
    let out = toolsift()
        .arg("extract")
        .arg(corrupt.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = format!("{}:7: corrupt gzip body", corrupt.path().display());
    assert!(stderr.contains(&want), "{stderr}");
}

/// Notes about blocks read as no call: two kinds on one line are both told; a text far
/// over the limit says how many more there were (counted past the scanners' own
/// buffer too); and a text read in windows, which scans each overlap twice, tells each
/// note once, as a whole read does.
#[test]
fn notes_are_told_once_each_and_counted_past_the_limit() {
    let out = toolsift()
        .arg("extract")
        .write_stdin("<tool_call>{\"nam\": 1}</tool_call> and [TOOL_CALLS] [{\"nam\": 1}]\n")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: -:1: hermes: the JSON after <tool_call> names no tool; no call read from it\n\
         toolsift: -:1: mistral: the JSON after [TOOL_CALLS] names no tool; no call read from it\n"
    );
    let out = toolsift()
        .arg("extract")
        .write_stdin("<tool_call>{\"nam\": 1}</tool_call>\n".repeat(100))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 21, "{stderr}");
    assert!(
        stderr
            .ends_with("toolsift: -: 80 more notes about blocks read as no call were not shown\n"),
        "{stderr}"
    );
    let text: String = (0..12)
        .map(|i| {
            format!(
                "Step {i}: some prose here to fill the line out a bit more.\n<tool_call>{{\"nam\": {i}}}</tool_call>\n"
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, &text).unwrap();
    let run = |window: &str| {
        let out = toolsift()
            .env("TOOLSIFT_TEXT_WINDOW", window)
            .arg("extract")
            .arg(&path)
            .output()
            .unwrap();
        String::from_utf8(out.stderr).unwrap()
    };
    let whole = run("0");
    assert_eq!(whole.lines().count(), 12, "{whole}");
    for window in ["300", "450", "700"] {
        assert_eq!(run(window), whole, "window {window}");
    }
}

/// The README's table of exit codes, row by row: each code has cases here that give
/// it, for every command it names, and a row added without a case fails.
#[test]
fn exit_codes_match_the_table() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let section = &readme[readme.find("## Exit codes").unwrap()..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let codes: Vec<i32> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| ")?.split(" |").next()?.parse().ok())
        .collect();
    assert_eq!(
        codes,
        [0, 1, 2, 3, 130],
        "the table changed: give each row its cases"
    );
    let tmp = tempfile::tempdir().unwrap();
    let contracts = "tests/data/contracts/openai.json";
    let run = |args: &[&str]| toolsift().args(args).output().unwrap().status.code();
    // 0: success, also with no call found.
    assert_eq!(run(&["extract", CHAT]), Some(0));
    assert_eq!(run(&["extract", "fixtures/text/plain-answer.txt"]), Some(0));
    assert_eq!(
        run(&["check", "--tools", contracts, "tests/data/check/good.jsonl"]),
        Some(0)
    );
    assert_eq!(
        run(&[
            "convert",
            "--to",
            "json",
            "fixtures/mandrake/legacy-xml-history.json"
        ]),
        Some(0)
    );
    // 1: check findings; a file convert could not convert.
    assert_eq!(
        run(&["check", "--tools", contracts, "tests/data/check/bad.jsonl"]),
        Some(1)
    );
    let broken = tmp.path().join("broken.json");
    std::fs::write(&broken, "{\"messages\": [oops").unwrap();
    assert_eq!(
        run(&["convert", "--to", "json", broken.to_str().unwrap()]),
        Some(1)
    );
    // 2: usage errors, outputs that cannot be written.
    for command in [&["extract"][..], &["check"], &["convert", "--to", "json"]] {
        let mut args = command.to_vec();
        args.push("--no-such-option");
        assert_eq!(run(&args), Some(2), "{args:?}");
    }
    if std::path::Path::new("/dev/full").exists() {
        assert_eq!(run(&["extract", CHAT, "-o", "/dev/full"]), Some(2));
        assert_eq!(run(&["check", CHAT, "-o", "/dev/full"]), Some(2));
        assert_eq!(
            run(&[
                "convert",
                "--to",
                "json",
                "fixtures/mandrake/legacy-xml-history.json",
                "-o",
                "/dev/full"
            ]),
            Some(2)
        );
    }
    // 3: some inputs could not be read (the others were), or convert outputs written.
    for command in [&["extract"][..], &["check"], &["convert", "--to", "json"]] {
        let mut args = command.to_vec();
        args.push("no/such/file.json");
        assert_eq!(run(&args), Some(3), "{args:?}");
    }
    let copy = tmp.path().join("copy.json");
    std::fs::copy(common::root().join(CHAT), &copy).unwrap();
    let out = toolsift()
        .args(["extract", CHAT, "no/such/file.json"])
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        records(&out.stdout).len(),
        4,
        "both readable files' records"
    );
    let checked = tmp.path().join("checked.txt");
    let out = toolsift()
        .args(["check", "--tools", contracts, "-o"])
        .arg(&checked)
        .args(["tests/data/check/good.jsonl", "no/such/file.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        std::fs::read_to_string(&checked)
            .unwrap()
            .contains("unreadable file")
    );
    // Findings and an input not read: 3, the verdict is incomplete.
    assert_eq!(
        run(&[
            "check",
            "--tools",
            contracts,
            "tests/data/check/bad.jsonl",
            "no/such/file.json"
        ]),
        Some(3)
    );
    let blocked = tmp.path().join("blocked");
    std::fs::write(&blocked, "a file, not a directory").unwrap();
    let under = blocked.join("out");
    assert_eq!(
        run(&[
            "convert",
            "--to",
            "json",
            "--out-dir",
            under.to_str().unwrap(),
            "fixtures/convert/mandrake"
        ]),
        Some(3)
    );
    // A file convert could not convert and one it could not read: 3.
    assert_eq!(
        run(&[
            "convert",
            "--to",
            "json",
            "--compact",
            broken.to_str().unwrap(),
            "no/such/file.json"
        ]),
        Some(3)
    );
    // 130: convert stopped by a signal.
    let input = tmp.path().join("many");
    std::fs::create_dir(&input).unwrap();
    let history =
        std::fs::read(common::root().join("fixtures/mandrake/legacy-xml-history.json")).unwrap();
    for i in 0..2000 {
        std::fs::write(input.join(format!("{i:04}.json")), &history).unwrap();
    }
    let out_dir = tmp.path().join("out");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["convert", "--to", "json", "-j", "1", "--out-dir"])
        .arg(&out_dir)
        .arg(&input)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !out_dir.join("0001.json").exists() && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The compressed fixtures, each with the plain fixture it was made from.
const COMPRESSED: [(&str, &str); 9] = [
    ("fixtures/compressed/parallel-tool-calls.json.gz", CHAT),
    ("fixtures/compressed/parallel-tool-calls.json.zst", CHAT),
    ("fixtures/compressed/parallel-tool-calls.json.bz2", CHAT),
    ("fixtures/compressed/parallel-tool-calls.json.xz", CHAT),
    ("fixtures/compressed/rollout.jsonl.gz", ROLLOUT),
    ("fixtures/compressed/rollout.jsonl.zst", ROLLOUT),
    ("fixtures/compressed/rollout.jsonl.bz2", ROLLOUT),
    ("fixtures/compressed/rollout.jsonl.xz", ROLLOUT),
    ("fixtures/compressed/rollout-two-members.jsonl.gz", ROLLOUT),
];

const ROLLOUT: &str = "fixtures/codex/rollout.jsonl";

/// Records with `source.file` blanked, to compare the records of two files.
fn without_file(mut records: Vec<Record>) -> Vec<Record> {
    for r in &mut records {
        match r {
            Record::Call { source, .. }
            | Record::Result { source, .. }
            | Record::Text { source, .. } => source.file.clear(),
        }
    }
    records
}

fn file_of(r: &Record) -> &str {
    match r {
        Record::Call { source, .. }
        | Record::Result { source, .. }
        | Record::Text { source, .. } => &source.file,
    }
}

#[test]
fn compressed_files_extract_to_the_records_of_the_plain_file() {
    for (compressed, plain) in COMPRESSED {
        let want = extract(&["--with-results", plain]);
        assert!(want.len() >= 2, "{plain}");
        let got = extract(&["--with-results", compressed]);
        assert!(got.iter().all(|r| file_of(r) == compressed), "{got:?}");
        assert_eq!(without_file(got), without_file(want), "{compressed}");
    }
}

#[test]
fn compressed_standard_input_is_read() {
    for (compressed, plain) in COMPRESSED {
        let out = toolsift()
            .args(["extract", "--with-results"])
            .write_stdin(std::fs::read(compressed).unwrap())
            .output()
            .unwrap();
        assert!(out.status.success(), "{compressed}");
        assert!(out.stderr.is_empty(), "{compressed}");
        let want = extract(&["--with-results", plain]);
        assert_eq!(
            without_file(records(&out.stdout)),
            without_file(want),
            "{compressed}"
        );
    }
}

#[test]
fn compressed_files_found_in_a_directory_are_read() {
    let dir = tempfile::tempdir().unwrap();
    for (compressed, _) in COMPRESSED {
        let name = std::path::Path::new(compressed).file_name().unwrap();
        std::fs::copy(compressed, dir.path().join(name)).unwrap();
    }
    let out = toolsift()
        .args(["extract", "--with-results"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = records(&out.stdout);
    for (compressed, plain) in COMPRESSED {
        let name = std::path::Path::new(compressed).file_name().unwrap();
        let file = common::display(&dir.path().join(name));
        let of_file: Vec<Record> = got.iter().filter(|r| file_of(r) == file).cloned().collect();
        let want = extract(&["--with-results", plain]);
        assert_eq!(without_file(of_file), without_file(want), "{compressed}");
    }
}

#[test]
fn check_reads_a_gzip_file() {
    let out = toolsift()
        .args(["check", "fixtures/compressed/parallel-tool-calls.json.gz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 file, 2 calls,"), "{stdout}");
}

#[test]
fn convert_of_a_gzip_file_equals_that_of_the_plain_file() {
    let convert = |file: &str| {
        let out = toolsift()
            .args(["convert", "--to", "json", file])
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}");
        out.stdout
    };
    for (compressed, plain) in [COMPRESSED[0], COMPRESSED[4], COMPRESSED[8]] {
        let want = convert(plain);
        assert!(!want.is_empty());
        assert_eq!(convert(compressed), want, "{compressed}");
    }
}

#[test]
fn a_cut_off_gzip_file_is_a_read_error_and_the_other_files_are_read() {
    let whole = std::fs::read("fixtures/compressed/rollout.jsonl.gz").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("rollout.jsonl.gz");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let cut = common::display(&cut);
    let after = dir.path().join("after.json");
    std::fs::copy(CHAT, &after).unwrap();
    let after = common::display(&after);
    let out = toolsift()
        .args(["extract", CHAT, &cut, &after])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "toolsift: {cut}: gzip data is cut off or corrupt: "
        )) && stderr.lines().count() == 1,
        "{stderr}"
    );
    let files: Vec<String> = records(&out.stdout)
        .iter()
        .map(|r| file_of(r).to_owned())
        .filter(|f| f != &cut)
        .collect();
    assert_eq!(files, [CHAT, CHAT, &after, &after]);
}

/// The fixtures deliberately of no known shape.
const UNKNOWN_SHAPE: &[(&str, &str)] = &[
    (
        "fixtures/unknown-shape/events.jsonl",
        "top-level keys: evt, payload, ts",
    ),
    (
        "fixtures/unknown-shape/package.json",
        "top-level keys: name, version, private, scripts, dependencies",
    ),
    (
        "fixtures/unknown-shape/stream.sse",
        "top-level keys: seq, delta",
    ),
    (
        "fixtures/unknown-shape/trajectory.json",
        "a top-level array; keys of its first object: step, thought, act",
    ),
];

#[test]
fn json_of_no_known_shape_is_said_once_per_file() {
    let said = |file: &str, shape: &str| {
        format!("toolsift: {file}: JSON of no known transcript shape ({shape}); no calls read\n")
    };
    for &(file, shape) in UNKNOWN_SHAPE {
        let out = toolsift().args(["extract", file]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}");
        assert_eq!(out.stdout, b"", "{file}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), said(file, shape));
        // Quiet with -q, and the exit code is unchanged.
        toolsift()
            .args(["extract", "-q", file])
            .assert()
            .success()
            .stdout("")
            .stderr("");
    }
    // Counted by --stats, on one thread and on several.
    let files: Vec<&str> = UNKNOWN_SHAPE.iter().map(|(f, _)| *f).collect();
    for jobs in ["1", "2"] {
        let out = toolsift()
            .args(["extract", "-q", "--stats", "-j", jobs])
            .args(&files)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("\ntoolsift: stats: files of no known shape: 4\n"),
            "{stderr}"
        );
    }
    // Shapes that are known and simply hold no call are quiet: a chat completion and a
    // message with only text, Claude Code lines of known types, stream events, a list
    // of messages. So is JSON of no known shape whose text holds a call, and JSON Lines
    // of which some lines have a known shape.
    let quiet: &[(&str, &str)] = &[
        (
            ".json",
            r#"{"id": "c", "object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "Hi."}}]}"#,
        ),
        (
            ".json",
            r#"{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi."}]}"#,
        ),
        (
            ".jsonl",
            concat!(
                r#"{"type": "summary", "summary": "Weather", "leafUuid": "x"}"#,
                "\n",
                r#"{"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1", "parentUuid": null, "sessionId": "s"}"#,
                "\n",
            ),
        ),
        (
            ".jsonl",
            concat!(
                r#"{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}"#,
                "\n",
                r#"{"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Hi"}"#,
                "\n",
            ),
        ),
        (
            ".sse",
            "data: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_1\", \"type\": \"message\", \"role\": \"assistant\", \"content\": []}}\n\ndata: {\"type\": \"message_stop\"}\n\n",
        ),
        (
            ".json",
            r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]"#,
        ),
        (".json", "{}"),
        (".json", "[]"),
        (
            ".jsonl",
            concat!(
                r#"{"evt": "start"}"#,
                "\n",
                r#"{"role": "assistant", "content": "Hi."}"#,
                "\n",
            ),
        ),
    ];
    for (suffix, text) in quiet {
        let f = write_temp(text.as_bytes(), suffix);
        toolsift()
            .arg("extract")
            .arg(f.path())
            .assert()
            .success()
            .stderr("");
    }
    let f = write_temp(
        br#"{"log": "<read_file><path>a.txt</path></read_file>"}"#,
        ".json",
    );
    let out = toolsift().arg("extract").arg(f.path()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(names(&records(&out.stdout)), ["read_file"]);
}

/// No fixture is of no known shape but those made so: every recording, response and
/// stream of `fixtures/` is read as what it is. (The providers' request schemas in
/// `fixtures/api-schemas/` are JSON Schemas, not transcripts.)
#[test]
fn no_fixture_is_of_no_known_shape_but_those_made_so() {
    let out = toolsift()
        .args([
            "extract",
            "--with-results",
            "--exclude",
            "api-schemas",
            "fixtures",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut named: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(": JSON of no known transcript shape ("))
        .map(|l| {
            l.strip_prefix("toolsift: ")
                .and_then(|l| l.split(": JSON of no known").next())
                .unwrap()
        })
        .collect();
    named.sort_unstable();
    let files: Vec<&str> = UNKNOWN_SHAPE.iter().map(|(f, _)| *f).collect();
    assert_eq!(named, files, "{stderr}");
}

/// Gemini Interactions streams: a `step.start` function_call step holds a placeholder
/// (`"arguments": {}`); the call's arguments are its `step.delta` `arguments_delta`
/// pieces, final at `step.stop`, and a stream cut before is a truncated call, never `{}`.
/// The resource's function_call steps are calls; a `google_search_call` step is not.
#[test]
fn gemini_interactions_calls_take_their_arguments_from_the_deltas() {
    let run = |file: &str| {
        let out = toolsift()
            .args(["extract", "--with-results", file])
            .output()
            .unwrap();
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        records(text.as_bytes());
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let calls = run("fixtures/gemini-interactions/stream.sse");
    let got: Vec<_> = calls
        .iter()
        .map(|c| {
            (
                c["name"].clone(),
                c["arguments"].clone(),
                c["dialect"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "get_weather".into(),
                serde_json::json!({"location": "Paris, France", "unit": "celsius"}),
                "gemini-interactions-stream".into()
            ),
            (
                "get_time".into(),
                serde_json::json!({"timezone": "Europe/Paris"}),
                "gemini-interactions-stream".into()
            ),
        ]
    );
    let cut = run("fixtures/gemini-interactions/stream-truncated.sse");
    assert_eq!(cut.len(), 1);
    assert_eq!(cut[0]["valid"], false);
    assert_eq!(cut[0]["arguments_raw"], "{\"location\": \"Ly");
    let whole = run("fixtures/gemini-interactions/interaction.json");
    let kinds: Vec<_> = whole
        .iter()
        .map(|r| (r["type"].clone(), r["id"].clone(), r["dialect"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("call".into(), "fc_4".into(), "gemini-interactions".into()),
            ("result".into(), "fc_4".into(), "gemini-interactions".into()),
        ]
    );
    assert_eq!(whole[0]["arguments"]["location"], "Paris, France");
}

/// Runs `toolsift ARGS` with `input` on standard input, which must succeed: its
/// records as JSON values, and what it wrote to stderr.
fn run_json(args: &[&str], input: &str) -> (Vec<serde_json::Value>, String) {
    let out = toolsift()
        .args(args)
        .write_stdin(input.to_owned())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let text = String::from_utf8(out.stdout).unwrap();
    let records = serde_json::Deserializer::from_str(&text)
        .into_iter::<serde_json::Value>()
        .map(|v| v.unwrap())
        .collect();
    (records, stderr)
}

/// [`run_json`]'s records.
fn json_records(args: &[&str], input: &str) -> Vec<serde_json::Value> {
    run_json(args, input).0
}

/// A server tool's result written in the message of its call (Anthropic
/// `web_search_tool_result` beside its `server_tool_use`) comes after that call, with
/// the call's name: the README's `group_by(.id)` join pairs them.
#[test]
fn a_result_in_the_message_of_its_call_follows_the_call() {
    let message = r#"{"role":"assistant","content":[
        {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"rust"}},
        {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},
        {"type":"tool_use","id":"toolu_2","name":"lookup","input":{"q":1}}]}"#;
    let got: Vec<(String, String, String)> = json_records(&["extract", "--with-results"], message)
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
            (s("type"), s("name"), s("id"))
        })
        .collect();
    let row = |t: &str, n: &str, i: &str| (t.to_owned(), n.to_owned(), i.to_owned());
    assert_eq!(
        got,
        [
            row("call", "web_search", "srvtoolu_1"),
            row("call", "lookup", "toolu_2"),
            row("result", "web_search", "srvtoolu_1"),
        ]
    );
}

/// One reader per format: a Gemini `functionResponse` that wraps an error
/// (`{"error": …}`) is an error for `extract` (which reports the response as written)
/// and `convert` (whose result holds what the wrapper holds) alike, and a Responses
/// output with `status: "failed"` is an error in both.
#[test]
fn extract_and_convert_read_a_result_alike() {
    let gemini = r#"{"contents":[
        {"role":"user","parts":[{"text":"list"}]},
        {"role":"model","parts":[{"functionCall":{"id":"c1","name":"ls","args":{}}}]},
        {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"ls","response":{"error":"denied"}}}]}]}"#;
    let responses = r#"{"input":[
        {"type":"message","role":"user","content":"list"},
        {"type":"function_call","call_id":"c1","name":"ls","arguments":"{}"},
        {"type":"function_call_output","call_id":"c1","output":"denied","status":"failed"}]}"#;
    let as_written = [
        serde_json::json!({"error": "denied"}),
        serde_json::json!("denied"),
    ];
    for (input, written) in [gemini, responses].into_iter().zip(as_written) {
        let extracted = json_records(&["extract", "--with-results"], input);
        let result = extracted
            .iter()
            .find(|r| r["type"] == "result")
            .expect("a result");
        assert_eq!(
            (&result["content"], &result["is_error"]),
            (&written, &serde_json::json!(true)),
            "extract: {input}"
        );
        let converted = json_records(&["convert", "--to", "json"], input);
        let part = converted[0]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap())
            .find(|p| p["type"] == "result")
            .expect("a result part")
            .clone();
        assert_eq!(
            (&part["content"], &part["is_error"]),
            (&serde_json::json!("denied"), &serde_json::json!(true)),
            "convert: {input}"
        );
    }
}

/// Gemini calls written without ids are answered by name and order: each call and the
/// result that answers it get one generated id, the id `convert` gives the call, the
/// same on every run.
#[test]
fn gemini_calls_without_ids_share_a_generated_id_with_their_results() {
    let input = r#"{"contents":[
        {"role":"user","parts":[{"text":"two files"}]},
        {"role":"model","parts":[
            {"functionCall":{"name":"read","args":{"path":"a"}}},
            {"functionCall":{"name":"stat","args":{"path":"a"}}},
            {"functionCall":{"name":"read","args":{"path":"b"}}}]},
        {"role":"user","parts":[
            {"functionResponse":{"name":"read","response":{"output":"A"}}},
            {"functionResponse":{"name":"read","response":{"output":"B"}}},
            {"functionResponse":{"name":"stat","response":{"output":"S"}}}]}]}"#;
    // A call written with its own id keeps it.
    let own = r#"{"contents":[{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"read","args":{}}}]}]}"#;
    assert_eq!(json_records(&["extract"], own)[0]["id"], "fc_1");
    let records = json_records(&["extract", "--with-results"], input);
    let ids = |kind: &str| -> Vec<String> {
        records
            .iter()
            .filter(|r| r["type"] == kind)
            .map(|r| r["id"].as_str().expect("an id").to_owned())
            .collect()
    };
    let calls = ids("call");
    assert_eq!(calls.len(), 3);
    assert!(calls[0] != calls[2], "{calls:?}");
    // Results answer the read calls in order, then the stat call.
    assert_eq!(
        ids("result"),
        [calls[0].clone(), calls[2].clone(), calls[1].clone()]
    );
    let contents: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["type"] == "result")
        .map(|r| &r["content"])
        .collect();
    assert_eq!(
        contents,
        [
            &serde_json::json!({"output": "A"}),
            &serde_json::json!({"output": "B"}),
            &serde_json::json!({"output": "S"})
        ]
    );
    let again = json_records(&["extract", "--with-results"], input);
    assert_eq!(records, again);
    let request = json_records(&["convert", "--to", "openai"], input);
    let converted: Vec<&str> = request[0]["messages"][1]["tool_calls"]
        .as_array()
        .expect("tool_calls")
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(converted, calls);
}

/// JSON of no known shape is read as text from its decoded strings, not from its
/// source with the strings' escapes: a text syntax inside a string gives its call once,
/// with its quotes, however the string escapes it; a record that is a call object is
/// still a call; and `convert` reads the same calls.
#[test]
fn strings_of_json_of_no_known_shape_are_read_decoded() {
    let name_arguments = |records: &[serde_json::Value]| -> Vec<(String, serde_json::Value)> {
        records
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_owned(),
                    r["arguments"].clone(),
                )
            })
            .collect()
    };
    let records = json_records(&["extract", "fixtures/ollama/generate-pythonic.json"], "");
    let weather = (
        "get_weather".to_owned(),
        serde_json::json!({"location": "San Francisco, CA", "unit": "celsius"}),
    );
    assert_eq!(name_arguments(&records), std::slice::from_ref(&weather));
    assert_eq!(records[0]["source"]["line"], 4);
    let converted = json_records(
        &["convert", "--to", "json"],
        &std::fs::read_to_string("fixtures/ollama/generate-pythonic.json").unwrap(),
    );
    let calls: Vec<serde_json::Value> = converted[0]["messages"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "call")
        .cloned()
        .collect();
    assert_eq!(name_arguments(&calls), [weather]);

    let lines = concat!(
        r#"{"log": "<tool_call>{\"name\": \"search\", \"arguments\": {\"q\": \"a \\\"b\\\"\"}}</tool_call>"}"#,
        "\n",
        r#"{"log": "\u003ctool_call\u003e{\"name\": \"search\", \"arguments\": {\"q\": 2}}\u003c/tool_call\u003e"}"#,
        "\n",
        r#"{"tool": "run", "params": {"cmd": "echo \"<b>\""}}"#,
        "\n",
        r#"{"log": "\u003ctool_call\u003e\n\u003cfunction=get_weather\u003e\n\u003cparameter=city\u003e\nParis\n\u003c/parameter\u003e\n\u003c/function\u003e\n\u003c/tool_call\u003e"}"#,
        "\n",
    );
    let (records, stderr) = run_json(&["extract"], lines);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(
        name_arguments(&records),
        [
            ("search".to_owned(), serde_json::json!({"q": "a \"b\""})),
            ("search".to_owned(), serde_json::json!({"q": 2})),
            ("run".to_owned(), serde_json::json!({"cmd": "echo \"<b>\""})),
            (
                "get_weather".to_owned(),
                serde_json::json!({"city": "Paris"})
            ),
        ]
    );
}

/// A result without an id right after a turn whose calls have none (a SWE-agent
/// observation after its action, tool messages after calls written in text) answers
/// them in order, or the first of the tool it names: it takes that call's name and
/// turn, and each call is answered once.
#[test]
fn results_without_ids_answer_the_calls_of_the_turn_before_in_order() {
    let brief = |records: &[serde_json::Value]| -> Vec<String> {
        records
            .iter()
            .map(|r| {
                format!(
                    "{} {} {}",
                    r["type"].as_str().unwrap(),
                    r["name"].as_str().unwrap_or("-"),
                    r["source"]["turn"]
                )
            })
            .collect()
    };
    let records = json_records(
        &[
            "extract",
            "--with-results",
            "fixtures/swe-agent/xml-actions.traj",
        ],
        "",
    );
    assert_eq!(
        brief(&records)[..4],
        [
            "call bash 0",
            "result bash 0",
            "call bash 1",
            "result bash 1"
        ]
    );
    let messages = r#"{"messages":[
        {"role":"user","content":"go"},
        {"role":"assistant","content":"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"h\", \"arguments\": {}}</tool_call>"},
        {"role":"tool","name":"h","content":"H"},
        {"role":"tool","content":"F"},
        {"role":"tool","content":"G"},
        {"role":"tool","content":"no call left"}]}"#;
    assert_eq!(
        brief(&json_records(&["extract", "--with-results"], messages)),
        [
            "call f 0",
            "call g 0",
            "call h 0",
            "result h 0",
            "result f 0",
            "result g 0",
            "result - 0"
        ]
    );
}

/// A hosted tool's item that names its tool and gives arguments (xAI's
/// `code_interpreter_call` with `call_id: ""`) is a call named by its item's id, whole
/// or streamed; OpenAI's built-in `web_search_call`, with an `action` and no name, is
/// not.
#[test]
fn hosted_tools_that_name_their_tool_are_calls() {
    let hosted = r#"{"type":"code_interpreter_call","id":"fc_1","call_id":"","name":"code_execution","arguments":"{\"code\":\"print(1)\"}","status":"completed"}"#;
    let builtin = r#"{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"rust"}}"#;
    // Names a tool and gives arguments, but asks for approval: not a call.
    let approval = r#"{"type":"mcp_approval_request","id":"mcpr_1","server_label":"exa","name":"search","arguments":"{\"q\":1}"}"#;
    let message = r#"{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"1"}]}"#;
    let whole = format!(
        r#"{{"object":"response","id":"r1","status":"completed","output":[{approval},{hosted},{builtin},{message}]}}"#
    );
    let stream = [
        r#"{"type":"response.created","response":{"id":"r2","output":[]}}"#.to_owned(),
        format!(r#"{{"type":"response.output_item.done","output_index":0,"item":{approval}}}"#),
        format!(r#"{{"type":"response.output_item.added","output_index":0,"item":{builtin}}}"#),
        format!(r#"{{"type":"response.output_item.done","output_index":0,"item":{builtin}}}"#),
        format!(r#"{{"type":"response.output_item.added","output_index":1,"item":{hosted}}}"#),
        format!(r#"{{"type":"response.output_item.done","output_index":1,"item":{hosted}}}"#),
        r#"{"type":"response.completed","response":{"id":"r2","output":[]}}"#.to_owned(),
    ]
    .join("\n");
    // convert reads the same items the same way.
    let converted = json_records(&["convert", "--to", "json"], &whole);
    let parts: Vec<&serde_json::Value> = converted[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "call")
        .collect();
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0]["name"], "code_execution");
    assert_eq!(parts[0]["id"], "fc_1");
    for input in [whole, stream] {
        let calls = json_records(&["extract"], &input);
        assert_eq!(calls.len(), 1, "{input}");
        assert_eq!(calls[0]["name"], "code_execution");
        assert_eq!(calls[0]["id"], "fc_1");
        assert_eq!(
            calls[0]["arguments"],
            serde_json::json!({"code": "print(1)"})
        );
    }
}

/// Groq's `executed_tools` (tools the API ran while it answered) are calls named by
/// their `type`, answered by their `output`; each gets the id `convert` gives it.
#[test]
fn executed_tools_are_calls_answered_by_their_output() {
    let response = r#"{"object":"chat.completion","id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"3.14",
        "executed_tools":[
            {"index":0,"type":"search","arguments":"{\"query\": \"python\"}","output":"found"},
            {"index":1,"type":"visit","arguments":"{\"url\": \"https://python.org\"}","output":"page"}]}}]}"#;
    let records = json_records(&["extract", "--with-results"], response);
    let rows: Vec<(String, String, String)> = records
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
            (s("type"), s("name"), s("id"))
        })
        .collect();
    let converted = json_records(&["convert", "--to", "json"], response);
    let ids: Vec<String> = converted[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap().iter())
        .filter(|p| p["type"] == "call")
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(ids[0] != ids[1]);
    let row = |t: &str, n: &str, i: &str| (t.to_owned(), n.to_owned(), i.to_owned());
    assert_eq!(
        rows,
        [
            row("call", "search", &ids[0]),
            row("call", "visit", &ids[1]),
            row("result", "search", &ids[0]),
            row("result", "visit", &ids[1]),
        ]
    );
    assert_eq!(records[2]["content"], "found");
    assert_eq!(
        records[0]["arguments"],
        serde_json::json!({"query": "python"})
    );
}

/// A call the json channel read from Groq's `failed_generation`, which the next
/// request replays under an id the client made up: its result names the call's tool
/// and belongs to the call's turn.
#[test]
fn a_result_of_a_replayed_text_call_answers_it() {
    let out = toolsift()
        .args(["extract", "--with-results"])
        .arg("fixtures/corpus/cassettes/pydantic-ai-groq-tool-use-failed.yaml")
        .output()
        .unwrap();
    assert!(out.status.success());
    let records: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (call, result) = (&records[0], &records[1]);
    assert_eq!(call["type"], "call");
    assert_eq!(call["channel"], "json");
    assert_eq!(result["type"], "result");
    assert_eq!(result["id"], "pyd_ai_445dbde6c4764cafb5782bb928ef6c2c");
    assert_eq!(result["name"], call["name"]);
    assert_eq!(result["source"]["turn"], call["source"]["turn"]);
}

/// xAI's gRPC `ROLE_TOOL` messages in a request name no call: they answer the calls of
/// the message before them, in order.
#[test]
fn xai_tool_messages_answer_the_calls_before_them_in_order() {
    let out = toolsift()
        .args(["extract", "--with-results"])
        .arg("fixtures/corpus/xai/test_xai_request_tool_call.xai.yaml")
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Vec<(String, String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
            (s("type"), s("id"), r["content"].to_string())
        })
        .collect();
    let results: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r.0 == "result")
        .map(|r| (r.1.as_str(), r.2.as_str()))
        .collect();
    let calls: Vec<&str> = rows
        .iter()
        .filter(|r| r.0 == "call")
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(calls, ["call_56494531", "call_28585237"]);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, "call_56494531");
    assert!(results[0].1.contains("Fix the errors"), "{:?}", results[0]);
    assert_eq!(results[1].0, "call_28585237");
    assert!(results[1].1.contains("lat"), "{:?}", results[1]);
}

/// Streamed, Groq repeats each `executed_tools` entry whole in later chunks, the last
/// with its output: one call per entry, with the id the whole response gives it, and
/// its result.
#[test]
fn streamed_executed_tools_are_one_call_each_with_their_result() {
    let entry = |output: &str| {
        format!(r#"{{"index":0,"type":"search","arguments":"{{\"query\": \"python\"}}"{output}}}"#)
    };
    let chunk = |delta: String| {
        format!(
            r#"data: {{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{delta}}}]}}"#
        )
    };
    let stream = [
        chunk(r#"{"role":"assistant"}"#.to_owned()),
        chunk(format!(r#"{{"executed_tools":[{}]}}"#, entry(""))),
        chunk(format!(
            r#"{{"executed_tools":[{}]}}"#,
            entry(r#","output":"found""#)
        )),
        chunk(r#"{"content":"3.14"}"#.to_owned()),
        "data: [DONE]".to_owned(),
    ]
    .join("\n\n");
    let whole = format!(
        r#"{{"object":"chat.completion","id":"c1","choices":[{{"index":0,"message":{{"role":"assistant","content":"3.14","executed_tools":[{}]}}}}]}}"#,
        entry(r#","output":"found""#)
    );
    let rows = |input: &str| -> Vec<(String, String, String, String)> {
        json_records(&["extract", "--with-results"], input)
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
                (s("type"), s("name"), s("id"), r["content"].to_string())
            })
            .collect()
    };
    let streamed = rows(&stream);
    assert_eq!(streamed, rows(&whole));
    assert_eq!(streamed.len(), 2, "{streamed:?}");
    assert_eq!(streamed[0].0, "call");
    assert_eq!(streamed[1].0, "result");
    assert_eq!(streamed[1].2, streamed[0].2);
    assert_eq!(streamed[1].3, "\"found\"");
}

/// A Responses `mcp_call` holds its own result (`output`, or `error`): written as a
/// result of the call, after the model's items of the turn, whole or streamed.
#[test]
fn mcp_calls_hold_their_results() {
    let ok = r#"{"type":"mcp_call","id":"mcp_1","server_label":"exa","name":"search","arguments":"{\"q\":1}","output":"found","error":null}"#;
    let failed = r#"{"type":"mcp_call","id":"mcp_2","server_label":"exa","name":"search","arguments":"{\"q\":2}","output":null,"error":"boom"}"#;
    let message =
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}"#;
    let whole = format!(
        r#"{{"object":"response","id":"r","status":"completed","output":[{ok},{failed},{message}]}}"#
    );
    let stream = [
        r#"{"type":"response.created","response":{"id":"r2","output":[]}}"#.to_owned(),
        format!(r#"{{"type":"response.output_item.done","output_index":0,"item":{ok}}}"#),
        format!(r#"{{"type":"response.output_item.done","output_index":1,"item":{failed}}}"#),
        r#"{"type":"response.completed","response":{"id":"r2","output":[]}}"#.to_owned(),
    ]
    .join("\n");
    for input in [whole, stream] {
        let rows: Vec<(String, String, String, String, bool)> =
            json_records(&["extract", "--with-results"], &input)
                .iter()
                .map(|r| {
                    let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
                    (
                        s("type"),
                        s("name"),
                        s("id"),
                        s("content"),
                        r["is_error"] == true,
                    )
                })
                .collect();
        let row = |t: &str, i: &str, c: &str, e: bool| {
            (
                t.to_owned(),
                "search".to_owned(),
                i.to_owned(),
                c.to_owned(),
                e,
            )
        };
        assert_eq!(
            rows,
            [
                row("call", "mcp_1", "-", false),
                row("call", "mcp_2", "-", false),
                row("result", "mcp_1", "found", false),
                row("result", "mcp_2", "boom", true),
            ],
            "{input}"
        );
    }
}

/// xAI's gRPC stream chunks are one response: text split across chunks is read
/// joined (a call written in it is never read from a piece), and a `ROLE_TOOL` delta
/// answers the server-side call it repeats.
#[test]
fn xai_stream_chunks_are_one_response() {
    let recording = std::fs::read_to_string(
        common::root()
            .join("fixtures/corpus/xai/test_xai_builtin_code_execution_tool_stream.xai.yaml"),
    )
    .unwrap();
    let answer = "    - chunk:\n        id: eaf49755-15fc-a6fa-3c32-30a8c4df5bb7\n        outputs:\n        - delta:\n            content: '4'\n            role: ROLE_ASSISTANT\n          index: 2\n";
    assert!(recording.contains(answer));
    let pieces = ["The answer is ", "4, said get_wea", "ther(city=1)."];
    let split: String = pieces
        .iter()
        .map(|p| answer.replace("content: '4'", &format!("content: '{p}'")))
        .collect();
    let input = recording.replacen(answer, &split, 1);
    let records = json_records(&["extract", "--with-text", "--with-results"], &input);
    let texts: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "text")
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, [pieces.concat()]);
    let kinds: Vec<(&str, &str)> = records
        .iter()
        .filter(|r| r["type"] != "text")
        .map(|r| (r["type"].as_str().unwrap(), r["id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [("call", "call_02414781"), ("result", "call_02414781")]
    );
}

/// Tool messages that name no call (Ollama's `role: tool`, xAI's `ROLE_TOOL`) answer
/// the calls of the message before them in order.
#[test]
fn tool_messages_without_ids_answer_the_calls_before_them_in_order() {
    let history = r#"{"messages":[
        {"role":"user","content":"weather and time?"},
        {"role":"assistant","content":"","tool_calls":[
            {"id":"c1","function":{"name":"weather","arguments":{"city":"Paris"}}},
            {"id":"c2","function":{"name":"time","arguments":{"tz":"CET"}}}]},
        {"role":"tool","content":"sunny"},
        {"role":"tool","content":"noon"}]}"#;
    let results: Vec<(String, String, String)> =
        json_records(&["extract", "--with-results"], history)
            .iter()
            .filter(|r| r["type"] == "result")
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
                (s("id"), s("name"), s("content"))
            })
            .collect();
    let row = |i: &str, n: &str, c: &str| (i.to_owned(), n.to_owned(), c.to_owned());
    assert_eq!(
        results,
        [row("c1", "weather", "sunny"), row("c2", "time", "noon")]
    );
}
