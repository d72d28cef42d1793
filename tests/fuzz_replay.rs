//! The fuzz targets' saved inputs, replayed on stable: every file under
//! `fuzz/regressions/<target>/` (findings of `cargo fuzz`, and a few seeds) goes
//! through the same property check as the target (`toolsift::fuzzing`). Inputs that
//! still fail because of a known bug are listed in `KNOWN` and each replayed by an
//! ignored test named after the bug.

use std::path::{Path, PathBuf};

/// (target, file name) of saved inputs that still fail; each has its own ignored test.
const KNOWN: &[(&str, &str)] = &[];

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
