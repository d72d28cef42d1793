//! The man pages and shell completions, generated from the one CLI definition: printed
//! by `toolsift man` and `toolsift completions`, and committed in `man/` and
//! `completions/` (a test keeps those copies current).

use crate::cli::Cli;
use clap::CommandFactory;

const EXIT_STATUS: &str = ".SH \"EXIT STATUS\"\n.TP\n0\nSuccess, also when no call is found.\n.TP\n1\nFindings of \\fBtoolsift check\\fR: an invalid call, an unknown tool, a failed assertion, a file in which no transcript was recognised, a path that holds no file, or input passed over unread.\n.TP\n2\nUsage error, or a file that could not be read (the other files are still processed).\n.PP\n\\fBtoolsift convert\\fR exits 1 when a file could not be converted or \\fB\\-\\-verify\\fR found a difference.\n.PP\nEvery message on standard error is one line, \\fBtoolsift: FILE:LINE: message\\fR or \\fBtoolsift: message\\fR.\n";

const EXAMPLES: &str = ".SH EXAMPLES\n.TP\ntoolsift extract fixtures/openai\\-chat/parallel\\-tool\\-calls.json\nExtract the calls of an API response.\n.TP\ntoolsift extract session.jsonl | jq \\-r .name | sort | uniq \\-c\nCount the tools a Claude Code session called.\n.TP\ntoolsift extract \\-\\-with\\-results \\-\\-input sse < capture.sse\nReassemble a streamed response, with tool results.\n.TP\ntoolsift check \\-\\-tools tools.json \\-\\-expect get_weather transcripts/\nGate CI on recorded transcripts: exit 1 on any finding.\n.TP\ntoolsift tools render tools.json\nThe tool contracts as Markdown for a system prompt.\n.TP\ntoolsift convert \\-\\-to openai \\-\\-verify \\-\\-out\\-dir migrated/ histories/\nMigrate a tree of XML tool\\-call histories to OpenAI messages, checking each.\n";

/// The command as the man pages describe it: without the `help` subcommands, which
/// have no page of their own.
fn command() -> clap::Command {
    fn without_help(cmd: clap::Command) -> clap::Command {
        cmd.disable_help_subcommand(true)
            .mut_subcommands(without_help)
    }
    without_help(Cli::command())
}

/// Every man page: `toolsift`, and `toolsift-NAME` for each subcommand, nested ones too
/// (`toolsift-tools-render`).
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let cmd = command();
    let mut pages = vec![("toolsift".to_owned(), main_page(&cmd))];
    let mut stack: Vec<(String, clap::Command)> = cmd
        .get_subcommands()
        .map(|s| (format!("toolsift-{}", s.get_name()), s.clone()))
        .collect();
    while let Some((name, sub)) = stack.pop() {
        stack.extend(
            sub.get_subcommands()
                .map(|s| (format!("{name}-{}", s.get_name()), s.clone())),
        );
        // clap names are static strings (without its `string` feature): a few bytes
        // per page, once per run.
        let page = sub.name(&*Box::leak(name.clone().into_boxed_str()));
        let mut out = Vec::new();
        clap_mangen::Man::new(page)
            .render(&mut out)
            .expect("writing to memory");
        pages.push((name, out));
    }
    pages
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

/// The man page of `toolsift` or of the subcommand named by `words` (`check`,
/// `tools render`).
pub fn man_page(words: &[String]) -> Option<Vec<u8>> {
    let name = std::iter::once("toolsift")
        .chain(words.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("-");
    man_pages()
        .into_iter()
        .find(|(page, _)| *page == name)
        .map(|(_, text)| text)
}

/// The completion script for a shell.
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "toolsift", &mut out);
    out
}
