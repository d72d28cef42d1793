//! An output file that is complete or not there: written to a hidden temporary file
//! beside the target and renamed over it on `commit`, so a run that fails or is killed
//! leaves the old file (or none) instead of a partial one.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

pub(crate) struct AtomicFile {
    target: PathBuf,
    inner: Inner,
}

enum Inner {
    /// Renamed over the target on commit; removed when dropped.
    Temp(BufWriter<NamedTempFile>),
    /// A FIFO or device (`/dev/stdout`, `/dev/null`) cannot be replaced: written to.
    Direct(BufWriter<File>),
}

impl AtomicFile {
    /// Starts writing `path`. An existing file keeps its place (and its permissions
    /// once replaced) until `commit`; a symbolic link is kept and the file it names is
    /// replaced.
    pub(crate) fn create(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let path = path.as_ref();
        let target = match fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            }
            _ => path.to_path_buf(),
        };
        let existing = match fs::metadata(&target) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let inner = match existing {
            Some(m) if m.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                ));
            }
            Some(m) if !m.is_file() => Inner::Direct(BufWriter::new(
                fs::OpenOptions::new().write(true).open(&target)?,
            )),
            existing => {
                let temp = temp_beside(&target)?;
                if let Some(m) = existing {
                    temp.as_file().set_permissions(m.permissions())?;
                }
                Inner::Temp(BufWriter::with_capacity(64 * 1024, temp))
            }
        };
        Ok(AtomicFile { target, inner })
    }

    /// Puts the written content in place: flushed, synced, renamed over the target,
    /// and the rename synced.
    pub(crate) fn commit(self) -> io::Result<()> {
        match self.inner {
            Inner::Direct(mut file) => file.flush(),
            Inner::Temp(file) => {
                let temp = file.into_inner().map_err(io::IntoInnerError::into_error)?;
                temp.as_file().sync_all()?;
                temp.persist(&self.target).map_err(|e| e.error)?;
                sync_dir(&self.target)
            }
        }
    }
}

/// The longest NAME in a temporary file's name: with the dots, six random characters
/// and the suffix, a name of 255 bytes, the most most file systems take.
const MAX_TEMP_NAME: usize = 255 - ".".len() - ".".len() - 6 - ".toolsift-tmp".len();

/// `.NAME.XXXXXX.toolsift-tmp` in the target's directory: the same file system, so the
/// rename is atomic, and hidden, so a directory walk skips it. A NAME too long for
/// that is cut (the target keeps its whole name).
fn temp_beside(target: &Path) -> io::Result<NamedTempFile> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target.file_name().unwrap_or_default();
    let mut prefix = OsString::from(".");
    if name.len() <= MAX_TEMP_NAME {
        prefix.push(name);
    } else {
        let name = name.to_string_lossy();
        let mut end = MAX_TEMP_NAME;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        prefix.push(&name[..end]);
    }
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".toolsift-tmp");
    // A new file gets the mode `File::create` gives (0666 less the umask), not 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// The rename is durable once the directory is synced.
#[cfg(unix)]
fn sync_dir(target: &Path) -> io::Result<()> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_target: &Path) -> io::Result<()> {
    Ok(())
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Temp(f) => f.write(buf),
            Inner::Direct(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Temp(f) => f.write_all(buf),
            Inner::Direct(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Temp(f) => f.flush(),
            Inner::Direct(f) => f.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn nothing_is_in_place_before_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("out.jsonl");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new\n").unwrap();
        f.flush().unwrap();
        assert!(!path.exists());
        let temps = names(tmp.path());
        assert_eq!(temps.len(), 1);
        assert!(
            temps[0].starts_with(".out.jsonl.") && temps[0].ends_with(".toolsift-tmp"),
            "{temps:?}"
        );
        f.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        assert_eq!(names(tmp.path()), ["out.jsonl"]);
    }

    #[test]
    fn a_name_near_the_longest_a_file_may_have_is_written() {
        // The temporary name beside it is longer than the name: it is cut, in a
        // character (é is two bytes, the cut falls inside one).
        let tmp = tempfile::tempdir().unwrap();
        let name = format!("{}{}.json", "a".repeat(232), "é".repeat(5));
        assert_eq!(name.len(), 247);
        let path = tmp.path().join(&name);
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new\n").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        assert_eq!(names(tmp.path()), [name]);
    }

    #[test]
    fn commit_replaces_and_keeps_permissions() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("out.jsonl");
        fs::write(&path, b"old\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        }
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"old\n");
        f.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_usual_mode_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let plain = tmp.path().join("plain");
        File::create(&plain).unwrap();
        let path = tmp.path().join("out.jsonl");
        AtomicFile::create(&path).unwrap().commit().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&plain));
    }

    #[test]
    fn dropped_without_commit_leaves_the_old_file_and_no_temp() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("out.jsonl");
        fs::write(&path, b"old\n").unwrap();
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(&vec![b'x'; 200_000]).unwrap();
        assert_eq!(names(tmp.path()).len(), 2);
        drop(f);
        assert_eq!(fs::read(&path).unwrap(), b"old\n");
        assert_eq!(names(tmp.path()), ["out.jsonl"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_kept_and_its_file_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.jsonl");
        let link = tmp.path().join("link.jsonl");
        fs::write(&real, b"old\n").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"new\n").unwrap();
        f.commit().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_to_not_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("note: mkfifo not available; FIFO check skipped");
            return;
        }
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || fs::read(fifo).unwrap()
        });
        let mut f = AtomicFile::create(&fifo).unwrap();
        f.write_all(b"through\n").unwrap();
        f.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"through\n");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let e = AtomicFile::create(tmp.path()).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
    }
}
