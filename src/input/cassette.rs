//! VCR cassettes (vcrpy, pytest-recording, pydantic-ai): YAML with `interactions[]`,
//! each a request and a response whose body is a string (JSON or SSE text) or a parsed
//! mapping. pydantic-ai records xAI's gRPC traffic in the same frame (`*.xai.yaml`):
//! `request_sample`/`response_sample` with the protobuf message as JSON under `json`,
//! streams as `request_stream`/`response_stream` with `chunks_json[].chunk`; the
//! protobuf bytes beside them (`raw`, `chunks_raw`) say nothing more. Read with yaml-rust2's event parser so every body keeps its line. A body
//! recorded as bytes (`!!binary`, base64) is decoded per the response's
//! `Content-Encoding` (gzip, deflate, br).

use base64::Engine as _;
use serde_json::{Map, Number, Value};
use std::io::Read;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// One body to read, with the line it starts on.
pub(crate) struct Body {
    pub(crate) text: String,
    pub(crate) line: u64,
    /// For a body made from a YAML mapping: JSON offsets with their YAML lines.
    pub(crate) anchors: Vec<(usize, u64)>,
    /// For SSE text: the YAML line of each `data:` line of the body, in order.
    pub(crate) data_lines: Vec<u64>,
    /// A `!!binary` body: its bytes still to decode (see [`Body::decode`]).
    pub(crate) binary: Option<Binary>,
    /// The body's line breaks are the file's, from `line` on (a saved HTTP message); a
    /// YAML scalar's are not.
    pub(crate) raw: bool,
}

/// The bytes of a `!!binary` body and the encodings they were sent in.
pub(crate) struct Binary {
    base64: String,
    /// `Content-Encoding` values in the order they were applied.
    encodings: Vec<String>,
}

/// The most a decoded body may hold: a small gzip body can inflate to gigabytes.
pub(crate) const MAX_DECODED: u64 = 64 << 20;

impl Binary {
    /// The body as text: base64, then each content encoding undone, last applied first;
    /// an AWS event stream becomes JSON Lines. With it, a warning about a part that could
    /// not be read.
    pub(crate) fn decode(&self) -> Result<(String, Option<String>), String> {
        let compact: Vec<u8> = self
            .base64
            .bytes()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        let mut bytes = base64::engine::general_purpose::STANDARD
            .decode(&compact)
            .map_err(|e| format!("!!binary body is not valid base64 ({e})"))?;
        let mut encodings: Vec<&str> = self.encodings.iter().map(String::as_str).collect();
        // No header, but gzip's magic bytes: the header was not recorded.
        if encodings.is_empty() && bytes.starts_with(&[0x1f, 0x8b]) {
            encodings.push("gzip");
        }
        for encoding in encodings.iter().rev() {
            bytes = decompress(&bytes, encoding)?;
        }
        if super::eventstream::looks_like(&bytes) {
            return Ok(super::eventstream::to_json_lines(&bytes));
        }
        Ok((
            match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            },
            None,
        ))
    }
}

fn decompress(bytes: &[u8], encoding: &str) -> Result<Vec<u8>, String> {
    let limited = |reader: &mut dyn Read| -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        reader
            .take(MAX_DECODED + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("corrupt {encoding} body ({e}); calls in it are not read"))?;
        if out.len() as u64 > MAX_DECODED {
            return Err(format!(
                "{encoding} body decodes to more than {} MiB; calls in it are not read",
                MAX_DECODED >> 20
            ));
        }
        Ok(out)
    };
    match encoding {
        "gzip" | "x-gzip" => limited(&mut flate2::read::MultiGzDecoder::new(bytes)),
        // HTTP's deflate is zlib-wrapped, but some servers send raw deflate.
        "deflate" => limited(&mut flate2::read::ZlibDecoder::new(bytes))
            .or_else(|_| limited(&mut flate2::read::DeflateDecoder::new(bytes))),
        "br" => limited(&mut brotli_decompressor::Decompressor::new(bytes, 4096)),
        "identity" | "" => Ok(bytes.to_vec()),
        other => Err(format!(
            "body in content encoding {other:?}, which toolsift does not decode; calls in it are not read"
        )),
    }
}

pub(crate) struct Interaction {
    pub(crate) request: Vec<Body>,
    pub(crate) response: Vec<Body>,
}

pub(crate) struct YamlError {
    pub(crate) line: u64,
    pub(crate) message: String,
}

