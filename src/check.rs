//! `toolsift check`: the CI gate. Extraction with validation against the contracts,
//! per-file scenario assertions, and a report in one of four formats. Exit 0 when
//! clean, 1 on any finding, 2 on a usage error or an unwritable report, 3 when a file
//! could not be read (findings or not).

use crate::ExitCode;
use crate::cli::{CheckArgs, CheckFormat};
use crate::diag::{Diag, Skip, escape, needs_escape, plural};
use crate::engine::Engine;
use crate::model::Call;
use crate::output::{CallSink, Output};
use crate::pipeline::{
    OutputFile, STDOUT, finish, inputs, options_or_report, read_sources, text_window, threads,
};
use crate::style::{Paint, Stream};
use anyhow::{Context, Result};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::io::{self, BufWriter, Write};

/// One problem found.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct Finding {
    pub(crate) file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
    /// `invalid`, `unknown-tool`, `expect`, `forbid`, `max-calls`, `no-transcript`,
    /// `no-input`, `unread` or `unreadable`.
    pub(crate) kind: &'static str,
    pub(crate) message: String,
}

impl Finding {
    /// `FILE:LINE: tool NAME: PATH: message`, the parts that apply, as written (for
    /// reports that escape it themselves).
    fn human(&self) -> String {
        let mut s = self.file.clone();
        if let Some(line) = self.line {
            s += &format!(":{line}");
        }
        s += ": ";
        s += &self.where_();
        s + &self.message
    }

    /// The human line for a terminal or a CI log: every part escaped, so a name that
    /// holds a line break or an escape sequence cannot forge a line or restyle one.
    fn display(&self, paint: Paint) -> String {
        let mut s = paint.path(&escape(&self.file));
        if let Some(line) = self.line {
            s += &format!(":{}", paint.line(line));
        }
        s + ": " + &escape(&(self.where_() + &self.message))
    }

    /// `tool NAME: PATH: ` when known.
    fn where_(&self) -> String {
        let mut s = String::new();
        if let Some(tool) = &self.tool {
            s += &format!("tool {tool}: ");
        }
        if let Some(path) = &self.path {
            s += &format!("{path}: ");
        }
        s
    }
}

/// A call as the JUnit report lists it.
struct CallCase {
    line: u64,
    name: String,
}

/// What one file held, for the report.
struct FileReport {
    file: String,
    calls: Vec<CallCase>,
    findings: Vec<Finding>,
    /// Assertions checked on this file, with their findings' indexes (for JUnit).
    assertions: Vec<(String, Vec<usize>)>,
    /// The findings that say the file could not be read (JUnit errors, not failures).
    errors: Vec<usize>,
    /// Findings over [`MAX_LISTED_FINDINGS`]: counted, not listed; of them, failed
    /// `--forbid` assertions.
    unlisted: u64,
    unlisted_forbid: u64,
}

impl FileReport {
    /// A path that could not be read at all.
    fn unreadable(file: &str, reasons: Vec<String>) -> FileReport {
        let mut report = FileReport {
            file: file.to_owned(),
            calls: Vec::new(),
            findings: Vec::new(),
            assertions: Vec::new(),
            errors: Vec::new(),
            unlisted: 0,
            unlisted_forbid: 0,
        };
        report.add_errors(reasons);
        report
    }

    fn add_errors(&mut self, reasons: Vec<String>) {
        for reason in reasons {
            self.errors.push(self.findings.len());
            self.findings.push(Finding {
                file: self.file.clone(),
                line: None,
                tool: None,
                path: None,
                kind: "unreadable",
                message: format!("cannot be read: {reason}"),
            });
        }
    }

    /// A named path that held no file to read, as a failed test case.
    fn no_input(path: &str) -> FileReport {
        let mut report = FileReport::unreadable(path, Vec::new());
        report.add_failure(
            "input",
            "no-input",
            "no input file: nothing to read under it (hidden files, links and special files are skipped; --allow-empty lets it pass)",
        );
        report
    }

    /// Parts of the file passed over unread: a finding each, one failed test case.
    fn add_unread(&mut self, skips: Vec<Skip>) {
        if skips.is_empty() {
            return;
        }
        let mut failed = Vec::new();
        for skip in skips {
            failed.push(self.findings.len());
            self.findings.push(Finding {
                file: self.file.clone(),
                line: skip.line,
                tool: None,
                path: None,
                kind: "unread",
                message: skip.message,
            });
        }
        self.assertions.push(("read in full".to_owned(), failed));
    }

