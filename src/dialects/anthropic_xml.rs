//! Anthropic's legacy XML function calls inside text. Two generations:
//! `<invoke name="f"><parameter name="p">v</parameter></invoke>` (also with a namespace
//! prefix on the tags) and the 2023
//! `<invoke><tool_name>f</tool_name><parameters><p>v</p></parameters></invoke>`. The
//! enclosing `<function_calls>` block is optional:
//! models leak bare invokes, stray closing tags and truncated blocks (the closing tag
//! was often the stop sequence). Values are strings unless they read as a JSON
//! object, array, number or boolean.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::scan;

pub(crate) const NAME: &str = "anthropic-xml";
pub(crate) const LEGACY: &str = "anthropic-xml-legacy";

pub(crate) struct AnthropicXml;
pub(crate) static ANTHROPIC_XML: AnthropicXml = AnthropicXml;

impl Scanner for AnthropicXml {
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
                "Anthropic XML function calls: <invoke name> with <parameter name> children, optional <function_calls> and namespace prefix",
                "<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</function_calls>",
            ),
            DialectRow::new(
                LEGACY,
                Channel::Text,
                "Anthropic 2023 prompt format: <invoke> with <tool_name> and <parameters>",
                "<function_calls>\n<invoke>\n<tool_name>calculator</tool_name>\n<parameters>\n<first_operand>3</first_operand>\n</parameters>\n</invoke>",
            ),
        ]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        let s = text.text.as_str();
        let mut from = 0;
        // Closing tags are searched in text order: a search that found none answers
        // the later ones.
        let mut closes = scan::NextFind::default();
        let angle = &text.openers().angle;
        while let Some(open) = next_open(s, angle, from) {
            ctx.candidate(open.start);
            from = open.tag_end;
            let closed = close_of(s, angle, open.tag_end, open.prefix, &mut closes);
            let (body_end, end) = match closed {
                Some((b, e)) => (b, e),
                // Truncated: up to the next invoke, or the end of the text.
                None => {
                    let stop = next_open(s, angle, open.tag_end).map_or(s.len(), |n| n.start);
                    (stop, stop)
                }
            };
            let body = &s[open.tag_end..body_end];
            // A declared tool's values stay raw text, for its schema to type.
            let typed = |name: &str| ctx.schema(name).is_none();
            let parsed = match scan::attribute(open.attrs, "name") {
                Some(name) if ctx.enabled(NAME) => parameters(name, body, open.prefix, typed(name)),
                None if ctx.enabled(LEGACY) => legacy(body, typed),
                _ => None,
            };
            let Some(mut call) = parsed else { continue };
            if end == body_end {
                call.repairs.push("missing-close-tag");
            }
            call.line = text.line_at(open.start);
            out.push(Hit {
                call,
                start: open.start,
                end,
                balanced: false,
                specificity: MARKED,
            });
            from = end.max(from);
        }
    }
}

struct Open<'a> {
    start: usize,
    tag_end: usize,
    prefix: &'a str,
    attrs: &'a str,
}

/// The next `<invoke…>` or `<prefix:invoke…>` at or after `from`, among the text's `<`.
fn next_open<'s>(s: &'s str, angle: &[usize], from: usize) -> Option<Open<'s>> {
    let first = angle.partition_point(|&p| p < from);
    for &start in &angle[first..] {
        let rest = &s[start + 1..];
        let prefix = match scan::ident(rest) {
            Some(id) if rest[id.len()..].starts_with(':') => &rest[..id.len() + 1],
            _ => "",
        };
        let Some(after) = rest[prefix.len()..].strip_prefix("invoke") else {
            continue;
        };
        if !after.starts_with(['>', ' ', '\n', '\t', '\r']) {
            continue;
        }
        // A tag that another `<` interrupts is not one.
        let Some(tag_end) = scan::tag_end(s, start) else {
            continue;
        };
        let attrs_start = start + 1 + prefix.len() + "invoke".len();
        return Some(Open {
            start,
            tag_end: tag_end + 1,
            prefix,
            attrs: &s[attrs_start..tag_end],
        });
    }
    None
}

