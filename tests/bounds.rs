//! Bounded under any input: odd or hostile inputs finish, with the right records and a
//! bounded number of messages. Times are measured in `bench/run --adversarial`, not here.

use crate::common;
use crate::common::toolsift;

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

#[test]
fn a_log_whose_lines_start_with_brackets_is_streamed_as_text() {
    // `[timestamp] …` starts like a JSON array; reading it whole as a document (and
    // warning that it is not JSON) held the whole file in memory.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.log");
    let mut text: String = (0..20_000)
        .map(|i| format!("[2026-11-25 12:00:00] INFO request {i} served\n"))
        .collect();
    text.push_str("<tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>\n");
    std::fs::write(&file, text).unwrap();
    let out = toolsift().arg("extract").arg(&file).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let records = common::records(&out.stdout);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].line(), 20_001);
}

#[test]
fn a_long_run_of_blank_lines_before_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("blank.txt");
    let mut text = "\n".repeat(300_000);
    text.push_str("  \t\r\n\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n");
    std::fs::write(&file, &text).unwrap();
    for input in ["auto", "text", "jsonl", "sse"] {
        let out = toolsift()
            .args(["extract", "--input", input])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{input}");
        let records = common::records(&out.stdout);
        if input == "auto" || input == "text" {
            assert_eq!(records.len(), 1, "{input}");
            assert_eq!(records[0].line(), 300_003, "{input}");
        }
    }
}

#[test]
fn one_thread_and_two_agree_on_long_text_full_of_bad_bytes() {
    // Windows are cut on the text after its bad bytes are replaced, on one thread and
    // on two: a call near a cut is found once either way.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.txt");
    let mut bytes = Vec::new();
    let mut n = 0;
    while bytes.len() < 9_000_000 {
        if n % 3 == 0 {
            bytes.extend_from_slice(&b"prose \xff\xfe\xfd bad ".repeat(n % 97 + 1));
            bytes.push(b'\n');
        } else {
            let pad = "x".repeat(n * 37 % 3000);
            bytes.extend_from_slice(
                format!("<tool_call>{{\"name\": \"f{n}\", \"arguments\": {{\"a\": \"{pad}\"}}}}</tool_call>\n")
                    .as_bytes(),
            );
        }
        n += 1;
    }
    std::fs::write(&file, &bytes).unwrap();
    let run = |jobs: &str, window: Option<&str>| {
        let mut cmd = toolsift();
        cmd.args(["extract", "-q", "-j", jobs]).arg(&file);
        if let Some(w) = window {
            cmd.env("TOOLSIFT_TEXT_WINDOW", w);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        out.stdout
    };
    for window in [None, Some("3000000")] {
        let one = run("1", window);
        let two = run("2", window);
        assert_eq!(one, two, "{window:?}");
        let calls = common::records(&one).len();
        assert_eq!(calls, (0..n).filter(|i| i % 3 != 0).count(), "{window:?}");
    }
}

/// `n` text-channel calls (Qwen3-Coder), each on its own lines, named by their number.
fn text_calls(n: usize) -> String {
    (0..n)
        .map(|i| format!("<function=f>\n<parameter=i>\n{i}\n</parameter>\n</function>\n"))
        .collect()
}

#[test]
fn windowed_text_settles_its_turn_once_it_holds_too_many_calls() {
    // Until a JSON call is seen, a later one could still win the turn, so text calls
    // were held to the end of the text: memory grew with it. Past 4,096 held calls the
    // turn is settled on the text channel, said once, and calls are written as found.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    let mut text = text_calls(6_000);
    text.push_str("<tool_call>{\"name\": \"late_json\", \"arguments\": {}}</tool_call>\n");
    std::fs::write(&file, &text).unwrap();
    let out = toolsift()
        .env("TOOLSIFT_TEXT_WINDOW", "65536")
        .arg("extract")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("more than 4096 calls in one text and the turn still open; it is settled on the text channel"),
        "{stderr}"
    );
    let records = common::records(&out.stdout);
    let numbers: Vec<String> = records
        .iter()
        .map(|r| {
            assert_eq!(r.name(), Some("f"));
            arg_i(r).to_owned()
        })
        .collect();
    let want: Vec<String> = (0..6_000).map(|i| i.to_string()).collect();
    assert_eq!(numbers, want);

    // Read whole, the JSON call wins the turn as before.
    let out = toolsift()
        .env("TOOLSIFT_TEXT_WINDOW", "0")
        .arg("extract")
        .arg(&file)
        .output()
        .unwrap();
    let records = common::records(&out.stdout);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].name(), Some("late_json"));
}

