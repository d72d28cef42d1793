//! SWE-agent's text action format: without function calling, its XML thought-action
//! parser reads the action from `<command>…</command>` in the assistant message. The
//! action is a shell command line, so it becomes `bash {"command": …}`. Active only in
//! turns of SWE-agent trajectories, where the tag has that meaning.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Origin, Text};
use memchr::memmem;

pub struct SweAgentCommand;

pub static SWE_AGENT_COMMAND: SweAgentCommand = SweAgentCommand;

const OPEN: &str = "<command>";
const CLOSE: &str = "</command>";

pub const NAME: &str = "swe-agent-command";

impl Scanner for SweAgentCommand {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![DialectRow::new(
            NAME,
            Channel::Text,
            "SWE-agent XML thought-action format, as bash {\"command\": text} (in SWE-agent trajectories)",
            "Let me look.\n<command>\nls -a\n</command>",
        )]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if ctx.turn.origin != Origin::SweAgent || !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let mut from = 0;
        while let Some(open) = memmem::find(&s.as_bytes()[from..], OPEN.as_bytes()) {
            let at = from + open;
            ctx.candidate(at);
            let body_start = at + OPEN.len();
            let Some(close) = memmem::find(&s.as_bytes()[body_start..], CLOSE.as_bytes()) else {
                break;
            };
            let body = &s[body_start..body_start + close];
            let command = trim_line_breaks(body);
            from = body_start + close + CLOSE.len();
            if command.trim().is_empty() {
                continue;
            }
            let line = text.line_at(at);
            let mut call = Call::new("bash", NAME, line);
            call.arguments.insert("command".into(), command.into());
            out.push(Hit {
                call,
                start: at,
                end: body_start + close + CLOSE.len(),
                balanced: false,
                specificity: MARKED,
            });
        }
    }
}

/// The tags sit on lines of their own: drop the line breaks next to them, nothing else.
fn trim_line_breaks(body: &str) -> &str {
    let body = body
        .strip_prefix("\r\n")
        .or_else(|| body.strip_prefix('\n'))
        .unwrap_or(body);
    body.strip_suffix("\r\n")
        .or_else(|| body.strip_suffix('\n'))
        .unwrap_or(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Role, Turn};

    fn scan(text: &str, origin: Origin) -> Vec<Call> {
        let mut turn = Turn::new(Role::Assistant, 1);
        turn.origin = origin;
        let ctx = ScanContext {
            turn: &turn,
            tools: &[],
            registry: super::super::Registry::builtin(),
            strict: false,
            selected: None,
            resume: None,
        };
        let t = Text::new(text, 10, false, true);
        let mut out = Vec::new();
        SWE_AGENT_COMMAND.scan(&t, &ctx, &mut out);
        out.into_iter().map(|h| h.call).collect()
    }

    #[test]
    fn reads_the_exact_command() {
        let calls = scan(
            "Thought.\n<command>\nedit 1:1\n  x = 1\nend_of_edit\n</command>",
            Origin::SweAgent,
        );
        assert_eq!(calls.len(), 1);
        assert_eq!(
            calls[0].arguments["command"],
            "edit 1:1\n  x = 1\nend_of_edit"
        );
        assert_eq!(calls[0].line, 11);
    }

    #[test]
    fn only_in_swe_agent_turns_and_only_closed_tags() {
        assert!(scan("<command>\nls\n</command>", Origin::Plain).is_empty());
        assert!(scan("<command>\nls", Origin::SweAgent).is_empty());
    }
}
