//! The one integration test binary: each file of `tests/` is a module of it, so the
//! crate is linked into one test binary, not one per file. Run one file's tests with
//! `cargo test --test main docs::` (a filter on the module path).
//!
//! Sizes: the megabyte-scale property loops run at a size that still crosses the
//! windows and bounds they test; `TOOLSIFT_TEST_BIG=1` runs them at their full size
//! (`common::big`).

mod common;

mod api_schemas;
mod bounds;
mod bounds_input;
mod bounds_state;
mod cassettes;
mod channels;
mod check;
mod cli;
mod convert;
mod convert_sources;
mod corpus;
mod dialects;
mod docs;
mod engines;
mod fidelity;
mod fixtures;
mod fuzz_replay;
mod manifest;
mod models;
mod recipes;
mod robustness;
mod streaming;
mod tiling;
mod trust;
mod values;

/// `autotests = false`: a file of `tests/` that is not a module above would never be
/// compiled. Every one is.
#[test]
fn every_test_file_is_a_module() {
    let main = include_str!("main.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let module = if path.is_dir() {
            path.join("mod.rs").exists().then_some(stem)
        } else {
            (path.extension().is_some_and(|e| e == "rs") && stem != "main").then_some(stem)
        };
        if let Some(module) = module
            && !main.lines().any(|l| l == format!("mod {module};"))
        {
            missing.push(module.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "not modules of tests/main.rs: {missing:?}"
    );
}
