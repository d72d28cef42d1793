//! Input framing under hostile or very large input: every run completes, finds the calls
//! before and after the bad part, says what it skipped (`toolsift: FILE:LINE: message`),
//! and its peak resident size, measured on the child, stays bounded. Sizes are small
//! enough for a debug build; times are measured in `bench/`, not here.

use crate::common;
use crate::common::Measured;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;

/// A JSON Lines record with one call `name` of id `id`.
fn call(id: &str, name: &str) -> String {
    format!(
        r#"{{"role":"assistant","tool_calls":[{{"id":"{id}","type":"function","function":{{"name":"{name}","arguments":"{{\"city\":\"Paris\"}}"}}}}]}}"#
    )
}

/// Runs the binary with `args` and its peak resident size, which `/usr/bin/time`
/// reports on its own child. `common::run_measured` reaps the binary itself, but a
/// process started with `vfork` (as `Command` does) takes over, at `exec`, the peak of
/// the test process it shares memory with until then: after a test that held 200 MB,
/// every child measured 200 MB. Without `/usr/bin/time`, the peak is that of
/// `run_measured` (an upper bound).
fn run(args: &[&OsStr]) -> Measured {
    run_with(args, &[])
}

/// The binary under test; `BOUNDS_INPUT_BIN` names another build (to check that these
/// bounds fail on one without them).
fn binary() -> std::ffi::OsString {
    std::env::var_os("BOUNDS_INPUT_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_toolsift").into())
}

/// [`run`] with environment variables set.
fn run_with(args: &[&OsStr], env: &[(&str, &str)]) -> Measured {
    let report = tempfile::NamedTempFile::new().unwrap();
    let (mut cmd, timed) = common::under_time(binary(), report.path());
    let m = if timed {
        cmd.args(args)
            .current_dir(common::root())
            .stdin(std::process::Stdio::null());
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("TOOLSIFT_") {
                cmd.env_remove(&key);
            }
        }
        cmd.envs(env.iter().copied());
        let out = cmd.output().unwrap();
        let kib =
            common::time_peak_kib(report.path()).expect("/usr/bin/time reports the peak in KiB");
        Measured {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            peak_mib: kib / 1024,
        }
    } else {
        assert!(env.is_empty(), "no /usr/bin/time to run with {env:?}");
        common::run_measured(args, None)
    };
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    m
}

/// (name, id, line) of every call.
fn calls(m: &Measured) -> Vec<(String, String, u64)> {
    common::records(&m.stdout)
        .iter()
        .filter(|r| r.is_call())
        .map(|r| {
            (
                r.name().unwrap_or_default().to_string(),
                r.id().unwrap_or_default().to_string(),
                r.line(),
            )
        })
        .collect()
}

fn c(name: &str, id: &str, line: u64) -> (String, String, u64) {
    (name.to_string(), id.to_string(), line)
}

fn write_with(path: &Path, f: impl FnOnce(&mut std::io::BufWriter<std::fs::File>)) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f(&mut w);
    w.flush().unwrap();
}

/// `lines` lines of a lone `[` (a multiple of 65,536), then a line with a Hermes call.
fn write_bracket_lines(path: &Path, lines: usize) {
    write_with(path, |w| {
        let block = "[\n".repeat(1 << 16);
        for _ in 0..lines >> 16 {
            w.write_all(block.as_bytes()).unwrap();
        }
        writeln!(
            w,
            "<tool_call>{{\"name\": \"g\", \"arguments\": {{}}}}</tool_call>"
        )
        .unwrap();
    });
}

fn shown(path: &Path) -> String {
    common::display(path)
}