/// Whether text is a cassette rather than prose: `interactions:` at the top, perhaps
/// after a `---` document marker.
pub(crate) fn looks_like_cassette(text: &str) -> bool {
    let mut lines = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let mut first = lines.next();
    if first == Some("---") {
        first = lines.next();
    }
    // A few top-level scalars may come first (pydantic-ai's xAI cassettes: `version: 1`).
    for _ in 0..MAX_LEADING_SCALARS {
        match first {
            Some(l) if l.starts_with("interactions:") => return true,
            Some(l) if is_top_level_scalar(l) => first = lines.next(),
            _ => return false,
        }
    }
    first.is_some_and(|l| l.starts_with("interactions:"))
}

/// How many top-level `key: value` lines may stand before `interactions:`.
const MAX_LEADING_SCALARS: usize = 4;

/// A line `key: value` at the top level of a YAML mapping, the value a plain scalar.
fn is_top_level_scalar(line: &str) -> bool {
    let Some((key, value)) = line.split_once(": ") else {
        return false;
    };
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !value.trim().is_empty()
        && !value
            .trim_start()
            .starts_with(['|', '>', '&', '*', '!', '[', '{'])
}

/// A YAML node with the line it starts on.
enum Node {
    Scalar(String, TScalarStyle, u64),
    /// A `!!binary` scalar: its base64 text.
    Binary(String, u64),
    Seq(Vec<Node>, u64),
    Map(Vec<(String, Node)>, u64),
}

impl Node {
    fn line(&self) -> u64 {
        match self {
            Node::Scalar(_, _, l) | Node::Binary(_, l) | Node::Seq(_, l) | Node::Map(_, l) => *l,
        }
    }

    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries, _) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Writes the node as JSON text, noting where each mapping and sequence starts.
    fn write_json(&self, out: &mut String, anchors: &mut Vec<(usize, u64)>) {
        match self {
            Node::Scalar(..) | Node::Binary(..) => out.push_str(&self.to_json().to_string()),
            Node::Seq(items, line) => {
                anchors.push((out.len(), *line));
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out, anchors);
                }
                out.push(']');
            }
            Node::Map(entries, line) => {
                anchors.push((out.len(), *line));
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    v.write_json(out, anchors);
                }
                out.push('}');
            }
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Node::Scalar(s, TScalarStyle::Plain, _) => plain_scalar(s),
            Node::Scalar(s, _, _) => Value::String(s.clone()),
            Node::Binary(..) => Value::Null,
            Node::Seq(items, _) => Value::Array(items.iter().map(Node::to_json).collect()),
            Node::Map(entries, _) => {
                let mut map = Map::new();
                for (k, v) in entries {
                    map.insert(k.clone(), v.to_json());
                }
                Value::Object(map)
            }
        }
    }
}

/// YAML 1.2 core schema for unquoted scalars.
fn plain_scalar(s: &str) -> Value {
    match s {
        "null" | "Null" | "NULL" | "~" | "" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => {
            if let Ok(i) = s.parse::<i64>() {
                Value::Number(i.into())
            } else if let Some(n) = s
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .and_then(Number::from_f64)
            {
                Value::Number(n)
            } else {
                Value::String(s.to_owned())
            }
        }
    }
}

/// Builds nodes from parser events.
#[derive(Default)]
struct Builder {
    stack: Vec<(Node, Option<String>)>,
    root: Option<Node>,
}

impl Builder {
    fn push_value(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some((Node::Seq(items, _), _)) => items.push(node),
            Some((Node::Map(entries, _), key)) => match key.take() {
                Some(k) => entries.push((k, node)),
                None => {
                    *key = Some(match node {
                        Node::Scalar(s, _, _) => s,
                        other => other.to_json().to_string(),
                    })
                }
            },
            Some((Node::Scalar(..) | Node::Binary(..), _)) => {}
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = mark.line() as u64;
        match ev {
            Event::Scalar(value, _, _, Some(tag)) if tag.suffix == "binary" => {
                self.push_value(Node::Binary(value, line));
            }
            Event::Scalar(value, style, _, tag) => {
                let style = if tag.is_some_and(|t| t.suffix == "str") {
                    TScalarStyle::DoubleQuoted
                } else {
                    style
                };
                self.push_value(Node::Scalar(value, style, line));
            }
            Event::SequenceStart(..) => self.stack.push((Node::Seq(Vec::new(), line), None)),
            Event::MappingStart(..) => self.stack.push((Node::Map(Vec::new(), line), None)),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((node, _)) = self.stack.pop() {
                    self.push_value(node);
                }
            }
            Event::Alias(_) => {
                self.push_value(Node::Scalar(String::new(), TScalarStyle::Plain, line))
            }
            _ => {}
        }
    }
}

