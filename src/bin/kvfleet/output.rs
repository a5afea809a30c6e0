//! The CLI's output: standard output and files ("-" is standard output), and the messages
//! of failed writes.

use std::fs::File;
use std::io::{BufWriter, Write};

/// What a write to standard output that was closed (`kvfleet ... | head`) fails with:
/// the CLI then stops quietly.
pub(crate) const CLOSED_PIPE: &str = "standard output was closed";

/// Maps a write error on `path` ("-" is standard output) to its message.
pub(crate) fn write_error(path: &str) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CLOSED_PIPE.to_string()
        } else if path == "-" {
            format!("cannot write to standard output: {e}")
        } else {
            format!("cannot write {path}: {e}")
        }
    }
}

/// Writes `text` to standard output.
pub(crate) fn print(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(write_error("-"))
}

/// A file to write, or standard output for "-".
pub(crate) fn create(path: &str) -> Result<Box<dyn Write>, String> {
    if path == "-" {
        return Ok(Box::new(std::io::stdout()));
    }
    let file = File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?;
    Ok(Box::new(BufWriter::new(file)))
}
