//! Tool results written inside message text, by the legacy prompting formats whose
//! calls the text dialects read: Mandrake's `<tool_result>` blocks and Anthropic's 2023
//! `<function_results>`. Each found result carries the span it came from. Results in
//! any other text stay text.

use super::model::{Part, Raw, ResultPart, TextPart};
use crate::dialects::mandrake_xml::element;
use memchr::memmem;

/// Mandrake's results are read under the name of its calls' dialect: the XML writer
/// puts both back as they were written.
pub(crate) const MANDRAKE: &str = crate::dialects::mandrake_xml::NAME;
pub(crate) const ANTHROPIC_LEGACY: &str = "anthropic-function-results";
/// Mandrake's later JSON results: `{"name", "content"}` or `{"name", "error"}`, bare or
/// in `{"tool_results": […]}`.
pub(crate) const MANDRAKE_JSON: &str = "mandrake-json";

pub(crate) struct Found {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) dialect: &'static str,
    pub(crate) result: ResultPart,
}

/// Every result written in `text`, in order.
pub(crate) fn find(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    if memchr::memchr(b'<', text.as_bytes()).is_some() {
        mandrake(text, &mut out);
        anthropic_legacy(text, &mut out);
    }
    mandrake_json(text, &mut out);
    out.sort_by_key(|f| f.start);
    out
}

/// The first `close` after `from` after which the trimmed body reads as JSON; else the
/// first `close`. Returns (body end, end after the closing tag).
fn json_body_end(text: &str, from: usize, close: &str) -> Option<(usize, usize)> {
    let mut first = None;
    for (n, _) in text[from..].match_indices(close).take(64) {
        let at = from + n;
        first.get_or_insert(at);
        if serde_json::from_str::<serde::de::IgnoredAny>(text[from..at].trim()).is_ok() {
            return Some((at, at + close.len()));
        }
    }
    first.map(|at| (at, at + close.len()))
}

/// A body as content: its JSON when it is JSON, else the text as a string.
fn content(body: &str) -> Raw {
    let trimmed = body.trim();
    if !trimmed.is_empty() && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok() {
        Raw::new(trimmed)
    } else {
        Raw::string(trimmed)
    }
}

/// `<tool_result>\n<result>\nJSON\n</result>\n</tool_result>`, or `<error>` for a failed
/// call (`{"error": "message"}`). The closing tag is the first that leaves valid JSON
/// before it: nothing in the body is escaped.
fn mandrake(text: &str, out: &mut Vec<Found>) {
    const OPEN: &str = "<tool_result>";
    const CLOSE: &str = "</tool_result>";
    let finder = memmem::Finder::new(OPEN);
    let mut from = 0;
    while let Some(n) = finder.find(&text.as_bytes()[from..]) {
        let start = from + n;
        from = start + OPEN.len();
        let inner = crate::scan::skip_ws(text, from);
        let (tag, is_error) = if text[inner..].starts_with("<result>") {
            ("result", false)
        } else if text[inner..].starts_with("<error>") {
            ("error", true)
        } else {
            continue;
        };
        let body = inner + tag.len() + 2;
        let Some((body_end, after)) = json_body_end(text, body, &format!("</{tag}>")) else {
            continue;
        };
        let close = crate::scan::skip_ws(text, after);
        if !text[close..].starts_with(CLOSE) {
            continue;
        }
        let end = close + CLOSE.len();
        let mut result = ResultPart::new(content(&text[body..body_end]));
        result.is_error = is_error;
        out.push(Found {
            start,
            end,
            dialect: MANDRAKE,
            result,
        });
        from = end;
    }
}

