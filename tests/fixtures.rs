//! Every file under fixtures/ is extracted (with results) and its JSONL output is
//! snapshotted; adding a case means adding a file.

mod common;
use common::{records, root, toolsift};

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
