//! The streaming property (issue 4): however the input arrives — split into chunks at
//! any UTF-8 boundary, read through small buffers, scanned as plain text in small
//! overlapping windows — the calls found are the same as from one whole read.
//! Model fixtures are split at every boundary; every other fixture at random ones.

use std::cell::RefCell;
use std::io::{self, BufReader, Read, Write};
use std::path::PathBuf;
use std::rc::Rc;
use toolsift::Diag;
use toolsift::Output;
use toolsift::Role;
use toolsift::{Channel, Registry};
use toolsift::{Engine, Options, Reasoning};
use toolsift::{Framing, Reader};

/// Hands out the input one chunk at a time, as a pipe would.
struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    cuts: Vec<usize>,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let next = self
            .cuts
            .iter()
            .copied()
            .find(|&c| c > self.pos)
            .unwrap_or(self.data.len());
        let n = (next - self.pos).min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

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

/// The call records of one run, without text records (whose pieces follow the window).
fn calls(data: &[u8], cuts: Vec<usize>, buffer: usize, window: usize) -> Vec<String> {
    calls_with(data, cuts, buffer, window, false)
}

fn calls_with(
    data: &[u8],
    cuts: Vec<usize>,
    buffer: usize,
    window: usize,
    all: bool,
) -> Vec<String> {
    let mut input = BufReader::with_capacity(buffer, Chunked { data, pos: 0, cuts });
    let (records, result) = run_reader(&mut input, window, all, false);
    result.unwrap();
    records
}

/// The records of one read of `input` (and how the read ended), with or without a
/// second thread that reads and parses JSON Lines.
fn run_reader(
    input: &mut (dyn io::BufRead + Send),
    window: usize,
    all: bool,
    pipeline: bool,
) -> (Vec<String>, io::Result<()>) {
    let options = Options {
        formats: Channel::ALL.to_vec(),
        all,
        with_results: true,
        with_text: false,
        roles: vec![Role::Assistant],
        dialects: None,
        contracts: std::sync::Arc::default(),
        registry: Registry::builtin(),
        strict: false,
        reasoning: Reasoning::Include,
        manifest: None,
    };
    let sink = Shared::default();
    let mut out = Output::new(Box::new(sink.clone()), false);
    let diag = Diag::new(true);
    let result = {
        let mut engine = Engine::new(options, &mut out);
        engine.start_source("input");
        let mut events = |event| engine.event(event);
        Reader::new("input", &diag, &mut events)
            .with_window(window)
            .with_pipeline(pipeline)
            .read(input, Framing::Auto)
    };
    out.flush().unwrap();
    let text = String::from_utf8(sink.0.borrow().clone()).unwrap();
    (text.lines().map(str::to_owned).collect(), result)
}

/// The offsets where a cut leaves no half character: not before a continuation byte
/// unless what follows is valid UTF-8 anyway. The byte is tested first, so that the
/// rest is validated only there: validated at every offset, the largest fixtures took
/// most of the time of the tests that split every fixture.
fn boundaries(data: &[u8]) -> Vec<usize> {
    (1..data.len())
        .filter(|&i| (data[i] & 0xC0) != 0x80 || std::str::from_utf8(&data[i..]).is_ok())
        .collect()
}

/// Every fixture file (not the notes about them).
fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            // The providers' request schemas are not transcripts.
            if path.is_dir() && !path.ends_with("api-schemas") {
                stack.push(path);
            } else if path.is_file() && path.extension().is_none_or(|e| e != "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn model_fixtures_split_at_every_boundary_give_the_same_calls() {
    for path in fixtures()
        .iter()
        .filter(|p| p.parent().unwrap().ends_with("models"))
    {
        let data = std::fs::read(path).unwrap();
        let whole = calls(&data, Vec::new(), 1 << 16, 0);
        assert!(!whole.is_empty(), "{}: no calls", path.display());
        for cut in boundaries(&data) {
            // Two chunks, through a tiny and a small read buffer.
            for buffer in [7, 64] {
                let got = calls(&data, vec![cut], buffer, 0);
                assert_eq!(
                    got,
                    whole,
                    "{} cut at byte {cut}, buffer {buffer}",
                    path.display()
                );
            }
        }
    }
}

