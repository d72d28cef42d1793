//! Gemini Interactions API stream events.

use super::{Pending, Stream};
use crate::dialects::native;
use crate::formats::gemini;
use crate::json::{LineIndex, Obj};

/// Gemini Interactions API stream events, told by `event_type` (the SDKs' names of
/// both API versions: `interaction.start`/`.created`, `interaction.complete`/`.completed`).
pub(super) const INTERACTIONS_EVENTS: &[&str] = &[
    "interaction.start",
    "interaction.created",
    "interaction.status_update",
    "interaction.complete",
    "interaction.completed",
    "step.start",
    "step.delta",
    "step.stop",
];

impl Stream {
    /// One Gemini Interactions event. A `step.start` of a `function_call` step holds a
    /// placeholder (`"arguments": {}`): the arguments are the `arguments_delta` pieces
    /// of its `step.delta` events, and the call is final only at its `step.stop` (or
    /// when the interaction completes); a stream cut before is marked truncated.
    pub(super) fn interactions(&mut self, obj: &Obj, line: u64) -> bool {
        let index = obj.get("index").and_then(|i| i.u64()).unwrap_or(0);
        match obj.str("event_type").as_deref() {
            Some("interaction.start" | "interaction.created") => {
                if let Some(i) = obj.obj("interaction") {
                    self.key = i.str("id").map(Into::into);
                }
                self.line = line;
            }
            Some("step.start") => {
                let Some(step) = obj.obj("step") else {
                    return false;
                };
                if let Some(call) = gemini::interactions_call(&step) {
                    self.push_call(Pending::started(call, index, line));
                }
            }
            Some("step.delta") => {
                let Some(delta) = obj.obj("delta") else {
                    return false;
                };
                if let Some(piece) = gemini::interactions_arguments_delta(&delta) {
                    if let Some(p) = self.last_call_of(index) {
                        p.args.push_str(&piece);
                    }
                } else if delta.is("type", "text") {
                    self.push_text(&delta.str("text").unwrap_or_default(), line, false)
                }
            }
            Some("step.stop") => {
                if let Some(p) = self.last_call_of(index) {
                    p.complete = true;
                }
            }
            Some("interaction.complete" | "interaction.completed") => {
                // The completed interaction's steps are usually left out; a call among
                // them that no event gave is taken whole.
                let interaction = obj.obj("interaction");
                let steps = interaction
                    .as_ref()
                    .and_then(|i| i.arr("steps").or_else(|| i.arr("outputs")))
                    .unwrap_or_default();
                for step_node in steps {
                    let Some(step) = step_node.object() else {
                        continue;
                    };
                    let Some(call) = gemini::interactions_call(&step) else {
                        continue;
                    };
                    if call
                        .id
                        .as_deref()
                        .is_some_and(|id| self.calls.iter().any(|p| p.id.as_deref() == Some(id)))
                    {
                        continue;
                    }
                    let mut p = Pending::new(line);
                    p.built = native::interactions_step(
                        &step_node,
                        &step,
                        &LineIndex::fixed(line),
                        native::GEMINI_INTERACTIONS_STREAM,
                    );
                    if p.built.is_some() {
                        p.complete = true;
                        self.push_call(p);
                    }
                }
                self.mark_done();
                return true;
            }
            _ => {}
        }
        false
    }
}
