//! `toolsift check` and `toolsift tools render` as a CI job and a user meet them:
//! every output format (snapshots), exit codes, scenario assertions, JUnit that parses
//! as XML, every contract format, and validation driving channel fallback.

use crate::common::toolsift;
use predicates::prelude::*;
use quick_xml::events::Event;
use std::ffi::OsStr;

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
    // A file that cannot be read makes a partial run (3), even with findings elsewhere.
    let (code, _, stderr) = check(&[
        "--tools",
        OPENAI,
        "no/such.jsonl",
        "tests/data/check/bad.jsonl",
    ]);
    assert_eq!(code, 3);
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

/// The report of `check ARGS --format FORMAT`: exit code, stdout, the summary line
/// (the last line of `human`, stderr otherwise).
fn report(format: &str, args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = toolsift()
        .args(["check", "--format", format])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let summary = if format == "human" {
        stdout.lines().last().unwrap_or_default().to_owned()
    } else {
        stderr.lines().last().unwrap_or_default().to_owned()
    };
    (out.status.code().unwrap(), stdout, summary)
}

/// The findings of a `--format json` report, as (file, line, kind, message).
fn json_findings(stdout: &str) -> Vec<(String, Option<u64>, String, String)> {
    stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["file"].as_str().unwrap().to_owned(),
                v["line"].as_u64(),
                v["kind"].as_str().unwrap().to_owned(),
                v["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_directory_with_no_file_to_read_is_a_finding_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    let hidden = dir.path().join("hidden");
    std::fs::create_dir(&empty).unwrap();
    std::fs::create_dir(&hidden).unwrap();
    std::fs::write(hidden.join(".session.jsonl"), "{}\n").unwrap();
    for path in [&empty, &hidden] {
        let shown = path.to_str().unwrap();
        let message = "no input file: nothing to read under it (hidden files, links and \
                       special files are skipped; --allow-empty lets it pass)";
        let summary = "0 files, 0 calls, 0 invalid, 0 unknown tools, no input file";
        let args = [path.as_os_str()];
        let (code, stdout, last) = report("human", &args);
        assert_eq!(code, 1, "{stdout}");
        assert_eq!(stdout, format!("{shown}: {message}\n{summary}\n"));
        assert_eq!(last, summary);
        let (code, stdout, last) = report("json", &args);
        assert_eq!(code, 1, "{stdout}");
        assert_eq!(
            json_findings(&stdout),
            [(
                shown.to_owned(),
                None,
                "no-input".to_owned(),
                message.to_owned()
            )]
        );
        assert_eq!(last, format!("toolsift: {summary}"));
        let (code, stdout, last) = report("github", &args);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stdout.starts_with(&format!(
                "::error file={shown},title=toolsift check::no input file: "
            )),
            "{stdout}"
        );
        assert_eq!(last, format!("toolsift: {summary}"));
        let (code, stdout, last) = report("junit", &args);
        assert_eq!(code, 1, "{stdout}");
        assert!(
            stdout.contains(
                r#"<testsuites name="toolsift check" tests="1" failures="1" errors="0">"#
            ) && stdout.contains(r#"<testcase classname=""#)
                && stdout.contains(r#"<failure type="no-input" message="no input file: "#),
            "{stdout}"
        );
        assert_eq!(last, format!("toolsift: {summary}"));
        // Let through on request, as a file without a transcript is.
        let (code, stdout, _) = report("human", &[OsStr::new("--allow-empty"), path.as_os_str()]);
        assert_eq!(
            (code, stdout.as_str()),
            (0, "0 files, 0 calls, 0 invalid, 0 unknown tools\n")
        );
    }
    // A directory that holds a file is no finding of this kind.
    std::fs::copy("tests/data/check/good.jsonl", empty.join("good.jsonl")).unwrap();
    let (code, stdout, _) = report("human", &[empty.as_os_str(), hidden.as_os_str()]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "1 file, 1 call, 0 invalid, 0 unknown tools\n")
    );
}

/// A call record, as `tests/data/check/good.jsonl` holds.
const CALL: &str = r#"{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}"#;

#[test]
fn input_passed_over_unread_is_a_finding_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Binary data from the first block.
    std::fs::write(d.join("a.bin"), b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
    // A line past the limit (binary: past 1 MiB; a text line's limit is 64 MiB) after a
    // call: the call is read, the rest is not. Past the first block, which is looked at
    // for binary data before any line is read.
    let mut long = format!(
        "{{\"role\": \"user\", \"content\": \"{}\"}}\n{CALL}\n",
        "x".repeat(9000)
    )
    .into_bytes();
    long.extend(b"{\"a\": \"\0");
    long.resize(long.len() + (3 << 20), b'x');
    long.extend(b"\"}\n");
    long.extend(format!("{CALL}\n").as_bytes());
    std::fs::write(d.join("b.jsonl"), long).unwrap();
    // A recording's compressed body that does not decode, after a call.
    std::fs::write(
        d.join("c.yaml"),
        concat!(
            "interactions:\n",
            "- request:\n    body: '{}'\n    method: POST\n  response:\n    body:\n      string: '",
            r#"{"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "call_p", "type": "function", "function": {"name": "ping", "arguments": "{}"}}]}}]}"#,
            "'\n    status:\n      code: 200\n",
            "- request:\n    body: '{}'\n    method: POST\n  response:\n    body:\n      string: !!binary |\n",
            "        bm90IGd6aXA=\n",
            "    headers:\n      Content-Encoding:\n      - gzip\n    status:\n      code: 200\n",
            "version: 1\n",
        ),
    )
    .unwrap();
    // A saved HTTP message whose body is compressed.
    std::fs::write(
        d.join("d.http"),
        "HTTP/1.1 200 OK\nContent-Encoding: gzip\nContent-Length: 4\n\nabcd",
    )
    .unwrap();
    let shown = |name: &str| d.join(name).to_str().unwrap().to_owned();
    let summary = "4 files, 2 calls, 0 invalid, 0 unknown tools, 4 parts not read";
    let args = [d.as_os_str()];
    let (code, stdout, last) = report("json", &args);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(last, format!("toolsift: {summary}"));
    let findings = json_findings(&stdout);
    let unread = |name: &str, line: Option<u64>, start: &str| {
        findings.iter().any(|(f, l, k, m)| {
            *f == shown(name) && *l == line && k == "unread" && m.starts_with(start)
        })
    };
    assert_eq!(findings.len(), 4, "{stdout}");
    assert!(
        unread("a.bin", None, "binary data (NUL byte at offset 7); skipped"),
        "{stdout}"
    );
    assert!(
        unread(
            "b.jsonl",
            Some(3),
            "binary data (NUL byte) in a line longer than 1 MiB; the rest of the input was skipped"
        ),
        "{stdout}"
    );
    assert!(
        unread("c.yaml", Some(16), "corrupt gzip body ("),
        "{stdout}"
    );
    assert!(
        unread(
            "d.http",
            Some(5),
            "gzip body of a saved HTTP message not decoded; calls in it are not read"
        ),
        "{stdout}"
    );
    let (code, stdout, last) = report("human", &args);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(last, summary);
    assert!(
        stdout.contains(&format!(
            "{}:3: binary data (NUL byte) in a line longer than 1 MiB; the rest of the input was skipped\n",
            shown("b.jsonl")
        )),
        "{stdout}"
    );
    let (code, stdout, _) = report("github", &args);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "::error file={},line=5,title=toolsift check::gzip body of a saved HTTP message not decoded; calls in it are not read\n",
            shown("d.http")
        )),
        "{stdout}"
    );
    let (code, stdout, _) = report("junit", &args);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        stdout.matches(r#"<testcase classname="#).count(),
        6,
        "{stdout}"
    );
    assert_eq!(
        stdout.matches(r#"<failure type="unread""#).count(),
        4,
        "{stdout}"
    );
    assert!(stdout.contains(r#"name="read in full""#), "{stdout}");
    // Not a file without a transcript: --allow-empty does not let it pass.
    let (code, stdout, _) = report("human", &[OsStr::new("--allow-empty"), d.as_os_str()]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(stdout.lines().last(), Some(summary));
}

#[test]
fn json_of_no_known_shape_is_named_by_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.jsonl");
    std::fs::write(
        &file,
        "{\"evt\": \"start\", \"payload\": {\"n\": 1}, \"at\": 1}\n{\"evt\": \"end\"}\n",
    )
    .unwrap();
    let (code, stdout, last) = report("json", &[file.as_os_str()]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        json_findings(&stdout),
        [(
            file.to_str().unwrap().to_owned(),
            None,
            "no-transcript".to_owned(),
            "no transcript recognised: JSON of no known transcript shape (top-level keys: evt, \
             payload, at); no calls read (--allow-empty lets it pass)"
                .to_owned()
        )]
    );
    assert_eq!(
        last,
        "toolsift: 1 file, 0 calls, 0 invalid, 0 unknown tools, 1 file without a transcript"
    );
    let (code, _, _) = report("json", &[OsStr::new("--allow-empty"), file.as_os_str()]);
    assert_eq!(code, 0);
}
