//! Amazon Bedrock Converse: the `toolUse` block decoded for `extract` (`convert` reads no
//! Bedrock conversation).

use super::{Args, DecodedCall};
use crate::json::Obj;

/// A `toolUse` object: `input` is the arguments object, `toolUseId` the id.
pub fn tool_use<'a>(obj: &Obj<'a>) -> DecodedCall<'a> {
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
