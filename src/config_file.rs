//! Files named as configuration (contracts, dialect files, and the schemas a contract's
//! `$ref` names): regular files of bounded size, opened so that a FIFO cannot block
//! the run and a device cannot fill memory.

use std::io::Read;
use std::path::Path;

/// The largest configuration file read.
pub(crate) const MAX_SIZE: u64 = 16 << 20;

/// The file's text, or why it is refused (the reason only; the caller names the file).
pub(crate) fn read(path: &Path) -> Result<String, String> {
    let reason = |e: std::io::Error| crate::diag::without_os_error(&e.to_string());
    // Checked before opening: opening a FIFO for reading waits for a writer.
    if !std::fs::metadata(path).map_err(reason)?.is_file() {
        return Err("not a regular file".into());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Should it have become a FIFO since, the open does not wait either.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(reason)?;
    if !file.metadata().map_err(reason)?.is_file() {
        return Err("not a regular file".into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(reason)?;
    if bytes.len() as u64 > MAX_SIZE {
        return Err(format!("larger than {} MiB", MAX_SIZE >> 20));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()))
}
