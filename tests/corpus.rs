//! The real recorded transcripts in fixtures/corpus (provenance in its SOURCES.md) are
//! all read without a warning, and their tool calls found exactly once each, in order.
//! The expected names and ids were established independently of toolsift, by reading
//! each file's structure with a separate script.

mod common;
use common::{records, root, toolsift};
use std::path::PathBuf;

fn corpus() -> PathBuf {
    root().join("fixtures/corpus")
}

/// The calls of one file, in order: (name, id, line). The lines are where each call
/// object starts; in the SWE-agent text format, the line of the message text.
type Calls = &'static [(&'static str, Option<&'static str>, u64)];

/// Every corpus file with its calls. The notebook's one call is Anthropic legacy XML in
/// a cell output (the prompt template and a re-printed copy are not calls); the Claude
/// Code subagent file's 45 are XML invokes the model wrote as text (a leak: never run).
const EXPECTED: &[(&str, Calls)] = &[
    ("aider/complex-change.md", &[]),
    ("aider/hello-world-flask.md", &[]),
    // Bedrock Converse responses stored as YAML mappings: each call on the line of its
    // `toolUse` mapping; the requests' replays of the same calls are history.
    (
        "bedrock/pydantic-ai-bedrock-converse-claude-tool-with-thinking.yaml",
        &[(
            "get_user_country",
            Some("tooluse_W9DaUFg4Tj2cRPpndqxWSg"),
            44,
        )],
    ),
    (
        "bedrock/pydantic-ai-bedrock-converse-moonshot-tool-call.yaml",
        &[("get_temperature", Some("functions.get_temperature:0"), 42)],
    ),
    // A ConverseStream recording: AWS's binary event stream, base64 in the cassette; the
    // call is assembled from its contentBlockStart and contentBlockDelta frames, on the
    // line where the body starts.
    (
        "bedrock/pydantic-ai-bedrock-converse-stream-iter.first.yaml",
        &[("get_capital", Some("tooluse_QjQX34XORLu0wJVplWWHGQ"), 27)],
    ),
    (
        "anthropic-legacy-xml/function_calling.ipynb",
        &[("calculator", None, 350)],
    ),
    (
        "anthropic/anthropic-json-tool.1.chunks.txt",
        &[("json", Some("toolu_01KFbKqPYSuAKujiL6mTfzYA"), 2)],
    ),
    (
        "anthropic/anthropic-programmatic-tool-calling.1.json",
        &[
            (
                "code_execution",
                Some("srvtoolu_01CberhXc9TgYXrCZU8bQoks"),
                11,
            ),
            ("rollDie", Some("toolu_01PMcE1JBKCeLjn83cgUCvR5"), 22),
            ("rollDie", Some("toolu_01MZf5QJ1EQyd2yGyeLzBxAS"), 34),
            ("rollDie", Some("toolu_01T7Upuuv8C71nq7DZ9ZPNQW"), 46),
            ("rollDie", Some("toolu_016Da1tDet9Bf7dAdYTkF5Ar"), 58),
        ],
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
    // A gzip body recorded as !!binary: each call on the body's first base64 line.
    (
        "cassettes/llm-gemini-tools-gzip-binary.yaml",
        &[
            ("pelican_name_generator", None, 24),
            ("pelican_name_generator", None, 90),
        ],
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
        "claude-code/session-9eda1058.jsonl",
        &[
            ("Write", Some("toolu_bdrk_01SKk2dM5q1c8gecaoatnwJn"), 20),
            ("Task", Some("toolu_bdrk_0173E8p3RpvZR9nGfxQ29YBN"), 27),
            ("Task", Some("toolu_bdrk_017jZYsgmFDt9ud8x578t3Zx"), 36),
        ],
    ),
    (
        "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        &[
            ("exec_command", Some("call_Y2p6KmqwoTtpi6atpDPuxC5M"), 9),
            ("write_stdin", Some("call_QazIeAavKevvIILVQkrDdKKT"), 13),
            ("exec_command", Some("call_zOko7eyx8Gir3nKA0m2HzUYU"), 27),
            ("write_stdin", Some("call_IKzTcbBsGbQRdLjZIXSLUrR1"), 30),
            ("write_stdin", Some("call_T8WFc2EjJV2QZKr07SfDPwmE"), 35),
            ("write_stdin", Some("call_DB5AJii3vOjg1IAlyKDuOfK2"), 38),
            ("exec_command", Some("call_7mOONLaQ5ZL02RB1TWn4Tbg3"), 44),
            ("exec_command", Some("call_3mllFFlmUtgQreN47o2tCdF3"), 45),
            ("exec_command", Some("call_jQYxA5wvjWJ4ZtptybmzrkNm"), 46),
            ("write_stdin", Some("call_4zdDaDjM6pXY5YYP4NE7lofV"), 51),
            ("write_stdin", Some("call_pexwxrwTITVzMZakADaKxJKX"), 52),
            ("write_stdin", Some("call_ebsfhvOaO3chWZLVb4G0cXBV"), 53),
            ("exec_command", Some("call_Pm4p0QABP1b4UE5oIgSXGJm6"), 64),
            ("exec_command", Some("call_1ZtaHJHKrtNhS2AW73lTti5G"), 65),
            ("exec_command", Some("call_DHl0YAV1vWXIyaLay5gEVrMT"), 66),
            ("write_stdin", Some("call_TjHJooHJ2v8Zi2smoqJ5hTez"), 71),
            ("write_stdin", Some("call_HLGfWf9aBTsd55NyJbYsVKD9"), 72),
            ("write_stdin", Some("call_cG3n01ymMHJz4wH2yfaV9zMJ"), 73),
            ("write_stdin", Some("call_op3h29z553xEEPpu12n1HeUh"), 81),
            ("exec_command", Some("call_tEKBzPe1jQzm7uzRjC6z8V8D"), 85),
            ("exec_command", Some("call_Gk9HbsMiQ3a7arcGh3Mx4HUO"), 86),
            ("exec_command", Some("call_Wm7rsGZgR4Voyrq8pFxiV7kT"), 87),
            ("write_stdin", Some("call_hv7RPzoutjb868Y4japaDuJS"), 92),
            ("write_stdin", Some("call_4yVdBJzEUzXLK65UprhEfVSM"), 93),
            ("write_stdin", Some("call_yRXllP9HY49xKMiU4fC3ucQ4"), 94),
            ("exec_command", Some("call_8AuOTCC94CDV6rskL6HEGoBO"), 103),
            ("exec_command", Some("call_9QASXR2IYXqRZTEU5qtepBpF"), 104),
            ("exec_command", Some("call_8cSuun9RoKxeeuY0J7pULTFe"), 105),
            ("write_stdin", Some("call_9LU6Rpg3bb8EW7SYjdSrKSUQ"), 110),
            ("write_stdin", Some("call_ZeTgRBLMsTlMdkTlQDYJJjNS"), 111),
            ("write_stdin", Some("call_0tulyTY4NIikZTekARTRJiqp"), 112),
            ("exec_command", Some("call_4pWfq1oNudq0ywkjgjSTjJ3t"), 121),
            ("write_stdin", Some("call_Z2ilb7DXdFn3Rxj2BOpCxlv5"), 125),
            ("exec_command", Some("call_NqXBF7JK4NH5M85YXgojxxmC"), 131),
            ("exec_command", Some("call_larl7M5vxIEv2EUcl5TwSQqS"), 132),
            ("exec_command", Some("call_iQg1eclG2GwAB1UREct4Nhsw"), 133),
            ("write_stdin", Some("call_6YhDEiPvTJjMNdn6h89qlZOC"), 138),
            ("write_stdin", Some("call_ZluM7lHwIuvPtRtOvOoToOpA"), 139),
            ("write_stdin", Some("call_EZtbij79FnozIu6d2F3y8dJD"), 140),
            ("exec_command", Some("call_Ly2j3leybLVldbcATUqrUpBg"), 149),
            ("exec_command", Some("call_wAmN401U7zKVZ9wF0d5rGwMP"), 150),
            ("exec_command", Some("call_fW1JZD1yffLYSKp5vNXgYDpM"), 151),
            ("write_stdin", Some("call_kIMTB3YEXdakIpwJgfMqziX2"), 159),
            ("write_stdin", Some("call_niqqK8Zis60Tze83ulvh2F6Q"), 160),
            ("write_stdin", Some("call_qdKLpT5rbvJOpNY3tCgeu6Na"), 161),
            ("exec_command", Some("call_HBX75fs0tuXnCk0oKW00DQEy"), 167),
            ("write_stdin", Some("call_wyBmONQ2FxLb5GHZio2ECyBS"), 171),
            ("exec_command", Some("call_tJm1BC1RwIjJJoUhZxOkp2xn"), 174),
            ("write_stdin", Some("call_QjL1WQ3Q9nT1RFbVjUPmPmsZ"), 177),
            ("exec_command", Some("call_yVhxs7NMCl2XmO4Y0ew3ufAI"), 181),
            ("write_stdin", Some("call_l7eFI92LgCHvpTSMLoTX92XE"), 185),
            ("exec_command", Some("call_zoA1vZiMUrwf1Zh4XrB6ZqlM"), 188),
            ("write_stdin", Some("call_eznC7KQeS9pUHKytKsEiLZZd"), 192),
            ("exec_command", Some("call_k7EEbRm4yPMRpH8rC2J4yJk1"), 201),
            ("exec_command", Some("call_ZrLuz93r6iWm9gHCTy1J7Iyc"), 202),
            ("exec_command", Some("call_Rl3vKwoQD6TG9Xyz55hzx2jV"), 203),
            ("write_stdin", Some("call_Hr63DKeKo86XAayN998CaGHk"), 211),
            ("write_stdin", Some("call_Lab54ZAX9zMSWm5bpDlcwT0c"), 212),
            ("write_stdin", Some("call_Bl9T10SnkFx3d7cIuJXmzy4Y"), 213),
            ("exec_command", Some("call_QXguh5J7lfwPLcu0O8ve7VDT"), 219),
            ("write_stdin", Some("call_vVoPrAxT6bzf3EU7iLwafKF4"), 223),
            ("exec_command", Some("call_zm9wSMjCmq1CA5uwOwdMuTdH"), 230),
            ("write_stdin", Some("call_yNfPfIs6WWnQeTlzVcLsU6fw"), 234),
            ("update_plan", Some("call_I86JxQ5mUPXHAVwxdw3WlqkP"), 241),
            ("exec_command", Some("call_U4hiBtDP9iL4FvjHCPUkDQzv"), 246),
            ("write_stdin", Some("call_LgGITcpyChFfSbWYuEQPDtsE"), 249),
            ("write_stdin", Some("call_DnFlzblhE2FpH2GolDLJNBq3"), 253),
            ("apply_patch", Some("call_0gOiGGSkJEBvvlrXtBn0xzwL"), 257),
            ("exec_command", Some("call_nTBN3WDXOZcJOBB6UsOQHpni"), 263),
            ("write_stdin", Some("call_8Psrgz5hNdgZk6l53j0OY4a9"), 266),
            ("write_stdin", Some("call_PAoFGDC6cPakVp8JImcOm2uB"), 270),
            ("apply_patch", Some("call_i8DZCCtaSAHIJuvfxiUM3u8Q"), 276),
            ("apply_patch", Some("call_kOisxAYIbsLzuTGB7Zfirx89"), 280),
            ("update_plan", Some("call_0NZgLNc8caOG7MmMmCeBwYfB"), 284),
            ("exec_command", Some("call_I2o7u6On6VwisKotRqhrV5wQ"), 289),
            ("write_stdin", Some("call_VuirxGItRqfPzv4DMWsQlKDw"), 293),
            ("exec_command", Some("call_YTxHcy7DegbLYXYSmd4WFUIJ"), 296),
            ("write_stdin", Some("call_eTwnCYNSjcwmtuFgTxrADzeP"), 299),
            ("write_stdin", Some("call_ADiiThb4KhN5grxIvG3EoNA1"), 303),
            ("exec_command", Some("call_jrE0Zyqdnnh7VKBtovbk4qNL"), 309),
            ("exec_command", Some("call_DCPzjiYRwomIpqQ1JpQ6W6p2"), 310),
            ("exec_command", Some("call_I3fbEIZGqU65mDiz4FQdV8PD"), 311),
            ("write_stdin", Some("call_hxHUTWaQIHRyU83xxcpBVh3f"), 316),
            ("write_stdin", Some("call_eEYTuvEgNs0NburlP4VStrmz"), 317),
            ("write_stdin", Some("call_o5ZKhzr7WguSPBwzhHwaDueV"), 318),
            ("exec_command", Some("call_gnc50732Dp6IrERDOr3Ukrfp"), 327),
            ("write_stdin", Some("call_3hF6jIcdx1zOwuCzHHFSjuc5"), 330),
            ("write_stdin", Some("call_Inj8LVamrG41jmRIV46qErDt"), 335),
            ("write_stdin", Some("call_lYqhYsYU2rue7ttYuMaK8zJL"), 338),
            ("write_stdin", Some("call_OCe75a17TRwvP8jiM1Y49xJQ"), 341),
            ("write_stdin", Some("call_Hj2EIgpi3esRw67U8UpKstmi"), 344),
            ("write_stdin", Some("call_H7Aon5ynHDLsCoLCseGIXAyi"), 348),
            ("exec_command", Some("call_wn5UYsFeQld9BIBC3Aj1VFe6"), 352),
            ("exec_command", Some("call_EKvwKkX1IpGcv2O4kKftVsZW"), 353),
            ("write_stdin", Some("call_O40Fg7hToRV4Ct5AquBUGgZU"), 359),
            ("write_stdin", Some("call_oGN54dWVAoxvxcHZRG6qI7dm"), 360),
            ("exec_command", Some("call_aMbANMX8RWcjxZ0grSjuYhw3"), 365),
            ("exec_command", Some("call_jYrz01hUsYCIdaMOzABYLqvn"), 366),
            ("exec_command", Some("call_Pg1arJUmIf6WjOG6rpxoifLo"), 367),
            ("write_stdin", Some("call_PV1xTCr0mE6w98HWoGy5bB3X"), 372),
            ("write_stdin", Some("call_HzOXOYI61pqYEw1E7xYS6TFP"), 373),
            ("write_stdin", Some("call_WnmpA9iFUSFILG19QtvpC4ZR"), 374),
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
        "gemini-cli/session-2026-01-16T11-01-file-ops-37b7abef.json",
        &[
            (
                "write_todos",
                Some("write_todos-1768561360195-92b321077029e8"),
                41,
            ),
            (
                "delegate_to_agent",
                Some("delegate_to_agent-1768561360282-f3e15e35f2c3d"),
                81,
            ),
            (
                "write_todos",
                Some("write_todos-1768561449914-d6d6d7e15738a"),
                106,
            ),
            (
                "read_file",
                Some("read_file-1768561450182-7b0e80586cb07"),
                146,
            ),
            (
                "read_file",
                Some("read_file-1768561450183-47dfc7d40f8d38"),
                170,
            ),
            (
                "read_file",
                Some("read_file-1768561450297-4e8482e4abb62"),
                194,
            ),
            (
                "write_todos",
                Some("write_todos-1768561465885-aacc8b9c484688"),
                218,
            ),
            (
                "search_file_content",
                Some("search_file_content-1768561465886-30ba590197d34"),
                262,
            ),
            (
                "read_file",
                Some("read_file-1768561465975-fb7274c209d6d"),
                286,
            ),
            (
                "write_file",
                Some("write_file-1768566819675-5726cf966781a"),
                350,
            ),
            (
                "read_file",
                Some("read_file-1768566842046-c55520512f11c8"),
                414,
            ),
            (
                "write_file",
                Some("write_file-1768566849430-8a94507d2a9798"),
                438,
            ),
            (
                "read_file",
                Some("read_file-1768566861335-25b38114eddc1"),
                502,
            ),
            (
                "write_file",
                Some("write_file-1768566866671-3a48c2c4de4ca8"),
                526,
            ),
        ],
    ),
    // LangGraph `[mode, payload]` tuples: each call on the line of its first
    // `tool_call_chunks` piece; the `values` snapshot and the final chunk's Responses
    // `output` repeat both calls.
    (
        "langgraph/react-agent-parallel-tool-calls.jsonl",
        &[
            ("get_weather", Some("call_lxFuvuhpu9gvtx04WrmXZF9h"), 1),
            ("get_datetime", Some("call_U3RijXRN09TXMyKWFZwqWjnJ"), 12),
        ],
    ),
    // An httprr trace (Go): the first response's call, on the line of its JSON body;
    // the second request replays it as history.
    (
        "ollama/langchaingo-cloud-tool-call.httprr",
        &[("getWeather", Some("call_mo1wm122"), 24)],
    ),
    // Four fine-tuning examples, each its own conversation, all numbering their call
    // `call_id`: four calls, the identical first two included.
    (
        "openai-finetune/drone_training.head.jsonl",
        &[
            ("takeoff_drone", Some("call_id"), 1),
            ("takeoff_drone", Some("call_id"), 2),
            ("land_drone", Some("call_id"), 3),
            ("land_drone", Some("call_id"), 4),
        ],
    ),
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
        "openai-responses/openai-local-shell-tool.1.json",
        &[("local_shell", Some("call_XWgeTylovOiS8xLNz2TONOgO"), 22)],
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
        "swe-agent/pydicom-1458-thought-action.traj",
        // The last fenced block of each of the 12 assistant messages, on the line of
        // its content string; the trajectory's 12 actions are the same commands.
        &[
            ("bash", None, 108),
            ("bash", None, 120),
            ("bash", None, 132),
            ("bash", None, 144),
            ("bash", None, 156),
            ("bash", None, 168),
            ("bash", None, 180),
            ("bash", None, 192),
            ("bash", None, 204),
            ("bash", None, 216),
            ("bash", None, 228),
            ("bash", None, 240),
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
    let dir = corpus();
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
        let owned = |calls: &Calls| -> Vec<(String, Option<String>, u64)> {
            calls
                .iter()
                .map(|(n, i, l)| (n.to_string(), i.map(str::to_owned), *l))
                .collect()
        };
        assert_eq!(got, owned(want), "{rel}");
        seen += 1;
    }
    // Every file of the corpus is listed above: a new file needs its expectations.
    let mut files: Vec<String> = walk(&dir)
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "SOURCES.md"))
        .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "files in the corpus vs files with expectations"
    );
    assert_eq!(seen, EXPECTED.len());
}

#[test]
fn corpus_records_match_their_snapshots() {
    insta::glob!("../fixtures/corpus", "**/*.*", |path| {
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
