//! Tool contracts in force (`--tools`): each declared tool with its argument schema
//! compiled once. A call is checked against its tool: an undeclared name is invalid
//! (with the nearest declared name as a suggestion), arguments that break the schema
//! are invalid with the instance path of each problem. Schemas are compiled without
//! any network access: a remote `$ref` is an error at load, never a fetch. A `$ref` to
//! a file is read only under the contract's own directory (or `--schema-root`), and
//! only when it is a regular file of bounded size.

use crate::model::{Call, SchemaError};
use crate::tools::{self, Tool};
use anyhow::{Result, anyhow};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The declared tools and their compiled schemas.
#[derive(Default)]
pub struct Contracts {
    tools: Vec<Tool>,
    validators: Vec<jsonschema::Validator>,
    /// What was read otherwise than written, for warnings (see [`tools::load_noting`]).
    pub(crate) notes: Vec<(String, String)>,
}

impl Contracts {
    /// Loads and compiles every contract file; a schema that does not compile is an
    /// error naming the file and the tool. File references resolve under each
    /// contract's directory.
    pub(crate) fn load(paths: &[PathBuf]) -> Result<Contracts> {
        Contracts::load_under(paths, None)
    }

    /// [`Contracts::load`], with file references resolved under `schema_root` instead
    /// of each contract's directory when it is given.
    pub(crate) fn load_under(paths: &[PathBuf], schema_root: Option<&Path>) -> Result<Contracts> {
        let schema_root = match schema_root {
            Some(dir) => Some(
                std::fs::canonicalize(dir)
                    .map_err(|e| anyhow!("--schema-root {}: {}", dir.display(), reason(&e)))?,
            ),
            None => None,
        };
        let mut contracts = Contracts::default();
        for path in paths {
            let (tools, notes) = tools::load_noting(path)?;
            let shown = path.display().to_string();
            contracts
                .notes
                .extend(notes.into_iter().map(|n| (shown.clone(), n)));
            let file = std::fs::canonicalize(path)
                .map_err(|e| anyhow!("{}: {}", path.display(), reason(&e)))?;
            let files = Files {
                root: schema_root
                    .clone()
                    .or_else(|| file.parent().map(Path::to_path_buf)),
                base: Some(file_uri(&file)),
            };
            for tool in tools {
                let validator = compile_with(&tool.schema, &files).map_err(|e| {
                    anyhow!(
                        "{}: tool {}: the schema does not compile: {e}",
                        path.display(),
                        tool.name
                    )
                })?;
                if let Some(i) = contracts.tools.iter().position(|t| t.name == tool.name) {
                    // A later file overrides an earlier declaration of the same tool.
                    contracts.tools[i] = tool;
                    contracts.validators[i] = validator;
                } else {
                    contracts.tools.push(tool);
                    contracts.validators.push(validator);
                }
            }
        }
        Ok(contracts)
    }