#[test]
fn binary_data_is_skipped_from_its_first_block() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("blob.bin");
    // 40 MiB with a NUL early on: read whole before the decision, it took its size.
    write_with(&bin, |w| {
        w.write_all(b"GIF89a\0").unwrap();
        let block: Vec<u8> = (0..1 << 20).map(|i| (i * 7 % 251) as u8).collect();
        for _ in 0..40 {
            w.write_all(&block).unwrap();
        }
    });
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, call("c1", "after") + "\n").unwrap();
    let m = run(&[
        "extract".as_ref(),
        "-j".as_ref(),
        "1".as_ref(),
        bin.as_os_str(),
        good.as_os_str(),
    ]);
    assert!(m.peak_mib < 30, "peak {} MiB", m.peak_mib);
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}: binary data (NUL byte at offset 6); skipped\n",
            shown(&bin)
        )
    );
    assert_eq!(calls(&m), [c("after", "c1", 1)]);
}

#[test]
fn an_endless_device_ends_the_read_guessed_or_forced() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, call("c1", "after") + "\n").unwrap();
    let m = run(&[
        "extract".as_ref(),
        "-j".as_ref(),
        "1".as_ref(),
        "/dev/zero".as_ref(),
        good.as_os_str(),
    ]);
    assert!(m.peak_mib < 40, "peak {} MiB", m.peak_mib);
    assert_eq!(
        m.stderr,
        "toolsift: /dev/zero: binary data (NUL byte at offset 0); skipped\n"
    );
    assert_eq!(calls(&m), [c("after", "c1", 1)]);
    // Forced JSON Lines: one endless line of NULs is neither held nor read to its end.
    for jobs in ["1", "2"] {
        let m = run(&[
            "extract".as_ref(),
            "--input".as_ref(),
            "jsonl".as_ref(),
            "-j".as_ref(),
            jobs.as_ref(),
            "/dev/zero".as_ref(),
            good.as_os_str(),
        ]);
        assert!(m.peak_mib < 40, "peak {} MiB", m.peak_mib);
        assert_eq!(
            m.stderr,
            "toolsift: /dev/zero:1: binary data (NUL byte) in a line longer than 1 MiB; \
             the rest of the input was skipped\n"
        );
        assert_eq!(calls(&m), [c("after", "c1", 1)]);
    }
}

#[test]
fn a_line_past_the_limit_is_reported_and_read_past() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.jsonl");
    // 100 MiB on line 2: held whole, it took several times that.
    write_with(&file, |w| {
        writeln!(w, "{}", call("c0", "before")).unwrap();
        let block = vec![b'x'; 1 << 20];
        for _ in 0..100 {
            w.write_all(&block).unwrap();
        }
        writeln!(w).unwrap();
        writeln!(w, "{}", call("c1", "after")).unwrap();
    });
    let want = format!(
        "toolsift: {}:2: line longer than 64 MiB; skipped\n",
        shown(&file)
    );
    // Auto and forced, on one thread and with the parsing thread.
    for (input, jobs) in [("auto", "1"), ("jsonl", "1"), ("jsonl", "2")] {
        let m = run(&[
            "extract".as_ref(),
            "--input".as_ref(),
            input.as_ref(),
            "-j".as_ref(),
            jobs.as_ref(),
            file.as_os_str(),
        ]);
        assert!(m.peak_mib < 96, "peak {} MiB", m.peak_mib);
        assert_eq!(m.stderr, want, "--input {input} -j {jobs}");
        assert_eq!(calls(&m), [c("before", "c0", 1), c("after", "c1", 3)]);
        // Up to the limit is gathered before the line is known to be too long.
    }
}

