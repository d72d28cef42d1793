//! VCR cassette bodies recorded as bytes (`!!binary`): a brotli body's calls are found,
//! a corrupt gzip or brotli body is one warning naming the file and line while the rest
//! of the cassette is still read, and a body that decodes beyond the 64 MiB cap is a
//! warning, read no further than the cap.

use crate::common;

use crate::common::{records, toolsift};
use base64::Engine as _;
use std::io::Write as _;

/// An OpenAI chat completion with one call (`get_weather`, id `call_br_1`, arguments
/// `{"city": "Zürich"}`), compressed with Python's `brotli` module at quality 11. Made
/// for this test, not a recording.
const BROTLI_BODY: &str = "Gw4BQBwHdqNPSx5GPhlpLcbDrw1TlZcVtJqinnxUxxicY8ja8Yt3uFh0LHfiD0a/35KKCqL/39qilhxGAabwoLrZC0MgfN24B5vPpRCj8/7V4XgmAKSd53cIigHdro2W48iN08Ydl/GKZt03k+VRIkhzlYB7rXE8UZKFCXiwkA703e/1fv0D10ELagXiXcxdseRkUKTMLXvzUCO8Xzl8pG0J";

/// One interaction whose response body is `base64` as `!!binary`, sent in `encoding`.
/// The body's text starts on the interaction's 7th line.
fn binary_interaction(encoding: &str, base64: &str) -> String {
    let mut lines = String::new();
    for chunk in base64.as_bytes().chunks(76) {
        lines.push_str("        ");
        lines.push_str(std::str::from_utf8(chunk).unwrap());
        lines.push('\n');
    }
    format!(
        "- request:\n    body: '{{}}'\n    method: POST\n  response:\n    body:\n      string: !!binary |\n{lines}    headers:\n      Content-Encoding:\n      - {encoding}\n    status:\n      code: 200\n"
    )
}

/// An interaction whose response is a plain JSON string body with one call, `ping`.
fn plain_interaction() -> String {
    concat!(
        "- request:\n    body: '{}'\n    method: POST\n  response:\n    body:\n      string: '",
        r#"{"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "call_p", "type": "function", "function": {"name": "ping", "arguments": "{}"}}]}}]}"#,
        "'\n    status:\n      code: 200\n",
    )
    .to_owned()
}

fn write_cassette(interactions: &[String]) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    file.write_all(b"interactions:\n").unwrap();
    for i in interactions {
        file.write_all(i.as_bytes()).unwrap();
    }
    file.write_all(b"version: 1\n").unwrap();
    file.flush().unwrap();
    file
}

/// (name, id, line) of each call record.
fn calls(stdout: &[u8]) -> Vec<(String, Option<String>, u64)> {
    records(stdout)
        .iter()
        .map(|r| {
            (
                r.name().unwrap().to_owned(),
                r.id().map(str::to_owned),
                r.line(),
            )
        })
        .collect()
}

#[test]
fn a_brotli_body_is_decoded_and_its_call_found() {
    let file = write_cassette(&[binary_interaction("br", BROTLI_BODY)]);
    let out = toolsift().arg("extract").arg(file.path()).output().unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The line of a `!!binary` body is the line of the body itself (line 8 of the file).
    assert_eq!(
        calls(&out.stdout),
        [("get_weather".to_owned(), Some("call_br_1".to_owned()), 8)]
    );
    let record: serde_json::Value =
        serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(record["arguments"], serde_json::json!({"city": "Zürich"}));
    assert_eq!(record["dialect"], "openai");
}

#[test]
fn corrupt_compressed_bodies_are_one_warning_each_and_the_rest_is_read() {
    let engine = base64::engine::general_purpose::STANDARD;
    // A gzip member whose deflate data is cut short, and a brotli body cut in half.
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&[b'{'; 4096]).unwrap();
    let gzip = gzip.finish().unwrap();
    let gzip = engine.encode(&gzip[..gzip.len() / 2]);
    let brotli = engine.decode(BROTLI_BODY).unwrap();
    let brotli = engine.encode(&brotli[..brotli.len() / 2]);
    let interactions = [
        plain_interaction(),
        binary_interaction("gzip", &gzip),
        binary_interaction("br", &brotli),
        binary_interaction("br", BROTLI_BODY),
    ];
    // The cassette's first interaction starts on line 2; a body's text starts on the
    // interaction's 7th line.
    let lines_of = |i: &String| i.lines().count();
    let start = |k: usize| 2 + interactions[..k].iter().map(lines_of).sum::<usize>() + 6;
    let file = write_cassette(&interactions);
    let out = toolsift().arg("extract").arg(file.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let path = file.path().display();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    assert!(
        warnings[0].starts_with(&format!(
            "toolsift: {path}:{}: corrupt gzip body (",
            start(1)
        )),
        "{stderr}"
    );
    assert!(
        warnings[1].starts_with(&format!("toolsift: {path}:{}: corrupt br body (", start(2))),
        "{stderr}"
    );
    for w in &warnings {
        assert!(w.ends_with("); calls in it are not read"), "{w}");
    }
    // The calls before and after the corrupt bodies are read.
    assert_eq!(
        calls(&out.stdout),
        [
            ("ping".to_owned(), Some("call_p".to_owned()), 7),
            (
                "get_weather".to_owned(),
                Some("call_br_1".to_owned()),
                start(3) as u64
            ),
        ]
    );
}

