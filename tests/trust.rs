//! What toolsift does with input it must not trust (issue 22): strings from transcripts
//! are escaped in every human-readable output, contracts and dialect files read only
//! what they should, every message on stderr has one form, `check` fails on files it
//! could not read or found no transcript in, colour, and the shipped man pages and
//! completions.

use crate::common::{root, toolsift};
use std::path::Path;
use std::time::Duration;

const OPENAI: &str = "tests/data/contracts/openai.json";

/// A line a GitHub Actions runner would take as a workflow command.
const FORGED: &str = "::error file=src/main.rs,line=1::INJECTED";

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// An OpenAI Chat transcript whose calls name the given tools.
fn transcript_calling(dir: &Path, file: &str, names: &[&str]) -> std::path::PathBuf {
    let calls: Vec<serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            serde_json::json!({"id": format!("c{i}"), "type": "function",
                "function": {"name": n, "arguments": "{}"}})
        })
        .collect();
    let line = serde_json::json!({"role": "assistant", "content": null, "tool_calls": calls});
    let path = dir.join(file);
    std::fs::write(&path, format!("{line}\n")).unwrap();
    path
}

/// No line starts a workflow command, and no escape sequence came from the input.
fn assert_inert(output: &str, what: &str) {
    for line in output.lines() {
        assert!(!line.starts_with("::"), "{what}: forged line {line:?}");
    }
    assert!(
        !output.contains('\u{1b}'),
        "{what}: raw escape in {output:?}"
    );
    assert!(!output.contains('\r'), "{what}: raw CR in {output:?}");
}

