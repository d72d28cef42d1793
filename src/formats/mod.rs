//! The provider formats, one file each: the shapes a provider writes calls in, decoded
//! once for both `extract` and `convert` (and the pieces of them its stream gives, for
//! `extract`'s stream reassembly), and the writer `convert` uses for it. This module
//! holds only what they share: the decoded call, call fragment and result, and how a
//! namespace joins a name.

pub(crate) mod anthropic;
pub(crate) mod bedrock;
pub(crate) mod canonical;
pub(crate) mod gemini;
pub(crate) mod openai;
pub(crate) mod responses;

use crate::convert::decode::{extra_of, set_string_arguments};
use crate::convert::model::{CallPart, Extra, Raw, ResultPart};
use crate::json::{Kind, Node, Obj};
use anyhow::Result;
use std::borrow::Cow;

/// Where a decoded call's arguments are, as written.
#[derive(Clone, Copy)]
pub(crate) enum Args<'a> {
    /// None are written.
    Absent,
    /// JSON text in a string, or an object (OpenAI, Responses `arguments`).
    Encoded(Node<'a>),
    /// A value meant to be the arguments object itself (Anthropic `input`, Gemini
    /// `args`).
    Object(Node<'a>),
    /// Free text, taken as `{"input": text}` (custom tools).
    Input(Option<Node<'a>>),
    /// A shell action object, taken as the arguments (`None` when the item has none).
    Action(Option<Node<'a>>),
}

/// One call as a provider wrote it, before either command builds its own value from it.
pub(crate) struct DecodedCall<'a> {
    /// The type of the item or block it was read from.
    pub(crate) kind: &'static str,
    /// The tool's name; `None` when it is not a string.
    pub(crate) name: Option<Cow<'a, str>>,
    pub(crate) id: Option<Cow<'a, str>>,
    pub(crate) namespace: Option<Cow<'a, str>>,
    /// The namespace is part of the name the model called (Codex's `namespace`); else
    /// it only says where the tool runs.
    pub(crate) qualifies: bool,
    pub(crate) args: Args<'a>,
    /// The members of the object the decoded value holds; the others are its extra
    /// fields.
    pub(crate) members: Vec<&'static str>,
    /// Its kind goes first among its extra fields: not the format's default kind, it is
    /// written back as what it was.
    pub(crate) typed: bool,
    /// A result the item holds itself (a remote MCP call's `output`), and whether it is
    /// an error.
    pub(crate) result: Option<(Node<'a>, bool)>,
}

impl DecodedCall<'_> {
    /// The tool's name, when the call names one: a call needs a non-empty name. An
    /// empty one is a zero-valued placeholder (Snowflake Cortex, OpenAI-compatible,
    /// writes `"function_call": {"name": "", "arguments": ""}` in every message), not a
    /// call of either command.
    pub(crate) fn tool_name(&self) -> Option<&str> {
        self.name.as_deref().filter(|n| !n.is_empty())
    }

    /// Whether it is all zero values: no name and no arguments (`""`, `{}`, `null` or
    /// none). Such a member is dropped without a word; a nameless one with arguments
    /// is kept as written by `convert`.
    pub(crate) fn is_placeholder(&self) -> bool {
        let empty = |n: Node| matches!(n.text().trim(), "\"\"" | "{}" | "null");
        self.tool_name().is_none()
            && match self.args {
                Args::Absent | Args::Input(None) | Args::Action(None) => true,
                Args::Encoded(a)
                | Args::Object(a)
                | Args::Input(Some(a))
                | Args::Action(Some(a)) => empty(a),
            }
    }

    /// The name the model called, from `name`: with its namespace when that qualifies it.
    pub(crate) fn called(&self, name: &str) -> String {
        match (&self.namespace, self.qualifies) {
            (Some(ns), true) => namespaced(ns, name),
            _ => name.to_owned(),
        }
    }

    /// The call as `convert`'s document model holds it, its extra fields from `obj`.
    /// `Ok(None)`: no call `convert` reads (no [name](Self::tool_name), a shell call
    /// without an action), kept whole.
    pub(crate) fn call_part(&self, obj: &Obj) -> Result<Option<CallPart>> {
        let Some(name) = self.tool_name() else {
            return Ok(None);
        };
        let name = self.called(name);
        let mut call = CallPart::new(name, Raw::empty_object());
        call.id = self.id.as_deref().map(str::to_owned);
        match self.args {
            Args::Absent => {}
            Args::Encoded(a) => set_string_arguments(&mut call, &a)?,
            Args::Object(a) => {
                if a.text().starts_with('{') {
                    call.arguments = Raw::compact(a.text());
                } else {
                    call.arguments_raw = Some(a.text().to_owned());
                }
            }
            Args::Input(input) => {
                let input = input.map_or("\"\"", |i| i.text());
                call.arguments = Raw(format!("{{\"input\":{input}}}"));
            }
            Args::Action(Some(action)) => call.arguments = Raw::compact(action.text()),
            Args::Action(None) => return Ok(None),
        }
        call.namespace = self.namespace.as_deref().map(str::to_owned);
        call.extra = self.extra(obj);
        Ok(Some(call))
    }

    /// The members of `obj` the decoded value does not hold, as written; its kind first
    /// when it is [`typed`](Self::typed).
    pub(crate) fn extra(&self, obj: &Obj) -> Extra {
        let mut extra = Vec::new();
        if self.typed {
            extra.push(("type".into(), Raw::string(self.kind)));
        }
        extra.extend(extra_of(obj, &self.members));
        extra
    }
}

/// A piece of a call as a stream gives it, one chunk or event at a time: any of the
/// call's place, id and name, and a piece of its arguments. The stream joins the pieces
/// of one call. Its members are kept as written and read when the stream asks for
/// them: a string read lossily (half a surrogate pair) is noted for the file's warning,
/// and a name the stream already has is not read.
pub(crate) struct CallFragment<'a> {
    /// The call's place among the calls its message streams, when the piece gives it
    /// (a Chat `tool_calls` entry's `index`).
    pub(crate) index: Option<u64>,
    id: Option<Node<'a>>,
    name: Option<Node<'a>>,
    arguments: Option<Node<'a>>,
    /// The arguments are free text (a custom tool's `input`), taken as
    /// `{"input": text}`.
    pub(crate) free_form: bool,
}

impl<'a> CallFragment<'a> {
    /// The call's id, when the piece gives it as a string.
    pub(crate) fn id(&self) -> Option<Cow<'a, str>> {
        self.id?.str()
    }

    /// The tool's name, when the piece gives it as a string.
    pub(crate) fn name(&self) -> Option<Cow<'a, str>> {
        self.name?.str()
    }

    /// The piece of the arguments: text is a piece of their text, an object the
    /// arguments whole, and any other value none.
    pub(crate) fn arguments(&self) -> Option<ArgumentsPiece<'a>> {
        let arguments = self.arguments?;
        match arguments.str() {
            Some(text) => Some(ArgumentsPiece::Text(text)),
            None => (arguments.kind() == Kind::Object).then_some(ArgumentsPiece::Whole(arguments)),
        }
    }
}

