//! WIL, UICP's line language: `create window id w1 title "Notes" size 1200x800`
//! becomes `window.create {"id":"w1","title":"Notes","width":1200,"height":800}`.
//! Lines look like prose, so the dialect reads only text between `BEGIN WIL` and
//! `END WIL`, or whole texts when selected with `--dialects wil`. UICP reads the
//! sentinels in any case; here `BEGIN` and `END` may be in any case and `WIL` in upper
//! or lower case, so that text with no `WIL` or `wil` is passed over by two fast
//! searches (`Text::wil_blocks`).
//!
//! The grammar is data: per operation, templates of literal words and `{slot}`s,
//! with `[optional]` parts and `(alternative|choices)`, expanded once. Operations are
//! tried in lexicon order, templates with the most slots (then the longest) first, and
//! the first match wins, as UICP does. Lines that match nothing are passed over.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use serde_json::{Map, Value};
use std::sync::OnceLock;

pub(crate) const NAME: &str = "wil";

/// (operation, templates) in lexicon order.
const LEXICON: &[(&str, &[&str])] = &[
    (
        "window.create",
        &[
            "(create|new) window[ id {id}] title {title}[ width {width} height {height}| size {size}| at {x},{y}]",
            "make window title {title}[ width {width} height {height}| size {size}]",
            "open window title {title}",
        ],
    ),
    (
        "window.update",
        &[
            "update window {id}[ title {title}| width {width} height {height}| at {x},{y}| zindex {zIndex}]",
        ],
    ),
    ("window.move", &["move window {id} to[ position] {x},{y}"]),
    (
        "window.resize",
        &[
            "resize window {id} to {width}x{height}",
            "resize window {id} width {width} height {height}",
        ],
    ),
    (
        "window.focus",
        &["(focus|activate) window {id}", "bring window {id} to front"],
    ),
    ("window.close", &["close window {id}", "close window"]),
    (
        "dom.set",
        &[
            "set html in {target}[ of window {windowId}] to {html}",
            "set inner html (in|of) {target}[ of window {windowId}] to {html}",
            "insert html in {target}[ of window {windowId}] {html}",
        ],
    ),
    (
        "dom.replace",
        &[
            "(replace|swap) html in {target}[ of window {windowId}] with {html}",
            "replace in {target}[ of window {windowId}] with {html}",
            "replace {target}[ of window {windowId}] with {html}",
        ],
    ),
    (
        "dom.append",
        &[
            "append html in {target}[ of window {windowId}] with {html}",
            "add html in {target}[ of window {windowId}] {html}",
            "(add to|append to) {target}[ of window {windowId}] {html}",
            "(append|add) {html} to {target}[ of window {windowId}]",
        ],
    ),
    (
        "component.render",
        &[
            "render component {type} in window {windowId} at {target}[ with {props}]",
            "render component {type} at {target}",
            "mount {type} in {target}",
        ],
    ),
    (
        "component.update",
        &[
            "update component {id}[ props {props}| with {props}| with props {props}]",
            "patch component {id} with {props}",
            "set component {id} (props|to) {props}",
            "update props on component {id} {props}",
            "change component {id} props to {props}",
        ],
    ),
    ("component.destroy", &["destroy component {id}"]),
    (
        "state.set",
        &[
            "set state {key} to {value}[ in {scope}]",
            "store state {key} {value} in {scope}",
        ],
    ),
    ("state.get", &["(get|read) state {key}[ in {scope}]"]),
    ("state.watch", &["(watch|observe) state {key}[ in {scope}]"]),
    (
        "state.unwatch",
        &[
            "unwatch state {key}[ in {scope}]",
            "stop watching state {key} in {scope}",
        ],
    ),
    (
        "api.call",
        &[
            "open url {url}",
            "visit {url}",
            "go to {url}",
            "open {url}",
            "api {method} {url}",
        ],
    ),
    ("txn.cancel", &["cancel txn {id}", "cancel"]),
];

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(String),
    Slot(String),
}

struct Template {
    tokens: Vec<Token>,
    slots: usize,
    len: usize,
}

