//! Byte offsets of a text mapped to the lines of its file.

/// Maps byte offsets of one text to 1-based line numbers.
pub(crate) struct LineIndex {
    /// Offsets of every `\n` in the text.
    newlines: Vec<usize>,
    /// Line number of the text's first line in its file.
    first_line: u64,
    /// For text made from another format (a YAML mapping written as JSON): offsets
    /// where a value starts, with its line in the original file, sorted by offset.
    anchors: Vec<(usize, u64)>,
}

impl LineIndex {
    pub(crate) fn new(text: &str, first_line: u64) -> LineIndex {
        LineIndex {
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
            first_line,
            anchors: Vec::new(),
        }
    }

    /// Every offset maps to `line`: for text whose own line breaks do not match its file
    /// (a YAML scalar, a re-serialized body).
    pub(crate) fn fixed(line: u64) -> LineIndex {
        LineIndex {
            newlines: Vec::new(),
            first_line: line,
            anchors: Vec::new(),
        }
    }

    /// Lines given by anchors: an offset gets the line of the last anchor at or before it.
    pub(crate) fn anchored(first_line: u64, anchors: Vec<(usize, u64)>) -> LineIndex {
        LineIndex {
            newlines: Vec::new(),
            first_line,
            anchors,
        }
    }

    pub(crate) fn line(&self, offset: usize) -> u64 {
        if !self.anchors.is_empty() {
            let i = self.anchors.partition_point(|&(at, _)| at <= offset);
            return match i {
                0 => self.first_line,
                i => self.anchors[i - 1].1,
            };
        }
        self.first_line + self.newlines.partition_point(|&nl| nl < offset) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    #[test]
    fn offsets_and_lines_follow_the_source() {
        let doc = "{\n  \"a\": [1,\n {\"b\": \"x\\ny\"}],\n  \"c\": null\n}\n";
        let parsed = Doc::parse(doc).unwrap();
        let root = parsed.root();
        let obj = root.object().unwrap();
        let a = obj.arr("a").unwrap();
        let inner = a[1].object().unwrap();
        let lines = LineIndex::new(doc, 1);
        assert_eq!(lines.line(a[1].offset()), 3);
        assert_eq!(inner.str("b").unwrap(), "x\ny");
        assert!(obj.get("c").unwrap().is_null());
        assert_eq!(lines.line(root.offset()), 1);
    }
}