/// A text whose calls are all of the text channel until a json-channel call at its
/// very end: read in windows, the late call still wins the turn, as in a whole read.
#[test]
fn a_late_call_of_an_earlier_channel_still_wins_across_windows() {
    let mut text = Vec::new();
    for stem in [
        "qwen3-coder",
        "glm-4.5",
        "minimax-m2",
        "olmo3",
        "lfm2",
        "step3",
    ] {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/models/{stem}.txt"));
        for _ in 0..20 {
            text.extend(std::fs::read(&path).unwrap());
            text.extend(b"\n");
        }
    }
    text.extend(b"<tool_call>\n{\"name\": \"late\", \"arguments\": {}}\n</tool_call>\n");
    let whole = calls(&text, Vec::new(), 1 << 16, 0);
    assert_eq!(whole.len(), 1);
    assert!(whole[0].contains("\"late\""));
    for window in [4096, 5000, 9999] {
        assert_eq!(
            calls(&text, Vec::new(), 4096, window),
            whole,
            "window {window}"
        );
    }
}

/// Plain text read in windows: window edges fall everywhere in a text made of every
/// model fixture (each call is shorter than the windows' overlap, as documented).
#[test]
fn window_edges_anywhere_give_the_same_calls() {
    let mut text = Vec::new();
    for path in fixtures()
        .iter()
        .filter(|p| p.parent().unwrap().ends_with("models"))
    {
        text.extend(std::fs::read(path).unwrap());
        text.extend(b"\n");
    }
    // --all: every channel's calls are gathered to the end; without it, the winning
    // channel's calls are written as soon as it has won.
    for all in [true, false] {
        let whole = calls_with(&text, Vec::new(), 1 << 16, 0, all);
        assert!(whole.len() > 60, "{} calls", whole.len());
        for window in (6000..6000 + 3 * 101).step_by(3) {
            let got = calls_with(&text, Vec::new(), 4096, window, all);
            assert_eq!(got, whole, "window {window}, all {all}");
        }
    }
}

/// The same, with long paragraphs of plain prose (no `<`, `[` or `{`) between the
/// fixtures: a window whose last quarter holds no opener keeps only a short overlap,
/// and that must not lose or repeat a call either.
#[test]
fn window_edges_in_plain_prose_give_the_same_calls() {
    let prose = "the model explains how the tool works and what it returns\n".repeat(40);
    let mut text = Vec::new();
    for path in fixtures()
        .iter()
        .filter(|p| p.parent().unwrap().ends_with("models"))
    {
        text.extend(prose.as_bytes());
        text.extend(std::fs::read(path).unwrap());
        text.extend(b"\n");
    }
    let whole = calls_with(&text, Vec::new(), 1 << 16, 0, false);
    assert!(whole.len() > 60, "{} calls", whole.len());
    for window in (6000..6000 + 7 * 101).step_by(7) {
        let got = calls_with(&text, Vec::new(), 4096, window, false);
        assert_eq!(got, whole, "window {window}");
    }
}