    /// A failed check about the whole file, as a test case of its own.
    fn add_failure(&mut self, case: &str, kind: &'static str, message: &str) {
        self.assertions
            .push((case.to_owned(), vec![self.findings.len()]));
        self.findings.push(Finding {
            file: self.file.clone(),
            line: None,
            tool: None,
            path: None,
            kind,
            message: message.to_owned(),
        });
    }
}

#[derive(Default)]
struct Totals {
    files: u64,
    calls: u64,
    invalid: u64,
    unknown: u64,
    failed_assertions: u64,
    /// Files read in which no transcript was recognised.
    empty: u64,
    /// Parts of files passed over unread.
    unread: u64,
    /// Named paths that held no file to read.
    no_input: u64,
    unreadable: u64,
}

pub(crate) fn run(args: CheckArgs) -> Result<ExitCode> {
    let Some(mut options) = options_or_report(&args.scan, false, false) else {
        return Ok(ExitCode::Error);
    };
    // Errors are kept as well as printed: a file that cannot be read is in the report.
    let diag = Diag::recording(args.scan.quiet);
    let Some(manifest) = crate::manifest::plan(args.scan.manifest.as_deref(), None, &diag) else {
        return Ok(ExitCode::Error);
    };
    options.manifest = manifest.clone();
    let Some(inputs) = inputs(&args.files, &args.scan, args.output.as_deref(), &diag) else {
        return Ok(ExitCode::Error);
    };
    let files = &inputs.files;
    // One thread reads ahead of the other when there are two to use.
    let pipelined = match threads(None) {
        Ok(n) => n > 1,
        Err(e) => {
            diag.fail(format!("{e:#}"));
            return Ok(ExitCode::Error);
        }
    };
    // Directories that could not be walked.
    let walk_errors = diag.take_errors();
    let file = match &args.output {
        Some(path) => match OutputFile::create(path, &diag) {
            Some(f) => Some(f),
            None => return Ok(ExitCode::Error),
        },
        None => None,
    };
    let paint = Paint::new(
        args.scan.color,
        if file.is_some() {
            Stream::File
        } else {
            Stream::Stdout
        },
    );
    let mut sink: Box<dyn Write> = match &file {
        Some(f) => Box::new(f.clone()),
        None => Box::new(BufWriter::new(io::stdout().lock())),
    };
    let require_valid = !args.allow_invalid;
    let mut out = Output::checking(Box::new(FileCheck::new(
        &args,
        require_valid,
        args.format == CheckFormat::Junit,
    )));
    let mut engine = Engine::new(options, &mut out);
    let mut totals = Totals::default();
    let mut findings = 0usize;
    // Only JUnit needs every file before it can write; the other formats write each
    // file's findings as soon as it is read, so memory does not grow with the run.
    let mut reports = Vec::new();
    let run = || -> Result<()> {
        let mut write = |report: FileReport, totals: &mut Totals| -> io::Result<()> {
            totals.failed_assertions += report
                .findings
                .iter()
                .filter(|f| matches!(f.kind, "expect" | "forbid" | "max-calls"))
                .count() as u64
                + report.unlisted_forbid;
            totals.unreadable += report.errors.len() as u64;
            let kinds = |kind| report.findings.iter().filter(|f| f.kind == kind).count() as u64;
            totals.unread += kinds("unread");
            totals.no_input += kinds("no-input");
            findings += report.findings.len() + report.unlisted as usize;
            // In line order; findings about the whole file last.
            let mut ordered: Vec<&Finding> = report.findings.iter().collect();
            ordered.sort_by_key(|f| f.line.unwrap_or(u64::MAX));
            for f in ordered {
                match args.format {
                    CheckFormat::Human => writeln!(sink, "{}", f.display(paint))?,
                    CheckFormat::Json => {
                        serde_json::to_writer(&mut sink, f)?;
                        writeln!(sink)?;
                    }
                    CheckFormat::Github => writeln!(sink, "{}", github(f))?,
                    CheckFormat::Junit => {}
                }
            }
            if args.format == CheckFormat::Junit {
                reports.push(report);
            }
            Ok(())
        };
        // A glob or directory that matched nothing passes nothing: no input is a finding.
        // (A shard of files found elsewhere may hold none: that is no finding.)
        if inputs.unsharded == 0 && walk_errors.is_empty() && !args.allow_empty {
            for path in &inputs.named {
                write(FileReport::no_input(&path.to_string_lossy()), &mut totals)?;
            }
            if let (true, Some(list)) = (inputs.named.is_empty(), &args.scan.batch.files_from) {
                let list = format!("--files-from {}", list.to_string_lossy());
                write(FileReport::no_input(&list), &mut totals)?;
            }
        }
        for (path, reason) in walk_errors {
            write(FileReport::unreadable(&path, vec![reason]), &mut totals)?;
        }
        read_sources(
            files,
            &args.scan,
            text_window(),
            pipelined,
            &mut engine,
            &diag,
            |file, engine: &mut Engine| {
                let errors: Vec<String> = diag.take_errors().into_iter().map(|(_, e)| e).collect();
                let skips = diag.take_skipped();
                let check = engine
                    .output()
                    .checker::<FileCheck>()
                    .expect("check's output is a FileCheck")
                    .take();
                totals.files += 1;
                totals.calls += check.calls;
                totals.unknown += check.unknown;
                totals.invalid += check.invalid;
                let no_calls = check.calls == 0;
                let mut report = check.report(file, &args);
                if report.unlisted > 0 {
                    diag.warn(
                        file,
                        None,
                        format!(
                            "{} more findings in this file were counted but not listed (the first {MAX_LISTED_FINDINGS} are)",
                            report.unlisted
                        ),
                    );
                }
                // What was passed over unread is a finding, whatever else the file held:
                // 100 MB skipped is not a clean run.
                let unread = !skips.is_empty();
                report.add_unread(skips);
                if !errors.is_empty() {
                    report.add_errors(errors);
                } else if no_calls && !unread && !engine.read_structure() && !args.allow_empty {
                    // A glob that matched the wrong files: nothing in it was a transcript.
                    totals.empty += 1;
                    let message = match engine.unknown_shape() {
                        Some(shape) => format!(
                            "no transcript recognised: JSON of no known transcript shape ({shape}); no calls read (--allow-empty lets it pass)"
                        ),
                        None => "no transcript recognised: no message, call or result was read (--allow-empty lets it pass)".to_owned(),
                    };
                    report.add_failure("transcript", "no-transcript", &message);
                }
                write(report, &mut totals)
            },
        )?;
        let summary = summary(&totals);
        match args.format {
            CheckFormat::Human => writeln!(sink, "{summary}")?,
            CheckFormat::Junit => junit(&mut sink, &reports)?,
            CheckFormat::Json | CheckFormat::Github => {}
        }
        sink.flush()?;
        Ok(())
    };
    let result = run();
    drop(sink);
    let result = if file.is_none() {
        result.context(STDOUT)
    } else {
        result
    };
    if finish(result, file, &diag)?.is_none() {
        return Ok(ExitCode::Error);
    }
    if let (Some(path), Some(plan)) = (&args.scan.manifest, &manifest) {
        plan.write(path, &diag);
    }
    if args.format != CheckFormat::Human {
        eprintln!("toolsift: {}", summary(&totals));
    }
    // An input not read makes the verdict incomplete: 3 wins over findings (which are
    // in the report all the same), so an engine retries rather than records a verdict.
    Ok(diag.exit_code(if findings > 0 {
        ExitCode::Findings
    } else {
        ExitCode::Success
    }))
}

