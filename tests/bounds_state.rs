//! State that grows with the input: streams with very many calls under way, turns
//! gathered from very many lines, `check` on very many calls, and the unknown-tool
//! suggestion for a very long name. Each test runs the binary on a generated input and
//! asserts the exact records and, for memory, the child's peak resident size; the
//! quadratic lookups are asserted by completion within a deadline many times what the
//! linear code takes (the quadratic code takes minutes at these sizes).
//!
//! The child's peak is what `/usr/bin/time` reports on its own child: a reaped child's
//! `ru_maxrss` carries over the spawning process's peak at `exec`, and this process is
//! the one test binary, whose other tests may have held hundreds of MB. Without
//! `/usr/bin/time` it is the reaped child's `ru_maxrss` (an upper bound). The tests run
//! one at a time and never hold a whole output (it goes to a file, read a line at a
//! time).

use crate::common;

use crate::common::{Record, records};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

const TRUNCATED: &str = "truncated: the stream ended before this call was complete";

/// What a run gave, and whether it completed before the deadline.
struct Run {
    completed: bool,
    code: Option<i32>,
    /// The file stdout went to.
    stdout: PathBuf,
    stderr: String,
    peak_mib: u64,
}

/// One test at a time (see the module's note).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the binary, killed after `deadline_s` (then `completed` is false), its stdout
/// to `out`; the peak resident size comes from `/usr/bin/time` when there is one (see
/// the module's note), else from the reaped child.
// The child is reaped by `wait4`, which clippy does not see.
#[allow(clippy::zombie_processes)]
fn run(args: &[&OsStr], out: &Path, deadline_s: u64) -> Run {
    use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
    use std::process::Stdio;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let report = tempfile::NamedTempFile::new().unwrap();
    let (mut cmd, timed) = common::under_time(env!("CARGO_BIN_EXE_toolsift"), report.path());
    // Its own process group, so that the watchdog kills the binary under `time` too.
    cmd.args(args)
        .process_group(0)
        .current_dir(common::root())
        .env_remove("TOOLSIFT_JOBS")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut err = child.stderr.unwrap();
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).unwrap();
        v
    });
    let done = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, killed) = (done.clone(), killed.clone());
        std::thread::spawn(move || {
            for _ in 0..deadline_s * 10 {
                if done.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            if !done.load(Ordering::SeqCst) {
                killed.store(true, Ordering::SeqCst);
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
        })
    };
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    done.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    assert_eq!(reaped, pid);
    let status = std::process::ExitStatus::from_raw(status);
    // In KiB on Linux, from `time` (its last line) or the reaped child.
    let kib = if timed {
        common::time_peak_kib(report.path()).unwrap_or(u64::MAX)
    } else {
        usage.ru_maxrss as u64
    };
    let peak_mib = kib / 1024;
    eprintln!("{args:?}: peak {peak_mib} MiB");
    Run {
        completed: !killed.load(Ordering::SeqCst),
        code: status.code(),
        stdout: out.to_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
        peak_mib,
    }
}

fn write_file(dir: &Path, name: &str, fill: impl FnOnce(&mut dyn Write)) -> PathBuf {
    let path = dir.join(name);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    fill(&mut w);
    w.flush().unwrap();
    path
}

/// A call record's name, id, arguments, arguments_raw and errors.
type Seen = (
    String,
    Option<String>,
    Value,
    Option<String>,
    Option<Vec<String>>,
);

fn seen(r: &Record) -> Option<Seen> {
    match r {
        Record::Call {
            name,
            id,
            arguments,
            arguments_raw,
            errors,
            ..
        } => Some((
            name.clone(),
            id.clone(),
            Value::Object(arguments.clone()),
            arguments_raw.clone(),
            errors.clone(),
        )),
        _ => None,
    }
}

/// The records of an output file, one at a time.
fn each_record(path: &Path) -> impl Iterator<Item = Record> {
    use std::io::BufRead;
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    file.split(b'\n').flat_map(|line| records(&line.unwrap()))
}

