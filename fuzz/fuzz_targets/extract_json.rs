#![no_main]
// Property checks: toolsift::fuzzing::extract (see fuzz/README.md).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    toolsift::fuzzing::extract(data, toolsift::Framing::Json);
});