#[test]
fn windowed_text_with_all_writes_what_it_holds_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    let mut text = text_calls(5_000);
    text.push_str("<tool_call>{\"name\": \"late_json\", \"arguments\": {}}</tool_call>\n");
    std::fs::write(&file, &text).unwrap();
    let out = toolsift()
        .env("TOOLSIFT_TEXT_WINDOW", "65536")
        .args(["extract", "--all", "--stats"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let records = common::records(&out.stdout);
    let mut numbers: Vec<usize> = records
        .iter()
        .filter(|r| r.name() == Some("f"))
        .map(|r| arg_i(r).parse().unwrap())
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (0..5_000).collect::<Vec<_>>());
    let json: Vec<_> = records
        .iter()
        .filter(|r| r.name() == Some("late_json"))
        .collect();
    assert_eq!(json.len(), 1);
    // One turn, counted once although its calls were written in two parts.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stats: 1 turn, 1 with calls"), "{stderr}");
}

/// `toolsift extract ARGS FILE` with text windows of `window` bytes (0: read whole).
fn extract_in_windows(file: &std::path::Path, window: &str, args: &[&str]) -> std::process::Output {
    toolsift()
        .env("TOOLSIFT_TEXT_WINDOW", window)
        .arg("extract")
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

fn arg_i(record: &common::Record) -> &str {
    match record {
        common::Record::Call { arguments, .. } => arguments["i"].as_str().unwrap(),
        _ => panic!("not a call: {record:?}"),
    }
}

#[test]
fn stats_of_windowed_text_are_those_of_a_whole_read() {
    // 3,000 Hermes calls: every 7th from the 4th needs a repair (a trailing comma),
    // every 11th from the 6th has string arguments (invalid) unless it is one of those.
    let text: String = (0..3_000)
        .map(|i| {
            if i % 7 == 3 {
                format!("<tool_call>{{\"name\": \"r{i}\", \"arguments\": {{\"a\": 1,}}}}</tool_call>\n")
            } else if i % 11 == 5 {
                format!("<tool_call>{{\"name\": \"s{i}\", \"arguments\": \"text\"}}</tool_call>\n")
            } else {
                format!("Prose {i}.\n<tool_call>{{\"name\": \"f{i}\", \"arguments\": {{\"i\": {i}}}}}</tool_call>\n")
            }
        })
        .collect();
    let repaired = (0..3_000).filter(|i| i % 7 == 3).count();
    let invalid = (0..3_000).filter(|i| i % 11 == 5 && i % 7 != 3).count();
    let want = format!(
        "toolsift: stats: 1 turn, 1 with calls, 1 fallback to a later channel\n\
         toolsift: stats: channel  dialect    calls  invalid  repaired\n\
         toolsift: stats: json     hermes      3000      {invalid:>3}       {repaired:>3}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    std::fs::write(&file, &text).unwrap();
    for (window, jobs) in [("0", "1"), ("16384", "1"), ("16384", "2"), ("65536", "2")] {
        let out = extract_in_windows(&file, window, &["--stats", "-j", jobs]);
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            want,
            "window {window}, -j {jobs}"
        );
        assert_eq!(common::records(&out.stdout).len(), 3_000);
    }
}

#[test]
fn text_dense_in_tags_gives_the_calls_of_a_whole_read() {
    // Five `<` per call: windows are cut at a bounded number of openers, well before
    // their length, and carry the rest on; the calls are those of a whole read. 20,000
    // calls (60,000 with TOOLSIFT_TEST_BIG=1) hold openers for several such windows.
    let n = if common::big() { 60_000 } else { 20_000 };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dense.txt");
    let mut text = String::from("Here they come.\n");
    text.push_str(&text_calls(n));
    text.push_str("Done.\n");
    std::fs::write(&file, &text).unwrap();
    let read = |window: &str, jobs: &str| {
        let out = extract_in_windows(&file, window, &["-j", jobs]);
        assert!(out.status.success());
        out.stdout
    };
    let whole = read("0", "1");
    let records = common::records(&whole);
    assert_eq!(records.len(), n);
    assert!(
        records
            .iter()
            .enumerate()
            .all(|(k, r)| arg_i(r) == k.to_string())
    );
    assert_eq!(records[n - 1].line(), 2 + 5 * (n as u64 - 1));
    for (window, jobs) in [("1048576", "1"), ("1048576", "2"), ("2097152", "2")] {
        assert!(read(window, jobs) == whole, "window {window}, -j {jobs}");
    }
}

#[test]
fn a_turn_won_in_its_first_window_is_never_settled_again() {
    // JSON calls from the start: the JSON channel wins the turn in the first window,
    // and its calls are written as found. Windows of 256 KiB then hold over 4,096 of
    // them each, which is no reason to settle the turn (no warning), and every call is
    // written once, as in a whole read.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    let text: String = (0..20_000)
        .map(|i| format!("{{\"name\":\"f\",\"arguments\":{{\"i\":\"{i}\"}}}}\n"))
        .collect();
    std::fs::write(&file, &text).unwrap();
    let read = |window: &str| {
        let out = extract_in_windows(&file, window, &["--input", "text"]);
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "window {window}");
        out.stdout
    };
    let whole = read("0");
    assert_eq!(common::records(&whole).len(), 20_000);
    assert!(read("262144") == whole);
}

