//! Cline / Roo Code tool-name-as-tag XML: `<read_file><path>…</path></read_file>`. The
//! tag is a known Cline/Roo tool (or a `--tools` name) and each child element is one
//! parameter. Values are the raw text between the tags, trimmed (`content` and `diff`
//! lose only one line break at each end), never entity-decoded, and stay strings.
//! A block whose inside is anything but parameter elements is prose, not a call.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::scan;
use serde_json::Value;

pub(crate) const NAME: &str = "cline-xml";

/// The tool names of Roo Code and Cline's XML eras.
pub(crate) const TOOLS: &[&str] = &[
    "execute_command",
    "read_file",
    "write_to_file",
    "apply_diff",
    "search_and_replace",
    "search_replace",
    "edit_file",
    "apply_patch",
    "search_files",
    "list_files",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "switch_mode",
    "new_task",
    "fetch_instructions",
    "codebase_search",
    "update_todo_list",
    "run_slash_command",
    "generate_image",
    "insert_content",
    "list_code_definition_names",
    "replace_in_file",
    "plan_mode_respond",
    "load_mcp_documentation",
    "web_fetch",
    "condense",
    "summarize_task",
    "report_bug",
];

/// Parameters whose value is taken up to the last closing tag in the block (file
/// contents may hold their own closing-tag text).
const LAST_CLOSE: &[&str] = &["content", "diff", "arguments"];

pub(crate) struct Cline;
pub(crate) static CLINE: Cline = Cline;

impl Scanner for Cline {
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
            "Cline / Roo Code XML: the tool name as tag, one child element per parameter (raw text values)",
            "<read_file>\n<path>src/main.rs</path>\n</read_file>",
        )]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let mut closes = scan::NextFind::default();
        let mut i = 0;
        for &at in &text.openers().angle {
            if at < i {
                continue;
            }
            i = at + 1;
            let Some(name) = scan::ident(&s[at + 1..]) else {
                continue;
            };
            if !s[at + 1 + name.len()..].starts_with('>') {
                continue;
            }
            let tool = if TOOLS.contains(&name) {
                name.to_owned()
            } else if let Some(declared) = ctx.declared(name) {
                declared.to_owned()
            } else {
                continue;
            };
            if let Some((mut call, end)) = block(s, at, name, &tool, ctx, &mut closes) {
                call.line = text.line_at(at);
                out.push(Hit {
                    call,
                    start: at,
                    end,
                    balanced: false,
                    specificity: MARKED,
                });
                i = end;
            }
        }
    }
}

/// Parses the block opened at `at`: parameters up to `</name>`, or to the end of the
/// text for a final unterminated block (a streamed or aborted turn).
fn block(
    s: &str,
    at: usize,
    name: &str,
    tool: &str,
    ctx: &ScanContext,
    closes: &mut scan::NextFind,
) -> Option<(Call, usize)> {
    let mut p = at + name.len() + 2;
    // A call's first child is a parameter element (or the block is empty): prose that
    // names a tool is rejected before the closing tag is looked for.
    let head = s[p..].trim_start();
    if head.len() < 2 {
        ctx.candidate(at);
    }
    if !head.starts_with('<') || head.starts_with("<!") {
        return None;
    }
    ctx.candidate(at);
    let close = format!("</{name}>");
    let block_end = closes.find(s, &close, p);
    let limit = block_end.unwrap_or(s.len());
    let mut call = Call::new(tool, NAME, 0);
    call.raw_strings = true;
    let mut params = 0;
    loop {
        let rest = &s[p..limit];
        let trimmed = rest.trim_start();
        p += rest.len() - trimmed.len();
        if p >= limit {
            break;
        }
        if !trimmed.starts_with('<') {
            return None;
        }
        let param = scan::ident(&trimmed[1..])?;
        if !trimmed[1 + param.len()..].starts_with('>') {
            return None;
        }
        let value_start = p + param.len() + 2;
        let param_close = format!("</{param}>");
        let window = &s[value_start..limit];
        let found = if LAST_CLOSE.contains(&param) {
            window.rfind(&param_close)
        } else {
            window.find(&param_close)
        };
        let (value, next) = match found {
            Some(n) => (&window[..n], value_start + n + param_close.len()),
            // Unclosed parameter: only in a final, unterminated block.
            None if block_end.is_none() => (window, limit),
            None => return None,
        };
        let value = if LAST_CLOSE.contains(&param) {
            let v = value
                .strip_prefix("\r\n")
                .or_else(|| value.strip_prefix('\n'))
                .unwrap_or(value);
            v.strip_suffix("\r\n")
                .or_else(|| v.strip_suffix('\n'))
                .unwrap_or(v)
        } else {
            value.trim()
        };
        call.arguments
            .insert(param.to_owned(), Value::String(value.to_owned()));
        params += 1;
        p = next;
    }
    match block_end {
        Some(end) => Some((call, end + close.len())),
        None if params > 0 => {
            call.repairs.push("missing-close-tag");
            Some((call, s.len()))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&CLINE, text, &[], false)
    }

    #[test]
    fn raw_values_and_content_with_closing_tag_text() {
        let text = "<thinking>\nRead first.\n</thinking>\n\n<write_to_file>\n<path>src/a.ts</path>\n<content>\nexport const x = 1 < 2 && \"</content>\" & y;\n</content>\n</write_to_file>";
        let hits = scan_text(text);
        assert_eq!(hits.len(), 1);
        let args = &hits[0].call.arguments;
        assert_eq!(args["path"], "src/a.ts");
        assert_eq!(
            args["content"],
            "export const x = 1 < 2 && \"</content>\" & y;"
        );
        assert_eq!(hits[0].call.line, 5);
    }

    #[test]
    fn prose_mentions_and_other_tags_are_not_calls() {
        assert!(scan_text("Use the <read_file> tool to read <path> values.").is_empty());
        assert!(scan_text("<dependency><groupId>g</groupId></dependency>").is_empty());
        assert!(scan_text("<environment_details>\n<x>1</x>\n</environment_details>").is_empty());
    }

    #[test]
    fn several_calls_and_a_final_unterminated_one() {
        let hits = scan_text(
            "<read_file>\n<path>a</path>\n</read_file>\n<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n<read_file>\n<path>b",
        );
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["read_file", "execute_command", "read_file"]);
        assert_eq!(hits[1].call.arguments["requires_approval"], "false");
        assert_eq!(hits[2].call.repairs, ["missing-close-tag"]);
    }
}
