//! Validates a request document against the providers' request schemas vendored under
//! `fixtures/api-schemas/` (see SOURCES.md there).
//!
//! `convert` writes partial requests: a bare array of messages (or of Responses input items),
//! or an object holding them without `model` and `max_tokens`. So a bare array is wrapped under
//! its request key (`messages`, `contents`, `input`) and validated as that field, with error
//! pointers still relative to the document given; and `model` and `max_tokens` are not
//! required. Every other field of the request body is checked as the API takes it.

use serde_json::Value;
use std::sync::OnceLock;

/// The targets of `convert --to`, with their schema and the key a bare array belongs under.
const TARGETS: [(&str, &str, &str); 4] = [
    (
        "openai",
        include_str!("../../fixtures/api-schemas/openai-chat-request.schema.json"),
        "messages",
    ),
    (
        "anthropic",
        include_str!("../../fixtures/api-schemas/anthropic-messages-request.schema.json"),
        "messages",
    ),
    (
        "gemini",
        include_str!("../../fixtures/api-schemas/gemini-generate-content-request.schema.json"),
        "contents",
    ),
    (
        "responses",
        include_str!("../../fixtures/api-schemas/openai-responses-request.schema.json"),
        "input",
    ),
];

/// Fields of the request body that `convert` never writes, so never required here.
const NOT_REQUIRED: [&str; 2] = ["model", "max_tokens"];

fn validator(index: usize) -> &'static jsonschema::Validator {
    static VALIDATORS: [OnceLock<jsonschema::Validator>; 4] =
        [const { OnceLock::new() }; TARGETS.len()];
    VALIDATORS[index].get_or_init(|| {
        let (name, text, _) = TARGETS[index];
        let mut schema: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("the {name} request schema is not JSON: {e}"));
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|field| !NOT_REQUIRED.iter().any(|n| field == n));
        }
        jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("the {name} request schema does not compile: {e}"))
    })
}

/// The schema violations of `request` as a `target` request (`openai`, `anthropic`, `gemini`,
/// `responses`), each as `json-pointer: message`; empty when it is valid.
pub fn validate(target: &str, request: &Value) -> Vec<String> {
    let index = TARGETS
        .iter()
        .position(|(name, _, _)| *name == target)
        .unwrap_or_else(|| panic!("no request schema for target {target:?}"));
    let (_, _, key) = TARGETS[index];
    let wrapped;
    let (document, prefix) = match request {
        Value::Array(_) => {
            wrapped = serde_json::json!({ key: request });
            (&wrapped, format!("/{key}"))
        }
        _ => (request, String::new()),
    };
    let mut found = Vec::new();
    for error in validator(index).iter_errors(document) {
        explain(&error, &mut found);
    }
    found
        .into_iter()
        .map(|(path, message)| {
            let path = path.strip_prefix(prefix.as_str()).unwrap_or(&path);
            let path = if path.is_empty() { "/" } else { path };
            format!("{path}: {message}")
        })
        .collect()
}

/// An error as (pointer, message). A failed `anyOf` (a content that is a string or an array,
/// a block matching one of two shapes) is explained by its closest branch: of the branches
/// that take this kind of value (no `type` error at the value itself), the one with the
/// fewest errors; it is reported as a whole only when no branch takes such a value.
fn explain(error: &jsonschema::ValidationError<'_>, out: &mut Vec<(String, String)>) {
    let path = error.instance_path().as_str();
    if let jsonschema::error::ValidationErrorKind::AnyOf { context } = error.kind() {
        let closest = context
            .iter()
            .filter(|branch| {
                !branch.iter().any(|e| {
                    e.instance_path().as_str() == path
                        && matches!(
                            e.kind(),
                            jsonschema::error::ValidationErrorKind::Type { .. }
                        )
                })
            })
            .min_by_key(|branch| branch.len());
        if let Some(branch) = closest.filter(|b| !b.is_empty()) {
            for e in branch {
                explain(e, out);
            }
            return;
        }
    }
    // Small values are named; a whole message in an error line says nothing more.
    let message = if error.instance().to_string().len() <= 60 {
        error.to_string()
    } else {
        error.masked().to_string()
    };
    out.push((path.to_owned(), message));
}
