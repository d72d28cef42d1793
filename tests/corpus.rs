//! The real recorded transcripts in fixtures/corpus (provenance in its SOURCES.md) are
//! all read without a warning, and their tool calls found exactly once each, in order.
//! The expected names and ids were established independently of toolsift, by reading
//! each file's structure with a separate script.

use crate::common::{records, root, toolsift};
use std::path::PathBuf;

fn corpus() -> PathBuf {
    root().join("fixtures/corpus")
}

/// The calls of one file, in order: (name, id, line). The lines are where each call
/// object starts; in the SWE-agent text format, the line of the message text.
type Calls = &'static [(&'static str, Option<&'static str>, u64)];

/// Every corpus file with its calls. The notebook's one call is Anthropic legacy XML in
/// a cell output (the prompt template and a re-printed copy are not calls); the 45 of
/// the Claude Code subagent file `agent-36541525` are XML invokes the model wrote as text
/// (a leak: never run).
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
    // ConverseStream events as JSON Lines (no binary framing): the call starts in its
    // contentBlockStart.
    (
        "bedrock/amazon-bedrock-tool-call.1.chunks.txt",
        &[("test-tool", Some("tool-use-id"), 1)],
    ),
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
    // Two messages in one file (the second only text): a server tool's call, then a
    // client tool_use.
    // Two server tool calls, each answered by a web_search_tool_result beside it (the
    // second with empty content).
    (
        "anthropic/anthropic-web-search-tool.1.json",
        &[
            ("web_search", Some("srvtoolu_01Qxbje4duKBes3Nj42MkZug"), 7),
            ("web_search", Some("srvtoolu_01HyorfKHSCsjCUVH6WHcNUC"), 95),
        ],
    ),
    (
        "anthropic/anthropic-tool-search-regex.1.chunks.txt",
        &[
            (
                "tool_search_tool_regex",
                Some("srvtoolu_01TFsKhwiJYqVMitK2XGtH87"),
                2,
            ),
            ("get_temp_data", Some("toolu_01UmPwkecewaEpMupy2ywk8b"), 26),
        ],
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
        "cassettes/pydantic-ai-anthropic-tool-with-thinking.yaml",
        &[(
            "get_user_country",
            Some("toolu_01YGzqpRE16Vricda3Aqcejo"),
            63,
        )],
    ),
    // Responses SSE in cassettes: each call on the `data:` line of its output_item.added,
    // whether `event:` comes after it (Bedrock Mantle, here) or before (DeepSeek, next);
    // the requests replay the calls as history (Mantle's as `<response id>:call_N`).
    // The whole responses of the same exchange: the provider numbers each response's
    // calls from call_0, so two different calls share an id.
    (
        "cassettes/pydantic-ai-bedrock-mantle-reused-tool-call-ids-request.yaml",
        &[
            ("first_tool", Some("call_0"), 79),
            ("second_tool", Some("call_0"), 222),
        ],
    ),
    // Two conversations in one recording: the manager's delegation, the worker's own
    // (another system prompt), then the manager's again.
    (
        "cassettes/crewai-delegation-returns-to-the-manager.yaml",
        &[
            (
                "Delegate_work_to_coworker",
                Some("call_dnaC8S2aLtdNR4pYIkJTsH49"),
                69,
            ),
            (
                "scoring_examples",
                Some("call_EvOmxTGewasw4mb6C7evkMkC"),
                213,
            ),
        ],
    ),
    (
        "cassettes/crewai-gemini-planner-then-worker.yaml",
        &[
            ("create_reasoning_plan", None, 61),
            ("web_search", None, 159),
            ("web_search", None, 250),
            ("read_website", None, 347),
            ("generate_report", None, 450),
        ],
    ),
    (
        "cassettes/openllmetry-ollama-history-built-by-the-client.yaml",
        &[("get_current_weather", None, 3)],
    ),
    (
        "cassettes/crewai-two-tests-in-one-cassette.yaml",
        &[
            ("get_weather", Some("call_x9KzZUT3UYazEUJiRmE0PvaU"), 117),
            ("get_weather", Some("call_k8rYmsdMcCWSRKqVDFItmJ8v"), 301),
        ],
    ),
    // A history the test built: the call is in the request only, answered there.
    (
        "cassettes/pydantic-ai-bedrock-nova-history-built-by-the-test.yaml",
        &[("get_expenses", Some("t1"), 3)],
    ),
    // The client inserted a call of its own (`search_tools`, id `auto_load_…`) into the
    // second request, between results; the third request replays it.
    (
        "cassettes/pydantic-ai-anthropic-call-inserted-by-the-client.yaml",
        &[
            (
                "load_capability",
                Some("toolu_01JzwQ18FJQr29z9vLFKFBao"),
                79,
            ),
            ("search_tools", Some("auto_load_0f10f8b659c3c105"), 146),
            (
                "lookup_refund_policy",
                Some("toolu_01E6sWawGHGNL2fn7tzCNqF6"),
                216,
            ),
        ],
    ),
    (
        "cassettes/pydantic-ai-bedrock-mantle-reused-tool-call-ids-stream.yaml",
        &[
            ("first_tool", Some("call_0"), 55),
            ("second_tool", Some("call_1"), 155),
        ],
    ),
    (
        "cassettes/pydantic-ai-deepseek-responses-function-tool-stream.yaml",
        &[(
            "get_temperature",
            Some("call_00_xjY8Z2BvSlzgEmmw0DtH0464"),
            105,
        )],
    ),
    // A double-quoted body (CRLF CRLF framing): the call on the line its event starts.
    (
        "cassettes/pydantic-ai-google-sse-tool-call-thought-signature.yaml",
        &[("get_country", None, 36)],
    ),
    // Request bodies written as the JSON body's own mapping: the second request replays
    // the call (without its arguments) as history, with its `tool` result.
    (
        "cassettes/pydantic-ai-huggingface-together-tool-continuation.yaml",
        &[("get_weather", Some("call_f7631c2901964a6db675853a"), 136)],
    ),
    // Groq ran these tools itself: each is named by its `type` and gets the id
    // `convert` gives it, which its `output` answers.
    (
        "cassettes/pydantic-ai-groq-executed-tools.yaml",
        &[
            ("search", Some("call_0_884b1191"), 70),
            ("visit", Some("call_1_f563d2a3"), 351),
        ],
    ),
    // The same, streamed: each chunk repeats the entry whole; one call.
    (
        "cassettes/pydantic-ai-groq-executed-tools-stream.yaml",
        &[("search", Some("call_0_8ff9684e"), 27)],
    ),
    // The call Groq refused, read from `failed_generation`; the next request replays it
    // under pydantic-ai's id, which its result names.
    (
        "cassettes/pydantic-ai-groq-tool-use-failed.yaml",
        &[
            ("get_something_by_name", None, 60),
            (
                "get_something_by_name",
                Some("fc_311ba17b-89f9-48d3-8fd9-7e74a1264855"),
                175,
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
    // The Task subagents' sidechain lines (isSidechain) are inline: their calls count, in
    // line order, with the main thread's.
    (
        "claude-code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        &[
            ("Glob", Some("toolu_019okXfjnUzJkV2VZbndx6ik"), 5),
            ("Glob", Some("toolu_01Gbs41yRWc2W5JEW6w87PNA"), 6),
            ("TodoWrite", Some("toolu_01KrQweoQa7fzmcQAC83TKas"), 10),
            ("Task", Some("toolu_014i9ThHMNShCHocf9xMKasf"), 13),
            ("Task", Some("toolu_01EbxY94wRUAGyMLj5wh699C"), 14),
            ("Task", Some("toolu_01LS6tcVd796SbQKmZqeVnWY"), 15),
            ("Bash", Some("toolu_01HxbsgJQs4jsUPZiF7VXMzD"), 18),
            ("Bash", Some("toolu_01BdTiruRxVrzvQ9K4h7oZ6y"), 20),
            ("Write", Some("toolu_01GNm55ZNxoMjoKG2NoqwZ8i"), 23),
            ("Write", Some("toolu_014gNZ9jEusRXPuyvsgXQQ4R"), 25),
            ("Write", Some("toolu_01DF5uFfmp74w12Jnpxqy23Y"), 27),
            ("Write", Some("toolu_01NbaadejuYTu4kh5Msm2jqr"), 29),
            ("Write", Some("toolu_01HkkbhPUyr6WjkfpWtmowVR"), 32),
            ("Bash", Some("toolu_01Mdg6cqfEAFBHiXsbqWcQrs"), 34),
            ("TodoWrite", Some("toolu_01XQkyKk2iNbQtJVtAqpNUyy"), 40),
            ("TodoWrite", Some("toolu_01YaPCrs8daKuc6dyA1cXQ5v"), 42),
            ("Bash", Some("toolu_01FNh88T7ThJ4yVfQ9rPVT23"), 44),
            ("Bash", Some("toolu_01M2guYuKtiaq675ZWNsr3WX"), 47),
            ("Bash", Some("toolu_013DYwQpZBk7jbs4oLNPFDLc"), 50),
            ("Bash", Some("toolu_01MBRWyohdmVNAMrKA88htDf"), 53),
            ("TodoWrite", Some("toolu_015vBgtCAw1HNbgvnQKiTwKG"), 56),
            ("Bash", Some("toolu_01KJzu5e42MYedkzZMdjny6z"), 58),
            ("TodoWrite", Some("toolu_014pMDdC6YjMFjoVdUyqGqQy"), 60),
            ("Bash", Some("toolu_01PYemKVD5MW8V6uRFS7AAaY"), 62),
            ("Bash", Some("toolu_01X6fGCvWQ82dTMRABzWoQEt"), 65),
            ("Bash", Some("toolu_013ViHEVAyorqamQp98Kj3kF"), 67),
            ("Read", Some("toolu_015DzgteLxfWpkiRtT35pGBp"), 70),
            ("Read", Some("toolu_01H7EKpFs79MHdGQmFjGy2Gw"), 72),
            ("TodoWrite", Some("toolu_01Jw2JHPsks1h6stiN69vY8x"), 75),
            ("Edit", Some("toolu_01KomxuRAPQe1GetDWrXmx2V"), 77),
            ("Edit", Some("toolu_011M1FDmTQAU95dd8BNNteiW"), 80),
            ("Read", Some("toolu_01XyCC8TuM6yToDSjYTdpnHj"), 83),
            ("Edit", Some("toolu_01RU9a5XhCJLTFDUCM5rCMxy"), 86),
            ("TodoWrite", Some("toolu_015TTgsajoMaEy2uxKbrEsDm"), 89),
            ("Bash", Some("toolu_01QsmapqXddVxzMvndtwWtef"), 91),
            ("Write", Some("toolu_01SUkVk4gkdoz8GKTBQ8B7Fy"), 94),
            ("Write", Some("toolu_012DW9ka6Gzy1h12xSWmgiES"), 96),
            ("Write", Some("toolu_01BnY9PzEd3oCydDS5ycGQiA"), 98),
            ("Write", Some("toolu_01Gmib4xLUu6NGDYeT6kFfEv"), 100),
            ("Write", Some("toolu_01LTtY99dTaev7dkYj2kmzy3"), 102),
            ("TodoWrite", Some("toolu_013vepnWectQoyRCjY1BnTRz"), 105),
            ("Bash", Some("toolu_01WoBqxuPLSBtW4V8onmnH21"), 107),
            ("Bash", Some("toolu_017WqSKurjd7AsYHxTTeWvZg"), 110),
            ("Read", Some("toolu_01T8rd8W7teN7dC7UAzDy2qm"), 113),
            ("Bash", Some("toolu_01DB4p8KRUVpcXmv24AFLqDv"), 116),
            ("BashOutput", Some("toolu_01A6azGWHnSXmXsuHxtwsDA9"), 118),
            ("KillBash", Some("toolu_01WWpAntC9RGiKW6mfL5wbzh"), 121),
            ("Bash", Some("toolu_01PVyztecyYgZXp9VNZCZ5GZ"), 127),
            ("Write", Some("toolu_01SY9nLwF1AFkjGKeah7JCt2"), 130),
            ("Write", Some("toolu_01MVot938tWhqi1KxAs2tuR9"), 132),
            ("Write", Some("toolu_01MxjzmKFZYDDGoxhjPqpujc"), 134),
            ("Write", Some("toolu_01BkEnr9TAWY1BY11xdMp3HW"), 136),
            ("Write", Some("toolu_011yJrHwtLECMr4TLLajDCQg"), 138),
            ("Write", Some("toolu_012B1ynzEHXWwtimHiqGPEMW"), 140),
            ("Write", Some("toolu_016GgUthj54XjUmY7k9RMuSP"), 143),
            ("Edit", Some("toolu_01EAqGij3DoXjmkFe395QYPA"), 146),
            ("Read", Some("toolu_01DLLSfns3Wcn62nmwKDJd6c"), 148),
            ("Edit", Some("toolu_01Hufq5PmqFz31DEYp88JUN5"), 150),
            ("MultiEdit", Some("toolu_013Eef4xqdxJNqPXe13yeakM"), 152),
            ("Write", Some("toolu_01CK5HgKwqNU4viVtF21eESx"), 154),
            ("Bash", Some("toolu_013pTcSZg4tDiEXHJtYS8YiD"), 157),
            ("Bash", Some("toolu_01WLGTKQ5mr3FTfe7VUmfY4U"), 159),
            ("Bash", Some("toolu_01LG8tRAuVBRT55yxPTycSJx"), 162),
            ("Write", Some("toolu_012jjynmGvKUkjPLNBBqWLU5"), 165),
            ("Write", Some("toolu_016KoPqKTRFyawj9gfPobBzA"), 167),
            ("Write", Some("toolu_01GfX9eRoXE3NLKJwmAWxkMk"), 169),
            ("Write", Some("toolu_01Xj6j41CPBrtuRzFMy1g8z7"), 171),
            ("Write", Some("toolu_01M2nXw1qH4xKove26LBen4X"), 173),
            ("Bash", Some("toolu_01AzqmB5ZxZEs32uuHW2uifV"), 176),
            ("Bash", Some("toolu_01F4eufqXuT5mQYYAu3R2CR1"), 178),
            ("Bash", Some("toolu_01TNvoV892JWPeKSa48vU6ZC"), 180),
            ("Bash", Some("toolu_01Cj3ToLVwQiDPgKCsGK3rku"), 182),
            ("Bash", Some("toolu_01XtgHg5TU3dfUJ3pMYTfZH1"), 185),
            ("Bash", Some("toolu_01AhwbTCsaDgRBXbvbgebKHC"), 188),
            ("Bash", Some("toolu_01GxdZNq14masV5khBzQh4h5"), 191),
            ("Bash", Some("toolu_01ERPoHYFuagp5rF2HcRSgMd"), 193),
            ("Bash", Some("toolu_01MycWspV5aYmy25M8scGdMS"), 195),
            ("Bash", Some("toolu_01Fkn7Vf7AiAZVS2bQwp99sv"), 198),
            ("Bash", Some("toolu_01NCAxPbABUFSu8RLAcW2MnV"), 201),
            ("Bash", Some("toolu_017qRQtijd2ho71XwmhmE3F5"), 204),
            ("Bash", Some("toolu_01MGRv6x8ik9JxP2WAp8PrKw"), 207),
            ("Bash", Some("toolu_01YLWsA5yCkRgLHVQJLvGcga"), 209),
            ("Bash", Some("toolu_01BcrGjeQXxFgSSaa9zpCJQb"), 212),
            ("Bash", Some("toolu_01Q7eLAQ19hbGRdUzGrU3xbP"), 215),
            ("Read", Some("toolu_015oEULbb9KoucuTFtNJeZVM"), 218),
            ("Read", Some("toolu_014HKogcbiXG9HfGWMezdxoa"), 220),
            ("TodoWrite", Some("toolu_01KGJpuz9qTWdbSj2iEXVufK"), 224),
            ("Task", Some("toolu_017rjDpjVPeNFmAEXNTkoP55"), 227),
            ("Task", Some("toolu_01EPom7jESzNbU8coiKjzVGS"), 228),
            ("Bash", Some("toolu_014yhydcLVhD8r6cEC9MeUpL"), 231),
            ("Bash", Some("toolu_01N9SommrXiWBs3yvHaapnSW"), 234),
            ("Bash", Some("toolu_017ZUWag5q261bzPxUBDEuVK"), 236),
            ("Read", Some("toolu_01GHAh1DQxPYZUHYnnX3wvBc"), 239),
            ("Read", Some("toolu_01Ek6MsXtqVkQ9BSVVij8UKN"), 241),
            ("Read", Some("toolu_01M5pdXj21EgPqTQHab5gK1S"), 243),
            ("Read", Some("toolu_016ouxtdvojUeXCZwFXeTE8E"), 245),
            ("Bash", Some("toolu_01EEuPkdNjFQnx6c5Sz48H6B"), 248),
            ("Bash", Some("toolu_016dg7KafWhL35Ryn2k6iXhs"), 251),
            ("Bash", Some("toolu_01RE66H1j4uXdcJ1Cmwr9TQc"), 253),
            ("TodoWrite", Some("toolu_015icmwAS5EFEams7h8Q4oCr"), 256),
            ("TodoWrite", Some("toolu_01WkQxWVa5iYRzEPhqTGvYVL"), 259),
            ("Write", Some("toolu_011oWYjN9SEaXh51ddzXCDf3"), 261),
            ("TodoWrite", Some("toolu_01JFPePbyJDskSxmcAHH944M"), 263),
            ("Write", Some("toolu_01PzKgGR8CN1tLvVUSuAbiDm"), 266),
            ("Write", Some("toolu_01CcjrpLh95UufMCfYEqM1HQ"), 269),
            ("Write", Some("toolu_01RLBWSmCWLehCWDd7zvC4cu"), 272),
            ("TodoWrite", Some("toolu_01Wx9uiSiHKVM4U2NaHe5e3Q"), 274),
            ("Bash", Some("toolu_01YM1D8FExjvkXgdkHwPVzQY"), 277),
            ("Edit", Some("toolu_01D31EGdFVQHVhKAbh4MMSNf"), 280),
            ("Read", Some("toolu_014KRfqpu2zieEKRLR963SHd"), 282),
            ("MultiEdit", Some("toolu_01S32MnkYrukXN9L3TTPje5F"), 285),
            ("Bash", Some("toolu_01SVXC5jDiWnsPXq2C1ooc8G"), 288),
            ("Write", Some("toolu_019W46tVYntZyPb8fDotfeyq"), 291),
            ("Bash", Some("toolu_01GagGuoPCDeHqkRoCHg8Qa3"), 297),
            ("Bash", Some("toolu_0115aAEDoJho1sdJF6zDgNpX"), 299),
            ("Read", Some("toolu_01Di7tKQbKcgzXQ39pKZAHFE"), 301),
            ("Bash", Some("toolu_01NrfDwVpU8ksECjuzZUJznd"), 303),
            ("Bash", Some("toolu_014XhqP5n1Sf8eJvkmWyGiD7"), 305),
            ("Bash", Some("toolu_016gb5juVZDZbDFDeQCUzSVu"), 307),
            ("Read", Some("toolu_01LmQjk73EEBPeCPZnEoJFE9"), 310),
            ("Bash", Some("toolu_014rpH6VcGp3TF5PPMzAhmbQ"), 312),
            ("Bash", Some("toolu_015dH2cRMXb7uVspTwytsKL4"), 314),
            ("Bash", Some("toolu_01NjKiVbm5ARy6B1gsfbu2YV"), 317),
            ("Read", Some("toolu_017nPZCmBU1FzjR99d5RCiKH"), 319),
            ("Read", Some("toolu_01UQezwteAm79VbDUcFQf3fX"), 322),
            ("Read", Some("toolu_012zGPRjUMnKkNgcNXnTocYX"), 324),
            ("Read", Some("toolu_01KWLYYoWAhbo6t47ykTnSJj"), 326),
            ("Read", Some("toolu_016499TempyAcoVkQTXTmmbS"), 328),
            ("Bash", Some("toolu_018YP8EsGUMkNUik7cMsXEaL"), 331),
            ("Bash", Some("toolu_01KBTvWzhEtAVkGEppFFZtQW"), 334),
            ("Read", Some("toolu_01SNFf9gSbWLADAoXDEXHcV5"), 336),
            ("Bash", Some("toolu_01EmMe3SYTjTjQBy6w8HVNkf"), 339),
            ("Bash", Some("toolu_01Nwvar3VWMUWfYMKvyswsEW"), 341),
            ("Read", Some("toolu_011hvPTYFpeVV8WPo4uYUpKy"), 344),
            ("Read", Some("toolu_01Nz34bqNUqBkNEnVVEajr6m"), 347),
            ("Read", Some("toolu_01GLDWTfqKXuaCZQaRtMh7wD"), 349),
            ("TodoWrite", Some("toolu_01NgKMvEaRqg8VAkS9zU72rX"), 352),
            ("Write", Some("toolu_01A6sqAjDv71DW7jVo1Q8pxk"), 354),
            ("Read", Some("toolu_016QjWe1dS1Tcphd1heLnWQp"), 356),
            ("TodoWrite", Some("toolu_01GS1866eNcrBhYb8HKmFdsC"), 359),
            ("Write", Some("toolu_01AV9YjfDXeNpB1c2Lznq6mh"), 361),
            ("Read", Some("toolu_01Nw1pkXktBgrtG9kyHH6nAe"), 364),
            ("Read", Some("toolu_01Jbk8DJ2tLuHqcpSYGNkNfa"), 366),
            ("Read", Some("toolu_01QDqGZzeLyuJdk8RuLUnEac"), 369),
            ("TodoWrite", Some("toolu_01MHbi5mqPgn4LtWPeVdMmGH"), 372),
            ("Write", Some("toolu_017KJGPgs537xQRbTujXTrfr"), 375),
            ("Edit", Some("toolu_016LtTvdDhRJhJ5Mvm6V7QA5"), 377),
            ("MultiEdit", Some("toolu_01ARH886UKAiM4ZYwhYjUAXH"), 380),
            ("Write", Some("toolu_01Tj83ThCD4DvD2dxCYVcmEj"), 383),
            ("Edit", Some("toolu_01HzeRPFdptUwZtZ3YZZzodS"), 386),
            ("TodoWrite", Some("toolu_01Q3wXUvzAs41fGfQXb2EQyx"), 389),
            ("Bash", Some("toolu_01D32MoaSJ4iwV11i3TLE4Tv"), 392),
            ("BashOutput", Some("toolu_013PbyacNTkdK8ruwXU81eoK"), 394),
            ("BashOutput", Some("toolu_01TfSN3UaScYuKwibZNnk2Ai"), 397),
            ("KillBash", Some("toolu_01S6A9woxezd9ytMqfRmCzN6"), 400),
            ("Bash", Some("toolu_01CSi16ZXnnQne2EuM8ZxNB4"), 402),
            ("Bash", Some("toolu_01EThVZotbk7xiuWTxGByr79"), 405),
            ("Bash", Some("toolu_014dpyR6f5VnFfPg7Anv8S34"), 408),
            ("Bash", Some("toolu_01DH2JFs47ZjoYNAsu6HcsL1"), 411),
            ("Read", Some("toolu_0163abpE5JeeSiKDjQTeC7xy"), 414),
            ("Bash", Some("toolu_01XwvWxY5KvW7VJFWXxvBkRP"), 417),
            ("BashOutput", Some("toolu_01Fpuw5t2EQvjQxgJS2Uc7UG"), 419),
            ("BashOutput", Some("toolu_01BxnKYbciEb52h7aDArgbhE"), 422),
            ("KillBash", Some("toolu_01ScGWKMqapy9XEqSKoy61JQ"), 425),
            ("TodoWrite", Some("toolu_01S6CPbjbRTZy3DGFfz8iqu7"), 427),
            ("TodoWrite", Some("toolu_01VVWfN4Sen1ZUx9iPwA1hC1"), 431),
            ("Write", Some("toolu_01G5fXX8sk5nLjyGcqi6LW7q"), 436),
        ],
    ),
    // The Claude Agent SDK's messages as one JSON array: a subagent's lines name the call
    // that started it in `parent_tool_use_id`; the messages carry no role.
    (
        "claude-agent-sdk/harness-subagent-step-stream.json",
        &[
            ("Agent", Some("toolu_main_agent"), 20),
            ("Bash", Some("toolu_subagent_pwd"), 52),
            ("Bash", Some("toolu_subagent_echo"), 72),
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
        "claude-code/subagents-agent-a485154.jsonl",
        &[
            ("Glob", Some("toolu_bdrk_01UoWJ1KSnr6MDLpHjDT9bcG"), 3),
            ("Glob", Some("toolu_bdrk_01F6FkgsnEnCEfrFV9F8NW65"), 4),
            ("Read", Some("toolu_bdrk_01BrsVn3dprfXUudaGPQXzoN"), 5),
            ("Read", Some("toolu_bdrk_01LMs4EbseoueRmSGCyoSfrN"), 6),
            ("Read", Some("toolu_bdrk_015PwdMPrnGZ2E8SMJAVjD9E"), 11),
            ("Read", Some("toolu_bdrk_01WyMPKcmwzZEMhPZ4epV79P"), 12),
            ("Read", Some("toolu_bdrk_015VWDrqxZ8xyhiRtqr1KC7g"), 13),
            ("Read", Some("toolu_bdrk_01P9WDV7FnhxEhoiB4sd8LWS"), 14),
            ("Grep", Some("toolu_bdrk_01JiJRqvrzrWM67HdyS2fyWz"), 15),
            ("Read", Some("toolu_bdrk_01R9Vnaa7bm5fQzc4bNp3o4H"), 21),
            ("Glob", Some("toolu_bdrk_01SMgJcEoZQRQ8oUCcCUbwTx"), 22),
            ("Read", Some("toolu_bdrk_01SbNRv3E4cBa2NBgK7w75Ph"), 24),
            ("Bash", Some("toolu_bdrk_016sxWzqw9ZoqjSx43Y32Rha"), 25),
            ("Grep", Some("toolu_bdrk_01DYucocQfGoctMex3a1D1Hb"), 31),
            ("Read", Some("toolu_bdrk_01MwvTGkXqo5ygyTJCjq2gjK"), 32),
            ("Bash", Some("toolu_bdrk_01CaTZ658VzFpoM9YptVLjGg"), 33),
            ("Grep", Some("toolu_bdrk_0174c5udaiUwufh59NcvHVd6"), 34),
            ("Read", Some("toolu_bdrk_01EqGS1kroXsBb4LjuyteLPc"), 39),
            ("Read", Some("toolu_bdrk_01HJA22cJkbnyh36WjEK1xxn"), 40),
            ("Bash", Some("toolu_bdrk_019r6T8NMRUU5dfNamuopyeo"), 41),
        ],
    ),
    (
        "cohere/cohere-empty-tool-call.chunks.txt",
        // A call with no argument piece at all.
        &[("currentTime", Some("currentTime_y46ar19t5gvw"), 14)],
    ),
    ("cohere/cohere-reasoning.chunks.txt", &[]),
    (
        "cohere/cohere-tool-call.chunks.txt",
        &[
            ("weather", Some("weather_e8p4pn45zt0t"), 29),
            ("cityAttractions", Some("cityAttractions_pyxssbwnq9fq"), 38),
        ],
    ),
    (
        "cohere/cohere-tool-call.json",
        &[
            ("weather", Some("weather_dqgshstja6p9"), 7),
            ("cityAttractions", Some("cityAttractions_dcxfx4myvx68"), 15),
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
    // A whole no-args functionCall, then three streamed ones, each opened by {name,
    // willContinue} and closed by an empty functionCall.
    (
        "gemini/google-stream-no-args-tool-call.chunks.txt",
        &[
            ("read_theme", Some("call_0_703922ad"), 2),
            ("read_screen", Some("call_1_060a1136"), 3),
            ("read_screen", Some("call_2_2882f109"), 7),
            ("read_screen", Some("call_3_191e68f6"), 11),
        ],
    ),
    (
        "gemini/google-stream-tool-call-arguments.chunks.txt",
        &[
            ("getWeather", Some("call_0_dd72bd84"), 1),
            ("getWeather", Some("call_1_fa00f94a"), 5),
        ],
    ),
    // No empty functionCall closes the streamed call: the stream's end does.
    (
        "gemini/google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
        &[("writeItems", Some("call_0_dc627254"), 1)],
    ),
    (
        "gemini/google-tool-call.chunks.txt",
        &[("weather", Some("call_0_f7169541"), 1)],
    ),
    // A Gemini Interactions stream: the call's step.start, then its arguments in one
    // arguments_delta.
    (
        "gemini/google-interactions-tool-call-step1.chunks.txt",
        &[("getWeather", Some("61nzpsv4"), 6)],
    ),
    (
        "gemini/google-tool-call.json",
        &[("weather", Some("call_0_f7169541"), 6)],
    ),
    (
        "gemini/google-vertex-stream-tool-call-arguments-nested.1.chunks.txt",
        &[("cookRecipe", Some("call_0_58707b6e"), 1)],
    ),
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
        "openai-chat/alibaba-tool-call.chunks.txt",
        &[("weather", Some("call_eee11723464a4b9eb8cee71d"), 1)],
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
    // The whole response of the same exchange: the call's entry has no `type`.
    // Magistral's reasoning as a `thinking` block of text chunks; no call.
    ("openai-chat/mistral-reasoning.json", &[]),
    (
        "openai-chat/mistral-tool-call.json",
        &[("weather", Some("gSIMJiOkT"), 18)],
    ),
    // xAI's Chat Completions reply: its `reasoning_content` describes the call as a
    // `<function_call>` tag; the call is the `tool_calls` entry only.
    (
        "openai-chat/xai-tool-call.json",
        &[("weather", Some("call_46427107"), 14)],
    ),
    // xAI's hosted tools name their tool and give arguments: calls, named by the item's
    // `id` (their `call_id` is `""`).
    // A response that repeats its (empty) input beside its output: one call, a
    // `multi_tool_use.parallel`-style wrapper written as an ordinary function call.
    (
        "openai-responses/parallel-tool-call-wrapper.1.json",
        &[("parallel", Some("call_parallel"), 13)],
    ),
    (
        "openai-responses/xai-code-execution-tool.1.json",
        &[(
            "code_execution",
            Some("fc_5138abcf-4c4e-b0ab-7e0b-f4c81b98f455_us-east-1_0"),
            8,
        )],
    ),
    (
        "openai-responses/xai-web-search-tool.1.chunks.txt",
        &[(
            "web_search",
            Some("fc_98a8d4aa-fc8b-fd93-e673-d5a8f1c9cee8_0"),
            3,
        )],
    ),
    (
        "openai-responses/xai-x-search-tool.1.json",
        &[(
            "x_semantic_search",
            Some("fc_84c1a8ea-1f29-4a33-1049-0ed3561b0f64_us-east-1_0"),
            8,
        )],
    ),
    (
        "openai-responses/azure-tool-call.1.chunks.txt",
        &[("weather", Some("call_H5DxLSFnsGhiROnUiDHmgyc8"), 3)],
    ),
    (
        "openai-responses/azure-tool-call.1.json",
        &[("weather", Some("call_YunNGbIwdVJ2i0y0Mybva4Pw"), 85)],
    ),
    // LM Studio's `/v1/responses`: the call's `call_id`, not its item `id`.
    (
        "openai-responses/lmstudio-tool-call.1.json",
        &[("weather", Some("call_2866856768160095"), 12)],
    ),
    (
        "openai-responses/openai-local-shell-tool.1.json",
        &[("local_shell", Some("call_XWgeTylovOiS8xLNz2TONOgO"), 22)],
    ),
    // Remote MCP calls (server `dmcp`): no call_id, the id is the `mcp_` item's.
    (
        "openai-responses/openai-mcp-tool.1.chunks.txt",
        &[
            (
                "web_search_exa",
                Some("mcp_0c72b1033351981300690ccf7fa1f0819392a313d0805746c8"),
                9,
            ),
            (
                "web_search_exa",
                Some("mcp_0c72b1033351981300690ccf8bdcd8819383bd64316c8519a2"),
                17,
            ),
        ],
    ),
    (
        "openai-responses/openai-shell-tool.1.json",
        &[("shell", Some("call_udkLUvR8lWvG8cDO2B6GNpvZ"), 17)],
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
        "openhands/basic_gui_mode.json",
        &[
            ("execute_bash", Some("toolu_01W9Z8jBctr8X2frZV9p1RYs"), 101),
            (
                "str_replace_editor",
                Some("toolu_01YYLXwwdBLwtMmjr5Sfsieg"),
                234,
            ),
            (
                "str_replace_editor",
                Some("toolu_01GpJj2ShdFjb9ZTY4CVxi9C"),
                361,
            ),
            ("execute_bash", Some("toolu_01DwihWr4ooPZS1CGTLAWrFP"), 488),
        ],
    ),
    (
        "llama-stack/anthropic-messages-tool-use-d13b3334.json",
        &[("get_weather", Some("call_kp56ga0b"), 49)],
    ),
    (
        "llama-stack/ollama-generate-stream-pythonic-4597743b.json",
        // A pythonic call in /api/generate text pieces, read once they are joined.
        &[("greet_everyone", None, 22)],
    ),
    (
        "llama-stack/openai-stream-after-tool-results-03c7af9e.json",
        // The request's two earlier calls (answered there), then the stream's.
        &[
            (
                "get_experiment_id",
                Some("call_kQzwGe637M0VpMEBFvXlAXTR"),
                18,
            ),
            (
                "get_experiment_id",
                Some("call_KInRNLIriUKirjfBCuJqJTWT"),
                38,
            ),
            (
                "get_experiment_results",
                Some("call_biQv6t2r31f5CPlharTSDRdH"),
                176,
            ),
        ],
    ),
    (
        "llama-stack/watsonx-stream-tool-call-27dea747.json",
        &[(
            "web_search",
            Some("chatcmpl-tool-079ee8a8f529445284003571553d5447"),
            92,
        )],
    ),
    (
        "mini-swe-agent/github-issue-missing-colon.traj.json",
        // The one ```mswea_bash_command block of each of the 10 assistant replies.
        &[
            ("bash", Some("call_0_3f69e941"), 17),
            ("bash", Some("call_1_67f4011a"), 25),
            ("bash", Some("call_2_cc365302"), 33),
            ("bash", Some("call_3_167d7033"), 41),
            ("bash", Some("call_4_241ddb2e"), 49),
            ("bash", Some("call_5_167d7033"), 57),
            ("bash", Some("call_6_adfe2bd1"), 65),
            ("bash", Some("call_7_f0158628"), 73),
            ("bash", Some("call_8_71e73673"), 81),
            ("bash", Some("call_9_7514a381"), 89),
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
            ("submit", Some("call_4_f4bf67f3"), 48),
        ],
    ),
    (
        "swe-agent/pydicom-1458-thought-action.traj",
        // The last fenced block of each of the 12 assistant messages, on the line of
        // its content string; the trajectory's 12 actions are the same commands.
        &[
            ("bash", Some("call_0_b1c3e333"), 108),
            ("bash", Some("call_1_64fb94f8"), 120),
            ("bash", Some("call_2_a0efa863"), 132),
            ("bash", Some("call_3_2c5d43ac"), 144),
            ("bash", Some("call_4_75da3cce"), 156),
            ("bash", Some("call_5_4fdc745b"), 168),
            ("bash", Some("call_6_946eabc8"), 180),
            ("bash", Some("call_7_946eabc8"), 192),
            ("bash", Some("call_8_7f2259b6"), 204),
            ("bash", Some("call_9_a0efa863"), 216),
            ("bash", Some("call_10_d196eb6c"), 228),
            ("bash", Some("call_11_8eeb3b24"), 240),
        ],
    ),
    (
        "swe-agent/marshmallow-1867-xml.traj",
        &[
            ("bash", Some("call_0_78dad89b"), 98),
            ("bash", Some("call_1_3b8ef428"), 112),
            ("bash", Some("call_2_a2303b4c"), 126),
            ("bash", Some("call_3_442ba0cf"), 140),
            ("bash", Some("call_4_02d0aa05"), 154),
            ("bash", Some("call_5_00864792"), 168),
            ("bash", Some("call_6_37f79525"), 182),
            ("bash", Some("call_7_1144c3b0"), 196),
            ("bash", Some("call_8_a2303b4c"), 210),
            ("bash", Some("call_9_5fb3934c"), 224),
            ("bash", Some("call_10_8eeb3b24"), 238),
        ],
    ),
    (
        "xai/test_xai_builtin_code_execution_tool.xai.yaml",
        // The server-side call once: the ROLE_TOOL output repeating it holds its result.
        &[("code_execution", Some("call_03747959"), 31)],
    ),
    (
        "xai/test_xai_builtin_code_execution_tool_stream.xai.yaml",
        &[("code_execution", Some("call_02414781"), 24)],
    ),
    (
        "xai/test_xai_request_tool_call.xai.yaml",
        // The second request replays both calls as history.
        &[
            ("get_location", Some("call_56494531"), 30),
            ("get_location", Some("call_28585237"), 36),
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
