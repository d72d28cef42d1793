//! `--manifest`: a line per input saying what happened to it; `--skip-unchanged`:
//! inputs an earlier manifest shows unchanged are not read again.

mod common;
use common::{records, toolsift};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

fn call(id: &str, name: &str) -> String {
    format!(
        r#"{{"role":"assistant","tool_calls":[{{"id":"{id}","type":"function","function":{{"name":"{name}","arguments":"{{\"city\":\"Paris\"}}"}}}}]}}"#
    )
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn manifest(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn xxh3(path: &Path) -> String {
    format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(&std::fs::read(path).unwrap())
    )
}

/// Records per `source.file`.
fn records_of(stdout: &[u8], file: &str) -> usize {
    records(stdout)
        .iter()
        .filter(|r| r.source().file == file)
        .count()
}

#[test]
fn a_line_per_input_in_input_order_on_one_thread_or_two() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a.jsonl"),
        format!("{}\n{}\n", call("c0", "one"), call("c1", "two")),
    )
    .unwrap();
    // Binary: not read past its first block, but hashed whole.
    let mut binary = b"ab\0cd".to_vec();
    binary.extend((0..1 << 20).map(|i| (i % 251) as u8));
    std::fs::write(d.join("bin.dat"), binary).unwrap();
    // A JSON Lines record of 65 MiB, as 65 gzip members of 1 MiB (about 65 KiB in all);
    // then the same after a line that is read.
    let block = gzip(&vec![b'x'; 1 << 20]);
    let long = |first: &str| {
        let mut data = gzip(format!("{first}{{\"x\":\"").as_bytes());
        for _ in 0..65 {
            data.extend_from_slice(&block);
        }
        data.extend(gzip(b"\n"));
        data
    };
    std::fs::write(d.join("long.jsonl.gz"), long("")).unwrap();
    std::fs::write(
        d.join("part.jsonl.gz"),
        long(&format!("{}\n", call("c2", "p"))),
    )
    .unwrap();
    let names = [
        "a.jsonl",
        "bin.dat",
        "long.jsonl.gz",
        "missing.json",
        "part.jsonl.gz",
    ];
    let mut seen = Vec::new();
    for jobs in ["1", "2"] {
        let out = toolsift()
            .current_dir(d)
            .args(["extract", "-j", jobs, "--manifest", "m.jsonl"])
            .args(names)
            .output()
            .unwrap();
        // The missing file: some input could not be read, the rest was done.
        assert_eq!(out.status.code(), Some(3), "-j {jobs}");
        let lines = manifest(&d.join("m.jsonl"));
        let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().unwrap()).collect();
        assert_eq!(paths, names, "-j {jobs}");
        for (line, name) in lines.iter().zip(names) {
            let keys: Vec<&String> = line.as_object().unwrap().keys().collect();
            assert_eq!(
                keys,
                [
                    "path", "size", "mtime", "xxh3", "status", "framing", "dialects", "records"
                ],
                "{name}"
            );
            if name == "missing.json" {
                continue;
            }
            let path = d.join(name);
            let meta = std::fs::metadata(&path).unwrap();
            assert_eq!(line["size"], meta.len(), "{name}");
            assert_eq!(line["xxh3"], xxh3(&path), "{name}");
            let mtime = line["mtime"].as_str().unwrap();
            assert!(
                mtime.len() == 30 && mtime.ends_with('Z') && mtime.as_bytes()[10] == b'T',
                "{mtime}"
            );
            let records = records_of(&out.stdout, name);
            assert_eq!(line["records"], records, "{name}");
        }
        let status: Vec<&str> = lines
            .iter()
            .map(|l| l["status"].as_str().unwrap())
            .collect();
        assert_eq!(
            status,
            [
                "read",
                "skipped: binary",
                "skipped: too long",
                "error: No such file or directory",
                "read in part: line 2: line longer than 64 MiB; skipped",
            ]
        );
        let framing: Vec<&Value> = lines.iter().map(|l| &l["framing"]).collect();
        let jsonl = Value::from("jsonl");
        assert_eq!(
            framing,
            [&jsonl, &Value::Null, &jsonl, &Value::Null, &jsonl]
        );
        assert_eq!(lines[0]["dialects"], serde_json::json!(["openai"]));
        assert_eq!(lines[0]["records"], 2);
        assert_eq!(lines[4]["records"], 1);
        assert_eq!(lines[3]["xxh3"], Value::Null);
        seen.push(std::fs::read(d.join("m.jsonl")).unwrap());
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn standard_input_is_hashed_as_read() {
    let data = format!("{}\n", call("c0", "one"));
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.jsonl");
    toolsift()
        .args(["extract", "--manifest"])
        .arg(&m)
        .write_stdin(data.clone())
        .assert()
        .success();
    let lines = manifest(&m);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["path"], "-");
    assert_eq!(lines[0]["size"], data.len());
    assert_eq!(lines[0]["mtime"], Value::Null);
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(data.as_bytes()));
    assert_eq!(lines[0]["xxh3"], hash);
    assert_eq!(lines[0]["records"], 1);
}

