//! Reading JSON values into the transcript model exactly, or with a clear error: what
//! `convert`'s readers and the provider formats' readers share.

use super::model::{CallPart, Extra, Raw};
use crate::json::{Kind, Node, Obj};
use anyhow::{Result, bail};

/// A value read as text, or a clear error: a string that cannot be kept exactly (a lone
/// surrogate) fails the file rather than being changed.
pub(crate) fn text(node: &Node, what: &str) -> Result<String> {
    if has_lone_surrogate(node.text()) {
        bail!(
            "{what}: a string holds a lone surrogate, which cannot be kept exactly: {}",
            clip(node.text())
        );
    }
    match node.str() {
        Some(s) => Ok(s.into_owned()),
        None if node.kind() == Kind::String => bail!(
            "{what}: a string that cannot be kept exactly (a lone surrogate or a bad escape): {}",
            clip(node.text())
        ),
        None => bail!("{what}: expected a string, found {}", clip(node.text())),
    }
}

/// Whether a JSON string as written holds half a surrogate pair (`"\ud800"`), which
/// no Rust string can hold: decoding would change it.
pub(crate) fn has_lone_surrogate(written: &str) -> bool {
    let bytes = written.as_bytes();
    let mut from = 0;
    while let Some(n) = memchr::memmem::find(&bytes[from..], b"\\u") {
        let at = from + n;
        from = at + 2;
        // An escaped backslash before it makes it text, not an escape.
        let backslashes = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 1 {
            continue;
        }
        let hex = |i: usize| {
            written
                .get(i..i + 4)
                .and_then(|h| u16::from_str_radix(h, 16).ok())
        };
        let Some(unit) = hex(at + 2) else { continue };
        if (0xDC00..0xE000).contains(&unit) {
            return true;
        }
        if (0xD800..0xDC00).contains(&unit) {
            let low = written
                .get(at + 6..at + 8)
                .filter(|p| *p == "\\u")
                .and_then(|_| hex(at + 8));
            if !low.is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                return true;
            }
            from = at + 12;
        }
    }
    false
}

pub(crate) fn clip(s: &str) -> String {
    let mut end = s.len().min(60);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    if end < s.len() {
        format!("{}…", &s[..end])
    } else {
        s.to_owned()
    }
}

pub(crate) fn raw(node: &Node) -> Raw {
    Raw::new(node.text())
}

/// The members of `obj` not in `known`, as written.
pub(crate) fn extra_of(obj: &Obj, known: &[&str]) -> Extra {
    obj.iter()
        .filter(|(k, _)| !known.contains(&k.as_ref()))
        .map(|(k, v)| (k.into_owned(), raw(&v)))
        .collect()
}

/// Arguments given as JSON text in a string (OpenAI, Responses): an object is kept as
/// its text; anything else as `arguments_raw`, with `{}`.
pub(crate) fn set_string_arguments(call: &mut CallPart, node: &Node) -> Result<()> {
    match node.kind() {
        Kind::Object => call.arguments = Raw::compact(node.text()),
        Kind::Null => {}
        Kind::String => {
            let s = text(node, "arguments")?;
            set_arguments_text(call, s);
        }
        _ => call.arguments_raw = Some(node.text().to_owned()),
    }
    Ok(())
}

/// Arguments as JSON text: kept when it is one object (or one encoded twice), else as
/// `arguments_raw`.
pub(crate) fn set_arguments_text(call: &mut CallPart, s: String) {
    let trimmed = s.trim();
    if trimmed.is_empty() {
        if !s.is_empty() {
            call.arguments_raw = Some(s);
        }
        return;
    }
    if trimmed.starts_with('{') && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok() {
        if trimmed.len() == s.len() {
            call.arguments = Raw(s);
        } else {
            // Surrounding white space is not part of the object: keep the text whole
            // so that a JSON-string target writes it back as it was.
            call.arguments = Raw::new(trimmed);
            call.arguments_raw = Some(s);
        }
    } else if let Some(object) = crate::model::double_encoded_object(trimmed) {
        // An object encoded twice is the object, as extract reads it; the text is kept
        // whole so that a JSON-string target writes it back as it was.
        call.arguments = Raw::new(object.trim());
        call.arguments_raw = Some(s);
    } else {
        call.arguments_raw = Some(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_encoded_twice_are_the_object_and_keep_their_text() {
        // As extract repairs them (`double-encoded`): the object, here with its text.
        for (text, object) in [
            (
                r#""{\"location\": \"current\"}""#,
                r#"{"location": "current"}"#,
            ),
            (r#""\"{\\\"a\\\":1}\"""#, r#"{"a":1}"#),
        ] {
            let mut call = CallPart::new("f", Raw::empty_object());
            set_arguments_text(&mut call, text.to_owned());
            assert_eq!(call.arguments.as_str(), object, "{text}");
            assert_eq!(call.arguments_raw.as_deref(), Some(text));
            assert_eq!(call.arguments_text(), text);
        }
        // A string that holds no object is text that is not one.
        let mut call = CallPart::new("f", Raw::empty_object());
        set_arguments_text(&mut call, r#""[1]""#.to_owned());
        assert_eq!(call.arguments.as_str(), "{}");
        assert_eq!(call.arguments_raw.as_deref(), Some(r#""[1]""#));
    }

    #[test]
    fn lone_surrogates_are_found_and_pairs_are_not() {
        for lone in [
            r#""\ud800""#,
            r#""a\uDC00b""#,
            r#""\ud83d\u0041""#,
            r#""x\ud83d""#,
        ] {
            assert!(has_lone_surrogate(lone), "{lone}");
        }
        for fine in [
            r#""\ud83d\ude00""#,
            r#""\\ud800""#,
            r#""\u00e9""#,
            r#""plain""#,
        ] {
            assert!(!has_lone_surrogate(fine), "{fine}");
        }
    }
}
