//! Bad input never panics: every fixture, mutated many times with a fixed seed
//! (bytes cut, inserted, flipped; markers and brackets spliced in), goes through the
//! whole pipeline in every framing and window size, and what comes out is well-formed
//! records. A failure prints the file and the case to replay.

use crate::common;
use std::io::Cursor;
use toolsift::Channel;
use toolsift::Diag;
use toolsift::Output;
use toolsift::Role;
use toolsift::{Engine, Options, Reasoning};
use toolsift::{Framing, Reader};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SPLICES: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b"<",
    b">",
    b"\n",
    b"\xff",
    b"\x00",
    b"\xe2\x80",
    b"<tool_call>",
    b"</tool_call>",
    b"<invoke name=\"x\">",
    b"</invoke>",
    b"[TOOL_CALLS]",
    b"```json\n",
    b"data: ",
    b"BEGIN WIL\n",
    b"<think>",
    b"<read_file>",
    b"<parameter name=\"p\">",
    b"emit_batch(",
    b"[f(a=",
    b"\"name\": \"f\", \"arguments\": {",
    b"<function=f>",
    b"<parameter=p>",
    b"</parameter>",
    b"<|tool_call_begin|>functions.f:0",
    b"<\xef\xbd\x9cDSML\xef\xbd\x9cinvoke name=\"f\">",
    b"<|channel|>commentary to=functions.f<|message|>",
    // White space wider than a byte, and a Harmony remnant with its tokens stripped.
    b"\xc2\xa0to=functions.f<|message|>",
    b"assistantcommentary to=functions.f json",
    b"call:f{a:",
    b"<|\"|>",
    b"[ARGS]",
    b">>>f\n",
    b"functools[",
    b"<arg_key>",
];

fn mutate(data: &mut Vec<u8>, rng: &mut Rng) {
    for _ in 0..1 + rng.below(6) {
        if data.is_empty() {
            data.extend_from_slice(SPLICES[rng.below(SPLICES.len())]);
            continue;
        }
        let i = rng.below(data.len());
        match rng.below(4) {
            0 => {
                let end = (i + 1 + rng.below(40)).min(data.len());
                data.drain(i..end);
            }
            1 => {
                let s = SPLICES[rng.below(SPLICES.len())];
                data.splice(i..i, s.iter().copied());
            }
            2 => data.truncate(i),
            _ => data[i] = rng.next() as u8,
        }
    }
}

/// The records of one run.
fn run(input: &[u8], framing: Framing, window: usize) -> Vec<common::Record> {
    let options = Options {
        formats: Channel::ALL.to_vec(),
        all: true,
        with_results: true,
        with_text: true,
        roles: vec![Role::Assistant, Role::User, Role::System, Role::Tool],
        dialects: None,
        contracts: std::sync::Arc::new(
            toolsift::Contracts::from_tools(vec![toolsift::Tool::named("get_weather")]).unwrap(),
        ),
        registry: toolsift::Registry::builtin(),
        strict: false,
        reasoning: Reasoning::Include,
        manifest: None,
    };
    let sink = Shared::default();
    let mut out = Output::new(Box::new(sink.clone()), false);
    let diag = Diag::new(true);
    {
        let mut engine = Engine::new(options, &mut out);
        engine.start_source("mutated");
        let mut events = |event| engine.event(event);
        Reader::new("mutated", &diag, &mut events)
            .with_window(window)
            .read(&mut Cursor::new(input), framing)
            .unwrap();
    }
    out.flush().unwrap();
    let bytes = sink.0.lock().unwrap().clone();
    common::records(&bytes)
}

/// A writer whose bytes can be read after the output that owns it is done.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            // The providers' request schemas are not transcripts.
            if path.is_dir() && !path.ends_with("api-schemas") {
                stack.push(path);
            } else if path.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    let framings = [
        Framing::Auto,
        Framing::Text,
        Framing::Json,
        Framing::Jsonl,
        Framing::Sse,
        Framing::Yaml,
    ];
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut pairs = std::collections::HashSet::new();
    // Every file meets each of the 24 (framing, window) pairs twice (six times with
    // TOOLSIFT_TEST_BIG=1).
    let cases = if common::big() { 150 } else { 48 };
    for file in &files {
        let original = std::fs::read(file).unwrap();
        for case in 0..cases {
            let mut data = original.clone();
            mutate(&mut data, &mut rng);
            // Every framing with every window, each pair in turn (6 and 4 share a
            // factor: `case % 4` would pair half of them only). Small windows make
            // plain text go through the windowed reader too.
            let framing = framings[case % framings.len()];
            let window = [0, 64, 257, 4 << 20][case / framings.len() % 4];
            let result = std::panic::catch_unwind(|| run(&data, framing, window));
            let records = result.unwrap_or_else(|_| {
                panic!(
                    "{} case {case} ({framing:?}, window {window}) failed",
                    file.display()
                )
            });
            for record in &records {
                let source = match record {
                    common::Record::Call { source, .. }
                    | common::Record::Text { source, .. }
                    | common::Record::Result { source, .. } => source,
                };
                assert_eq!(source.file, "mutated");
            }
            pairs.insert((case % framings.len(), window));
        }
    }
    assert_eq!(pairs.len(), 24, "every framing with every window");
}
