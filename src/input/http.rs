//! HTTP exchanges saved as they went over the wire: Go `httprr` traces (`httprr trace
//! v1`, then per exchange a `REQUEST_LEN RESPONSE_LEN` line and both messages), `curl -i`
//! output and other raw captures. Each message's body is read as a cassette's is:
//! request bodies replay history, response bodies hold the calls.

use super::cassette::{Body, Interaction};

const HTTPRR: &str = "httprr trace v1\n";

/// Which message a start line opens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Request,
    Response,
}

/// Whether `text` starts like saved HTTP messages.
pub(super) fn looks_like_http(text: &str) -> bool {
    let mut pos = text.strip_prefix(HTTPRR).map_or(0, |_| HTTPRR.len());
    if record_header(line_at(text, pos)) {
        pos = next_line(text, pos);
    }
    start_line(line_at(text, pos)).is_some()
}

/// The exchanges of `text`, and warnings (file line, message) about bodies that cannot
/// be read as text. What follows the last message that can be read is left out.
pub(super) fn parse(text: &str) -> (Vec<Interaction>, Vec<(u64, String)>) {
    let mut lines = LineCounter::default();
    let mut pos = text.strip_prefix(HTTPRR).map_or(0, |_| HTTPRR.len());
    let mut out: Vec<Interaction> = Vec::new();
    let mut warnings = Vec::new();
    loop {
        // Blank lines and httprr's record headers between messages.
        while pos < text.len() {
            let line = line_at(text, pos);
            if line.trim().is_empty() || record_header(line) {
                pos = next_line(text, pos);
            } else {
                break;
            }
        }
        let Some(side) = start_line(line_at(text, pos)) else {
            break;
        };
        pos = next_line(text, pos);
        let mut length = None;
        let mut chunked = false;
        let mut encoding = None;
        while pos < text.len() {
            let line = line_at(text, pos).trim_end_matches('\r');
            pos = next_line(text, pos);
            if line.is_empty() {
                break;
            }
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.to_ascii_lowercase().contains("chunked");
            } else if name.eq_ignore_ascii_case("content-encoding")
                && !value.eq_ignore_ascii_case("identity")
            {
                encoding = Some(value.to_owned());
            }
        }
        let end = match length {
            // A length that does not fall on a character (a capture whose bytes were
            // changed) ends at the character before.
            Some(n) if !chunked => floor_boundary(text, pos.saturating_add(n).min(text.len())),
            _ => next_message(text, pos),
        };
        let line = lines.line_of(text, pos);
        let raw = &text[pos..end];
        let body_text = if chunked {
            dechunk(raw)
        } else {
            raw.to_owned()
        };
        pos = end;
        if side == Side::Request {
            out.push(Interaction {
                request: Vec::new(),
                response: Vec::new(),
            });
        } else if out.last().is_none_or(|i| !i.response.is_empty()) {
            // A response with no request saved before it (`curl -i` output).
            out.push(Interaction {
                request: Vec::new(),
                response: Vec::new(),
            });
        }
        if let Some(encoding) = encoding {
            if !body_text.trim().is_empty() {
                warnings.push((
                    line,
                    format!("{encoding} body of a saved HTTP message not decoded; calls in it are not read"),
                ));
            }
            continue;
        }
        let body = Body {
            data_lines: data_lines(&body_text, line),
            text: body_text,
            line,
            anchors: Vec::new(),
            binary: None,
            raw: !chunked,
        };
        let exchange = out.last_mut().expect("pushed above");
        match side {
            Side::Request => exchange.request.push(body),
            Side::Response => exchange.response.push(body),
        }
    }
    (out, warnings)
}

/// The line of `text` that starts at `pos`, without its line break.
fn line_at(text: &str, pos: usize) -> &str {
    let rest = &text[pos.min(text.len())..];
    &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())]
}

/// Where the line after the one at `pos` starts (the end of the text if none).
fn next_line(text: &str, pos: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[pos.min(text.len())..])
        .map_or(text.len(), |n| pos + n + 1)
}

/// httprr's `REQUEST_LEN RESPONSE_LEN` line.
fn record_header(line: &str) -> bool {
    let mut parts = line.trim_end_matches('\r').split(' ');
    let number =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    number(parts.next()) && number(parts.next()) && parts.next().is_none()
}

/// `HTTP/1.1 200 OK` or `POST /v1/chat/completions HTTP/1.1`.
fn start_line(line: &str) -> Option<Side> {
    let line = line.trim_end_matches('\r');
    let version = |v: &str| {
        v.strip_prefix("HTTP/")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    };
    let mut words = line.split(' ');
    let first = words.next()?;
    if version(first) {
        let status = words.next()?;
        return (status.len() == 3 && status.bytes().all(|b| b.is_ascii_digit()))
            .then_some(Side::Response);
    }
    const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
    let target = words.next()?;
    (METHODS.contains(&first)
        && !target.is_empty()
        && words.next().is_some_and(version)
        && words.next().is_none())
    .then_some(Side::Request)
}

