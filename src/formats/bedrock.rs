//! Amazon Bedrock Converse: the `toolUse` and `toolResult` blocks decoded for `extract`
//! (`convert` reads no Bedrock conversation), and the pieces of a `toolUse` its
//! ConverseStream events give.

use super::{Args, DecodedCall, DecodedResult};
use crate::json::Obj;
use std::borrow::Cow;

/// A `toolUse` object: `input` is the arguments object, `toolUseId` the id.
pub(crate) fn tool_use<'a>(obj: &Obj<'a>) -> DecodedCall<'a> {
    DecodedCall {
        kind: "toolUse",
        name: obj.str("name"),
        id: obj.str("toolUseId"),
        namespace: None,
        qualifies: false,
        args: obj.get("input").map_or(Args::Absent, Args::Object),
        members: vec!["toolUseId", "name", "input"],
        typed: false,
        result: None,
    }
}

/// The call a ConverseStream `contentBlockStart` event starts: its `start.toolUse`, a
/// `toolUse` with its id and name; its input comes in the deltas. `None` for a block
/// that is no call.
pub(crate) fn tool_use_start<'a>(event: &Obj<'a>) -> Option<DecodedCall<'a>> {
    Some(tool_use(&event.obj("start")?.obj("toolUse")?))
}

/// The piece of a `toolUse`'s input a `contentBlockDelta` event's `delta` gives: the
/// JSON text of its `toolUse.input`. `None` for a delta of another block.
pub(crate) fn tool_use_delta<'a>(delta: &Obj<'a>) -> Option<Cow<'a, str>> {
    delta.obj("toolUse")?.str("input")
}

/// A `toolResult` object: `toolUseId` the id of the call, `status: "error"` a failure.
pub(crate) fn tool_result<'a>(obj: &Obj<'a>) -> DecodedResult<'a> {
    DecodedResult {
        id: obj.str("toolUseId"),
        name: None,
        content: obj.get("content"),
        wrapped: None,
        is_error: obj.is("status", "error"),
        members: &["toolUseId", "content", "status"],
        kind: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    #[test]
    fn a_stream_starts_a_tool_use_and_gives_its_input_in_pieces() {
        let doc = Doc::parse(
            r#"{"start":{"toolUse":{"toolUseId":"t1","name":"f"}},"contentBlockIndex":1}"#,
        )
        .unwrap();
        let call = tool_use_start(&doc.root().object().unwrap()).unwrap();
        assert_eq!(
            (call.id.as_deref(), call.name.as_deref()),
            (Some("t1"), Some("f"))
        );
        let doc = Doc::parse(r#"{"start":{},"contentBlockIndex":0}"#).unwrap();
        assert!(tool_use_start(&doc.root().object().unwrap()).is_none());
        let doc = Doc::parse(r#"{"toolUse":{"input":"{\"a\":"}}"#).unwrap();
        assert_eq!(
            tool_use_delta(&doc.root().object().unwrap()).as_deref(),
            Some("{\"a\":")
        );
        let doc = Doc::parse(r#"{"text":"hi"}"#).unwrap();
        assert!(tool_use_delta(&doc.root().object().unwrap()).is_none());
    }
}
