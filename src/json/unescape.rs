//! JSON string bodies decoded, with half a surrogate pair read as U+FFFD and noted.

use super::bytes::bytes_equal;

/// The text of a JSON string body (validated by the tape) with its escapes decoded;
/// `first` is the offset of the first backslash. Half a surrogate pair becomes U+FFFD
/// and sets `lossy`, for the caller to note where it belongs (the string's document, a
/// call's arguments); `None` only for an escape that is not hexadecimal.
pub(super) fn unescape(inner: &str, first: usize, lossy: &mut bool) -> Option<String> {
    let b = inner.as_bytes();
    // Built as a string from runs of the input cut at backslashes and whole characters,
    // so that it needs no UTF-8 check at the end.
    let mut out = String::with_capacity(b.len());
    out.push_str(&inner[..first]);
    let mut i = first;
    while i < b.len() {
        if b[i] != b'\\' {
            let end = next_backslash(b, i);
            out.push_str(&inner[i..end]);
            i = end;
            continue;
        }
        let c = match *b.get(i + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => {
                let hex = |at: usize| u32::from_str_radix(inner.get(at..at + 4)?, 16).ok();
                let unit = hex(i + 2)?;
                let low = inner[i + 6..]
                    .starts_with("\\u")
                    .then(|| hex(i + 8))
                    .flatten()
                    .filter(|low| (0xDC00..0xE000).contains(low));
                let (c, used) = match (char::from_u32(unit), low) {
                    (Some(c), _) => (c, 6),
                    // A surrogate pair.
                    (None, Some(low)) if (0xD800..0xDC00).contains(&unit) => {
                        let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        (char::from_u32(c)?, 12)
                    }
                    // Half a pair, which serde_json refuses and the tape lets through:
                    // read as U+FFFD, as lossy UTF-8 decoding does, and noted.
                    (None, _) => {
                        *lossy = true;
                        (char::REPLACEMENT_CHARACTER, 6)
                    }
                };
                out.push(c);
                i += used;
                continue;
            }
        };
        out.push(c);
        i += 2;
    }
    Some(out)
}

/// The offset of the first backslash at or after `i`, or the end. Escapes often come
/// every few bytes (JSON written inside a string): the first words are read eight
/// bytes at a time, and only a longer run is left to memchr.
#[inline(always)]
pub(super) fn next_backslash(b: &[u8], mut i: usize) -> usize {
    let words_end = (i + 32).min(b.len());
    while i + 8 <= words_end {
        let word = u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"));
        let found = bytes_equal(word, b'\\');
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    memchr::memchr(b'\\', &b[i..]).map_or(b.len(), |n| i + n)
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    #[test]
    fn strings_unescape_as_serde_json_does() {
        for t in [
            r#""plain""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9 \u6771 \ud83d\ude00 end""#,
            r#""\\""#,
            r#""x\u0041""#,
        ] {
            let parsed = Doc::parse(t).unwrap();
            let want: String = serde_json::from_str(t).unwrap();
            assert_eq!(parsed.root().str().unwrap(), want, "{t}");
            assert!(!parsed.lossy(), "{t}");
        }
        // Half a surrogate pair reads as U+FFFD, and is noted on its document.
        let parsed = Doc::parse(r#""\ud83d x \udc00 \ud83d\u0041""#).unwrap();
        assert!(!parsed.lossy());
        assert_eq!(
            parsed.root().str().unwrap(),
            "\u{fffd} x \u{fffd} \u{fffd}A"
        );
        assert!(parsed.lossy());
        let mut lossy = false;
        assert_eq!(
            unescape(r#"a\ud800"#, 1, &mut lossy).as_deref(),
            Some("a\u{fffd}")
        );
        assert!(lossy);
    }
}
