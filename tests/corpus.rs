//! The real recorded transcripts in ../shared/corpus (provenance in its SOURCES.md) are
//! all read without a warning, and their tool calls found exactly once each, in order.
//! The expected names and ids were established independently of toolsift, by reading
//! each file's structure with a separate script.

mod common;
use common::{corpus, records, toolsift};

/// The calls of one file, in order: (name, id).
type Calls = &'static [(&'static str, Option<&'static str>)];

/// Every corpus file with its calls.
const EXPECTED: &[(&str, Calls)] = &[
    ("aider/complex-change.md", &[]),
    ("aider/hello-world-flask.md", &[]),
    ("anthropic-legacy-xml/function_calling.ipynb", &[]),
    (
        "anthropic/anthropic-json-tool.1.chunks.txt",
        &[("json", Some("toolu_01KFbKqPYSuAKujiL6mTfzYA"))],
    ),
    (
        "anthropic/anthropic-tool-no-args.chunks.txt",
        &[("updateIssueList", Some("toolu_01QE1WLsSVp5hy5Q3GmGTmjP"))],
    ),
    (
        "anthropic/anthropic-tool-no-args.json",
        &[("updateIssueList", Some("toolu_01LRmxn9vGM1d2DZSDBowdZ1"))],
    ),
    (
        "cassettes/llm-tools-streaming-variant-a.yaml",
        &[("llm_version", Some("0"))],
    ),
    (
        "cassettes/llm-tools-streaming-variant-c.yaml",
        &[("llm_version", Some("llm_version:0"))],
    ),
    (
        "cassettes/llm-tools-streaming-variant-d.yaml",
        &[("llm_version", Some("0"))],
    ),
    (
        "cassettes/pydantic-ai-anthropic-parallel-tool-calls.yaml",
        &[
            (
                "retrieve_entity_info",
                Some("toolu_0167cfEnoQaPviGdVXA95zcu"),
            ),
            (
                "retrieve_entity_info",
                Some("toolu_01EEe2V5HD1Ac4rKiUR4HD2T"),
            ),
            (
                "retrieve_entity_info",
                Some("toolu_01XFyAjstT3966qvRynZyVPo"),
            ),
            (
                "retrieve_entity_info",
                Some("toolu_013mnQZbgtK2oe3Mo3XKJsx3"),
            ),
        ],
    ),
    (
        "cassettes/pydantic-ai-anthropic-server-tool-stream.yaml",
        &[
            (
                "text_editor_code_execution",
                Some("srvtoolu_01Xd8YZU6yAcvd5JbLCTRfFi"),
            ),
            (
                "text_editor_code_execution",
                Some("srvtoolu_01F3VxYFjEyogm8Ynuc75zfs"),
            ),
            (
                "text_editor_code_execution",
                Some("srvtoolu_01UZ1EtACaBJ87pPA9guaxHU"),
            ),
        ],
    ),
    (
        "cassettes/pydantic-ai-openai-stream-tool-call.yaml",
        &[("get_capital", Some("call_ZR5UUuTt3pf61kjwAJIYdVMj"))],
    ),
    (
        "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        &[
            ("TodoWrite", Some("toolu_01FHpVtawG6NqQ943umBMky8")),
            ("Bash", Some("toolu_01UwiR8tuGvGJN2J7BW4KbPx")),
            ("Glob", Some("toolu_01MEJ7TRMeoTyDi6EZLHM2zY")),
            ("Glob", Some("toolu_0164LbCjQenEQzr3pHHs81PK")),
            ("Glob", Some("toolu_01KhSQFosXU4bYDwP6Md9hRW")),
            ("Glob", Some("toolu_01QhjL1byZZsWexdkc7SBXUi")),
            ("Bash", Some("toolu_012Gbtu9wRFgVWjdDUHE3djw")),
            ("Glob", Some("toolu_01CXR3vcK29P9o26gvaLgQXG")),
            ("Glob", Some("toolu_01NfhH3k5WWu9fUHXKUfDiiA")),
            ("TodoWrite", Some("toolu_01PbUvZLKxR3ysWR9vhm6PSH")),
            ("Write", Some("toolu_01LM7vfs6eMdhHJokVajzJA1")),
            ("TodoWrite", Some("toolu_01WG87BhAT5yVaRwP1gU9Uxz")),
        ],
    ),
    (
        "claude-code/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        &[
            ("Write", Some("toolu_bdrk_01QRsKSkDDpcbN5DcZGF6N69")),
            ("Write", Some("toolu_bdrk_016tbodT5CtBRJqqi7vKsFvG")),
            ("Write", Some("toolu_bdrk_01AE52DNTFXnbYCYZbNxhzWc")),
            ("Read", Some("toolu_bdrk_019rEFxU8hyZyoD9foULmY5m")),
            ("Edit", Some("toolu_bdrk_01WC6KiMbojN1sDscXqkkFWe")),
            ("Bash", Some("toolu_bdrk_01Siz9pfbo7dpNst33AQai4F")),
        ],
    ),
    (
        "claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        &[
            ("TodoWrite", Some("toolu_01NG5xcSvVWynFdbWxaW2SPc")),
            ("Glob", Some("toolu_01SpA34ZjSpRT7kiHgsgMTfP")),
            ("Glob", Some("toolu_019e174mUeo44VHBnbQcApEG")),
            ("TodoWrite", Some("toolu_01Jo3zVz1Y26af7Dk8A9GMcS")),
            ("Task", Some("toolu_018t5jce2ZNoGr2ADsHGQife")),
            ("Task", Some("toolu_014YF9TXhDRR7BnpasNJ7gjC")),
            ("TodoWrite", Some("toolu_01Jb8RgAYYgwyup2DrEuucy7")),
            ("Glob", Some("toolu_01Jcrb8BoK8qgGGsycHsPYNo")),
            ("Read", Some("toolu_017Uj8NydfpTP1sKZ8hxWeko")),
            ("Task", Some("toolu_01LKfUwrsnof18CpWZQcJH44")),
            ("Bash", Some("toolu_019jdVD71Nj1AexezqLfBwgn")),
            ("Bash", Some("toolu_01D7Vzhj8hZUNetTNd3q54pk")),
            ("Bash", Some("toolu_01KDiLyJT1VsszVhG4d3p6jV")),
            ("Bash", Some("toolu_015KbY8sUArTxuvJp3HvFMQ5")),
            ("Read", Some("toolu_01QfMxgc1LfVtgousmNadCeX")),
            ("Bash", Some("toolu_01Fqq8ovHgopDjoLkxB1JAsT")),
            ("TodoWrite", Some("toolu_01UEhqVDkg1VkozRgaKRziMZ")),
            ("Edit", Some("toolu_019ctBEHhLKehUi4xPDkYwvc")),
            ("Read", Some("toolu_01YGfgPmLThZtkbtqRpvYMVW")),
            ("MultiEdit", Some("toolu_018awfyyafbNVMNu6kfSRuKi")),
            ("TodoWrite", Some("toolu_01FWcqW51ygiCEmjsfndBEGN")),
        ],
    ),
    ("claude-code/agent-36541525.jsonl", &[]),
    (
        "claude-code/incremental-subagents-turn-1.jsonl",
        &[
            ("Task", Some("toolu_bdrk_019PUUtqzQg8U5ogfuyQ7yLV")),
            ("Bash", Some("toolu_bdrk_01APXZu7yB82EDMJwYR5jwSQ")),
            ("Bash", Some("toolu_bdrk_014YMfb4uZbJqZ7RntN3HdAH")),
            ("Bash", Some("toolu_bdrk_01Rvn87j7ivW13dGHkGPEYMy")),
            ("Bash", Some("toolu_bdrk_011toawBZdzCRokQpEKt1wPR")),
            ("Bash", Some("toolu_bdrk_01B81NERsVCAqmdcg4LGZS36")),
            ("Bash", Some("toolu_bdrk_01NNGBKLENmr7j3TfUKZW7rz")),
        ],
    ),
    (
        "codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
        &[
            ("exec_command", Some("call_AvUkcEDS8tiUyr1JW8hw2z43")),
            ("exec_command", Some("call_VZakMJ4krqqb1Wnmc8ZVkSKs")),
            ("exec_command", Some("call_S9CCSetFADlbjlahU9MvN15w")),
            ("exec_command", Some("call_PPoZN9Borljc8TLstEoI86Oz")),
            ("exec_command", Some("call_wRWesOuGvoGbV7nbRFlNSfXH")),
            ("exec_command", Some("call_CoNBwaGxF0SP92vl6VaVtauo")),
            ("exec_command", Some("call_BmCvKI5OQPCwNKZKrPoBPcjZ")),
            ("exec_command", Some("call_iJwK6RrOA97VOmgawou2X70f")),
            ("exec_command", Some("call_lqZGojsoOW70Sgz6OiOMp093")),
            ("exec_command", Some("call_rwrn6KRtlhSx9eNCtnxB9qTv")),
            ("exec_command", Some("call_tkKm0lKSKc4yFDXvlyc7UWHY")),
            ("exec_command", Some("call_cPUxZ8w2dCBrNpdpniD2jJWG")),
            ("exec_command", Some("call_geGP5XA2U7zwVtatjLVDEEly")),
            ("exec_command", Some("call_ejYWXmk9eTlwd6gnCopNJQVK")),
            ("mcp__node_repl__js", Some("call_QN0Lw7jU6TTLrFELRdHVYQZi")),
            ("exec_command", Some("call_3f7AXDMZ9PHz7zedrTO4twut")),
            ("exec_command", Some("call_fOqgRQMFHp9giVTCngL0DIS2")),
            ("mcp__node_repl__js", Some("call_iV6paYYkxfzG4XQWzYDweH7L")),
            ("mcp__node_repl__js", Some("call_DEYUHL1as0ExzqH40Uo9vwNb")),
            ("exec_command", Some("call_Mfr5nRP3q1RfmYQ7LDgb38sH")),
            ("exec_command", Some("call_3tNWquF3FKJZfe6aGNe5ycIN")),
            ("exec_command", Some("call_aDtsEi00oHwLQxNlFyAVTgNL")),
            ("exec_command", Some("call_bSNxcGzMVT49FogY7FWtp5oG")),
            ("exec_command", Some("call_72Ps3rSq3r9elWK6hMGuzSaC")),
            ("exec_command", Some("call_ekT3R9mpvSexG1LzyM5mzIYa")),
            ("exec_command", Some("call_28hT1crzzD6ChJZ0wRfazeRN")),
            ("exec_command", Some("call_2RMEcSCE2ZyNXYo3YJllksWn")),
            ("exec_command", Some("call_RJQRxQjekyQbo0EqknGYzoFk")),
            ("exec_command", Some("call_5XsnZLlvh8C3bphspTluSSWe")),
            ("exec_command", Some("call_jyNzxSLbxzbg7aCmneLQCyE0")),
            ("exec_command", Some("call_LPzpCZbogXPJfuYsYQDmcZbI")),
            ("exec_command", Some("call_XyPE01hyDYxdw1jo4CWjgbf7")),
            ("exec_command", Some("call_uEbjhu3hs5TNVkGunEHs1Y5r")),
            ("exec_command", Some("call_13GS8wwAtXrz7BLN2dlFgn3v")),
            ("exec_command", Some("call_h8WL2FrXiILGyy9t7PVttGqR")),
            ("exec_command", Some("call_8EDBaw6LZ1ZMjJfsKg859FXw")),
            ("exec_command", Some("call_UcScF5zdt5BwWLHHhHwzTfg5")),
            ("exec_command", Some("call_2Au7yFVHtbaRLfTLyeX6EOYV")),
        ],
    ),
    (
        "gemini/google-stream-tool-call-arguments.chunks.txt",
        &[("getWeather", None), ("getWeather", None)],
    ),
    ("gemini/google-tool-call.chunks.txt", &[("weather", None)]),
    ("gemini/google-tool-call.json", &[("weather", None)]),
    (
        "openai-chat/anthropic-fallback-tool-call.sse",
        &[("read_file", Some("toolu_sanitized"))],
    ),
    (
        "openai-chat/deepseek-tool-call.chunks.txt",
        &[("weather", Some("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF"))],
    ),
    (
        "openai-chat/deepseek-tool-call.json",
        &[("weather", Some("call_00_9V0vrf86Pc9aelHCJMZqnJBo"))],
    ),
    (
        "openai-chat/groq-tool-call.json",
        &[("weather", Some("ax9fskhev"))],
    ),
    (
        "openai-chat/mistral-tool-call.chunks.txt",
        &[("weather", Some("gSIMJiOkT"))],
    ),
    (
        "openai-responses/azure-tool-call.1.chunks.txt",
        &[("weather", Some("call_H5DxLSFnsGhiROnUiDHmgyc8"))],
    ),
    (
        "openai-responses/azure-tool-call.1.json",
        &[("weather", Some("call_YunNGbIwdVJ2i0y0Mybva4Pw"))],
    ),
    (
        "openhands/basic.json",
        &[
            ("str_replace_editor", Some("toolu_017nBp7UfiGqyrA7j77HgtFP")),
            ("finish", Some("toolu_01BUKu3B7nY574atNECkBiFk")),
        ],
    ),
    (
        "openhands/wrong_initial_state.json",
        &[
            ("str_replace_editor", Some("toolu_01USom24cuiyvAembLhEryrn")),
            ("execute_bash", Some("toolu_01PuY3mXrE6fm3j52GscR4rj")),
            ("str_replace_editor", Some("toolu_01DodVjoeVmEY3gU5ALbqmGj")),
            ("finish", Some("toolu_01G98EmHEC8HgktRjJBYXqEa")),
        ],
    ),
    (
        "swe-agent/function_calling_simple.traj",
        &[
            ("find_file", Some("call_PbWErNIge3YTrli3fiVvmIid")),
            ("open", Some("call_upNLxh7rBcDH9w5XiNdoAS0I")),
            ("edit", Some("call_hIiDKXAXZl4qMHV6RRXvil4u")),
            ("bash", Some("call_5O339epJ3rKjEal3Kuvpj9bM")),
            ("submit", Some("call_6zuFhIfpOAi1jAiD2QHMmh6S")),
        ],
    ),
    (
        "swe-agent/gpt4-test-repo-6e44b9.traj",
        &[
            ("find_file", Some("call_fJuazlMUN5fQDQ73G6XSpYpx")),
            ("open", Some("call_OhmPHGZp0XJ6JRnNkQaYcBMs")),
            ("edit", Some("call_DVnbJcFrvwPsrPt3KfIMf7OH")),
            ("bash", Some("call_dcF76aXH6e1pzqRwGxOwpuxb")),
            ("submit", None),
        ],
    ),
    (
        "swe-agent/marshmallow-1867-xml.traj",
        &[
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
            ("bash", None),
        ],
    ),
];

