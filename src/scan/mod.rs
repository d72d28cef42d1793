//! Text scanning shared by the json and text channels: JSON written in text
//! ([`json_text`]), tolerant JSON reading with named repairs ([`repair`]), tag helpers
//! ([`tags`]), reasoning and other context regions ([`regions`]), and the text the
//! scanners share ([`text`]).

pub(crate) mod json_text;
pub(crate) mod regions;
pub(crate) mod repair;
pub(crate) mod tags;
pub(crate) mod text;

pub(crate) use json_text::{balanced_end, json_values, json_values_skipping};
pub(crate) use regions::OpenRegions;
pub(crate) use repair::with_json;
pub(crate) use tags::{
    NextFind, attribute, first_fence, ident, is_tool_name, skip_ws, tag_end, typed_value,
};