pub(crate) fn parse(text: &str) -> Result<Vec<Interaction>, YamlError> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    parser.load(&mut builder, false).map_err(|e| YamlError {
        line: e.marker().line() as u64,
        message: e.info().to_owned(),
    })?;
    let Some(root) = builder.root else {
        return Ok(Vec::new());
    };
    let Some(Node::Seq(items, _)) = root.get("interactions") else {
        return Err(YamlError {
            line: 1,
            message: "no interactions list; expected a VCR cassette".into(),
        });
    };
    let source: Vec<&str> = text.lines().collect();
    let side = |i: &Node, keys: &[&str]| -> Vec<Body> {
        keys.iter()
            .filter_map(|k| i.get(k))
            .flat_map(|s| bodies(s, &source))
            .collect()
    };
    Ok(items
        .iter()
        .map(|i| Interaction {
            request: side(i, &["request", "request_sample", "request_stream"]),
            response: side(i, &["response", "response_sample", "response_stream"]),
        })
        .collect())
}

/// A YAML mapping as a JSON body, with the lines of its values.
fn mapping_body(parsed: &Node) -> Body {
    let mut text = String::new();
    let mut anchors = Vec::new();
    parsed.write_json(&mut text, &mut anchors);
    Body {
        text,
        line: parsed.line(),
        anchors,
        data_lines: Vec::new(),
        binary: None,
        raw: false,
    }
}

/// Keys of a `body` mapping that frames raw bytes rather than being the JSON body: vcrpy's
/// `string`, Ruby VCR's `encoding` and `base64_string`.
const RAW_BODY_KEYS: [&str; 3] = ["string", "encoding", "base64_string"];

/// The bodies of a request or response: `body` (a string, a mapping with `string`, a
/// mapping `{type, content}` whose `content` is the JSON body as a mapping, or the JSON
/// body itself as a mapping), `parsed_body` (a YAML mapping of the JSON body), and xAI's
/// `json` (a message) and `chunks_json` (a stream, each `chunk` a body).
fn bodies(side: &Node, source: &[&str]) -> Vec<Body> {
    let mut out = Vec::new();
    for key in ["parsed_body", "json"] {
        if let Some(parsed) = side.get(key) {
            out.push(mapping_body(parsed));
        }
    }
    if let Some(Node::Seq(chunks, _)) = side.get("chunks_json") {
        for chunk in chunks {
            if let Some(parsed @ Node::Map(..)) = chunk.get("chunk") {
                out.push(mapping_body(parsed));
            }
        }
    }
    let scalar = match side.get("body") {
        Some(s @ Node::Scalar(..)) => Some(s),
        Some(body @ Node::Map(..)) => match (body.get("string"), body.get("content")) {
            (Some(s), _) => Some(s),
            (None, Some(content @ Node::Map(..))) if body.get("type").is_some() => {
                out.push(mapping_body(content));
                None
            }
            _ if RAW_BODY_KEYS.iter().all(|k| body.get(k).is_none()) => {
                out.push(mapping_body(body));
                None
            }
            _ => None,
        },
        Some(b @ Node::Binary(..)) => Some(b),
        _ => None,
    };
    match scalar {
        Some(Node::Scalar(s, _, line)) => out.push(Body {
            text: s.clone(),
            line: *line,
            anchors: Vec::new(),
            data_lines: data_lines(s, *line, source),
            binary: None,
            raw: false,
        }),
        Some(Node::Binary(base64, line)) => out.push(Body {
            text: String::new(),
            line: *line,
            anchors: Vec::new(),
            data_lines: Vec::new(),
            binary: Some(Binary {
                base64: base64.clone(),
                encodings: content_encodings(side),
            }),
            raw: false,
        }),
        _ => {}
    }
    out
}