#[test]
fn corpus_calls_are_found_exactly_once() {
    let Some(dir) = corpus() else { return };
    let mut seen = 0;
    for (rel, want) in EXPECTED {
        let path = dir.join(rel);
        let out = toolsift().arg("extract").arg(&path).output().unwrap();
        assert!(out.status.success(), "{rel}");
        assert!(
            out.stderr.is_empty(),
            "{rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Vec<(String, Option<String>)> = records(&out.stdout)
            .iter()
            .map(|r| (r.name().unwrap().to_owned(), r.id().map(str::to_owned)))
            .collect();
        let want: Vec<(String, Option<String>)> = want
            .iter()
            .map(|(n, i)| (n.to_string(), i.map(str::to_owned)))
            .collect();
        assert_eq!(got, want, "{rel}");
        seen += 1;
    }
    // Every file of the corpus is listed above: a new file needs its expectations.
    let mut files = 0;
    for entry in walk(&dir) {
        if entry.file_name().is_some_and(|n| n != "SOURCES.md") {
            files += 1;
        }
    }
    assert_eq!(
        files, seen,
        "files in the corpus vs files with expectations"
    );
}

#[test]
fn corpus_records_match_their_snapshots() {
    if corpus().is_none() {
        return;
    }
    insta::glob!("../../shared/corpus", "**/*.*", |path| {
        if path.file_name().is_some_and(|n| n == "SOURCES.md") {
            return;
        }
        let out = toolsift()
            .args(["extract", "--with-results"])
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success());
        records(&out.stdout);
        // The absolute path differs between machines; the snapshot name says the file.
        let text = String::from_utf8(out.stdout).unwrap();
        let text = text.replace(&*path.to_string_lossy(), "<corpus file>");
        insta::assert_snapshot!(text);
    });
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
