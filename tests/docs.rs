//! The man page and shell completions are generated from the clap definition and
//! committed; this test fails when they drift. `TOOLSIFT_BLESS=1 cargo test --test docs`
//! rewrites them. The help texts are snapshotted so wording changes show in review.

mod common;
use clap::CommandFactory;
use clap_complete::Shell;
use common::{root, toolsift};
use toolsift::cli::Cli;

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
        "{rel} is out of date: run TOOLSIFT_BLESS=1 cargo test --test docs"
    );
}

const EXIT_STATUS: &str = ".SH \"EXIT STATUS\"\n.TP\n0\nSuccess, also when no call is found.\n.TP\n1\nFindings of \\fBtoolsift check\\fR: an invalid call, an unknown tool, or a failed assertion.\n.TP\n2\nUsage error, or a file that could not be read (the other files are still processed).\n.PP\n\\fBtoolsift convert\\fR exits 1 when a file could not be converted or \\fB\\-\\-verify\\fR found a difference.\n";

const EXAMPLES: &str = ".SH EXAMPLES\n.TP\ntoolsift extract fixtures/openai\\-chat/parallel\\-tool\\-calls.json\nExtract the calls of an API response.\n.TP\ntoolsift extract session.jsonl | jq \\-r .name | sort | uniq \\-c\nCount the tools a Claude Code session called.\n.TP\ntoolsift extract \\-\\-with\\-results \\-\\-input sse < capture.sse\nReassemble a streamed response, with tool results.\n.TP\ntoolsift check \\-\\-tools tools.json \\-\\-expect get_weather transcripts/\nGate CI on recorded transcripts: exit 1 on any finding.\n.TP\ntoolsift tools render tools.json\nThe tool contracts as Markdown for a system prompt.\n.TP\ntoolsift convert \\-\\-to openai \\-\\-verify \\-\\-out\\-dir migrated/ histories/\nMigrate a tree of XML tool\\-call histories to OpenAI messages, checking each.\n";

#[test]
fn man_page_is_current() {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out).unwrap();
    man.render_name_section(&mut out).unwrap();
    man.render_synopsis_section(&mut out).unwrap();
    man.render_description_section(&mut out).unwrap();
    man.render_options_section(&mut out).unwrap();
    man.render_subcommands_section(&mut out).unwrap();
    out.extend_from_slice(EXIT_STATUS.as_bytes());
    out.extend_from_slice(EXAMPLES.as_bytes());
    man.render_version_section(&mut out).unwrap();
    check("man/toolsift.1", out);
    // A page per subcommand, nested ones too (toolsift-tools-render).
    let mut stack: Vec<(String, clap::Command)> = cmd
        .get_subcommands()
        .map(|s| (format!("toolsift-{}", s.get_name()), s.clone()))
        .collect();
    while let Some((name, sub)) = stack.pop() {
        stack.extend(
            sub.get_subcommands()
                .map(|s| (format!("{name}-{}", s.get_name()), s.clone())),
        );
        let page = sub.name(&*Box::leak(name.clone().into_boxed_str()));
        let mut out = Vec::new();
        clap_mangen::Man::new(page).render(&mut out).unwrap();
        check(&format!("man/{name}.1"), out);
    }
}

#[test]
fn completions_are_current() {
    for (shell, file) in [
        (Shell::Bash, "toolsift.bash"),
        (Shell::Zsh, "_toolsift"),
        (Shell::Fish, "toolsift.fish"),
        (Shell::Elvish, "toolsift.elv"),
        (Shell::PowerShell, "_toolsift.ps1"),
    ] {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "toolsift", &mut out);
        check(&format!("completions/{file}"), out);
    }
}

#[test]
fn clap_definition_is_consistent() {
    Cli::command().debug_assert();
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
fn readme_first_commands_work() {
    // The two commands on the README's first screen.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    let run = "toolsift extract fixtures/openai-chat/parallel-tool-calls.json";
    assert!(
        first_screen.contains(run),
        "README first screen lost: {run}"
    );
    assert!(
        first_screen.contains("cargo test"),
        "README first screen lost the test command"
    );
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.contains("cargo test --locked"),
        ".ci/run must run the README's test command"
    );
    assert!(readme.contains("cargo test --locked"));
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
fn readme_documents_every_dialect() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let out = toolsift().args(["dialects", "--json"]).output().unwrap();
    assert!(out.status.success());
    let rows = String::from_utf8(out.stdout).unwrap();
    // Every dialect of the registry is listed (an empty list would check nothing).
    let known = toolsift::dialects::all_rows(toolsift::dialects::Registry::builtin());
    assert_eq!(rows.lines().count(), known.len());
    assert!(known.len() > 60, "{} dialects", known.len());
    let mut missing = Vec::new();
    for line in rows.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = row["name"].as_str().unwrap();
        if !readme.contains(&format!("`{name}`")) {
            missing.push(name.to_owned());
        }
    }
    assert!(missing.is_empty(), "README does not mention: {missing:?}");
}

/// The output the README shows after a command, in a text block right after it.
fn readme_example(command: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let at = readme
        .find(&format!("```sh\n{command}\n```\n"))
        .unwrap_or_else(|| panic!("README lost the example `{command}`"));
    let rest = &readme[at + format!("```sh\n{command}\n```\n").len()..];
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
fn readme_examples_show_real_output() {
    for command in [
        "toolsift check --tools tests/data/contracts/openai.json tests/data/check/",
        "toolsift tools render tests/data/contracts/mcp.json",
    ] {
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        let out = toolsift().args(&args).output().unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            readme_example(command),
            "README example of `{command}` is stale"
        );
    }
}
