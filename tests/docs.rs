//! The man pages and shell completions are printed by `toolsift man` and `toolsift
//! completions` and committed; this test fails when the committed copies differ from
//! what the binary prints. `TOOLSIFT_BLESS=1 cargo test --test main docs::` rewrites
//! them. The help texts are snapshotted so wording changes show in review.

use crate::common::{root, toolsift};
use clap::CommandFactory;
use toolsift::testing::Cli;

fn check(rel: &str, generated: Vec<u8>) {
    let path = root().join(rel);
    if std::env::var_os("TOOLSIFT_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{rel} is out of date: run TOOLSIFT_BLESS=1 cargo test --test main docs::"
    );
}

/// What `toolsift ARGS` prints.
fn printed(args: &[&str]) -> Vec<u8> {
    let out = toolsift().args(args).output().unwrap();
    assert!(out.status.success(), "toolsift {args:?}");
    out.stdout
}

#[test]
fn man_pages_are_current() {
    let pages = toolsift::testing::man_pages();
    let mut names = Vec::new();
    for (name, _) in &pages {
        // toolsift-tools-render: `toolsift man tools render`.
        let words: Vec<&str> = name.split('-').skip(1).collect();
        let mut args = vec!["man"];
        args.extend(&words);
        check(&format!("man/{name}.1"), printed(&args));
        names.push(format!("{name}.1"));
    }
    // No page left behind by a subcommand that is gone.
    for entry in std::fs::read_dir(root().join("man")).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(names.contains(&file), "man/{file} is no subcommand's page");
    }
}

#[test]
fn completions_are_current() {
    for (shell, file) in [
        ("bash", "toolsift.bash"),
        ("zsh", "_toolsift"),
        ("fish", "toolsift.fish"),
        ("elvish", "toolsift.elv"),
        ("powershell", "_toolsift.ps1"),
    ] {
        check(
            &format!("completions/{file}"),
            printed(&["completions", shell]),
        );
    }
}

#[test]
fn clap_definition_is_consistent() {
    Cli::command().debug_assert();
    toolsift::testing::cli_command().debug_assert();
}

#[test]
fn man_synopsis_is_how_the_command_is_run() {
    for (name, page) in toolsift::testing::man_pages() {
        let Some(words) = name.strip_prefix("toolsift-") else {
            continue;
        };
        let page = String::from_utf8(page).unwrap();
        let synopsis = page
            .split_once(".SH SYNOPSIS\n")
            .and_then(|(_, rest)| rest.lines().next())
            .unwrap_or_else(|| panic!("{name}: no synopsis"));
        let run = format!("\\fBtoolsift {}\\fR", words.replace('-', " "));
        assert!(synopsis.starts_with(&run), "{name}: {synopsis}");
    }
    let check = std::fs::read_to_string(root().join("man/toolsift-check.1")).unwrap();
    assert!(
        check.contains("\n\\fBtoolsift check\\fR [OPTIONS] [FILE]...\n"),
        "{check}"
    );
}

