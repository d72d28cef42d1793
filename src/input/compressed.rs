//! Compressed inputs: gzip, zstd, bzip2 and xz, told by their first bytes (never by the
//! file's name) and decoded as they are read, so the line and window bounds of the
//! reader apply to the decoded text as they do to a plain file.
//!
//! Concatenated members (`cat a.gz b.gz`, `pbzip2`, `pzstd` and `xz -T` output) are all
//! read. Corrupt or cut-off data is a read error that names the format; a read error of
//! the file itself is passed on as it came.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};

/// A compression format of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    Gzip,
    Zstd,
    Bzip2,
    Xz,
}

impl Compression {
    /// What the format is called in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }
}

/// The longest magic looked at: bzip2's `BZh` and level digit, then the magic of its
/// first block (or of its end, for an empty stream).
const PROBE: usize = 10;

/// The memory an xz block's dictionary may take, in KiB: 256 MiB, four times that of
/// `xz -9`. A file that asks for more is an error rather than an allocation that large.
const XZ_MEMORY_KIB: u32 = 256 << 10;

/// The format whose magic `head` (the first bytes of an input) starts with.
pub(crate) fn sniff(head: &[u8]) -> Option<Compression> {
    const BZIP2_BLOCK: &[u8] = &[0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
    const BZIP2_END: &[u8] = &[0x17, 0x72, 0x45, 0x38, 0x50, 0x90];
    if head.starts_with(&[0x1f, 0x8b, 0x08]) {
        Some(Compression::Gzip)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
        // A skippable frame first, as `pzstd` writes.
        || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
    {
        Some(Compression::Zstd)
    } else if head.starts_with(&[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) {
        Some(Compression::Xz)
    } else if head.len() >= PROBE
        && head.starts_with(b"BZh")
        && matches!(head[3], b'1'..=b'9')
        && (&head[4..PROBE] == BZIP2_BLOCK || &head[4..PROBE] == BZIP2_END)
    {
        Some(Compression::Bzip2)
    } else {
        None
    }
}

/// Opens `input` for reading: compressed data is given back decoded, as it is read,
/// with the format found; anything else is given back as it is. Only a decoder that
/// cannot be set up is an error; a read error while looking at the first bytes comes
/// again from the input given back.
pub(crate) fn open(
    mut input: Box<dyn BufRead + Send>,
) -> io::Result<(Box<dyn BufRead + Send>, Option<Compression>)> {
    let head = match input.fill_buf() {
        Ok(head) => head,
        Err(_) => return Ok((input, None)),
    };
    if head.len() >= PROBE || head.is_empty() {
        let Some(found) = sniff(head) else {
            return Ok((input, None));
        };
        return decode(input, found).map(|input| (input, Some(found)));
    }
    // A pipe may give the first bytes a few at a time: gather enough to tell.
    let mut prefix = Vec::with_capacity(PROBE);
    while prefix.len() < PROBE {
        match input.fill_buf() {
            Ok([]) => break,
            Ok(bytes) => {
                let n = bytes.len().min(PROBE - prefix.len());
                prefix.extend_from_slice(&bytes[..n]);
                input.consume(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // Given again by the input, after the bytes read so far.
            Err(_) => break,
        }
    }
    let found = sniff(&prefix);
    let input: Box<dyn BufRead + Send> = Box::new(io::Cursor::new(prefix).chain(input));
    match found {
        Some(found) => decode(input, found).map(|input| (input, Some(found))),
        None => Ok((input, None)),
    }
}

/// The decoded text of `input`, read in blocks as large as those of a plain file.
fn decode(
    input: Box<dyn BufRead + Send>,
    format: Compression,
) -> io::Result<Box<dyn BufRead + Send>> {
    let source = Source(input);
    let decoder: Box<dyn Read + Send> = match format {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(source)),
        // Frames after the first are read too; windows over 128 MiB are refused.
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(source)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(source)),
        Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(
            source,
            true,
            XZ_MEMORY_KIB,
        )),
    };
    Ok(Box::new(BufReader::with_capacity(
        256 * 1024,
        Decoded { decoder, format },
    )))
}

/// A read error of the compressed input itself, told apart from bad data.
#[derive(Debug)]
struct SourceError(io::Error);

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {}

fn source_error(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::Interrupted {
        return e;
    }
    io::Error::new(e.kind(), SourceError(e))
}

/// The compressed input, its read errors marked as such.
struct Source(Box<dyn BufRead + Send>);

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(source_error)
    }
}

