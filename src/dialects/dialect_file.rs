//! `--dialect-file FILE`: dialects of the data-driven families (JSON between markers,
//! XML-style parameters, pythonic and braced literals) described in a JSON file, so a
//! new model's syntax needs no new release. The rows live for the whole run, so their
//! strings are leaked once at load instead of threading lifetimes through every scanner.

use super::literal::{LiteralRow, Syntax};
use super::markers::{Body, Head, Keys, MarkerRow, Payload};
use super::xml_params::{ParamRow, Tpl};
use super::{Registry, all_rows};
use anyhow::{Context, Result, bail};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    dialects: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case", deny_unknown_fields)]
enum Entry {
    Markers {
        name: String,
        #[serde(default)]
        models: String,
        #[serde(default)]
        summary: String,
        #[serde(default)]
        example: String,
        open: String,
        close: Option<String>,
        /// json (default), name-keyed, named, python
        #[serde(default)]
        payload: Option<String>,
        /// any (default), array, lines
        #[serde(default)]
        body: Option<String>,
        head_end: Option<String>,
        id_marker: Option<String>,
        /// name (default) or indexed
        head: Option<String>,
        keys: Option<KeysEntry>,
        #[serde(default)]
        wrappers: Vec<(String, String)>,
    },
    XmlParams {
        name: String,
        #[serde(default)]
        models: String,
        #[serde(default)]
        summary: String,
        #[serde(default)]
        example: String,
        #[serde(default)]
        wrappers: Vec<(String, String)>,
        #[serde(default)]
        wrapper_required: bool,
        #[serde(default)]
        outer: Vec<(String, String)>,
        call_open: (String, String),
        call_close: String,
        param_open: (String, String),
        #[serde(default)]
        value_open: String,
        param_close: String,
        string_attr: Option<String>,
        #[serde(default)]
        value_newlines: bool,
        #[serde(default)]
        json_body: bool,
    },
    Pythonic {
        name: String,
        #[serde(default)]
        models: String,
        #[serde(default)]
        summary: String,
        #[serde(default)]
        example: String,
        open: String,
        close: Option<String>,
        /// list (default), lines, single, braced
        #[serde(default)]
        syntax: Option<String>,
        method: Option<String>,
        delim: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysEntry {
    #[serde(default)]
    name: Vec<String>,
    #[serde(default)]
    arguments: Vec<String>,
    #[serde(default)]
    id: Vec<String>,
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn leak_opt(s: Option<String>) -> Option<&'static str> {
    s.filter(|s| !s.is_empty()).map(leak)
}

fn leak_list(v: Vec<String>) -> &'static [&'static str] {
    Box::leak(
        v.into_iter()
            .map(leak)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

fn leak_pairs(v: Vec<(String, String)>) -> &'static [(&'static str, &'static str)] {
    Box::leak(
        v.into_iter()
            .map(|(a, b)| (leak(a), leak(b)))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

/// The registry of the built-in rows plus the dialects of these files.
pub(crate) fn load(paths: &[std::path::PathBuf]) -> Result<&'static Registry> {
    if paths.is_empty() {
        return Ok(Registry::builtin());
    }
    let mut names: Vec<String> = all_rows(Registry::builtin())
        .into_iter()
        .map(|r| r.name)
        .collect();
    let (mut markers, mut params, mut literals) = (Vec::new(), Vec::new(), Vec::new());
    for path in paths {
        let text = crate::config_file::read(path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let file: File = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a dialect file (expected {{\"dialects\": [{{\"family\": \"markers\"|\"xml-params\"|\"pythonic\", \"name\": …}}]}})",
                path.display()
            )
        })?;
        for entry in file.dialects {
            let at = |e: anyhow::Error| e.context(format!("{}", path.display()));
            match entry {
                Entry::Markers { .. } => markers.push(marker_row(entry, &mut names).map_err(at)?),
                Entry::XmlParams { .. } => params.push(param_row(entry, &mut names).map_err(at)?),
                Entry::Pythonic { .. } => {
                    literals.push(literal_row(entry, &mut names).map_err(at)?)
                }
            }
        }
    }
    Ok(Box::leak(Box::new(Registry::new(
        markers, params, literals,
    ))))
}

fn check_name(name: &str, names: &mut Vec<String>) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        bail!("dialect name '{name}' must be letters, digits, '-', '_' or '.'");
    }
    if names.iter().any(|n| n == name) {
        bail!("dialect '{name}' is defined twice (or is a built-in dialect)");
    }
    names.push(name.to_owned());
    Ok(())
}

fn nonempty(what: &str, s: &str, name: &str) -> Result<()> {
    if s.is_empty() {
        bail!("dialect '{name}': {what} must not be empty");
    }
    Ok(())
}

fn marker_row(entry: Entry, names: &mut Vec<String>) -> Result<&'static MarkerRow> {
    let Entry::Markers {
        name,
        models,
        summary,
        example,
        open,
        close,
        payload,
        body,
        head_end,
        id_marker,
        head,
        keys,
        wrappers,
    } = entry
    else {
        unreachable!("called for markers entries")
    };
    check_name(&name, names)?;
    nonempty("open", &open, &name)?;
    let body = match body.as_deref().unwrap_or("any") {
        "any" => Body::Any,
        "array" => Body::Array,
        "lines" => Body::Lines,
        other => bail!("dialect '{name}': body '{other}' (expected any, array or lines)"),
    };
    let keys = keys.map(|k| -> &'static Keys {
        Box::leak(Box::new(Keys {
            name: leak_list(k.name),
            arguments: leak_list(k.arguments),
            id: leak_list(k.id),
        }))
    });
    let payload = match payload.as_deref().unwrap_or("json") {
        "json" => Payload::Json { body, keys },
        "python" => Payload::Json {
            body: Body::Python,
            keys,
        },
        "name-keyed" => Payload::NameKeyed,
        "named" => Payload::Named {
            head_end: leak(
                head_end
                    .with_context(|| format!("dialect '{name}': a named payload needs head_end"))?,
            ),
            id_marker: leak_opt(id_marker),
            head: match head.as_deref().unwrap_or("name") {
                "name" => Head::Name,
                "indexed" => Head::Indexed,
                other => bail!("dialect '{name}': head '{other}' (expected name or indexed)"),
            },
        },
        other => {
            bail!(
                "dialect '{name}': payload '{other}' (expected json, python, name-keyed or named)"
            )
        }
    };
    Ok(Box::leak(Box::new(MarkerRow {
        name: leak(name),
        models: leak(models),
        summary: leak(summary),
        example: leak(example),
        open: leak(open),
        close: leak_opt(close),
        payload,
        wrappers: leak_pairs(wrappers),
        stripped: false,
    })))
}

