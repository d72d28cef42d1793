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
}

/// The spans of the calls the engine chooses in `text` read as one assistant message:
/// (start, end, dialect, channel).
fn spans(text: &str, all: bool) -> Vec<(usize, usize, &'static str, String)> {
    use toolsift::dialects::{Channel, Registry};
    use toolsift::engine::{Engine, Options, Reasoning};
    use toolsift::model::{Role, Text, Turn};
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
    };
    let mut out = toolsift::output::Output::new(Box::new(std::io::sink()), false);
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
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
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
