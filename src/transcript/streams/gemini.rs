//! Gemini's streamed arguments: a `functionCall`'s `partialArgs` over several chunks.

use super::{Kind, Pending, Stream};
use crate::formats::gemini::{self, PartialArg, PartialValue};
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
        for PartialArg { path, value } in gemini::partial_args(fc) {
            // Strings are read as every string is (half a surrogate pair as U+FFFD,
            // said once); other values through the tape, which serde_json's limits do
            // not bind. One that cannot be read makes the call invalid.
            let value = match value {
                PartialValue::Null => Some(Value::Null),
                PartialValue::Value(v) => match v.str() {
                    Some(s) => Some(Value::String(s.into_owned())),
                    None => v.lossy_value(),
                },
            };
            match value {
                Some(value) => p.fragments.push((path.into_owned(), value)),
                None => p.errors.push(format!(
                    "partialArgs path {}: its value nests too deep to be read; it was left out",
                    path.chars().take(80).collect::<String>()
                )),
            }
        }
    }
}
