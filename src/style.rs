//! Colour for human output (`--color`): paths in magenta and line numbers in green, as
//! ripgrep shows them, dialect names in magenta and table headers in bold. Styles wrap
//! text that is already escaped, so colour never lets input restyle the output.

use crate::cli::ColorWhen;
use anstyle::{AnsiColor, Style};

/// Whether to style, decided once per output.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Paint {
    on: bool,
}

/// Where a human output goes, for `--color auto`.
pub(crate) enum Stream {
    Stdout,
    Stderr,
    /// A file (`-o`): never a terminal.
    File,
}

impl Paint {
    /// `auto` styles only a terminal, and follows `NO_COLOR` and `CLICOLOR_FORCE`.
    pub(crate) fn new(when: ColorWhen, stream: Stream) -> Paint {
        use anstream::{AutoStream, ColorChoice};
        let choice = match (when, stream) {
            (ColorWhen::Always, _) => ColorChoice::Always,
            (ColorWhen::Never, _) => ColorChoice::Never,
            (ColorWhen::Auto, Stream::Stdout) => AutoStream::choice(&std::io::stdout()),
            (ColorWhen::Auto, Stream::Stderr) => AutoStream::choice(&std::io::stderr()),
            // Still forced by CLICOLOR_FORCE, as for a pipe.
            (ColorWhen::Auto, Stream::File) => AutoStream::choice(&Vec::<u8>::new()),
        };
        Paint {
            on: choice != ColorChoice::Never,
        }
    }

    fn apply(&self, style: Style, text: &str) -> String {
        if self.on {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_owned()
        }
    }

    pub(crate) fn path(&self, text: &str) -> String {
        self.apply(AnsiColor::Magenta.on_default(), text)
    }

    pub(crate) fn line(&self, line: u64) -> String {
        self.apply(AnsiColor::Green.on_default(), &line.to_string())
    }

    pub(crate) fn header(&self, text: &str) -> String {
        self.apply(Style::new().bold(), text)
    }
}
