//! The files a command reads: each argument as given, a directory by its regular files.
//!
//! A directory is walked recursively in path order, entries whose name starts with `.`
//! skipped. Only regular files come out of a walk: a FIFO, socket or device inside a
//! directory is skipped, never opened (opening a FIFO would block the run); named as
//! an argument, it is read. Symbolic links inside a
//! directory, to files or directories, are skipped unless `follow` is set; with it,
//! a link that loops back to a directory being walked is reported once as a warning,
//! every directory is walked once however many links lead to it, and every file comes
//! out once. A directory named as an argument is walked even when it is a link.
//!
//! A file is read once however it is reached: named twice, listed (`--files-from`)
//! and named, named and found in a directory, or by two hard links. The first path in
//! order is kept. `--shard I/N` then keeps the files whose path hashes to shard I.

use crate::diag::Diag;
use crate::diag::io_reason;
use std::collections::HashSet;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// What a file is, whatever the path it is reached by: device and inode on unix, the
/// canonical path elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FileId(Inner);

#[cfg(unix)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Inner(u64, u64);

#[cfg(not(unix))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Inner(PathBuf);

impl FileId {
    /// The file `path` names, through symbolic links.
    pub(crate) fn of(path: &Path) -> io::Result<FileId> {
        let meta = std::fs::metadata(path)?;
        FileId::from_metadata(path, &meta)
    }

    #[cfg(unix)]
    fn from_metadata(_path: &Path, meta: &Metadata) -> io::Result<FileId> {
        use std::os::unix::fs::MetadataExt;
        Ok(FileId(Inner(meta.dev(), meta.ino())))
    }

    #[cfg(not(unix))]
    fn from_metadata(path: &Path, _meta: &Metadata) -> io::Result<FileId> {
        Ok(FileId(Inner(std::fs::canonicalize(path)?)))
    }
}

/// How directories are walked.
#[derive(Clone, Debug, Default)]
pub(crate) struct WalkOptions {
    /// Follow symbolic links inside directories.
    pub(crate) follow: bool,
    /// Files a walk never yields (an output file inside a directory being read).
    pub(crate) exclude: HashSet<FileId>,
    /// `--exclude` globs: a file or directory found in a walk whose name or path
    /// relative to the directory argument matches one is not read (a directory not
    /// entered). Files named as arguments are always read.
    pub(crate) globs: Option<globset::GlobSet>,
}

/// The `--exclude` patterns as one matcher; `None` for none. A pattern without a `/`
/// matches a name at any depth (`*.orig`), one with a `/` the path relative to the
/// directory argument (`drafts/**`).
pub(crate) fn exclude_globs(patterns: &[String]) -> anyhow::Result<Option<globset::GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = globset::GlobSetBuilder::new();
    for p in patterns {
        let glob = globset::GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|e| anyhow::anyhow!("--exclude '{p}': {}", e.kind()))?;
        set.add(glob);
    }
    Ok(Some(set.build()?))
}

/// Whether a walked entry is excluded by the globs (its name, or its path relative to
/// the directory argument).
fn excluded(globs: &globset::GlobSet, root: &Path, path: &Path) -> bool {
    path.file_name().is_some_and(|name| globs.is_match(name))
        || path.strip_prefix(root).is_ok_and(|rel| globs.is_match(rel))
}

/// A file to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Walked {
    /// The path to open: an argument as given, or a directory argument joined with the
    /// file's path inside it.
    pub(crate) path: PathBuf,
    /// The directory argument the file was found in (for paths relative to it); `None`
    /// for an argument that named the file itself.
    pub(crate) root: Option<PathBuf>,
}

/// Every argument in order: a directory by its files, anything else as given (`-`,
/// a FIFO or `/dev/stdin` named by the user are kept). A file reached again (named
/// twice, or by another path) is left out. Directories that cannot be read are reported
/// as errors through `diag` and the walk goes on.
pub(crate) fn walk(args: &[PathBuf], opts: &WalkOptions, diag: &Diag) -> Vec<Walked> {
    let mut out = Vec::new();
    let mut seen_dirs = HashSet::new();
    let mut seen_files = HashSet::new();
    for arg in args {
        if arg.as_os_str() != "-" && arg.is_dir() {
            walk_dir(arg, opts, diag, &mut seen_dirs, &mut seen_files, &mut out);
        } else {
            // A path that holds nothing is kept: opening it says why.
            if arg.as_os_str() != "-"
                && let Ok(id) = FileId::of(arg)
                && !seen_files.insert(id)
            {
                continue;
            }
            out.push(Walked {
                path: arg.clone(),
                root: None,
            });
        }
    }
    out
}

