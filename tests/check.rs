//! `toolsift check` and `toolsift tools render` as a CI job and a user meet them:
//! every output format (snapshots), exit codes, scenario assertions, JUnit that parses
//! as XML, every contract format, and validation driving channel fallback.

mod common;
use common::toolsift;
use predicates::prelude::*;
use quick_xml::events::Event;

const OPENAI: &str = "tests/data/contracts/openai.json";
const DATA: &str = "tests/data/check/";

fn check(args: &[&str]) -> (i32, String, String) {
    let out = toolsift().arg("check").args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const SCENARIO: &[&str] = &[
    "--tools",
    OPENAI,
    "--expect",
    "get_weather",
    "--forbid",
    "write_file",
    "--max-calls",
    "2",
];

#[test]
fn every_output_format() {
    for format in ["human", "json", "github", "junit"] {
        let mut args = SCENARIO.to_vec();
        args.extend(["--format", format, DATA]);
        let (code, stdout, stderr) = check(&args);
        assert_eq!(code, 1, "{format}: {stderr}");
        if format != "human" {
            // The summary goes to stderr so stdout stays machine-readable.
            assert_eq!(
                stderr,
                "toolsift: 3 files, 6 calls, 3 invalid, 1 unknown tool, 3 failed assertions\n"
            );
        }
        insta::assert_snapshot!(format!("check_{format}"), stdout);
    }
}

#[test]
fn exit_codes() {
    // Clean.
    let (code, stdout, _) = check(&["--tools", OPENAI, "tests/data/check/good.jsonl"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "1 file, 1 call, 0 invalid, 0 unknown tools\n")
    );
    // Findings.
    assert_eq!(
        check(&["--tools", OPENAI, "tests/data/check/bad.jsonl"]).0,
        1
    );
    // A file that cannot be read is an error, even with findings elsewhere.
    let (code, _, stderr) = check(&[
        "--tools",
        OPENAI,
        "no/such.jsonl",
        "tests/data/check/bad.jsonl",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no/such.jsonl: No such file or directory"),
        "{stderr}"
    );
    // Usage: unknown option, contracts that are not contracts, a schema that does not
    // compile (a remote $ref is refused, never fetched).
    assert_eq!(check(&["--frobnicate"]).0, 2);
    toolsift()
        .args(["check", "--tools", "tests/data/check/good.jsonl", DATA])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("not JSON").or(predicate::str::contains("no tools found")),
        );
    let mut remote = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(
        &mut remote,
        br#"{"f": {"$ref": "https://example.com/schemas/f.json"}}"#,
    )
    .unwrap();
    toolsift()
        .args(["check", "--tools"])
        .arg(remote.path())
        .arg(DATA)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "tool f: the schema does not compile",
        ));
}

#[test]
fn assertions_and_allowances() {
    let good = "tests/data/check/good.jsonl";
    let (code, stdout, _) = check(&["--expect", "send_email", good]);
    assert_eq!(code, 1);
    assert!(
        stdout.starts_with(
            "tests/data/check/good.jsonl: expected a call to send_email, found none\n"
        )
    );
    assert_eq!(check(&["--forbid", "get_weather", good]).0, 1);
    assert_eq!(check(&["--max-calls", "0", good]).0, 1);
    assert_eq!(
        check(&["--max-calls", "1", "--expect", "get_weather", good]).0,
        0
    );
    // Unknown tools and invalid calls can each be let through.
    let bad = "tests/data/check/bad.jsonl";
    let (_, stdout, _) = check(&["--tools", OPENAI, "--allow-unknown", bad]);
    assert!(
        !stdout.contains("unknown tool (") && stdout.contains("is not one of"),
        "{stdout}"
    );
    let (code, stdout, _) = check(&["--tools", OPENAI, "--allow-invalid", bad]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("unknown tool") && !stdout.contains("is not one of"),
        "{stdout}"
    );
    let (code, _, _) = check(&["--tools", OPENAI, "--allow-invalid", "--allow-unknown", bad]);
    assert_eq!(code, 0);
    // --require-valid is the default, and undoes an earlier --allow-invalid.
    assert_eq!(
        check(&["--tools", OPENAI, "--allow-invalid", "--require-valid", bad]).0,
        1
    );
    // Without contracts only unreadable calls are findings.
    let (code, stdout, _) = check(&[bad]);
    assert_eq!(code, 1);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
}

