//! The command line, defined once: help, the man page and shell completions are all
//! generated from it. This file imports nothing else of the crate, so build tooling
//! can include it on its own.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  toolsift extract fixtures/openai-chat/parallel-tool-calls.json
  toolsift extract session.jsonl | jq -r .name | sort | uniq -c
  curl -sN ... | toolsift extract --input sse
  toolsift extract --with-results --roles assistant,user logs/*.jsonl -o calls.jsonl
  toolsift check --tools tools.json --expect get_weather transcripts/*.jsonl
  toolsift tools render tools.json
  toolsift dialects
  toolsift convert --to openai --verify --out-dir migrated/ histories/

Exit status: 0 ok (also when no call is found), 1 findings (`check`) or a file
`convert` could not convert, 2 usage error or an output that could not be written,
3 some input could not be read (everything else was done).";

const CHECK_EXAMPLES: &str = "\
Examples:
  toolsift check --tools tools.json recorded/*.jsonl
  toolsift check --tools tools.json --expect get_weather --forbid delete_file run.jsonl
  toolsift check --tools tools.json --format github transcripts/   # in GitHub Actions
  toolsift check --tools tools.json --format junit -o report.xml transcripts/*.jsonl

Exit status: 0 clean, 1 findings, 2 usage error or a report that could not be
written, 3 a file could not be read (findings or not).";

/// Sift tool calls out of LLM transcripts.
///
/// Reads API responses, SSE streams, session logs (Claude Code, Codex, SWE-agent,
/// OpenHands), VCR cassettes and plain text, and writes one normalized JSON record per
/// tool call.
#[derive(Parser, Debug)]
#[command(name = "toolsift", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Extract tool calls as JSON Lines.
    #[command(after_help = EXAMPLES)]
    Extract(ExtractArgs),
    /// Check recorded transcripts against tool contracts and scenario assertions
    /// (the CI gate): exit 1 on any finding.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Work with tool contracts.
    #[command(subcommand)]
    Tools(ToolsCommand),
    /// List the dialects toolsift recognizes, with their channel and an example.
    Dialects(DialectsArgs),
    /// Convert whole transcripts between formats: XML tool-call histories to JSON,
    /// and between OpenAI, Anthropic, Gemini, Responses and toolsift's own form.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Print a JSON Schema of toolsift's formats.
    Schema(SchemaArgs),
    /// Print the completion script for a shell (as shipped in completions/).
    Completions(CompletionsArgs),
    /// Print a man page (as shipped in man/): toolsift's, or a subcommand's.
    Man(ManArgs),
}

#[derive(Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub(crate) struct ManArgs {
    /// The subcommand whose page to print (`check`, `tools render`, or the page's
    /// name, `toolsift-check`); none prints toolsift(1).
    #[arg(value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

const CONVERT_EXAMPLES: &str = "\
Examples:
  toolsift convert --to json fixtures/mandrake/legacy-xml-history.json
  toolsift convert --to openai --verify history.json -o history.openai.json
  toolsift convert --to anthropic --out-dir migrated/ sessions/
  toolsift convert --to json --in-place --backup .orig sessions/
  toolsift convert --to openai finetune.jsonl > finetune.openai.jsonl

Exit status: 0 ok, 1 a file failed or (--verify) would lose something,
2 usage error or -o could not be written, 3 some input could not be read or
some output under --out-dir or --in-place written (the rest was done).";

#[derive(Args, Debug)]
pub(crate) struct ConvertArgs {
    /// Transcripts (files, or directories of them); none, or "-", reads standard input.
    /// Gzip, zstd, bzip2 and xz data is decoded.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    /// The format to write.
    #[arg(long, value_enum, value_name = "TARGET")]
    pub(crate) to: ConvertFormat,

    /// The format to read, forced for every file: one of the --to formats. By default
    /// it is detected per file, and more are read than can be forced: besides the
    /// --to formats, single API responses (OpenAI, Anthropic, Gemini, Responses),
    /// Claude Code and Codex session logs, Gemini CLI sessions, SWE-agent
    /// trajectories, and anything else `toolsift extract` reads (streams, cassettes,
    /// notebooks, OpenHands logs, model output with calls).
    #[arg(long, value_enum, value_name = "SOURCE", hide_possible_values = true)]
    pub(crate) from: Option<ConvertFormat>,

    /// Write the output to FILE (one input only).
    #[arg(short = 'o', long, value_name = "FILE", conflicts_with_all = ["out_dir", "in_place"])]
    pub(crate) output: Option<PathBuf>,

    /// Write one output per input under DIR, keeping paths relative to each directory
    /// argument.
    #[arg(long, value_name = "DIR", conflicts_with = "in_place")]
    pub(crate) out_dir: Option<PathBuf>,

    /// Replace each input with its conversion (needs --backup or --no-backup).
    #[arg(long)]
    pub(crate) in_place: bool,

    /// With --in-place: keep each original as FILE + SUFFIX.
    #[arg(
        long,
        value_name = "SUFFIX",
        requires = "in_place",
        conflicts_with = "no_backup"
    )]
    pub(crate) backup: Option<String>,

    /// With --in-place: keep no copy of the originals.
    #[arg(long, requires = "in_place")]
    pub(crate) no_backup: bool,

    /// With --out-dir: replace outputs that exist already.
    #[arg(long)]
    pub(crate) force: bool,

    /// With --out-dir: replace an output that exists only when its input is newer
    /// (as `cp -u`); others are kept.
    #[arg(short = 'u', long, conflicts_with = "force")]
    pub(crate) update: bool,

    /// Read each output back, convert it to the source's form and compare: every
    /// difference in text, calls, results or pairing is reported, and the exit code
    /// is 1 if anything would be lost.
    #[arg(long)]
    pub(crate) verify: bool,

    /// Say what would be written, and write nothing (not even to standard output).
    #[arg(long)]
    pub(crate) dry_run: bool,

    /// Write a manifest to FILE: one JSON line per input, in input order, with its path,
    /// size, mtime, xxh3 hash, status (written, unchanged, kept, skipped, failed, error,
    /// not started), output, and its conversations, calls and results (see
    /// docs/records.md, "Manifest lines"). Written whole when the run ends, as the outputs
    /// are; a dry run writes none.
    #[arg(long, value_name = "FILE")]
    pub(crate) manifest: Option<PathBuf>,

    /// API targets: rename tool names the API refuses, the same way on every call and
    /// result, and list the mapping in the notes. Not done when it could not be undone
    /// (two names mapped to one, or onto a name already used).
    #[arg(long, value_enum, value_name = "HOW")]
    pub(crate) rename_tools: Option<RenameTools>,

    /// API targets: a native call that no result answers before the model's last turn
    /// (the APIs refuse it) is written unanswered and said (`keep`), or gets a result
    /// saying none was recorded, marked as an error (`placeholder`).
    #[arg(long, value_enum, value_name = "HOW", default_value = "keep")]
    pub(crate) unanswered: UnansweredCalls,

    /// mandrake-json: wrap calls and results as {"tool_calls":[…]} and {"tool_results":[…]}.
    #[arg(long)]
    pub(crate) wrap: bool,

    /// Write documents on one line (JSON Lines inputs are always written one
    /// conversation per line).
    #[arg(long)]
    pub(crate) compact: bool,

    /// Only these dialects find calls in text (names from `toolsift dialects`).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub(crate) dialects: Option<Vec<String>>,

    /// Tool contracts: their names are read as Cline-style tags too, and raw-text
    /// values are typed by their schemas.
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Vec<PathBuf>,

    /// Extra dialects (see `toolsift extract --help`).
    #[arg(long, value_name = "FILE")]
    pub(crate) dialect_file: Vec<PathBuf>,

    /// Follow symbolic links inside directory arguments (loops are reported, not
    /// followed).
    #[arg(short = 'L', long)]
    pub(crate) follow: bool,

    /// Files and directories found inside directory arguments whose name (or path
    /// relative to the argument, for a pattern with a `/`) matches GLOB are not read,
    /// as fd's --exclude (repeatable; `--exclude '*.orig'`). Files named as arguments
    /// are always read.
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,

    #[command(flatten)]
    pub(crate) batch: BatchArgs,

    /// Files converted at once (default: TOOLSIFT_THREADS, else the CPUs this process
    /// may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift
    /// per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub(crate) jobs: Option<usize>,

    /// No warnings (errors and the summary are still printed).
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameTools {
    /// `server.method` becomes `server__method` (not done when a name already holds `__`).
    Dots,
    /// `.` becomes `__`, any other character outside [a-zA-Z0-9_-] `_`; a name over 64
    /// characters is cut and ends in a hash of the whole name.
    Safe,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnansweredCalls {
    /// Written unanswered: the API refuses the request and --verify fails.
    Keep,
    /// A result saying "No result was recorded for this call.", marked as an error.
    Placeholder,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConvertFormat {
    /// toolsift's canonical transcript (`toolsift schema transcript`).
    Json,
    /// OpenAI Chat messages: tool_calls with string arguments, role "tool" results.
    Openai,
    /// Anthropic Messages: tool_use blocks, tool_result in the next user message.
    Anthropic,
    /// Gemini contents: functionCall and functionResponse parts.
    Gemini,
    /// OpenAI Responses input items: function_call and function_call_output.
    Responses,
    /// Mandrake's JSON calls in text: {"name":"server.method","arguments":…}.
    MandrakeJson,
    /// Mandrake's XML calls in text: <tool_call> holding <server>, <method> and
    /// <arguments>.
    Xml,
}

#[derive(Args, Debug)]
pub(crate) struct SchemaArgs {
    /// Which schema.
    #[arg(value_enum)]
    pub(crate) which: SchemaKind,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaKind {
    /// The transcript `convert --to json` writes.
    Transcript,
}

#[derive(Subcommand, Debug)]
pub(crate) enum ToolsCommand {
    /// Render tool contracts as Markdown for a system prompt, with an example call
    /// generated from each schema.
    Render(RenderArgs),
}

#[derive(Args, Debug)]
pub(crate) struct RenderArgs {
    /// Contract files (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map).
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<PathBuf>,

    /// How the example call is written: <Name> + fenced JSON, a {"name", "arguments"}
    /// object, or the Mandrake XML block.
    #[arg(long, value_enum, default_value_t = RenderStyle::Natural, value_name = "STYLE")]
    pub(crate) style: RenderStyle,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenderStyle {
    /// `<Name>` + a fenced JSON block + `</Name>`.
    Natural,
    /// `{"name": ..., "arguments": ...}`.
    Json,
    /// `<tool_call>` with `<server>`, `<method>` and `<arguments>`.
    Xml,
}

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// Transcripts (files, or directories of them) to check; none, or "-", reads
    /// standard input. Gzip, zstd, bzip2 and xz data is decoded.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    #[command(flatten)]
    pub(crate) scan: ScanArgs,

    /// Each file must call NAME at least once (repeatable).
    #[arg(long, value_name = "NAME")]
    pub(crate) expect: Vec<String>,

    /// No file may call NAME (repeatable).
    #[arg(long, value_name = "NAME")]
    pub(crate) forbid: Vec<String>,

    /// No file may make more than N calls.
    #[arg(long, value_name = "N")]
    pub(crate) max_calls: Option<u64>,

    /// Invalid calls are findings (the default).
    #[arg(long, overrides_with = "allow_invalid")]
    pub(crate) require_valid: bool,

    /// Invalid calls are counted but are not findings.
    #[arg(long, overrides_with = "require_valid")]
    pub(crate) allow_invalid: bool,

    /// Calls to tools the contracts do not declare are not findings.
    #[arg(long)]
    pub(crate) allow_unknown: bool,

    /// A file in which no transcript is recognised (no message, call or result: an
    /// empty file, JSON of another kind), or a path that holds no file, is not a
    /// finding. Input passed over unread (binary data, a line over the limit) still is.
    #[arg(long)]
    pub(crate) allow_empty: bool,

    /// How findings are written.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human, value_name = "FORMAT")]
    pub(crate) format: CheckFormat,

    /// Write the report to FILE instead of standard output: it replaces FILE when the
    /// run ends, never half written; FILE may not be one of the inputs.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CheckFormat {
    /// `FILE:LINE: tool NAME: PATH: message` lines and a summary.
    Human,
    /// One JSON object per finding.
    Json,
    /// GitHub Actions workflow annotations (`::error file=F,line=L::message`).
    Github,
    /// A JUnit XML report: a test suite per file, a test case per call and assertion.
    Junit,
}

#[derive(Args, Debug)]
pub(crate) struct ExtractArgs {
    /// Files (or directories of them) to read, in order; none, or "-", reads standard
    /// input. Gzip, zstd, bzip2 and xz data is decoded.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    #[command(flatten)]
    pub(crate) scan: ScanArgs,

    /// Also emit tool results ("type":"result" records).
    #[arg(long)]
    pub(crate) with_results: bool,

    /// Also emit the text around calls ("type":"text" records), in message order.
    #[arg(long)]
    pub(crate) with_text: bool,

    /// Print counts per channel and dialect to stderr after the run.
    #[arg(long)]
    pub(crate) stats: bool,

    /// Write records to FILE instead of standard output: they replace FILE when the run
    /// ends, never half written; FILE may not be one of the inputs.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Files read at once (default: TOOLSIFT_THREADS, else the CPUs this process may
    /// use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per
    /// core); records still come out in the order of the files. With 2 or more and a single JSON Lines file, one thread
    /// reads and parses it while another walks its records; with a single long text
    /// file, one thread reads and sweeps the next piece while another scans.
    #[arg(short = 'j', long, value_name = "N")]
    pub(crate) jobs: Option<usize>,

    /// Flush after every record (for `tail -f ... | toolsift extract`); the default when
    /// standard output is a terminal.
    #[arg(long)]
    pub(crate) line_buffered: bool,
    /// Skip the inputs that MANIFEST (an earlier --manifest) lists with the same size,
    /// mtime and hash: they give no records, and are in --manifest as "unchanged". A
    /// missing MANIFEST skips nothing.
    #[arg(long, value_name = "MANIFEST")]
    pub(crate) skip_unchanged: Option<PathBuf>,
}

/// What to read and how: shared by `extract` and `check`.
#[derive(Args, Debug)]
pub(crate) struct ScanArgs {
    /// How the input is framed; auto decides per source from its first bytes.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto, value_name = "FORMAT")]
    pub(crate) input: InputFormat,

    /// Channels to try per turn, in priority order.
    #[arg(
        short = 'f',
        long,
        value_delimiter = ',',
        default_value = "tool,json,text",
        value_name = "LIST"
    )]
    pub(crate) formats: Vec<String>,

    /// Report the calls of every enabled channel, not only the first that yields one.
    #[arg(long)]
    pub(crate) all: bool,

    /// Message roles whose text is scanned for calls.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "assistant",
        value_name = "LIST"
    )]
    pub(crate) roles: Vec<String>,

    /// Only these dialects (see `toolsift dialects`); `wil` also reads text outside
    /// BEGIN WIL … END WIL.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub(crate) dialects: Option<Vec<String>>,

    /// Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema
    /// map; repeatable): every call is validated against its tool's JSON Schema, tag-named
    /// text calls must use a declared name, and raw-text values are typed by the schema.
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Vec<PathBuf>,

    /// Extra dialects of the marker, XML-parameter and pythonic families, described in
    /// a JSON file (see docs/dialects.md, "Your own dialects"). Repeatable.
    #[arg(long, value_name = "FILE")]
    pub(crate) dialect_file: Vec<PathBuf>,

    /// A `$ref` to a file in a contract is read only under DIR (default: the directory
    /// of the contract that names it).
    #[arg(long, value_name = "DIR")]
    pub(crate) schema_root: Option<PathBuf>,

    /// Calls found inside reasoning (<think>, thinking blocks): reported always,
    /// never, or only when the turn has no other call.
    #[arg(long, value_enum, default_value_t = ReasoningMode::Fallback, value_name = "MODE")]
    pub(crate) reasoning: ReasoningMode,

    /// No repairs: a call that would need one is reported invalid with its raw text.
    #[arg(long)]
    pub(crate) strict: bool,

    /// Follow symbolic links inside directory arguments (skipped by default); a link
    /// that loops back is reported once and not followed, and a file reached by two
    /// paths is read once.
    #[arg(short = 'L', long)]
    pub(crate) follow: bool,

    /// Files and directories found inside directory arguments whose name (or path
    /// relative to the argument, for a pattern with a `/`) matches GLOB are not read,
    /// as fd's --exclude (repeatable; `--exclude '*.orig'`). Files named as arguments
    /// are always read.
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,

    #[command(flatten)]
    pub(crate) batch: BatchArgs,

    /// Do not print warnings about malformed input (errors are still printed).
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,

    /// Colour in human-readable output (`check`'s report, `--stats`): auto colours a
    /// terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub(crate) color: ColorWhen,
    /// Write a manifest to FILE: one JSON line per input, in input order, with its path,
    /// size, mtime, xxh3 hash, status (read, read in part, skipped, error, unchanged),
    /// framing, dialects and records (see docs/records.md, "Manifest lines"). Written
    /// whole when the run ends, as -o is.
    #[arg(long, value_name = "FILE")]
    pub(crate) manifest: Option<PathBuf>,
}

/// Where the inputs come from and which of them a run reads, for engines that run many
/// toolsifts (xargs -P, GNU parallel, job arrays): shared by `extract`, `check` and
/// `convert`.
#[derive(Args, Debug, Default)]
pub(crate) struct BatchArgs {
    /// Also read the paths listed in LIST ("-": standard input), one a line, as if they
    /// were arguments (a directory is walked); empty lines are skipped. A file reached
    /// twice, named or listed or found, is read once.
    #[arg(long, value_name = "LIST")]
    pub(crate) files_from: Option<PathBuf>,

    /// The paths of --files-from are separated by NUL bytes (as `find -print0`,
    /// `xargs -0`), so a name may hold a line break.
    #[arg(short = '0', long, requires = "files_from")]
    pub(crate) null: bool,

    /// Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the
    /// directory argument it was found in (as given, for a file named or listed),
    /// hashes to it. The same files on every machine; the N shards together read every
    /// file once.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub(crate) shard: Option<Shard>,

    /// The name of standard input in records and messages (`s3://bucket/key.jsonl`)
    /// instead of "-"; only when standard input is read.
    #[arg(long, value_name = "NAME")]
    pub(crate) label: Option<String>,
}

/// `--shard I/N`: shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    pub(crate) index: u64,
    pub(crate) count: u64,
}

/// `I/N` with 1 ≤ I ≤ N.
pub(crate) fn parse_shard(text: &str) -> Result<Shard, String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("expected I/N, as 3/16 (shard 3 of 16), not '{text}'"))?;
    let number = |s: &str| s.trim().parse::<u64>().ok();
    let (Some(index), Some(count)) = (number(i), number(n)) else {
        return Err(format!(
            "expected I/N, two whole numbers, as 3/16 (shard 3 of 16), not '{text}'"
        ));
    };
    if count == 0 {
        return Err("N must be 1 or more".to_owned());
    }
    if index == 0 || index > count {
        return Err(format!(
            "shards are numbered from 1 to {count}; for a 0-based index such as $JOB_COMPLETION_INDEX, give $((INDEX + 1))/{count}"
        ));
    }
    Ok(Shard { index, count })
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColorWhen {
    /// Colour when writing to a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Args, Debug)]
pub(crate) struct DialectsArgs {
    /// Print one JSON object per dialect instead of a table.
    #[arg(long)]
    pub(crate) json: bool,

    /// Also list the dialects of these dialect files.
    #[arg(long, value_name = "FILE")]
    pub(crate) dialect_file: Vec<PathBuf>,

    /// Colour in the table: auto colours a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub(crate) color: ColorWhen,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReasoningMode {
    /// Report calls inside reasoning like any other.
    Include,
    /// Never report calls inside reasoning.
    Exclude,
    /// Report them only when the turn has no call outside reasoning.
    Fallback,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InputFormat {
    /// Decide from the first non-blank bytes.
    Auto,
    /// Plain text: one assistant turn.
    Text,
    /// One JSON document (object or array).
    Json,
    /// One JSON value per line.
    Jsonl,
    /// Server-Sent Events (data: lines).
    Sse,
    /// A VCR cassette (YAML with interactions).
    Yaml,
    /// Saved HTTP messages (`curl -i` output, an httprr trace).
    Http,
}
