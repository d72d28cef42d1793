//! Byte-level searches of the JSON readers: the bytes that end a run of string content,
//! found sixteen or eight at a time.

/// The first byte at or after `i` that ends a run of plain string content: `"`, `\\`
/// or a control character (not allowed raw).
#[inline(always)]
pub(super) fn next_string_byte(s: &[u8], mut i: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // Sixteen bytes at a time (SSE2, which every x86-64 has); long strings, such
        // as message texts, thirty-two.
        while i + 32 <= s.len() {
            let (a, b) = s[i..i + 32].split_at(16);
            let (a, b) = (string_bytes_in_16(a), string_bytes_in_16(b));
            if a | b != 0 {
                let found = if a != 0 {
                    a.trailing_zeros()
                } else {
                    16 + b.trailing_zeros()
                };
                return Some(i + found as usize);
            }
            i += 32;
        }
        if i + 16 <= s.len() {
            let found = string_bytes_in_16(&s[i..i + 16]);
            if found != 0 {
                return Some(i + found.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    while i + 8 <= s.len() {
        let word = u64::from_le_bytes(s[i..i + 8].try_into().expect("eight bytes"));
        let found = string_bytes_in(word);
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s.get(i..)?
        .iter()
        .position(|&b| STRING_BYTE[b as usize] != 0)
        .map(|n| i + n)
}

/// A bit for each of the sixteen bytes that is `"`, `\\` or below 0x20.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn string_bytes_in_16(bytes: &[u8]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert!(bytes.len() >= 16);
    // SAFETY: reads the first sixteen bytes of `bytes`, which has at least that many
    // (the load has no alignment requirement); SSE2 is part of x86-64.
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // Unsigned: max(b, 0x1f) is 0x1f exactly for the bytes up to 0x1f.
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

/// The high bit of each byte of `word` that is `"`, `\\` or below 0x20; the lowest set
/// bit is exact (higher ones may be false alarms after it).
#[inline]
pub(super) fn string_bytes_in(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    bytes_equal(word, b'"') | bytes_equal(word, b'\\') | control
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (eight bytes read little-endian) that equals
/// `byte`; the lowest set bit is exact, higher ones may be false alarms after it. The
/// word-at-a-time searches of the JSON readers are built from it.
#[inline]
pub(crate) fn bytes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGH
}

pub(super) static STRING_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = 1;
        b += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_bytes_are_found_wherever_they_sit() {
        // Each special byte at every offset, in strings shorter and longer than the
        // word-at-a-time part, with plain ASCII and UTF-8 before it.
        for special in [b'"', b'\\', b'\n', 0x01, 0x1f] {
            for fill in ["a", "é"] {
                for at in 0..150 {
                    let mut s = fill.repeat(at).into_bytes();
                    let pos = s.len();
                    s.push(special);
                    s.extend_from_slice(b"tail\"\\\x02");
                    for from in [0, 1, 7, 8, 9].into_iter().filter(|&f| f <= pos) {
                        let naive = s[from..]
                            .iter()
                            .position(|&b| STRING_BYTE[b as usize] != 0)
                            .map(|n| from + n);
                        assert_eq!(next_string_byte(&s, from), naive, "{special} at {at}");
                        assert_eq!(naive, Some(pos));
                    }
                }
            }
        }
        assert_eq!(next_string_byte(b"no end here at all, none", 0), None);
        assert_eq!(next_string_byte(&[b'x'; 200], 3), None);
        assert_eq!(next_string_byte(b"", 0), None);
        // 0x7f and bytes above 0x80 are content.
        assert_eq!(next_string_byte(b"\x7f\xff\x80\xc3\xa9abc\"", 0), Some(8));
        // Every byte value, in each lane of the sixteen- and eight-byte steps.
        for byte in 0..=255u8 {
            let special = byte < 0x20 || byte == b'"' || byte == b'\\';
            for at in 0..70 {
                let mut s = vec![b' '; 70];
                s[at] = byte;
                let want = special.then_some(at);
                assert_eq!(next_string_byte(&s, 0), want, "byte {byte:#x} at {at}");
            }
        }
    }
}
