//! The document model of `convert`: whole conversations, every message in order, with
//! the text around calls and results kept byte for byte. Extract's turn stream is lossy
//! by design (it keeps calls only); this model keeps everything, and what it does not
//! interpret stays verbatim in `extra`.

/// The exact text of one JSON value as the source wrote it: numbers, key order and
/// escapes pass through untouched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Raw(pub String);

impl Raw {
    pub(crate) fn new(text: impl Into<String>) -> Raw {
        Raw(text.into())
    }

    /// A JSON string holding `text`.
    pub(crate) fn string(text: &str) -> Raw {
        Raw(serde_json::to_string(text).expect("a string serializes"))
    }

    /// `text`, one JSON value, with its tokens as written and no white space between
    /// them: an object's layout in the source file is not part of it, and would show
    /// in a target that holds it as a string (OpenAI's `arguments`, a tool message).
    pub(crate) fn compact(text: &str) -> Raw {
        Raw(crate::json::without_layout(text).into_owned())
    }

    pub(crate) fn empty_object() -> Raw {
        Raw("{}".into())
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The value, for comparisons (numbers compared as serde_json reads them).
    pub(crate) fn value(&self) -> serde_json::Value {
        serde_json::from_str(&self.0).unwrap_or(serde_json::Value::Null)
    }

    /// The string this value holds, when it is a JSON string.
    pub(crate) fn as_string(&self) -> Option<String> {
        if !self.0.starts_with('"') {
            return None;
        }
        serde_json::from_str(&self.0).ok()
    }
}

/// Fields a reader did not interpret, in source order, each value as written.
pub(crate) type Extra = Vec<(String, Raw)>;

/// The formats a transcript can be read from or written to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// toolsift's canonical transcript (`toolsift schema transcript`).
    Json,
    /// OpenAI Chat Completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
    /// OpenAI Responses.
    Responses,
    /// Mandrake's JSON-in-text calls (`{"name":"server.method","arguments":…}`).
    MandrakeJson,
    /// Mandrake's XML-in-text calls (`<tool_call><server>…`).
    Xml,
}

impl Format {
    pub(crate) const TARGETS: [Format; 7] = [
        Format::Json,
        Format::Openai,
        Format::Anthropic,
        Format::Gemini,
        Format::Responses,
        Format::MandrakeJson,
        Format::Xml,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Openai => "openai",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Responses => "responses",
            Format::MandrakeJson => "mandrake-json",
            Format::Xml => "xml",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Format> {
        Format::TARGETS.into_iter().find(|f| f.name() == name)
    }
}

/// One conversation.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Transcript {
    pub(crate) messages: Vec<Message>,
    /// Top-level fields besides the messages (model, tools, metadata), as written.
    pub(crate) extra: Extra,
    /// The format it was read from (`None` when unknown).
    pub(crate) source: Option<Format>,
    /// The source was a bare array of messages, not an object holding them.
    pub(crate) bare: bool,
    /// Where the conversation was recorded, when that decides how its text is read
    /// (a SWE-agent trajectory's actions are `<command>` blocks).
    pub(crate) origin: crate::model::Origin,
    /// Its text parts are cut around calls and results already (a canonical
    /// transcript): they are text, and are not scanned again.
    pub(crate) cut: bool,
}

impl Transcript {
    /// Whether its messages belong to more than one conversation.
    pub(crate) fn holds_several(&self) -> bool {
        self.messages
            .windows(2)
            .any(|w| w[0].conversation != w[1].conversation)
    }

    /// Each conversation's messages as a transcript of its own, in the order the
    /// conversations began; each keeps the top-level fields (model, tools).
    pub(crate) fn apart(self) -> Vec<Transcript> {
        if !self.holds_several() {
            return vec![self];
        }
        let Transcript {
            messages,
            extra,
            source,
            bare,
            origin,
            cut,
        } = self;
        let mut order: Vec<u32> = Vec::new();
        let mut out: Vec<Transcript> = Vec::new();
        for m in messages {
            let at = match order.iter().position(|&o| o == m.conversation) {
                Some(at) => at,
                None => {
                    order.push(m.conversation);
                    out.push(Transcript {
                        messages: Vec::new(),
                        extra: extra.clone(),
                        source,
                        bare,
                        origin,
                        cut,
                    });
                    out.len() - 1
                }
            };
            out[at].messages.push(m);
        }
        out
    }
}

