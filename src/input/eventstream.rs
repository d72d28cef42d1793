//! AWS's binary event stream (`application/vnd.amazon.eventstream`), as Bedrock's
//! ConverseStream sends it and VCR cassettes record it as `!!binary`: each frame becomes
//! a JSON line `{"<event type>": <payload>}`, the shape the SDKs give the same events.
//!
//! A frame: total length (u32, big-endian), headers length (u32), prelude CRC (u32),
//! headers, payload, message CRC (u32). A header: name length (u8), name, value type
//! (u8), value.

/// Whether `bytes` start with an event-stream frame: plausible lengths, and a first
/// header whose name starts with `:` (`:event-type`, `:content-type`, `:message-type`).
pub(super) fn looks_like(bytes: &[u8]) -> bool {
    let (Some(total), Some(headers)) = (be32(bytes, 0), be32(bytes, 4)) else {
        return false;
    };
    (16..=bytes.len()).contains(&total)
        && headers + 16 <= total
        && headers > 2
        && bytes.get(13) == Some(&b':')
}

/// The frames as JSON Lines, and an error naming the offset where the frames broke off
/// (lengths that run past the end, a frame with no event type), if they did: the lines
/// before it stand.
pub(super) fn to_json_lines(bytes: &[u8]) -> (String, Option<String>) {
    let mut out = String::new();
    let mut at = 0;
    while at < bytes.len() {
        let broken = |what: &str| {
            format!("event stream broken at byte {at} ({what}); calls after it are not read")
        };
        let (Some(total), Some(headers_len)) = (be32(bytes, at), be32(bytes, at + 4)) else {
            return (out, Some(broken("a frame's prelude is cut short")));
        };
        if total < 16 || headers_len + 16 > total || at + total > bytes.len() {
            return (out, Some(broken("a frame's lengths do not fit")));
        }
        let headers = &bytes[at + 12..at + 12 + headers_len];
        let payload = &bytes[at + 12 + headers_len..at + total - 4];
        let Some(event_type) =
            header(headers, ":event-type").or_else(|| header(headers, ":exception-type"))
        else {
            return (out, Some(broken("a frame names no event type")));
        };
        out.push('{');
        out.push_str(&serde_json::Value::String(event_type).to_string());
        out.push(':');
        match serde_json::from_slice::<&serde_json::value::RawValue>(payload) {
            Ok(raw) => out.push_str(raw.get()),
            // Not JSON: kept as a string, so nothing of it is lost.
            Err(_) => out.push_str(
                &serde_json::Value::String(String::from_utf8_lossy(payload).into_owned())
                    .to_string(),
            ),
        }
        out.push_str("}\n");
        at += total;
    }
    (out, None)
}

fn be32(bytes: &[u8], at: usize) -> Option<usize> {
    let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
    Some(u32::from_be_bytes(b) as usize)
}

/// The string value of header `name`, if the headers can be read that far.
fn header(mut headers: &[u8], name: &str) -> Option<String> {
    while let Some((&len, rest)) = headers.split_first() {
        let key = rest.get(..len as usize)?;
        let (&kind, rest) = rest.get(len as usize..)?.split_first()?;
        let size = match kind {
            0 | 1 => 0,
            2 => 1,
            3 => 2,
            4 => 4,
            5 | 8 => 8,
            9 => 16,
            6 | 7 => 2 + u16::from_be_bytes(rest.get(..2)?.try_into().ok()?) as usize,
            _ => return None,
        };
        let value = rest.get(..size)?;
        if kind == 7 && key == name.as_bytes() {
            return Some(String::from_utf8_lossy(&value[2..]).into_owned());
        }
        headers = &rest[size..];
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One frame with the given string headers and payload (CRCs left zero: they are not
    /// checked).
    pub(crate) fn frame(headers: &[(&str, &str)], payload: &str) -> Vec<u8> {
        let mut h = Vec::new();
        for (name, value) in headers {
            h.push(name.len() as u8);
            h.extend(name.as_bytes());
            h.push(7);
            h.extend((value.len() as u16).to_be_bytes());
            h.extend(value.as_bytes());
        }
        let total = 16 + h.len() + payload.len();
        let mut out = Vec::new();
        out.extend((total as u32).to_be_bytes());
        out.extend((h.len() as u32).to_be_bytes());
        out.extend([0; 4]);
        out.extend(h);
        out.extend(payload.as_bytes());
        out.extend([0; 4]);
        out
    }

    #[test]
    fn frames_become_json_lines() {
        let mut bytes = frame(
            &[
                (":event-type", "contentBlockDelta"),
                (":message-type", "event"),
            ],
            r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\""}}}"#,
        );
        bytes.extend(frame(
            &[(":event-type", "messageStop")],
            r#"{"stopReason":"tool_use"}"#,
        ));
        assert!(looks_like(&bytes));
        assert_eq!(
            to_json_lines(&bytes),
            (
            "{\"contentBlockDelta\":{\"contentBlockIndex\":1,\"delta\":{\"toolUse\":{\"input\":\"{\\\"a\\\"\"}}}}\n{\"messageStop\":{\"stopReason\":\"tool_use\"}}\n".to_owned(),
                None
            )
        );
        // Cut short: the frames before stand, and an error names where.
        let (lines, error) = to_json_lines(&bytes[..bytes.len() - 3]);
        assert_eq!(lines.lines().count(), 1);
        assert!(error.unwrap().contains("broken at byte"));
        assert!(!looks_like(b"{\"a\": 1}"));
        assert!(!looks_like(&[
            0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ]));
    }
}
