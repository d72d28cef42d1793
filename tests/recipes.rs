//! The recipes of `examples/scale/` run end to end on a generated archive: xargs -P,
//! GNU parallel, a job array, Spark and Dask. Whatever splits the work, the records of
//! all the parts are those of one `toolsift extract DIR`, record for record, and every
//! input is in exactly one manifest, with the line the whole run gives it.

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An archive of a few thousand small transcripts: copies of the small JSON and JSON
/// Lines fixtures in nested folders, with binary files, a hard link whose second name
/// sorts before the first as bytes (`d1-link.json` < `d1/…`) but comes after it in
/// the walk, a name with a line break and spaces, a text of no call, and hidden files
/// no run reads. Only fixtures that give records are copied.
fn archive(dir: &Path, files: usize) {
    let fixtures: Vec<PathBuf> = walkdir::WalkDir::new(common::root().join("fixtures"))
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| {
            let name = p.to_string_lossy();
            (name.ends_with(".json") || name.ends_with(".jsonl"))
                && !name.contains("api-schemas")
                && p.metadata().unwrap().len() < 8_000
        })
        // Each copy gives records: the one input read with no record is the text below.
        .filter(|p| !common::extract(&[p.to_str().unwrap()]).is_empty())
        .take(40)
        .collect();
    assert!(fixtures.len() >= 30, "{}", fixtures.len());
    for k in 0..files {
        let from = &fixtures[k % fixtures.len()];
        let to = dir.join(format!("d{}/e{}", k % 7, k % 13)).join(format!(
            "f{k}-{}",
            from.file_name().unwrap().to_string_lossy()
        ));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
    for k in 0..3 {
        std::fs::write(
            dir.join(format!("d{k}/blob{k}.bin")),
            [0u8, 1, 2].repeat(500),
        )
        .unwrap();
    }
    let linked = std::fs::read_dir(dir.join("d1/e1"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    std::fs::hard_link(&linked, dir.join("d1-link.json")).unwrap();
    std::fs::copy(&fixtures[0], dir.join("d2/two\nlines and spaces.json")).unwrap();
    std::fs::write(dir.join("d0/notes.txt"), "No call in here.\n").unwrap();
    std::fs::create_dir_all(dir.join(".hidden")).unwrap();
    std::fs::copy(&fixtures[1], dir.join(".hidden/x.json")).unwrap();
    std::fs::copy(&fixtures[2], dir.join("d3/.x.json")).unwrap();
}

/// What one plain run gives: its records and its manifest lines, each sorted.
struct Run {
    records: Vec<String>,
    manifest: Vec<String>,
}

fn sorted(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

fn whole(src: &Path, tmp: &Path) -> Run {
    let manifest = tmp.join("whole.manifest.jsonl");
    let out = common::toolsift()
        .args(["extract", "-q", "--manifest"])
        .arg(&manifest)
        .arg(src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let run = Run {
        records: sorted(&String::from_utf8(out.stdout).unwrap()),
        manifest: sorted(&std::fs::read_to_string(manifest).unwrap()),
    };
    assert!(run.records.len() > 1000, "{}", run.records.len());
    // The hard link is read once, by the name the walk meets first; hidden files never.
    let manifest = run.manifest.join("\n");
    assert!(!manifest.contains("d1-link.json") && !manifest.contains(".hidden"));
    assert!(manifest.contains("skipped: binary") && manifest.contains("two\\nlines"));
    run
}

/// The union of the parts under OUT, sorted, as one run gives it.
fn parts(out: &Path) -> Run {
    let cat = |sub: &str| {
        let mut text = String::new();
        let mut count = 0;
        for entry in std::fs::read_dir(out.join(sub)).unwrap() {
            text += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
            count += 1;
        }
        assert!(count > 1, "{sub}: {count} parts");
        sorted(&text)
    };
    Run {
        records: cat("parts"),
        manifest: cat("manifests"),
    }
}

/// The parts under OUT are the whole run: the same records, and each input in exactly
/// one manifest with the same line.
fn assert_union(what: &str, out: &Path, whole: &Run) {
    let parts = parts(out);
    assert!(
        parts.records == whole.records,
        "{what}: {} records in the parts, {} in one run",
        parts.records.len(),
        whole.records.len()
    );
    assert!(
        parts.manifest == whole.manifest,
        "{what}: {} manifest lines in the parts, {} in one run",
        parts.manifest.len(),
        whole.manifest.len()
    );
}

fn recipe(name: &str) -> Command {
    let mut cmd = Command::new(common::root().join("examples/scale").join(name));
    cmd.env("TOOLSIFT", env!("CARGO_BIN_EXE_toolsift"))
        .env_remove("TOOLSIFT_THREADS");
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A stand-in for the binary that fails on the runs given an argument with `marker` in
/// it (a file, or the part it writes):
/// with exit 2 (`fail`), or by deleting it first (a real partial run, exit 3).
fn flaky(tmp: &Path, marker: &str, how: &str) -> PathBuf {
    let path = tmp.join(format!("toolsift-{how}"));
    let act = match how {
        "fail" => "exit 2".to_owned(),
        _ => format!(
            "rm -f \"$a\"; exec '{}' \"$@\"",
            env!("CARGO_BIN_EXE_toolsift")
        ),
    };
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do case $a in *{marker}*) {act};; esac; done\n\
             exec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_toolsift")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn xargs_parallel_and_job_array_parts_are_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    archive(&src, 2_500);
    let whole = whole(&src, tmp.path());

    let out = tmp.path().join("xargs");
    let run = recipe("xargs.sh")
        .arg(&src)
        .arg(&out)
        .args(["2", "300"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains(", 0 failed"), "{}", stderr(&run));
    assert_union("xargs.sh", &out, &whole);
    // A second batch into the same folder would mix with the first: refused.
    let again = recipe("xargs.sh").arg(&src).arg(&out).output().unwrap();
    assert_eq!(again.status.code(), Some(2));

    // A job array of 3 tasks, all at once, then the report.
    let out = tmp.path().join("array");
    let tasks: Vec<_> = (1..=3)
        .map(|task| {
            recipe("job-array.sh")
                .arg(&src)
                .arg(&out)
                .env("TASK", task.to_string())
                .env("COUNT", "3")
                .spawn()
                .unwrap()
        })
        .collect();
    for mut task in tasks {
        assert!(task.wait().unwrap().success());
    }
    let report = recipe("report.sh").arg(&out).output().unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    assert_union("job-array.sh", &out, &whole);
    // A Kubernetes indexed Job numbers tasks from 0.
    let out = tmp.path().join("indexed");
    for index in 0..2 {
        let task = recipe("job-array.sh")
            .arg(&src)
            .arg(&out)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("COUNT", "2")
            .output()
            .unwrap();
        assert!(task.status.success(), "{}", stderr(&task));
    }
    assert!(out.join("parts/part-1.jsonl").exists() && out.join("parts/part-2.jsonl").exists());
    assert_union("job-array.sh, JOB_COMPLETION_INDEX", &out, &whole);

    if Command::new("parallel").arg("--version").output().is_ok() {
        let out = tmp.path().join("parallel");
        let run = recipe("parallel.sh").arg(&src).arg(&out).output().unwrap();
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert_union("parallel.sh", &out, &whole);
    } else {
        println!("GNU parallel is not installed: parallel.sh not run");
    }
}

#[test]
fn a_failed_run_fails_the_batch_and_a_partial_one_names_its_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    archive(&src, 300);
    // A run that fails: the batch fails, naming the run and how to rerun it.
    let out = tmp.path().join("failed");
    let run = recipe("xargs.sh")
        .arg(&src)
        .arg(&out)
        .args(["2", "50"])
        .env("TOOLSIFT", flaky(tmp.path(), "/d3/e4/", "fail"))
        .output()
        .unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains(": exit 2: rerun it"), "{err}");
    assert!(
        err.contains("; 0 runs partial, ") && !err.contains(", 0 failed"),
        "{err}"
    );
    // A file gone after it was listed: exit 3, the file named with its status.
    let out = tmp.path().join("partial");
    let run = recipe("xargs.sh")
        .arg(&src)
        .arg(&out)
        .args(["2", "50"])
        .env("TOOLSIFT", flaky(tmp.path(), "/d3/e4/f", "gone"))
        .output()
        .unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(
        err.contains("exit 3, inputs not read (rerun on them):"),
        "{err}"
    );
    assert!(
        err.contains("/d3/e4/f") && err.contains("\"status\":\"error: "),
        "{err}"
    );
    // A job array task that fails exits with its code and the report says so.
    let out = tmp.path().join("array");
    for task in 1..=2 {
        let failing = if task == 2 {
            flaky(tmp.path(), "src", "fail")
        } else {
            PathBuf::from(env!("CARGO_BIN_EXE_toolsift"))
        };
        let run = recipe("job-array.sh")
            .arg(&src)
            .arg(&out)
            .env("TASK", task.to_string())
            .env("COUNT", "2")
            .env("TOOLSIFT", failing)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(if task == 2 { 2 } else { 0 }));
    }
    let report = recipe("report.sh").arg(&out).output().unwrap();
    assert_eq!(report.status.code(), Some(1), "{}", stderr(&report));
    assert!(stderr(&report).contains("part-2: exit 2"));
}

/// Whether the Spark and Dask recipes can run here: pyspark and dask importable, and a
/// JVM for Spark. CI does not install them; this test then says why and returns.
fn python_engines() -> Result<(), String> {
    let import = Command::new("python3")
        .args(["-c", "import pyspark, dask.bag"])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !import.status.success() {
        return Err(format!(
            "python3 cannot import pyspark and dask ({})",
            stderr(&import).lines().last().unwrap_or("")
        ));
    }
    match Command::new("java").arg("-version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("java -version failed: {}", stderr(&out))),
        Err(e) => Err(format!("java: {e}")),
    }
}

#[test]
fn spark_and_dask_parts_are_one_run() {
    if let Err(why) = python_engines() {
        println!("spark.py and dask.py not run: {why} (pip install pyspark dask, and a JDK)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    archive(&src, 2_500);
    let whole = whole(&src, tmp.path());
    let runs: [(&str, &[&str]); 4] = [
        ("spark.py", &["--master", "local[1]"]),
        ("spark.py", &["--master", "local[2]"]),
        ("dask.py", &["--scheduler", "threads", "--workers", "1"]),
        ("dask.py", &["--scheduler", "processes", "--workers", "2"]),
    ];
    let mut outs = BTreeMap::new();
    for (i, (script, args)) in runs.iter().enumerate() {
        let out = tmp.path().join(format!("out{i}"));
        let run = recipe(script)
            .arg(&src)
            .arg(&out)
            .args(*args)
            .output()
            .unwrap();
        let what = format!("{script} {args:?}");
        assert_eq!(run.status.code(), Some(0), "{what}: {}", stderr(&run));
        assert!(stderr(&run).contains("; 0 runs failed"), "{}", stderr(&run));
        assert_union(&what, &out, &whole);
        outs.insert(what, out);
    }
    // A task that fails stops the driver with exit 1, naming its partition.
    let out = tmp.path().join("failed");
    let run = recipe("dask.py")
        .arg(&src)
        .arg(&out)
        .args(["--workers", "2"])
        .env("TOOLSIFT", flaky(tmp.path(), "/part-00001.jsonl", "fail"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(err.contains("toolsift: part-00001: exit 2 ("), "{err}");
    assert!(err.contains("; 1 runs failed"), "{err}");
    // duckdb.sql over one batch's output, when DuckDB's Python module is installed.
    let sql = common::root().join("examples/scale/duckdb.sql");
    let script = r#"
import duckdb, sys
con = duckdb.connect()
for statement in open(sys.argv[1]).read().split(";"):
    code = [l for l in statement.splitlines() if l.strip() and not l.startswith("--")]
    if code:
        result = con.sql(statement)
        if code[0].startswith("SELECT"):
            print(len(result.fetchall()))
"#;
    let out = outs.values().next().unwrap();
    let duck = Command::new("python3")
        .args(["-c", script])
        .arg(&sql)
        .current_dir(out)
        .output()
        .unwrap();
    if stderr(&duck).contains("No module named 'duckdb'") {
        println!("duckdb.sql not run: python3 cannot import duckdb");
        return;
    }
    assert!(duck.status.success(), "{}", stderr(&duck));
    let counts: Vec<usize> = String::from_utf8(duck.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    // Calls per tool; the 3 binary files skipped; notes.txt, read with no record; then
    // the two consistency queries, which return nothing.
    assert_eq!(counts.len(), 5, "{counts:?}");
    assert!(counts[0] > 10, "{counts:?}");
    assert_eq!(counts[1], 3, "{counts:?}");
    assert_eq!(counts[2], 1, "{counts:?}");
    assert_eq!(&counts[3..], [0, 0], "{counts:?}");
}
