//! Human output: each diagnostic as a rustc-style snippet (rendered by `annotate-snippets`, the
//! renderer rustc and cargo use) showing the offending line with a caret, then a summary line.

use std::ops::Range;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use host_manifest::{Diagnostic, Report, Severity};

/// Renders every diagnostic of `report` and a closing summary.
pub(crate) fn human(report: &Report, file: &str, styled: bool) -> String {
    let renderer = if styled {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for d in report.diagnostics() {
        out.push_str(&renderer.render(&[group(report.text(), file, d)]));
        out.push_str("\n\n");
    }
    out.push_str(&summary(report, file));
    out.push('\n');
    out
}

fn group<'a>(text: &'a str, file: &'a str, d: &'a Diagnostic) -> annotate_snippets::Group<'a> {
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let line_text = text
        .split('\n')
        .nth(d.line.saturating_sub(1))
        .unwrap_or("")
        .trim_end_matches('\r');
    let span = token_span(line_text, d.column);
    let label = if d.pointer.is_empty() {
        "here".to_owned()
    } else {
        d.pointer.clone()
    };
    level
        .primary_title(d.message.as_str())
        .id(d.rule.name())
        .element(
            Snippet::source(line_text)
                .line_start(d.line)
                .path(file)
                .annotation(AnnotationKind::Primary.span(span).label(label)),
        )
}

/// The byte range of the JSON token starting at a 1-based character column of `line`: a whole string
/// or scalar, or the opening bracket of an object or array.
fn token_span(line: &str, column: usize) -> Range<usize> {
    let start = line
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    let len = if rest.starts_with('"') {
        let mut escaped = false;
        rest.char_indices()
            .skip(1)
            .find(|&(_, c)| {
                let end = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                end
            })
            .map_or(rest.len(), |(i, _)| i + 1)
    } else if rest.starts_with(['{', '[']) {
        1
    } else {
        rest.find([',', '}', ']', ' ']).unwrap_or(rest.len())
    };
    start..start + len.max(usize::from(!rest.is_empty()))
}

fn summary(report: &Report, file: &str) -> String {
    let errors = report.errors().count();
    let warnings = report.warnings().count();
    let plural = |n: usize, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    if errors == 0 {
        if warnings == 0 {
            format!("{file} is valid")
        } else {
            format!("{file} is valid, with {}", plural(warnings, "warning"))
        }
    } else {
        format!(
            "{file} is invalid: {}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::token_span;

    #[test]
    fn spans_cover_whole_tokens() {
        let line = r#"    "slot": "kpi-row", "n": 12 }"#;
        assert_eq!(&line[token_span(line, 5)], r#""slot""#);
        assert_eq!(&line[token_span(line, 13)], r#""kpi-row""#);
        assert_eq!(&line[token_span(line, 29)], "12");
        assert_eq!(token_span("", 1), 0..0);
        assert_eq!(&line[token_span(line, 500)], "");
        let escaped = r#""a\"b" x"#;
        assert_eq!(&escaped[token_span(escaped, 1)], r#""a\"b""#);
    }
}
