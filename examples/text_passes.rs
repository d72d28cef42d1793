//! The passes toolsift makes over plain text with no call, and nothing else: read the
//! file in 4 MiB blocks (one reused buffer), check UTF-8, visit every `{`, `[`, `<`,
//! look for `WIL` and `wil`, count line breaks. Compared with `memchr_skip` (the floor)
//! and `toolsift extract` on the same file, it shows how much of toolsift's time on
//! such text is these passes (see BENCHMARKS.md, "Text without calls at 1 GB").

use std::io::Read;

fn main() {
    let path = std::env::args().nth(1).expect("usage: text_passes FILE");
    let mut file = std::fs::File::open(&path).expect("readable file");
    let mut buf = vec![0u8; 4 << 20];
    let (mut openers, mut lines, mut wil, mut utf8) = (0usize, 0usize, false, true);
    loop {
        let n = file.read(&mut buf).expect("readable file");
        if n == 0 {
            break;
        }
        let block = &buf[..n];
        // As toolsift checks: simdutf8 first, std only to describe an error. A block
        // may end inside a character: only an error before its last bytes counts.
        utf8 &= simdutf8::basic::from_utf8(block).is_ok()
            || std::str::from_utf8(block).is_err_and(|e| e.error_len().is_none());
        openers += memchr::memchr3_iter(b'{', b'[', b'<', block).count();
        wil |= memchr::memmem::find(block, b"WIL").is_some()
            || memchr::memmem::find(block, b"wil").is_some();
        lines += memchr::memchr_iter(b'\n', block).count();
    }
    println!("{openers} openers, {lines} lines, WIL {wil}, UTF-8 {utf8}");
}