/// Once the json channel has won a windowed text, the next window may start only a short
/// overlap before the cut, unless something the scanners read is still open there: calls
/// spread over many lines, JSON that is not a call, code full of braces and blocks
/// without their close marker must come out as from a whole read wherever the cuts fall
/// (every call shorter than the overlap, a quarter of these windows).
#[test]
fn window_edges_after_the_json_channel_has_won_give_the_same_calls() {
    let first = "<tool_call>{\"name\": \"first\", \"arguments\": {}}</tool_call>\n";
    let text = prose_and_blocks(first, 0x2545_F491_4F6C_DD1D, (6, 300_000), |k, next| {
        let rows: String = (0..next(90))
            .map(|i| format!("      \"row {i}: {{ not a brace }}\",\n"))
            .collect();
        match next(8) {
            0 => format!(
                "<tool_call>\n{{\"name\": \"write{k}\", \"arguments\": {{\"lines\": [\n{rows}      \"end\"]}}}}\n</tool_call>\n"
            ),
            1 => format!(
                "```json\n{{\"name\": \"fenced{k}\", \"arguments\": {{\"lines\": [\n{rows}\"end\"]}}}}\n```\n"
            ),
            2 => format!("{{\"config\": {{\"rows\": [\n{rows}\"end\"]}}}}\n"),
            3 => format!("fn f{k}() {{\n    if x {{\n{rows}    }}\n}}\n"),
            // Words between the JSON and the close marker belong to the block.
            4 => format!(
                "<tool_call>{{\"name\": \"late_close{k}\", \"arguments\": {{}}}}\n{}</tool_call>\n",
                rows.replace('"', "")
            ),
            // A call that does not start like one: no repair is tried while it is open.
            5 => format!(
                "{{\"x\": 0, \"name\": \"plain{k}\", \"arguments\": {{\"a\": [\n{rows}1]}}}}\n"
            ),
            // Not a call, though it holds call-shaped examples, one per line.
            6 => format!(
                "{{\"examples\": [\n{}{{}}]}}\n",
                "  {\"name\": \"example\", \"arguments\": {}},\n".repeat(next(60))
            ),
            _ => format!(
                "{{\"type\": \"ksi_tool_use\", \"id\": \"k{k}\", \"name\": \"ksi{k}\", \"input\": {{}}}}\n"
            ),
        }
    });
    let whole = windows_match_whole(&text, "json", 100, 16_384, 41);
    assert!(!whole.iter().any(|c| c.contains("example")));
}

/// A text won by the text channel keeps the full overlap: the json channel's scanners
/// say nothing of what the text channel's calls leave open at a cut, so multi-line
/// blocks that cross cuts come out whole, as from a whole read.
#[test]
fn window_edges_in_text_won_by_the_text_channel_give_the_same_calls() {
    let text = prose_and_blocks("", 0x9E37_79B9_7F4A_7C15, (6, 300_000), |k, next| {
        let lines: String = (0..next(90))
            .map(|i| format!("    let x{i} = {i};\n"))
            .collect();
        format!(
            "<write_to_file>\n<path>src/f{k}.rs</path>\n<content>\nfn f() {{\n{lines}}}\n</content>\n</write_to_file>\n"
        )
    });
    windows_match_whole(&text, "text", 100, 16_384, 43);
}

/// Text-channel calls of each family, spread over many lines between long runs of prose,
/// read in windows that the text channel's scanners let move on: they come out as from
/// a whole read. One family per text, so that no other family's candidates hold the next
/// window back for it.
#[test]
fn window_edges_between_text_channel_calls_give_the_same_calls() {
    for family in 0..6 {
        let text = prose_and_blocks("", 0x6A09_E667_F3BC_C908, (300, 600_000), |k, next| {
            let lines: String = (0..100 + next(300))
                .map(|i| format!("    line {i} of the value\n"))
                .collect();
            let items: String = (0..100 + next(300)).map(|i| format!("{i},\n")).collect();
            match family {
                0 => format!(
                    "<write_to_file>\n<path>src/f{k}.rs</path>\n<content>\n{lines}</content>\n</write_to_file>\n"
                ),
                1 => {
                    format!("<Write{k}>\n```json\n{{\"items\": [\n{items}0]}}\n```\n</Write{k}>\n")
                }
                2 => format!(
                    "<function_calls>\n<invoke name=\"edit{k}\">\n<parameter name=\"text\">\n{lines}</parameter>\n</invoke>\n</function_calls>\n"
                ),
                3 => format!(
                    "<tool_call>\n<server>files</server>\n<method>write{k}</method>\n<arguments>\n{{\"items\": [\n{items}0]}}\n</arguments>\n</tool_call>\n"
                ),
                4 => format!(
                    "<tool_call>glm{k}\n<arg_key>text</arg_key>\n<arg_value>\n{lines}</arg_value>\n</tool_call>\n"
                ),
                _ => format!("[py{k}(items=[\n{items}0], flag=True)]\n"),
            }
        });
        windows_match_whole(&text, "text", 30, 65_536, 997);
    }
}

