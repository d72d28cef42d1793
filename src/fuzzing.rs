//! Property checks behind the fuzz targets in `fuzz/` (see `fuzz/README.md`) and their
//! replay on stable in `tests/fuzz_replay.rs`. Each takes arbitrary bytes, runs a part
//! of toolsift in-process, and panics with a message naming the property when one
//! fails. A bad input is never a failure in itself: only a panic inside toolsift or a
//! broken property is.
//!
//! Properties:
//! - every output line is a JSON object with a string `type`, and has the documented
//!   shape (every call's `arguments` is an object, `valid:false` comes with `errors`);
//! - `--all --with-text` on text: the text records and the calls' spans tile the
//!   message (nothing written twice, nothing but white space and wrappers lost);
//! - plain text read in windows gives the records of a whole read (the window is four
//!   times the longest line and the longest construct the scanners report, so none is
//!   over the documented limit, a quarter of the window);
//! - a second reading thread (`-j 2` on one file) gives the records of one thread;
//! - a `--dialect-file` loads or is an error, and its dialects scan text;
//! - a `--tools` file loads or is an error, and a transcript is validated against it;
//! - `convert --to json --verify` loses nothing, its output is JSON, and converting
//!   that output again is a fixed point (the same bytes every time).

use crate::contracts::Contracts;
use crate::diag::Diag;
use crate::dialects::{Channel, Registry};
use crate::engine::{Engine, Options, Reasoning};
use crate::input::{Framing, Reader};
use crate::model::{Event, Role, Turn};
use crate::output::Output;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::io::{self, Cursor, Write};
use std::path::PathBuf;
use std::rc::Rc;

/// The fuzz targets, by the name of their file in `fuzz/fuzz_targets/` and their
/// directory in `fuzz/regressions/`.
pub const TARGETS: &[&str] = &[
    "extract_text",
    "extract_json",
    "extract_jsonl",
    "extract_sse",
    "extract_yaml",
    "extract_http",
    "with_text",
    "windows",
    "threads",
    "dialect_file",
    "tools",
    "convert",
];

/// Runs the target named `target` (one of [`TARGETS`]) on `data`.
pub fn run(target: &str, data: &[u8]) {
    match target {
        "extract_text" => extract(data, Framing::Text),
        "extract_json" => extract(data, Framing::Json),
        "extract_jsonl" => extract(data, Framing::Jsonl),
        "extract_sse" => extract(data, Framing::Sse),
        "extract_yaml" => extract(data, Framing::Yaml),
        "extract_http" => extract(data, Framing::Http),
        "with_text" => with_text(data),
        "windows" => windows(data),
        "threads" => threads(data),
        "dialect_file" => dialect_file(data),
        "tools" => tools(data),
        "convert" => convert(data),
        other => panic!("no fuzz target named {other:?}"),
    }
}

/// A writer whose bytes can be taken after the output that owns it is done.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The engine's options: every channel, every role, results too.
fn options(all: bool, with_text: bool) -> Options {
    Options {
        formats: Channel::ALL.to_vec(),
        all,
        with_results: true,
        with_text,
        roles: vec![Role::Assistant, Role::User, Role::System, Role::Tool],
        dialects: None,
        contracts: Default::default(),
        registry: Registry::builtin(),
        strict: false,
        reasoning: Reasoning::Fallback,
        manifest: None,
    }
}

/// The output of one read of `data`, as `extract` writes it. The read itself must
/// succeed: with bytes in memory only a broken invariant makes it fail.
fn read(data: &[u8], options: &Options, framing: Framing, window: usize, pipeline: bool) -> String {
    let sink = Shared::default();
    let validated = !options.contracts.is_empty();
    let mut out = Output::new(Box::new(sink.clone()), false).validated(validated);
    let diag = Diag::new(true);
    let result = {
        let mut engine = Engine::new(options.clone(), &mut out);
        engine.start_source("fuzz");
        let mut events = |event| engine.event(event);
        Reader::new("fuzz", &diag, &mut events)
            .with_window(window)
            .with_pipeline(pipeline)
            .read(&mut Cursor::new(data), framing)
    };
    if let Err(e) = result {
        panic!("the read failed ({framing:?}, window {window}, pipeline {pipeline}): {e}");
    }
    out.flush().expect("a Vec takes every write");
    drop(out);
    let bytes = sink.0.take();
    String::from_utf8(bytes).expect("property: the output is UTF-8")
}

