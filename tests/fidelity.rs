//! Dialect fidelity (issue 20): agree with each inference server's own parser, and
//! where toolsift differs on purpose, say so (fixtures/models/SOURCES.md).

use crate::common;
use crate::common::toolsift;
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
}

/// The spans of the calls the engine chooses in `text` read as one assistant message:
/// (start, end, dialect, channel).
fn spans(text: &str, all: bool) -> Vec<(usize, usize, &'static str, String)> {
    use toolsift::{Channel, Registry};
    use toolsift::{Engine, Options, Reasoning};
    use toolsift::{Role, Text, Turn};
    let options = Options {
        formats: Channel::ALL.to_vec(),
        all,
        with_results: false,
        with_text: true,
        roles: vec![Role::Assistant],
        dialects: None,
        contracts: Default::default(),
        registry: Registry::builtin(),
        strict: false,
        reasoning: Reasoning::Include,
        manifest: None,
    };
    let mut out = toolsift::Output::new(Box::new(std::io::sink()), false);
    let mut engine = Engine::new(options, &mut out);
    let mut turn = Turn::new(Role::Assistant, 1);
    turn.texts.push(Text::new(text, 1, false, true));
    engine
        .calls_in_texts(&turn)
        .into_iter()
        .map(|(call, _, start, end)| (start, end, call.dialect, call.name))
        .collect()
}

