//! Output of every command: colors on a terminal (`--color`, `NO_COLOR`), the `✓`/`✗` marks,
//! one-line `error:`/`warning:`/`note:` messages on stderr, `--format`, and small formatters shared
//! by the commands.
//!
//! It sits below every command (the local host's included) and names none of them.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use serde_json::Value;

/// `--color`: when to color output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `--format`: for people, or one JSON object per line for scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Human,
    Json,
}

/// Whether stdout and stderr get colors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    /// Color stdout.
    pub out: bool,
    /// Color stderr.
    pub err: bool,
}

const GREEN: &str = "32";
const RED: &str = "31";
const YELLOW: &str = "33";
const CYAN: &str = "36";
const DIM: &str = "2";
const BOLD: &str = "1";

impl Term {
    /// Resolves `--color` against the terminals and `NO_COLOR`.
    pub(crate) fn new(choice: ColorChoice) -> Term {
        let auto = |tty: bool| tty && std::env::var_os("NO_COLOR").is_none();
        match choice {
            ColorChoice::Always => Term {
                out: true,
                err: true,
            },
            ColorChoice::Never => Term {
                out: false,
                err: false,
            },
            ColorChoice::Auto => Term {
                out: auto(std::io::stdout().is_terminal()),
                err: auto(std::io::stderr().is_terminal()),
            },
        }
    }

    /// `text` in the SGR style `code` when stdout is colored.
    pub(crate) fn paint(&self, code: &str, text: &str) -> String {
        paint(self.out, code, text)
    }

    /// A green `✓`.
    pub(crate) fn ok(&self) -> String {
        self.paint(GREEN, "✓")
    }

    /// A red `✗`.
    pub(crate) fn bad(&self) -> String {
        self.paint(RED, "✗")
    }

    /// A yellow `↺` (a duplicate).
    pub(crate) fn again(&self) -> String {
        self.paint(YELLOW, "↺")
    }

    /// Dimmed text (timings, ids).
    pub(crate) fn dim(&self, text: &str) -> String {
        self.paint(DIM, text)
    }

    /// A status code, green for 2xx and red otherwise.
    pub(crate) fn status(&self, status: u16) -> String {
        let code = if (200..300).contains(&status) {
            GREEN
        } else {
            RED
        };
        self.paint(code, &status.to_string())
    }

    /// `error: <message>` on stderr.
    pub(crate) fn error(&self, message: &str) {
        eprintln!("{} {message}", paint(self.err, RED, "error:"));
    }

    /// `warning: <message>` on stderr.
    pub(crate) fn warning(&self, message: &str) {
        eprintln!("{} {message}", paint(self.err, YELLOW, "warning:"));
    }

    /// `note: <message>` on stderr.
    pub(crate) fn note(&self, message: &str) {
        eprintln!("{} {message}", paint(self.err, CYAN, "note:"));
    }

    /// Bold text on stdout.
    pub(crate) fn bold(&self, text: &str) -> String {
        self.paint(BOLD, text)
    }
}

fn paint(on: bool, code: &str, text: &str) -> String {
    if on {
        format!("\u{1b}[{code}m{text}\u{1b}[0m")
    } else {
        text.to_owned()
    }
}

/// Prints a line on stdout and flushes, ignoring a closed pipe.
pub(crate) fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// `12 ms`.
pub(crate) fn millis(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// A wait as people read it: `10m 0s`, `30s`, `4.3s`, `50 ms`.
pub(crate) fn wait(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        if ms.is_multiple_of(1000) {
            format!("{}s", ms / 1000)
        } else {
            format!("{:.1}s", d.as_secs_f64())
        }
    } else {
        let s = d.as_secs();
        format!("{}m {}s", s / 60, s % 60)
    }
}

/// The error an answer body carries (`{"error": {"code", "message"}}`): `(code, message)`.
pub(crate) fn d3_error(json: Option<&Value>) -> Option<(String, String)> {
    let error = json?.get("error")?.as_object()?;
    let code = error.get("code")?.as_str()?;
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    Some((code.to_owned(), message.to_owned()))
}

/// Pretty JSON, each line indented by `indent` spaces.
pub(crate) fn indented(value: &Value, indent: usize) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    let pad = " ".repeat(indent);
    text.lines()
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A body that is not JSON, shown as text and cut at 2,000 characters.
pub(crate) fn raw_body(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut cut: String = text.chars().take(2000).collect();
    if cut.len() < text.len() {
        cut.push_str(&format!(" ... ({} bytes in all)", body.len()));
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_read_naturally() {
        assert_eq!(wait(Duration::from_millis(50)), "50 ms");
        assert_eq!(wait(Duration::from_secs(30)), "30s");
        assert_eq!(wait(Duration::from_millis(4286)), "4.3s");
        assert_eq!(wait(Duration::from_secs(120)), "2m 0s");
        assert_eq!(wait(Duration::from_secs(600)), "10m 0s");
    }

    #[test]
    fn d3_errors_are_read_from_bodies() {
        let body = serde_json::json!({ "error": { "code": "INPUT_INVALID", "message": "bad" } });
        assert_eq!(
            d3_error(Some(&body)),
            Some(("INPUT_INVALID".into(), "bad".into()))
        );
        assert_eq!(d3_error(Some(&serde_json::json!({ "error": "x" }))), None);
        assert_eq!(d3_error(None), None);
    }

    #[test]
    fn plain_output_has_no_escapes() {
        let t = Term {
            out: false,
            err: false,
        };
        assert_eq!(t.ok(), "✓");
        assert_eq!(t.status(204), "204");
        let c = Term {
            out: true,
            err: true,
        };
        assert!(c.bad().contains('\u{1b}'));
    }
}