/// The arguments a piece of a streamed call gives.
pub(crate) enum ArgumentsPiece<'a> {
    /// A piece of their text, joined to the pieces before it.
    Text(Cow<'a, str>),
    /// The arguments object whole (Ollama-style chunks).
    Whole(Node<'a>),
}

/// One result as a provider wrote it, before either command builds its own value from
/// it: a block, part, item or message that answers a call.
pub(crate) struct DecodedResult<'a> {
    /// The id of the call it answers, as written.
    pub(crate) id: Option<Cow<'a, str>>,
    /// The name of the tool it answers, where the format writes one.
    pub(crate) name: Option<Cow<'a, str>>,
    /// The content; `None` when the result has none.
    pub(crate) content: Option<Node<'a>>,
    /// The value the content was taken out of, when the format wraps it (Gemini's
    /// `{"content": …}` response): what `extract` reports, as written.
    pub(crate) wrapped: Option<Node<'a>>,
    pub(crate) is_error: bool,
    /// The members of the object the decoded value holds; the others are its extra
    /// fields.
    pub(crate) members: &'static [&'static str],
    /// A type to keep first among the extra fields: the result is not the format's
    /// default kind, and a target of its family writes it back as what it was.
    pub(crate) kind: Option<Cow<'a, str>>,
}

impl DecodedResult<'_> {
    /// The result as `convert`'s document model holds it, its extra fields from `obj`;
    /// `absent` is the content of a result that has none, as its format means it.
    pub(crate) fn result_part(&self, obj: &Obj, absent: &str) -> ResultPart {
        let mut r = ResultPart::new(
            self.content
                .map_or(Raw::new(absent), |c| Raw::new(c.text())),
        );
        r.call_id = self.id.as_deref().map(str::to_owned);
        r.name = self.name.as_deref().map(str::to_owned);
        r.is_error = self.is_error;
        if let Some(kind) = &self.kind {
            r.extra.push(("type".into(), Raw::string(kind)));
        }
        r.extra.extend(extra_of(obj, self.members));
        r
    }
}

/// A stable id for a call written without one, the same for `extract` and `convert`
/// and on every run: the conversation's index in its file, the call's index among the
/// conversation's calls, and a digest of its name and its arguments as written.
pub(crate) fn generated_call_id(
    conversation: usize,
    ordinal: usize,
    name: &str,
    arguments: &str,
) -> String {
    let digest = xxhash_rust::xxh3::xxh3_64(format!("{name}\u{0}{arguments}").as_bytes());
    if conversation == 0 {
        format!("call_{ordinal}_{:08x}", digest as u32)
    } else {
        format!("call_{conversation}_{ordinal}_{:08x}", digest as u32)
    }
}

/// Joins a namespace and a tool name the way the namespace expects: one ending in a
/// separator (`mcp__server__`) is a prefix, any other gets `__` between.
pub(crate) fn namespaced(namespace: &str, name: &str) -> String {
    if namespace.ends_with(['_', '.', '/', ':']) {
        format!("{namespace}{name}")
    } else {
        format!("{namespace}__{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_join_once() {
        assert_eq!(namespaced("mcp__node_repl__", "js"), "mcp__node_repl__js");
        assert_eq!(namespaced("github", "create_issue"), "github__create_issue");
    }
}
