//! Pythonic call lists: `[get_weather(city="Paris", days=3), f()]`, keyword arguments
//! only, values as Python literals (True/False/None, nested lists and dicts, single or
//! double quotes). Requiring keyword arguments and a whole list of calls keeps prose
//! such as `[see(docs)]` out.

use super::{Channel, DialectRow, Hit, MARKED, ScanContext, Scanner};
use crate::model::{Call, Text};
use crate::pyliteral;
use crate::scan;

pub const NAME: &str = "pythonic";

pub struct Pythonic;
pub static PYTHONIC: Pythonic = Pythonic;

impl Scanner for Pythonic {
    fn channel(&self) -> Channel {
        Channel::Text
    }

    fn rows(&self) -> Vec<DialectRow> {
        vec![DialectRow::new(
            NAME,
            Channel::Text,
            "Pythonic call lists with keyword arguments (Llama 3.2/4, ToolACE)",
            "[get_weather(city='Paris', days=3), get_time()]",
        )]
    }

    fn scan(&self, text: &Text, ctx: &ScanContext, out: &mut Vec<Hit>) {
        if !ctx.enabled(NAME) {
            return;
        }
        let s = text.text.as_str();
        let mut i = 0;
        for &at in &text.openers().square {
            if at < i {
                continue;
            }
            i = at + 1;
            if let Some((calls, end)) = call_list(s, at) {
                for mut call in calls {
                    call.line = text.line_at(at);
                    out.push(Hit {
                        call,
                        start: at,
                        end,
                        specificity: MARKED,
                    });
                }
                i = end;
            }
        }
    }
}

fn skip_ws(s: &str, mut p: usize) -> usize {
    while p < s.len() && s.as_bytes()[p].is_ascii_whitespace() {
        p += 1;
    }
    p
}

/// `[call, call, ...]` starting at `at`.
fn call_list(s: &str, at: usize) -> Option<(Vec<Call>, usize)> {
    let mut p = skip_ws(s, at + 1);
    let mut calls = Vec::new();
    loop {
        let (call, next) = one_call(s, p)?;
        calls.push(call);
        p = skip_ws(s, next);
        match s.as_bytes().get(p)? {
            b',' => p = skip_ws(s, p + 1),
            b']' => return Some((calls, p + 1)),
            _ => return None,
        }
    }
}

/// `name(key=value, ...)` at `p`; the name may be dotted.
fn one_call(s: &str, p: usize) -> Option<(Call, usize)> {
    let mut end = p;
    loop {
        let part = scan::ident(&s[end..])?;
        end += part.len();
        if s[end..].starts_with('.') {
            end += 1;
        } else {
            break;
        }
    }
    let name = &s[p..end];
    if !s[end..].starts_with('(') {
        return None;
    }
    let mut call = Call::new(name, NAME, 0);
    let mut q = skip_ws(s, end + 1);
    loop {
        if s[q..].starts_with(')') {
            return Some((call, q + 1));
        }
        let key = scan::ident(&s[q..])?;
        q = skip_ws(s, q + key.len());
        if !s[q..].starts_with('=') {
            return None;
        }
        q = skip_ws(s, q + 1);
        let (value, used) = pyliteral::parse_prefix(&s[q..])?;
        call.arguments.insert(key.to_owned(), value);
        q = skip_ws(s, q + used);
        if s[q..].starts_with(',') {
            q = skip_ws(s, q + 1);
        } else if !s[q..].starts_with(')') {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan_text(text: &str) -> Vec<Hit> {
        super::super::scan_for_test(&PYTHONIC, text, &[], false)
    }

    #[test]
    fn python_literals() {
        let hits = scan_text(
            "Sure: [get_weather(city=\"Paris\", days=3), book(opts={'a': [1, None], \"b\": True}), f()]",
        );
        let names: Vec<&str> = hits.iter().map(|h| h.call.name.as_str()).collect();
        assert_eq!(names, ["get_weather", "book", "f"]);
        assert_eq!(
            serde_json::Value::Object(hits[1].call.arguments.clone()),
            json!({"opts": {"a": [1, null], "b": true}})
        );
    }

    #[test]
    fn prose_is_not_pythonic() {
        for t in [
            "see [the docs](http://x)",
            "[see(docs)]",
            "[f(a=1) and more]",
            "array[i](x=1)",
        ] {
            assert!(scan_text(t).is_empty(), "{t}");
        }
    }
}