    /// Contracts of tools already loaded (compiled here).
    pub fn from_tools(tools: Vec<Tool>) -> Result<Contracts> {
        let mut contracts = Contracts::default();
        for tool in tools {
            let validator = compile(&tool.schema)
                .map_err(|e| anyhow!("tool {}: the schema does not compile: {e}", tool.name))?;
            contracts.tools.push(tool);
            contracts.validators.push(validator);
        }
        Ok(contracts)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub(crate) fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The declared tool a call names: its exact name, or, for a call with a
    /// namespace, the name without it (`ripper.read_file` for a `read_file` tool).
    pub(crate) fn lookup(&self, call: &Call) -> Option<usize> {
        if let Some(i) = self.tools.iter().position(|t| t.name == call.name) {
            return Some(i);
        }
        let ns = call.namespace.as_deref()?;
        let rest = call.name.strip_prefix(ns)?;
        let bare = [".", "__", ":", "/"]
            .iter()
            .find_map(|sep| rest.strip_prefix(sep))?;
        self.tools.iter().position(|t| t.name == bare)
    }

    /// Types raw-text values by the schema, then validates the call; a call already
    /// invalid (unreadable arguments) only gets the unknown-tool check.
    pub(crate) fn check(&self, call: &mut Call) {
        let Some(i) = self.lookup(call) else {
            call.unknown_tool = true;
            let message = match suggest(&call.name, &self.tools) {
                Some(near) => format!("unknown tool (did you mean \"{near}\"?)"),
                None => "unknown tool".to_owned(),
            };
            call.errors.push(message);
            return;
        };
        if call.raw_strings {
            let schema = &self.tools[i].schema;
            for (key, value) in call.arguments.iter_mut() {
                if let (Value::String(raw), Some(prop)) =
                    (&*value, crate::typing::property(schema, key))
                {
                    *value = crate::typing::coerce(raw, prop);
                }
            }
        }
        if !call.is_valid() {
            return;
        }
        if !call.arguments.readable() {
            call.errors.push(
                "arguments nest too deep to be validated (they are written out whole)".into(),
            );
            return;
        }
        let validator = &self.validators[i];
        let found: Vec<(String, String)> = call.arguments.with_value(|instance| {
            validator
                .iter_errors(instance)
                .map(|error| {
                    let path = error.instance_path().as_str();
                    let path = if path.is_empty() { "/" } else { path }.to_owned();
                    let message = match error.kind() {
                        // The allowed values as one JSON array, as users write them.
                        jsonschema::error::ValidationErrorKind::Enum { options } => {
                            format!("{} is not one of {options}", error.instance())
                        }
                        _ => error.to_string(),
                    };
                    (path, message)
                })
                .collect()
        });
        for (path, message) in found {
            call.errors.push(format!("{path}: {message}"));
            call.schema_errors.push(SchemaError { path, message });
        }
    }
}

fn compile(schema: &Value) -> std::result::Result<jsonschema::Validator, String> {
    compile_with(schema, &Files::default())
}

fn compile_with(
    schema: &Value,
    files: &Files,
) -> std::result::Result<jsonschema::Validator, String> {
    // An empty schema accepts any arguments.
    let schema = if schema.as_object().is_some_and(|o| o.is_empty()) {
        &Value::Bool(true)
    } else {
        schema
    };
    let mut options = jsonschema::options().with_retriever(Files {
        root: files.root.clone(),
        base: None,
    });
    if let Some(base) = &files.base {
        // Relative references resolve against the contract file.
        options = options.with_base_uri(base.clone());
    }
    options.build(schema).map_err(|e| {
        // The retriever's reason says it all.
        let text = e.to_string();
        match text.split_once("retrieving it failed: ") {
            Some((_, reason)) => reason.to_owned(),
            None => text,
        }
    })
}

fn reason(e: &std::io::Error) -> String {
    crate::diag::without_os_error(&e.to_string())
}

/// What a schema's references may read: files under `root` (canonical), none without
/// one; never anything remote.
#[derive(Default)]
struct Files {
    root: Option<PathBuf>,
    /// The `file:` URI of the contract, the base of relative references.
    base: Option<String>,
}

impl jsonschema::Retrieve for Files {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> std::result::Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.scheme().as_str() != "file" {
            return Err(format!("{uri} is not read: toolsift fetches nothing remote").into());
        }
        let Some(root) = &self.root else {
            return Err(format!("{uri} is not read: no directory for file references").into());
        };
        let path = uri_path(uri);
        // Resolved first, so that `..` and links cannot lead out of the directory.
        let real = std::fs::canonicalize(&path)
            .map_err(|e| format!("{}: {}", path.display(), reason(&e)))?;
        if !real.starts_with(root) {
            return Err(format!(
                "{} is outside {}: file references are read only under the contract's directory (or --schema-root DIR)",
                path.display(),
                root.display()
            )
            .into());
        }
        let text =
            crate::config_file::read(&real).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()).into())
    }
}

/// The path of a `file:` URI, percent-decoded.
fn uri_path(uri: &jsonschema::Uri<String>) -> PathBuf {
    let bytes = uri.path().decode().to_bytes();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(&bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(
            String::from_utf8_lossy(&bytes)
                .trim_start_matches('/')
                .to_owned(),
        )
    }
}

/// `file:///…` for an absolute path, every byte that is not plainly safe in a URI path
/// percent-encoded.
fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::from("file://");
    if !text.starts_with('/') {
        uri.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Names longer than this (in bytes) get no suggestion: no tool is named so, and the
/// comparison would cost time and memory in proportion to the name (a 4 MB name took
/// 2.2 GB).
pub(crate) const MAX_SUGGESTED_NAME: usize = 256;

/// The declared name nearest to `name`: the same once case, `-`, `_`, `.` and spaces
/// are ignored, or within a few edits. None for a name over [`MAX_SUGGESTED_NAME`].
pub(crate) fn suggest<'a>(name: &str, tools: &'a [Tool]) -> Option<&'a str> {
    if name.len() > MAX_SUGGESTED_NAME {
        return None;
    }
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = norm(name);
    if let Some(t) = tools.iter().find(|t| norm(&t.name) == wanted) {
        return Some(&t.name);
    }
    let wanted_chars = wanted.chars().count();
    let near = tools
        .iter()
        .filter_map(|t| {
            let limit = 2.max(t.name.chars().count() / 3);
            let n = norm(&t.name);
            // The distance is at least the difference in length: a name that far off
            // is not compared.
            (n.chars().count().abs_diff(wanted_chars) <= limit)
                .then(|| (edit_distance(&wanted, &n), &t.name, limit))
        })
        .filter(|(d, _, limit)| d <= limit)
        .map(|(d, t, _)| (d, t))
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t.as_str());
    // Else a declared name inside the wanted one or around it (`get_current_weather`
    // for `get_weather` is not near by edits, but one holds the other's parts).
    near.or_else(|| {
        tools
            .iter()
            .filter(|t| {
                let n = norm(&t.name);
                n.len() >= 4
                    && (wanted.contains(&n) || n.contains(&wanted) || same_parts(name, &t.name))
            })
            .min_by_key(|t| t.name.len().abs_diff(name.len()))
            .map(|t| t.name.as_str())
    })
}

