//! Stream events handed to the stream under way, and the turn and results it amounts
//! to handed on when it ends (or, for a stream holding too many calls, its oldest
//! calls before).

use super::streams::{self, Stream};
use super::{Ctx, Interpreter, TurnKey, open_calls_warning};
use crate::formats::gemini;
use crate::json::{Node, Obj};
use crate::model::{Role, Turn};

impl Interpreter {
    pub(super) fn stream_event(&mut self, node: &Node, obj: &Obj, kind: streams::Kind, ctx: &Ctx) {
        let line = ctx.lines.line(node.offset());
        if self
            .stream
            .as_ref()
            .is_some_and(|s| !s.accepts_kind(obj, kind))
        {
            self.end_stream();
        }
        let stream = self
            .stream
            .get_or_insert_with(|| Stream::start_kind(kind, line));
        let finished = stream.event(obj, line);
        if finished {
            self.end_stream();
        } else if stream.open_calls() > streams::MAX_OPEN_CALLS {
            self.flush_stream_calls();
        }
    }

    /// Hands on the oldest calls of a stream that holds too many under way, as a turn
    /// with the stream's key (the rest of the stream continues it).
    fn flush_stream_calls(&mut self) {
        let Some(stream) = &mut self.stream else {
            return;
        };
        let (calls, cut) = stream.flush_oldest();
        let (key, line) = (stream.turn_key(), stream.line());
        if cut && !self.warned_open_calls {
            self.warned_open_calls = true;
            self.warnings.push(open_calls_warning());
        }
        let mut kept = Turn::new(Role::Assistant, line);
        for call in calls {
            self.add_call(&mut kept, call);
        }
        self.submit(kept, key);
    }

    pub(super) fn end_stream(&mut self) {
        if let Some(mut stream) = self.stream.take() {
            // Results inside a stream (server tools) follow the calls they answer.
            let results = stream.take_results();
            let executed = stream.take_executed();
            let (turn, key) = stream.finish();
            let mut kept = Turn::new(turn.role, turn.line);
            kept.texts = turn.texts;
            // The tools the API ran come first, with the ids a whole response gives them.
            let mut executed_results = Vec::new();
            for tool in executed {
                executed_results.extend(self.add_executed(&mut kept, tool));
            }
            for call in turn.calls {
                self.add_call(&mut kept, call);
            }
            self.submit(kept, key);
            for result in executed_results.into_iter().chain(results) {
                self.result(result);
            }
        }
    }

    // ---- Gemini streamed arguments ---------------------------------------------------

    pub(super) fn gemini_partial_active(&self) -> bool {
        matches!(&self.stream, Some(s) if s.is_gemini_partial())
    }

    pub(super) fn gemini_partial_start(&mut self, fc: &Obj, line: u64, key: Option<TurnKey>) {
        self.end_stream();
        let name = gemini::function_call(fc).name.unwrap_or_default();
        let mut stream = Stream::gemini_partial(name.into_owned(), line, key);
        stream.gemini_fragments(fc);
        // A call given whole in one chunk says it does not continue.
        let whole = !gemini::will_continue(fc);
        if whole {
            stream.mark_done();
        }
        self.stream = Some(stream);
        if whole {
            self.end_stream();
        }
    }

    pub(super) fn gemini_partial_continue(&mut self, fc: &Obj) {
        let Some(stream) = &mut self.stream else {
            return;
        };
        let closes = fc.is_empty() || !gemini::will_continue(fc);
        stream.gemini_fragments(fc);
        if closes {
            stream.mark_done();
            self.end_stream();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::LineIndex;
    use crate::model::{Call, Event};

    fn feed_all(interp: &mut Interpreter, lines: &[String]) -> Vec<Call> {
        let mut calls = Vec::new();
        for (n, text) in lines.iter().enumerate() {
            let doc = crate::json::Doc::parse(text).unwrap();
            let index = LineIndex::new(text, n as u64 + 1);
            interp.feed(doc.root(), &index);
            calls.extend(interp.drain().filter_map(|e| match e {
                Event::Turn(t) => Some(t.calls),
                _ => None,
            }));
        }
        interp.finish();
        calls.extend(interp.drain().filter_map(|e| match e {
            Event::Turn(t) => Some(t.calls),
            _ => None,
        }));
        calls.into_iter().flatten().collect()
    }

    fn chunk(i: usize) -> String {
        format!(
            r#"{{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{i},"id":"call_{i}","function":{{"name":"f","arguments":"{{\"a\""}}}}]}}}}]}}"#
        )
    }

    #[test]
    fn a_stream_over_the_bound_flushes_its_oldest_calls_with_one_warning() {
        let n = streams::MAX_OPEN_CALLS * 2 + 10;
        let lines: Vec<String> = (0..n).map(chunk).collect();
        let mut interp = Interpreter::new();
        let calls = feed_all(&mut interp, &lines);
        assert_eq!(calls.len(), n);
        for (i, c) in calls.iter().enumerate() {
            assert_eq!(c.id.as_deref(), Some(format!("call_{i}").as_str()));
            assert_eq!(c.name, "f");
            assert_eq!(c.arguments_raw.as_deref(), Some("{\"a\""));
            assert_eq!(c.errors, [streams::TRUNCATED]);
        }
        assert_eq!(
            interp.take_warnings(),
            [
                "a stream held more than 4096 calls under way; the oldest were settled as they stood (those not complete are marked truncated)"
            ]
        );
        assert!(interp.take_warnings().is_empty());
    }

    #[test]
    fn a_stream_under_the_bound_gives_no_warning() {
        let lines: Vec<String> = (0..streams::MAX_OPEN_CALLS).map(chunk).collect();
        let mut interp = Interpreter::new();
        assert_eq!(feed_all(&mut interp, &lines).len(), streams::MAX_OPEN_CALLS);
        assert!(interp.take_warnings().is_empty());
    }

    #[test]
    fn a_late_fragment_of_a_flushed_call_is_dropped() {
        let n = streams::MAX_OPEN_CALLS + 1;
        let mut lines: Vec<String> = (0..n).map(chunk).collect();
        // Call 0 was flushed when call 4096 started.
        lines.push(r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}"#.into());
        let mut interp = Interpreter::new();
        let calls = feed_all(&mut interp, &lines);
        assert_eq!(calls.len(), n);
        assert_eq!(calls[0].errors, [streams::TRUNCATED]);
    }
}