/// Who wrote a message, in the canonical spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// The role names of every supported format.
    pub(crate) fn from_name(name: &str) -> Option<Role> {
        crate::model::Role::from_name(name).map(Role::from_model)
    }

    /// The role as extract's model names it.
    pub(crate) fn from_model(r: crate::model::Role) -> Role {
        match r {
            crate::model::Role::System => Role::System,
            crate::model::Role::User => Role::User,
            crate::model::Role::Assistant => Role::Assistant,
            crate::model::Role::Tool => Role::Tool,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Message {
    pub(crate) role: Role,
    /// The role as the source spelled it, when that differs from the canonical name
    /// (`developer`, `model`, `human`).
    pub(crate) role_as_written: Option<String>,
    pub(crate) parts: Vec<Part>,
    pub(crate) extra: Extra,
    /// Which of a recording's conversations it belongs to (0, the first, for input of
    /// one): a recording's requests may hold several, and a request holds one.
    pub(crate) conversation: u32,
}

impl Message {
    pub(crate) fn new(role: Role) -> Message {
        Message {
            role,
            role_as_written: None,
            parts: Vec::new(),
            extra: Vec::new(),
            conversation: 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Part {
    Text(TextPart),
    Reasoning(TextPart),
    Call(CallPart),
    Result(ResultPart),
    /// A content block that is none of these (an image, a document, redacted
    /// thinking, a server tool's block), as written.
    Block(Raw),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TextPart {
    pub(crate) text: String,
    pub(crate) extra: Extra,
}

impl TextPart {
    pub(crate) fn new(text: impl Into<String>) -> TextPart {
        TextPart {
            text: text.into(),
            extra: Vec::new(),
        }
    }

    /// The signature Anthropic gave this reasoning, when a transcript of `source` holds
    /// one: read from Anthropic, or by extract's reader (no source), which keeps only
    /// the signatures of Anthropic's thinking blocks, or from a canonical transcript
    /// that names no other source (one written from extract's reader names none).
    pub(crate) fn anthropic_signature(&self, source: Option<Format>) -> Option<&Raw> {
        if !matches!(source, Some(Format::Anthropic | Format::Json) | None) {
            return None;
        }
        self.extra
            .iter()
            .find_map(|(k, v)| (k == "signature").then_some(v))
    }
}

/// Where a call or result sat in message text, and how it was written there: a writer
/// of the same dialect puts it back byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) dialect: String,
    pub(crate) text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CallPart {
    pub(crate) id: Option<String>,
    pub(crate) name: String,
    /// Always a JSON object (`{}` when there are none or they could not be read).
    pub(crate) arguments: Raw,
    /// The argument text as written, when it is not a JSON object (invalid, truncated).
    pub(crate) arguments_raw: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) written: Option<Written>,
    pub(crate) extra: Extra,
}

impl CallPart {
    pub(crate) fn new(name: impl Into<String>, arguments: Raw) -> CallPart {
        CallPart {
            id: None,
            name: name.into(),
            arguments,
            arguments_raw: None,
            namespace: None,
            written: None,
            extra: Vec::new(),
        }
    }

    /// The argument text a JSON-string target (OpenAI's `arguments`) carries: the text
    /// as written when it was not an object, else the object.
    /// The arguments as written were not one JSON object and none could be read from
    /// them: a target whose arguments are an object gets `{}`. (Text that held an
    /// object, white space around it or encoded twice, gave that object.)
    pub(crate) fn arguments_lost(&self) -> bool {
        self.arguments_raw.is_some()
            && matches!(self.arguments.value(), serde_json::Value::Object(o) if o.is_empty())
    }

    pub(crate) fn arguments_text(&self) -> &str {
        self.arguments_raw
            .as_deref()
            .unwrap_or(self.arguments.as_str())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ResultPart {
    pub(crate) call_id: Option<String>,
    pub(crate) name: Option<String>,
    /// The result as the source has it: a string, or content blocks, or any JSON.
    pub(crate) content: Raw,
    pub(crate) is_error: bool,
    pub(crate) written: Option<Written>,
    pub(crate) extra: Extra,
}

impl ResultPart {
    pub(crate) fn new(content: Raw) -> ResultPart {
        ResultPart {
            call_id: None,
            name: None,
            content,
            is_error: false,
            written: None,
            extra: Vec::new(),
        }
    }

    /// The content as one string: a JSON string's text, text blocks joined, or the
    /// JSON itself.
    pub(crate) fn content_text(&self) -> String {
        if let Some(s) = self.content.as_string() {
            return s;
        }
        if let serde_json::Value::Array(items) = self.content.value() {
            let texts: Option<Vec<String>> = items
                .iter()
                .map(|b| {
                    b.get("text")
                        .and_then(|t| t.as_str())
                        .filter(|_| {
                            b.get("type").is_none_or(|t| {
                                matches!(t.as_str(), Some("text" | "input_text" | "output_text"))
                            })
                        })
                        .map(str::to_owned)
                })
                .collect();
            // An empty array holds no text blocks: it is written as its JSON text.
            if let Some(texts) = texts.filter(|t| !t.is_empty()) {
                return texts.concat();
            }
        }
        Raw::compact(self.content.as_str()).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_anthropic_or_extracts_reader_vouches_for_a_signature() {
        let mut signed = TextPart::new("t");
        signed
            .extra
            .push(("signature".into(), Raw::new("\"s\"".to_owned())));
        for source in [Some(Format::Anthropic), None] {
            assert_eq!(
                signed.anthropic_signature(source).map(Raw::as_str),
                Some("\"s\""),
                "{source:?}"
            );
        }
        assert!(signed.anthropic_signature(Some(Format::Gemini)).is_none());
        assert!(TextPart::new("t").anthropic_signature(None).is_none());
    }
}