/// Where a body with no length ends: at the next line that starts a message (or an
/// httprr record header before one), else at the end of the text.
fn next_message(text: &str, from: usize) -> usize {
    let mut pos = from;
    while pos < text.len() {
        let line = line_at(text, pos);
        if start_line(line).is_some()
            || (record_header(line) && start_line(line_at(text, next_line(text, pos))).is_some())
        {
            return pos;
        }
        pos = next_line(text, pos);
    }
    text.len()
}

/// A chunked body's data: each chunk is its size in hex on a line, the bytes, and a line
/// break; size 0 ends it. What does not follow that form is kept as it stands.
fn dechunk(raw: &str) -> String {
    let mut out = String::new();
    let mut pos = 0;
    while pos < raw.len() {
        let size_line = line_at(raw, pos).trim_end_matches('\r');
        let size = size_line.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size, 16) else {
            out.push_str(&raw[pos..]);
            break;
        };
        if size == 0 {
            break;
        }
        let start = next_line(raw, pos);
        let end = floor_boundary(raw, start.saturating_add(size).min(raw.len()));
        out.push_str(&raw[start..end]);
        pos = end;
        // The line break after the chunk's bytes.
        pos += raw[pos..]
            .bytes()
            .take_while(|&b| b == b'\r' || b == b'\n')
            .take(2)
            .count();
    }
    out
}

/// The largest character boundary at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The file line of each `data:` line of an SSE body that starts on `line`.
fn data_lines(body: &str, line: u64) -> Vec<u64> {
    body.split('\n')
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("data:"))
        .map(|(i, _)| line + i as u64)
        .collect()
}

/// Counts line breaks once, front to back: the line of each later offset.
#[derive(Default)]
struct LineCounter {
    at: usize,
    breaks: u64,
}

impl LineCounter {
    fn line_of(&mut self, text: &str, pos: usize) -> u64 {
        self.breaks += memchr::memchr_iter(b'\n', &text.as_bytes()[self.at..pos]).count() as u64;
        self.at = pos;
        self.breaks + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_lines_and_record_headers() {
        assert_eq!(start_line("HTTP/1.1 200 OK\r"), Some(Side::Response));
        assert_eq!(start_line("HTTP/2 404"), Some(Side::Response));
        assert_eq!(start_line("POST /api/chat HTTP/1.1"), Some(Side::Request));
        assert_eq!(
            start_line("POST https://x/api HTTP/2.0\r"),
            Some(Side::Request)
        );
        for no in [
            "HTTP/1.1 OK",
            "post /a HTTP/1.1",
            "GET /a",
            "The HTTP/1.1 200 answer",
        ] {
            assert_eq!(start_line(no), None, "{no}");
        }
        assert!(record_header("601 950"));
        assert!(!record_header("601"));
        assert!(!record_header("601 950 1"));
    }

    #[test]
    fn an_httprr_trace_gives_its_bodies_with_their_lines() {
        let request = "{\"messages\": []}";
        let response = "{\"message\": {\"tool_calls\": []}}";
        let req = format!(
            "POST /api/chat HTTP/1.1\r\nContent-Length: {}\r\n\r\n{request}",
            request.len()
        );
        let resp = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{response}",
            response.len()
        );
        let text = format!("{HTTPRR}{} {}\n{req}{resp}", req.len(), resp.len());
        assert!(looks_like_http(&text));
        let (exchanges, warnings) = parse(&text);
        assert!(warnings.is_empty());
        assert_eq!(exchanges.len(), 1);
        assert_eq!(exchanges[0].request[0].text, request);
        assert_eq!(exchanges[0].request[0].line, 6);
        // The response starts glued to the request's body, as httprr writes it.
        assert_eq!(exchanges[0].response[0].text, response);
        assert_eq!(exchanges[0].response[0].line, 9);
    }

    #[test]
    fn curl_output_with_a_chunked_stream_and_no_length() {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n7\r\ndata: 1\r\n9\r\n\n\ndata: 2\r\n0\r\n\r\nHTTP/1.1 200 OK\ncontent-type: application/json\n\n{\"a\": 1}\n";
        let (exchanges, _) = parse(text);
        assert_eq!(exchanges.len(), 2);
        assert_eq!(exchanges[0].response[0].text, "data: 1\n\ndata: 2");
        assert_eq!(exchanges[1].response[0].text, "{\"a\": 1}\n");
        assert_eq!(exchanges[1].response[0].line, 16);
    }

    #[test]
    fn compressed_bodies_are_named() {
        let text = "HTTP/1.1 200 OK\nContent-Encoding: gzip\n\nxx\n";
        let (_, warnings) = parse(text);
        assert_eq!(
            warnings,
            [(
                4,
                "gzip body of a saved HTTP message not decoded; calls in it are not read"
                    .to_owned()
            )]
        );
    }
}
