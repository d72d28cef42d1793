//! Which objects are messages, and of which role: every format's `role`, and
//! LangChain's serialized messages and message dicts, which extract and convert read
//! alike.

use crate::json::Obj;
use crate::model::Role;

/// The class of a LangChain serialized object (`dumpd`, `lc: 1`): the last element of
/// its `id` path, `["langchain_core", "messages", "AIMessageChunk"]`.
pub(crate) fn constructor_class<'a>(obj: &Obj<'a>) -> Option<std::borrow::Cow<'a, str>> {
    if !obj.is("type", "constructor") || !obj.has("lc") {
        return None;
    }
    obj.arr("id")?.last()?.str()
}

/// LangGraph's run metadata beside each streamed chunk (`[chunk, metadata]`).
pub(super) fn is_langgraph_metadata(obj: &Obj) -> bool {
    obj.has("langgraph_node") || obj.has("langgraph_step")
}

/// Where a LangChain message keeps its body, one level down: `kwargs` of its serialized
/// constructor, `data` of a message dict (`{"type": "ai", "data": {…}}`). `None` when
/// the object is the body itself.
pub(crate) fn langchain_body_key(obj: &Obj) -> Option<&'static str> {
    if obj.is("type", "constructor") {
        Some("kwargs")
    } else if !obj.has("content") && !obj.has("tool_calls") {
        Some("data")
    } else {
        None
    }
}

/// The role of a LangChain serialized message (`dumpd`): its class (`AIMessage`,
/// `HumanMessageChunk`), or a `ChatMessage`'s own role.
fn langchain_constructor_role(obj: &Obj) -> Option<Role> {
    let class = constructor_class(obj).filter(|_| obj.obj("kwargs").is_some())?;
    let class = class.strip_suffix("Chunk").unwrap_or(&class);
    if class == "ChatMessage" {
        return obj
            .obj("kwargs")?
            .str("role")
            .and_then(|r| Role::from_name(&r));
    }
    Role::from_name(class)
}

/// The role of a LangChain message dict, which carries it in `type`
/// (`{"type": "ai", "data": {…}}`, or the fields beside it).
fn langchain_dict_role(obj: &Obj) -> Option<Role> {
    let kind = obj.str("type")?;
    let message = matches!(
        kind.as_ref(),
        "ai" | "human"
            | "tool"
            | "system"
            | "AIMessage"
            | "AIMessageChunk"
            | "HumanMessage"
            | "ToolMessage"
            | "SystemMessage"
    ) && (obj.has("content") || obj.has("data") || obj.has("tool_calls"));
    if message {
        Role::from_name(&kind)
    } else {
        None
    }
}

/// The role of a LangChain message, serialized (`dumpd`) or a dict; `None` for any
/// other object. Extract and convert read LangChain messages by this and
/// [`langchain_body_key`].
pub(crate) fn langchain_role(obj: &Obj) -> Option<Role> {
    langchain_constructor_role(obj).or_else(|| langchain_dict_role(obj))
}

/// The role of an object that is a message in some format, if it is one.
pub(super) fn message_role(obj: &Obj) -> Option<Role> {
    if let Some(role) = langchain_constructor_role(obj) {
        return Some(role);
    }
    if let Some(role) = obj.str("role") {
        let has_body = [
            "content",
            "tool_calls",
            "function_call",
            "parts",
            "tool_call_id",
            "tool_call_ids",
        ]
        .iter()
        .any(|k| obj.has(k));
        if has_body {
            return Role::from_name(&role);
        }
    }
    // Gemini CLI sessions: `{"type": "gemini", "content", "toolCalls"}`.
    if obj.is("type", "gemini") && (obj.has("content") || obj.has("toolCalls")) {
        return Some(Role::Assistant);
    }
    langchain_dict_role(obj)
}