#[test]
fn man_takes_the_names_it_lists() {
    let out = toolsift().args(["man", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8(out.stderr).unwrap();
    let listed = message
        .split_once("(pages: ")
        .and_then(|(_, rest)| rest.split_once(';'))
        .unwrap_or_else(|| panic!("{message}"))
        .0;
    let listed: Vec<&str> = listed.split(", ").collect();
    assert!(listed.contains(&"check") && listed.contains(&"tools render"));
    for words in listed {
        let mut args = vec!["man"];
        args.extend(words.split(' '));
        let page = printed(&args);
        // The page's own name too: `toolsift man toolsift-tools-render`.
        let name = format!("toolsift-{}", words.replace(' ', "-"));
        assert_eq!(printed(&["man", &name]), page, "{name}");
        assert!(
            String::from_utf8(page)
                .unwrap()
                .contains(&format!(".TH {name} 1"))
        );
    }
}

#[test]
fn completions_offer_dialect_and_page_names() {
    let bash = String::from_utf8(printed(&["completions", "bash"])).unwrap();
    let registry: Vec<String> = toolsift::testing::all_rows(toolsift::Registry::builtin())
        .into_iter()
        .map(|row| row.name)
        .collect();
    // extract, check and convert: after --dialects, the registry's names.
    let mut offered = 0;
    for (_, rest) in bash
        .match_indices("--dialects)\n")
        .map(|(i, _)| bash.split_at(i))
    {
        let words = rest
            .split_once("compgen -W \"")
            .and_then(|(_, w)| w.split_once('"'))
            .unwrap()
            .0;
        assert_eq!(words.split(' ').collect::<Vec<_>>(), registry);
        offered += 1;
    }
    assert_eq!(offered, 3);
    // toolsift man <TAB>: the subcommands.
    let man = bash
        .split_once("toolsift__subcmd__man)\n")
        .and_then(|(_, rest)| rest.split_once("opts=\""))
        .and_then(|(_, rest)| rest.split_once('"'))
        .unwrap()
        .0;
    for name in ["check", "convert", "extract", "tools", "render"] {
        assert!(man.split(' ').any(|w| w == name), "{man}");
    }
}

#[test]
fn help_texts() {
    for args in [
        vec!["--help"],
        vec!["extract", "--help"],
        vec!["check", "--help"],
        vec!["tools", "render", "--help"],
        vec!["dialects", "--help"],
        vec!["convert", "--help"],
    ] {
        let out = toolsift()
            .args(&args)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(out.status.success());
        insta::assert_snapshot!(args.join("_"), String::from_utf8(out.stdout).unwrap());
    }
}

#[test]
fn convert_help_says_what_is_read_and_written() {
    let out = toolsift()
        .args(["convert", "--help"])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.lines().all(|l| l.chars().count() <= 80), "{help}");
    // Each option's help as one line of words.
    let option = |name: &str| -> String {
        let header = |l: &str| l.starts_with("  -") || l.starts_with("      --");
        help.lines()
            .skip_while(|l| !l.starts_with(&format!("      {name} <")))
            .enumerate()
            .take_while(|(i, l)| *i == 0 || !header(l))
            .flat_map(|(_, l)| l.split_whitespace())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let from = option("--from");
    for source in [
        "detected",
        "Claude Code",
        "Codex",
        "SWE-agent",
        "toolsift extract",
    ] {
        assert!(from.contains(source), "--from: {from}");
    }
    let to = option("--to");
    assert!(
        to.contains("<tool_call> holding <server>, <method> and <arguments>"),
        "--to: {to}"
    );
}

#[test]
fn readme_first_commands_work() {
    // The two commands on the README's first screen.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    let run = "toolsift extract fixtures/openai-chat/parallel-tool-calls.json";
    assert!(
        first_screen.contains(run),
        "README first screen lost: {run}"
    );
    // The second command is the test command .ci/run runs, said to be only part of it.
    let second = first_screen
        .split_once("```sh\n")
        .and_then(|(_, block)| block.lines().nth(1))
        .expect("README first screen lost its commands");
    let (command, comment) = second.split_once('#').unwrap_or((second, ""));
    assert!(command.trim().starts_with("cargo test"), "{second}");
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == command.trim()),
        ".ci/run must run the README's test command `{}`",
        command.trim()
    );
    assert!(
        comment.contains(".ci/run") && comment.contains("fmt") && comment.contains("clippy"),
        "{second}"
    );
    // What the README says the first command prints is what it prints.
    let shown = readme
        .split_once("The first command prints:\n\n```json\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .expect("README lost the output of its first command")
        .0;
    toolsift()
        .args(["extract", "fixtures/openai-chat/parallel-tool-calls.json"])
        .assert()
        .success()
        .stderr("")
        .stdout(shown.to_owned());
}

#[test]
fn docs_document_every_dialect() {
    // The tool channel's dialects are in the table of formats, the others in the
    // dialect tables.
    let docs = ["docs/formats.md", "docs/dialects.md"]
        .map(|rel| std::fs::read_to_string(root().join(rel)).unwrap())
        .join("\n");
    let out = toolsift().args(["dialects", "--json"]).output().unwrap();
    assert!(out.status.success());
    let rows = String::from_utf8(out.stdout).unwrap();
    // Every dialect of the registry is listed (an empty list would check nothing).
    let known = toolsift::testing::all_rows(toolsift::Registry::builtin());
    assert_eq!(rows.lines().count(), known.len());
    assert!(known.len() > 60, "{} dialects", known.len());
    let mut missing = Vec::new();
    for line in rows.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = row["name"].as_str().unwrap();
        if !docs.contains(&format!("`{name}`")) {
            missing.push(name.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/formats.md and docs/dialects.md do not mention: {missing:?}"
    );
}

/// The output a Markdown file (`rel`) shows after a command, in a text block right
/// after it.
fn doc_example(rel: &str, command: &str) -> String {
    let doc = std::fs::read_to_string(root().join(rel)).unwrap();
    let at = doc
        .find(&format!("```sh\n{command}\n```\n"))
        .unwrap_or_else(|| panic!("{rel} lost the example `{command}`"));
    let rest = &doc[at + format!("```sh\n{command}\n```\n").len()..];
    let (open, close) = if rest.starts_with("~~~text\n") {
        ("~~~text\n", "~~~\n")
    } else {
        ("```text\n", "```\n")
    };
    let body = rest
        .strip_prefix(open)
        .expect("a text block right after the command");
    body[..body.find(close).unwrap()].to_owned()
}

#[test]
fn doc_examples_show_real_output() {
    for (rel, command) in [
        (
            "README.md",
            "toolsift check --tools tests/data/contracts/openai.json tests/data/check/",
        ),
        (
            "docs/check.md",
            "toolsift check --tools tests/data/contracts/openai.json tests/data/check/",
        ),
        (
            "docs/contracts.md",
            "toolsift tools render tests/data/contracts/mcp.json",
        ),
    ] {
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        let out = toolsift().args(&args).output().unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            doc_example(rel, command),
            "{rel}: the example of `{command}` is stale"
        );
    }
}

/// The lines of the `sh` blocks of a Markdown file (`rel`), block by block.
fn sh_blocks(rel: &str) -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(root().join(rel)).unwrap();
    doc.split("```sh\n")
        .skip(1)
        .map(|rest| {
            rest[..rest.find("```").unwrap()]
                .lines()
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

#[test]
fn readme_install_profiles_exist() {
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let mut profiles = Vec::new();
    for line in sh_blocks("README.md").concat() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.starts_with(&["cargo", "install"]) {
            if let Some(i) = words.iter().position(|w| *w == "--profile") {
                profiles.push(words[i + 1].to_owned());
            }
        }
    }
    // A profile that builds faster than the release one is offered.
    assert!(
        !profiles.is_empty(),
        "README offers no faster install profile"
    );
    for profile in profiles {
        let defined = format!("[profile.{profile}]\ninherits = \"release\"\n");
        assert!(cargo.contains(&defined), "Cargo.toml lacks {defined}");
    }
}

/// README.md, ARCHITECTURE.md, BENCHMARKS.md and docs/*.md.
fn markdown_files() -> Vec<String> {
    let mut files: Vec<String> = ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md"]
        .map(String::from)
        .to_vec();
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn doc_commands_make_the_directories_they_write_to() {
    for block in markdown_files()
        .iter()
        .flat_map(|rel| sh_blocks(rel.as_str()))
    {
        for (i, line) in block.iter().enumerate() {
            let command = line.split(" #").next().unwrap();
            let Some((_, target)) = command.split_once(" > ") else {
                continue;
            };
            let target = target.split_whitespace().next().unwrap();
            let Some((dir, _)) = target.rsplit_once('/') else {
                continue;
            };
            if !target.starts_with('~') {
                continue;
            }
            let mkdir = format!("mkdir -p {dir}");
            assert!(
                block[..i].iter().any(|l| l.trim() == mkdir),
                "`{line}` needs `{mkdir}` before it"
            );
        }
    }
}

#[test]
fn github_workflow_example_is_a_whole_workflow() {
    use yaml_rust2::{Yaml, YamlLoader};
    let rel = "examples/github-workflow.yml";
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    assert!(!text.contains("|| true"), "{rel} hides a failure");
    let docs = YamlLoader::load_from_str(&text).expect("the workflow is YAML");
    let workflow = &docs[0];
    assert!(workflow["on"].as_hash().is_some(), "{rel}: no triggers");
    let jobs = workflow["jobs"].as_hash().expect("jobs");
    assert_eq!(jobs.len(), 1);
    let job = jobs.values().next().unwrap();
    let steps = job["steps"].as_vec().expect("steps");
    let field = |step: &Yaml, key: &str| step[key].as_str().unwrap_or("").to_owned();
    let find = |what: &str, is: &dyn Fn(&Yaml) -> bool| {
        steps
            .iter()
            .position(is)
            .unwrap_or_else(|| panic!("{rel}: no step that {what}"))
    };
    let uses = |action: &str| {
        let action = action.to_owned();
        move |s: &Yaml| field(s, "uses").starts_with(&format!("{action}@"))
    };
    assert_eq!(find("checks out", &uses("actions/checkout")), 0);
    let cache = find("caches", &uses("actions/cache"));
    let cached = field(&steps[cache]["with"], "path");
    assert!(
        cached.lines().any(|p| p.starts_with("~/.cargo")),
        "{cached}"
    );
    assert!(cached.lines().any(|p| p == "target"), "{cached}");
    let key = field(&steps[cache]["with"], "key");
    assert!(
        key.contains("hashFiles(") && key.contains("Cargo.lock"),
        "{key}"
    );
    assert_eq!(job["env"]["CARGO_TARGET_DIR"].as_str(), Some("target"));
    let runs = |needle: &str| {
        let needle = needle.to_owned();
        move |s: &Yaml| field(s, "run").contains(&needle)
    };
    let install = find("installs", &runs("cargo install --locked"));
    assert!(cache < install);
    assert_eq!(
        steps
            .iter()
            .filter(|s| field(s, "run").contains("cargo install"))
            .count(),
        1,
        "{rel}: toolsift is installed once"
    );
    let check = find("checks with --format github", &runs("--format github"));
    assert!(field(&steps[check], "run").starts_with("toolsift check "));
    assert!(install < check);
    let junit = find(
        "writes a JUnit report",
        &runs("--format junit -o report.xml"),
    );
    assert!(check < junit);
    // The report is written even when the check found something.
    assert!(field(&steps[junit], "if").contains("!cancelled()"));
    let upload = find("uploads", &uses("actions/upload-artifact"));
    assert!(junit < upload);
    assert_eq!(field(&steps[upload], "if"), "always()");
    assert_eq!(field(&steps[upload]["with"], "path"), "report.xml");
    // The recipes show the same file.
    let recipes = std::fs::read_to_string(root().join("docs/recipes.md")).unwrap();
    assert!(
        recipes.contains(&format!("```yaml\n{text}```\n")),
        "docs/recipes.md does not show {rel} as it is"
    );
    actionlint(rel);
}

/// actionlint's verdict on a workflow, when it is installed.
fn actionlint(rel: &str) {
    let Ok(out) = std::process::Command::new("actionlint")
        .arg(root().join(rel))
        .output()
    else {
        println!("actionlint is not on PATH: {rel} checked as YAML only");
        return;
    };
    assert!(
        out.status.success(),
        "actionlint {rel}:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn fixture_sources_name_repository_files_and_state_facts() {
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(root().join("fixtures")) {
        let entry = entry.unwrap();
        if entry.file_name() != "SOURCES.md" {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root())
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (n, line) in text.lines().enumerate() {
            // No path of the machine it was written on (paths inside the recorded
            // transcripts, a session's cwd, are what they are).
            for machine in ["/work/", "target/debug/", "target/release/"] {
                assert!(!line.contains(machine), "{rel}:{}: {line}", n + 1);
            }
            // No first person: what was done, not who did it.
            if !rel.starts_with("fixtures/convert/") {
                continue;
            }
            let words: Vec<&str> = line
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .collect();
            assert!(
                !words
                    .iter()
                    .any(|w| ["I", "I'm", "I've", "myself"].contains(w)),
                "{rel}:{}: {line}",
                n + 1
            );
        }
        // Repository files it names exist.
        for quoted in text.split('`').skip(1).step_by(2) {
            if quoted.starts_with("fixtures/") && !quoted.contains([' ', '*', '<', '{']) {
                assert!(root().join(quoted).exists(), "{rel} names {quoted}");
            }
        }
        checked += 1;
    }
    assert!(checked >= 3, "{checked} SOURCES.md");
}

/// GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces as
/// hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") || line.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

#[test]
fn doc_links_resolve() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for rel in markdown_files() {
        let text = std::fs::read_to_string(root().join(&rel)).unwrap();
        let dir = std::path::Path::new(&rel).parent().unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
            let file = if path.is_empty() {
                root().join(&rel)
            } else {
                root().join(dir).join(path)
            };
            checked += 1;
            if !file.exists() {
                broken.push(format!("{rel}: {target}"));
            } else if !fragment.is_empty() {
                let linked = std::fs::read_to_string(&file).unwrap_or_default();
                if !anchors(&linked).iter().any(|a| a == fragment) {
                    broken.push(format!("{rel}: {target}"));
                }
            }
        }
    }
    assert!(checked > 20, "{checked} links");
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
}