#[test]
fn junit_is_well_formed_xml() {
    let mut args = SCENARIO.to_vec();
    args.extend(["--format", "junit", DATA]);
    let (_, stdout, stderr) = check(&args);
    // Nothing but the report on stdout (the README: the summary goes to stderr).
    assert!(stdout.ends_with("</testsuites>\n"), "{stdout}");
    assert!(!stdout.contains("<!--"), "{stdout}");
    assert_eq!(
        stderr,
        "toolsift: 3 files, 6 calls, 3 invalid, 1 unknown tool, 3 failed assertions\n"
    );
    let mut reader = quick_xml::Reader::from_str(&stdout);
    let (mut cases, mut failures, mut declared) = (0, 0, None);
    let mut depth = 0i32;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testsuites" => {
                let attr = |name: &[u8]| {
                    e.try_get_attribute(name).unwrap().map(|a| {
                        String::from_utf8(a.value.to_vec())
                            .unwrap()
                            .parse::<usize>()
                            .unwrap()
                    })
                };
                declared = Some((attr(b"tests").unwrap(), attr(b"failures").unwrap()));
                depth += 1;
            }
            Event::Start(e) => {
                depth += 1;
                match e.name().as_ref() {
                    b"testcase" => cases += 1,
                    b"failure" => failures += 1,
                    _ => {}
                }
            }
            Event::Empty(e) if e.name().as_ref() == b"testcase" => cases += 1,
            Event::End(_) => depth -= 1,
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0);
    assert_eq!(declared, Some((cases, failures)));
    assert_eq!((cases, failures), (15, 6));
    // Written to a file with -o, the same report.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.xml");
    let mut args = SCENARIO.to_vec();
    args.extend(["--format", "junit", "-o", report.to_str().unwrap(), DATA]);
    let (code, stdout_o, _) = check(&args);
    assert_eq!((code, stdout_o.as_str()), (1, ""));
    assert_eq!(std::fs::read_to_string(report).unwrap(), stdout);
}

#[test]
fn invalid_tool_calls_fall_back_to_the_json_channel() {
    let run = |tools: bool| {
        let mut cmd = toolsift();
        cmd.arg("extract");
        if tools {
            cmd.args(["--tools", OPENAI]);
        }
        let out = cmd.arg("tests/data/check/fallback.jsonl").output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                format!("{} {} {}", v["channel"], v["arguments"], v["valid"])
            })
            .collect::<Vec<_>>()
    };
    // Without contracts the native call is valid JSON, so it wins.
    assert_eq!(run(false), [r#""tool" {"unit":"kelvin"} null"#]);
    // It breaks its schema: the turn falls back to the Hermes call in its text.
    assert_eq!(
        run(true),
        [r#""json" {"city":"Oslo","unit":"celsius"} true"#]
    );
    // check agrees: the turn is clean.
    assert_eq!(
        check(&["--tools", OPENAI, "tests/data/check/fallback.jsonl"]).0,
        0
    );
}

#[test]
fn every_contract_format_renders() {
    for (name, calls) in [
        ("openai", "2 calls"),
        ("anthropic", "2 calls"),
        ("mcp", "1 call"),
        ("gemini", "1 call"),
        ("map", "2 calls"),
    ] {
        let path = format!("tests/data/contracts/{name}.json");
        let out = toolsift()
            .args(["tools", "render", &path])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        insta::assert_snapshot!(
            format!("render_{name}"),
            String::from_utf8(out.stdout.clone()).unwrap()
        );
        // Every contract format also validates: its example calls pass its own check.
        let checked = toolsift()
            .args(["check", "--tools", &path])
            .write_stdin(out.stdout)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(checked.stdout).unwrap(),
            format!("1 file, {calls}, 0 invalid, 0 unknown tools\n"),
            "{name}"
        );
        assert_eq!(checked.status.code(), Some(0), "{name}");
    }
    for style in ["json", "xml"] {
        let out = toolsift()
            .args(["tools", "render", "--style", style, OPENAI])
            .output()
            .unwrap();
        insta::assert_snapshot!(
            format!("render_style_{style}"),
            String::from_utf8(out.stdout).unwrap()
        );
    }
    toolsift()
        .args(["tools", "render", "tests/data/check/good.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("expected an OpenAI tools array"));
}

#[test]
fn rendered_examples_are_valid_calls() {
    // The example of each tool, in every style, read back by extract and checked
    // against the same contracts: one valid call per declared tool.
    for (name, style, tools) in [
        ("openai", "natural", 2),
        ("anthropic", "natural", 2),
        ("mcp", "natural", 1),
        ("gemini", "natural", 1),
        ("map", "natural", 2),
        ("openai", "json", 2),
        ("openai", "xml", 2),
    ] {
        let path = format!("tests/data/contracts/{name}.json");
        let md = toolsift()
            .args(["tools", "render", "--style", style, &path])
            .output()
            .unwrap()
            .stdout;
        let out = toolsift()
            .args(["extract", "--tools", &path])
            .write_stdin(md)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), tools, "{name} {style}: {text}");
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["valid"], true, "{name} {style}: {line}");
        }
    }
}