/// Inside `<function_results>`: each `<result>` (`<tool_name>`, `<stdout>`) or
/// `<error>` is one result. The wrapper joins the first and last ones' spans.
fn anthropic_legacy(text: &str, out: &mut Vec<Found>) {
    const OPEN: &str = "<function_results>";
    const CLOSE: &str = "</function_results>";
    let finder = memmem::Finder::new(OPEN);
    let mut from = 0;
    while let Some(n) = finder.find(&text.as_bytes()[from..]) {
        let block = from + n + OPEN.len();
        // The block ends at its closing tag, or (the closing tag was a stop sequence)
        // at the next opening, or at the end of the text.
        let block_end = memmem::find(&text.as_bytes()[block..], CLOSE.as_bytes())
            .map(|n| block + n)
            .or_else(|| finder.find(&text.as_bytes()[block..]).map(|n| block + n))
            .unwrap_or(text.len());
        from = block_end.max(block);
        let mut at = crate::scan::skip_ws(text, block);
        while at < block_end {
            let (tag, is_error) = if text[at..].starts_with("<result>") {
                ("result", false)
            } else if text[at..].starts_with("<error>") {
                ("error", true)
            } else if text[at..].starts_with("<system>") {
                // anthropic-tools wrote errors of the whole batch this way.
                ("system", true)
            } else {
                // Newer Cline wraps a plain result in the block, with no elements.
                if at == crate::scan::skip_ws(text, block) && block_end > at {
                    let body = &text[block..block_end];
                    let body = body.strip_prefix('\n').unwrap_or(body);
                    let body = body.strip_suffix('\n').unwrap_or(body);
                    let end = if text[block_end..].starts_with(CLOSE) {
                        block_end + CLOSE.len()
                    } else {
                        block_end
                    };
                    out.push(Found {
                        start: block - OPEN.len(),
                        end,
                        dialect: ANTHROPIC_LEGACY,
                        result: ResultPart::new(Raw::string(body)),
                    });
                }
                break;
            };
            let close = format!("</{tag}>");
            let body = at + tag.len() + 2;
            let Some(n) = text[body..block_end].find(&close) else {
                break;
            };
            let end = body + n + close.len();
            let inner = &text[body..body + n];
            let name = element(inner, "tool_name").map(|s| s.trim().to_owned());
            let value = element(inner, "stdout")
                .or_else(|| element(inner, "stderr"))
                .unwrap_or(if is_error { inner } else { "" });
            let value = value.strip_prefix('\n').unwrap_or(value);
            let value = value.strip_suffix('\n').unwrap_or(value);
            let mut result = ResultPart::new(Raw::string(value));
            result.is_error = is_error;
            result.name = name;
            out.push(Found {
                start: at,
                end,
                dialect: ANTHROPIC_LEGACY,
                result,
            });
            at = crate::scan::skip_ws(text, end);
        }
    }
}

/// Top-level JSON objects shaped as Mandrake's JSON results. A wrapper with several
/// results gives the first one the wrapper's span and the others none of the text.
fn mandrake_json(text: &str, out: &mut Vec<Found>) {
    if memmem::find(text.as_bytes(), b"\"name\"").is_none() {
        return;
    }
    for value in crate::scan::json_values(text) {
        if value.unclosed {
            continue;
        }
        let Ok(doc) = crate::json::Doc::parse(&text[value.start..value.end]) else {
            continue;
        };
        let Some(obj) = doc.root().object() else {
            continue;
        };
        let entries: Vec<crate::json::Node> = match obj.get("tool_results") {
            Some(list) if obj.iter().count() == 1 => list.items().collect(),
            Some(_) => continue,
            None => vec![doc.root()],
        };
        let results: Option<Vec<ResultPart>> = entries.iter().map(mandrake_json_result).collect();
        let Some(results) = results.filter(|r| !r.is_empty()) else {
            continue;
        };
        let count = results.len();
        for (i, result) in results.into_iter().enumerate() {
            // The span goes to the last result: the others are written by it.
            let (start, end) = if i + 1 == count {
                (value.start, value.end)
            } else {
                (value.start, value.start)
            };
            out.push(Found {
                start,
                end,
                dialect: MANDRAKE_JSON,
                result,
            });
        }
    }
}

fn mandrake_json_result(node: &crate::json::Node) -> Option<ResultPart> {
    let obj = node.object()?;
    let name = obj.str("name")?.into_owned();
    if obj.iter().count() != 2 {
        return None;
    }
    let mut result = if let Some(content) = obj.get("content") {
        ResultPart::new(Raw::new(content.text()))
    } else {
        let error = obj.get("error")?;
        let mut r = ResultPart::new(Raw::new(error.text()));
        r.is_error = true;
        r
    };
    result.name = Some(name);
    Some(result)
}

