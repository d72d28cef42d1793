//! Every file under fixtures/ is extracted (with results) and its JSONL output is
//! snapshotted; adding a case means adding a file.

use crate::common::{records, root, toolsift};

#[test]
fn every_fixture_matches_its_snapshot() {
    insta::glob!("../fixtures", "**/*.*", |path| {
        // Provenance notes, the scripts that build some fixtures and the providers'
        // request schemas are not inputs.
        let rel = path.strip_prefix(root()).unwrap();
        if path.file_name().is_some_and(|n| n == "SOURCES.md")
            || path.extension().is_some_and(|e| e == "py")
            || rel.starts_with("fixtures/api-schemas")
        {
            return;
        }
        let out = toolsift()
            .args(["extract", "--with-results"])
            .arg(rel)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The fixtures of no known shape are named, once; every other is read quietly.
        let stderr = String::from_utf8_lossy(&out.stderr);
        if rel.starts_with("fixtures/unknown-shape") {
            let said = format!(
                "toolsift: {}: JSON of no known transcript shape (",
                rel.display()
            );
            assert!(
                stderr.starts_with(&said)
                    && stderr.ends_with("); no calls read\n")
                    && stderr.lines().count() == 1,
                "{}: {stderr}",
                rel.display()
            );
        } else {
            assert!(stderr.is_empty(), "{}: {stderr}", rel.display());
        }
        records(&out.stdout);
        insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap());
    });
}

#[test]
fn output_is_byte_identical_across_runs() {
    let run = || {
        toolsift()
            .args([
                "extract",
                "--with-results",
                "fixtures/codex/rollout.jsonl",
                "fixtures/openhands/events.json",
                "fixtures/anthropic/stream.sse",
            ])
            .output()
            .unwrap()
            .stdout
    };
    let first = run();
    assert!(!first.is_empty());
    assert_eq!(first, run());
}

/// `source.index` numbers the records of each file 0, 1, 2, … in the order written,
/// whatever the framing and however the file is read: with results and text, in
/// windows of text, on one thread or several. (file, index) is a key.
#[test]
fn source_index_numbers_the_records_of_each_file() {
    let run = |args: &[&str], window: Option<&str>| {
        let mut cmd = toolsift();
        cmd.arg("extract").args(args).arg("fixtures");
        if let Some(w) = window {
            cmd.env("TOOLSIFT_TEXT_WINDOW", w);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let records = records(&out.stdout);
        let mut next = std::collections::HashMap::<String, u64>::new();
        for r in &records {
            let s = r.source();
            let n = next.entry(s.file.clone()).or_default();
            assert_eq!(s.index, *n, "{args:?}: {}", s.file);
            *n += 1;
        }
        assert!(next.len() > 100, "{args:?}: {} files", next.len());
        out.stdout
    };
    let all = ["--with-results", "--with-text", "--all"];
    let one = run(&[&all[..], &["-j", "1"]].concat(), None);
    assert_eq!(one, run(&[&all[..], &["-j", "2"]].concat(), None));
    // Text read window by window, JSON Lines parsed on a second thread.
    let windowed = run(&["--with-results", "-j", "1"], Some("65536"));
    assert_eq!(windowed, run(&["--with-results", "-j", "2"], Some("65536")));
}