/// The records written for one turn, as `extract` writes them.
fn turn_records(turn: Turn, options: &Options) -> String {
    let sink = Shared::default();
    let mut out =
        Output::new(Box::new(sink.clone()), false).validated(!options.contracts.is_empty());
    {
        let mut engine = Engine::new(options.clone(), &mut out);
        engine.start_source("fuzz");
        engine
            .event(Event::Turn(turn))
            .expect("a Vec takes every write");
    }
    drop(out);
    let bytes = sink.0.take();
    String::from_utf8(bytes).expect("property: the output is UTF-8")
}

const CALL_KEYS: &[&str] = &[
    "type",
    "name",
    "arguments",
    "arguments_raw",
    "id",
    "namespace",
    "valid",
    "errors",
    "repairs",
    "in_reasoning",
    "channel",
    "dialect",
    "source",
];
const RESULT_KEYS: &[&str] = &[
    "type", "id", "name", "content", "is_error", "channel", "dialect", "source",
];
const TEXT_KEYS: &[&str] = &["type", "text", "in_reasoning", "source"];

/// Checks every line of `output` against the documented record shape and returns the
/// records. `validated`: calls were checked against contracts, so each says `valid`.
pub fn check_records(output: &str, validated: bool) -> Vec<Map<String, Value>> {
    let mut records = Vec::new();
    for line in output.lines() {
        let fail = |what: &str| -> ! { panic!("property: {what}: {line}") };
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| fail(&format!("every line is JSON ({e})")));
        let Value::Object(record) = value else {
            fail("every line is a JSON object")
        };
        let Some(Value::String(kind)) = record.get("type") else {
            fail("every record has a string type")
        };
        let keys = match kind.as_str() {
            "call" => CALL_KEYS,
            "result" => RESULT_KEYS,
            "text" => TEXT_KEYS,
            _ => fail("type is call, result or text"),
        };
        if let Some(key) = record.keys().find(|k| !keys.contains(&k.as_str())) {
            fail(&format!("no undocumented key ({key:?})"));
        }
        let string = |key: &str| record.get(key).and_then(Value::as_str);
        match record.get("source") {
            Some(Value::Object(source)) => {
                if source.get("file").and_then(Value::as_str) != Some("fuzz")
                    || source.get("line").and_then(Value::as_u64).unwrap_or(0) < 1
                    || source.get("turn").and_then(Value::as_u64).is_none()
                    || source.len() != 4
                {
                    fail("source is {file, line >= 1, turn, index}")
                }
                // The records of the one input are numbered in the order written.
                if source.get("index").and_then(Value::as_u64) != Some(records.len() as u64) {
                    fail("source.index counts the records written before it")
                }
            }
            _ => fail("every record has a source"),
        }
        match kind.as_str() {
            "call" => {
                if string("name").is_none() {
                    fail("every call has a string name");
                }
                if !record.get("arguments").is_some_and(Value::is_object) {
                    fail("every call's arguments are an object");
                }
                if !matches!(string("channel"), Some("tool" | "json" | "text")) {
                    fail("a call's channel is tool, json or text");
                }
                if string("dialect").is_none_or(str::is_empty) {
                    fail("every call names its dialect");
                }
                let valid = record.get("valid");
                if valid.is_some_and(|v| !v.is_boolean()) {
                    fail("valid is a boolean");
                }
                let invalid = valid == Some(&Value::Bool(false));
                let errors = record.get("errors");
                if invalid != errors.is_some() {
                    fail("valid:false comes with errors, and only then");
                }
                if let Some(errors) = errors
                    && !errors
                        .as_array()
                        .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_string))
                {
                    fail("errors are strings");
                }
                if record.contains_key("arguments_raw") && !invalid {
                    fail("arguments_raw only on an invalid call");
                }
                if validated != valid.is_some() && !invalid {
                    fail("valid:true exactly when calls were checked against contracts");
                }
                for key in ["arguments_raw", "id", "namespace"] {
                    if record.get(key).is_some_and(|v| !v.is_string()) {
                        fail(&format!("{key} is a string"));
                    }
                }
            }
            "result" => {
                if !record.contains_key("content")
                    || !record.get("is_error").is_some_and(Value::is_boolean)
                    || string("channel") != Some("tool")
                    || string("dialect").is_none()
                {
                    fail("a result has content, is_error, channel tool and a dialect");
                }
            }
            _ => {
                if string("text").is_none_or(|t| t.trim().is_empty()) {
                    fail("a text record holds more than white space");
                }
            }
        }
        records.push(record);
    }
    records
}

/// `extract --input FRAMING` (every channel and role, with results), with and without
/// `--all`: every record has the documented shape.
pub fn extract(data: &[u8], framing: Framing) {
    for all in [false, true] {
        check_records(&read(data, &options(all, false), framing, 0, false), false);
    }
}

