//! The real recorded transcripts in ../shared/corpus (provenance in its SOURCES.md) are
//! all read without a warning, and their tool calls found exactly once each, in order.
//! The expected names and ids were established independently of toolsift, by reading
//! each file's structure with a separate script.

mod common;
use common::{corpus, records, toolsift};

/// The calls of one file, in order: (name, id, line). The lines are where each call
/// object starts; in the SWE-agent text format, the line of the message text.
type Calls = &'static [(&'static str, Option<&'static str>, u64)];

/// Every corpus file with its calls. The notebook's one call is Anthropic legacy XML in
/// a cell output (the prompt template and a re-printed copy are not calls); the Claude
/// Code subagent file's 45 are XML invokes the model wrote as text (a leak: never run).
const EXPECTED: &[(&str, Calls)] = &[
    ("aider/complex-change.md", &[]),
    ("aider/hello-world-flask.md", &[]),
    (
        "anthropic-legacy-xml/function_calling.ipynb",
        &[("calculator", None, 350)],
    ),
    (
        "anthropic/anthropic-json-tool.1.chunks.txt",
        &[("json", Some("toolu_01KFbKqPYSuAKujiL6mTfzYA"), 2)],
    ),
    (
        "anthropic/anthropic-tool-no-args.chunks.txt",
        &[("updateIssueList", Some("toolu_01QE1WLsSVp5hy5Q3GmGTmjP"), 8)],
    ),
    (
        "anthropic/anthropic-tool-no-args.json",
        &[(
            "updateIssueList",
            Some("toolu_01LRmxn9vGM1d2DZSDBowdZ1"),
            11,
        )],
    ),
    (
        "cassettes/llm-tools-streaming-variant-a.yaml",
        &[("llm_version", Some("0"), 30)],
    ),
    (
        "cassettes/llm-tools-streaming-variant-c.yaml",
        &[("llm_version", Some("llm_version:0"), 28)],
    ),
    (
        "cassettes/llm-tools-streaming-variant-d.yaml",
        &[("llm_version", Some("0"), 27)],
    ),
    (
        "cassettes/pydantic-ai-anthropic-parallel-tool-calls.yaml",
        &[
            (
                "retrieve_entity_info",
                Some("toolu_0167cfEnoQaPviGdVXA95zcu"),
                60,
            ),
            (
                "retrieve_entity_info",
                Some("toolu_01EEe2V5HD1Ac4rKiUR4HD2T"),
                65,
            ),
            (
                "retrieve_entity_info",
                Some("toolu_01XFyAjstT3966qvRynZyVPo"),
                70,
            ),
            (
                "retrieve_entity_info",
                Some("toolu_013mnQZbgtK2oe3Mo3XKJsx3"),
                75,
            ),
        ],
    ),
    (
        "cassettes/pydantic-ai-anthropic-server-tool-stream.yaml",
        &[
            (
                "text_editor_code_execution",
                Some("srvtoolu_01Xd8YZU6yAcvd5JbLCTRfFi"),
                59,
            ),
            (
                "text_editor_code_execution",
                Some("srvtoolu_01F3VxYFjEyogm8Ynuc75zfs"),
                104,
            ),
            (
                "text_editor_code_execution",
                Some("srvtoolu_01UZ1EtACaBJ87pPA9guaxHU"),
                164,
            ),
        ],
    ),
    (
        "cassettes/pydantic-ai-openai-stream-tool-call.yaml",
        &[("get_capital", Some("call_ZR5UUuTt3pf61kjwAJIYdVMj"), 44)],
    ),
    (
        "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        &[
            ("TodoWrite", Some("toolu_01FHpVtawG6NqQ943umBMky8"), 4),
            ("Bash", Some("toolu_01UwiR8tuGvGJN2J7BW4KbPx"), 6),
            ("Glob", Some("toolu_01MEJ7TRMeoTyDi6EZLHM2zY"), 7),
            ("Glob", Some("toolu_0164LbCjQenEQzr3pHHs81PK"), 8),
            ("Glob", Some("toolu_01KhSQFosXU4bYDwP6Md9hRW"), 9),
            ("Glob", Some("toolu_01QhjL1byZZsWexdkc7SBXUi"), 10),
            ("Bash", Some("toolu_012Gbtu9wRFgVWjdDUHE3djw"), 16),
            ("Glob", Some("toolu_01CXR3vcK29P9o26gvaLgQXG"), 17),
            ("Glob", Some("toolu_01NfhH3k5WWu9fUHXKUfDiiA"), 18),
            ("TodoWrite", Some("toolu_01PbUvZLKxR3ysWR9vhm6PSH"), 22),
            ("Write", Some("toolu_01LM7vfs6eMdhHJokVajzJA1"), 25),
            ("TodoWrite", Some("toolu_01WG87BhAT5yVaRwP1gU9Uxz"), 27),
        ],
    ),
    (
        "claude-code/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        &[
            ("Write", Some("toolu_bdrk_01QRsKSkDDpcbN5DcZGF6N69"), 4),
            ("Write", Some("toolu_bdrk_016tbodT5CtBRJqqi7vKsFvG"), 5),
            ("Write", Some("toolu_bdrk_01AE52DNTFXnbYCYZbNxhzWc"), 6),
            ("Read", Some("toolu_bdrk_019rEFxU8hyZyoD9foULmY5m"), 16),
            ("Edit", Some("toolu_bdrk_01WC6KiMbojN1sDscXqkkFWe"), 18),
            ("Bash", Some("toolu_bdrk_01Siz9pfbo7dpNst33AQai4F"), 23),
        ],
    ),
    (
        "claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        &[
            ("TodoWrite", Some("toolu_01NG5xcSvVWynFdbWxaW2SPc"), 4),
            ("Glob", Some("toolu_01SpA34ZjSpRT7kiHgsgMTfP"), 6),
            ("Glob", Some("toolu_019e174mUeo44VHBnbQcApEG"), 7),
            ("TodoWrite", Some("toolu_01Jo3zVz1Y26af7Dk8A9GMcS"), 8),
            ("Task", Some("toolu_018t5jce2ZNoGr2ADsHGQife"), 12),
            ("Task", Some("toolu_014YF9TXhDRR7BnpasNJ7gjC"), 13),
            ("TodoWrite", Some("toolu_01Jb8RgAYYgwyup2DrEuucy7"), 14),
            ("Glob", Some("toolu_01Jcrb8BoK8qgGGsycHsPYNo"), 18),
            ("Read", Some("toolu_017Uj8NydfpTP1sKZ8hxWeko"), 20),
            ("Task", Some("toolu_01LKfUwrsnof18CpWZQcJH44"), 25),
            ("Bash", Some("toolu_019jdVD71Nj1AexezqLfBwgn"), 28),
            ("Bash", Some("toolu_01D7Vzhj8hZUNetTNd3q54pk"), 30),
            ("Bash", Some("toolu_01KDiLyJT1VsszVhG4d3p6jV"), 32),
            ("Bash", Some("toolu_015KbY8sUArTxuvJp3HvFMQ5"), 34),
            ("Read", Some("toolu_01QfMxgc1LfVtgousmNadCeX"), 36),
            ("Bash", Some("toolu_01Fqq8ovHgopDjoLkxB1JAsT"), 38),
            ("TodoWrite", Some("toolu_01UEhqVDkg1VkozRgaKRziMZ"), 42),
            ("Edit", Some("toolu_019ctBEHhLKehUi4xPDkYwvc"), 45),
            ("Read", Some("toolu_01YGfgPmLThZtkbtqRpvYMVW"), 47),
            ("MultiEdit", Some("toolu_018awfyyafbNVMNu6kfSRuKi"), 49),
            ("TodoWrite", Some("toolu_01FWcqW51ygiCEmjsfndBEGN"), 51),
        ],
    ),
    (
        "claude-code/agent-36541525.jsonl",
        &[
            ("Glob", None, 2),
            ("Glob", None, 2),
            ("Read", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Read", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
            ("Bash", None, 2),
            ("Read", None, 2),
            ("Bash", None, 2),
        ],
    ),
    (
        "claude-code/incremental-subagents-turn-1.jsonl",
        &[
            ("Task", Some("toolu_bdrk_019PUUtqzQg8U5ogfuyQ7yLV"), 6),
            ("Bash", Some("toolu_bdrk_01APXZu7yB82EDMJwYR5jwSQ"), 10),
            ("Bash", Some("toolu_bdrk_014YMfb4uZbJqZ7RntN3HdAH"), 13),
            ("Bash", Some("toolu_bdrk_01Rvn87j7ivW13dGHkGPEYMy"), 16),
            ("Bash", Some("toolu_bdrk_011toawBZdzCRokQpEKt1wPR"), 19),
            ("Bash", Some("toolu_bdrk_01B81NERsVCAqmdcg4LGZS36"), 22),
            ("Bash", Some("toolu_bdrk_01NNGBKLENmr7j3TfUKZW7rz"), 25),
        ],
    ),
    (
        "codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
        &[
            ("exec_command", Some("call_AvUkcEDS8tiUyr1JW8hw2z43"), 4),
            ("exec_command", Some("call_VZakMJ4krqqb1Wnmc8ZVkSKs"), 7),
            ("exec_command", Some("call_S9CCSetFADlbjlahU9MvN15w"), 8),
            ("exec_command", Some("call_PPoZN9Borljc8TLstEoI86Oz"), 12),
            ("exec_command", Some("call_wRWesOuGvoGbV7nbRFlNSfXH"), 13),
            ("exec_command", Some("call_CoNBwaGxF0SP92vl6VaVtauo"), 14),
            ("exec_command", Some("call_BmCvKI5OQPCwNKZKrPoBPcjZ"), 15),
            ("exec_command", Some("call_iJwK6RrOA97VOmgawou2X70f"), 21),
            ("exec_command", Some("call_lqZGojsoOW70Sgz6OiOMp093"), 22),
            ("exec_command", Some("call_rwrn6KRtlhSx9eNCtnxB9qTv"), 23),
            ("exec_command", Some("call_tkKm0lKSKc4yFDXvlyc7UWHY"), 24),
            ("exec_command", Some("call_cPUxZ8w2dCBrNpdpniD2jJWG"), 35),
            ("exec_command", Some("call_geGP5XA2U7zwVtatjLVDEEly"), 36),
            ("exec_command", Some("call_ejYWXmk9eTlwd6gnCopNJQVK"), 40),
            (
                "mcp__node_repl__js",
                Some("call_QN0Lw7jU6TTLrFELRdHVYQZi"),
                43,
            ),
            ("exec_command", Some("call_3f7AXDMZ9PHz7zedrTO4twut"), 46),
            ("exec_command", Some("call_fOqgRQMFHp9giVTCngL0DIS2"), 49),
            (
                "mcp__node_repl__js",
                Some("call_iV6paYYkxfzG4XQWzYDweH7L"),
                52,
            ),
            (
                "mcp__node_repl__js",
                Some("call_DEYUHL1as0ExzqH40Uo9vwNb"),
                55,
            ),
            ("exec_command", Some("call_Mfr5nRP3q1RfmYQ7LDgb38sH"), 58),
            ("exec_command", Some("call_3tNWquF3FKJZfe6aGNe5ycIN"), 59),
            ("exec_command", Some("call_aDtsEi00oHwLQxNlFyAVTgNL"), 63),
            ("exec_command", Some("call_bSNxcGzMVT49FogY7FWtp5oG"), 64),
            ("exec_command", Some("call_72Ps3rSq3r9elWK6hMGuzSaC"), 65),
            ("exec_command", Some("call_ekT3R9mpvSexG1LzyM5mzIYa"), 66),
            ("exec_command", Some("call_28hT1crzzD6ChJZ0wRfazeRN"), 71),
            ("exec_command", Some("call_2RMEcSCE2ZyNXYo3YJllksWn"), 72),
            ("exec_command", Some("call_RJQRxQjekyQbo0EqknGYzoFk"), 73),
            ("exec_command", Some("call_5XsnZLlvh8C3bphspTluSSWe"), 74),
            ("exec_command", Some("call_jyNzxSLbxzbg7aCmneLQCyE0"), 79),
            ("exec_command", Some("call_LPzpCZbogXPJfuYsYQDmcZbI"), 80),
            ("exec_command", Some("call_XyPE01hyDYxdw1jo4CWjgbf7"), 81),
            ("exec_command", Some("call_uEbjhu3hs5TNVkGunEHs1Y5r"), 82),
            ("exec_command", Some("call_13GS8wwAtXrz7BLN2dlFgn3v"), 87),
            ("exec_command", Some("call_h8WL2FrXiILGyy9t7PVttGqR"), 90),
            ("exec_command", Some("call_8EDBaw6LZ1ZMjJfsKg859FXw"), 91),
            ("exec_command", Some("call_UcScF5zdt5BwWLHHhHwzTfg5"), 92),
            ("exec_command", Some("call_2Au7yFVHtbaRLfTLyeX6EOYV"), 93),
        ],
    ),
    (
        "gemini/google-stream-tool-call-arguments.chunks.txt",
        &[("getWeather", None, 1), ("getWeather", None, 5)],
    ),
    (
        "gemini/google-tool-call.chunks.txt",
        &[("weather", None, 1)],
    ),
    ("gemini/google-tool-call.json", &[("weather", None, 6)]),
    (
        "openai-chat/anthropic-fallback-tool-call.sse",
        &[("read_file", Some("toolu_sanitized"), 7)],
    ),
    (
        "openai-chat/deepseek-tool-call.chunks.txt",
        &[("weather", Some("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF"), 41)],
    ),
    (
        "openai-chat/deepseek-tool-call.json",
        &[("weather", Some("call_00_9V0vrf86Pc9aelHCJMZqnJBo"), 14)],
    ),
    (
        "openai-chat/groq-tool-call.json",
        &[("weather", Some("ax9fskhev"), 12)],
    ),
    (
        "openai-chat/mistral-tool-call.chunks.txt",
        &[("weather", Some("gSIMJiOkT"), 2)],
    ),
    (
        "openai-responses/azure-tool-call.1.chunks.txt",
        &[("weather", Some("call_H5DxLSFnsGhiROnUiDHmgyc8"), 3)],
    ),
    (
        "openai-responses/azure-tool-call.1.json",
        &[("weather", Some("call_YunNGbIwdVJ2i0y0Mybva4Pw"), 85)],
    ),
    (
        "openhands/basic.json",
        &[
            (
                "str_replace_editor",
                Some("toolu_017nBp7UfiGqyrA7j77HgtFP"),
                38,
            ),
            ("finish", Some("toolu_01BUKu3B7nY574atNECkBiFk"), 166),
        ],
    ),
    (
        "openhands/wrong_initial_state.json",
        &[
            (
                "str_replace_editor",
                Some("toolu_01USom24cuiyvAembLhEryrn"),
                38,
            ),
            ("execute_bash", Some("toolu_01PuY3mXrE6fm3j52GscR4rj"), 161),
            (
                "str_replace_editor",
                Some("toolu_01DodVjoeVmEY3gU5ALbqmGj"),
                295,
            ),
            ("finish", Some("toolu_01G98EmHEC8HgktRjJBYXqEa"), 418),
        ],
    ),
    (
        "swe-agent/function_calling_simple.traj",
        &[
            ("find_file", Some("call_PbWErNIge3YTrli3fiVvmIid"), 22),
            ("open", Some("call_upNLxh7rBcDH9w5XiNdoAS0I"), 49),
            ("edit", Some("call_hIiDKXAXZl4qMHV6RRXvil4u"), 76),
            ("bash", Some("call_5O339epJ3rKjEal3Kuvpj9bM"), 103),
            ("submit", Some("call_6zuFhIfpOAi1jAiD2QHMmh6S"), 130),
        ],
    ),
    (
        "swe-agent/gpt4-test-repo-6e44b9.traj",
        &[
            ("find_file", Some("call_fJuazlMUN5fQDQ73G6XSpYpx"), 80),
            ("open", Some("call_OhmPHGZp0XJ6JRnNkQaYcBMs"), 107),
            ("edit", Some("call_DVnbJcFrvwPsrPt3KfIMf7OH"), 134),
            ("bash", Some("call_dcF76aXH6e1pzqRwGxOwpuxb"), 161),
            ("submit", None, 48),
        ],
    ),
    (
        "swe-agent/marshmallow-1867-xml.traj",
        &[
            ("bash", None, 98),
            ("bash", None, 112),
            ("bash", None, 126),
            ("bash", None, 140),
            ("bash", None, 154),
            ("bash", None, 168),
            ("bash", None, 182),
            ("bash", None, 196),
            ("bash", None, 210),
            ("bash", None, 224),
            ("bash", None, 238),
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
        let got: Vec<(String, Option<String>, u64)> = records(&out.stdout)
            .iter()
            .map(|r| {
                (
                    r.name().unwrap().to_owned(),
                    r.id().map(str::to_owned),
                    r.line(),
                )
            })
            .collect();
        let want: Vec<(String, Option<String>, u64)> = want
            .iter()
            .map(|(n, i, l)| (n.to_string(), i.map(str::to_owned), *l))
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