/// A gzip body of 1 GiB of zeros in 1,024 members of 1 MiB (1 MB compressed).
fn gzip_bomb() -> Vec<u8> {
    let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    member.write_all(&vec![0u8; 1 << 20]).unwrap();
    let member = member.finish().unwrap();
    member.repeat(1024)
}

#[cfg(unix)]
#[test]
// The child is reaped by `wait4`, which std's `wait` cannot replace: it gives the usage.
#[allow(clippy::zombie_processes)]
fn a_body_beyond_the_cap_is_a_warning_and_is_not_read_past_it() {
    use std::os::unix::process::ExitStatusExt as _;
    let bomb = base64::engine::general_purpose::STANDARD.encode(gzip_bomb());
    let file = write_cassette(&[binary_interaction("gzip", &bomb), plain_interaction()]);
    // Under `/usr/bin/time` when there is one: a child reaped here would carry over, at
    // `exec`, the peak of this process (the one test binary, whose other tests may have
    // held hundreds of MB); `time` reports that of its own child.
    let report = tempfile::NamedTempFile::new().unwrap();
    let (mut cmd, timed) = common::under_time(env!("CARGO_BIN_EXE_toolsift"), report.path());
    let child = cmd
        .arg("extract")
        .arg(file.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // Read the outputs on threads (they are small), then reap the child with wait4 for
    // its own peak resident size.
    let mut stdout = child.stdout.unwrap();
    let mut stderr = child.stderr.unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).unwrap();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut v).unwrap();
        v
    });
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    let status = std::process::ExitStatus::from_raw(status);
    let stdout = out.join().unwrap();
    let stderr = String::from_utf8(err.join().unwrap()).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let want = format!(
        "toolsift: {}:8: gzip body decodes to more than 64 MiB; calls in it are not read\n",
        file.path().display()
    );
    assert_eq!(stderr, want);
    // The next interaction is still read.
    assert_eq!(names(&stdout), ["ping"]);
    // In KiB on Linux, from `time` (its last line) or the reaped child. Decoding stops at
    // the cap (64 MiB and one byte), so the process stays far below the 1 GiB the body
    // would inflate to.
    let kib = if timed {
        common::time_peak_kib(report.path()).expect("/usr/bin/time reports the peak in KiB")
    } else {
        usage.ru_maxrss as u64
    };
    let peak_mib = kib / 1024;
    assert!(peak_mib < 400, "peak resident size {peak_mib} MiB");
}

fn names(stdout: &[u8]) -> Vec<String> {
    records(stdout)
        .iter()
        .filter_map(|r| r.name().map(str::to_owned))
        .collect()
}

