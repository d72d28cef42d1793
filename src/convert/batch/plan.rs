//! Which inputs a run converts and where each output goes, refused when the run could
//! destroy an input.

use crate::cli::ConvertArgs;
use crate::diag::Diag;
use crate::walk::{self, FileId, WalkOptions};
use anyhow::{Result, bail};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Where one input's output goes.
pub(super) enum Destination {
    Stdout,
    File(PathBuf),
}

pub(super) struct Job {
    pub(super) input: PathBuf,
    /// Found in a directory argument, not named.
    pub(super) walked: bool,
    /// Shown in messages.
    pub(super) name: String,
    pub(super) destination: Destination,
    /// With --in-place --backup: where the original goes first.
    pub(super) backup: Option<PathBuf>,
}

/// The jobs, and what the walk left out.
pub(super) struct Plan {
    pub(super) jobs: Vec<Job>,
    /// Files ending in the backup suffix, found in a directory of an in-place run.
    pub(super) backups_not_read: usize,
    /// Files already under `--out-dir`, found in a directory argument that holds it.
    pub(super) outputs_not_read: usize,
    /// A directory argument was given (the summary is always said then).
    pub(super) walked_a_directory: bool,
    /// Files found, before `--shard` kept its own.
    pub(super) found: usize,
}

/// The inputs and where each goes; an error when the run could destroy an input.
pub(super) fn plan(args: &ConvertArgs, diag: &Diag) -> Result<Plan> {
    let mut plan = Plan {
        jobs: Vec::new(),
        backups_not_read: 0,
        outputs_not_read: 0,
        walked_a_directory: false,
        found: 0,
    };
    let named = crate::pipeline::named(&args.files, &args.batch)?;
    let opts = WalkOptions {
        follow: args.follow,
        globs: walk::exclude_globs(&args.exclude)?,
        ..Default::default()
    };
    let (walked, found) = crate::pipeline::select(walk::walk(&named, &opts, diag), &args.batch)?;
    plan.found = found;
    plan.walked_a_directory = named.iter().any(|f| f.as_os_str() != "-" && f.is_dir());
    let out_dir = args.out_dir.as_ref().map(|d| (d, canonical(d)));
    if let (Some((shown, Some(out))), true) = (&out_dir, named.iter().any(|f| f.is_dir())) {
        for root in named.iter().filter(|f| f.is_dir()) {
            if canonical(root).as_ref() == Some(out) {
                bail!(
                    "--out-dir {}: it is the directory {} being converted; each output would replace its input (use --in-place, or another --out-dir)",
                    shown.display(),
                    root.display()
                );
            }
        }
    }
    // The directory arguments that hold the --out-dir (each resolved once).
    let holding_out_dir: HashSet<&PathBuf> = match &out_dir {
        Some((_, Some(out))) => args
            .files
            .iter()
            .filter(|f| canonical(f).is_some_and(|r| out.starts_with(&r) && *out != r))
            .collect(),
        _ => HashSet::new(),
    };
    let suffix = args.backup.as_deref().filter(|_| args.in_place);
    let mut inputs_seen = HashSet::new();
    for w in walked {
        let name = crate::pipeline::source_name(&w.path, &args.batch).into_owned();
        let stdin = w.path.as_os_str() == "-";
        if stdin && (args.in_place || args.out_dir.is_some()) {
            bail!("standard input cannot be converted with --in-place or --out-dir");
        }
        if let Some(suffix) = suffix
            && w.path
                .as_os_str()
                .as_encoded_bytes()
                .ends_with(suffix.as_bytes())
        {
            if w.root.is_some() {
                plan.backups_not_read += 1;
                continue;
            }
            bail!(
                "{name}: ends in the backup suffix {suffix}; an in-place run never converts a backup"
            );
        }
        // Outputs of an earlier run, under an --out-dir inside the directory read.
        if let (Some((_, Some(out))), Some(root)) = (&out_dir, &w.root)
            && holding_out_dir.contains(root)
            && canonical(&w.path).is_some_and(|p| p.starts_with(out))
        {
            plan.outputs_not_read += 1;
            continue;
        }
        // One file named twice (or by two paths) is converted once.
        if !stdin
            && let Ok(id) = FileId::of(&w.path)
            && !inputs_seen.insert(id)
        {
            continue;
        }
        let (destination, backup) = if let Some(out) = &args.output {
            (Destination::File(out.clone()), None)
        } else if let Some((dir, _)) = &out_dir {
            let relative = match &w.root {
                Some(root) => w.path.strip_prefix(root).unwrap_or(&w.path).to_path_buf(),
                None => as_given(&w.path),
            };
            (Destination::File(dir.join(relative)), None)
        } else if args.in_place {
            let backup = suffix.map(|suffix| {
                let mut b = w.path.clone().into_os_string();
                b.push(suffix);
                PathBuf::from(b)
            });
            (Destination::File(w.path.clone()), backup)
        } else {
            (Destination::Stdout, None)
        };
        plan.jobs.push(Job {
            walked: w.root.is_some(),
            input: w.path,
            name,
            destination,
            backup,
        });
    }
    if let Some(out) = &args.output {
        if plan.jobs.len() > 1 {
            bail!(
                "-o takes one input ({} given); use --out-dir for several",
                plan.jobs.len()
            );
        }
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.is_dir()
        {
            bail!(
                "-o {}: the directory {} does not exist",
                out.display(),
                parent.display()
            );
        }
    }
    // Several documents on standard output would run together: one per line only.
    let to_stdout = plan
        .jobs
        .iter()
        .filter(|j| matches!(j.destination, Destination::Stdout))
        .count();
    if to_stdout > 1 && !args.compact && !args.dry_run {
        bail!(
            "{to_stdout} inputs to standard output would run together; use --out-dir DIR (one output per input), or --compact (one conversation per line)"
        );
    }
    // No output may be an input of the run (except in place), and no two inputs may
    // write one output.
    let input_ids: HashMap<FileId, &str> = plan
        .jobs
        .iter()
        .filter_map(|j| Some((FileId::of(&j.input).ok()?, j.name.as_str())))
        .collect();
    let mut seen = HashSet::new();
    for j in &plan.jobs {
        let Destination::File(p) = &j.destination else {
            continue;
        };
        if !args.in_place
            && let Some(input) = FileId::of(p).ok().and_then(|id| input_ids.get(&id))
        {
            let flag = if args.output.is_some() {
                "-o"
            } else {
                "--out-dir"
            };
            bail!(
                "{}: {flag} would write over the input {input}; write the output elsewhere",
                p.display()
            );
        }
        if !seen.insert(p.clone()) {
            bail!(
                "{}: two inputs would be written to this one output",
                p.display()
            );
        }
    }
    // The manifest replaces neither an input nor an output.
    if let Some(manifest) = &args.manifest {
        let shown = manifest.display();
        if let Some(input) = FileId::of(manifest).ok().and_then(|id| input_ids.get(&id)) {
            bail!("--manifest {shown}: it is the input {input}; write the manifest elsewhere");
        }
        if let Some(j) = plan
            .jobs
            .iter()
            .find(|j| matches!(&j.destination, Destination::File(p) if p == manifest))
        {
            bail!(
                "--manifest {shown}: it is the output of {}; write the manifest elsewhere",
                j.name
            );
        }
    }
    Ok(plan)
}

/// A named file's path under `--out-dir`: the path as given, as `cp --parents` keeps
/// it (`tasks/a/history.json` stays `tasks/a/history.json`, so files of one name in
/// several folders stay apart), less what cannot be inside a directory (a leading `/`,
/// `..`, `.`).
fn as_given(path: &Path) -> PathBuf {
    use std::path::Component;
    path.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect()
}

/// The canonical path, `None` when it does not exist.
fn canonical(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}