/// `3 files, 41 calls, 2 invalid, 1 unknown tool` (and failed assertions, if any).
fn summary(t: &Totals) -> String {
    let mut s = format!(
        "{}, {}, {} invalid, {}",
        plural(t.files, "file", "files"),
        plural(t.calls, "call", "calls"),
        t.invalid,
        plural(t.unknown, "unknown tool", "unknown tools"),
    );
    for (n, one, many) in [
        (t.failed_assertions, "failed assertion", "failed assertions"),
        (
            t.empty,
            "file without a transcript",
            "files without a transcript",
        ),
        (t.unread, "part not read", "parts not read"),
        (t.unreadable, "unreadable file", "unreadable files"),
    ] {
        if n > 0 {
            s += &format!(", {}", plural(n, one, many));
        }
    }
    if t.no_input > 0 {
        s += ", no input file";
    }
    s
}

/// How many findings about calls (invalid, unknown tool, forbidden) one file lists; more
/// are counted (in the summary and the exit code) and said in one warning. A file of a
/// million bad calls would otherwise hold a million findings until its end.
pub(crate) const MAX_LISTED_FINDINGS: usize = 10_000;

/// What `check` keeps of one file's calls as they are found: counts, the findings, and
/// for JUnit the line and name of each call (a test case each). Not the calls.
struct FileCheck {
    expect: Vec<String>,
    forbid: Vec<String>,
    report_invalid: bool,
    report_unknown: bool,
    junit: bool,
    calls: u64,
    invalid: u64,
    unknown: u64,
    /// Findings about calls (invalid, unknown tool), in the order found; the file name is
    /// filled in at the end.
    call_findings: Vec<Finding>,
    /// Per `--forbid` name, its findings.
    forbidden: Vec<Vec<Finding>>,
    /// Per `--expect` name, whether a call to it was found.
    expected: Vec<bool>,
    unlisted: u64,
    unlisted_forbid: u64,
    cases: Vec<CallCase>,
}