impl BufRead for Source {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.0.fill_buf().map_err(source_error)
    }

    fn consume(&mut self, amount: usize) {
        self.0.consume(amount);
    }
}

/// A decoder whose errors say what was wrong: the data (named by its format), or the
/// reading of it (passed on as it came).
struct Decoded {
    decoder: Box<dyn Read + Send>,
    format: Compression,
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.decoder.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                return e;
            }
            if e.get_ref().is_some_and(|inner| inner.is::<SourceError>()) {
                return match e.into_inner().map(|inner| inner.downcast::<SourceError>()) {
                    Some(Ok(source)) => source.0,
                    _ => io::Error::other("read error"),
                };
            }
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} data is cut off or corrupt: {e}", self.format.name()),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"{\"a\":1}\n{\"b\":2}\n";

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn read_all(input: Box<dyn BufRead + Send>) -> (io::Result<Vec<u8>>, Option<Compression>) {
        let (mut input, found) = open(input).unwrap();
        let mut out = Vec::new();
        (input.read_to_end(&mut out).map(|_| out), found)
    }

    fn boxed(bytes: Vec<u8>) -> Box<dyn BufRead + Send> {
        Box::new(io::Cursor::new(bytes))
    }

    /// Gives its bytes one at a time, as a slow pipe may.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.1 == self.0.len() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[self.1];
            self.1 += 1;
            Ok(1)
        }
    }

    #[test]
    fn magic_bytes_are_told() {
        assert_eq!(sniff(&gzip(b"x")), Some(Compression::Gzip));
        assert_eq!(sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Some(Compression::Zstd));
        assert_eq!(sniff(&[0x50, 0x2a, 0x4d, 0x18, 0]), Some(Compression::Zstd));
        assert_eq!(sniff(b"\xfd7zXZ\0\0\x04"), Some(Compression::Xz));
        assert_eq!(sniff(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(sniff(b"BZh9\x17rE8P\x90"), Some(Compression::Bzip2));
        assert_eq!(sniff(b"BZh9 is text"), None);
        assert_eq!(sniff(b"\x1f\x8b"), None);
        assert_eq!(sniff(TEXT), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn plain_text_is_given_back_as_it_is() {
        let (out, found) = read_all(boxed(TEXT.to_vec()));
        assert_eq!(found, None);
        assert_eq!(out.unwrap(), TEXT);
        let (out, found) = read_all(boxed(b"{}".to_vec()));
        assert_eq!((out.unwrap(), found), (b"{}".to_vec(), None));
        let (out, found) = read_all(boxed(Vec::new()));
        assert_eq!((out.unwrap(), found), (Vec::new(), None));
    }

    /// The name is not looked at: a `.gz` holding text is text.
    #[test]
    fn a_gz_name_holding_text_is_read_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl.gz");
        std::fs::write(&path, TEXT).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let (out, found) = read_all(Box::new(BufReader::new(file)));
        assert_eq!(found, None);
        assert_eq!(out.unwrap(), TEXT);
    }

    #[test]
    fn gzip_members_are_all_read() {
        let mut data = gzip(b"{\"a\":1}\n");
        data.extend(gzip(b"{\"b\":2}\n"));
        let (out, found) = read_all(boxed(data));
        assert_eq!(found, Some(Compression::Gzip));
        assert_eq!(out.unwrap(), TEXT);
    }

    #[test]
    fn magic_given_a_byte_at_a_time_is_told() {
        let input = BufReader::new(Trickle(gzip(TEXT), 0));
        let (out, found) = read_all(Box::new(input));
        assert_eq!(found, Some(Compression::Gzip));
        assert_eq!(out.unwrap(), TEXT);
        let input = BufReader::new(Trickle(b"{}\n".to_vec(), 0));
        let (out, found) = read_all(Box::new(input));
        assert_eq!((out.unwrap(), found), (b"{}\n".to_vec(), None));
    }

    #[test]
    fn cut_off_data_is_an_error_naming_the_format() {
        let data = gzip(&TEXT.repeat(100));
        let (out, _) = read_all(boxed(data[..data.len() - 10].to_vec()));
        let e = out.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string()
                .starts_with("gzip data is cut off or corrupt: "),
            "{e}"
        );
    }

    #[test]
    fn corrupt_data_is_an_error_naming_the_format() {
        let mut data = gzip(&TEXT.repeat(100));
        let n = data.len();
        data[n / 2] ^= 0xff;
        data[n - 6] ^= 0xff;
        let (out, _) = read_all(boxed(data));
        assert!(
            out.unwrap_err()
                .to_string()
                .starts_with("gzip data is cut off or corrupt: ")
        );
        for (magic, name) in [
            (&b"\x28\xb5\x2f\xfd\xff\xff\xff\xff\xff\xff"[..], "zstd"),
            (b"\xfd7zXZ\0\xff\xff\xff\xff", "xz"),
            (b"BZh91AY&SY\xff\xff", "bzip2"),
        ] {
            let (out, found) = read_all(boxed(magic.to_vec()));
            assert_eq!(found.map(Compression::name), Some(name));
            let e = out.unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{name} data is cut off or corrupt: ")),
                "{e}"
            );
        }
    }

    /// Every fixture cut at every length, and with bytes changed, is read to its end or
    /// to an error: never a panic, never a hang.
    #[test]
    fn cut_or_changed_data_never_panics() {
        let fixtures: [&[u8]; 4] = [
            include_bytes!("../../fixtures/compressed/rollout.jsonl.gz"),
            include_bytes!("../../fixtures/compressed/rollout.jsonl.zst"),
            include_bytes!("../../fixtures/compressed/rollout.jsonl.bz2"),
            include_bytes!("../../fixtures/compressed/rollout.jsonl.xz"),
        ];
        let plain = include_bytes!("../../fixtures/codex/rollout.jsonl");
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for data in fixtures {
            let (out, found) = read_all(boxed(data.to_vec()));
            assert!(found.is_some());
            assert_eq!(out.unwrap(), plain);
            for cut in 0..data.len() {
                let (out, _) = read_all(boxed(data[..cut].to_vec()));
                assert!(cut < 10 || out.is_err(), "cut at {cut} read as whole");
            }
            for _ in 0..300 {
                let mut changed = data.to_vec();
                for _ in 0..3 {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let at = 6 + (seed as usize) % (changed.len() - 6);
                    changed[at] = (seed >> 32) as u8;
                }
                let _ = read_all(boxed(changed));
            }
        }
    }

    /// A read error of the file itself is not called bad data.
    #[test]
    fn a_read_error_of_the_input_is_passed_on() {
        struct Failing(Vec<u8>, bool);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.1 {
                    return Err(io::Error::other("disk on fire"));
                }
                self.1 = true;
                let n = self.0.len().min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                Ok(n)
            }
        }
        let data = gzip(&TEXT.repeat(1000));
        let input = BufReader::with_capacity(16, Failing(data, false));
        let (out, found) = read_all(Box::new(input));
        assert_eq!(found, Some(Compression::Gzip));
        assert_eq!(out.unwrap_err().to_string(), "disk on fire");
    }
}