#[test]
fn human_output_escapes_names_from_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let evil = format!("x\n{FORGED}");
    let file = transcript_calling(
        dir.path(),
        "t.jsonl",
        &[&evil, "\u{1b}[2Jred\r", "a\u{202e}b"],
    );
    let out = toolsift()
        .args(["check", "--tools", OPENAI, "--format", "human"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_inert(&stdout, "check human");
    assert!(!stdout.contains('\u{202e}'), "bidi override kept: {stdout}");
    // One line per finding, and the summary.
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert!(stdout.contains(r"tool x\n::error"), "{stdout}");
    // The other formats keep their own escaping; GitHub's too for escape sequences.
    for format in ["github", "json"] {
        let out = toolsift()
            .args(["check", "--tools", OPENAI, "--format", format])
            .arg(&file)
            .output()
            .unwrap();
        let stdout = text(&out.stdout);
        assert_eq!(stdout.lines().count(), 3, "{format}: {stdout}");
        assert!(!stdout.contains('\u{1b}'), "{format}: {stdout:?}");
        assert!(!stdout.contains("\n::error file=src"), "{format}: {stdout}");
    }
}

#[cfg(unix)]
#[test]
fn human_output_escapes_file_names() {
    let dir = tempfile::tempdir().unwrap();
    transcript_calling(
        dir.path(),
        "a\n::error file=x,line=1::INJECTED.jsonl",
        &["nope"],
    );
    let out = toolsift()
        .args(["check", "--tools", OPENAI])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_inert(&text(&out.stdout), "check human");
}

#[test]
fn dialects_and_stats_escape_texts_from_dialect_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("d.json");
    let rows = serde_json::json!({"dialects": [{
        "family": "markers", "name": "evil",
        "models": format!("m\n{FORGED}"), "summary": "s\u{1b}]0;title\u{7}",
        "example": "e\u{1b}[2J", "open": "<<c>>", "close": "<</c>>"}]});
    std::fs::write(&file, rows.to_string()).unwrap();
    let out = toolsift()
        .args(["dialects", "--dialect-file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_inert(&stdout, "dialects");
    assert!(stdout.contains(r"models: m\n::error"), "{stdout}");
    // --stats: every line a message of the one form.
    let out = toolsift()
        .args(["extract", "--stats", "--all", "--dialect-file"])
        .arg(&file)
        .write_stdin("<<c>>{\"name\": \"f\", \"arguments\": {}}<</c>>\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("evil"), "{stderr}");
    assert_funnel_form(&stderr, "--stats");
    assert_inert(&stderr, "--stats");
}

fn contract_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("contracts")).unwrap();
    std::fs::create_dir_all(dir.path().join("shared")).unwrap();
    let city =
        r#"{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}"#;
    std::fs::write(dir.path().join("contracts/city.json"), city).unwrap();
    std::fs::write(dir.path().join("shared/city.json"), city).unwrap();
    dir
}

fn check_with_contract(dir: &Path, contract: &str, extra: &[&str]) -> (i32, String, String) {
    let path = dir.join("contracts/tools.json");
    std::fs::write(&path, contract).unwrap();
    let calls = transcript_calling(dir, "t.jsonl", &["f"]);
    let out = toolsift()
        .args(["check", "--tools"])
        .arg(&path)
        .args(extra)
        .arg(calls)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn file_refs_resolve_only_under_the_contracts_directory() {
    let dir = contract_dir();
    // Beside the contract: resolved against it, and enforced (the call lacks "city").
    let (code, stdout, stderr) =
        check_with_contract(dir.path(), r#"{"f": {"$ref": "city.json"}}"#, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains(r#""city" is a required property"#),
        "{stdout}"
    );
    // Any local file by absolute URI, or out of the directory by a relative one: refused.
    for reference in ["file:///etc/passwd", "../shared/city.json"] {
        let contract = format!(r#"{{"f": {{"$ref": "{reference}"}}}}"#);
        let (code, stdout, stderr) = check_with_contract(dir.path(), &contract, &[]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{reference}: {stderr}");
        assert!(
            stderr.contains("outside") && stderr.contains("--schema-root"),
            "{reference}: {stderr}"
        );
        assert!(!stderr.contains("root:"), "{reference}: {stderr}");
    }
    // --schema-root widens the directory.
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = check_with_contract(
        dir.path(),
        r#"{"f": {"$ref": "../shared/city.json"}}"#,
        &["--schema-root", root],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains(r#""city" is a required property"#),
        "{stdout}"
    );
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success());
}

#[cfg(unix)]
#[test]
fn a_ref_to_a_fifo_or_device_does_not_block() {
    let dir = contract_dir();
    mkfifo(&dir.path().join("contracts/fifo.json"));
    for (reference, extra) in [("fifo.json", None), ("file:///dev/zero", Some("/"))] {
        let contract = format!(r#"{{"f": {{"$ref": "{reference}"}}}}"#);
        let args: Vec<&str> = extra.map(|r| vec!["--schema-root", r]).unwrap_or_default();
        let (code, _, stderr) = check_with_contract(dir.path(), &contract, &args);
        assert_eq!(code, 2, "{reference}: {stderr}");
        assert!(
            stderr.contains("not a regular file"),
            "{reference}: {stderr}"
        );
    }
}

#[cfg(unix)]
#[test]
fn contract_and_dialect_files_must_be_regular_and_small() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.json");
    mkfifo(&fifo);
    let big = dir.path().join("big.json");
    let mut bytes = vec![b' '; 17 << 20];
    bytes.extend_from_slice(b"{}");
    std::fs::write(&big, bytes).unwrap();
    let fifo = fifo.to_str().unwrap();
    let big = big.to_str().unwrap();
    for (option, file, reason) in [
        ("--tools", "/dev/zero", "not a regular file"),
        ("--tools", fifo, "not a regular file"),
        ("--tools", big, "larger than 16 MiB"),
        ("--dialect-file", "/dev/zero", "not a regular file"),
        ("--dialect-file", fifo, "not a regular file"),
        ("--dialect-file", big, "larger than 16 MiB"),
    ] {
        let out = toolsift()
            .args(["extract", option, file])
            .write_stdin("")
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{option} {file}: {stderr}");
        assert_eq!(
            stderr,
            format!("toolsift: {file}: {reason}\n"),
            "{option} {file}"
        );
    }
}

/// `toolsift: FILE:LINE: message` or `toolsift: message`, one line each.
fn assert_funnel_form(stderr: &str, what: &str) {
    assert!(!stderr.is_empty(), "{what}: no message");
    for line in stderr.lines() {
        let rest = line
            .strip_prefix("toolsift: ")
            .unwrap_or_else(|| panic!("{what}: {line:?}"));
        for prefix in ["usage:", "error:", "toolsift:"] {
            assert!(!rest.starts_with(prefix), "{what}: {line:?}");
        }
        assert!(!rest.contains("(os error"), "{what}: {line:?}");
        assert!(!rest.trim().is_empty(), "{what}: {line:?}");
    }
}

#[test]
fn every_message_goes_through_one_funnel() {
    let good = "tests/data/check/good.jsonl";
    for args in [
        vec!["extract", "--frobnicate"],
        vec!["convert", good],
        vec!["schema"],
        vec!["extract", "--roles", "bogus", good],
        vec!["check", "--tools", "no/such.json", good],
        vec!["extract", "--dialect-file", "no/such.json", good],
        vec!["dialects", "--dialect-file", "no/such.json"],
        vec!["dialects", "--dialect-file", good],
        vec!["tools", "render", "no/such.json"],
        vec!["check", "no/such.jsonl"],
        vec!["extract", "-o", good, good],
    ] {
        let out = toolsift().args(&args).output().unwrap();
        // An input not read is a partial run (3); the rest are usage errors (2).
        let code = if args == ["check", "no/such.jsonl"] {
            3
        } else {
            2
        };
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert_funnel_form(&text(&out.stderr), &args.join(" "));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn os_errors_name_the_file() {
    let good = "tests/data/check/good.jsonl";
    for (args, named) in [
        (vec!["extract", "-o", "/dev/full", good], "/dev/full"),
        (
            vec!["check", "--format", "junit", "-o", "/dev/full", good],
            "/dev/full",
        ),
    ] {
        let out = toolsift().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert_funnel_form(&stderr, &args.join(" "));
        assert!(
            stderr.starts_with(&format!("toolsift: {named}: No space left")),
            "{stderr}"
        );
    }
    for args in [
        vec!["extract", good],
        vec!["check", good],
        vec!["dialects"],
        vec!["tools", "render", OPENAI],
        vec!["man"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"));
        cmd.current_dir(root()).args(&args).stdout(full);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert_funnel_form(&stderr, &args.join(" "));
        assert!(
            stderr.starts_with("toolsift: standard output: No space left"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn check_fails_on_files_with_no_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.jsonl"), "").unwrap();
    std::fs::write(
        d.join("package.json"),
        r#"{"name": "x", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(d.join("tool.bin"), b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0").unwrap();
    std::fs::write(d.join("notes.txt"), "Nothing to see here.\n").unwrap();
    // Transcripts: a conversation without calls, and plain model output with a call.
    std::fs::write(
        d.join("chat.jsonl"),
        "{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"assistant\", \"content\": \"Hello.\"}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("output.txt"),
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n",
    )
    .unwrap();
    let out = toolsift().arg("check").arg(d).output().unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let flagged: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("no transcript"))
        .map(|l| {
            Path::new(l.split(':').next().unwrap())
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        flagged,
        ["empty.jsonl", "notes.txt", "package.json"],
        "{stdout}"
    );
    // JSON of another kind is named by its keys.
    assert!(
        stdout.contains(
            "package.json: no transcript recognised: JSON of no known transcript shape \
             (top-level keys: name, version); no calls read"
        ),
        "{stdout}"
    );
    // A binary was not read at all: that is a finding of its own, which --allow-empty
    // does not let pass.
    assert!(
        stdout.contains("tool.bin: binary data (NUL byte at offset 7); skipped\n"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(", 3 files without a transcript, 1 part not read\n"),
        "{stdout}"
    );
    let out = toolsift()
        .args(["check", "--allow-empty"])
        .arg(d)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout)
            .lines()
            .filter(|l| l.contains(": "))
            .count(),
        1,
        "{}",
        text(&out.stdout)
    );
    std::fs::remove_file(d.join("tool.bin")).unwrap();
    let out = toolsift()
        .args(["check", "--allow-empty"])
        .arg(d)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // An empty standard input too.
    let out = toolsift().arg("check").write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).starts_with("-: no transcript"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn unreadable_files_are_in_every_report() {
    let good = "tests/data/check/good.jsonl";
    let run = |format: &str| {
        let out = toolsift()
            .args(["check", "--format", format, "no/such.jsonl", good])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{format}");
        (text(&out.stdout), text(&out.stderr))
    };
    let (stdout, stderr) = run("github");
    assert!(
        stdout.starts_with(
            "::error file=no/such.jsonl,title=toolsift check::cannot be read: No such file"
        ),
        "{stdout}"
    );
    assert!(stderr.ends_with(", 1 unreadable file\n"), "{stderr}");
    let (stdout, _) = run("junit");
    let at = stdout
        .find(r#"<testsuite name="no/such.jsonl""#)
        .expect(&stdout);
    let suite = &stdout[at..stdout[at..].find("</testsuite>").unwrap() + at];
    assert!(suite.contains(r#"errors="1""#), "{suite}");
    assert!(suite.contains("<error type=\"unreadable\""), "{suite}");
    let (stdout, _) = run("json");
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "unreadable");
}

#[test]
fn the_summary_counts_the_findings_printed() {
    let out = toolsift()
        .args([
            "check",
            "--tools",
            OPENAI,
            "--expect",
            "get_weather",
            "--forbid",
            "write_file",
            "--max-calls",
            "2",
            "--format",
            "json",
            "tests/data/check/",
        ])
        .output()
        .unwrap();
    let assertions = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|f| ["expect", "forbid", "max-calls"].contains(&f["kind"].as_str().unwrap()))
        .count();
    let stderr = text(&out.stderr);
    assert!(
        stderr.ends_with(&format!(", {assertions} failed assertions\n")),
        "{assertions}: {stderr}"
    );
}

const MAGENTA: &str = "\u{1b}[35m";
const GREEN: &str = "\u{1b}[32m";

/// The output without the styles toolsift writes.
fn unstyled(s: &str) -> String {
    let mut s = s.to_owned();
    for style in [MAGENTA, GREEN, "\u{1b}[0m", "\u{1b}[1m"] {
        s = s.replace(style, "");
    }
    s
}

#[test]
fn color_styles_paths_and_line_numbers() {
    let bad = "tests/data/check/bad.jsonl";
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = toolsift();
        cmd.arg("check").args(args).arg(bad);
        for (k, v) in env {
            cmd.env(k, v);
        }
        text(&cmd.output().unwrap().stdout)
    };
    let plain = run(&[], &[]);
    assert!(!plain.contains('\u{1b}'));
    let colored = run(&["--color", "always"], &[]);
    assert!(
        colored.starts_with(&format!("{MAGENTA}{bad}\u{1b}[0m:{GREEN}5\u{1b}[0m: ")),
        "{colored:?}"
    );
    assert_eq!(unstyled(&colored), plain);
    assert_eq!(
        run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]),
        plain
    );
    assert_eq!(run(&["--color", "auto"], &[]), plain);
    assert_eq!(run(&[], &[("CLICOLOR_FORCE", "1")]), colored);
    assert_eq!(
        run(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
        plain
    );
    // Escaping holds with colour on.
    let dir = tempfile::tempdir().unwrap();
    let file = transcript_calling(dir.path(), "t.jsonl", &[&format!("x\n{FORGED}\u{1b}[2J")]);
    let out = toolsift()
        .args(["check", "--color", "always", "--tools", OPENAI])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(stdout.contains(MAGENTA), "{stdout:?}");
    assert_inert(&unstyled(&stdout), "colored check");
    // --stats (stderr) and dialects (stdout).
    let out = toolsift()
        .args(["extract", "--stats", "--color", "always", bad])
        .output()
        .unwrap();
    assert!(text(&out.stderr).contains(MAGENTA), "{}", text(&out.stderr));
    let out = toolsift()
        .args(["extract", "--stats", bad])
        .output()
        .unwrap();
    assert!(!text(&out.stderr).contains('\u{1b}'));
    let out = toolsift()
        .args(["dialects", "--color", "always"])
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains(MAGENTA));
    let out = toolsift().args(["dialects"]).output().unwrap();
    assert!(!text(&out.stdout).contains('\u{1b}'));
}

#[test]
fn completions_and_man_print_the_shipped_files() {
    for (shell, file) in [
        ("bash", "toolsift.bash"),
        ("zsh", "_toolsift"),
        ("fish", "toolsift.fish"),
        ("elvish", "toolsift.elv"),
        ("powershell", "_toolsift.ps1"),
    ] {
        let out = toolsift().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let shipped = std::fs::read(root().join("completions").join(file)).unwrap();
        assert!(out.stdout == shipped, "{shell}: completions/{file} differs");
    }
    for (args, page) in [
        (vec!["man"], "toolsift.1"),
        (vec!["man", "check"], "toolsift-check.1"),
        (vec!["man", "tools", "render"], "toolsift-tools-render.1"),
    ] {
        let out = toolsift().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let shipped = std::fs::read(root().join("man").join(page)).unwrap();
        assert!(out.stdout == shipped, "{args:?}: man/{page} differs");
    }
    let out = toolsift().args(["man", "frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_funnel_form(&text(&out.stderr), "man frobnicate");
}

#[test]
fn man_pages_name_only_pages_that_exist() {
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("man")).unwrap() {
        let path = entry.unwrap().path();
        let page = std::fs::read_to_string(&path).unwrap();
        for (at, _) in page.match_indices("(1)") {
            let start = page[..at]
                .rfind(|c: char| c.is_whitespace() || c == '>')
                .map_or(0, |i| i + 1);
            let name = page[start..at]
                .replace("\\-", "-")
                .replace("\\fB", "")
                .replace("\\fR", "");
            if !root().join("man").join(format!("{name}.1")).exists() {
                missing.push(format!("{}: {name}(1)", path.display()));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:?}");
}

#[test]
fn readme_installs_with_the_lock_file() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let install = &readme[readme.find("## Install").unwrap()..];
    let block = &install[..install.find("```\n\n").unwrap()];
    for line in block.lines().filter(|l| l.contains("cargo install")) {
        assert!(line.contains("cargo install --locked"), "{line}");
    }
}