/// Every fixture, read whole as one assistant message (a transcript's raw JSON is text
/// too), with every channel reporting and with the first that yields: two calls never
/// come from overlapping text, except the calls of one construct (a JSON list of
/// calls, a wrapper of several invokes), which share its span and dialect.
#[test]
fn no_span_yields_two_calls_in_any_fixture() {
    let mut failures = Vec::new();
    let mut files = vec![common::root().join("fixtures")];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        // The providers' request schemas are not transcripts.
        if path.is_dir() {
            if !path.ends_with("api-schemas") {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            }
            continue;
        }
        // Provenance notes and scripts are not inputs.
        if path.file_name().is_some_and(|n| n == "SOURCES.md")
            || path.extension().is_some_and(|e| e == "py")
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        checked += 1;
        for all in [true, false] {
            let found = spans(&text, all);
            for (i, a) in found.iter().enumerate() {
                for b in &found[i + 1..] {
                    let overlap = a.0 < b.1 && b.0 < a.1;
                    let one_construct = (a.0, a.1, a.2) == (b.0, b.1, b.2);
                    if overlap && !one_construct {
                        failures.push(format!(
                            "{} (all={all}): {} {}..{} [{}] and {} {}..{} [{}]",
                            path.strip_prefix(common::root()).unwrap().display(),
                            a.3,
                            a.0,
                            a.1,
                            a.2,
                            b.3,
                            b.0,
                            b.1,
                            b.2
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} fixtures");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Qwen3 and DeepSeek-R1/V4 templates put `<think>` in the prompt: a completion starts
/// inside the reasoning, and a call quoted there is reasoning.
#[test]
fn text_before_a_bare_closing_think_is_reasoning() {
    let records = extract(
        &std::fs::read_to_string(common::root().join("fixtures/reasoning/prefilled-think.json"))
            .unwrap(),
        &["--reasoning", "include"],
    );
    let got: Vec<(&str, bool)> = records
        .iter()
        .map(|r| {
            (
                r["arguments"]["city"].as_str().unwrap(),
                r.get("in_reasoning") == Some(&json!(true)),
            )
        })
        .collect();
    assert_eq!(got, [("Rome", true), ("Paris", false)]);
}

/// Command R's `Action: ```json` form: `{tool_name, parameters}` objects are command-r
/// calls, and its `directly-answer` (answering without a tool) is no call. A Python
/// literal that Python reads as infinity (`1e999`) is no value: that call is invalid,
/// its neighbours stand.
#[test]
fn command_r_actions_and_python_infinity() {
    let action = |name: &str| {
        format!(
            "Action: ```json\n[\n    {{\n        \"tool_name\": \"{name}\",\n        \"parameters\": {{\"query\": \"x\"}}\n    }}\n]\n```"
        )
    };
    assert!(extract(&action("directly-answer"), &[]).is_empty());
    let got = extract(&action("internet_search"), &[]);
    assert_eq!(
        (got.len(), &got[0]["name"], &got[0]["dialect"]),
        (1, &json!("internet_search"), &json!("command-r"))
    );
    let got = extract("[calc(x=1e999), get_weather(city='SF')]", &[]);
    let brief: Vec<(&Value, &Value)> = got.iter().map(|r| (&r["name"], &r["valid"])).collect();
    assert_eq!(
        brief,
        [
            (&json!("calc"), &json!(false)),
            (&json!("get_weather"), &Value::Null)
        ]
    );
}

/// (name, valid, arguments_raw) of each call record.
fn brief(records: &[Value]) -> Vec<(String, bool, Option<String>)> {
    records
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["valid"] != json!(false),
                r["arguments_raw"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// Class H: arguments whose JSON is broken end at their call's own close marker (or at
/// the next call's opening, for rows without one), invalid with the text up to it;
/// the next call is read. Every marker row that names the call outside its JSON.
#[test]
fn broken_arguments_end_at_their_own_marker_in_every_named_row() {
    let cases = [
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.bad:0 <|tool_call_argument_begin|>{\"q\": \"a\"<|tool_call_end|><|tool_call_begin|>functions.good:1 <|tool_call_argument_begin|>{\"q\": \"b\"}<|tool_call_end|><|tool_calls_section_end|>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>bad<｜tool▁sep｜>{\"q\": \"a\"<｜tool▁call▁end｜><｜tool▁call▁begin｜>good<｜tool▁sep｜>{\"q\": \"b\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>bad\n```json\n{\"q\": \"a\"\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>good\n```json\n{\"q\": \"b\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "<function=bad>{\"q\": \"a\"</function>\n<function=good>{\"q\": \"b\"}</function>",
        "<tool_call>bad\n{\"q\": \"a\"\n</tool_call>\n<tool_call>good\n{\"q\": \"b\"}\n</tool_call>",
        "[TOOL_CALLS]bad[ARGS]{\"q\": \"a\"[TOOL_CALLS]good[ARGS]{\"q\": \"b\"}",
        ">>>bad\n{\"q\": \"a\"\n>>>good\n{\"q\": \"b\"}",
        "functions.bad:0{\"q\": \"a\" functions.good:1{\"q\": \"b\"}",
        "Sure. bad[ARGS]{\"q\": \"a\" good[ARGS]{\"q\": \"b\"}",
    ];
    for text in cases {
        let got = brief(&extract(text, &[]));
        assert_eq!(
            got,
            [
                ("bad".into(), false, Some("{\"q\": \"a\"".into())),
                ("good".into(), true, None)
            ],
            "{text}"
        );
    }
    // A close marker written inside a string of JSON that reads whole is text.
    let got = extract(
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.echo:0 <|tool_call_argument_begin|>{\"s\": \"<|tool_call_end|>\"}<|tool_call_end|><|tool_calls_section_end|>",
        &[],
    );
    assert_eq!(got[0]["arguments"]["s"], "<|tool_call_end|>");
    // JSON rows: a block left open ends where the next block opens.
    let got = brief(&extract(
        "<tool_call>{\"name\": \"bad\", \"arguments\": {\"q\": \"a\"}\n<tool_call>{\"name\": \"good\", \"arguments\": {}}</tool_call>",
        &[],
    ));
    let names: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(names, ["bad", "good"]);
}

/// Class K: two call objects in one block with a comma between them are two calls, in
/// every row of JSON between markers.
#[test]
fn comma_separated_objects_in_one_block_are_all_calls() {
    for (open, close) in [
        ("<tool_call>", "</tool_call>"),
        ("<|action_start|><|plugin|>", "<|action_end|>"),
        ("<longcat_tool_call>", "</longcat_tool_call>"),
        ("<tool_calls>\n", "\n</tool_calls>"),
        ("<|python_tag|>", "<|eom_id|>"),
    ] {
        let text = format!(
            "{open}{{\"name\": \"first\", \"arguments\": {{\"n\": 1}}}}, {{\"name\": \"second\", \"parameters\": {{\"n\": 2}}}}{close}"
        );
        let got = extract(&text, &[]);
        let names: Vec<&str> = got.iter().map(|r| r["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["first", "second"], "{text}");
        assert_eq!(got[1]["arguments"]["n"], 2, "{text}");
    }
}

/// Class N: an Olmo 3 block reads each call on its own line: an unreadable one is
/// invalid with its text, the others stand.
#[test]
fn an_olmo3_block_keeps_its_readable_calls() {
    let got = brief(&extract(
        "<function_calls>fetch(url=b'x')\nsleep(seconds=2)\nping(host='a')</function_calls>",
        &[],
    ));
    assert_eq!(
        got,
        [
            ("fetch".into(), false, Some("url=b'x'".into())),
            ("sleep".into(), true, None),
            ("ping".into(), true, None)
        ]
    );
}

/// Class O: Gemma literals with no comma between two arguments are read, repaired.
#[test]
fn gemma_arguments_without_commas_are_a_repair() {
    for text in [
        "<start_function_call>call:find{term:<escape>rust<escape>page:<escape>2<escape>}<end_function_call>",
        "<|tool_call>call:find{term:<|\"|>rust<|\"|>page:<|\"|>2<|\"|>}<tool_call|>",
    ] {
        let got = extract(text, &[]);
        assert_eq!(got.len(), 1, "{text}");
        assert_eq!(got[0]["arguments"], json!({"term": "rust", "page": "2"}));
        assert_eq!(got[0]["repairs"], json!(["missing-comma"]));
        let strict = extract(text, &["--strict"]);
        assert_eq!(strict[0]["valid"], false);
    }
}

/// Class P: a pythonic string holding code with quotes of its own kind (and a raw line
/// break, and `\,`) is read whole; a call whose string still cannot be read is
/// reported invalid with its text, never dropped.
#[test]
fn pythonic_strings_holding_quoted_code_are_read() {
    let got = extract(
        "<|tool_call_start|>[sh(cmd='perl -e \"print(join('\\,', 1, 2))\n\"')]<|tool_call_end|>",
        &[],
    );
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0]["arguments"]["cmd"],
        "perl -e \"print(join('\\,', 1, 2))\n\""
    );
    // An argument that cannot be closed: the call is still reported, invalid.
    let got = brief(&extract(
        "<|tool_call_start|>[sh(cmd='a\"b'c'd)]<|tool_call_end|>",
        &[],
    ));
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].0.as_str(), got[0].1), ("sh", false));
    assert!(got[0].2.is_some());
}

/// Class M: GLM-4.6 output escaped once more (literal `\n` between the tags, `\"` in
/// the values) is read with the escapes undone, repaired.
#[test]
fn glm_output_escaped_once_more_is_a_repair() {
    let got = extract(
        r#"<tool_call>tag_items\n<arg_key>ids</arg_key>\n<arg_value>[\"a\", \"b\"]</arg_value>\n<arg_key>label</arg_key>\n<arg_value>say \"hi\"</arg_value>\n</tool_call>"#,
        &[],
    );
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["name"], "tag_items");
    assert_eq!(
        got[0]["arguments"],
        json!({"ids": ["a", "b"], "label": "say \"hi\""})
    );
    assert_eq!(got[0]["repairs"], json!(["escaped-text"]));
}

/// Reasoning regions of MiniMax-M3, Kimi K3, Inkling and Muse Glimmer: a call quoted
/// there is `in_reasoning`, and by default (a call outside exists) not reported.
#[test]
fn newer_reasoning_markers_hold_quoted_calls() {
    for stem in [
        "minimax-m3-think",
        "kimi-k3-think",
        "inkling-thinking",
        "muse-glimmer-self",
    ] {
        let text =
            std::fs::read_to_string(common::root().join(format!("fixtures/models/{stem}.txt")))
                .unwrap();
        let all = extract(&text, &["--reasoning", "include"]);
        let flags: Vec<bool> = all
            .iter()
            .map(|r| r.get("in_reasoning") == Some(&json!(true)))
            .collect();
        assert_eq!(flags, [true, false], "{stem}");
        assert_eq!(extract(&text, &[]).len(), 1, "{stem}");
    }
}
