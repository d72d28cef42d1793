//! SWE-agent's text action formats: without function calling, its XML thought-action
//! parser reads the action from `<command>…</command>` in the assistant message, and
//! its default thought-action parser from the last fenced code block. The action is a
//! shell command line, so it becomes `bash {"command": …}`. Active only in turns of
//! SWE-agent trajectories, where the tag and the fence have that meaning.
//!
//! mini-swe-agent, without function calling, reads its action from the one code block
//! fenced as ```` ```bash ```` (1.x) or ```` ```mswea_bash_command ```` (2.x); a reply
//! with none or several is a format error and runs nothing. Active only in assistant
//! turns of mini-swe-agent trajectories.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::json::Obj;
use crate::model::{Call, Origin, Text};
use memchr::memmem;

pub(crate) struct SweAgentCommand;

pub(crate) static SWE_AGENT_COMMAND: SweAgentCommand = SweAgentCommand;

const OPEN: &str = "<command>";
const CLOSE: &str = "</command>";

pub(crate) const NAME: &str = "swe-agent-command";
pub(crate) const FENCE_NAME: &str = "swe-agent-fence";
pub(crate) const MINI_NAME: &str = "mini-swe-agent-action";

/// The info strings of the fences mini-swe-agent reads an action from.
const MINI_FENCES: &[&str] = &["```mswea_bash_command", "```bash"];

impl Scanner for SweAgentCommand {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![
            DialectRow::new(
                NAME,
                Channel::Text,
                "SWE-agent XML thought-action format, as bash {\"command\": text} (in SWE-agent trajectories)",
                "Let me look.\n<command>\nls -a\n</command>",
            ),
            DialectRow::new(
                FENCE_NAME,
                Channel::Text,
                "SWE-agent thought-action format (its default): the last fenced code block, as bash {\"command\": text} (in SWE-agent trajectories)",
                "Let me look.\n```\nls -a\n```",
            ),
            DialectRow::new(
                MINI_NAME,
                Channel::Text,
                "mini-swe-agent without function calling: the one ```bash or ```mswea_bash_command block of the response, as bash {\"command\": text} (in mini-swe-agent trajectories)",
                "THOUGHT: Let me look.\n```mswea_bash_command\nls -a\n```",
            ),
        ]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if ctx.turn.origin == Origin::MiniSweAgent {
            if ctx.enabled(MINI_NAME)
                && let Some(action) = mini_swe_agent_action(&text.text)
            {
                ctx.candidate(action.start);
                let mut call = Call::new("bash", MINI_NAME, text.line_at(action.start));
                call.arguments
                    .insert("command".into(), action.command.into());
                out.push(Hit {
                    call,
                    start: action.start,
                    end: action.end,
                    balanced: false,
                    specificity: MARKED,
                });
            }
            return;
        }
        if ctx.turn.origin != Origin::SweAgent {
            return;
        }
        let s = text.text.as_str();
        // One parser per agent: a response with `<command>` tags was not read by fences.
        if memmem::find(s.as_bytes(), OPEN.as_bytes()).is_none() {
            if ctx.enabled(FENCE_NAME)
                && let Some((start, body, end)) = last_fence(s)
            {
                ctx.candidate(start);
                let command = body.strip_suffix('\n').unwrap_or(body);
                let command = command.strip_suffix('\r').unwrap_or(command);
                if !command.trim().is_empty() {
                    let mut call = Call::new("bash", FENCE_NAME, text.line_at(start));
                    call.arguments.insert("command".into(), command.into());
                    out.push(Hit {
                        call,
                        start,
                        end,
                        balanced: false,
                        specificity: MARKED,
                    });
                }
            }
            return;
        }
        if !ctx.enabled(NAME) {
            return;
        }
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

/// Whether a document is a mini-swe-agent trajectory (`{"info", "messages",
/// "trajectory_format"}`): its format names mini-swe-agent, or its `info` the version.
pub(crate) fn is_mini_trajectory(obj: &Obj) -> bool {
    obj.has("messages")
        && (obj
            .str("trajectory_format")
            .is_some_and(|f| f.starts_with("mini-swe-agent"))
            || obj.obj("info").is_some_and(|i| i.has("mini_version")))
}

/// The action of a mini-swe-agent reply: where its fence opens, the command, and where
/// the closing backticks end.
#[derive(Debug, PartialEq)]
pub(crate) struct MiniAction<'t> {
    pub(crate) start: usize,
    pub(crate) command: &'t str,
    pub(crate) end: usize,
}