/// The closing `</invoke>` of a block: (end of body, end of tag).
fn close_of(
    s: &str,
    angle: &[usize],
    from: usize,
    prefix: &str,
    closes: &mut scan::NextFind,
) -> Option<(usize, usize)> {
    let close = format!("</{prefix}invoke>");
    let at = closes.find(s, &close, from)?;
    // A later <invoke> before the close means this one was cut off.
    if let Some(next) = next_open(s, angle, from)
        && next.start < at
    {
        return None;
    }
    Some((at, at + close.len()))
}

/// `<parameter name="p">value</parameter>` children.
fn parameters(name: &str, body: &str, prefix: &str, typed: bool) -> Option<Call> {
    if !scan::is_tool_name(name) {
        return None;
    }
    let mut call = Call::new(name, NAME, 0);
    call.raw_strings = !typed;
    let open = format!("<{prefix}parameter");
    let close = format!("</{prefix}parameter>");
    let mut p = 0;
    while let Some(off) = body[p..].find(&open) {
        let at = p + off;
        let Some(tag_len) = body[at..].find('>') else {
            break;
        };
        let attrs = &body[at + open.len()..at + tag_len];
        let Some(param) = scan::attribute(attrs, "name") else {
            p = at + open.len();
            continue;
        };
        let value_start = at + tag_len + 1;
        let (value_end, next, ambiguous) = value_close(body, value_start, &close, &open, prefix);
        let raw = trim_breaks(&body[value_start..value_end]);
        let value = if attrs.contains("string=\"true\"") || !typed {
            serde_json::Value::String(raw.to_owned())
        } else {
            scan::typed_value(raw)
        };
        call.arguments.insert(param.to_owned(), value);
        if ambiguous && !call.repairs.contains(&"ambiguous-delimiter") {
            call.repairs.push("ambiguous-delimiter");
        }
        p = next;
    }
    Some(call)
}

/// Where a parameter value ends. A value may hold text that looks like its own closing
/// tag (code that writes XML): the close chosen is the first one after which only
/// another parameter, the end of the invoke, or nothing follows.
fn value_close(
    body: &str,
    from: usize,
    close: &str,
    open: &str,
    prefix: &str,
) -> (usize, usize, bool) {
    let end_invoke = format!("</{prefix}invoke");
    let mut first = None;
    let mut search = from;
    while let Some(off) = body[search..].find(close) {
        let at = search + off;
        let after = &body[at + close.len()..];
        let rest = after.trim_start();
        first.get_or_insert(at);
        if rest.is_empty() || rest.starts_with(open) || rest.starts_with(&end_invoke) {
            return (at, at + close.len(), Some(at) != first);
        }
        search = at + close.len();
    }
    match first {
        Some(at) => (at, at + close.len(), false),
        None => (body.len(), body.len(), false),
    }
}

/// The 2023 form: `<tool_name>` and `<parameters>` with one element per parameter.
fn legacy(body: &str, typed: impl Fn(&str) -> bool) -> Option<Call> {
    let name_start = body.find("<tool_name>")? + "<tool_name>".len();
    let name_len = body[name_start..].find("</tool_name>")?;
    let name = body[name_start..name_start + name_len].trim();
    if !scan::is_tool_name(name) {
        return None;
    }
    let mut call = Call::new(name, LEGACY, 0);
    let typed = typed(name);
    call.raw_strings = !typed;
    let Some(params_start) = body.find("<parameters>").map(|i| i + "<parameters>".len()) else {
        return Some(call);
    };
    let params_end = body[params_start..]
        .rfind("</parameters>")
        .map_or(body.len(), |n| params_start + n);
    let params = &body[params_start..params_end];
    let mut p = 0;
    while let Some(off) = params[p..].find('<') {
        let at = p + off;
        let Some(param) = scan::ident(&params[at + 1..]) else {
            p = at + 1;
            continue;
        };
        if !params[at + 1 + param.len()..].starts_with('>') {
            p = at + 1;
            continue;
        }
        let value_start = at + param.len() + 2;
        let close = format!("</{param}>");
        let Some(len) = params[value_start..].find(&close) else {
            break;
        };
        let raw = trim_breaks(&params[value_start..value_start + len]);
        call.arguments.insert(
            param.to_owned(),
            if typed {
                scan::typed_value(raw)
            } else {
                raw.into()
            },
        );
        p = value_start + len + close.len();
    }
    Some(call)
}

