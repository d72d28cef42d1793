//! Gemini's streamed arguments: a `functionCall`'s `partialArgs` over several chunks.

use super::{Kind, Pending, Stream};
use crate::json::Obj;
use serde_json::Value;

impl Stream {
    pub(crate) fn gemini_partial(name: String, line: u64, key: Option<u64>) -> Stream {
        let mut s = Stream::new(Kind::GeminiPartial, line);
        let mut p = Pending::new(line);
        p.name = name;
        s.calls.push_back(p);
        s.response_key = key;
        s
    }

    pub(crate) fn is_gemini_partial(&self) -> bool {
        self.kind == Kind::GeminiPartial
    }

    /// Adds Gemini `partialArgs` fragments of one `functionCall` chunk.
    pub(crate) fn gemini_fragments(&mut self, fc: &Obj) {
        let Some(p) = self.calls.back_mut() else {
            return;
        };
        for frag in fc.items("partialArgs") {
            let Some(f) = frag.object() else { continue };
            let path = f.str("jsonPath").unwrap_or_default().into_owned();
            let Some(v) = [
                "stringValue",
                "numberValue",
                "boolValue",
                "nullValue",
                "value",
            ]
            .iter()
            .find_map(|k| f.get(k)) else {
                continue;
            };
            // Strings are read as every string is (half a surrogate pair as U+FFFD,
            // said once); other values through the tape, which serde_json's limits do
            // not bind. One that cannot be read makes the call invalid.
            let value = if f.has("nullValue") {
                Some(Value::Null)
            } else if let Some(s) = v.str() {
                Some(Value::String(s.into_owned()))
            } else {
                v.lossy_value()
            };
            match value {
                Some(value) => p.fragments.push((path, value)),
                None => p.errors.push(format!(
                    "partialArgs path {}: its value nests too deep to be read; it was left out",
                    path.chars().take(80).collect::<String>()
                )),
            }
        }
    }
}
