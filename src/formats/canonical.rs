//! toolsift's own canonical transcript (`convert --to json`): its call part, decoded
//! once for `extract`, which finds such parts wherever they sit, and for `convert`'s
//! reader of the whole transcript (`convert::canonical`, which also writes it).

use crate::convert::decode::text;
use crate::json::{Node, Obj};
use anyhow::{Result, anyhow};
use std::borrow::Cow;

/// A call part, `{"type": "call", "id", "name", "namespace", "arguments",
/// "arguments_raw", …}`, its members as written. What a member of another kind than the
/// schema's means is for its reader to say: `extract`, which recognizes parts by their
/// shape, takes the strings and leaves the rest; `convert` refuses the transcript.
pub(crate) struct CanonicalCall<'a> {
    pub(crate) id: StringMember<'a>,
    pub(crate) name: StringMember<'a>,
    pub(crate) namespace: StringMember<'a>,
    /// The arguments object (`extract` also reads JSON text in a string).
    pub(crate) arguments: Option<Node<'a>>,
    /// The arguments as the model wrote them, when they are no JSON object.
    pub(crate) arguments_raw: StringMember<'a>,
}

/// The members of a call part (its `type` is `"call"`).
pub(crate) fn call<'a>(part: &Obj<'a>) -> CanonicalCall<'a> {
    CanonicalCall {
        id: member(part, "id"),
        name: member(part, "name"),
        namespace: member(part, "namespace"),
        arguments: part.get("arguments"),
        arguments_raw: member(part, "arguments_raw"),
    }
}

/// A member of `obj` meant to hold a string.
pub(crate) fn member<'a>(obj: &Obj<'a>, key: &'static str) -> StringMember<'a> {
    StringMember {
        key,
        node: obj.get(key),
    }
}

/// A member meant to hold a string, as written; read when asked, as each reader wants
/// it.
#[derive(Clone, Copy)]
pub(crate) struct StringMember<'a> {
    key: &'static str,
    node: Option<Node<'a>>,
}

impl<'a> StringMember<'a> {
    /// The string, when the member holds one; `None` for anything else.
    pub(crate) fn string(&self) -> Option<Cow<'a, str>> {
        self.node?.str()
    }

    /// The string; `None` when the member is absent or `null`, an error naming it when
    /// it holds anything else (or a string that cannot be kept exactly).
    pub(crate) fn checked(&self) -> Result<Option<String>> {
        match self.node {
            None => Ok(None),
            Some(n) if n.is_null() => Ok(None),
            Some(n) => text(&n, self.key).map(Some),
        }
    }

    /// [`checked`](Self::checked), and an error when the member is absent or `null`.
    pub(crate) fn required(&self) -> Result<String> {
        self.checked()?
            .ok_or_else(|| anyhow!("missing \"{}\"", self.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Doc;

    #[test]
    fn a_call_part_gives_each_member() {
        let doc = Doc::parse(
            r#"{"type":"call","id":"c1","name":"f","namespace":"ns","arguments":{"a":1},"arguments_raw":"{a:1}"}"#,
        )
        .unwrap();
        let c = call(&doc.root().object().unwrap());
        assert_eq!(
            (
                c.id.string().as_deref(),
                c.name.string().as_deref(),
                c.namespace.string().as_deref(),
                c.arguments.map(|a| a.text()),
                c.arguments_raw.string().as_deref(),
            ),
            (
                Some("c1"),
                Some("f"),
                Some("ns"),
                Some(r#"{"a":1}"#),
                Some("{a:1}")
            )
        );
    }

    #[test]
    fn a_member_of_another_kind_is_none_to_extract_and_an_error_to_convert() {
        let doc = Doc::parse(r#"{"type":"call","id":7,"name":null,"arguments":{}}"#).unwrap();
        let c = call(&doc.root().object().unwrap());
        assert_eq!(c.id.string(), None);
        assert_eq!(
            c.id.checked().unwrap_err().to_string(),
            "id: expected a string, found 7"
        );
        assert_eq!(c.name.checked().unwrap(), None);
        assert_eq!(
            c.name.required().unwrap_err().to_string(),
            "missing \"name\""
        );
        assert_eq!(c.namespace.checked().unwrap(), None);
    }
}