/// Checks every call of an output file against `want(i)`, and that there are `n`.
fn assert_calls(path: &Path, n: usize, want: impl Fn(usize) -> Seen) {
    let mut count = 0;
    for (i, c) in each_record(path).filter_map(|r| seen(&r)).enumerate() {
        assert_eq!(c, want(i), "call {i}");
        count += 1;
    }
    assert_eq!(count, n);
}

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(Into::into).collect()
}

fn run_args(args: &[std::ffi::OsString], dir: &Path, deadline_s: u64) -> Run {
    let refs: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    run(&refs, &dir.join("stdout"), deadline_s)
}

/// A Responses stream of `n` function-call items, each added and given its arguments
/// by a delta, none done: the delta's call was searched among all the calls (quadratic:
/// 18 MB took 14.5 s), and every call was held to the end (74 MB).
#[test]
fn responses_argument_deltas_find_their_item_at_once() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let path = write_file(dir.path(), "resp.sse", |w| {
        for i in 0..n {
            write!(
                w,
                "data: {{\"type\":\"response.output_item.added\",\"output_index\":{i},\"item\":{{\"type\":\"function_call\",\"id\":\"fc_{i}\",\"call_id\":\"c{i}\",\"name\":\"f\",\"arguments\":\"\"}}}}\n\n\
                 data: {{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_{i}\",\"output_index\":{i},\"delta\":\"{{\\\"i\\\":{i}}}\"}}\n\n"
            )
            .unwrap();
        }
    });
    let r = run_args(
        &os(&["extract", "--input", "sse", path.to_str().unwrap()]),
        dir.path(),
        240,
    );
    assert!(r.completed, "did not complete: {}", r.stderr);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_calls(&r.stdout, n, |i| {
        (
            "f".into(),
            Some(format!("c{i}")),
            json!({ "i": i }),
            None,
            None,
        )
    });
    assert!(r.peak_mib < 48, "peak {} MiB", r.peak_mib);
}

/// Chat chunks whose tool calls carry an id and no index, a new id each: the call of
/// each was searched among all calls of the choice (quadratic).
#[test]
fn chat_fragments_without_index_find_their_call_by_id_at_once() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let path = write_file(dir.path(), "noindex.sse", |w| {
        for i in 0..n {
            write!(
                w,
                "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"i\\\":\"}}}}]}}}}]}}\n\n\
                 data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"id\":\"call_{i}\",\"function\":{{\"arguments\":\"{i}}}\"}}}}]}}}}]}}\n\n"
            )
            .unwrap();
        }
        write!(w, "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\ndata: [DONE]\n\n").unwrap();
    });
    let r = run_args(
        &os(&["extract", "--input", "sse", path.to_str().unwrap()]),
        dir.path(),
        240,
    );
    assert!(r.completed, "did not complete: {}", r.stderr);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_calls(&r.stdout, n, |i| {
        (
            "f".into(),
            Some(format!("call_{i}")),
            json!({ "i": i }),
            None,
            None,
        )
    });
    assert!(r.peak_mib < 48, "peak {} MiB", r.peak_mib);
}

/// A chat stream that starts a call per chunk and never finishes: every call was held
/// to the end (400,000 calls: 416 MB). Past the bound the oldest are settled as they
/// stand, marked truncated as a cut stream's calls are.
#[test]
fn an_unfinished_stream_of_many_calls_is_flushed_oldest_first() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let path = write_file(dir.path(), "unfinished.sse", |w| {
        for i in 0..n {
            write!(
                w,
                "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"a\\\"\"}}}}]}}}}]}}\n\n"
            )
            .unwrap();
        }
    });
    let r = run_args(
        &os(&["extract", "--input", "sse", path.to_str().unwrap()]),
        dir.path(),
        240,
    );
    assert!(r.completed, "did not complete: {}", r.stderr);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "toolsift: {}: a stream held more than 4096 calls under way; the oldest were \
             settled as they stood (those not complete are marked truncated)\n",
            path.display()
        )
    );
    assert_calls(&r.stdout, n, |i| {
        (
            "f".into(),
            Some(format!("call_{i}")),
            json!({}),
            Some("{\"a\"".into()),
            Some(vec![TRUNCATED.into()]),
        )
    });
    assert!(r.peak_mib < 40, "peak {} MiB", r.peak_mib);
}

