//! The subcommands: glue from parsed arguments to the pipeline.

use crate::ExitCode;
use crate::cli::{Cli, Command, DialectsArgs, ExtractArgs, InputFormat, ReasoningMode};
use crate::diag::Diag;
use crate::dialects::{self, Channel};
use crate::engine::{Engine, Options, Reasoning};
use crate::input::{Framing, Reader};
use crate::model::Role;
use crate::output::Output;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, IsTerminal, Write};

pub fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Extract(args) => extract(args),
        Command::Dialects(args) => list_dialects(args),
    }
}

fn framing(input: InputFormat) -> Framing {
    match input {
        InputFormat::Auto => Framing::Auto,
        InputFormat::Text => Framing::Text,
        InputFormat::Json => Framing::Json,
        InputFormat::Jsonl => Framing::Jsonl,
        InputFormat::Sse => Framing::Sse,
        InputFormat::Yaml => Framing::Yaml,
    }
}

fn options(args: &ExtractArgs) -> Result<Options> {
    let mut formats = Vec::new();
    for name in &args.formats {
        let channel: Channel = name
            .parse()
            .map_err(anyhow::Error::msg)
            .context("--formats")?;
        if !formats.contains(&channel) {
            formats.push(channel);
        }
    }
    let mut roles = Vec::new();
    for name in &args.roles {
        match Role::from_name(name.trim()) {
            Some(role) => roles.push(role),
            None => {
                bail!("--roles: unknown role '{name}' (expected assistant, user, system or tool)")
            }
        }
    }
    let registry = dialects::dialect_file::load(&args.dialect_file)?;
    let known: Vec<String> = dialects::all_rows(registry)
        .into_iter()
        .map(|r| r.name)
        .collect();
    if let Some(selected) = &args.dialects {
        for name in selected {
            if !known.contains(name) {
                bail!("--dialects: unknown dialect '{name}' (see `toolsift dialects`)");
            }
        }
    }
    let mut tools = Vec::new();
    for path in &args.tools {
        tools.extend(crate::tools::load(path)?);
    }
    Ok(Options {
        formats,
        all: args.all,
        with_results: args.with_results,
        with_text: args.with_text,
        roles,
        dialects: args.dialects.clone(),
        tools,
        registry,
        strict: args.strict,
        reasoning: match args.reasoning {
            ReasoningMode::Include => Reasoning::Include,
            ReasoningMode::Exclude => Reasoning::Exclude,
            ReasoningMode::Fallback => Reasoning::Fallback,
        },
    })
}

fn extract(args: ExtractArgs) -> Result<ExitCode> {
    let options = match options(&args) {
        Ok(o) => o,
        Err(e) => {
            Diag::default().error("usage", None, format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    let diag = Diag::new(args.quiet);
    let sink: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(BufWriter::new(
            File::create(path).with_context(|| format!("{}: cannot create", path.display()))?,
        )),
        None => Box::new(BufWriter::with_capacity(64 * 1024, io::stdout().lock())),
    };
    // A person watching a terminal sees each record as it is found.
    let interactive = args.output.is_none() && io::stdout().is_terminal();
    let mut out = Output::new(sink, args.line_buffered || interactive);
    let mut engine = Engine::new(options, &mut out);
    // Plain text is scanned in windows unless its text is wanted back whole.
    let window = if args.with_text {
        0
    } else {
        std::env::var("TOOLSIFT_TEXT_WINDOW")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(crate::input::TEXT_WINDOW)
    };
    let files = if args.files.is_empty() {
        vec!["-".into()]
    } else {
        args.files.clone()
    };
    for path in &files {
        let name = path.to_string_lossy().into_owned();
        let mut input: Box<dyn io::BufRead> = if name == "-" {
            if io::stdin().is_terminal() {
                diag.warn(
                    "-",
                    None,
                    "reading standard input from the terminal (end it with Ctrl-D; see --help)",
                );
            }
            Box::new(BufReader::with_capacity(256 * 1024, io::stdin().lock()))
        } else {
            match File::open(path) {
                Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => {
                    diag.error(&name, None, "is a directory");
                    continue;
                }
                Ok(f) => Box::new(BufReader::with_capacity(256 * 1024, f)),
                Err(e) => {
                    diag.error(&name, None, io_reason(&e));
                    continue;
                }
            }
        };
        engine.start_source(&name);
        let mut sink = |event| engine.event(event);
        let result = Reader::new(&name, &diag, &mut sink)
            .with_window(window)
            .read(&mut *input, framing(args.input));
        match result {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e.into()),
            Err(e) if is_write_error(&e) => return Err(e.into()),
            Err(e) => diag.error(&name, None, io_reason(&e)),
        }
    }
    let stats = args.stats.then(|| engine.stats.report());
    drop(engine);
    out.flush()?;
    if let Some(report) = stats {
        eprint!("{report}");
    }
    Ok(if diag.errored() {
        ExitCode::Error
    } else {
        ExitCode::Success
    })
}

/// Read errors are reported per file; write errors end the run.
fn is_write_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WriteZero | io::ErrorKind::StorageFull
    )
}

/// The reason of an I/O error without the "(os error N)" suffix.
fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn list_dialects(args: DialectsArgs) -> Result<ExitCode> {
    let registry = dialects::dialect_file::load(&args.dialect_file)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let rows = dialects::all_rows(registry);
    if args.json {
        for row in &rows {
            let v = serde_json::json!({"name": row.name, "channel": row.channel.name(), "models": row.models, "summary": row.summary, "example": row.example});
            writeln!(out, "{v}")?;
        }
    } else {
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        writeln!(out, "{:width$}  CHANNEL  SUMMARY", "DIALECT")?;
        for row in &rows {
            writeln!(
                out,
                "{:width$}  {:7}  {}",
                row.name,
                row.channel.name(),
                row.summary
            )?;
            if !row.models.is_empty() {
                writeln!(out, "{:width$}           models: {}", "", row.models)?;
            }
            writeln!(
                out,
                "{:width$}           e.g. {}",
                "",
                row.example.replace('\n', "\\n")
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::Success)
}