/// The text a plain-text read holds: bad UTF-8 replaced, a byte-order mark dropped.
fn message_of(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned()
}

/// Text left between calls that belongs to them: white space, the wrappers that
/// [`crate::tile::widen`] gives to the calls inside, and a Mandrake log's copy of a call.
fn belongs_to_calls(mut rest: &str) -> bool {
    const WRAPPERS: &[&str] = &[
        "<function_calls>",
        "</function_calls>",
        "<function_results>",
        "</function_results>",
    ];
    loop {
        rest = rest.trim();
        if rest.is_empty() {
            return true;
        }
        if let Some(w) = WRAPPERS.iter().find(|w| rest.starts_with(**w)) {
            rest = &rest[w.len()..];
        } else if let Some(w) = WRAPPERS.iter().find(|w| rest.ends_with(**w)) {
            rest = &rest[..rest.len() - w.len()];
        } else if rest.starts_with("<tool_call>")
            && let Some(end) = rest.find("</tool_call>")
        {
            rest = &rest[end + "</tool_call>".len()..];
        } else {
            return false;
        }
    }
}

/// `--all --with-text` on one plain-text message: records come in message order, and
/// the text records and the calls' spans tile the message. Between two calls (and
/// before the first, after the last) there is at most one text record, it is that
/// stretch of the message less what belongs to the calls (white space, a wrapper), and
/// no other text is lost; no text record holds a part of a call.
pub fn with_text(data: &[u8]) {
    let message = message_of(data);
    let mut options = options(true, true);
    options.roles = vec![Role::Assistant];
    options.reasoning = Reasoning::Include;
    let mut turn = Turn::new(Role::Assistant, 1);
    turn.push_raw_text(message.as_str(), 1);
    let output = turn_records(turn.clone(), &options);
    let records = check_records(&output, false);
    if turn.texts.is_empty() {
        assert!(
            records.is_empty(),
            "property: a blank message gives no record"
        );
        return;
    }
    let text = turn.texts[0].text.clone();
    let mut sink = Output::new(Box::new(io::sink()), false);
    let mut calls = Engine::new(options, &mut sink).calls_in_texts(&turn);
    // The order in which `--with-text` writes them.
    calls.sort_by_key(|c| (c.2, std::cmp::Reverse(c.3)));
    let spans: Vec<crate::tile::Span> = calls
        .iter()
        .map(|(call, _, start, end)| crate::tile::Span {
            start: *start,
            end: *end,
            dialect: call.dialect,
            call: Some(call),
        })
        .collect();
    let outer = crate::tile::outermost(&spans);
    let mut records = records.iter().peekable();
    let stretch = |from: usize, to: usize| -> &str {
        if from >= to {
            return "";
        }
        text.get(from..to).unwrap_or_else(|| {
            panic!("property: call spans fall on character boundaries ({from}..{to})")
        })
    };
    let gap = |from: usize, to: usize, records: &mut std::iter::Peekable<_>| {
        let between = stretch(from, to);
        let next: Option<&&Map<String, Value>> = records.peek();
        if let Some(record) = next.filter(|r| r["type"] == "text") {
            let piece = record["text"].as_str().expect("checked");
            let Some(at) = between.find(piece) else {
                panic!(
                    "property: a text record is a stretch of the message between calls: {piece:?} is not in {between:?} ({from}..{to})"
                );
            };
            let (left, right) = (&between[..at], &between[at + piece.len()..]);
            assert!(
                belongs_to_calls(left) && belongs_to_calls(right),
                "property: text between calls is written whole: {between:?} ({from}..{to}) gave {piece:?}"
            );
            records.next();
        } else {
            assert!(
                belongs_to_calls(between),
                "property: text between calls is not lost: {between:?} ({from}..{to}) has no text record"
            );
        }
    };
    let mut at = 0;
    for ((call, _, start, end), &outer) in calls.iter().zip(&outer) {
        if outer {
            gap(at, *start, &mut records);
            at = at.max(*end);
        }
        let record = records.next();
        assert!(
            record.is_some_and(|r| r["type"] == "call"
                && r["name"].as_str() == Some(call.name.as_str())
                && r["dialect"].as_str() == Some(call.dialect)),
            "property: the call {} ({}, {start}..{end}) comes next, in message order; got {record:?}",
            call.name,
            call.dialect
        );
    }
    gap(at, text.len(), &mut records);
    assert!(
        records.next().is_none(),
        "property: every record is a text or a call of the message"
    );
}

