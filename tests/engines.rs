//! toolsift under an engine that runs many of it (xargs -P, GNU parallel, job arrays):
//! thread counts, lists of files, shards, labels and the exit code of a partial run.

use crate::common;
use crate::common::toolsift;

const CHAT: &str = "fixtures/openai-chat/parallel-tool-calls.json";

#[test]
fn toolsift_threads_sets_the_default_and_a_bad_value_is_a_usage_error() {
    let converted = "fixtures/mandrake/legacy-xml-history.json";
    let commands: [&[&str]; 3] = [
        &["extract", CHAT],
        &["check", CHAT],
        &["convert", "--to", "json", converted],
    ];
    for command in commands {
        let out = toolsift()
            .args(command)
            .env("TOOLSIFT_THREADS", "1")
            .output()
            .unwrap();
        assert!(
            out.status.code() == Some(0) || (command[0] == "check" && out.status.code() == Some(1)),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for bad in ["0", "x", "-2", "1.5"] {
            let out = toolsift()
                .args(command)
                .env("TOOLSIFT_THREADS", bad)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{command:?} {bad}");
            assert!(out.stdout.is_empty(), "{command:?} {bad}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(&format!(
                    "TOOLSIFT_THREADS={bad}: expected a positive integer"
                )),
                "{command:?} {bad}: {stderr}"
            );
        }
    }
    // The same records on one thread as on the default.
    let one = toolsift()
        .args(["extract", "fixtures/openai-chat", "fixtures/codex"])
        .env("TOOLSIFT_THREADS", "1")
        .output()
        .unwrap();
    let default = toolsift()
        .args(["extract", "fixtures/openai-chat", "fixtures/codex"])
        .output()
        .unwrap();
    assert_eq!(one.stdout, default.stdout);
}

/// A tree of transcripts: fixtures of several kinds in nested folders.
fn tree(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let root = common::root();
    let mut made = Vec::new();
    for (i, fixture) in [
        CHAT,
        "fixtures/openai-chat/request-history.json",
        "fixtures/codex/rollout.jsonl",
        "fixtures/hermes/qwen-parallel.txt",
        "fixtures/mistral/v11.txt",
        "fixtures/anthropic",
    ]
    .iter()
    .enumerate()
    {
        let from = root.join(fixture);
        let files: Vec<_> = if from.is_dir() {
            let mut f: Vec<_> = std::fs::read_dir(&from)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .collect();
            f.sort();
            f
        } else {
            vec![from]
        };
        for (j, file) in files.iter().enumerate() {
            let to = dir.join(format!("part{}", i % 3)).join(format!(
                "f{i}-{j}-{}",
                file.file_name().unwrap().to_string_lossy()
            ));
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(file, &to).unwrap();
            made.push(to);
        }
    }
    made
}

fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    toolsift().args(args).output().unwrap()
}

