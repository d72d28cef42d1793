//! The man pages and shell completions, generated from the one CLI definition: printed
//! by `toolsift man` and `toolsift completions`, and committed in `man/` and
//! `completions/` (a test keeps those copies current).

use crate::cli::Cli;
use clap::CommandFactory;
use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use std::sync::OnceLock;

const EXIT_STATUS: &str = ".SH \"EXIT STATUS\"\n.TP\n0\nSuccess, also when no call is found.\n.TP\n1\nFindings of \\fBtoolsift check\\fR: an invalid call, an unknown tool, a failed assertion, a file in which no transcript was recognised, a path that holds no file, or input passed over unread.\n.TP\n2\nUsage error, or a failure that stops the run: an output (\\fB\\-o\\fR, standard output) that could not be written.\n.TP\n3\nSome inputs could not be read (or, for \\fBtoolsift convert\\fR, some outputs under \\fB\\-\\-out\\-dir\\fR or \\fB\\-\\-in\\-place\\fR written); everything else was done. It wins over 1: the verdict of \\fBtoolsift check\\fR on a partial run is incomplete.\n.PP\n\\fBtoolsift convert\\fR exits 1 when a file could not be converted or \\fB\\-\\-verify\\fR found a difference.\n.PP\nEvery message on standard error is one line, \\fBtoolsift: FILE:LINE: message\\fR or \\fBtoolsift: message\\fR.\n";

const EXAMPLES: &str = ".SH EXAMPLES\n.TP\ntoolsift extract fixtures/openai\\-chat/parallel\\-tool\\-calls.json\nExtract the calls of an API response.\n.TP\ntoolsift extract session.jsonl | jq \\-r .name | sort | uniq \\-c\nCount the tools a Claude Code session called.\n.TP\ntoolsift extract \\-\\-with\\-results \\-\\-input sse < capture.sse\nReassemble a streamed response, with tool results.\n.TP\ntoolsift check \\-\\-tools tools.json \\-\\-expect get_weather transcripts/\nGate CI on recorded transcripts: exit 1 on any finding.\n.TP\ntoolsift tools render tools.json\nThe tool contracts as Markdown for a system prompt.\n.TP\ntoolsift convert \\-\\-to openai \\-\\-verify \\-\\-out\\-dir migrated/ histories/\nMigrate a tree of XML tool\\-call histories to OpenAI messages, checking each.\n";

/// The command line as parsed, helped, completed and documented: the definition of
/// `cli`, with the completion hints it cannot hold as it imports nothing of the crate.
/// `--dialects` offers the names of the dialect registry and `toolsift man` the
/// subcommands; both still accept any word (a `--dialect-file` dialect, a page name),
/// which the command checks itself.
pub fn cli_command() -> clap::Command {
    fn hinted(cmd: clap::Command) -> clap::Command {
        let man = cmd.get_name() == "man";
        cmd.mut_args(|arg| match arg.get_id().as_str() {
            "dialects" => arg
                .value_parser(Hints(dialect_names))
                .hide_possible_values(true),
            "command" if man => arg.value_parser(Hints(page_words)),
            _ => arg,
        })
        .mut_subcommands(hinted)
    }
    hinted(Cli::command())
}

/// Takes any word, and offers some to help and completions: computed only when shown,
/// never while parsing.
#[derive(Clone)]
struct Hints(fn() -> &'static [String]);

impl TypedValueParser for Hints {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            (self.0)()
                .iter()
                .map(|name| PossibleValue::new(name.as_str())),
        ))
    }
}

/// The names `toolsift dialects` lists, from the registry.
fn dialect_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        crate::dialects::all_rows(crate::dialects::Registry::builtin())
            .into_iter()
            .map(|row| row.name)
            .collect()
    })
}

/// The words of `toolsift man WORDS`: every subcommand name, nested ones too
/// (`tools render`).
fn page_words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words = Vec::new();
        let mut stack = vec![command()];
        while let Some(cmd) = stack.pop() {
            for sub in cmd.get_subcommands() {
                if !words.iter().any(|w| w == sub.get_name()) {
                    words.push(sub.get_name().to_owned());
                }
                stack.push(sub.clone());
            }
        }
        words.sort();
        words
    })
}

/// The command as the man pages describe it: without the `help` subcommands, which
/// have no page of their own.
fn command() -> clap::Command {
    fn without_help(cmd: clap::Command) -> clap::Command {
        cmd.disable_help_subcommand(true)
            .mut_subcommands(without_help)
    }
    without_help(cli_command())
}

/// Every man page: `toolsift`, and `toolsift-NAME` for each subcommand, nested ones too
/// (`toolsift-tools-render`).
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut cmd = command();
    let mut pages = vec![("toolsift".to_owned(), main_page(&cmd))];
    // Built: each subcommand knows its page name (`toolsift-check`, its display name)
    // and how it is run (`toolsift check`, its bin name).
    cmd.build();
    let version = cmd.get_version().unwrap_or_default().to_owned();
    let mut stack: Vec<clap::Command> = cmd.get_subcommands().cloned().collect();
    while let Some(sub) = stack.pop() {
        stack.extend(sub.get_subcommands().cloned());
        let name = sub.get_display_name().unwrap_or(sub.get_name()).to_owned();
        // The synopsis is the usage line of --help: `toolsift check [OPTIONS] [FILE]...`.
        let usage = sub.clone().render_usage().to_string();
        let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage).to_owned();
        let mut out = Vec::new();
        clap_mangen::Man::new(sub.override_usage(usage))
            .source(format!("toolsift {version}"))
            .render(&mut out)
            .expect("writing to memory");
        pages.push((name, out));
    }
    pages
}

/// The names `toolsift man` takes, as it takes them: `check`, `tools render`.
pub(crate) fn man_page_words() -> Vec<String> {
    man_pages()
        .into_iter()
        .filter_map(|(name, _)| {
            name.strip_prefix("toolsift-")
                .map(|words| words.replace('-', " "))
        })
        .collect()
}

/// The page of `toolsift`, with the exit status and examples.
fn main_page(cmd: &clap::Command) -> Vec<u8> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut out)?;
        man.render_name_section(&mut out)?;
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        man.render_options_section(&mut out)?;
        man.render_subcommands_section(&mut out)?;
        out.extend_from_slice(EXIT_STATUS.as_bytes());
        out.extend_from_slice(EXAMPLES.as_bytes());
        man.render_version_section(&mut out)
    })();
    rendered.expect("writing to memory");
    out
}

/// The man page of `toolsift` or of the subcommand named by `words`: `check`,
/// `tools render`, the page's name (`toolsift-check`), or a nested subcommand's own
/// name when no other has it (`render`).
pub(crate) fn man_page(words: &[String]) -> Option<Vec<u8>> {
    let joined = words.join("-");
    let name = if joined == "toolsift" || joined.starts_with("toolsift-") {
        joined
    } else if joined.is_empty() {
        "toolsift".to_owned()
    } else {
        format!("toolsift-{joined}")
    };
    let pages = man_pages();
    let nested = format!("-{}", words.join("-"));
    let mut ends = pages.iter().filter(|(page, _)| page.ends_with(&nested));
    let only_end = match (ends.next(), ends.next()) {
        (Some(page), None) if !words.is_empty() => Some(page.0.clone()),
        _ => None,
    };
    pages
        .into_iter()
        .find(|(page, _)| *page == name || Some(page) == only_end.as_ref())
        .map(|(_, text)| text)
}

/// The completion script for a shell.
pub(crate) fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cli_command(), "toolsift", &mut out);
    out
}