/// Numbers below `n` from a xorshift generator: the same on every run.
fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    }
}

/// `size` bytes of text: `first`, then blocks (`block(k, next)` for the k-th, with `next`
/// for random numbers), each after up to `prose_lines` lines of prose.
fn prose_and_blocks(
    first: &str,
    seed: u64,
    (prose_lines, size): (usize, usize),
    mut block: impl FnMut(usize, &mut dyn FnMut(usize) -> usize) -> String,
) -> String {
    let mut next = below(seed);
    let mut text = first.to_owned();
    let mut k = 0;
    while text.len() < size {
        k += 1;
        for _ in 0..next(prose_lines) {
            text.push_str("Prose about the task, with nothing to call in it at all.\n");
        }
        text.push_str(&block(k, &mut next));
    }
    text
}

/// Reads `text` whole (more than `least` calls, all of `channel`) and in windows of 50
/// sizes from `from` bytes on, `step` bytes apart: the calls are the same. Returns the
/// whole read's.
fn windows_match_whole(
    text: &str,
    channel: &str,
    least: usize,
    from: usize,
    step: usize,
) -> Vec<String> {
    let whole = calls_with(text.as_bytes(), Vec::new(), 1 << 16, 0, false);
    assert!(whole.len() > least, "{} calls", whole.len());
    let tag = format!(r#""channel":"{channel}""#);
    assert!(whole.iter().all(|c| c.contains(&tag)));
    for window in (from..from + step * 50).step_by(step) {
        let got = calls_with(text.as_bytes(), Vec::new(), 4096, window, false);
        assert_eq!(got, whole, "window {window}");
    }
    whole
}

#[test]
fn every_fixture_in_random_chunks_gives_the_same_calls() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for path in fixtures() {
        let data = std::fs::read(&path).unwrap();
        let whole = calls(&data, Vec::new(), 1 << 16, 0);
        let cuts_at = boundaries(&data);
        for round in 0..12 {
            let mut cuts: Vec<usize> = (0..1 + next() % 24)
                .filter_map(|_| cuts_at.get(next() as usize % cuts_at.len().max(1)).copied())
                .collect();
            cuts.sort_unstable();
            let buffer = 1 + (next() % 200) as usize;
            let got = calls(&data, cuts.clone(), buffer, 0);
            assert_eq!(got, whole, "{} round {round} cuts {cuts:?}", path.display());
        }
    }
}

/// A consumer that keeps the windows it is given (the engine drops each): the reader
/// cannot number the lines after one, and says so with an error, not a panic.
#[test]
fn a_sink_that_keeps_windows_gets_an_error() {
    let text = "some prose {\"a\": 1}\n".repeat(2000);
    let diag = Diag::new(true);
    let mut kept = Vec::new();
    let mut sink = |event| {
        kept.push(event);
        Ok(())
    };
    let result = Reader::new("input", &diag, &mut sink)
        .with_window(4096)
        .read(&mut text.as_bytes(), Framing::Text);
    let error = result.expect_err("the reader cannot go on");
    assert!(
        error.to_string().contains("kept by its consumer"),
        "{error}"
    );
}

/// Fails after `fail_at` bytes, as a disk might.
struct Failing<'a> {
    data: &'a [u8],
    pos: usize,
    fail_at: usize,
}

impl Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.fail_at {
            return Err(io::Error::other("the disk went away"));
        }
        let n = buf
            .len()
            .min(self.fail_at - self.pos)
            .min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// `data` read in eight random chunks (cut by `next`) through a 61-byte buffer, on one