/// Parallel calls interleaved by index, fewer than the bound, in a finished stream:
/// nothing is flushed early, every call is whole and unmarked.
#[test]
fn interleaved_parallel_calls_under_the_bound_are_whole() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 3000;
    let chunk = |w: &mut dyn Write, i: usize, extra: &str, args: &str| {
        write!(
            w,
            "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i}{extra},\"function\":{{{args}}}}}]}}}}]}}\n\n"
        )
        .unwrap();
    };
    let path = write_file(dir.path(), "parallel.sse", |w| {
        for i in 0..n {
            chunk(
                w,
                i,
                &format!(",\"id\":\"call_{i}\",\"type\":\"function\""),
                "\"name\":\"f\",\"arguments\":\"{\\\"i\\\":\"",
            );
        }
        for i in 0..n {
            chunk(w, i, "", &format!("\"arguments\":\"{i}}}\""));
        }
        write!(w, "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\ndata: [DONE]\n\n").unwrap();
    });
    let r = run_args(
        &os(&["extract", "--input", "sse", path.to_str().unwrap()]),
        dir.path(),
        240,
    );
    assert!(r.completed && r.code == Some(0), "{}", r.stderr);
    assert_calls(&r.stdout, n, |i| {
        (
            "f".into(),
            Some(format!("call_{i}")),
            json!({ "i": i }),
            None,
            None,
        )
    });
    // One turn, as before.
    assert!(each_record(&r.stdout).all(|r| match r {
        Record::Call { source, .. } => source.turn == 0,
        _ => true,
    }));
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

/// Lines of one message (Claude Code writes a message over several lines with one id)
/// were gathered into one turn until the message changed: 500,000 such lines held every
/// call (368 MB). The turn is now handed on every few thousand parts. 100,000 lines
/// (200,000 with TOOLSIFT_TEST_BIG=1) held whole are over 70 MB, past the bound.
#[test]
fn many_lines_of_one_message_do_not_gather_without_bound() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = if common::big() { 200_000 } else { 100_000 };
    let path = write_file(dir.path(), "sameid.jsonl", |w| {
        for i in 0..n {
            writeln!(
                w,
                "{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_1\",\"type\":\"message\",\"model\":\"claude\",\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"tu_{i}\",\"name\":\"f\",\"input\":{{\"i\":{i}}}}}]}}}}"
            )
            .unwrap();
        }
    });
    let r = run_args(&os(&["extract", path.to_str().unwrap()]), dir.path(), 240);
    assert!(r.completed && r.code == Some(0), "{}", r.stderr);
    assert_calls(&r.stdout, n, |i| {
        (
            "f".into(),
            Some(format!("tu_{i}")),
            json!({ "i": i }),
            None,
            None,
        )
    });
    assert!(r.peak_mib < 40, "peak {} MiB", r.peak_mib);
}