/// A window for `data` read as text in which no construct is over the documented limit
/// (a quarter of the window): four times the longest line, the longest span of any
/// channel's call in a whole read, the longest JSON value (one left open to where its
/// repair ends) and the longest run of overlapping constructs the scanners report to a
/// window (a candidate still open at the end runs to the end), and never less than 64
/// bytes.
fn window_for(data: &[u8]) -> usize {
    // Measured in the text read, bad bytes replaced (three bytes each), as windows are.
    let text = String::from_utf8_lossy(data);
    let longest_line = text.split('\n').map(str::len).max();
    let mut turn = Turn::new(Role::Assistant, 1);
    turn.push_raw_text(message_of(data), 1);
    let mut sink = Output::new(Box::new(io::sink()), false);
    let mut options = options(true, false);
    options.reasoning = Reasoning::Include;
    let mut engine = Engine::new(options, &mut sink);
    let longest_call = engine.calls_in_texts(&turn).iter().map(|c| c.3 - c.2).max();
    // Candidates whose spans overlap (of several dialects, or one inside another) are
    // one construct to a window: the longest run of them.
    let mut constructs = engine.constructs_in_text(&turn);
    constructs.sort_unstable();
    let mut longest_run = 0;
    let mut run: Option<(usize, usize)> = None;
    for (a, b) in constructs {
        run = match run {
            Some((start, end)) if a < end => Some((start, end.max(b))),
            _ => Some((a, b)),
        };
        if let Some((start, end)) = run {
            longest_run = longest_run.max(end - start);
        }
    }
    // A JSON value longer than the overlap may be cut too (its inner calls then read on
    // their own): the documented limit is on values as on calls, closed or not (one
    // left open runs to the next call or the end).
    let longest_value = crate::scan::json_values(&text)
        .iter()
        .map(|v| v.end - v.start)
        .max();
    let longest = longest_line
        .unwrap_or(0)
        .max(longest_call.unwrap_or(0))
        .max(longest_value.unwrap_or(0))
        .max(longest_run);
    (4 * longest + 4).max(64)
}

/// Plain text read in windows (`TOOLSIFT_TEXT_WINDOW`) gives the records of a whole
/// read, with and without `--all`.
pub fn windows(data: &[u8]) {
    let window = window_for(data);
    for all in [false, true] {
        let options = options(all, false);
        let whole = read(data, &options, Framing::Text, 0, false);
        let windowed = read(data, &options, Framing::Text, window, false);
        check_records(&windowed, false);
        assert!(
            whole == windowed,
            "property: windows of {window} bytes give the records of a whole read (all {all})\nwhole:\n{whole}\nwindowed:\n{windowed}"
        );
    }
}

/// A second thread that reads and parses (`-j 2` on one file: JSON Lines, and plain
/// text in windows) gives the records of one thread.
pub fn threads(data: &[u8]) {
    let window = window_for(data);
    for (framing, window) in [
        (Framing::Jsonl, 0),
        (Framing::Text, window),
        (Framing::Auto, window),
    ] {
        let options = options(false, false);
        let one = read(data, &options, framing, window, false);
        let two = read(data, &options, framing, window, true);
        check_records(&two, false);
        assert!(
            one == two,
            "property: two threads give the records of one ({framing:?}, window {window})\none:\n{one}\ntwo:\n{two}"
        );
    }
}

/// A scratch directory of this process, for the targets that read a file.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsift-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the scratch directory can be made");
    dir.join(name)
}

/// The bytes as a `--dialect-file`: it loads or is an error, never a panic; when it
/// loads, every dialect it adds scans its own example and the bytes as text, and what
/// comes out has the documented shape.
pub fn dialect_file(data: &[u8]) {
    let path = scratch("dialects.json");
    std::fs::write(&path, data).expect("the scratch file can be written");
    let Ok(registry) = crate::dialects::dialect_file::load(std::slice::from_ref(&path)) else {
        return;
    };
    let builtin: Vec<String> = crate::dialects::all_rows(Registry::builtin())
        .into_iter()
        .map(|r| r.name)
        .collect();
    let mut text = String::new();
    for row in crate::dialects::all_rows(registry) {
        if !builtin.contains(&row.name) {
            text.push_str(&row.example);
            text.push('\n');
        }
    }
    text.push_str(&String::from_utf8_lossy(data));
    let mut options = options(true, false);
    options.registry = registry;
    let mut turn = Turn::new(Role::Assistant, 1);
    turn.push_raw_text(text, 1);
    check_records(&turn_records(turn, &options), false);
}