/// thread and on two: the same records. The records.
fn chunked_on_one_and_two_threads(
    data: &[u8],
    next: &mut impl FnMut(usize) -> usize,
    window: usize,
    what: &str,
) -> Vec<String> {
    let mut cuts: Vec<usize> = (0..8).map(|_| next(data.len())).collect();
    cuts.sort_unstable();
    let read = |pipeline: bool| {
        let chunked = Chunked {
            data,
            pos: 0,
            cuts: cuts.clone(),
        };
        let (records, result) = run_reader(
            &mut BufReader::with_capacity(61, chunked),
            window,
            false,
            pipeline,
        );
        result.unwrap();
        records
    };
    let one = read(false);
    assert_eq!(one, read(true), "{what}");
    one
}

/// `data` read with a read error after `fail_at` bytes, on one thread and on two: the
/// same records and the same error. The records.
fn fail_on_one_and_two_threads(data: &[u8], window: usize, fail_at: usize) -> Vec<String> {
    let read = |pipeline: bool| {
        let failing = Failing {
            data,
            pos: 0,
            fail_at,
        };
        run_reader(
            &mut BufReader::with_capacity(4096, failing),
            window,
            false,
            pipeline,
        )
    };
    let (one, one_result) = read(false);
    let (two, two_result) = read(true);
    assert_eq!(one, two, "failing at {fail_at}");
    assert_eq!(
        one_result.unwrap_err().to_string(),
        two_result.unwrap_err().to_string()
    );
    one
}

/// The JSON Lines fixtures one after another, repeated past a few of the second
/// thread's batches.
fn many_json_lines() -> Vec<u8> {
    let mut one = Vec::new();
    for path in fixtures()
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
    {
        one.extend(std::fs::read(path).unwrap());
        if !one.ends_with(b"\n") {
            one.push(b'\n');
        }
    }
    assert!(one.len() > 5_000, "JSON Lines fixtures");
    one.repeat(1 + (600 << 10) / one.len())
}

/// JSON Lines read and parsed on a second thread (`Reader::with_pipeline`), in random
/// chunks through a small buffer: the records are those of one thread, in order.
#[test]
fn json_lines_parsed_on_a_second_thread_give_the_same_records() {
    let mut next = below(11);
    let mut inputs: Vec<(String, Vec<u8>)> = fixtures()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    inputs.push(("many".into(), many_json_lines()));
    for (name, data) in &inputs {
        let one = chunked_on_one_and_two_threads(data, &mut next, 0, name);
        // JSON of no known shape gives no record, by design.
        assert!(!one.is_empty() || name.contains("unknown-shape"), "{name}");
    }
}

/// A read error part way: both ways give the records before it, then the error.
#[test]
fn a_read_error_on_the_second_thread_ends_the_source_as_on_one() {
    let data = many_json_lines();
    for fail_at in [0, 1, 5_000, 200_000, data.len() / 2] {
        let records = fail_on_one_and_two_threads(&data, 0, fail_at);
        if fail_at >= 200_000 {
            assert!(!records.is_empty(), "records before the error at {fail_at}");
        }
    }
}

/// Every model fixture between runs of prose, with characters of two to four bytes, a
/// line longer than the windows, a WIL block and braces after white space at the start
/// of lines: what the windows of a long text are made of.
fn long_text_with_every_kind_of_line() -> Vec<u8> {
    let prose = "the model explains – how the tool works 😀 and what it returns\n".repeat(30);
    let mut text = Vec::new();
    for (k, path) in fixtures()
        .iter()
        .filter(|p| p.parent().unwrap().ends_with("models"))
        .enumerate()
    {
        text.extend(prose.as_bytes());
        match k % 4 {
            0 => text.extend("é".repeat(9000).as_bytes()),
            1 => text.extend(b"BEGIN WIL\ncreate window id w1 title \"Notes\"\nEND WIL"),
            2 => text.extend(b"  \n   {\"name\": \"f\", \"arguments\": {}}"),
            _ => {}
        }
        text.extend(b"\n");
        text.extend(std::fs::read(path).unwrap());
        text.extend(b"\n");
    }
    text
}

