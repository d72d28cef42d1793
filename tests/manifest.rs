//! `--manifest`: a line per input saying what happened to it; `--skip-unchanged`:
//! inputs an earlier manifest shows unchanged are not read again.

use crate::common;
use crate::common::{records, toolsift};
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

/// The convert lines: `extract`'s fields that apply, then what convert did.
const CONVERT_KEYS: [&str; 10] = [
    "path",
    "size",
    "mtime",
    "xxh3",
    "status",
    "output",
    "conversations",
    "calls",
    "results",
    "refused",
];

fn statuses(lines: &[Value]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect()
}

/// A tree of one migration batch: a history, the same gzipped, binary data, plain
/// text (no conversation) and a broken file.
fn convert_batch(d: &Path) -> Vec<&'static str> {
    let history =
        std::fs::read(common::root().join("fixtures/mandrake/legacy-xml-history.json")).unwrap();
    std::fs::create_dir(d.join("in")).unwrap();
    std::fs::write(d.join("in/a.json"), &history).unwrap();
    std::fs::write(d.join("in/b.json.gz"), gzip(&history)).unwrap();
    std::fs::write(d.join("in/bin.dat"), b"ab\0cd").unwrap();
    std::fs::write(d.join("in/broken.json"), "{\"messages\": [\n").unwrap();
    std::fs::write(d.join("in/notes.txt"), "Notes on the migration.\n").unwrap();
    vec![
        "in/a.json",
        "in/b.json.gz",
        "in/bin.dat",
        "in/broken.json",
        "in/notes.txt",
    ]
}