impl FileCheck {
    fn new(args: &CheckArgs, require_valid: bool, junit: bool) -> FileCheck {
        FileCheck::empty(
            args.expect.clone(),
            args.forbid.clone(),
            require_valid,
            !args.allow_unknown,
            junit,
        )
    }

    /// No call seen yet, with the assertions and settings given.
    fn empty(
        expect: Vec<String>,
        forbid: Vec<String>,
        report_invalid: bool,
        report_unknown: bool,
        junit: bool,
    ) -> FileCheck {
        FileCheck {
            forbidden: vec![Vec::new(); forbid.len()],
            expected: vec![false; expect.len()],
            expect,
            forbid,
            report_invalid,
            report_unknown,
            junit,
            calls: 0,
            invalid: 0,
            unknown: 0,
            call_findings: Vec::new(),
            unlisted: 0,
            unlisted_forbid: 0,
            cases: Vec::new(),
        }
    }

    /// This file's state, leaving a fresh one for the next.
    fn take(&mut self) -> FileCheck {
        let fresh = FileCheck::empty(
            self.expect.clone(),
            self.forbid.clone(),
            self.report_invalid,
            self.report_unknown,
            self.junit,
        );
        std::mem::replace(self, fresh)
    }

    fn listed(&self) -> usize {
        self.call_findings.len() + self.forbidden.iter().map(Vec::len).sum::<usize>()
    }

    /// The report of the file: the call findings, then the assertions.
    fn report(self, file: &str, args: &CheckArgs) -> FileReport {
        let with_file = |mut f: Finding| {
            f.file = file.to_owned();
            f
        };
        let mut findings: Vec<Finding> = self.call_findings.into_iter().map(with_file).collect();
        let mut assertions = Vec::new();
        for (name, found) in self.expect.iter().zip(&self.expected) {
            let mut failed = Vec::new();
            if !found {
                failed.push(findings.len());
                findings.push(Finding {
                    file: file.to_owned(),
                    line: None,
                    tool: None,
                    path: None,
                    kind: "expect",
                    message: format!("expected a call to {name}, found none"),
                });
            }
            assertions.push((format!("expect {name}"), failed));
        }
        for (name, found) in self.forbid.iter().zip(self.forbidden) {
            let mut failed = Vec::new();
            for f in found {
                failed.push(findings.len());
                findings.push(with_file(f));
            }
            assertions.push((format!("forbid {name}"), failed));
        }
        if let Some(max) = args.max_calls {
            let mut failed = Vec::new();
            if self.calls > max {
                failed.push(findings.len());
                findings.push(Finding {
                    file: file.to_owned(),
                    line: None,
                    tool: None,
                    path: None,
                    kind: "max-calls",
                    message: format!(
                        "{}, more than --max-calls {max}",
                        plural(self.calls, "call", "calls")
                    ),
                });
            }
            assertions.push((format!("max-calls {max}"), failed));
        }
        FileReport {
            file: file.to_owned(),
            calls: self.cases,
            findings,
            assertions,
            errors: Vec::new(),
            unlisted: self.unlisted,
            unlisted_forbid: self.unlisted_forbid,
        }
    }
}

