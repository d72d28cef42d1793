//! toolsift under an engine that runs many of it (xargs -P, GNU parallel, job arrays):
//! thread counts, lists of files, shards, labels and the exit code of a partial run.

mod common;
use common::toolsift;

const CHAT: &str = "fixtures/openai-chat/parallel-tool-calls.json";

#[test]
fn toolsift_threads_sets_the_default_and_a_bad_value_is_a_usage_error() {
    let converted = "fixtures/mandrake/legacy-xml-history.json";
    let commands: [&[&str]; 3] = [
        &["extract", CHAT],
        &["check", CHAT],
        &["convert", "--to", "json", converted],
    ];
    for command in commands {
        let out = toolsift()
            .args(command)
            .env("TOOLSIFT_THREADS", "1")
            .output()
            .unwrap();
        assert!(
            out.status.code() == Some(0) || (command[0] == "check" && out.status.code() == Some(1)),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for bad in ["0", "x", "-2", "1.5"] {
            let out = toolsift()
                .args(command)
                .env("TOOLSIFT_THREADS", bad)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{command:?} {bad}");
            assert!(out.stdout.is_empty(), "{command:?} {bad}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(&format!(
                    "TOOLSIFT_THREADS={bad}: expected a positive integer"
                )),
                "{command:?} {bad}: {stderr}"
            );
        }
    }
    // The same records on one thread as on the default.
    let one = toolsift()
        .args(["extract", "fixtures/openai-chat", "fixtures/codex"])
        .env("TOOLSIFT_THREADS", "1")
        .output()
        .unwrap();
    let default = toolsift()
        .args(["extract", "fixtures/openai-chat", "fixtures/codex"])
        .output()
        .unwrap();
    assert_eq!(one.stdout, default.stdout);
}