/// A transcript with calls of every channel, some to tools that are likely declared.
const TRANSCRIPT: &str = r#"{"choices": [{"message": {"role": "assistant", "content": "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call> and <read_file><path>a.txt</path></read_file> and [f(a=1, b='x')]", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"p\", \"content\": \"x\", \"meta\": {\"tags\": [\"a\"]}}"}}]}}]}"#;

/// The bytes as a `--tools` contract file: it loads or is an error, never a panic;
/// when it loads, a transcript with calls to every declared tool (and others) is
/// validated against it, and every call says whether it is valid.
pub fn tools(data: &[u8]) {
    let path = scratch("tools.json");
    std::fs::write(&path, data).expect("the scratch file can be written");
    let Ok(contracts) = Contracts::load(std::slice::from_ref(&path)) else {
        return;
    };
    let mut calls = Vec::new();
    for (i, tool) in contracts.tools().iter().enumerate() {
        for arguments in [
            "{}",
            r#"{"a": 1, "b": "x", "c": [1, 2.5, null], "d": {"e": true}}"#,
        ] {
            calls.push(serde_json::json!({
                "id": format!("t{i}"),
                "type": "function",
                "function": {"name": tool.name, "arguments": arguments},
            }));
        }
    }
    // As text too, where declared names and raw-text values typed by the schema count.
    let names: String = contracts
        .tools()
        .iter()
        .map(|t| format!("<{0}><a>1</a><b>x</b></{0}>\n", t.name))
        .collect();
    let generated = serde_json::json!({"choices": [{"message": {
        "role": "assistant", "content": names, "tool_calls": calls}}]});
    let mut options = options(true, false);
    options.contracts = std::sync::Arc::new(contracts);
    for transcript in [TRANSCRIPT.to_owned(), generated.to_string()] {
        check_records(
            &read(transcript.as_bytes(), &options, Framing::Json, 0, false),
            true,
        );
    }
}

/// The settings of `convert --to TO --verify`.
fn convert_settings(to: crate::convert::model::Format) -> crate::convert::Settings {
    crate::convert::Settings {
        to,
        from: None,
        write: crate::convert::request::WriteOptions::default(),
        compact: false,
        verify: true,
        options: Options {
            formats: Channel::ALL.to_vec(),
            all: true,
            with_results: false,
            with_text: false,
            roles: vec![Role::Assistant],
            dialects: None,
            contracts: Default::default(),
            registry: Registry::builtin(),
            strict: false,
            reasoning: Reasoning::Exclude,
            manifest: None,
        },
    }
}

/// Every JSON value in `output`, one after another (a document, or JSON Lines).
fn json_values(output: &[u8], what: &str) {
    for value in serde_json::Deserializer::from_slice(output).into_iter::<Value>() {
        if let Err(e) = value {
            panic!(
                "property: {what} output is JSON ({e}):\n{}",
                String::from_utf8_lossy(output)
            );
        }
    }
}

/// `convert --to json --verify`: converts or fails, never panics; what it writes is
/// JSON, `--verify` finds nothing lost (the canonical transcript keeps every field),
/// and converting the output again reaches a fixed point. `--to openai` writes JSON too.
pub fn convert(data: &[u8]) {
    use crate::convert::model::Format;
    let json = convert_settings(Format::Json);
    let Ok(first) = crate::convert::convert_bytes(data, &json, false) else {
        return;
    };
    json_values(&first.output, "--to json");
    assert!(
        first.differences.is_empty(),
        "property: --to json --verify loses nothing: {:?}",
        first.differences
    );
    // The first conversion may add what it learnt (`"source": "json"` once read from
    // a canonical transcript); from then on the output is a fixed point.
    let again = |output: &[u8]| {
        crate::convert::convert_bytes(output, &json, false)
            .unwrap_or_else(|e| panic!("property: convert's own output converts again: {e:#}"))
    };
    let second = again(&first.output);
    assert!(
        second.differences.is_empty(),
        "property: --to json --verify of convert's own output loses nothing: {:?}",
        second.differences
    );
    let third = again(&second.output);
    assert!(
        third.output == second.output,
        "property: converting --to json output again gives the same bytes:\nsecond:\n{}\nthird:\n{}",
        String::from_utf8_lossy(&second.output),
        String::from_utf8_lossy(&third.output)
    );
    let openai = crate::convert::convert_bytes(data, &convert_settings(Format::Openai), false)
        .unwrap_or_else(|e| panic!("property: what converts to json converts to openai: {e:#}"));
    json_values(&openai.output, "--to openai");
}