/// The records of a run, one JSON line each, sorted (shards come in any order).
fn sorted_lines(stdout: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn files_of(stdout: &[u8]) -> std::collections::BTreeSet<String> {
    common::records(stdout)
        .iter()
        .map(|r| match r {
            common::Record::Call { source, .. }
            | common::Record::Result { source, .. }
            | common::Record::Text { source, .. } => source.file.clone(),
        })
        .collect()
}

#[test]
fn shards_together_are_the_whole_run_each_file_in_one() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let made = tree(&data);
    assert!(made.len() > 8, "{}", made.len());
    let whole = run(&["extract".as_ref(), data.as_os_str()]);
    assert_eq!(whole.status.code(), Some(0));
    let all_files = files_of(&whole.stdout);
    for n in [1u64, 2, 3, 7] {
        let mut union = Vec::new();
        let mut seen = std::collections::BTreeMap::<String, u64>::new();
        for i in 1..=n {
            let shard = format!("{i}/{n}");
            let out = run(&[
                "extract".as_ref(),
                "--shard".as_ref(),
                shard.as_ref(),
                data.as_os_str(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{shard}");
            for file in files_of(&out.stdout) {
                *seen.entry(file).or_default() += 1;
            }
            union.extend(sorted_lines(&out.stdout));
        }
        union.sort();
        assert_eq!(union, sorted_lines(&whole.stdout), "{n} shards");
        assert_eq!(
            seen.keys().cloned().collect::<Vec<_>>(),
            Vec::from_iter(all_files.clone())
        );
        assert!(seen.values().all(|&k| k == 1), "{n}: {seen:?}");
    }
    // Files of no call are in exactly one shard too: check counts each file once.
    let mut files = 0;
    for i in 1..=3 {
        let out = run(&[
            "check".as_ref(),
            "--allow-empty".as_ref(),
            "--shard".as_ref(),
            format!("{i}/3").as_ref(),
            data.as_os_str(),
        ]);
        let text = String::from_utf8(out.stdout).unwrap();
        let summary = text.lines().last().unwrap();
        files += summary.split(' ').next().unwrap().parse::<usize>().unwrap();
    }
    assert_eq!(files, made.len());
}

#[test]
fn a_shard_is_the_same_wherever_the_tree_is_and_when_files_are_added_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    tree(&data);
    // The shard of each file, by its path inside the tree.
    let shards = |dir: &std::path::Path| {
        let mut of = std::collections::BTreeMap::new();
        for i in 1..=4 {
            let out = run(&[
                "extract".as_ref(),
                "--shard".as_ref(),
                format!("{i}/4").as_ref(),
                dir.as_os_str(),
            ]);
            for file in files_of(&out.stdout) {
                let inside = file
                    .strip_prefix(&*dir.to_string_lossy())
                    .unwrap()
                    .to_owned();
                of.insert(inside, i);
            }
        }
        of
    };
    let before = shards(&data);
    // Files added to another folder move no file from its shard.
    let extra = data.join("part9");
    std::fs::create_dir_all(&extra).unwrap();
    for k in 0..20 {
        std::fs::copy(
            common::root().join(CHAT),
            extra.join(format!("new{k}.json")),
        )
        .unwrap();
    }
    let after = shards(&data);
    for (file, shard) in &before {
        assert_eq!(after.get(file), Some(shard), "{file}");
    }
    assert_eq!(after.len(), before.len() + 20);
    // The tree mounted elsewhere (another node's path): the same shards.
    let moved = tmp.path().join("elsewhere").join("mnt");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&data, &moved).unwrap();
    assert_eq!(shards(&moved), after);
}

#[test]
fn shard_numbers_outside_one_to_n_are_usage_errors() {
    for bad in ["0/4", "5/4", "1/0", "3", "a/4", "-1/4"] {
        let out = run(&[
            "extract".as_ref(),
            format!("--shard={bad}").as_ref(),
            CHAT.as_ref(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--shard"), "{bad}: {stderr}");
    }
    let out = run(&[
        "extract".as_ref(),
        "--shard".as_ref(),
        "0/4".as_ref(),
        CHAT.as_ref(),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("numbered from 1 to 4"));
    // Standard input cannot be split.
    let out = toolsift()
        .args(["extract", "--shard", "1/2"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_nul_separated_list_takes_names_with_line_breaks() {
    let tmp = tempfile::tempdir().unwrap();
    let odd = tmp.path().join("two\nlines.json");
    std::fs::copy(common::root().join(CHAT), &odd).unwrap();
    let plain = tmp.path().join("plain.json");
    std::fs::copy(common::root().join(CHAT), &plain).unwrap();
    let mut list = Vec::new();
    for p in [&odd, &plain] {
        list.extend_from_slice(p.as_os_str().as_encoded_bytes());
        list.push(0);
    }
    for args in [
        &["extract", "--files-from", "-", "-0"][..],
        &["extract", "--null", "--files-from", "-"],
    ] {
        let out = toolsift()
            .args(args)
            .write_stdin(list.clone())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let files = files_of(&out.stdout);
        assert!(files.contains(&*odd.to_string_lossy()), "{files:?}");
        assert_eq!(files.len(), 2);
    }
    // Newline-separated, with blank lines and no final line break; a listed directory
    // is walked.
    let list = format!(
        "{}\n\n{}",
        plain.display(),
        common::root().join("fixtures/mistral").display()
    );
    let out = toolsift()
        .args(["extract", "--files-from", "-"])
        .write_stdin(list)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(files_of(&out.stdout).len(), 3);
    // A list in a file, with the arguments before it.
    let file = tmp.path().join("list");
    std::fs::write(&file, format!("{}\n", plain.display())).unwrap();
    let out = run(&[
        "extract".as_ref(),
        CHAT.as_ref(),
        "--files-from".as_ref(),
        file.as_os_str(),
    ]);
    let files: Vec<String> = files_of(&out.stdout).into_iter().collect();
    assert_eq!(files.len(), 2, "{files:?}");
}

#[test]
fn a_file_listed_or_named_twice_is_read_once_as_a_walk_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let a = data.join("a.json");
    std::fs::copy(common::root().join(CHAT), &a).unwrap();
    std::fs::copy(common::root().join(CHAT), data.join("b.json")).unwrap();
    std::fs::hard_link(&a, data.join("c.json")).unwrap();
    let walked = run(&["extract".as_ref(), data.as_os_str()]);
    assert_eq!(common::records(&walked.stdout).len(), 4);
    // What `find DIR -type f` lists: the hard link too.
    let mut list = Vec::new();
    for name in ["a.json", "b.json", "c.json"] {
        list.extend_from_slice(data.join(name).as_os_str().as_encoded_bytes());
        list.push(b'\n');
    }
    for command in ["extract", "check"] {
        let out = toolsift()
            .args([command, "--files-from", "-"])
            .write_stdin(list.clone())
            .output()
            .unwrap();
        if command == "extract" {
            assert_eq!(out.stdout, walked.stdout);
        } else {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.starts_with("2 files, 4 calls"), "{text}");
        }
    }
    // Named twice, or by two names of one file: once.
    let out = run(&[
        "extract".as_ref(),
        a.as_os_str(),
        a.as_os_str(),
        data.join("c.json").as_os_str(),
    ]);
    assert_eq!(common::records(&out.stdout).len(), 2);
    // Convert writes one output for the file.
    let out_dir = tmp.path().join("out");
    let out = toolsift()
        .args(["convert", "--to", "json", "--out-dir"])
        .arg(&out_dir)
        .args(["--files-from", "-"])
        .write_stdin(list)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = walkdir(&out_dir);
    assert_eq!(written.len(), 2, "{written:?}");
}

fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_listed_file_gone_is_a_partial_run_and_every_other_record_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let made = tree(&data);
    let whole = run(&["extract".as_ref(), data.as_os_str()]);
    // A list made before one of its files was deleted.
    let mut list = String::new();
    for (i, p) in made.iter().enumerate() {
        list += &format!("{}\n", p.display());
        if i == 2 {
            list += &format!("{}\n", data.join("part1/deleted.json").display());
        }
    }
    for jobs in ["1", "2"] {
        let out = toolsift()
            .args(["extract", "-j", jobs, "--files-from", "-"])
            .write_stdin(list.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "-j {jobs}");
        assert_eq!(
            sorted_lines(&out.stdout),
            sorted_lines(&whole.stdout),
            "-j {jobs}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("deleted.json: No such file"), "{stderr}");
    }
    let out = toolsift()
        .args(["check", "--allow-empty", "--files-from", "-"])
        .write_stdin(list.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = toolsift()
        .args(["convert", "--to", "json", "--compact", "--files-from", "-"])
        .write_stdin(list)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn files_from_stdin_and_stdin_as_data_conflict() {
    for command in [&["extract"][..], &["check"], &["convert", "--to", "json"]] {
        let out = toolsift()
            .args(command)
            .args(["--files-from", "-", "-"])
            .write_stdin(format!("{CHAT}\n"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--files-from -"), "{stderr}");
        // A '-' in the list is standard input as well.
        let out = toolsift()
            .args(command)
            .args(["--files-from", "-"])
            .write_stdin(format!("{CHAT}\n-\n"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command:?}");
    }
    // -0 without a list, and a list that cannot be read: usage errors.
    let out = run(&["extract".as_ref(), "-0".as_ref(), CHAT.as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&[
        "extract".as_ref(),
        "--files-from".as_ref(),
        "no/such/list".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--files-from no/such/list"));
}

#[test]
fn label_names_standard_input_in_records_and_messages() {
    let label = "s3://bucket/key.jsonl";
    let chat = std::fs::read(common::root().join(CHAT)).unwrap();
    let out = toolsift()
        .args(["extract", "--label", label])
        .write_stdin(chat.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let files = files_of(&out.stdout);
    assert_eq!(Vec::from_iter(files), [label]);
    // With files named too, only standard input is labelled.
    let out = toolsift()
        .args(["extract", "--label", label, CHAT, "-"])
        .write_stdin(chat.clone())
        .output()
        .unwrap();
    assert_eq!(Vec::from_iter(files_of(&out.stdout)), [CHAT, label]);
    // Messages name it too.
    let out = toolsift()
        .args(["extract", "--label", label])
        .write_stdin("{\"a\": 1}\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("toolsift: {label}: ")),
        "{stderr}"
    );
    let out = toolsift()
        .args(["check", "--label", label])
        .write_stdin("")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!("{label}: no transcript")),
        "{stdout}"
    );
    let out = toolsift()
        .args(["convert", "--to", "json", "--label", label])
        .write_stdin("no call here")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("toolsift: {label}: ")), "{stderr}");
    // No standard input read: a usage error.
    for command in [&["extract"][..], &["check"], &["convert", "--to", "json"]] {
        let out = toolsift()
            .args(command)
            .args(["--label", label, CHAT])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--label"));
    }
}