fn grammar() -> &'static Vec<(&'static str, Vec<Template>)> {
    static GRAMMAR: OnceLock<Vec<(&'static str, Vec<Template>)>> = OnceLock::new();
    GRAMMAR.get_or_init(|| {
        LEXICON
            .iter()
            .map(|(op, sources)| {
                let mut templates: Vec<Template> = sources
                    .iter()
                    .flat_map(|t| expand(t))
                    .map(|t| {
                        let tokens = tokenize(&t);
                        let slots = tokens
                            .iter()
                            .filter(|t| matches!(t, Token::Slot(_)))
                            .count();
                        Template {
                            tokens,
                            slots,
                            len: t.len(),
                        }
                    })
                    .collect();
                templates.sort_by(|a, b| b.slots.cmp(&a.slots).then(b.len.cmp(&a.len)));
                (*op, templates)
            })
            .collect()
    })
}

/// Expands `[a|b]` (none, a or b) and `(a|b)` (a or b) into plain templates.
fn expand(t: &str) -> Vec<String> {
    let Some(open) = t.find(['[', '(']) else {
        return vec![t.to_owned()];
    };
    let close_char = if t.as_bytes()[open] == b'[' { ']' } else { ')' };
    let close = open + t[open..].find(close_char).expect("balanced template");
    let choices: Vec<&str> = t[open + 1..close].split('|').collect();
    let mut options: Vec<&str> = choices.clone();
    if close_char == ']' {
        options.insert(0, "");
    }
    let rest = expand(&t[close + 1..]);
    let mut out = Vec::new();
    for choice in options {
        for tail in &rest {
            for head in expand(&format!("{}{}", &t[..open], choice)) {
                out.push(format!("{head}{tail}"));
            }
        }
    }
    out
}

fn tokenize(t: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut rest = t;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            tokens.push(Token::Literal(rest[..open].to_owned()));
        }
        let close = rest[open..].find('}').expect("closed slot") + open;
        tokens.push(Token::Slot(rest[open + 1..close].to_owned()));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        tokens.push(Token::Literal(rest.to_owned()));
    }
    tokens
}

/// Whether a slot value fits its slot's kind.
fn fits(slot: &str, value: &str) -> bool {
    let v = value.trim();
    if v.is_empty() {
        return false;
    }
    match slot {
        "width" | "height" | "x" | "y" | "zIndex" => {
            let digits = v.strip_prefix('-').unwrap_or(v);
            !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
        }
        "url" => !v.contains(char::is_whitespace),
        "method" => v.chars().all(|c| c.is_ascii_alphabetic()),
        "id" | "windowId" => {
            is_quoted(v)
                || v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        }
        _ => true,
    }
}

fn is_quoted(v: &str) -> bool {
    v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')))
}

/// Matches tokens against the whole line, collecting slot values (backtracking; a
/// slot takes the shortest value that lets the rest match, the last slot the rest).
fn matches(tokens: &[Token], line: &str, out: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return line.is_empty();
    };
    match first {
        Token::Literal(lit) => {
            line.len() >= lit.len()
                && line.is_char_boundary(lit.len())
                && line[..lit.len()].eq_ignore_ascii_case(lit)
                && matches(rest, &line[lit.len()..], out)
        }
        Token::Slot(slot) => {
            if rest.is_empty() {
                if fits(slot, line) {
                    out.push((slot.clone(), line.to_owned()));
                    return true;
                }
                return false;
            }
            for (end, _) in line.char_indices().skip(1).chain([(line.len(), ' ')]) {
                let value = &line[..end];
                if !fits(slot, value) {
                    continue;
                }
                let before = out.len();
                out.push((slot.clone(), value.to_owned()));
                if matches(rest, &line[end..], out) {
                    return true;
                }
                out.truncate(before);
            }
            false
        }
    }
}