/// Drops one line break at each end: the tags usually sit on lines of their own.
fn trim_breaks(v: &str) -> &str {
    let v = v
        .strip_prefix("\r\n")
        .or_else(|| v.strip_prefix('\n'))
        .unwrap_or(v);
    v.strip_suffix("\r\n")
        .or_else(|| v.strip_suffix('\n'))
        .unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&ANTHROPIC_XML, text, &[], false)
    }

    #[test]
    fn an_invoke_cut_off_by_the_next_does_not_leave_the_next_unclosed() {
        let hits = scan_text(
            "<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n<invoke name=\"b\">\n<parameter name=\"y\">2</parameter>\n</invoke>",
        );
        let got: Vec<(&str, &[&str])> = hits
            .iter()
            .map(|h| (h.call.name.as_str(), &h.call.repairs[..]))
            .collect();
        assert_eq!(got, [("a", &["missing-close-tag"][..]), ("b", &[][..])]);
    }

    #[test]
    fn attribute_form_typed_values_and_prefixes() {
        let hits = scan_text(
            "<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n<parameter name=\"opts\">{\"units\":\"metric\"}</parameter>\n<parameter name=\"zip\">null</parameter>\n</invoke>\n</function_calls>",
        );
        let a = &hits[0].call.arguments;
        assert_eq!(
            (
                a["city"].clone(),
                a["days"].clone(),
                a["opts"]["units"].clone(),
                a["zip"].clone()
            ),
            ("Paris".into(), 3.into(), "metric".into(), "null".into())
        );
        // A namespace prefix on every tag, a bare invoke with no wrapper.
        let text = "call <x:invoke name=\"Bash\">\n<x:parameter name=\"command\">ls -la</x:parameter>\n</x:invoke>";
        let hits = scan_text(text);
        assert_eq!(hits[0].call.name, "Bash");
        assert_eq!(hits[0].call.arguments["command"], "ls -la");
    }

    #[test]
    fn stray_closing_tags_and_truncated_blocks() {
        let text = "<function_calls>\n<invoke name=\"Glob\">\n<parameter name=\"pattern\">src/**/*.ts</parameter>\n</invoke>\n</function_calls>\n<invoke name=\"Read\">\n<parameter name=\"path\">/a</parameter>\n</invoke>\n</function_calls>\n</function_calls>\n<invoke name=\"Bash\">\n<parameter name=\"command\">ls";
        let hits = scan_text(text);
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["Glob", "Read", "Bash"]);
        assert_eq!(hits[2].call.arguments["command"], "ls");
        assert_eq!(hits[2].call.repairs, ["missing-close-tag"]);
    }

    #[test]
    fn a_value_holding_its_own_closing_tag() {
        let text = "<invoke name=\"Write\">\n<parameter name=\"content\"><a></parameter></b></parameter>\n<parameter name=\"path\">x.xml</parameter>\n</invoke>";
        let hits = scan_text(text);
        assert_eq!(hits[0].call.arguments["content"], "<a></parameter></b>");
        assert_eq!(hits[0].call.arguments["path"], "x.xml");
        assert_eq!(hits[0].call.repairs, ["ambiguous-delimiter"]);
    }

    #[test]
    fn legacy_form_and_template_placeholders() {
        let text = "<function_calls>\n<invoke>\n<tool_name>$TOOL_NAME</tool_name>\n</invoke>\n</function_calls>\nOkay:\n<function_calls>\n<invoke>\n<tool_name>calculator</tool_name>\n<parameters>\n<first_operand>1984135</first_operand>\n<operator>*</operator>\n</parameters>\n</invoke>\n";
        let hits = scan_text(text);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].call.dialect, LEGACY);
        assert_eq!(hits[0].call.arguments["first_operand"], 1984135);
        assert_eq!(hits[0].call.arguments["operator"], "*");
    }
}