#[test]
fn convert_writes_a_line_per_input_in_input_order_on_one_thread_or_two() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let names = convert_batch(d);
    let mut seen = Vec::new();
    for jobs in ["1", "2"] {
        let _ = std::fs::remove_dir_all(d.join("out"));
        let out = toolsift()
            .current_dir(d)
            .args(["convert", "--to", "openai", "--out-dir", "out", "in"])
            .args(["-j", jobs, "--manifest", "m.jsonl"])
            .output()
            .unwrap();
        // The broken file fails the run (exit 1); the rest is done.
        assert_eq!(out.status.code(), Some(1), "-j {jobs}");
        let lines = manifest(&d.join("m.jsonl"));
        let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().unwrap()).collect();
        assert_eq!(paths, names, "-j {jobs}");
        for (line, name) in lines.iter().zip(&names) {
            let keys: Vec<&String> = line.as_object().unwrap().keys().collect();
            // `refused` only with --verify.
            assert_eq!(keys, CONVERT_KEYS[..9], "{name}");
            let path = d.join(name);
            let meta = std::fs::metadata(&path).unwrap();
            // The bytes as stored: the gzipped file's, not what it decodes to.
            assert_eq!(line["size"], meta.len(), "{name}");
            assert_eq!(line["xxh3"], xxh3(&path), "{name}");
            let mtime = line["mtime"].as_str().unwrap();
            assert!(
                mtime.len() == 30 && mtime.ends_with('Z') && mtime.as_bytes()[10] == b'T',
                "{mtime}"
            );
            let output = format!("out/{}", name.strip_prefix("in/").unwrap());
            assert_eq!(line["output"], output, "{name}");
        }
        assert_eq!(
            statuses(&lines),
            [
                "written",
                "written",
                "skipped: binary",
                "failed: not JSON: EOF while parsing a list at line 2 column 0",
                "skipped: not a conversation",
            ]
        );
        for line in &lines[..2] {
            assert_eq!(
                (&line["conversations"], &line["calls"], &line["results"]),
                (&Value::from(1), &Value::from(2), &Value::from(2))
            );
        }
        for line in &lines[2..] {
            assert_eq!(line["calls"], 0);
        }
        seen.push(std::fs::read(d.join("m.jsonl")).unwrap());
    }
    assert_eq!(seen[0], seen[1]);

    // Run again: the outputs that exist are kept, not read (no hash), and said stale
    // when their input is newer.
    let later = SystemTime::now() + Duration::from_secs(10);
    std::fs::File::options()
        .write(true)
        .open(d.join("in/b.json.gz"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    let out = toolsift()
        .current_dir(d)
        .args(["convert", "--to", "openai", "--out-dir", "out", "in"])
        .args(["--manifest", "m.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines = manifest(&d.join("m.jsonl"));
    assert_eq!(statuses(&lines)[..2], ["kept", "kept"]);
    assert_eq!(lines[0]["stale"], false);
    assert_eq!(lines[1]["stale"], true);
    for line in &lines[..2] {
        assert_eq!(line["xxh3"], Value::Null);
        assert!(line["size"].is_u64() && line["mtime"].is_string(), "{line}");
        assert_eq!(line["calls"], 0);
    }
    assert!(lines[2..].iter().all(|l| l.get("stale").is_none()));

    // An output that cannot be written: `error: …`, the input hashed all the same.
    std::fs::remove_file(d.join("out/a.json")).unwrap();
    std::fs::create_dir_all(d.join("out/a.json/x")).unwrap();
    let out = toolsift()
        .current_dir(d)
        .args(["convert", "--to", "openai", "--out-dir", "out", "--force"])
        .args(["--manifest", "m.jsonl", "in"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let lines = manifest(&d.join("m.jsonl"));
    let status = lines[0]["status"].as_str().unwrap();
    assert!(
        status.starts_with("error: out/a.json: cannot write: "),
        "{status}"
    );
    assert_eq!(lines[0]["xxh3"], xxh3(&d.join("in/a.json")));
}

#[test]
fn convert_in_place_says_unchanged_the_second_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    convert_batch(d);
    let run = || {
        toolsift()
            .current_dir(d)
            .args(["convert", "--to", "json", "--in-place", "--no-backup"])
            .args(["--verify", "--manifest", "m.jsonl", "in"])
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    let first = manifest(&d.join("m.jsonl"));
    assert_eq!(
        statuses(&first),
        [
            "written",
            "skipped: compressed",
            "skipped: binary",
            "failed: not JSON: EOF while parsing a list at line 2 column 0",
            "skipped: not a conversation",
        ]
    );
    // In place, the output is the input; what was hashed is the original.
    assert_eq!(first[0]["output"], "in/a.json");
    let keys: Vec<&String> = first[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, CONVERT_KEYS);
    assert_eq!(first[0]["refused"], 0);
    // Not converted: nothing checked.
    assert_eq!(first[1]["refused"], Value::Null);
    let converted = d.join("in/a.json");
    run();
    let second = manifest(&d.join("m.jsonl"));
    assert_eq!(second[0]["status"], "unchanged");
    assert_eq!(second[0]["xxh3"], xxh3(&converted));
    assert_eq!(second[0]["calls"], 2);
    assert_ne!(first[0]["xxh3"], second[0]["xxh3"]);
}

#[test]
fn convert_counts_what_the_api_would_refuse_and_names_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.jsonl");
    let fixture = "fixtures/mandrake/legacy-xml-history.json";
    // Tool names with dots: Anthropic refuses them on each of the two calls.
    let out = toolsift()
        .args([
            "convert",
            "--to",
            "anthropic",
            "--verify",
            fixture,
            "--manifest",
        ])
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines = manifest(&m);
    assert_eq!(lines[0]["status"], "written");
    assert_eq!(lines[0]["output"], Value::Null);
    assert_eq!(lines[0]["refused"], 2);
    // Standard input: its bytes as read.
    let data = std::fs::read(common::root().join(fixture)).unwrap();
    toolsift()
        .args(["convert", "--to", "openai", "--manifest"])
        .arg(&m)
        .write_stdin(data.clone())
        .assert()
        .success();
    let lines = manifest(&m);
    assert_eq!(lines[0]["path"], "-");
    assert_eq!(lines[0]["size"], data.len());
    assert_eq!(lines[0]["mtime"], Value::Null);
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&data));
    assert_eq!(lines[0]["xxh3"], hash);
}

#[test]
fn convert_dry_run_writes_no_manifest_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.jsonl");
    let out = toolsift()
        .args(["convert", "--to", "openai", "--dry-run", "--manifest"])
        .arg(&m)
        .arg("fixtures/mandrake/legacy-xml-history.json")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!m.exists());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("would write the manifest (1 line); a dry run writes none"),
        "{err}"
    );
}

#[test]
fn convert_refuses_a_manifest_that_is_an_input_or_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    convert_batch(d);
    let out = toolsift()
        .current_dir(d)
        .args([
            "convert",
            "--to",
            "json",
            "in/a.json",
            "--manifest",
            "in/a.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = toolsift()
        .current_dir(d)
        .args(["convert", "--to", "json", "in/a.json", "-o", "x.json"])
        .args(["--manifest", "x.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("it is the output of in/a.json"), "{err}");
    assert!(!d.join("x.json").exists());
}