/// Curly quotes made straight, white space collapsed.
fn normalize(line: &str) -> String {
    let straight: String = line
        .chars()
        .map(|c| match c {
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            c => c,
        })
        .collect();
    straight.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Courtesy words the window operations ignore (outside quotes).
fn without_skip_words(line: &str, op: &str) -> String {
    let mut line = line.to_owned();
    for lead in ["please ", "can you "] {
        if line.len() >= lead.len()
            && line.as_bytes()[..lead.len()].eq_ignore_ascii_case(lead.as_bytes())
        {
            line = line[lead.len()..].to_owned();
        }
    }
    if !op.starts_with("window.") {
        return line;
    }
    let mut out: Vec<&str> = Vec::new();
    let mut quote: Option<char> = None;
    for word in line.split(' ') {
        if quote.is_none() && (word.eq_ignore_ascii_case("the") || word.eq_ignore_ascii_case("a")) {
            continue;
        }
        for c in word.chars() {
            if c == '"' || c == '\'' {
                quote = match quote {
                    Some(q) if q == c => None,
                    None => Some(c),
                    other => other,
                };
            }
        }
        out.push(word);
    }
    out.join(" ")
}

/// Parses one WIL line into (operation, params).
pub(crate) fn parse_line(line: &str) -> Option<(&'static str, Map<String, Value>)> {
    // Every template starts with a verb: a line that starts with none of them (prose)
    // is passed over before any template is tried. WIL lines are short.
    if line.len() > MAX_LINE || !starts_with_verb(line) {
        return None;
    }
    let line = normalize(line);
    if line.is_empty() || line.to_ascii_lowercase().starts_with("nop:") {
        return None;
    }
    for (op, templates) in grammar() {
        let candidate = without_skip_words(&line, op);
        for template in templates {
            let mut slots = Vec::new();
            if matches(&template.tokens, &candidate, &mut slots) {
                return Some((op, params(op, slots)));
            }
        }
    }
    None
}

/// Longer lines are not WIL (the template matcher backtracks over a line's length).
const MAX_LINE: usize = 4096;

/// The first words of every template, and the courtesy words before them.
fn first_words() -> &'static Vec<String> {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: Vec<String> = grammar()
            .iter()
            .flat_map(|(_, templates)| templates.iter())
            .filter_map(|t| match t.tokens.first() {
                Some(Token::Literal(lit)) => lit.split(' ').next().map(str::to_ascii_lowercase),
                _ => None,
            })
            .chain(["please".to_owned(), "can".to_owned()])
            .collect();
        words.sort();
        words.dedup();
        words
    })
}

fn starts_with_verb(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    word.len() <= 12
        && first_words()
            .binary_search(&word.to_ascii_lowercase())
            .is_ok()
}

fn params(op: &str, slots: Vec<(String, String)>) -> Map<String, Value> {
    let mut map = Map::new();
    for (slot, raw) in slots {
        let v = raw.trim();
        let v = if is_quoted(v) { &v[1..v.len() - 1] } else { v };
        let value = match slot.as_str() {
            "width" | "height" | "x" | "y" | "zIndex" => v
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| v.into()),
            "props" | "value" if v.starts_with(['{', '[']) => {
                serde_json::from_str(v).unwrap_or_else(|_| v.into())
            }
            "method" => Value::String(v.to_ascii_uppercase()),
            "size" => match size(v) {
                Some((w, h)) => {
                    map.insert("width".into(), w.into());
                    map.insert("height".into(), h.into());
                    continue;
                }
                None => v.into(),
            },
            _ => v.into(),
        };
        map.insert(slot, value);
    }
    for key in ["width", "height"] {
        if let Some(n) = map.get(key).and_then(Value::as_i64)
            && n < 120
        {
            map.insert(key.into(), 120.into());
        }
    }
    if op == "api.call" && !map.contains_key("method") {
        map.insert("method".into(), "GET".into());
    }
    map
}

/// `1200x800` or `1200 x 800`: (width, height).
fn size(v: &str) -> Option<(i64, i64)> {
    let (w, h) = v.split_once(['x', 'X'])?;
    let (w, h) = (w.trim(), h.trim());
    let ok = |s: &str| (2..=5).contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit());
    (ok(w) && ok(h))
        .then(|| (w.parse().ok(), h.parse().ok()))
        .and_then(|(w, h)| Some((w?, h?)))
}

pub(crate) struct Wil;
pub(crate) static WIL: Wil = Wil;

impl Scanner for Wil {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    /// Blocks are context regions, which a window is never cut inside.
    fn reports_resume(&self) -> bool {
        true
    }