/// The same through gzip: the line bounds apply to the decoded text (101 gzip members,
/// as `cat` makes them, 100 KiB of gzip for 100 MiB of text).
#[test]
fn a_line_past_the_limit_in_a_gzip_file_is_reported_and_read_past() {
    let gzip = |data: &[u8]| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.jsonl.gz");
    let block = gzip(&vec![b'x'; 1 << 20]);
    write_with(&file, |w| {
        w.write_all(&gzip(format!("{}\n", call("c0", "before")).as_bytes()))
            .unwrap();
        for _ in 0..100 {
            w.write_all(&block).unwrap();
        }
        w.write_all(&gzip(format!("\n{}\n", call("c1", "after")).as_bytes()))
            .unwrap();
    });
    let want = format!(
        "toolsift: {}:2: line longer than 64 MiB; skipped\n",
        shown(&file)
    );
    for (input, jobs) in [("auto", "1"), ("jsonl", "2")] {
        let m = run(&[
            "extract".as_ref(),
            "--input".as_ref(),
            input.as_ref(),
            "-j".as_ref(),
            jobs.as_ref(),
            file.as_os_str(),
        ]);
        assert!(m.peak_mib < 96, "peak {} MiB", m.peak_mib);
        assert_eq!(m.stderr, want, "--input {input} -j {jobs}");
        assert_eq!(calls(&m), [c("before", "c0", 1), c("after", "c1", 3)]);
    }
}

/// One long SSE event whose data is a JSON array (a recording that streams a list):
/// read element by element, as a long JSON document is, not parsed whole (its tape
/// took several times the event: 106 MB for a 16 MB event). 300,000 elements (600,000
/// with TOOLSIFT_TEST_BIG=1) are an 8 MB event, over 50 MB parsed whole.
#[test]
fn a_long_sse_event_that_is_an_array_is_read_element_by_element() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("array.sse");
    let n = if common::big() { 600_000 } else { 300_000 };
    write_with(&file, |w| {
        writeln!(w, "data: [").unwrap();
        for _ in 0..n {
            writeln!(w, "data: {{\"a\":1}},").unwrap();
        }
        writeln!(w, "data: {}", call("c1", "inside")).unwrap();
        writeln!(w, "data: ]\n\ndata: {}\n", call("c2", "after")).unwrap();
    });
    let m = run(&["extract".as_ref(), file.as_os_str()]);
    assert_eq!(m.stderr, "");
    assert!(m.peak_mib < 32, "peak {} MiB", m.peak_mib);
    assert_eq!(
        calls(&m),
        [
            c("inside", "c1", n as u64 + 2),
            c("after", "c2", n as u64 + 5)
        ]
    );
}

/// One long SSE event that never becomes JSON (an array left open): scanned as text in
/// windows, as a long plain text is, not whole (81 MB for a 16 MB event).
#[test]
fn a_long_sse_event_that_is_no_json_is_read_in_windows() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("open.sse");
    let n = 600_000;
    write_with(&file, |w| {
        writeln!(w, "data: [").unwrap();
        for k in 0..n {
            writeln!(w, "data: {{\"a\":1}},").unwrap();
            if k == n / 2 {
                writeln!(w, "data: {{\"name\": \"inside\", \"arguments\": {{}}}},").unwrap();
            }
        }
        writeln!(w, "\ndata: {}\n", call("c2", "after")).unwrap();
    });
    let m = run(&["extract".as_ref(), file.as_os_str()]);
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}:1: event data is not JSON (EOF while parsing a value, column 8); \
             scanning it as text\n",
            shown(&file)
        )
    );
    // 55 MiB when scanned whole (a debug build).
    assert!(m.peak_mib < 44, "peak {} MiB", m.peak_mib);
    assert_eq!(
        calls(&m),
        [
            c("inside", "", n as u64 / 2 + 3),
            c("after", "c2", n as u64 + 4)
        ]
    );
}