impl CallSink for FileCheck {
    /// Counts a call and notes its findings: invalid calls, unknown tools, and the
    /// assertions about it.
    fn call(&mut self, call: &Call, _channel: &str, line: u64, _turn: u64) {
        self.calls += 1;
        if call.unknown_tool {
            self.unknown += 1;
        } else if !call.is_valid() {
            self.invalid += 1;
        }
        if self.junit {
            self.cases.push(CallCase {
                line,
                name: call.name.clone(),
            });
        }
        let at = |kind: &'static str, path: Option<String>, message: String| Finding {
            file: String::new(),
            line: Some(line),
            tool: Some(call.name.clone()),
            path,
            kind,
            message,
        };
        if !call.is_valid() {
            let schema: BTreeSet<String> = call
                .schema_errors
                .iter()
                .map(|e| format!("{}: {}", e.path, e.message))
                .collect();
            let mut found = Vec::new();
            if self.report_invalid {
                for e in &call.schema_errors {
                    found.push(at("invalid", Some(e.path.clone()), e.message.clone()));
                }
            }
            for e in call.errors.iter().filter(|e| !schema.contains(*e)) {
                let unknown = call.unknown_tool && e.starts_with("unknown tool");
                if (unknown && !self.report_unknown) || (!unknown && !self.report_invalid) {
                    continue;
                }
                let kind = if unknown { "unknown-tool" } else { "invalid" };
                found.push(at(kind, None, e.clone()));
            }
            for f in found {
                if self.listed() < MAX_LISTED_FINDINGS {
                    self.call_findings.push(f);
                } else {
                    self.unlisted += 1;
                }
            }
        }
        for (name, found) in self.expect.iter().zip(&mut self.expected) {
            *found |= &call.name == name;
        }
        for i in 0..self.forbid.len() {
            if call.name != self.forbid[i] {
                continue;
            }
            if self.listed() < MAX_LISTED_FINDINGS {
                let message = format!("{} is forbidden (--forbid)", self.forbid[i]);
                self.forbidden[i].push(at("forbid", None, message));
            } else {
                self.unlisted += 1;
                self.unlisted_forbid += 1;
            }
        }
    }

    fn as_any(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// A GitHub Actions workflow command: `::error file=F,line=L::message`.
fn github(f: &Finding) -> String {
    // GitHub decodes %25, %0D and %0A; other controls are shown escaped.
    let data = |s: &str| {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                '%' => out.push_str("%25"),
                '\r' => out.push_str("%0D"),
                '\n' => out.push_str("%0A"),
                c if needs_escape(c) => out.extend(c.escape_default()),
                c => out.push(c),
            }
        }
        out
    };
    let prop = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    let mut props = format!("file={}", prop(&f.file));
    if let Some(line) = f.line {
        props += &format!(",line={line}");
    }
    props += ",title=toolsift check";
    format!("::error {props}::{}", data(&(f.where_() + &f.message)))
}