fn param_row(entry: Entry, names: &mut Vec<String>) -> Result<&'static ParamRow> {
    let Entry::XmlParams {
        name,
        models,
        summary,
        example,
        wrappers,
        wrapper_required,
        outer,
        call_open,
        call_close,
        param_open,
        value_open,
        param_close,
        string_attr,
        value_newlines,
        json_body,
    } = entry
    else {
        unreachable!("called for xml-params entries")
    };
    check_name(&name, names)?;
    for (what, s) in [
        ("call_open[0]", &call_open.0),
        ("call_close", &call_close),
        ("param_open[0]", &param_open.0),
        ("param_close", &param_close),
    ] {
        nonempty(what, s, &name)?;
    }
    if wrapper_required && wrappers.is_empty() {
        bail!("dialect '{name}': wrapper_required needs wrappers");
    }
    Ok(Box::leak(Box::new(ParamRow {
        name: leak(name),
        models: leak(models),
        summary: leak(summary),
        example: leak(example),
        wrappers: leak_pairs(wrappers),
        wrapper_required,
        outer: leak_pairs(outer),
        call_open: Tpl {
            before: leak(call_open.0),
            after: leak(call_open.1),
        },
        call_close: leak(call_close),
        param_open: Tpl {
            before: leak(param_open.0),
            after: leak(param_open.1),
        },
        value_open: leak(value_open),
        param_close: leak(param_close),
        string_attr: leak_opt(string_attr),
        value_newlines,
        json_body,
    })))
}

fn literal_row(entry: Entry, names: &mut Vec<String>) -> Result<&'static LiteralRow> {
    let Entry::Pythonic {
        name,
        models,
        summary,
        example,
        open,
        close,
        syntax,
        method,
        delim,
    } = entry
    else {
        unreachable!("called for pythonic entries")
    };
    check_name(&name, names)?;
    nonempty("open", &open, &name)?;
    let syntax = match syntax.as_deref().unwrap_or("list") {
        "list" => Syntax::List,
        "lines" => Syntax::Lines,
        "single" => Syntax::Single {
            method: leak(method.unwrap_or_default()),
        },
        "braced" => Syntax::Braced {
            delim: leak(
                delim.with_context(|| format!("dialect '{name}': braced syntax needs delim"))?,
            ),
        },
        other => {
            bail!("dialect '{name}': syntax '{other}' (expected list, lines, single or braced)")
        }
    };
    Ok(Box::leak(Box::new(LiteralRow {
        name: leak(name),
        models: leak(models),
        summary: leak(summary),
        example: leak(example),
        open: leak(open),
        close: leak_opt(close),
        syntax,
        stripped: false,
    })))
}