/// A JSON value far denser than a transcript (millions of numbers in a few megabytes):
/// its tape would be ten times its size, so past a million values it is not read as
/// JSON but scanned as text, in windows; the call after it is still found.
#[test]
fn a_json_value_too_dense_for_a_tape_is_scanned_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let values = 2 << 20;
    let dense = format!("{{\"a\":[{}1]}}", "1,".repeat(values));
    let document = dir.path().join("dense.json");
    std::fs::write(&document, format!("{dense}\n")).unwrap();
    let lines = dir.path().join("dense.jsonl");
    std::fs::write(&lines, format!("{dense}\n{}\n", call("c1", "after"))).unwrap();
    let m = run(&[
        "extract".as_ref(),
        "--input".as_ref(),
        "json".as_ref(),
        document.as_os_str(),
    ]);
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}:1: invalid JSON document (more than 1048576 values in one JSON \
             value); scanning it as text\n",
            shown(&document)
        )
    );
    // Read whole, a release build took 80 MB; the tape now stops at 40 MiB.
    assert!(m.peak_mib < 60, "document: peak {} MiB", m.peak_mib);
    let m = run(&["extract".as_ref(), lines.as_os_str()]);
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}:1: not JSON (more than 1048576 values in one JSON value); \
             scanning the line as text\n",
            shown(&lines)
        )
    );
    assert!(m.peak_mib < 60, "lines: peak {} MiB", m.peak_mib);
    assert_eq!(calls(&m), [c("after", "c1", 2)]);
}

#[test]
fn an_sse_event_past_the_limit_is_reported_and_read_past() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.sse");
    // One event of 100 data lines of 1 MiB each, from line 3 on.
    write_with(&file, |w| {
        writeln!(w, "data: {}\n", call("c0", "before")).unwrap();
        let value = "y".repeat(1 << 20);
        for _ in 0..100 {
            writeln!(w, "data: \"{value}\"").unwrap();
        }
        writeln!(w, "\ndata: {}\n", call("c1", "after")).unwrap();
    });
    let m = run(&["extract".as_ref(), file.as_os_str()]);
    assert!(m.peak_mib < 96, "peak {} MiB", m.peak_mib);
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}:3: event longer than 64 MiB; skipped\n",
            shown(&file)
        )
    );
    assert_eq!(calls(&m), [c("before", "c0", 1), c("after", "c1", 104)]);
}

#[test]
fn a_long_line_of_text_is_still_scanned_in_windows() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.txt");
    let tag =
        |n: &str| format!("<tool_call>{{\"name\": \"{n}\", \"arguments\": {{}}}}</tool_call>");
    write_with(&file, |w| {
        writeln!(w, "some text {}", tag("before")).unwrap();
        let block = "lorem ipsum ".repeat(1 << 16);
        for _ in 0..24 {
            w.write_all(block.as_bytes()).unwrap();
        }
        writeln!(w, " {}", tag("inside")).unwrap();
        writeln!(w, "{}", tag("after")).unwrap();
    });
    let m = run(&["extract".as_ref(), file.as_os_str()]);
    assert_eq!(m.stderr, "");
    let names: Vec<(String, u64)> = calls(&m).into_iter().map(|(n, _, l)| (n, l)).collect();
    assert_eq!(
        names,
        [
            ("before".to_string(), 1),
            ("inside".to_string(), 2),
            ("after".to_string(), 3)
        ]
    );
}

#[test]
fn what_starts_like_a_document_and_is_none_goes_back_to_streamed_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("brackets.txt");
    // 4 MiB of `[` lines, then text: one array nested ever deeper that is no JSON after
    // all. Read whole as a document and then scanned whole as text, it took many times
    // its size; now an element nested deeper than any JSON reader goes tells it, and
    // the text is read in windows cut short for holding that many openers.
    let lines = 2 << 20;
    write_bracket_lines(&file, lines);
    for threads in ["1", "2"] {
        let m = run(&[
            "extract".as_ref(),
            "-j".as_ref(),
            threads.as_ref(),
            file.as_os_str(),
        ]);
        assert!(m.peak_mib < 40, "-j {threads}: peak {} MiB", m.peak_mib);
        assert_eq!(
            m.stderr,
            format!(
                "toolsift: {}:514: invalid JSON document (nested deeper than 512 levels); \
                 scanning the rest as text\n",
                shown(&file),
            )
        );
        assert_eq!(calls(&m), [c("g", "", lines as u64 + 1)]);
    }
}

