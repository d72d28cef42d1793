//! The floor for scanning text: read a file and visit every byte that could open a
//! call (`{`, `[`, `<`) with memchr, doing nothing else. `bench/run` compares
//! `toolsift extract` on text with no calls against this.

use std::io::Read;

fn main() {
    let path = std::env::args().nth(1).expect("usage: memchr_skip FILE");
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .expect("readable file");
    let openers = memchr::memchr3_iter(b'{', b'[', b'<', &bytes).count();
    println!("{openers}");
}