/// What a file's shard is decided by: its path relative to the directory argument it
/// was found in, or the path as given for a file named or listed, `/`-separated and
/// without `.` components, so that every machine, wherever the tree is mounted, puts a
/// file in one shard.
pub(crate) fn shard_key(walked: &Walked) -> Vec<u8> {
    use std::path::Component;
    let path = match &walked.root {
        Some(root) => walked.path.strip_prefix(root).unwrap_or(&walked.path),
        None => walked.path.as_path(),
    };
    let mut key = Vec::new();
    for (i, part) in path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .enumerate()
    {
        if i > 0 && !key.ends_with(b"/") {
            key.push(b'/');
        }
        match part {
            Component::RootDir => key.push(b'/'),
            Component::ParentDir => key.extend_from_slice(b".."),
            Component::Normal(name) => key.extend_from_slice(name.as_encoded_bytes()),
            Component::Prefix(p) => key.extend_from_slice(p.as_os_str().as_encoded_bytes()),
            Component::CurDir => {}
        }
    }
    key
}

/// Whether a file is in shard `index` (1-based) of `count`: XXH3-64 of its
/// [`shard_key`], modulo `count`, is `index - 1`.
pub(crate) fn in_shard(walked: &Walked, index: u64, count: u64) -> bool {
    xxhash_rust::xxh3::xxh3_64(&shard_key(walked)) % count == index - 1
}

/// The paths of a `--files-from` list: separated by NUL bytes (`null`) or line breaks,
/// empty ones (a trailing separator, blank lines) skipped.
pub(crate) fn parse_list(bytes: &[u8], null: bool) -> Vec<PathBuf> {
    let separator = if null { b'\0' } else { b'\n' };
    bytes
        .split(|&b| b == separator)
        .filter(|entry| !entry.is_empty())
        .map(path_of_bytes)
        .collect()
}

#[cfg(unix)]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

fn is_hidden(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0 && entry.file_name().as_encoded_bytes().starts_with(b".")
}

fn walk_dir(
    root: &Path,
    opts: &WalkOptions,
    diag: &Diag,
    seen_dirs: &mut HashSet<FileId>,
    seen_files: &mut HashSet<FileId>,
    out: &mut Vec<Walked>,
) {
    // Sorted by name in each directory, depth first: the order of the paths.
    let mut entries = WalkDir::new(root)
        .follow_links(opts.follow)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            !is_hidden(e)
                && (e.depth() == 0
                    || opts
                        .globs
                        .as_ref()
                        .is_none_or(|g| !excluded(g, root, e.path())))
        });
    while let Some(entry) = entries.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().unwrap_or(root).to_string_lossy().into_owned();
                if let Some(ancestor) = e.loop_ancestor() {
                    // Each directory is walked once, so each looping link is met once.
                    let to = ancestor.to_string_lossy();
                    diag.warn(
                        &path,
                        None,
                        format!("link loops back to {to}; not followed"),
                    );
                } else if opts.follow && e.depth() > 0 && is_not_found(&e) {
                    diag.warn(&path, None, "link to nothing; skipped");
                } else {
                    let reason = e.io_error().map_or_else(|| e.to_string(), io_reason);
                    diag.error(&path, None, reason);
                }
                continue;
            }
        };
        let kind = entry.file_type();
        if kind.is_dir() {
            // Links can lead to a directory by many paths: its files come out once, and
            // a tree of links to links cannot multiply the walk.
            if let Some(id) = id_of(&entry) {
                if !seen_dirs.insert(id) {
                    entries.skip_current_dir();
                }
            }
            continue;
        }
        // Links (when not followed), FIFOs, sockets and devices: never opened, not
        // even looked into (opening a FIFO would block the walk).
        if !kind.is_file() {
            continue;
        }
        if let Some(id) = id_of(&entry) {
            if opts.exclude.contains(&id) || !seen_files.insert(id) {
                continue;
            }
        }
        out.push(Walked {
            path: entry.into_path(),
            root: Some(root.to_path_buf()),
        });
    }
}

/// The entry's identity; `None` when it vanished since it was listed (opening it will
/// say so).
fn id_of(entry: &walkdir::DirEntry) -> Option<FileId> {
    let meta = entry.metadata().ok()?;
    FileId::from_metadata(entry.path(), &meta).ok()
}