/// The one action block of a mini-swe-agent reply, found as its parser finds it: a
/// fence of one of [`MINI_FENCES`], blanks to the end of that line, then the command up
/// to the next line break followed by three backticks. `None` when the reply holds no
/// such block or several (mini-swe-agent rejects it and runs nothing).
pub(crate) fn mini_swe_agent_action(s: &str) -> Option<MiniAction<'_>> {
    let mut found = None;
    for fence in MINI_FENCES {
        for (start, _) in s.match_indices(fence) {
            let after = start + fence.len();
            let rest = &s[after..];
            let blanks = rest.len() - rest.trim_start_matches([' ', '\t', '\r']).len();
            if !rest[blanks..].starts_with('\n') {
                // `bash` is a prefix of other info strings (`bashrc`), or text follows.
                continue;
            }
            let body_from = after + blanks + 1;
            let Some(close) = s[body_from - 1..].find("\n```") else {
                continue;
            };
            let body_end = body_from - 1 + close;
            if found.is_some() {
                return None;
            }
            found = Some(MiniAction {
                start,
                command: &s[body_from.min(body_end)..body_end],
                end: body_end + 4,
            });
        }
    }
    found.filter(|a| !a.command.trim().is_empty())
}

/// The last fenced code block that is not nested in another, as SWE-agent's
/// ThoughtActionParser finds it: a line of three backticks and an optional word opens a
/// block (a bare one closes the open block, if any). Gives the opening line's start, the
/// body (from after the opening line to the closing backticks) and the block's end.
fn last_fence(s: &str) -> Option<(usize, &str, usize)> {
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut last = None;
    let mut at = 0;
    while at < s.len() {
        let line_end = s[at..].find('\n').map(|n| at + n);
        let line = &s[at..line_end.unwrap_or(s.len())];
        if let Some(rest) = line.strip_prefix("```") {
            let word_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (word, tail) = rest.split_at(word_len);
            let close = at + 3 + rest.trim_end().len();
            if tail.trim().is_empty() {
                if !stack.is_empty() && word.is_empty() {
                    let (start, body_from) = stack.pop()?;
                    if stack.is_empty() {
                        last = Some((start, &s[body_from..at], close));
                    }
                } else if let Some(end) = line_end {
                    stack.push((at, end + 1));
                }
            }
        }
        match line_end {
            Some(end) => at = end + 1,
            None => break,
        }
    }
    last
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
            notes: None,
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
    fn the_last_fenced_block_is_the_action() {
        let calls = scan(
            "I'll look.\n```python\nprint(1)\n```\nNow:\n```\ncreate reproduce.py\n```",
            Origin::SweAgent,
        );
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].arguments["command"], "create reproduce.py");
        assert_eq!(calls[0].dialect, FENCE_NAME);
        assert_eq!(calls[0].line, 15);
        // A block nested in another is part of it; an unclosed one is no action.
        let calls = scan(
            "```\nedit 1:1\n```python\nx = 1\n```\nend_of_edit\n```",
            Origin::SweAgent,
        );
        assert_eq!(
            calls[0].arguments["command"],
            "edit 1:1\n```python\nx = 1\n```\nend_of_edit"
        );
        assert!(scan("```\nls", Origin::SweAgent).is_empty());
        assert!(scan("```\nls\n```", Origin::Plain).is_empty());
    }

    #[test]
    fn mini_swe_agent_reads_its_one_action_block() {
        let calls = scan(
            "THOUGHT: look.\n\n```mswea_bash_command\ncat <<'EOF' > a.py\nx = 1\nEOF\n```",
            Origin::MiniSweAgent,
        );
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].dialect, MINI_NAME);
        assert_eq!(
            calls[0].arguments["command"],
            "cat <<'EOF' > a.py\nx = 1\nEOF"
        );
        assert_eq!(calls[0].line, 12);
        let calls = scan("Look:\n```bash \nls -a\n```\nDone.", Origin::MiniSweAgent);
        assert_eq!(calls[0].arguments["command"], "ls -a");
        // Two actions, none, an unclosed one or another language: a format error.
        let two = "```bash\nls\n```\nthen\n```mswea_bash_command\npwd\n```";
        assert!(scan(two, Origin::MiniSweAgent).is_empty());
        assert!(scan("```python\nprint(1)\n```", Origin::MiniSweAgent).is_empty());
        assert!(scan("```bash\nls", Origin::MiniSweAgent).is_empty());
        assert!(scan("```bashrc\nls\n```", Origin::MiniSweAgent).is_empty());
        // Only in mini-swe-agent turns; SWE-agent's parsers stay out of them.
        assert!(scan("```bash\nls\n```", Origin::Plain).is_empty());
        assert!(scan("```\nls\n```", Origin::MiniSweAgent).is_empty());
    }

    #[test]
    fn only_in_swe_agent_turns_and_only_closed_tags() {
        assert!(scan("<command>\nls\n</command>", Origin::Plain).is_empty());
        assert!(scan("<command>\nls", Origin::SweAgent).is_empty());
    }
}