#[test]
fn a_wil_block_after_a_turn_settled_on_text_is_read_across_windows() {
    // 6,000 text calls settle the turn on the text channel, which WIL belongs to: the
    // WIL block after them, longer than a window, is still read whole, its calls as in
    // a whole read (a window starting inside it is told so).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    let mut text = text_calls(6_000);
    text.push_str("BEGIN WIL\n");
    for k in 0..3_000 {
        text.push_str(&format!(
            "Paragraph {k} of prose, long enough to fill windows.\n"
        ));
        if k % 20 == 7 {
            text.push_str(&format!("create window id w{k} title \"t{k}\"\n"));
        }
    }
    text.push_str("END WIL\n");
    std::fs::write(&file, &text).unwrap();
    let read = |window: &str| {
        let out = extract_in_windows(&file, window, &[]);
        assert!(out.status.success());
        out.stdout
    };
    let whole = read("0");
    let records = common::records(&whole);
    assert_eq!(records.len(), 6_000 + 150);
    assert!(records[6_000..].iter().all(|r| r.name() != Some("f")));
    assert!(read("65536") == whole);
}

#[test]
fn a_turn_settled_in_windows_on_calls_inside_reasoning_writes_them() {
    // 10,000 JSON calls, all inside reasoning, and no other: a whole read writes them
    // (`--reasoning fallback`), and so does a read in windows, which settles the turn
    // on them past 4,096 held calls. With `--reasoning exclude`, neither writes any.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    let mut text = String::from("<think>\n");
    for i in 0..10_000 {
        text.push_str(&format!(
            "{{\"name\": \"plan\", \"arguments\": {{\"i\": \"{i}\"}}}}\n"
        ));
    }
    text.push_str("</think>\nDone.\n");
    std::fs::write(&file, &text).unwrap();
    // The calls, and `--stats`' count of turns with calls.
    let read = |window: &str, reasoning: &str| {
        let out = extract_in_windows(&file, window, &["--stats", "--reasoning", reasoning]);
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.contains("settled on the json"),
            window != "0",
            "{window}"
        );
        let turns = stderr
            .lines()
            .find(|l| l.contains("stats: 1 turn,"))
            .unwrap_or_default()
            .to_owned();
        let names = common::records(&out.stdout)
            .iter()
            .map(|r| format!("{} {}", r.name().unwrap(), arg_i(r)))
            .collect::<Vec<_>>();
        (names, turns)
    };
    let want: Vec<String> = (0..10_000).map(|i| format!("plan {i}")).collect();
    let with = "toolsift: stats: 1 turn, 1 with calls, 1 fallback to a later channel";
    let without = "toolsift: stats: 1 turn, 0 with calls, 0 fallbacks to a later channel";
    for window in ["0", "65536"] {
        assert_eq!(read(window, "fallback"), (want.clone(), with.to_owned()));
        assert_eq!(read(window, "exclude"), (vec![], without.to_owned()));
    }
}

#[test]
fn a_turn_settled_in_windows_prefers_calls_outside_reasoning() {
    // Ten text-channel calls, then a reasoning block of 5,000 JSON calls: the turn is
    // settled while the JSON channel holds only calls inside reasoning, so the text
    // channel, with calls outside it, wins, as it does in a whole read (`--reasoning
    // fallback`: calls in reasoning only when there is no other).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.txt");
    let mut text = text_calls(10);
    text.push_str("<think>\n");
    for i in 0..5_000 {
        text.push_str(&format!(
            "{{\"name\": \"plan\", \"arguments\": {{\"i\": {i}}}}}\n"
        ));
    }
    text.push_str("</think>\n");
    std::fs::write(&file, &text).unwrap();
    let names = |window: &str| {
        let out = extract_in_windows(&file, window, &[]);
        assert!(out.status.success());
        common::records(&out.stdout)
            .iter()
            .map(|r| format!("{} {}", r.name().unwrap(), arg_i(r)))
            .collect::<Vec<_>>()
    };
    let want: Vec<String> = (0..10).map(|i| format!("f {i}")).collect();
    assert_eq!(names("0"), want);
    assert_eq!(names("65536"), want);
}
