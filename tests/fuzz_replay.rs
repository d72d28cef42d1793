//! The fuzz targets' saved inputs, replayed on stable: every file under
//! `fuzz/regressions/<target>/` (findings of `cargo fuzz`, and a few seeds) goes
//! through the same property check as the target (`toolsift::fuzzing`). Inputs that
//! still fail because of a known bug are listed in `KNOWN` and each replayed by an
//! ignored test named after the bug.

use std::path::{Path, PathBuf};

/// (target, file name) of saved inputs that still fail; each has its own ignored test.
const KNOWN: &[(&str, &str)] = &[
    ("windows", "bracket-run-longer-than-the-overlap"),
    ("windows", "channel-won-otherwise-in-windows-json-to-dsml"),
    ("windows", "channel-won-otherwise-in-windows-olmo3-to-json"),
];

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions")
}

/// Replays one saved input, naming it when a property fails.
fn replay(target: &str, path: &Path) -> Result<(), String> {
    let data = std::fs::read(path).unwrap();
    std::panic::catch_unwind(|| toolsift::fuzzing::run(target, &data)).map_err(|e| {
        let what = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!(
            "{target}/{}: {what}",
            path.file_name().unwrap().to_string_lossy()
        )
    })
}

#[test]
fn every_saved_input_keeps_its_properties() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for entry in std::fs::read_dir(regressions()).unwrap() {
        let dir = entry.unwrap().path();
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            toolsift::fuzzing::TARGETS.contains(&target.as_str()),
            "fuzz/regressions/{target}: no such target"
        );
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if KNOWN.contains(&(target.as_str(), name.as_str())) {
                continue;
            }
            replayed += 1;
            if let Err(e) = replay(&target, &path) {
                failures.push(e);
            }
        }
    }
    assert!(replayed > 0, "no saved input under fuzz/regressions");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_target_has_saved_inputs() {
    for target in toolsift::fuzzing::TARGETS {
        let dir = regressions().join(target);
        let count = std::fs::read_dir(&dir).map_or(0, |d| d.count());
        assert!(count > 0, "fuzz/regressions/{target}: no saved input");
    }
}

/// Known bug: 2348 bytes of mangled model output (Inkling, MiniMax-M3 and Kimi K3
/// markers run together). A whole read reports an unreadable `quote_shipping` call at
/// byte 1982 (line 34) as a closed JSON value; in windows of 2192 bytes the second window
/// starts at byte 1916 and its walk meets `]<]minimax[>[` brackets before the call, whose
/// `[` stays open and takes the call in, so the call is missing. In the whole read the
/// walk likely reaches byte 1916 inside a value opened more than an overlap (548 bytes) before
/// it, which the harness's window does not see: it is not a value `json_values` lists
/// (an array of markers, not a call), so the window is not made larger for it. Either
/// the walk's state at a window's start must be carried (as open regions are), or the
/// harness must measure every bracket run, not only the listed values.
#[test]
#[ignore = "known bug: a window starting inside a bracket run opened more than an overlap before it reads a later value otherwise"]
fn windows_starting_inside_a_long_bracket_run_lose_a_value() {
    let path = regressions().join("windows/bracket-run-longer-than-the-overlap");
    replay("windows", &path).unwrap();
}

/// Known bugs, two of the findings of a 10-minute `windows` run with `-fork=1
/// -ignore_crashes=1`: in small windows (560 and 740 bytes) of mangled model output the
/// turn is won by another channel in windows than in a whole read (json `get_time`
/// against a DeepSeek DSML `fetch_ci_log`; an olmo3 `get_weather` against a json
/// `search_web`). In the second, a JSON value left open (a string broken at a line end)
/// holds the `search_web` object: the whole read's walk takes it in, the second window
/// starts after the value opened and reads the object on its own. The value is longer
/// than two overlaps, and the harness does not measure it: `json_values` lists the
/// object, not the value left open around it.
#[test]
#[ignore = "known bug: small windows of mangled output lose a call or let another channel win"]
fn windows_of_mangled_output_differ_from_a_whole_read() {
    let mut failures = Vec::new();
    for name in [
        "channel-won-otherwise-in-windows-json-to-dsml",
        "channel-won-otherwise-in-windows-olmo3-to-json",
    ] {
        if let Err(e) = replay("windows", &regressions().join("windows").join(name)) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
