//! Outputs on disk: each written atomically, a backup never replaced, the temporaries of
//! a stopped run swept, and I/O errors said without a temporary file's path.

use super::plan::{Destination, Job};
use super::plural;
use crate::atomic::AtomicFile;
use crate::diag::Diag;
use crate::walk::FileId;
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Removes the hidden temporary files (`.NAME.XXXXXX.toolsift-tmp`) that a killed run
/// left beside the outputs this run writes, when they are older than this run.
pub(super) fn sweep_stale_temporaries(jobs: &[Job], started: SystemTime, diag: &Diag) {
    let mut by_dir: BTreeMap<PathBuf, HashSet<Vec<u8>>> = BTreeMap::new();
    for j in jobs {
        let Destination::File(p) = &j.destination else {
            continue;
        };
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(name) = p.file_name() {
            by_dir
                .entry(dir)
                .or_default()
                .insert(name.as_encoded_bytes().to_vec());
        }
    }
    let mut removed = 0;
    for (dir, names) in by_dir {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(target) = temporary_of(file_name.as_encoded_bytes()) else {
                continue;
            };
            let stale = entry
                .metadata()
                .ok()
                .filter(fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .is_some_and(|m| m < started);
            if names.contains(target) && stale && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
    }
    if removed > 0 {
        diag.warn(
            "convert",
            None,
            format!(
                "removed {} of an earlier run that was stopped",
                plural(removed, "temporary file", "temporary files")
            ),
        );
    }
}

/// The file a temporary of [`AtomicFile`] was to replace: `.NAME.XXXXXX.toolsift-tmp`
/// gives `NAME`.
fn temporary_of(name: &[u8]) -> Option<&[u8]> {
    let inner = name.strip_prefix(b".")?.strip_suffix(b".toolsift-tmp")?;
    let dot = inner.len().checked_sub(7)?;
    (inner.get(dot) == Some(&b'.')).then(|| &inner[..dot])
}

/// An I/O error in words: no `(os error N)`, and no temporary file's path (the
/// message names the user's file).
pub(super) fn reason(e: &io::Error) -> String {
    let text = crate::diag::io_reason(e);
    let text = match text.find(" at path ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    crate::diag::without_os_error(&text)
}

/// Puts the original at `backup`, never replacing a file there: a hard link to the file
/// (its bytes, times and permissions, at no cost), or where links cannot be made a
/// copy renamed into place only while the name is free. A backup that is the input's
/// own file already (a run stopped between this and the write) is kept as it is.
pub(super) fn keep_original(input: &Path, backup: &Path) -> io::Result<()> {
    // Through links: the file that the write replaces.
    let source = fs::canonicalize(input)?;
    match fs::symlink_metadata(backup) {
        Ok(_) => {
            return match (FileId::of(backup), FileId::of(&source)) {
                (Ok(a), Ok(b)) if a == b => Ok(()),
                _ => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
            };
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    match fs::hard_link(&source, backup) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => copy_without_replacing(&source, backup),
    }
}

fn copy_without_replacing(source: &Path, backup: &Path) -> io::Result<()> {
    let dir = match backup.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(backup.file_name().unwrap_or_default());
    prefix.push(".");
    let mut temp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".toolsift-tmp")
        .tempfile_in(dir)?;
    let mut from = fs::File::open(source)?;
    io::copy(&mut from, &mut temp)?;
    temp.as_file()
        .set_permissions(from.metadata()?.permissions())?;
    temp.as_file().sync_all()?;
    temp.persist_noclobber(backup).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` through a temporary file beside `path`, renamed over it when
/// complete: a kill or a full disk leaves the old file or the new one, never half.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_names_the_file_it_replaces() {
        assert_eq!(
            temporary_of(b".a.json.Ab3xYz.toolsift-tmp"),
            Some(&b"a.json"[..])
        );
        assert_eq!(temporary_of(b".x.Ab3xYz.toolsift-tmp"), Some(&b"x"[..]));
        assert_eq!(temporary_of(b"a.json.Ab3xYz.toolsift-tmp"), None);
        assert_eq!(temporary_of(b".a.json.toolsift-tmp"), None);
        assert_eq!(temporary_of(b".a.json"), None);
    }

    #[test]
    fn a_backup_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.json");
        let backup = dir.path().join("a.json.orig");
        fs::write(&input, "original").unwrap();
        keep_original(&input, &backup).unwrap();
        assert_eq!(fs::read(&backup).unwrap(), b"original");
        // The same file again (a run stopped after the backup): kept.
        keep_original(&input, &backup).unwrap();
        // Another file at the backup's name: refused, untouched.
        write_atomic(&input, b"converted").unwrap();
        let e = keep_original(&input, &backup).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&backup).unwrap(), b"original");
        // The copy made where links cannot be: never over a file.
        let e = copy_without_replacing(&input, &backup).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&backup).unwrap(), b"original");
        let copy = dir.path().join("b.orig");
        copy_without_replacing(&input, &copy).unwrap();
        assert_eq!(fs::read(&copy).unwrap(), b"converted");
    }

    #[test]
    fn reasons_name_no_temporary_file() {
        let e = io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Permission denied (os error 13) at path \"/d/.x.json.wlO7ME.toolsift-tmp\"",
        );
        assert_eq!(reason(&e), "Permission denied");
    }
}
