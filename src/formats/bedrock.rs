//! Amazon Bedrock Converse: the `toolUse` and `toolResult` blocks decoded for `extract`
//! (`convert` reads no Bedrock conversation).

use super::{Args, DecodedCall, DecodedResult};
use crate::json::Obj;

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