/// One chat response per line, each a distinct call: the "seen before" sets are
/// bounded (src/recent.rs), so memory stays flat. (This held before too; it guards the
/// de-duplication state.) A repeated call is still dropped as a copy.
#[test]
fn a_million_distinct_calls_keep_flat_dedup_state() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 300_000;
    let path = write_file(dir.path(), "calls.jsonl", |w| {
        for i in 0..n {
            writeln!(
                w,
                "{{\"choices\":[{{\"message\":{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"c{i}\",\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"{{\\\"city\\\":\\\"P{i}\\\"}}\"}}}}]}}}}]}}"
            )
            .unwrap();
        }
        // A copy of the last call: dropped.
        let i = n - 1;
        writeln!(
            w,
            "{{\"choices\":[{{\"message\":{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"c{i}\",\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"{{\\\"city\\\":\\\"P{i}\\\"}}\"}}}}]}}}}]}}"
        )
        .unwrap();
    });
    let r = run_args(&os(&["extract", path.to_str().unwrap()]), dir.path(), 240);
    assert!(r.completed && r.code == Some(0), "{}", r.stderr);
    assert_calls(&r.stdout, n, |i| {
        (
            "get_weather".into(),
            Some(format!("c{i}")),
            json!({ "city": format!("P{i}") }),
            None,
            None,
        )
    });
    assert!(r.peak_mib < 32, "peak {} MiB", r.peak_mib);
}

fn calls_file(dir: &Path, n: usize) -> PathBuf {
    write_file(dir, "calls.jsonl", |w| {
        for i in 0..n {
            writeln!(
                w,
                "{{\"choices\":[{{\"message\":{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"c{i}\",\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"{{\\\"city\\\":\\\"P{i}\\\"}}\"}}}}]}}}}]}}"
            )
            .unwrap();
        }
    })
}

/// `check` kept every call of a file until its end (1M calls: 522 MB); it keeps counts
/// and findings now. 100,000 calls (300,000 with TOOLSIFT_TEST_BIG=1) kept are over
/// 50 MB, past the bound.
#[test]
fn check_keeps_counts_not_calls() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = if common::big() { 300_000 } else { 100_000 };
    let path = calls_file(dir.path(), n);
    let r = run_args(
        &os(&[
            "check",
            "--expect",
            "get_weather",
            "--max-calls",
            "1000000",
            path.to_str().unwrap(),
        ]),
        dir.path(),
        240,
    );
    assert!(r.completed, "{}", r.stderr);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(&r.stdout).unwrap(),
        format!("1 file, {n} calls, 0 invalid, 0 unknown tools\n")
    );
    assert!(r.peak_mib < 32, "peak {} MiB", r.peak_mib);
}

/// A finding per call: the first ones are listed, in line order, the rest counted (in
/// the summary and the exit code) and said once.
#[test]
fn check_lists_the_first_findings_and_counts_the_rest() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 300_000;
    let path = calls_file(dir.path(), n);
    let file = path.to_str().unwrap();
    let r = run_args(
        &os(&["check", "--forbid", "get_weather", file]),
        dir.path(),
        240,
    );
    assert!(r.completed, "{}", r.stderr);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    // Read a line at a time: this process must stay small (see the module's note).
    use std::io::BufRead;
    let lines = std::io::BufReader::new(std::fs::File::open(&r.stdout).unwrap()).lines();
    let mut count = 0;
    let mut last = String::new();
    for (i, line) in lines.enumerate() {
        let line = line.unwrap();
        if i < 10_000 {
            assert_eq!(
                line,
                format!(
                    "{file}:{}: tool get_weather: get_weather is forbidden (--forbid)",
                    i + 1
                )
            );
        }
        count += 1;
        last = line;
    }
    assert_eq!(count, 10_001);
    assert_eq!(
        last,
        "1 file, 300000 calls, 0 invalid, 0 unknown tools, 300000 failed assertions"
    );
    assert_eq!(
        r.stderr,
        format!(
            "toolsift: {file}: 290000 more findings in this file were counted but not listed (the first 10000 are)\n"
        )
    );
    assert!(r.peak_mib < 40, "peak {} MiB", r.peak_mib);
}

/// A call whose name is megabytes long, with `--tools`: the suggestion compared it with
/// every tool name by a full edit-distance matrix (4 MB: 2.2 GB). Long names get none.
#[test]
fn an_unknown_tool_with_a_huge_name_gets_no_suggestion() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let tools = write_file(dir.path(), "tools.json", |w| {
        write!(w, "[{{\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"parameters\":{{\"type\":\"object\",\"properties\":{{\"city\":{{\"type\":\"string\"}}}}}}}}}}]").unwrap();
    });
    let name = "a".repeat(1 << 20);
    let path = write_file(dir.path(), "long.json", |w| {
        write!(w, "{{\"choices\":[{{\"message\":{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"x\",\"type\":\"function\",\"function\":{{\"name\":\"{name}\",\"arguments\":\"{{}}\"}}}},{{\"id\":\"y\",\"type\":\"function\",\"function\":{{\"name\":\"get_waether\",\"arguments\":\"{{}}\"}}}}]}}}}]}}").unwrap();
    });
    let r = run_args(
        &os(&[
            "extract",
            "--tools",
            tools.to_str().unwrap(),
            path.to_str().unwrap(),
        ]),
        dir.path(),
        240,
    );
    assert!(r.completed && r.code == Some(0), "{}", r.stderr);
    let got: Vec<Seen> = each_record(&r.stdout).filter_map(|r| seen(&r)).collect();
    let want: Vec<Seen> = vec![
        (
            name,
            Some("x".into()),
            json!({}),
            None,
            Some(vec!["unknown tool".into()]),
        ),
        (
            "get_waether".into(),
            Some("y".into()),
            json!({}),
            None,
            Some(vec!["unknown tool (did you mean \"get_weather\"?)".into()]),
        ),
    ];
    assert_eq!(got, want);
    assert!(r.peak_mib < 64, "peak {} MiB", r.peak_mib);
}

/// `--with-results` keeps each call's name to name its result; a long stream kept
/// every call (1M calls: 246 MB). The engine keeps them in a `recent::RecentMap`.
/// 150,000 calls (300,000 with TOOLSIFT_TEST_BIG=1) kept are over 36 MB, past the
/// bound with the binary's own few MB.
#[test]
fn with_results_keeps_a_bounded_number_of_calls_waiting() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = if common::big() { 300_000 } else { 150_000 };
    let path = calls_file(dir.path(), n);
    let r = run_args(
        &os(&["extract", "--with-results", path.to_str().unwrap()]),
        dir.path(),
        240,
    );
    assert!(r.completed && r.code == Some(0), "{}", r.stderr);
    assert_eq!(each_record(&r.stdout).filter_map(|r| seen(&r)).count(), n);
    assert!(r.peak_mib < 32, "peak {} MiB", r.peak_mib);
}

