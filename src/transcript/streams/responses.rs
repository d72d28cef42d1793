//! OpenAI Responses API stream events: calls by item id, message items' text.

use super::{Pending, Stream, flushed_key};
use crate::dialects::native;
use crate::formats::responses::{self, ArgumentsEvent};
use crate::json::{LineIndex, Obj};

impl Stream {
    /// The call of a Responses item, by its id.
    fn item_call(&mut self, item: Option<&str>) -> Option<&mut Pending> {
        let slot = *self.item_slots.get(item?)?;
        self.slot_mut(slot)
    }

    /// Whether a Responses item's call was flushed.
    fn item_flushed(&self, item: &str) -> bool {
        self.flushed
            .contains(flushed_key("item", 0, item.as_bytes()))
    }

    pub(super) fn responses(&mut self, obj: &Obj, line: u64) -> bool {
        let kind = obj.str("type").unwrap_or_default();
        let item_id = obj.str("item_id").map(|s| s.into_owned());
        match kind.as_ref() {
            "response.created" | "response.in_progress" => {
                if let Some(r) = obj.obj("response") {
                    self.key = r.str("id").map(Into::into);
                }
            }
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item_node) = obj.get("item") else {
                    return false;
                };
                let Some(item) = item_node.object() else {
                    return false;
                };
                let item_kind = item.str("type").unwrap_or_default();
                let id = item.str("id").map(|s| s.into_owned());
                let done = kind == "response.output_item.done";
                if let Some(start) = responses::call_item_start(&item) {
                    if id.as_deref().is_some_and(|id| self.item_flushed(id)) {
                        return false;
                    }
                    let existing = id.as_ref().and_then(|id| self.item_slots.get(id)).copied();
                    let slot = match existing {
                        Some(s) => s,
                        None => {
                            let mut p = Pending::new(line);
                            p.item = id.clone();
                            p.free_form = start.free_form;
                            let slot = self.push_call(p);
                            if let Some(id) = id {
                                self.item_slots.entry(id).or_insert(slot);
                            }
                            slot
                        }
                    };
                    let Some(p) = self.slot_mut(slot) else {
                        return false;
                    };
                    if p.name.is_empty() {
                        p.name = start.name().unwrap_or_default().into_owned();
                    }
                    if p.id.is_none() {
                        p.id = start.id().map(Into::into);
                    }
                    if done {
                        let at = LineIndex::fixed(p.line);
                        let built = native::responses_item_with_result(
                            &item_node,
                            &item,
                            &at,
                            native::OPENAI_RESPONSES_STREAM,
                        );
                        let (call, result) = built.map_or((None, None), |(c, r)| (Some(c), r));
                        p.built = call;
                        p.complete = true;
                        // A remote MCP call's output, held by its item.
                        if let Some(mut result) = result {
                            result.line = line;
                            self.results.push(result);
                        }
                    }
                } else if item_kind == "message" && done {
                    let text: String = item
                        .arr("content")
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|c| c.object()?.str("text").map(|t| t.into_owned()))
                        .collect();
                    let id = id.unwrap_or_default();
                    match self.item_text_slots.get(&id) {
                        Some(&at) => self.item_texts[at].1 = text,
                        None => {
                            self.item_text_slots
                                .insert(id.clone(), self.item_texts.len());
                            self.item_texts.push((id, text));
                        }
                    }
                }
            }
            "response.output_text.delta" => {
                let delta = obj.str("delta").unwrap_or_default();
                let id = item_id.unwrap_or_default();
                if self.item_texts.is_empty() {
                    self.text_line = line;
                }
                match self.item_text_slots.get(&id) {
                    Some(&at) => self.item_texts[at].1.push_str(&delta),
                    None => {
                        self.item_text_slots
                            .insert(id.clone(), self.item_texts.len());
                        self.item_texts.push((id, delta.into_owned()));
                    }
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let output = obj
                    .obj("response")
                    .and_then(|r| r.arr("output"))
                    .unwrap_or_default();
                for item_node in output {
                    let Some(item) = item_node.object() else {
                        continue;
                    };
                    let id = item.str("id").map(|s| s.into_owned());
                    if !native::is_responses_call_item(&item)
                        || id.as_ref().is_some_and(|id| {
                            self.item_slots.contains_key(id) || self.item_flushed(id)
                        })
                    {
                        continue;
                    }
                    let mut p = Pending::new(line);
                    if let Some(id) = &id {
                        self.item_slots
                            .insert(id.clone(), self.base + self.calls.len());
                    }
                    p.item = id;
                    p.built = native::responses_item(
                        &item_node,
                        &item,
                        &LineIndex::fixed(line),
                        native::OPENAI_RESPONSES_STREAM,
                    );
                    p.complete = true;
                    self.push_call(p);
                }
                self.mark_done();
                return true;
            }
            // The item's call by its id, at once: a search of all calls per delta made
            // a stream of many items quadratic.
            kind => match responses::arguments_event(kind, obj) {
                Some(ArgumentsEvent::Piece(piece)) => {
                    if let Some(p) = self.item_call(item_id.as_deref()) {
                        p.args.push_str(&piece);
                    }
                }
                Some(ArgumentsEvent::Done(whole)) => {
                    if let Some(p) = self.item_call(item_id.as_deref()) {
                        if let Some(whole) = whole {
                            p.args = whole.into_owned();
                        }
                        p.complete = true;
                    }
                }
                None => {}
            },
        }
        false
    }
}