fn is_not_found(e: &walkdir::Error) -> bool {
    e.io_error()
        .is_some_and(|io| io.kind() == io::ErrorKind::NotFound)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"{}\n").unwrap();
    }

    /// The walked paths, relative to `base`.
    fn rel(base: &Path, walked: &[Walked]) -> Vec<String> {
        walked
            .iter()
            .map(|w| {
                w.path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    fn walk_one(dir: &Path, follow: bool) -> (Vec<String>, bool) {
        let diag = Diag::new(true);
        let opts = WalkOptions {
            follow,
            ..Default::default()
        };
        let walked = walk(&[dir.to_path_buf()], &opts, &diag);
        (rel(dir, &walked), diag.errored())
    }

    #[test]
    fn files_in_path_order_hidden_ones_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        for f in [
            "b.jsonl",
            "a/z.json",
            "a-b/x.json",
            "a/.hidden.json",
            ".git/config",
        ] {
            touch(&d.join(f));
        }
        let (files, errored) = walk_one(d, false);
        // Component by component: `a/` before `a-b/`, as a sort of the paths gives.
        assert_eq!(files, ["a/z.json", "a-b/x.json", "b.jsonl"]);
        assert!(!errored);
    }

    #[test]
    fn excluded_names_and_paths_are_not_walked_but_named_files_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d");
        for f in [
            "a.json",
            "a.json.orig",
            "drafts/b.json",
            "x/drafts/c.json",
            "x/d.orig",
        ] {
            touch(&d.join(f));
        }
        let opts = WalkOptions {
            globs: exclude_globs(&["*.orig".into(), "drafts/**".into()]).unwrap(),
            ..Default::default()
        };
        let args = [d.clone(), d.join("x/d.orig")];
        let walked = walk(&args, &opts, &Diag::new(true));
        // A name pattern at any depth; a path pattern from the argument; a named file.
        assert_eq!(rel(&d, &walked), ["a.json", "x/drafts/c.json", "x/d.orig"]);
        assert!(exclude_globs(&["a[".into()]).is_err());
    }

    #[test]
    fn arguments_are_kept_as_given_and_rooted() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d");
        touch(&d.join("x.json"));
        let args = [PathBuf::from("-"), d.clone(), PathBuf::from("no/such.json")];
        let walked = walk(&args, &WalkOptions::default(), &Diag::new(true));
        assert_eq!(
            walked,
            [
                Walked {
                    path: "-".into(),
                    root: None
                },
                Walked {
                    path: d.join("x.json"),
                    root: Some(d.clone())
                },
                Walked {
                    path: "no/such.json".into(),
                    root: None
                },
            ]
        );
    }

    #[test]
    fn a_file_named_twice_or_by_a_hard_link_comes_out_once() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d");
        touch(&d.join("a.json"));
        touch(&d.join("b.json"));
        std::fs::hard_link(d.join("a.json"), tmp.path().join("link.json")).unwrap();
        let args = [
            tmp.path().join("link.json"),
            d.join("a.json"),
            d.clone(),
            d.join("b.json"),
            PathBuf::from("-"),
            PathBuf::from("-"),
        ];
        let walked = walk(&args, &WalkOptions::default(), &Diag::new(true));
        let paths: Vec<_> = walked.iter().map(|w| w.path.clone()).collect();
        assert_eq!(
            paths,
            [
                tmp.path().join("link.json"),
                d.join("b.json"),
                "-".into(),
                "-".into()
            ]
        );
    }

    #[test]
    fn shard_keys_are_paths_inside_the_argument_or_as_given() {
        let key = |path: &str, root: Option<&str>| {
            String::from_utf8(shard_key(&Walked {
                path: path.into(),
                root: root.map(PathBuf::from),
            }))
            .unwrap()
        };
        assert_eq!(key("/mnt/a/data/x/y.json", Some("/mnt/a/data")), "x/y.json");
        assert_eq!(key("data/x/y.json", Some("data/")), "x/y.json");
        assert_eq!(key("./x/./y.json", None), "x/y.json");
        assert_eq!(key("/abs/y.json", None), "/abs/y.json");
        assert_eq!(key("../y.json", None), "../y.json");
        // The documented function: XXH3-64 of the key, modulo N, is I - 1.
        let w = Walked {
            path: "x/y.json".into(),
            root: None,
        };
        let h = xxhash_rust::xxh3::xxh3_64(b"x/y.json");
        assert!(in_shard(&w, h % 5 + 1, 5));
        assert_eq!((1..=5).filter(|&i| in_shard(&w, i, 5)).count(), 1);
    }

    #[test]
    fn lists_split_on_newlines_or_nul_bytes_empty_entries_skipped() {
        assert_eq!(
            parse_list(b"a.json\n\nb c.json\n", false),
            [PathBuf::from("a.json"), PathBuf::from("b c.json")]
        );
        assert_eq!(
            parse_list(b"two\nlines.json\0b.json\0\0", true),
            [PathBuf::from("two\nlines.json"), PathBuf::from("b.json")]
        );
        assert!(parse_list(b"", false).is_empty());
    }

    #[test]
    fn links_are_skipped_unless_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d");
        let elsewhere = tmp.path().join("elsewhere");
        touch(&d.join("real.json"));
        touch(&elsewhere.join("far.json"));
        symlink(&elsewhere, d.join("to-dir")).unwrap();
        symlink(elsewhere.join("far.json"), d.join("to-file.json")).unwrap();
        symlink(d.join("gone.json"), d.join("dangling.json")).unwrap();
        let (files, errored) = walk_one(&d, false);
        assert_eq!(files, ["real.json"]);
        assert!(!errored);
        // Followed, far.json is reached by two links and comes out once.
        let (files, errored) = walk_one(&d, true);
        assert_eq!(files, ["real.json", "to-dir/far.json"]);
        assert!(!errored, "a link to nothing is a warning");
    }

    #[test]
    fn link_loops_end_and_each_file_comes_out_once() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().join("top");
        let d = top.join("d");
        touch(&d.join("x.json"));
        touch(&d.join("sub/y.json"));
        touch(&top.join("other.json"));
        symlink(".", d.join("a")).unwrap();
        symlink("..", d.join("up")).unwrap();
        symlink("..", d.join("sub/back")).unwrap();
        symlink("../../d", d.join("sub/again")).unwrap();
        let (files, errored) = walk_one(&d, true);
        assert_eq!(files, ["sub/y.json", "up/other.json", "x.json"]);
        assert!(!errored);
        let (files, _) = walk_one(&d, false);
        assert_eq!(files, ["sub/y.json", "x.json"]);
    }

    #[test]
    fn a_tree_of_links_is_walked_once_per_directory() {
        // Two links at each of 40 levels: 2^40 paths, one directory each.
        let tmp = tempfile::tempdir().unwrap();
        let levels = 40;
        for i in 0..levels {
            let dir = tmp.path().join(format!("l{i}"));
            touch(&dir.join("f.json"));
            if i + 1 < levels {
                symlink(format!("../l{}", i + 1), dir.join("x")).unwrap();
                symlink(format!("../l{}", i + 1), dir.join("y")).unwrap();
            }
        }
        let (files, _) = walk_one(&tmp.path().join("l0"), true);
        assert_eq!(files.len(), levels);
    }

    #[test]
    fn special_files_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        touch(&d.join("a.json"));
        let fifo = d.join("b.fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("note: mkfifo not available; FIFO check skipped");
            return;
        }
        let _socket = std::os::unix::net::UnixListener::bind(d.join("c.sock")).unwrap();
        let (files, _) = walk_one(d, false);
        assert_eq!(files, ["a.json"]);
        // A followed link to a FIFO is no regular file either.
        symlink(&fifo, d.join("d.json")).unwrap();
        let (files, _) = walk_one(d, true);
        assert_eq!(files, ["a.json"]);
    }

    #[test]
    fn excluded_files_are_not_walked() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        touch(&d.join("a.json"));
        touch(&d.join("out.jsonl"));
        let opts = WalkOptions {
            follow: false,
            exclude: HashSet::from([FileId::of(&d.join("out.jsonl")).unwrap()]),
            globs: None,
        };
        let walked = walk(&[d.to_path_buf()], &opts, &Diag::new(true));
        assert_eq!(rel(d, &walked), ["a.json"]);
    }

    #[test]
    fn an_unreadable_directory_is_an_error_and_the_walk_goes_on() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        touch(&d.join("a/x.json"));
        touch(&d.join("b/y.json"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("a"), std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable = std::fs::read_dir(d.join("a")).is_ok();
        let (files, errored) = walk_one(d, false);
        std::fs::set_permissions(d.join("a"), std::fs::Permissions::from_mode(0o755)).unwrap();
        if readable {
            eprintln!("note: running as root; unreadable-directory check skipped");
            return;
        }
        assert_eq!(files, ["b/y.json"]);
        assert!(errored);
    }
}