/// The bound holds for every kind of stream: an Anthropic message of many tool_use
/// blocks, none stopped, is flushed oldest first too; complete arguments are kept
/// unmarked, the last call (cut) is marked.
#[test]
fn an_anthropic_stream_of_many_blocks_is_flushed_too() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let n = 50_000;
    let path = write_file(dir.path(), "anthropic.sse", |w| {
        writeln!(
            w,
            "data: {{\"type\":\"message_start\",\"message\":{{\"id\":\"m\"}}}}\n"
        )
        .unwrap();
        for i in 0..n {
            write!(
                w,
                "data: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"f\",\"input\":{{}}}}}}\n\n\
                 data: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{\\\"i\\\":{i}}}\"}}}}\n\n"
            )
            .unwrap();
        }
        // The last call is cut.
        write!(
            w,
            "data: {{\"type\":\"content_block_start\",\"index\":{n},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t{n}\",\"name\":\"f\",\"input\":{{}}}}}}\n\n\
             data: {{\"type\":\"content_block_delta\",\"index\":{n},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{\\\"i\\\"\"}}}}\n\n"
        )
        .unwrap();
    });
    let r = run_args(
        &os(&["extract", "--input", "sse", path.to_str().unwrap()]),
        dir.path(),
        240,
    );
    assert!(r.completed && r.code == Some(0), "{}", r.stderr);
    assert_calls(&r.stdout, n + 1, |i| {
        if i < n {
            (
                "f".into(),
                Some(format!("t{i}")),
                json!({ "i": i }),
                None,
                None,
            )
        } else {
            (
                "f".into(),
                Some(format!("t{i}")),
                json!({}),
                Some("{\"i\"".into()),
                Some(vec![TRUNCATED.into()]),
            )
        }
    });
    assert!(r.peak_mib < 40, "peak {} MiB", r.peak_mib);
}