/// Long text read and swept on a second thread (`Reader::with_pipeline`), in random
/// chunks through a small buffer: the records are those of one thread, for windows of
/// every size around the pieces'.
#[test]
fn text_windows_read_on_a_second_thread_give_the_same_records() {
    let text = long_text_with_every_kind_of_line();
    let mut next = below(17);
    for window in (6000..6000 + 11 * 40).step_by(11) {
        let what = format!("window {window}");
        let one = chunked_on_one_and_two_threads(&text, &mut next, window, &what);
        assert!(one.len() > 60, "{what}: {} records", one.len());
    }
}

/// A read error part way through a long text: both ways give the records before it,
/// then the error.
#[test]
fn a_read_error_on_the_second_thread_ends_a_text_as_on_one() {
    let text = long_text_with_every_kind_of_line();
    for fail_at in [9000, 50_000, text.len() / 2, text.len() - 10] {
        let records = fail_on_one_and_two_threads(&text, 8000, fail_at);
        if fail_at >= 50_000 {
            assert!(!records.is_empty(), "records before the error at {fail_at}");
        }
    }
}

/// With --all, a call that lies whole inside a window is read once, as in a whole read,
/// even when the next window would otherwise start inside it: a hermes block quoted in
/// a Cline value is part of that value in every window (each call is shorter than the
/// windows' overlap, a quarter of these windows).
#[test]
fn a_window_never_starts_inside_a_call_read_whole() {
    let lines: String = (0..60).map(|i| format!("    line {i}\n")).collect();
    let text = prose_and_blocks("", 0x1234_5678_9ABC_DEF1, (40, 200_000), |k, _| {
        format!(
            "<write_to_file>\n<path>f{k}.md</path>\n<content>\n{lines}<tool_call>{{\"name\": \"quoted{k}\", \"arguments\": {{}}}}</tool_call>\n{lines}</content>\n</write_to_file>\n"
        )
    });
    // Each record's name and line: the records themselves are long.
    let brief = |records: Vec<String>| -> Vec<(String, u64)> {
        records
            .iter()
            .map(|r| {
                let v: serde_json::Value = serde_json::from_str(r).unwrap();
                (
                    v["name"].as_str().unwrap().to_owned(),
                    v["source"]["line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let whole = brief(calls_with(text.as_bytes(), Vec::new(), 1 << 16, 0, true));
    assert!(whole.len() > 50, "{} calls", whole.len());
    assert!(whole.iter().all(|(name, _)| name == "write_to_file"));
    for window in (16_384..16_384 + 37 * 40).step_by(37) {
        let got = brief(calls_with(text.as_bytes(), Vec::new(), 4096, window, true));
        assert_eq!(got, whole, "window {window}");
    }
}

/// Every text fixture, one after another in one text, read in windows: the calls are
/// those of a whole read wherever the cuts fall (windows at least four times the longest
/// line, so every line is shorter than the overlap). Broken JSON in one fixture (a call
/// cut off inside a string, an extra brace, a stray `]` in prose) must not make the
/// calls after it depend on where a window starts.
#[test]
fn window_edges_in_every_text_fixture_give_the_same_calls() {
    let mut text = Vec::new();
    for path in fixtures() {
        if path.extension().is_some_and(|e| e == "txt") {
            text.extend(std::fs::read(&path).unwrap());
            text.extend(b"\n");
        }
    }
    let longest = text.split(|&b| b == b'\n').map(<[u8]>::len).max().unwrap();
    let whole = calls_with(&text, Vec::new(), 1 << 16, 0, false);
    assert!(whole.len() > 80, "{} calls", whole.len());
    for window in (4 * longest + 1000..4 * longest + 1000 + 97 * 60).step_by(97) {
        let got = calls_with(&text, Vec::new(), 4096, window, false);
        if got != whole {
            let differ: Vec<_> = got
                .iter()
                .zip(&whole)
                .filter(|(a, b)| a != b)
                .take(2)
                .collect();
            panic!(
                "window {window}: {} calls, {} whole; first differences {differ:#?}",
                got.len(),
                whole.len()
            );
        }
    }
}

/// A reasoning region or a WIL block that opens at a window's start and runs on over
/// many windows: every later window is told it starts inside it, so its calls are
/// marked (or read) as in a whole read, with one thread and two.
#[test]
fn regions_open_across_many_windows_give_the_same_calls() {
    let call = |k: usize| {
        format!("<tool_call>\n{{\"name\": \"f\", \"arguments\": {{\"k\": {k}}}}}\n</tool_call>\n")
    };
    let wil = |k: usize| format!("create window id w{k} title \"t{k}\"\n");
    type Line<'a> = &'a dyn Fn(usize) -> String;
    let cases: [(&str, &str, Line); 6] = [
        ("<think>\n", "</think>\n", &call),
        ("<seed:think>", "</seed:think>\n", &call),
        ("<|open|>think<|sep|>\n", "<|close|>think<|sep|>\n", &call),
        ("<|channel|>analysis<|message|>", "<|end|>\n", &call),
        ("[THINK]", "[/THINK]\n", &call),
        ("BEGIN WIL\n", "END WIL\n", &wil),
    ];
    for (open, close, line) in cases {
        for closed in [false, true] {
            let mut text = String::from(open);
            for k in 0..400 {
                text.push_str(&format!(
                    "Paragraph {k} of prose, long enough to fill windows.\n"
                ));
                if k % 20 == 7 {
                    text.push_str(&line(k));
                }
            }
            if closed {
                text.push_str(close);
                // A call after the region, of the same channel as those inside it.
                if line(0) == call(0) {
                    text.push_str(&call(1000));
                } else {
                    text.push_str(&format!("{open}{}{close}", line(1000)));
                }
            }
            let whole = calls_with(text.as_bytes(), Vec::new(), 1 << 16, 0, false);
            assert_eq!(whole.len(), 20 + usize::from(closed), "{open}: {whole:#?}");
            if line(0) == call(0) {
                let inside = whole
                    .iter()
                    .filter(|c| c.contains(r#""in_reasoning":true"#));
                assert_eq!(inside.count(), 20, "{open} closed {closed}: {whole:#?}");
            }
            for window in (4000..4000 + 5 * 13).step_by(13) {
                for pipeline in [false, true] {
                    let mut input = BufReader::with_capacity(4096, text.as_bytes());
                    let (got, result) = run_reader(&mut input, window, false, pipeline);
                    result.unwrap();
                    assert_eq!(
                        got, whole,
                        "{open} closed {closed}, window {window}, pipeline {pipeline}"
                    );
                }
            }
        }
    }
}

/// Text with bytes that are not UTF-8 is measured as the text read (each bad byte
/// replaced by three), by one thread as by the second one's pieces: both cut the same
/// windows, so `-j 1` and `-j 2` cannot disagree on where a call falls.
#[test]
fn one_thread_and_two_cut_the_same_windows_of_text_with_bad_bytes() {
    let mut data = Vec::new();
    for k in 0..3000 {
        data.extend(format!("line {k} of text ").as_bytes());
        if k % 3 == 0 {
            data.extend(b"\xff\xfe\xff\xff\xc3(");
        }
        data.push(b'\n');
    }
    let cuts = |pipeline: bool| {
        let mut seen = Vec::new();
        let diag = Diag::new(true);
        let mut sink = |event| {
            if let toolsift::Event::Window(w) = event {
                seen.push((w.offset, w.text.text.len(), w.keep_before));
            }
            Ok(())
        };
        Reader::new("input", &diag, &mut sink)
            .with_window(5000)
            .with_pipeline(pipeline)
            .read(&mut &data[..], Framing::Text)
            .unwrap();
        seen
    };
    let one = cuts(false);
    assert!(one.len() > 10, "{} windows", one.len());
    assert_eq!(one, cuts(true));
}