/// Text XML 1.0 can hold: control characters other than tab and line breaks become
/// U+FFFD.
fn xml_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}')
            {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// A JUnit XML report: one test suite per file; a test case per call (failing when
/// the call is a finding) and per assertion.
fn junit(sink: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    let mut w = Writer::new_with_indent(sink, b' ', 2);
    let tests: usize = reports
        .iter()
        .map(|r| r.calls.len() + r.assertions.len() + r.errors.len())
        .sum();
    let failures: usize = reports
        .iter()
        .map(|r| failing_cases(r, &call_failures(r)))
        .sum();
    let errors: usize = reports.iter().map(|r| r.errors.len()).sum();
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = BytesStart::new("testsuites");
    root.push_attribute(("name", "toolsift check"));
    root.push_attribute(("tests", tests.to_string().as_str()));
    root.push_attribute(("failures", failures.to_string().as_str()));
    root.push_attribute(("errors", errors.to_string().as_str()));
    w.write_event(Event::Start(root))?;
    for r in reports {
        let file = xml_text(&r.file);
        let mut suite = BytesStart::new("testsuite");
        suite.push_attribute(("name", file.as_str()));
        suite.push_attribute((
            "tests",
            (r.calls.len() + r.assertions.len() + r.errors.len())
                .to_string()
                .as_str(),
        ));
        let by_call = call_failures(r);
        suite.push_attribute(("failures", failing_cases(r, &by_call).to_string().as_str()));
        suite.push_attribute(("errors", r.errors.len().to_string().as_str()));
        w.write_event(Event::Start(suite))?;
        for (i, c) in r.calls.iter().enumerate() {
            let name = format!("#{} line {}: {}", i + 1, c.line, c.name);
            let failed = by_call
                .get(&(c.line, c.name.as_str()))
                .map_or(&[][..], Vec::as_slice);
            case(&mut w, &file, &name, Some(c.line), failed, "failure")?;
        }
        for (name, failed) in &r.assertions {
            let failed: Vec<&Finding> = failed.iter().map(|&i| &r.findings[i]).collect();
            case(&mut w, &file, name, None, &failed, "failure")?;
        }
        for &i in &r.errors {
            case(&mut w, &file, "read", None, &[&r.findings[i]], "error")?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuite")))?;
    }
    w.write_event(Event::End(BytesEnd::new("testsuites")))?;
    // The summary goes to stderr, as for json and github: the report is XML only.
    w.get_mut().write_all(b"\n")
}

/// The findings about calls (invalid, unknown tool), by the line and name of the call
/// they fail: looked up once per call, not searched for among all findings.
fn call_failures(r: &FileReport) -> HashMap<(u64, &str), Vec<&Finding>> {
    let mut by_call: HashMap<(u64, &str), Vec<&Finding>> = HashMap::new();
    for f in &r.findings {
        if let (Some(line), Some(tool), "invalid" | "unknown-tool") =
            (f.line, f.tool.as_deref(), f.kind)
        {
            by_call.entry((line, tool)).or_default().push(f);
        }
    }
    by_call
}

fn failing_cases(r: &FileReport, by_call: &HashMap<(u64, &str), Vec<&Finding>>) -> usize {
    let calls = r
        .calls
        .iter()
        .filter(|c| by_call.contains_key(&(c.line, c.name.as_str())))
        .count();
    calls + r.assertions.iter().filter(|(_, f)| !f.is_empty()).count()
}

fn case(
    w: &mut Writer<&mut dyn Write>,
    file: &str,
    name: &str,
    line: Option<u64>,
    failed: &[&Finding],
    outcome: &str,
) -> io::Result<()> {
    let name = xml_text(name);
    let mut tag = BytesStart::new("testcase");
    tag.push_attribute(("classname", file));
    tag.push_attribute(("name", name.as_str()));
    tag.push_attribute(("file", file));
    if let Some(line) = line {
        tag.push_attribute(("line", line.to_string().as_str()));
    }
    if failed.is_empty() {
        return w.write_event(Event::Empty(tag));
    }
    w.write_event(Event::Start(tag))?;
    let message = xml_text(&(failed[0].where_() + &failed[0].message));
    let mut failure = BytesStart::new(outcome);
    failure.push_attribute(("type", failed[0].kind));
    failure.push_attribute(("message", message.as_str()));
    w.write_event(Event::Start(failure))?;
    let body: Vec<String> = failed.iter().map(|f| f.human()).collect();
    w.write_event(Event::Text(BytesText::new(&xml_text(&body.join("\n")))))?;
    w.write_event(Event::End(BytesEnd::new(outcome)))?;
    w.write_event(Event::End(BytesEnd::new("testcase")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(message: &str) -> Finding {
        Finding {
            file: "a,b:c.jsonl".into(),
            line: Some(3),
            tool: Some("f".into()),
            path: Some("/x".into()),
            kind: "invalid",
            message: message.into(),
        }
    }

    #[test]
    fn human_and_github_lines() {
        let f = finding("50% off\nnext");
        assert_eq!(f.human(), "a,b:c.jsonl:3: tool f: /x: 50% off\nnext");
        assert_eq!(
            github(&f),
            "::error file=a%2Cb%3Ac.jsonl,line=3,title=toolsift check::tool f: /x: 50%25 off%0Anext"
        );
    }

    #[test]
    fn summaries() {
        let t = Totals {
            files: 3,
            calls: 41,
            invalid: 2,
            unknown: 1,
            ..Totals::default()
        };
        assert_eq!(summary(&t), "3 files, 41 calls, 2 invalid, 1 unknown tool");
        let t = Totals {
            files: 1,
            calls: 1,
            invalid: 0,
            unknown: 2,
            failed_assertions: 1,
            ..Totals::default()
        };
        assert_eq!(
            summary(&t),
            "1 file, 1 call, 0 invalid, 2 unknown tools, 1 failed assertion"
        );
        let t = Totals {
            files: 1,
            unread: 2,
            ..Totals::default()
        };
        assert_eq!(
            summary(&t),
            "1 file, 0 calls, 0 invalid, 0 unknown tools, 2 parts not read"
        );
        let t = Totals {
            no_input: 2,
            ..Totals::default()
        };
        assert_eq!(
            summary(&t),
            "0 files, 0 calls, 0 invalid, 0 unknown tools, no input file"
        );
    }

    #[test]
    fn xml_text_drops_what_xml_cannot_hold() {
        assert_eq!(xml_text("a\u{1}b\tc"), "a\u{FFFD}b\tc");
    }
}
