//! The json and text channels as a user meets them: fallback per turn, --all,
//! reasoning, --with-text, --strict, --stats, --dialects, --tools, --roles.

use crate::common;
use crate::common::{Record, extract, records, toolsift};
use predicates::prelude::*;
use std::io::Write;

fn summary(recs: &[Record]) -> Vec<(String, String, u64)> {
    recs.iter()
        .filter_map(|r| match r {
            Record::Call {
                name,
                channel,
                source,
                ..
            } => Some((name.clone(), channel.clone(), source.turn)),
            _ => None,
        })
        .collect()
}

fn owned(v: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    v.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), *c))
        .collect()
}

const FALLBACK: &str = "fixtures/channels/fallback.jsonl";

#[test]
fn channels_fall_back_per_turn() {
    // Turn 0: native wins over a call in its text. 1: Hermes (json). 2: Cline (text).
    // 3: the native call is invalid, so the valid call in the text wins. 4: nothing.
    // The user's example call is never read.
    assert_eq!(
        summary(&extract(&[FALLBACK])),
        owned(&[
            ("native", "tool", 0),
            ("hermes_call", "json", 1),
            ("read_file", "text", 2),
            ("fixed", "json", 3)
        ])
    );
}

#[test]
fn all_reports_every_channel() {
    assert_eq!(
        summary(&extract(&["--all", FALLBACK])),
        owned(&[
            ("native", "tool", 0),
            ("from_text", "json", 0),
            ("hermes_call", "json", 1),
            ("read_file", "text", 2),
            ("broken", "tool", 3),
            ("fixed", "json", 3),
        ])
    );
}

/// With --all, a span read by two channels is one call: the longer reading (a JSON call
/// quoted in an XML call's value is part of that value), however many calls the text
/// holds.
#[test]
fn all_reads_a_span_once() {
    let nested = "<write_to_file>\n<path>a.json</path>\n<content>\n{\"name\": \"f\", \"arguments\": {}}\n</content>\n</write_to_file>\n";
    let separate = "<tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>\n";
    // Overlapping without nesting: a JSON call that starts inside the XML call's value
    // and ends after it. The XML call is the longer span; the JSON one ends later.
    let crossing = "<write_to_file>\n<path>notes/a-very-long-path-name-for-the-file.md</path>\n<content>\nSome text first.\n{\"name\": \"f\", \"arguments\": {\"x\": \"\n</content>\n</write_to_file>\n\"}}\n";
    for (text, want) in [
        (nested.to_owned(), vec![("write_to_file", "text", 0)]),
        (crossing.to_owned(), vec![("write_to_file", "text", 0)]),
        // Calls back to back share no byte: both stand, whichever is longer.
        (
            "{\"name\": \"f\", \"arguments\": {}}<read_file>\n<path>a-long-path/to/some/file.txt</path>\n</read_file>\n".to_owned(),
            vec![("f", "json", 0), ("read_file", "text", 0)],
        ),
        (
            "{\"name\": \"f\", \"arguments\": {\"a\": \"a long value, longer than the XML call\"}}<read_file><path>a</path></read_file>\n".to_owned(),
            vec![("f", "json", 0), ("read_file", "text", 0)],
        ),
        (
            format!("{nested}{separate}"),
            vec![("g", "json", 0), ("write_to_file", "text", 0)],
        ),
    ] {
        let out = toolsift()
            .args(["extract", "--all"])
            .write_stdin(text)
            .output()
            .unwrap();
        assert_eq!(summary(&records(&out.stdout)), owned(&want));
    }
}

#[test]
fn formats_change_the_order_and_the_set() {
    assert_eq!(
        summary(&extract(&["-f", "json,tool", FALLBACK])),
        owned(&[
            ("from_text", "json", 0),
            ("hermes_call", "json", 1),
            ("fixed", "json", 3)
        ])
    );
    // Only the tool channel: the invalid call is reported, not dropped.
    let recs = extract(&["-f", "tool", FALLBACK]);
    assert_eq!(
        summary(&recs),
        owned(&[("native", "tool", 0), ("broken", "tool", 3)])
    );
    assert!(matches!(
        &recs[1],
        Record::Call {
            valid: Some(false),
            ..
        }
    ));
}