/// Plain text made of nothing but openers, read in windows by one thread and by two:
/// a window (or a piece read on the second thread) stops listing openers once it holds
/// more than a dense window does, instead of listing a million per piece.
#[test]
fn text_of_nothing_but_openers_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("brackets.txt");
    let lines = 2 << 20;
    write_bracket_lines(&file, lines);
    for threads in ["1", "2"] {
        let m = run(&[
            "extract".as_ref(),
            "--input".as_ref(),
            "text".as_ref(),
            "-j".as_ref(),
            threads.as_ref(),
            file.as_os_str(),
        ]);
        assert_eq!(m.stderr, "", "-j {threads}");
        assert!(m.peak_mib < 40, "-j {threads}: peak {} MiB", m.peak_mib);
        assert_eq!(calls(&m), [c("g", "", lines as u64 + 1)]);
    }
}

#[test]
fn a_broken_array_keeps_what_came_before_and_scans_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.json");
    // Over the size read whole; element 3000 (line 3002) misses a comma.
    let n = 12_000;
    write_with(&file, |w| {
        writeln!(w, "[").unwrap();
        for i in 0..n {
            let sep = if i + 1 < n { "," } else { "" };
            if i == 3000 {
                writeln!(w, "{{\"role\": \"assistant\" \"content\": \"\"}},").unwrap();
            } else {
                writeln!(w, "{}{sep}", call(&format!("c{i}"), "get_weather")).unwrap();
            }
        }
        writeln!(w, "]").unwrap();
    });
    let m = run(&["extract".as_ref(), file.as_os_str()]);
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}:3002: invalid JSON document (expected `,` or `}}`, column 22); \
             scanning the rest as text\n",
            shown(&file)
        )
    );
    let found = calls(&m);
    assert_eq!(found[0], c("get_weather", "c0", 2));
    assert_eq!(found[2999], c("get_weather", "c2999", 3001));
    // After the break, the records are found in the text, on their lines.
    assert!(
        found
            .iter()
            .any(|(_, id, line)| id == "c3001" && *line == 3003)
    );
    assert!(
        found
            .iter()
            .any(|(_, id, line)| id == "c11999" && *line == 12_001)
    );
}

#[test]
fn blank_lines_are_counted_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("blank.txt");
    let blank = 40 << 20;
    write_with(&file, |w| {
        let block = vec![b'\n'; 1 << 20];
        for _ in 0..blank >> 20 {
            w.write_all(&block).unwrap();
        }
        writeln!(w, "{}", call("c0", "late")).unwrap();
    });
    let m = run(&["extract".as_ref(), file.as_os_str()]);
    assert!(m.peak_mib < 40, "peak {} MiB", m.peak_mib);
    assert_eq!(m.stderr, "");
    assert_eq!(calls(&m), [c("late", "c0", blank as u64 + 1)]);
    // Nothing but blank lines: nothing to say.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "\n".repeat(1 << 20)).unwrap();
    let m = run(&["extract".as_ref(), empty.as_os_str()]);
    assert_eq!((m.stderr.as_str(), m.stdout.len()), ("", 0));
}

#[test]
fn a_large_array_document_is_read_element_by_element() {
    let dir = tempfile::tempdir().unwrap();
    // 100,000 messages (14 MB): read whole, every record was held to the end.
    let n = 100_000;
    // Pretty-printed, one element a line; and all on one line (as `json.dump` writes).
    for one_line in [false, true] {
        let file = dir.path().join(format!("messages-{one_line}.json"));
        write_with(&file, |w| {
            let end = if one_line { " " } else { "\n" };
            write!(w, "[{end}").unwrap();
            for i in 0..n {
                let sep = if i + 1 < n { "," } else { "" };
                write!(w, "{}{sep}{end}", call(&format!("c{i}"), "get_weather")).unwrap();
            }
            writeln!(w, "]").unwrap();
        });
        let m = run(&["extract".as_ref(), file.as_os_str()]);
        assert!(
            m.peak_mib < 40,
            "one line: {one_line}; peak {} MiB",
            m.peak_mib
        );
        assert_eq!(m.stderr, "");
        let found = calls(&m);
        assert_eq!(found.len(), n);
        let (first, last) = if one_line { (1, 1) } else { (2, n as u64 + 1) };
        assert_eq!(found[0], c("get_weather", "c0", first));
        assert_eq!(found[n - 1], c("get_weather", &format!("c{}", n - 1), last));
    }
}