/// The `Content-Encoding` values of a request or response, in the order applied. Header
/// names are matched in any case; a value may be a list (vcrpy) or a scalar.
fn content_encodings(side: &Node) -> Vec<String> {
    let Some(Node::Map(headers, _)) = side.get("headers") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, value) in headers {
        if !name.eq_ignore_ascii_case("content-encoding") {
            continue;
        }
        let values = match value {
            Node::Seq(items, _) => items.iter().collect(),
            other => vec![other],
        };
        for v in values {
            if let Node::Scalar(s, _, _) = v {
                out.extend(
                    s.split(',')
                        .map(|e| e.trim().to_ascii_lowercase())
                        .filter(|e| !e.is_empty()),
                );
            }
        }
    }
    out
}

/// The YAML lines of an SSE body's `data:` lines. The scalar's own line breaks do not
/// match the file's (quoted scalars fold them), but each `data:` line of the value
/// starts a line of the file, in the same order.
fn data_lines(value: &str, line: u64, source: &[&str]) -> Vec<u64> {
    let wanted = value
        .lines()
        .filter(|l| l.trim_start().starts_with("data:"))
        .count();
    if wanted == 0 {
        return Vec::new();
    }
    let mut found = Vec::with_capacity(wanted);
    for (i, text) in source
        .iter()
        .enumerate()
        .skip(line.saturating_sub(1) as usize)
    {
        let t = text.trim_start();
        let t = t.strip_prefix("string:").map(str::trim_start).unwrap_or(t);
        let t = t
            .trim_start_matches(['\'', '"', '|', '-', '>'])
            .trim_start();
        if t.starts_with("data:") {
            found.push(i as u64 + 1);
            if found.len() == wanted {
                return found;
            }
        }
    }
    // The file does not show them as expected: one line for the whole body.
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bodies_with_their_lines() {
        let text = "interactions:\n- request:\n    body: '{\"a\": 1}'\n  response:\n    body:\n      string: 'data: {\"x\": 1}\n\n\n        data: [DONE]\n\n        '\n";
        let got = parse(text).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].request[0].text, "{\"a\": 1}");
        assert_eq!(got[0].response[0].line, 6);
        assert!(got[0].response[0].text.contains("data: [DONE]"));
    }

    #[test]
    fn parsed_bodies_become_json() {
        let text = "interactions:\n- response:\n    parsed_body:\n      n: 3\n      s: '3'\n      ok: true\n";
        let got = parse(text).ok().unwrap();
        assert_eq!(got[0].response[0].text, r#"{"n":3,"s":"3","ok":true}"#);
    }

    #[test]
    fn mapping_bodies_are_json() {
        // A request body recorded as the JSON body's own mapping, and a response body
        // as `{type: json, content: <mapping>}`; a Ruby VCR `base64_string` body is no
        // JSON mapping.
        let text = "interactions:\n- request:\n    body:\n      model: m\n      stream: false\n  response:\n    body:\n      type: json\n      content:\n        id: r\n- response:\n    body:\n      encoding: ASCII-8BIT\n      base64_string: e30=\n";
        let got = parse(text).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(got[0].request[0].text, r#"{"model":"m","stream":false}"#);
        assert_eq!(got[0].request[0].line, 4);
        assert_eq!(got[0].response[0].text, r#"{"id":"r"}"#);
        assert_eq!(got[0].response[0].line, 10);
        assert!(got[1].response.is_empty());
    }

    #[test]
    fn xai_samples_and_chunks_are_bodies() {
        let text = "version: 1\ninteractions:\n- request_sample:\n    json:\n      model: grok\n    raw: !!binary |\n      CgA=\n  response_stream:\n    chunks_json:\n    - chunk:\n        id: a\n    - chunk:\n        id: b\n    chunks_raw:\n";
        assert!(looks_like_cassette(text));
        let Ok(interactions) = parse(text) else {
            panic!("not read")
        };
        let texts =
            |bodies: &[Body]| -> Vec<String> { bodies.iter().map(|b| b.text.clone()).collect() };
        assert_eq!(texts(&interactions[0].request), [r#"{"model":"grok"}"#]);
        assert_eq!(
            texts(&interactions[0].response),
            [r#"{"id":"a"}"#, r#"{"id":"b"}"#]
        );
        assert!(interactions[0].request.iter().all(|b| b.binary.is_none()));
        assert!(!looks_like_cassette("version: 1\nname: x\nitems:\n"));
        assert!(!looks_like_cassette("version: |\n  1\ninteractions:\n"));
    }

    #[test]
    fn detection_needs_interactions_at_the_top() {
        assert!(looks_like_cassette("---\ninteractions:\n"));
        assert!(!looks_like_cassette("---\nparent: x\n---\n# aider chat"));
    }
}
