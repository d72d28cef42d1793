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