#[test]
fn the_first_file_streams_while_the_next_waits_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jsonl");
    let small = dir.path().join("small.jsonl");
    // 150,000 records: 25 MB of output, all of it buffered before.
    let n = 150_000;
    write_with(&big, |w| {
        for i in 0..n {
            writeln!(w, "{}", call(&format!("c{i}"), "f")).unwrap();
        }
    });
    std::fs::write(&small, call("s0", "g") + "\n").unwrap();
    let m = run(&[
        "extract".as_ref(),
        "-j".as_ref(),
        "2".as_ref(),
        big.as_os_str(),
        small.as_os_str(),
    ]);
    // Buffered whole, the first file's 25 MB of records took 34 MiB at the peak.
    assert!(m.peak_mib < 28, "peak {} MiB", m.peak_mib);
    assert_eq!(m.stderr, "");
    let found = calls(&m);
    assert_eq!(found.len(), n + 1);
    assert_eq!(found[0], c("f", "c0", 1));
    assert_eq!(found[n - 1], c("f", &format!("c{}", n - 1), n as u64));
    assert_eq!(found[n], c("g", "s0", 1));
    // The small file first: its output waits for nothing; the big one streams after.
    let m = run(&[
        "extract".as_ref(),
        "-j".as_ref(),
        "2".as_ref(),
        small.as_os_str(),
        big.as_os_str(),
    ]);
    let found = calls(&m);
    assert_eq!(found.len(), n + 1);
    assert_eq!(found[0], c("g", "s0", 1));
    assert_eq!(found[n], c("f", &format!("c{}", n - 1), n as u64));
}

#[cfg(unix)]
#[test]
fn a_fifo_in_a_directory_is_skipped_unopened() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("logs");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("a.jsonl"), call("c1", "f") + "\n").unwrap();
    let fifo = d.join("b.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo not available; FIFO check skipped");
        return;
    }
    std::fs::write(d.join("c.jsonl"), call("c2", "g") + "\n").unwrap();
    // No writer ever opens the FIFO: opening it would block the run.
    let m = run(&["extract".as_ref(), d.as_os_str()]);
    assert_eq!(m.stderr, "");
    assert_eq!(calls(&m), [c("f", "c1", 1), c("g", "c2", 1)]);
}

#[test]
fn text_dense_in_calls_is_read_in_short_windows() {
    // 2 MB of `<function=f>` lines, a call each: it fits in one window, but read whole
    // the scanners held all 153,846 calls at once (about 140 MB). Text that holds more
    // than a window's share of `<`, `[` or `{` is read in shorter windows.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dense.txt");
    let n = 153_846;
    std::fs::write(&file, "<function=f>\n".repeat(n)).unwrap();
    let m = run(&["check".as_ref(), file.as_os_str()]);
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    assert_eq!(
        String::from_utf8_lossy(&m.stdout),
        format!("1 file, {n} calls, 0 invalid, 0 unknown tools\n")
    );
    assert_eq!(
        m.stderr,
        format!(
            "toolsift: {}:1: more than 4096 calls in one text and the turn still open; it is \
             settled on the text channel here (calls of other channels further on in this text \
             are not read)\n",
            shown(&file)
        )
    );
    assert!(m.peak_mib < 64, "peak {} MiB", m.peak_mib);
}
