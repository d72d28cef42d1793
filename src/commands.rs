//! The subcommands: glue from parsed arguments to the pipeline.

use crate::ExitCode;
use crate::cli::{Cli, Command, DialectsArgs, ExtractArgs, ToolsCommand};
use crate::diag::{Diag, escape};
use crate::dialects;
use crate::engine::{Engine, Stats};
use crate::manifest;
use crate::output::Output;
use crate::pipeline::{
    OutputFile, STDOUT, finish, inputs, options_or_report, read_parallel, read_sources,
    text_window, threads,
};
use crate::style::{Paint, Stream};
use anyhow::{Context, Result};
use std::io::{self, BufWriter, IsTerminal, Write};

pub(crate) fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Extract(args) => extract(args),
        Command::Check(args) => crate::check::run(args),
        Command::Tools(ToolsCommand::Render(args)) => crate::render::run(args),
        Command::Dialects(args) => list_dialects(args),
        Command::Convert(args) => crate::convert::run(args),
        Command::Completions(args) => print(&crate::docs::completions(args.shell)),
        Command::Man(args) => match crate::docs::man_page(&args.command) {
            Some(page) => print(&page),
            None => {
                let mut words = crate::docs::man_page_words();
                words.sort();
                anyhow::bail!(
                    "no man page for '{}' (pages: {}; each also by its name, as toolsift-check; none for toolsift's own)",
                    args.command.join(" "),
                    words.join(", ")
                )
            }
        },
        Command::Schema(args) => {
            let crate::cli::SchemaArgs { which } = args;
            match which {
                crate::cli::SchemaKind::Transcript => {
                    let mut out = io::stdout().lock();
                    out.write_all(crate::convert::canonical::SCHEMA.as_bytes())
                        .and_then(|()| out.flush())
                        .context(STDOUT)?;
                }
            }
            Ok(ExitCode::Success)
        }
    }
}

/// Writes a generated text to standard output.
fn print(text: &[u8]) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    out.write_all(text)
        .and_then(|()| out.flush())
        .context(STDOUT)?;
    Ok(ExitCode::Success)
}

fn extract(args: ExtractArgs) -> Result<ExitCode> {
    let Some(mut options) = options_or_report(&args.scan, args.with_results, args.with_text) else {
        return Ok(ExitCode::Error);
    };
    let diag = Diag::new(args.scan.quiet);
    let Some(manifest) = manifest::plan(
        args.scan.manifest.as_deref(),
        args.skip_unchanged.as_deref(),
        &diag,
    ) else {
        return Ok(ExitCode::Error);
    };
    options.manifest = manifest.clone();
    let Some(inputs) = inputs(&args.files, &args.scan, args.output.as_deref(), &diag) else {
        return Ok(ExitCode::Error);
    };
    let files = inputs.files;
    let file = match &args.output {
        Some(path) => match OutputFile::create(path, &diag) {
            Some(f) => Some(f),
            None => return Ok(ExitCode::Error),
        },
        None => None,
    };
    let sink: Box<dyn Write> = match &file {
        Some(f) => Box::new(f.clone()),
        None => Box::new(BufWriter::with_capacity(64 * 1024, io::stdout().lock())),
    };
    // A person watching a terminal sees each record as it is found.
    let interactive = args.output.is_none() && io::stdout().is_terminal();
    let validated = !options.contracts.is_empty();
    let mut out = Output::new(sink, args.line_buffered || interactive).validated(validated);
    // Plain text is scanned in windows unless its text is wanted back whole.
    let window = if args.with_text { 0 } else { text_window() };
    let cores = match threads(args.jobs) {
        Ok(n) => n,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    let jobs = cores.clamp(1, files.len().max(1));
    let run = || -> Result<Stats> {
        let stats = if jobs > 1 && !files.iter().any(|f| f.as_os_str() == "-") {
            read_parallel(&files, jobs, &args.scan, window, &options, &mut out, &diag)?
        } else {
            let mut engine = Engine::new(options, &mut out);
            read_sources(
                &files,
                &args.scan,
                window,
                cores > 1,
                &mut engine,
                &diag,
                |_, _| Ok(()),
            )?;
            std::mem::take(&mut engine.stats)
        };
        out.flush()?;
        Ok(stats)
    };
    let result = run();
    drop(out);
    let result = if file.is_none() {
        result.context(STDOUT)
    } else {
        result
    };
    let Some(stats) = finish(result, file, &diag)? else {
        return Ok(ExitCode::Error);
    };
    // The manifest tells what the records hold: written only when they are.
    if let (Some(path), Some(plan)) = (&args.scan.manifest, &manifest) {
        plan.write(path, &diag);
    }
    if args.stats {
        let paint = Paint::new(args.scan.color, Stream::Stderr);
        eprint!("{}", stats.report(paint));
    }
    Ok(diag.exit_code(ExitCode::Success))
}

fn list_dialects(args: DialectsArgs) -> Result<ExitCode> {
    let registry = dialects::dialect_file::load(&args.dialect_file)?;
    let rows = dialects::all_rows(registry);
    let paint = Paint::new(args.color, Stream::Stdout);
    write_dialects(&rows, args.json, paint).context(STDOUT)?;
    Ok(ExitCode::Success)
}

fn write_dialects(rows: &[dialects::DialectRow], json: bool, paint: Paint) -> io::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    if json {
        for row in rows {
            let v = serde_json::json!({"name": row.name, "channel": row.channel.name(), "models": row.models, "summary": row.summary, "example": row.example});
            writeln!(out, "{v}")?;
        }
    } else {
        // Names and texts from dialect files are escaped: one row per dialect, as
        // written nowhere else.
        let name = |row: &dialects::DialectRow| escape(&row.name);
        let width = rows
            .iter()
            .map(|r| name(r).chars().count())
            .max()
            .unwrap_or(0);
        let header = format!("{:width$}  CHANNEL  SUMMARY", "DIALECT");
        writeln!(out, "{}", paint.header(&header))?;
        for row in rows {
            // Padded outside the style, so that columns line up with colour on.
            let pad = " ".repeat(width - name(row).chars().count());
            writeln!(
                out,
                "{}{pad}  {:7}  {}",
                paint.path(&name(row)),
                row.channel.name(),
                escape(&row.summary)
            )?;
            if !row.models.is_empty() {
                writeln!(
                    out,
                    "{:width$}           models: {}",
                    "",
                    escape(&row.models)
                )?;
            }
            writeln!(out, "{:width$}           e.g. {}", "", escape(&row.example))?;
        }
    }
    out.flush()
}