    fn rows(&self, _: &super::Registry) -> Vec<DialectRow> {
        vec![DialectRow::new(
            NAME,
            Channel::Text,
            "UICP WIL lines, operation as name (inside BEGIN WIL … END WIL, or with --dialects wil)",
            "BEGIN WIL\ncreate window id w1 title \"Notes\" size 1200x800\nEND WIL",
        )]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let named = ctx.explicitly(NAME);
        // Most text holds no WIL at all (two fast searches, shared with the reader).
        if !named && !text.maybe_wil() {
            return;
        }
        // A block opened before a window starts has its body from the window's start.
        let carried = text.open_before().wil;
        let mut regions: Vec<(usize, usize)> = text
            .wil_blocks()
            .iter()
            .enumerate()
            .map(|(k, &(begin, end))| match k {
                0 if carried => (begin, end),
                _ => (begin + "BEGIN WIL".len(), end),
            })
            .collect();
        if regions.is_empty() && named {
            // Every line may be a call: the next window keeps the full overlap.
            if let Some(resume) = ctx.resume {
                resume.unsettled_from(0);
            }
            regions.push((0, s.len()));
        }
        for (start, end) in regions {
            let mut at = start;
            for line in s[start..end].split('\n') {
                let line_start = at;
                at += line.len() + 1;
                if let Some((op, params)) = parse_line(line) {
                    let mut call = Call::new(op, NAME, text.line_at(line_start));
                    call.raw_strings = true;
                    call.arguments = params.into();
                    out.push(Hit {
                        call,
                        start: line_start,
                        end: line_start + line.len(),
                        balanced: false,
                        specificity: MARKED,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(line: &str) -> (String, Value) {
        let (op, p) = parse_line(line).unwrap_or_else(|| panic!("no parse: {line}"));
        (op.to_owned(), Value::Object(p))
    }

    #[test]
    fn lexicon_examples() {
        assert_eq!(
            parsed("create window id win-notes title \"Notes\" size 1200x800"),
            (
                "window.create".into(),
                json!({"id":"win-notes","title":"Notes","width":1200,"height":800})
            )
        );
        assert_eq!(
            parsed("create window title \"Notes\" width 1200 height 800"),
            (
                "window.create".into(),
                json!({"title":"Notes","width":1200,"height":800})
            )
        );
        assert_eq!(
            parsed("set html in #root of window win-notes to <p>Hi</p>"),
            (
                "dom.set".into(),
                json!({"target":"#root","windowId":"win-notes","html":"<p>Hi</p>"})
            )
        );
        assert_eq!(
            parsed("append <li>A</li> to #list of window w1").0,
            "dom.append"
        );
        assert_eq!(
            parsed("render component panel in window w1 at #root with {\"x\":1}").1["props"],
            json!({"x":1})
        );
        assert_eq!(
            parsed("move window w1 to 120,80"),
            ("window.move".into(), json!({"id":"w1","x":120,"y":80}))
        );
        assert_eq!(
            parsed("resize window w1 to 800x600").1,
            json!({"id":"w1","width":800,"height":600})
        );
        assert_eq!(
            parsed("api POST https://example.com/hook"),
            (
                "api.call".into(),
                json!({"method":"POST","url":"https://example.com/hook"})
            )
        );
        assert_eq!(
            parsed("please open url https://example.com"),
            (
                "api.call".into(),
                json!({"url":"https://example.com","method":"GET"})
            )
        );
        assert_eq!(
            parsed("swap html in \"#root\" of window w1 with \"<div>Hi</div>\"").1,
            json!({"target":"#root","windowId":"w1","html":"<div>Hi</div>"})
        );
        assert_eq!(
            parsed("set component c-9 props {\"visible\":false}").1,
            json!({"id":"c-9","props":{"visible":false}})
        );
        assert_eq!(
            parsed("create window title \"Small\" size 80x60").1,
            json!({"title":"Small","width":120,"height":120})
        );
        assert_eq!(
            parsed("new window title \u{201c}Dashboard\u{201d}").1,
            json!({"title":"Dashboard"})
        );
        assert!(parse_line("nop: missing title").is_none());
        assert!(parse_line("I think we should go").is_none());
        // Multi-byte text where a courtesy word would end must not break slicing.
        assert!(parse_line("can y\u{f6}u close").is_none());
        assert!(parse_line("pleas\u{e9}").is_none());
    }

    #[test]
    fn active_only_between_sentinels() {
        use crate::model::{Role, Turn};
        let turn = Turn::new(Role::Assistant, 1);
        let ctx = ScanContext {
            turn: &turn,
            tools: &[],
            registry: super::super::Registry::builtin(),
            strict: false,
            selected: None,
            resume: None,
            notes: None,
        };
        let t = Text::new(
            "close window w1\nBEGIN WIL\nclose window w2\nfocus window w3\nEND WIL\nclose window w4",
            1,
            false,
            true,
        );
        let mut out = Vec::new();
        WIL.scan(&t, &ctx, &mut out);
        let ids: Vec<&Value> = out.iter().map(|h| &h.call.arguments["id"]).collect();
        assert_eq!(ids, ["w2", "w3"]);
        assert_eq!(out[0].call.line, 3);
    }
}