/// Cline and Roo Code's results: in the user message after a tool call, a text block
/// `[read_file for 'path'] Result:` heads the blocks of one result, up to the next
/// header, a `Tool [name] was not executed…` line (a result of its own: the tool did
/// not run), or `<environment_details>`; a first block `The tool execution failed…`
/// makes it an error. `open` counts the calls still unanswered: a header with none
/// before it stays text.
pub(crate) fn cline(parts: &mut Vec<Part>, open: &mut usize) {
    let blocks: Vec<ClineBlock> = parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => ClineBlock::Text(&t.text),
            Part::Block(_) => ClineBlock::Other,
            _ => ClineBlock::Stop,
        })
        .collect();
    let mut groups = cline_groups(&blocks);
    groups.truncate(*open);
    *open -= groups.len();
    for g in groups.into_iter().rev() {
        let Part::Text(t) = &parts[g.at] else {
            continue;
        };
        let mut written = t.text.clone();
        let mut blocks: Vec<Part> = Vec::new();
        if let Some(rest_at) = g.rest_at {
            let rest = &t.text[rest_at..];
            if !rest.trim().is_empty() {
                written.truncate(rest_at);
                blocks.push(Part::Text(TextPart::new(rest.trim_start_matches('\n'))));
            }
        }
        blocks.extend(parts[g.at + 1..g.end].iter().cloned());
        let content = match (g.rest_at, blocks.as_slice()) {
            (Some(_), [Part::Text(x)]) => Raw::string(&x.text),
            (Some(_), []) => Raw::string(""),
            (Some(_), _) => {
                let items: Vec<super::emit::J> = blocks
                    .iter()
                    .map(|b| match b {
                        Part::Text(x) => super::emit::J::obj()
                            .with("type", super::emit::J::str("text"))
                            .with("text", super::emit::J::str(&x.text)),
                        Part::Block(raw) => super::emit::J::Raw(raw.clone()),
                        _ => super::emit::J::Null,
                    })
                    .collect();
                Raw::new(super::emit::J::Arr(items).render(false))
            }
            (None, _) => Raw::string(&t.text),
        };
        let mut result = ResultPart::new(content);
        result.is_error = g.is_error;
        result.name = g.name;
        result.written = Some(super::model::Written {
            dialect: CLINE.into(),
            text: written,
        });
        parts.splice(g.at..g.end, [Part::Result(result)]);
    }
}

/// Whether a message's text blocks hold a Cline result header (`[name …] Result:`, or
/// `Tool [name] was not executed…`) and no native result.
pub(crate) fn has_cline_header(parts: &[Part]) -> bool {
    !parts.iter().any(|p| matches!(p, Part::Result(_)))
        && parts.iter().any(|p| {
            matches!(p, Part::Text(t) if matches!(
                cline_head(&t.text),
                Some(ClineHead::Result { .. } | ClineHead::NotRun { .. })
            ))
        })
}

/// A block of a Cline user message, for [`cline_groups`].
pub(crate) enum ClineBlock<'a> {
    Text(&'a str),
    /// A block that may be part of a result (an image).
    Other,
    /// A part that ends any result (a native result or call).
    Stop,
}

/// One result Cline wrote in a user message's blocks: the blocks `at..end`.
pub(crate) struct ClineGroup {
    pub(crate) at: usize,
    pub(crate) end: usize,
    /// The tool it names (none for a failure without header).
    pub(crate) name: Option<String>,
    pub(crate) is_error: bool,
    /// For a header: where the header block's own text after the header starts.
    pub(crate) rest_at: Option<usize>,
}

/// The results in a Cline user message's blocks, in order.
pub(crate) fn cline_groups(blocks: &[ClineBlock]) -> Vec<ClineGroup> {
    const FAILED: &str = "The tool execution failed with the following error:";
    let mut out = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let ClineBlock::Text(text) = blocks[i] else {
            i += 1;
            continue;
        };
        let Some(head) = cline_head(text) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        let group = match head {
            ClineHead::Result { name, rest_at } => {
                // Real Cline and Roo write the header and the content as separate
                // blocks: a failure right after the header is this result's content.
                let mut is_error = text[rest_at..].trim_start().starts_with(FAILED);
                while j < blocks.len() {
                    match blocks[j] {
                        ClineBlock::Text(x)
                            if ends_result(x)
                                || matches!(
                                    cline_head(x),
                                    Some(ClineHead::Result { .. } | ClineHead::NotRun { .. })
                                ) =>
                        {
                            break;
                        }
                        ClineBlock::Text(x) => is_error |= j == i + 1 && x.starts_with(FAILED),
                        ClineBlock::Other => {}
                        ClineBlock::Stop => break,
                    }
                    j += 1;
                }
                ClineGroup {
                    at: i,
                    end: j,
                    name: Some(name),
                    is_error,
                    rest_at: Some(rest_at),
                }
            }
            ClineHead::NotRun { name } => ClineGroup {
                at: i,
                end: j,
                name: Some(name),
                is_error: true,
                rest_at: None,
            },
            ClineHead::Failed => ClineGroup {
                at: i,
                end: j,
                name: None,
                is_error: true,
                rest_at: None,
            },
        };
        out.push(group);
        i = j;
    }
    out
}

