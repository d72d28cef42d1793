//! One input's documents: a whole JSON document, or JSON Lines with one conversation
//! per line (an OpenAI fine-tuning file converts line by line).

use anyhow::{Result, bail};

pub struct Framed<'a> {
    pub docs: Vec<Doc<'a>>,
    /// The input was JSON Lines: the output is too.
    jsonl: bool,
}

impl Framed<'_> {
    pub fn lines(&self) -> bool {
        self.jsonl
    }
}

/// One document and the line it starts on.
pub struct Doc<'a> {
    pub text: &'a str,
    pub line: u64,
}

pub fn frame(text: &str) -> Result<Framed<'_>> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        bail!("not a JSON document or JSON Lines: convert reads message-shaped JSON");
    }
    // A value that ends on its first line, followed by more values, is JSON Lines.
    let first_line = text
        .split('\n')
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let one_line = serde_json::from_str::<serde::de::IgnoredAny>(first_line.trim()).is_ok();
    if !one_line || serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        return Ok(Framed {
            docs: vec![Doc { text, line: 1 }],
            jsonl: false,
        });
    }
    let mut docs = Vec::new();
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        docs.push(Doc {
            text: line,
            line: n as u64 + 1,
        });
    }
    Ok(Framed { docs, jsonl: true })
}