#[test]
fn roles_widen_to_user_examples() {
    let recs = extract(&["--roles", "assistant,user", FALLBACK]);
    assert_eq!(recs.len(), 5);
    assert_eq!(recs[0].name(), Some("example"));
}

#[test]
fn reasoning_calls_are_a_fallback_by_default() {
    let only = "fixtures/reasoning/only-in-thinking.txt";
    let both = "fixtures/reasoning/inside-and-outside.txt";
    let recs = extract(&[only]);
    assert!(matches!(
        &recs[..],
        [Record::Call {
            in_reasoning: Some(true),
            ..
        }]
    ));
    assert_eq!(
        extract(&[both])
            .iter()
            .map(|r| r.name().unwrap())
            .collect::<Vec<_>>(),
        ["read_file"]
    );
    assert!(extract(&["--reasoning", "exclude", only]).is_empty());
    assert_eq!(extract(&["--reasoning", "include", both]).len(), 2);
    // A valid call in reasoning does not stop the later channels from being read: the
    // text channel's call outside it wins over the json channel's inside.
    let across = "fixtures/reasoning/inside-json-outside-text.txt";
    assert_eq!(
        summary(&extract(&[across])),
        owned(&[("read_file", "text", 0)])
    );
}

#[test]
fn thinking_blocks_count_as_reasoning() {
    let message = r#"{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"thinking","thinking":"call {\"name\": \"plan\", \"arguments\": {}}"},{"type":"text","text":"Done."}]}"#;
    let out = toolsift()
        .arg("extract")
        .write_stdin(message)
        .output()
        .unwrap();
    let recs = records(&out.stdout);
    assert!(
        matches!(
            &recs[..],
            [Record::Call {
                in_reasoning: Some(true),
                ..
            }]
        ),
        "{recs:?}"
    );
}

#[test]
fn with_text_reproduces_the_message() {
    let out = toolsift()
        .args(["extract", "--with-text", "fixtures/natural/v2.txt"])
        .output()
        .unwrap();
    let lines: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "call", "call", "text"]);
    assert_eq!(lines[0]["text"], "Checking two things.\n");
    assert!(
        lines[3]["text"]
            .as_str()
            .unwrap()
            .contains("<tool_call name=Broken>")
    );
    // Text records carry their source; with no call the whole message is text.
    let out = toolsift()
        .args(["extract", "--with-text", "fixtures/text/decoys.md"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.starts_with("{\"type\":\"text\",\"text\":\"# Configuring the service"));
}

