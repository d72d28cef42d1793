//! `toolsift convert`: whole transcripts from one format to another, above all old XML
//! tool-call histories to JSON, losing nothing that is not a call.
//!
//! bytes -> documents (`frame`) -> [`model::Transcript`] (`read`, and the format
//! readers) -> calls and results cut out of text (`split`, `results`) -> pairing
//! (`pair`) -> a writer (`write`) -> bytes; `verify` reads the output back.

mod batch;
pub(crate) mod canonical;
pub(crate) mod decode;
pub(crate) mod emit;
pub(crate) mod encode;
pub(crate) mod frame;
pub(crate) mod model;
pub(crate) mod pair;
pub(crate) mod read;
pub(crate) mod request;
pub(crate) mod results;
pub(crate) mod rules;
pub(crate) mod sessions;
pub(crate) mod split;
pub(crate) mod turns;
pub(crate) mod verify;
pub(crate) mod write;

use crate::cli::{ConvertArgs, ConvertFormat};
use crate::engine::{Engine, Options, Reasoning};
use crate::output::Output;
use anyhow::{Result, anyhow, bail};
pub(crate) use batch::run;
use encode::Notes;
use model::{Format, Part, Role, Transcript};
use request::WriteOptions;
use std::io::{self, Read};
use std::path::Path;

pub(crate) fn format_of(f: ConvertFormat) -> Format {
    match f {
        ConvertFormat::Json => Format::Json,
        ConvertFormat::Openai => Format::Openai,
        ConvertFormat::Anthropic => Format::Anthropic,
        ConvertFormat::Gemini => Format::Gemini,
        ConvertFormat::Responses => Format::Responses,
        ConvertFormat::MandrakeJson => Format::MandrakeJson,
        ConvertFormat::Xml => Format::Xml,
    }
}

/// What one file gave: its output, and counts for the summary.
#[derive(Default, Debug)]
pub(crate) struct Converted {
    pub(crate) output: Vec<u8>,
    pub(crate) conversations: usize,
    pub(crate) messages: usize,
    pub(crate) calls: usize,
    pub(crate) results: usize,
    /// Lines for stderr (what the target could not hold, results with no call).
    pub(crate) warnings: Vec<String>,
    /// What `--verify` found would be lost.
    pub(crate) differences: Vec<String>,
    /// Of those, the rules of the target's API the output breaks (`--verify`).
    pub(crate) refused: usize,
}

/// How one conversion is done.
pub(crate) struct Settings {
    pub(crate) to: Format,
    pub(crate) from: Option<Format>,
    pub(crate) write: WriteOptions,
    pub(crate) compact: bool,
    pub(crate) verify: bool,
    pub(crate) options: Options,
}

impl Settings {
    /// A fresh engine for finding calls in text (one per thread).
    fn engine_output() -> Output {
        Output::discarding()
    }
}

