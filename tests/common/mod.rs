//! Shared helpers: an isolated binary, and a typed reader of output records that fails
//! on any record that drifts from the documented shape.
#![allow(dead_code)]

pub mod api_schemas;

use assert_cmd::Command;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The built binary, with no TOOLSIFT_* or colour variables from the caller.
pub fn toolsift() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolsift"));
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("TOOLSIFT_") || k == "NO_COLOR" || k.starts_with("CLICOLOR") {
            cmd.env_remove(&key);
        }
    }
    cmd.current_dir(root());
    cmd
}

/// Whether to run the megabyte-scale property loops at their full size
/// (`TOOLSIFT_TEST_BIG=1`, set by the daily CI job and `bench/`); by default they run
/// at a size that still crosses the windows and bounds they test.
pub fn big() -> bool {
    std::env::var_os("TOOLSIFT_TEST_BIG").is_some_and(|v| !v.is_empty() && v != "0")
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub file: String,
    pub line: u64,
    pub turn: u64,
    pub index: u64,
}

/// One output record, exactly as documented in the README.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Record {
    Call {
        name: String,
        arguments: Map<String, Value>,
        arguments_raw: Option<String>,
        id: Option<String>,
        namespace: Option<String>,
        valid: Option<bool>,
        errors: Option<Vec<String>>,
        repairs: Option<Vec<String>>,
        in_reasoning: Option<bool>,
        channel: String,
        dialect: String,
        source: Source,
    },
    Text {
        text: String,
        in_reasoning: Option<bool>,
        source: Source,
    },
    Result {
        id: Option<String>,
        name: Option<String>,
        content: Value,
        is_error: bool,
        channel: String,
        dialect: String,
        source: Source,
    },
}

impl Record {
    pub fn name(&self) -> Option<&str> {
        match self {
            Record::Call { name, .. } => Some(name),
            Record::Result { name, .. } => name.as_deref(),
            Record::Text { .. } => None,
        }
    }
    pub fn id(&self) -> Option<&str> {
        match self {
            Record::Call { id, .. } | Record::Result { id, .. } => id.as_deref(),
            Record::Text { .. } => None,
        }
    }
    pub fn line(&self) -> u64 {
        match self {
            Record::Call { source, .. }
            | Record::Result { source, .. }
            | Record::Text { source, .. } => source.line,
        }
    }
    pub fn source(&self) -> &Source {
        match self {
            Record::Call { source, .. }
            | Record::Result { source, .. }
            | Record::Text { source, .. } => source,
        }
    }
    pub fn is_call(&self) -> bool {
        matches!(self, Record::Call { .. })
    }
}

/// Parses JSONL output into records and checks the invariants every record keeps.
pub fn records(stdout: &[u8]) -> Vec<Record> {
    let text = std::str::from_utf8(stdout).expect("output is UTF-8");
    text.lines()
        .map(|line| {
            let record: Record =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("bad record {line}: {e}"));
            if let Record::Call {
                valid,
                errors,
                arguments_raw,
                channel,
                dialect,
                source,
                ..
            } = &record
            {
                assert!(
                    ["tool", "json", "text"].contains(&channel.as_str()),
                    "{line}"
                );
                assert!(!dialect.is_empty());
                assert!(source.line >= 1);
                // valid:false always comes with a reason, and only then; valid:true
                // only when calls were checked against --tools contracts.
                assert_eq!(*valid == Some(false), errors.is_some(), "{line}");
                if arguments_raw.is_some() {
                    assert_eq!(*valid, Some(false), "{line}");
                }
            }
            record
        })
        .collect()
}

/// Runs `extract` with `args` and returns the records, requiring success.
pub fn extract(args: &[&str]) -> Vec<Record> {
    let out = toolsift().arg("extract").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    records(&out.stdout)
}

pub fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Whether `convert --verify`'s stderr reports something lost (a `verify:` line other
/// than a field the target cannot hold, which is said but is no loss of text, calls or
/// results).
pub fn lost(stderr: &str) -> bool {
    stderr
        .lines()
        .any(|l| l.contains("verify: ") && !l.contains("verify: not carried over: "))
}

/// What a child run of the binary gave, with its own peak resident size.
pub struct Measured {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub peak_mib: u64,
}

/// Runs the binary with `args` (stdin from `stdin`, or empty) and reaps it with `wait4`
/// for its peak resident size, so memory bounds are asserted on the process itself.
/// Linux carries the spawning process's own peak into the child's at exec: a large
/// test process inflates the figure, so tests that assert small peaks run the binary
/// from a small process (`/usr/bin/time`) or one test at a time.
// The child is reaped by `wait4` below, which clippy does not see.
#[allow(clippy::zombie_processes)]
pub fn run_measured(args: &[&std::ffi::OsStr], stdin: Option<&Path>) -> Measured {
    use std::os::unix::process::ExitStatusExt as _;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolsift"));
    cmd.args(args)
        .current_dir(root())
        .env_remove("TOOLSIFT_JOBS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Some(path) => cmd.stdin(std::fs::File::open(path).unwrap()),
        None => cmd.stdin(Stdio::null()),
    };
    let child = cmd.spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.unwrap();
    let mut err = child.stderr.unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).unwrap();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).unwrap();
        v
    });
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    let status = std::process::ExitStatus::from_raw(status);
    Measured {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
        // ru_maxrss is in KiB on Linux.
        peak_mib: usage.ru_maxrss as u64 / 1024,
    }
}

/// The peak resident size of a child is what `/usr/bin/time` reports on its own child:
/// a child reaped by the one test process inherits that process's peak at `exec`. A
/// command running `program` under `/usr/bin/time`, which writes the peak to `report`,
/// when there is one; else `program` alone (`measured` false).
pub fn under_time(
    program: impl AsRef<std::ffi::OsStr>,
    report: &Path,
) -> (std::process::Command, bool) {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return (std::process::Command::new(program), false);
    }
    let mut cmd = std::process::Command::new(time);
    cmd.arg("-o").arg(report).args(["-f", "%M"]).arg(program);
    (cmd, true)
}

/// The peak in KiB that [`under_time`]'s `/usr/bin/time` wrote (its last line).
pub fn time_peak_kib(report: &Path) -> Option<u64> {
    std::fs::read_to_string(report)
        .ok()?
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
}
