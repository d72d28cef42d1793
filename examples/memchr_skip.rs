//! The floor for scanning text: read a file in 4 MiB blocks (one reused buffer) and
//! visit every byte that could open a call (`{`, `[`, `<`) with memchr, doing nothing
//! else. `bench/run` compares `toolsift extract` on text with no calls against this.

use std::io::Read;

fn main() {
    let path = std::env::args().nth(1).expect("usage: memchr_skip FILE");
    let mut file = std::fs::File::open(&path).expect("readable file");
    let mut buf = vec![0u8; 4 << 20];
    let mut openers = 0usize;
    loop {
        let n = file.read(&mut buf).expect("readable file");
        if n == 0 {
            break;
        }
        openers += memchr::memchr3_iter(b'{', b'[', b'<', &buf[..n]).count();
    }
    println!("{openers}");
}