/// Converts one file's bytes. Errors fail the file: input that cannot be kept exactly
/// (invalid UTF-8, a lone surrogate) or that holds no conversation.
/// Converts one file's bytes. `walked`: the file was found in a directory argument, where
/// plain text is not taken for a conversation (a README beside the histories is not one)
/// and fails with [`NotAConversation`].
pub(crate) fn convert_bytes(bytes: &[u8], settings: &Settings, walked: bool) -> Result<Converted> {
    let text = match simdutf8::basic::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => {
            let e = std::str::from_utf8(bytes).expect_err("simdutf8 found it invalid");
            let line = 1 + memchr::memchr_iter(b'\n', &bytes[..e.valid_up_to()]).count();
            bail!("line {line}: invalid UTF-8; a conversion cannot keep it exactly");
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match convert_documents(text, settings) {
        Err(e) if e.downcast_ref::<frame::NotADocument>().is_some() => {
            if walked
                && e.downcast_ref::<frame::NotADocument>()
                    .is_some_and(|n| n.0 == "plain text")
            {
                return Err(anyhow::Error::new(NotAConversation));
            }
            turns::convert(text, &e.to_string(), settings)
        }
        other => other,
    }
}

/// Converts input framed as conversation documents (see [`frame`]).
fn convert_documents(text: &str, settings: &Settings) -> Result<Converted> {
    let framed = frame::frame(text)?;
    let mut sink = Settings::engine_output();
    let mut engine = Engine::new(settings.options.clone(), &mut sink);
    let mut out = Converted::default();
    let mut notes = Notes::default();
    let lines = framed.lines();
    for (n, doc) in framed.docs.iter().enumerate() {
        let at = |e: anyhow::Error| match lines {
            // JSON Lines whose first line holds no conversation of a known shape (a
            // LangGraph stream of tuples, a batch's output records, a model's bare JSON)
            // are no conversation documents: extract's reader reads them.
            true if n == 0 && e.downcast_ref::<frame::NotADocument>().is_some() => e,
            true => anyhow!("line {}: {e:#}", doc.line),
            false => e,
        };
        let t = transcript(&doc.text, settings.from, &mut engine, n).map_err(at)?;
        let prefix = if lines {
            format!("line {}: ", doc.line)
        } else {
            String::new()
        };
        // A request holds one conversation: a canonical transcript of a recording that
        // held several gives each its own request, as the recording itself does.
        let conversations = if rules::is_api(settings.to) {
            t.apart()
        } else {
            vec![t]
        };
        let one = conversations.len() == 1;
        if !one {
            notes.add(format!(
                "{prefix}{}",
                several_conversations(conversations.len())
            ));
        }
        for t in conversations {
            emit(
                t,
                n,
                settings,
                &mut engine,
                &mut out,
                &mut notes,
                !lines && one,
                &prefix,
            )
            .map_err(at)?;
        }
    }
    out.warnings = notes.lines();
    Ok(out)
}

/// The note on a recording of several conversations written for an API.
fn several_conversations(count: usize) -> String {
    format!(
        "its requests hold {count} conversations (each request continues the one that opened as it opens: same system prompt and first user message), written one per line in the order they began"
    )
}

/// Pairs one conversation's results with its calls, writes it as the target, and
/// (`--verify`) reads the output back and compares. `document`: written as a document
/// (indented unless `--compact`), else on one line.
#[allow(clippy::too_many_arguments)]
fn emit(
    mut t: Transcript,
    n: usize,
    settings: &Settings,
    engine: &mut Engine,
    out: &mut Converted,
    notes: &mut Notes,
    document: bool,
    prefix: &str,
) -> Result<()> {
    out.conversations += 1;
    out.messages += t.messages.len();
    for p in t.messages.iter().flat_map(|m| &m.parts) {
        match p {
            Part::Call(_) => out.calls += 1,
            Part::Result(_) => out.results += 1,
            _ => {}
        }
    }
    let pairing = pair::pair(&mut t, n, rules::is_api(settings.to));
    if pairing.orphans > 0 {
        notes.add(format!(
            "{} result(s) with no call before them to answer",
            pairing.orphans
        ));
    }
    if let Some((old, new)) = pairing.renamed.first() {
        let more = if pairing.renamed.len() > 1 {
            ", …"
        } else {
            ""
        };
        notes.add(format!(
            "{} whose id an earlier call has given one of their own, on calls and results alike ({old} -> {new}{more})",
            request::plural(pairing.renamed.len(), "call", "calls"),
        ));
    }
    let mut doc_notes = Notes::default();
    // Subagents' conversations logged inside a session follow it, one per line.
    let subagents = request::sidechains(&mut t, settings.to, &mut doc_notes);
    out.conversations += subagents.len();
    let one = subagents.is_empty();
    for t in std::iter::once(t).chain(subagents) {
        // An API target gets what its API accepts; the changes are in the notes.
        let t = request::prepare(&t, settings.to, settings.write, &mut doc_notes);
        let j = write::write(&t, settings.to, settings.write, &mut doc_notes);
        let rendered = j.render(one && document && !settings.compact);
        if settings.verify {
            let mut back = transcript(&rendered, Some(settings.to), engine, n)?;
            pair::pair(&mut back, n, false);
            for d in verify::compare(&t, &back, settings.to) {
                out.differences.push(format!("{prefix}{d}"));
            }
            // What the target's API would refuse, though nothing is lost.
            if let Ok(written) = serde_json::from_str::<serde_json::Value>(&rendered) {
                for r in rules::check(&written, settings.to) {
                    out.differences
                        .push(format!("{prefix}the API would refuse it: {r}"));
                    out.refused += 1;
                }
            }
        }
        out.output.extend_from_slice(rendered.as_bytes());
        out.output.push(b'\n');
    }
    notes.merge(doc_notes);
    Ok(())
}

/// One document as a transcript, its text cut around calls and results.
fn transcript(
    text: &str,
    from: Option<Format>,
    engine: &mut Engine,
    conversation: usize,
) -> Result<Transcript> {
    let doc = crate::json::Doc::parse(text).map_err(|e| {
        // JSON Lines whose first line is cut (a capture that starts mid-record) are
        // read as extract reads them, which warns about that line and reads the rest.
        if frame::later_line_is_json(text) {
            anyhow::Error::new(frame::NotADocument(
                "JSON Lines whose first line is not JSON".into(),
            ))
        } else {
            anyhow!("not JSON: {e}")
        }
    })?;
    let mut t = frame::transcript(doc.root(), from)?.ok_or_else(|| {
        anyhow::Error::new(frame::NotADocument(
            "no conversation of a known shape (messages, contents or input items)".into(),
        ))
    })?;
    let _ = conversation;
    // The canonical transcript is cut already: its text parts are text.
    if !t.cut {
        split::split(&mut t.messages, engine, &[Role::Assistant], t.origin, false);
    }
    // A history whose calls were written in text is in that dialect's format.
    if from.is_none() && matches!(t.source, Some(Format::Openai) | None) {
        let dialects: Vec<&str> = t
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Call(c) => c.written.as_ref().map(|w| w.dialect.as_str()),
                _ => None,
            })
            .collect();
        if dialects.contains(&crate::dialects::mandrake_xml::NAME) {
            t.source = Some(Format::Xml);
        } else if dialects.contains(&"mandrake-json") {
            t.source = Some(Format::MandrakeJson);
        }
    }
    Ok(t)
}

