//! Text scanning shared by the json and text channels: JSON written in text
//! ([`json_text`]), tolerant JSON reading with named repairs ([`repair`]), tag helpers
//! ([`tags`]), reasoning and other context regions ([`regions`]), and the text the
//! scanners share ([`text`]).

pub mod json_text;
pub mod regions;
pub mod repair;
pub mod tags;
pub mod text;

pub use json_text::{Found, balanced_end, json_values, json_values_skipping};
pub use regions::{
    OpenRegions, ReasoningOpening, RegionMap, reasoning_regions, reasoning_regions_at,
};
pub use repair::with_json;
pub use tags::{
    Fence, NextFind, attribute, find_ci, first_fence, ident, is_tool_name, skip_ws, tag_end,
    typed_value,
};