/// Whether every `_`/`-`/`.`-separated part of the shorter name is among the other's.
fn same_parts(a: &str, b: &str) -> bool {
    let parts = |s: &str| -> Vec<String> {
        s.split(['_', '-', '.', ' '])
            .filter(|p| !p.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 2 && short.iter().all(|p| long.contains(p))
}

/// Optimal string alignment distance (Levenshtein with transpositions), in three rows
/// of the shorter string's length.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the full matrix.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edit_distances_in_rows() {
        for (a, b, d) in [
            ("", "", 0),
            ("abc", "", 3),
            ("", "ab", 2),
            ("get_weather", "get_waether", 1),
            ("kitten", "sitting", 3),
            ("ca", "abc", 3),
            ("abcdef", "badcfe", 3),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
            assert_eq!(edit_distance(b, a), d, "{b} {a}");
        }
    }

    fn contracts(schema: Value) -> Contracts {
        let tool = Tool {
            name: "get_weather".into(),
            description: None,
            schema,
            returns: None,
        };
        Contracts {
            validators: vec![compile(&tool.schema).unwrap()],
            tools: vec![tool],
            notes: Vec::new(),
        }
    }

    #[test]
    fn errors_name_the_instance_path() {
        let c = contracts(json!({
            "type": "object",
            "properties": {"unit": {"enum": ["celsius", "fahrenheit"]}},
            "required": ["city"]
        }));
        let mut call = Call::new("get_weather", "openai", 1);
        call.arguments.insert("unit".into(), json!("kelvin"));
        c.check(&mut call);
        assert_eq!(
            call.errors,
            [
                r#"/: "city" is a required property"#,
                r#"/unit: "kelvin" is not one of ["celsius","fahrenheit"]"#,
            ]
        );
        assert_eq!(call.schema_errors[1].path, "/unit");
    }

    #[test]
    fn unknown_tools_get_the_nearest_name() {
        let c = contracts(json!({}));
        for (name, message) in [
            ("get_wether", "unknown tool (did you mean \"get_weather\"?)"),
            (
                "Get Weather",
                "unknown tool (did you mean \"get_weather\"?)",
            ),
            (
                "get_current_weather",
                "unknown tool (did you mean \"get_weather\"?)",
            ),
            ("send_email", "unknown tool"),
        ] {
            let mut call = Call::new(name, "openai", 1);
            c.check(&mut call);
            assert_eq!(call.errors, [message]);
            assert!(call.unknown_tool);
        }
        let mut call = Call::new("get_weather", "openai", 1);
        call.arguments.insert("anything".into(), json!(1));
        c.check(&mut call);
        assert!(call.is_valid() && !call.unknown_tool);
    }

    #[test]
    fn a_namespaced_call_matches_its_bare_tool() {
        let c = contracts(json!({}));
        let mut call = Call::new("weather.get_weather", "mandrake-json", 1);
        call.namespace = Some("weather".into());
        c.check(&mut call);
        assert!(call.is_valid());
    }

    #[test]
    fn raw_strings_are_typed_before_validation() {
        let c = contracts(json!({
            "type": "object",
            "properties": {"days": {"type": "integer"}, "zip": {"type": "string"}}
        }));
        let mut call = Call::new("get_weather", "cline-xml", 1);
        call.raw_strings = true;
        call.arguments.insert("days".into(), json!("3"));
        call.arguments.insert("zip".into(), json!("01234"));
        c.check(&mut call);
        assert!(call.is_valid(), "{:?}", call.errors);
        assert_eq!(call.arguments["days"], 3);
        assert_eq!(call.arguments["zip"], "01234");
    }

    #[test]
    fn the_draft_comes_from_dollar_schema() {
        // Draft 4's boolean exclusiveMaximum; 2020-12 (the default) requires a number.
        let schema = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {"n": {"type": "integer", "maximum": 5, "exclusiveMaximum": true}}
        });
        let c = contracts(schema.clone());
        let mut call = Call::new("get_weather", "openai", 1);
        call.arguments.insert("n".into(), json!(5));
        c.check(&mut call);
        assert_eq!(call.schema_errors.len(), 1, "{:?}", call.errors);
        let mut latest = schema;
        latest.as_object_mut().unwrap().remove("$schema");
        assert!(compile(&latest).is_err());
    }

    #[test]
    fn remote_refs_are_errors_not_fetches() {
        let err = compile(&json!({"$ref": "https://example.com/schema.json"})).unwrap_err();
        assert!(!err.is_empty());
    }
}