#[test]
fn strict_reports_what_would_need_a_repair() {
    let input = "{\"name\": \"f\", \"arguments\": {\"a\": 1,},}";
    let lenient = records(
        &toolsift()
            .arg("extract")
            .write_stdin(input)
            .output()
            .unwrap()
            .stdout,
    );
    assert!(
        matches!(&lenient[..], [Record::Call { repairs: Some(r), valid: None, .. }] if r == &["trailing-comma"])
    );
    let strict = records(
        &toolsift()
            .args(["extract", "--strict"])
            .write_stdin(input)
            .output()
            .unwrap()
            .stdout,
    );
    match &strict[..] {
        [
            Record::Call {
                valid: Some(false),
                arguments_raw: Some(raw),
                errors: Some(errors),
                ..
            },
        ] => {
            assert_eq!(raw, input);
            assert!(errors[0].contains("--strict"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn stats_go_to_stderr() {
    toolsift()
        .args(["extract", "--stats", FALLBACK])
        .assert()
        .success()
        .stderr(
            predicate::str::contains("toolsift: stats: 5 turns, 4 with calls, 3 fallbacks")
                .and(predicate::str::contains("text     cline-xml")),
        )
        .stdout(predicate::str::contains("hermes_call"));
}

#[test]
fn dialects_restrict_and_select() {
    assert_eq!(
        extract(&["--dialects", "cline-xml", FALLBACK])
            .iter()
            .map(|r| r.name().unwrap())
            .collect::<Vec<_>>(),
        ["read_file"]
    );
    // WIL outside its sentinels only when named.
    let wil = "close window w1\nfocus window w2\n";
    let none = records(
        &toolsift()
            .arg("extract")
            .write_stdin(wil)
            .output()
            .unwrap()
            .stdout,
    );
    assert!(none.is_empty());
    let named = records(
        &toolsift()
            .args(["extract", "--dialects", "wil"])
            .write_stdin(wil)
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(
        named.iter().map(|r| r.name().unwrap()).collect::<Vec<_>>(),
        ["window.close", "window.focus"]
    );
    toolsift()
        .args(["extract", "--dialects", "klingon", FALLBACK])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown dialect 'klingon'"));
}

#[test]
fn tools_limit_tag_named_calls_to_declared_names() {
    let mut tools = tempfile::NamedTempFile::new().unwrap();
    write!(tools, r#"[{{"type":"function","function":{{"name":"get_weather","parameters":{{"type":"object"}}}}}},{{"type":"function","function":{{"name":"deploy_app","parameters":{{}}}}}}]"#).unwrap();
    let tools_path = tools.path().to_str().unwrap();
    // <GetWeather> is not declared (get_weather is): not a call.
    assert!(extract(&["--tools", tools_path, "fixtures/natural/v1.txt"]).is_empty());
    let input = "<GET_WEATHER>{\"location\": \"Oslo\"}</GET_WEATHER>\n<deploy_app>\n<env>prod</env>\n</deploy_app>";
    let out = toolsift()
        .args(["extract", "--tools", tools_path])
        .write_stdin(input)
        .output()
        .unwrap();
    let recs = records(&out.stdout);
    assert_eq!(
        recs.iter().map(|r| r.name().unwrap()).collect::<Vec<_>>(),
        ["get_weather", "deploy_app"]
    );
    let mut bad = tempfile::NamedTempFile::new().unwrap();
    write!(bad, "[1, 2, 3]").unwrap();
    toolsift()
        .args([
            "extract",
            "--tools",
            bad.path().to_str().unwrap(),
            "fixtures/natural/v1.txt",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no tools found (expected an OpenAI tools array",
        ));
}

#[test]
fn decoys_yield_nothing() {
    toolsift()
        .args(["extract", "fixtures/text/decoys.md"])
        .assert()
        .success()
        .stdout("")
        .stderr("");
}

#[test]
fn a_turn_with_several_dialects_keeps_message_order() {
    let text = "First <tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call> then [TOOL_CALLS]b[ARGS]{}";
    let recs = records(
        &toolsift()
            .arg("extract")
            .write_stdin(text)
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(
        recs.iter().map(|r| r.name().unwrap()).collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn with_no_valid_call_the_first_channel_that_found_any_is_reported() {
    // Every call breaks its contract (kelvin is no unit). Turn 0: native (A), json (B)
    // and text (C) calls; turn 1: no native call, text (E) before json (D) in the text.
    let input = concat!(
        r#"{"role": "assistant", "content": "Text: <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"B\", \"unit\": \"kelvin\"}}</tool_call> and <function=get_weather>\n<parameter=city>\nC\n</parameter>\n<parameter=unit>\nkelvin\n</parameter>\n</function>", "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"A\", \"unit\": \"kelvin\"}"}}]}"#,
        "\n",
        r#"{"role": "assistant", "content": "<function=get_weather>\n<parameter=city>\nE\n</parameter>\n<parameter=unit>\nkelvin\n</parameter>\n</function> then <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"D\", \"unit\": \"kelvin\"}}</tool_call>"}"#,
        "\n",
    );
    let run = |formats: &str| {
        let out = toolsift()
            .args(["extract", "--tools", "tests/data/contracts/openai.json"])
            .args(["-f", formats])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success());
        records(&out.stdout)
            .iter()
            .map(|r| match r {
                Record::Call {
                    arguments,
                    channel,
                    valid,
                    source,
                    ..
                } => {
                    assert_eq!(*valid, Some(false));
                    format!("{} {} {}", source.turn, channel, arguments["city"])
                }
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run("tool,json,text"), [r#"0 tool "A""#, r#"1 json "D""#]);
    assert_eq!(run("json,tool,text"), [r#"0 json "B""#, r#"1 json "D""#]);
    assert_eq!(run("text,json,tool"), [r#"0 text "C""#, r#"1 text "E""#]);
}

/// The output of the options that add to or change records, pinned whole: record kinds
/// and fields, their order, and the calls each option keeps.
#[test]
fn option_outputs_match_their_snapshots() {
    for (name, args) in [
        ("with_text", &["--with-text", FALLBACK][..]),
        ("all", &["--all", FALLBACK]),
        ("strict", &["--strict", "fixtures/hermes/qwen-parallel.txt"]),
        (
            "tools",
            &[
                "--tools",
                "tests/data/contracts/openai.json",
                "tests/data/check/",
            ],
        ),
    ] {
        let out = toolsift().arg("extract").args(args).output().unwrap();
        assert!(out.status.success(), "{name}");
        records(&out.stdout);
        insta::assert_snapshot!(
            format!("extract_{name}"),
            String::from_utf8(out.stdout).unwrap()
        );
    }
}

#[test]
fn stats_of_several_files_are_summed_on_any_number_of_threads() {
    let want = "toolsift: stats: 8 turns, 7 with calls, 5 fallbacks to a later channel
toolsift: stats: channel  dialect                calls  invalid  repaired
toolsift: stats: tool     openai                     3        0         0
toolsift: stats: json     hermes                     5        1         1
toolsift: stats: json     json-name-arguments        1        0         0
toolsift: stats: text     cline-xml                  1        0         0
";
    for jobs in ["1", "2", "3"] {
        toolsift()
            .args(["extract", "--stats", "-j", jobs, FALLBACK])
            .args([
                "fixtures/hermes/qwen-parallel.txt",
                "fixtures/openai-chat/parallel-tool-calls.json",
                "fixtures/hermes/invalid-arguments.txt",
            ])
            .assert()
            .success()
            .stderr(want);
    }
}

#[test]
fn with_all_a_call_its_text_repeats_is_one_call() {
    // The message's content restates its native call as JSON: the same call at the same
    // place, found by two channels, is reported once (by the first), while a call with
    // other arguments in the text is a call of its own.
    let input = concat!(
        r#"{"role":"assistant","content":"{\"name\": \"f\", \"arguments\": {\"a\": 1}}","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}"#,
        "\n",
        r#"{"role":"assistant","content":"{\"name\": \"f\", \"arguments\": {\"a\": 2}}","tool_calls":[{"id":"c2","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}"#,
        "\n"
    );
    let out = toolsift()
        .args(["extract", "--all", "--input", "jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success());
    let got: Vec<(String, Option<String>, u64)> = common::records(&out.stdout)
        .iter()
        .map(|r| {
            (
                r.name().unwrap().to_owned(),
                r.id().map(str::to_owned),
                r.line(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("f".to_owned(), Some("c1".to_owned()), 1),
            ("f".to_owned(), Some("c2".to_owned()), 2),
            ("f".to_owned(), None, 2),
        ]
    );
}

/// A LangGraph stream, as its API sends it: run metadata, `[chunk, metadata]` message
/// tuples and `values` snapshots. The text is the model's, once; the metadata event and
/// the chunks' run metadata are not text, and the snapshots repeat what was streamed.
#[test]
fn a_langgraph_stream_gives_each_call_result_and_text_once() {
    let out = toolsift()
        .args([
            "extract",
            "--with-text",
            "--with-results",
            "fixtures/langchain/langgraph-messages-stream.jsonl",
            "fixtures/langchain/langgraph-api-messages.sse",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    records(&out.stdout);
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            match v["type"].as_str().unwrap() {
                "call" => format!("call {} {} {}", v["name"], v["id"], v["arguments"]),
                "result" => format!("result {} {}", v["id"], v["content"]),
                _ => format!("text {}", v["text"]),
            }
        })
        .collect();
    assert_eq!(
        got,
        [
            r#"call "get_weather" "call_p" {"city":"Paris"}"#,
            r#"call "get_weather" "call_r" {"city":"Rome"}"#,
            r#"result "call_p" "Paris: sunny""#,
            r#"result "call_r" "Rome: cloudy""#,
            r#"text "Paris is sunny; Rome is cloudy.""#,
            r#"call "get_weather" "call_9" {"city":"sf"}"#,
            r#"result "call_9" "sunny""#,
        ]
    );
}
