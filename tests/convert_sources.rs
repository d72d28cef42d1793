//! `convert` on real transcripts of every source it reads (fixtures/corpus, see its
//! SOURCES.md): session logs, single API responses, and streams, which it refuses.

use crate::common;

use crate::common::toolsift;
use serde_json::Value;
use std::path::Path;

/// Files `convert` reads, by the shape it reads them as.
const CONVERTED: &[&str] = &[
    // Claude Code session and subagent logs: one conversation per file.
    "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "claude-code/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
    "claude-code/incremental-subagents-turn-1.jsonl",
    "claude-code/agent-36541525.jsonl",
    "claude-code/session-9eda1058.jsonl",
    // A Codex rollout: response items, with event_msg mirrors and turn_context lines.
    "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
    // A Gemini CLI session document.
    "gemini-cli/session-2026-01-16T11-01-file-ops-37b7abef.json",
    // A mini-swe-agent trajectory: actions in fenced blocks, observations as results.
    "mini-swe-agent/github-issue-missing-colon.traj.json",
    // Single API responses: one message each.
    "openai-chat/deepseek-tool-call.json",
    "openai-chat/groq-tool-call.json",
    "anthropic/anthropic-tool-no-args.json",
    "anthropic/anthropic-programmatic-tool-calling.1.json",
    "gemini/google-tool-call.json",
    "openai-responses/azure-tool-call.1.json",
    "openai-responses/openai-local-shell-tool.1.json",
];

/// Streams and cassettes: `convert` reads them through extract's reader, and says so.
const STREAMS: &[&str] = &[
    "openai-chat/mistral-tool-call.chunks.txt",
    "openai-chat/anthropic-fallback-tool-call.sse",
    "gemini/google-tool-call.chunks.txt",
    "cassettes/llm-tools-streaming-variant-d.yaml",
    // A llama-stack recording: a stream of wrapped chunks.
    "llama-stack/watsonx-stream-tool-call-27dea747.json",
    // pydantic-ai's xAI cassette of a stream: a server-side call and its output.
    "xai/test_xai_builtin_code_execution_tool_stream.xai.yaml",
    // Cohere v2 chat streams: pieces joined by index, and a call with none.
    "cohere/cohere-tool-call.chunks.txt",
    "cohere/cohere-empty-tool-call.chunks.txt",
    // Bedrock Converse responses in cassettes.
    "bedrock/pydantic-ai-bedrock-converse-claude-tool-with-thinking.yaml",
    "bedrock/pydantic-ai-bedrock-converse-moonshot-tool-call.yaml",
];

fn fixture(name: &str) -> String {
    let path = Path::new("fixtures/corpus").join(name);
    assert!(common::root().join(&path).is_file(), "{name}: missing");
    path.to_string_lossy().into_owned()
}

/// Calls and results in a canonical transcript.
fn converted_counts(doc: &Value) -> (usize, usize) {
    let mut counts = (0, 0);
    for m in doc["messages"].as_array().expect("messages") {
        for p in m["parts"].as_array().expect("parts") {
            match p["type"].as_str() {
                Some("call") => counts.0 += 1,
                Some("result") => counts.1 += 1,
                _ => {}
            }
        }
    }
    counts
}

/// Calls and results `extract` reports.
fn extracted_counts(file: &str) -> (usize, usize) {
    let out = toolsift()
        .args(["extract", "--with-results", file])
        .output()
        .unwrap();
    let mut counts = (0, 0);
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        match record["type"].as_str() {
            Some("call") => counts.0 += 1,
            Some("result") => counts.1 += 1,
            _ => {}
        }
    }
    counts
}

/// Where `convert` and `extract` count differently, and why.
#[test]
fn sources_convert_to_json_whole_and_verified() {
    for name in CONVERTED {
        let file = fixture(name);
        let out = toolsift()
            .args(["convert", "--to", "json", "--verify", &file])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        assert!(!common::lost(&stderr), "{name}: {stderr}");
        // One document: a session log is one conversation, not one per line.
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: not one JSON document: {e}"));
        let converted = converted_counts(&doc);
        let extracted = extracted_counts(&file);
        // Server tools' results included: convert reads every result extract reports.
        assert_eq!(converted, extracted, "{name}: convert vs extract");
        assert!(
            converted.0 > 0 || name.contains("shell"),
            "{name}: no calls"
        );
    }
}

#[test]
fn sources_convert_to_openai_and_anthropic_without_loss() {
    for name in CONVERTED {
        let file = fixture(name);
        for to in ["openai", "anthropic"] {
            let out = toolsift()
                .args(["convert", "--to", to, "--verify", &file])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let lost: Vec<&str> = stderr.lines().filter(|l| common::lost(l)).collect();
            assert!(lost.is_empty(), "{name} --to {to}: {lost:#?}");
            assert!(out.status.success(), "{name} --to {to}: {stderr}");
        }
    }
}

#[test]
fn session_log_keeps_its_lines_fields() {
    let file = fixture("claude-code/session-9eda1058.jsonl");
    let out = toolsift()
        .args(["convert", "--to", "json", &file])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(common::root().join(&file)).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every line's uuid, and every line that is not a message, is somewhere in the output.
    let output = serde_json::to_string(&doc).unwrap();
    for line in &lines {
        if let Some(uuid) = line["uuid"].as_str() {
            assert!(output.contains(uuid), "uuid {uuid} lost");
        }
        if let Some(kind @ ("summary" | "system" | "file-history-snapshot")) = line["type"].as_str()
        {
            let kept = serde_json::to_string(line).unwrap();
            assert!(output.contains(&kept), "a {kind} line lost");
        }
    }
}

#[test]
fn streams_convert_through_extracts_reader() {
    for name in STREAMS {
        let file = fixture(name);
        let out = toolsift()
            .args(["convert", "--to", "json", "--verify", &file])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        // Said once: what was kept and what was not.
        assert_eq!(
            stderr.matches("read through extract's reader").count(),
            1,
            "{name}: {stderr}"
        );
        assert!(!common::lost(&stderr), "{name}: {stderr}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let calls: Vec<&str> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap())
            .filter(|p| p["type"] == "call")
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        let out = toolsift().args(["extract", &file]).output().unwrap();
        let extracted: Vec<String> = common::records(&out.stdout)
            .iter()
            .filter_map(|r| r.name().map(str::to_owned))
            .collect();
        assert!(!calls.is_empty(), "{name}");
        assert_eq!(calls, extracted, "{name}");
    }
}

#[test]
fn conversations_one_per_line_still_convert_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("train.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}"#,
            "\n",
            r#"{"messages":[{"role":"user","content":"c"}]}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = toolsift()
        .args(["convert", "--to", "openai"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
}

/// Cohere's tool plan is what the model says before its calls, whole or streamed: the
/// message's text, kept by every target.
#[test]
fn cohere_tool_plan_is_the_model_text() {
    for (name, plan) in [
        (
            "cohere/cohere-tool-call.json",
            "I will use the weather tool to find out the weather in San Francisco. I will also use the cityAttractions tool to find out what attractions are in San Francisco.",
        ),
        (
            "cohere/cohere-tool-call.chunks.txt",
            "I will use the weather tool to find the weather in San Francisco and the cityAttractions tool to find attractions in San Francisco.",
        ),
    ] {
        let file = fixture(name);
        let out = toolsift()
            .args(["convert", "--to", "openai", &file])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let message = &doc["messages"][0];
        assert_eq!(message["content"], plan, "{name}");
        assert_eq!(message["tool_calls"].as_array().map(Vec::len), Some(2));
    }
}