pub(crate) const CLINE: &str = "cline-results";

enum ClineHead {
    /// `[name for '…'] Result:`; the block's own text after the header starts at `rest_at`.
    Result { name: String, rest_at: usize },
    /// `Tool [name] was not executed…`, `Skipping tool [name …]…`.
    NotRun { name: String },
    /// `The tool execution failed with the following error:` with no header (newer Cline).
    Failed,
}

fn cline_head(text: &str) -> Option<ClineHead> {
    let name_at = |s: &str| -> Option<String> {
        let s = s.strip_prefix('[')?;
        let end = s.find([' ', ']'])?;
        let name = &s[..end];
        (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
            .then(|| name.to_owned())
    };
    if text.starts_with('[') {
        let line_end = text.find('\n').unwrap_or(text.len());
        if text[..line_end].trim_end().ends_with("] Result:") {
            let name = name_at(text)?;
            return Some(ClineHead::Result {
                name,
                rest_at: line_end,
            });
        }
        return None;
    }
    for lead in ["Tool [", "Skipping tool ["] {
        if let Some(rest) = text.strip_prefix(lead)
            && (text.contains("was not executed") || text.contains("due to user rejecting"))
        {
            return Some(ClineHead::NotRun {
                name: name_at(&format!("[{rest}"))?,
            });
        }
    }
    text.starts_with("The tool execution failed with the following error:")
        .then_some(ClineHead::Failed)
}

/// A block that is not part of the result before it.
fn ends_result(text: &str) -> bool {
    text.starts_with("<environment_details>") || text.starts_with("[TASK RESUMPTION]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mandrake_results_and_errors() {
        let text = "a<tool_result>\n<result>\n{\"s\": \"</result>\"}\n</result>\n</tool_result>b<tool_result><error>\n{\n  \"error\": \"boom\"\n}\n</error></tool_result>";
        let found = find(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].result.content.as_str(), "{\"s\": \"</result>\"}");
        assert!(!found[0].result.is_error);
        assert_eq!(
            &text[found[0].start..found[0].end],
            &text[1..text.find('b').unwrap()]
        );
        assert!(found[1].result.is_error);
        assert_eq!(found[1].result.content.value()["error"], "boom");
        assert_eq!(found[1].end, text.len());
    }

    #[test]
    fn anthropic_function_results() {
        let text = "<function_results>\n<result>\n<tool_name>calc</tool_name>\n<stdout>\n42\n</stdout>\n</result>\n<error>\nno such tool\n</error>\n</function_results>\nDone.";
        let found = find(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].result.name.as_deref(), Some("calc"));
        assert_eq!(found[0].result.content.as_string().unwrap(), "42");
        assert!(found[1].result.is_error);
        assert_eq!(found[1].result.content.as_string().unwrap(), "no such tool");
        assert!(text[found[1].end..].starts_with("\n</function_results>"));
    }

    #[test]
    fn a_function_results_block_of_plain_text_is_one_result() {
        let text = "<function_results>\nfile written\n</function_results>\nNext.";
        let found = find(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].result.content.as_string().unwrap(), "file written");
        assert!(!found[0].result.is_error);
        assert_eq!(&text[found[0].end..], "\nNext.");
    }

    #[test]
    fn a_mandrake_result_that_is_not_json_is_its_text() {
        let text = "<tool_result>\n<result>\nplain words, not JSON\n</result>\n</tool_result>";
        let found = find(text);
        assert_eq!(found.len(), 1);
        // Kept as a JSON string (valid JSON in every target), its text as written.
        assert_eq!(
            found[0].result.content.as_str(),
            "\"plain words, not JSON\""
        );
        assert_eq!(found[0].end, text.len());
    }

    #[test]
    fn the_tool_results_wrapper_gives_each_result_in_order() {
        let text = r#"{"tool_results": [{"name": "a.f", "content": {"x": 1}}, {"name": "b.g", "error": "no"}]}"#;
        let found = find(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].result.name.as_deref(), Some("a.f"));
        assert_eq!(found[0].result.content.value()["x"], 1);
        assert_eq!(found[1].result.name.as_deref(), Some("b.g"));
        assert!(found[1].result.is_error);
        // The text is written once: by the last result's span.
        assert_eq!((found[0].start, found[0].end), (0, 0));
        assert_eq!((found[1].start, found[1].end), (0, text.len()));
        // A wrapper with another member is no result at all.
        assert!(find(r#"{"tool_results": [{"name": "a", "content": 1}], "x": 1}"#).is_empty());
    }
}