/// The engine's options for finding calls in message text.
fn options(args: &ConvertArgs) -> Result<Options> {
    let registry = crate::dialects::dialect_file::load(&args.dialect_file)?;
    if let Some(selected) = &args.dialects {
        let known: Vec<String> = crate::dialects::all_rows(registry)
            .into_iter()
            .map(|r| r.name)
            .collect();
        for name in selected {
            if !known.contains(name) {
                bail!("--dialects: unknown dialect '{name}' (see `toolsift dialects`)");
            }
        }
    }
    Ok(Options {
        formats: crate::dialects::Channel::ALL.to_vec(),
        // Every channel's calls: a JSON call quoted inside an XML call's arguments is
        // part of that call, which only the spans of both can tell (see `split`).
        all: true,
        with_results: false,
        with_text: false,
        roles: vec![crate::model::Role::Assistant],
        dialects: args.dialects.clone(),
        contracts: std::sync::Arc::new(crate::contracts::Contracts::load(&args.tools)?),
        registry,
        strict: false,
        // A call quoted in the model's reasoning is part of that reasoning.
        reasoning: Reasoning::Exclude,
        manifest: None,
    })
}

/// A file found in a directory that holds no conversation (plain text): skipped.
#[derive(Debug)]
pub(crate) struct NotAConversation;

impl std::fmt::Display for NotAConversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("plain text, not a conversation; skipped (name the file to convert it)")
    }
}

impl std::error::Error for NotAConversation {}

/// The bytes of one input (`-`: standard input); compressed data (gzip, zstd, bzip2, xz)
/// decoded. With `watch` (`--manifest`), the bytes as stored are hashed as they are read.
fn read_input(
    path: &Path,
    watch: Option<&mut crate::manifest::Watch>,
) -> io::Result<(Vec<u8>, Option<crate::input::compressed::Compression>)> {
    let input: Box<dyn io::Read + Send> = if path.as_os_str() == "-" {
        match watch {
            Some(w) => w.reading(io::stdin(), None),
            None => Box::new(io::stdin()),
        }
    } else {
        let file = std::fs::File::open(path)?;
        match watch {
            Some(w) => {
                if let Ok(meta) = file.metadata() {
                    w.stat(&meta);
                }
                let rest = file.try_clone().ok();
                w.reading(file, rest)
            }
            None => Box::new(file),
        }
    };
    let (mut input, compression) =
        crate::input::compressed::open(Box::new(io::BufReader::new(input)))?;
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    Ok((bytes, compression))
}
