#![no_main]
// Property checks: toolsift::fuzzing::convert (see fuzz/README.md).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    toolsift::fuzzing::convert(data);
});
