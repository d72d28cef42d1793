//! The progress bar of a run over several files.

use std::io::{self, IsTerminal};
use std::time::Duration;

/// A progress bar on stderr when it is a terminal and there is more than one file:
/// as wide as the terminal, the time left shown once it means something.
pub(super) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub(super) fn new(files: usize) -> Progress {
        if files < 2 || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(files as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} {pos}/{len} files [{wide_bar}] {elapsed}{msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix("converting");
        Progress(Some(bar))
    }

    pub(super) fn inc(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
            // The estimate means something after a few files and a second or two.
            if bar.position() >= 3 && bar.elapsed() >= Duration::from_secs(2) {
                bar.set_message(format!(", {} left", indicatif::HumanDuration(bar.eta())));
            }
        }
    }

    /// Runs `f` (which prints to stderr) with the bar out of the way.
    pub(super) fn suspend(&self, f: impl FnOnce()) {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