/// Saved HTTP messages (`curl -i` output, an httprr trace): each response body is read
/// as its content is (a JSON document, SSE, JSON Lines), with the file's own lines.
#[test]
fn saved_http_messages_are_read_body_by_body() {
    let sse = concat!(
        "HTTP/1.1 200 OK\r\n",
        "content-type: text/event-stream\r\n",
        "\r\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_s\",\"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\"\"}}]}}]}\n",
        "\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"q\\\": \\\"rust\\\"}\"}}]}}]}\n",
        "\n",
        "data: [DONE]\n",
        "\n",
        "HTTP/1.1 200 OK\r\n",
        "Content-Type: application/x-ndjson\r\n",
        "\r\n",
        "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"get_time\",\"arguments\":{\"tz\":\"UTC\"}}}]},\"done\":false}\n",
        "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true}\n",
    );
    let out = toolsift().arg("extract").write_stdin(sse).output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<(String, String, u64)> = records(&out.stdout)
        .iter()
        .map(|r| {
            (
                r.name().unwrap().to_owned(),
                match r {
                    common::Record::Call { arguments, .. } => {
                        serde_json::to_string(arguments).unwrap()
                    }
                    _ => String::new(),
                },
                r.line(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("search".into(), r#"{"q":"rust"}"#.into(), 4),
            ("get_time".into(), r#"{"tz":"UTC"}"#.into(), 13),
        ]
    );
    // A compressed body cannot be read from text: one warning naming its line.
    let gzip = "HTTP/1.1 200 OK\nContent-Encoding: gzip\nContent-Length: 4\n\nabcd";
    let out = toolsift()
        .arg("extract")
        .write_stdin(gzip)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolsift: -:5: gzip body of a saved HTTP message not decoded; calls in it are not read\n"
    );
}

/// One frame of AWS's binary event stream: string headers, a payload, CRCs left zero.
fn event_frame(event: &str, payload: &str) -> Vec<u8> {
    let mut headers = Vec::new();
    for (name, value) in [
        (":event-type", event),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ] {
        headers.push(name.len() as u8);
        headers.extend(name.as_bytes());
        headers.push(7);
        headers.extend((value.len() as u16).to_be_bytes());
        headers.extend(value.as_bytes());
    }
    let total = 16 + headers.len() + payload.len();
    let mut out = Vec::new();
    out.extend((total as u32).to_be_bytes());
    out.extend((headers.len() as u32).to_be_bytes());
    out.extend([0; 4]);
    out.extend(headers);
    out.extend(payload.as_bytes());
    out.extend([0; 4]);
    out
}

/// A Bedrock ConverseStream response recorded as `!!binary` (the event stream): its
/// calls are assembled from their pieces; a stream cut off inside a frame keeps what
/// came before and says where it broke.
#[test]
fn bedrock_event_streams_in_cassettes_are_read() {
    let mut stream = Vec::new();
    for (event, payload) in [
        ("messageStart", r#"{"p":"abc","role":"assistant"}"#),
        (
            "contentBlockStart",
            r#"{"contentBlockIndex":0,"p":"abcd","start":{"toolUse":{"name":"get_capital","toolUseId":"tooluse_Zx1"}}}"#,
        ),
        (
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"country\": "}},"p":"ab"}"#,
        ),
        (
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"toolUse":{"input":"\"France\"}"}},"p":"abcdef"}"#,
        ),
        ("contentBlockStop", r#"{"contentBlockIndex":0,"p":"a"}"#),
        ("messageStop", r#"{"p":"abcdefg","stopReason":"tool_use"}"#),
    ] {
        stream.extend(event_frame(event, payload));
    }
    let cassette = |bytes: &[u8]| {
        let base64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        let mut lines = String::new();
        for chunk in base64.as_bytes().chunks(76) {
            lines.push_str("        ");
            lines.push_str(std::str::from_utf8(chunk).unwrap());
            lines.push('\n');
        }
        format!(
            "interactions:\n- request:\n    body: '{{}}'\n  response:\n    body:\n      string: !!binary |\n{lines}    headers:\n      Content-Type:\n      - application/vnd.amazon.eventstream\n    status:\n      code: 200\n"
        )
    };
    let out = toolsift()
        .arg("extract")
        .write_stdin(cassette(&stream))
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<(String, Option<String>, String)> = records(&out.stdout)
        .iter()
        .map(|r| match r {
            common::Record::Call {
                name,
                id,
                arguments,
                ..
            } => (
                name.clone(),
                id.clone(),
                serde_json::to_string(arguments).unwrap(),
            ),
            _ => panic!("only calls"),
        })
        .collect();
    assert_eq!(
        got,
        [(
            "get_capital".to_owned(),
            Some("tooluse_Zx1".to_owned()),
            r#"{"country":"France"}"#.to_owned()
        )]
    );
    // Cut inside the last frame: the call's frames stand, and one warning names the body.
    let out = toolsift()
        .arg("extract")
        .write_stdin(cassette(&stream[..stream.len() - 10]))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(records(&out.stdout).len(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("toolsift: -:7: event stream broken at byte "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_recorded_bedrock_converse_stream_gives_its_call_with_the_streamed_input() {
    // Real recording (fixtures/corpus/SOURCES.md): the input arrives in a
    // contentBlockDelta frame after the toolUse start; without assembling the frames
    // the call had `{}` arguments.
    let out = toolsift()
        .args([
            "extract",
            "fixtures/corpus/bedrock/pydantic-ai-bedrock-converse-stream-iter.first.yaml",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let records: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["name"], "get_capital");
    assert_eq!(
        records[0]["arguments"],
        serde_json::json!({"country": "France"})
    );
    assert_eq!(records[0]["dialect"], "bedrock-stream");
}