#[test]
fn check_writes_a_manifest_too() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.jsonl");
    toolsift()
        .args(["check", "fixtures/codex/rollout.jsonl", "--manifest"])
        .arg(&m)
        .assert()
        .success();
    let lines = manifest(&m);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["status"], "read");
    assert_eq!(lines[0]["dialects"], serde_json::json!(["codex"]));
}

#[test]
fn unchanged_inputs_are_skipped_and_manifests_chain() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let names = ["same.jsonl", "touched.jsonl", "edited.jsonl", "grown.jsonl"];
    for (i, name) in names.iter().enumerate() {
        std::fs::write(
            d.join(name),
            format!("{}\n", call(&format!("c{i}"), "tool")),
        )
        .unwrap();
    }
    let run = |args: &[&str]| {
        let out = toolsift()
            .current_dir(d)
            .arg("extract")
            .args(args)
            .args(names)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let first = run(&["--manifest", "m1.jsonl", "--skip-unchanged", "m0.jsonl"]);
    assert_eq!(records(&first).len(), 4);
    let m1 = manifest(&d.join("m1.jsonl"));
    assert!(m1.iter().all(|l| l["status"] == "read"));

    let set_mtime = |name: &str, t: SystemTime| {
        let f = std::fs::File::options()
            .write(true)
            .open(d.join(name))
            .unwrap();
        f.set_modified(t).unwrap();
    };
    // Touched: same bytes, a new mtime.
    set_mtime("touched.jsonl", SystemTime::now() + Duration::from_secs(60));
    // Edited: the same size and mtime, other bytes (only the hash tells).
    let before = std::fs::metadata(d.join("edited.jsonl")).unwrap();
    std::fs::write(d.join("edited.jsonl"), format!("{}\n", call("cX", "tool"))).unwrap();
    set_mtime("edited.jsonl", before.modified().unwrap());
    assert_eq!(
        std::fs::metadata(d.join("edited.jsonl")).unwrap().len(),
        before.len()
    );
    // Grown: a line more.
    let mut f = std::fs::File::options()
        .append(true)
        .open(d.join("grown.jsonl"))
        .unwrap();
    writeln!(f, "{}", call("c9", "more")).unwrap();
    drop(f);

    for jobs in ["1", "2"] {
        let m2 = format!("m2-{jobs}.jsonl");
        let second = run(&[
            "-j",
            jobs,
            "--skip-unchanged",
            "m1.jsonl",
            "--manifest",
            &m2,
        ]);
        let files: Vec<String> = records(&second)
            .iter()
            .map(|r| r.source().file.clone())
            .collect();
        assert_eq!(
            files,
            [
                "touched.jsonl",
                "edited.jsonl",
                "grown.jsonl",
                "grown.jsonl"
            ],
            "-j {jobs}"
        );
        let m2 = manifest(&d.join(m2));
        let status: Vec<&str> = m2.iter().map(|l| l["status"].as_str().unwrap()).collect();
        assert_eq!(status, ["unchanged", "read", "read", "read"], "-j {jobs}");
        assert_eq!(m2[0]["records"], 0);
        for (line, name) in m2.iter().zip(names) {
            assert_eq!(line["xxh3"], xxh3(&d.join(name)), "{name}");
        }
        assert_eq!(m2[0]["mtime"], m1[0]["mtime"]);
        assert_eq!(m2[1]["xxh3"], m1[1]["xxh3"]);
        assert_ne!(m2[1]["mtime"], m1[1]["mtime"]);
        assert_eq!(m2[2]["mtime"], m1[2]["mtime"]);
        assert_ne!(m2[2]["xxh3"], m1[2]["xxh3"]);
    }

    // The next night, from the manifest of the last: nothing changed, nothing read,
    // and the chain goes on.
    let third = run(&["--skip-unchanged", "m2-2.jsonl", "--manifest", "m3.jsonl"]);
    assert!(third.is_empty());
    let m2 = manifest(&d.join("m2-2.jsonl"));
    let m3 = manifest(&d.join("m3.jsonl"));
    for (a, b) in m2.iter().zip(&m3) {
        assert_eq!(b["status"], "unchanged");
        for key in ["path", "size", "mtime", "xxh3"] {
            assert_eq!(a[key], b[key], "{key}");
        }
    }
    // In place: the manifest read is the one replaced.
    run(&["--skip-unchanged", "m3.jsonl", "--manifest", "m3.jsonl"]);
    assert_eq!(manifest(&d.join("m3.jsonl")), m3);
}

#[test]
fn an_earlier_manifest_that_is_no_manifest_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not json\n").unwrap();
    toolsift()
        .args([
            "extract",
            "fixtures/codex/rollout.jsonl",
            "--skip-unchanged",
        ])
        .arg(&bad)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("not a manifest line"));
}
