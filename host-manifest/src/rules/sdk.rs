//! The `sdk` range: npm's range grammar, admitting at least one version of the served major.
//!
//! `nodejs-semver` decides which versions a range admits, but it parses leniently (it reads
//! `version 2` as a range), so the text is first held to the grammar of npm's semver documentation by
//! the small recognizer below.

use nodejs_semver::Range;

use super::Ctxt;
use crate::catalogue::SERVED_MAJOR;
use crate::diagnostic::Rule;

/// Why an `sdk` value is refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SdkProblem {
    NotARange,
    ExcludesServedMajor,
}

/// Checks one `sdk` value.
pub(crate) fn sdk_problem(text: &str) -> Option<SdkProblem> {
    if !is_npm_range(text) {
        return Some(SdkProblem::NotARange);
    }
    let Ok(range) = Range::parse(text.trim()) else {
        return Some(SdkProblem::NotARange);
    };
    // `<3.0.0-0` keeps 3.0.0's prereleases out of the served major.
    let served = Range::parse(format!(">={SERVED_MAJOR}.0.0 <{}.0.0-0", SERVED_MAJOR + 1)).ok()?;
    (!range.allows_any(&served)).then_some(SdkProblem::ExcludesServedMajor)
}

/// Whether `text` follows npm's range grammar: `||`-separated sets of space-separated comparators
/// (`>=1.2.3`, `^2`, `~2.1`, `2.x`, `*`) or one hyphen range (`1.2.3 - 2.3.4`).
fn is_npm_range(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty()
        && text.split("||").all(|set| {
            let set = set.trim();
            if set.is_empty() {
                return true; // npm reads an empty set as `*`
            }
            if let Some((lo, hi)) = set.split_once(" - ") {
                return is_partial(lo.trim()) && is_partial(hi.trim());
            }
            let mut tokens = set.split_whitespace();
            while let Some(token) = tokens.next() {
                // npm accepts a space between an operator and its version: `>= 1.2.3`.
                let joined;
                let token = if matches!(token, ">" | "<" | ">=" | "<=" | "=" | "~" | "^") {
                    match tokens.next() {
                        Some(next) => {
                            joined = format!("{token}{next}");
                            joined.as_str()
                        }
                        None => return false,
                    }
                } else {
                    token
                };
                let version = [">=", "<=", ">", "<", "=", "~", "^"]
                    .iter()
                    .find_map(|op| token.strip_prefix(op))
                    .unwrap_or(token);
                if !is_partial(version) {
                    return false;
                }
            }
            true
        })
}

/// `v? xr ( . xr ( . xr qualifier? )? )?` where `xr` is `x`, `X`, `*` or a number without leading zeros.
fn is_partial(text: &str) -> bool {
    let text = text.strip_prefix('v').unwrap_or(text);
    let (core, build) = match text.split_once('+') {
        Some((c, b)) => (c, Some(b)),
        None => (text, None),
    };
    let (core, pre) = match core.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (core, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let xr = |p: &&str| {
        matches!(*p, "x" | "X" | "*")
            || (!p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0')))
    };
    let ident = |s: &str| {
        s.split('.').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
    };
    (1..=3).contains(&parts.len())
        && parts.iter().all(xr)
        && (pre.is_none() && build.is_none() || parts.len() == 3)
        && pre.is_none_or(ident)
        && build.is_none_or(ident)
}

/// `sdk` must parse as an npm semver range that admits some `2.x.y`.
pub(crate) fn check_sdk_range(cx: &mut Ctxt<'_>) {
    let Some(text) = cx.str("/sdk") else { return };
    let shown = crate::schema::clip(text);
    let message = match sdk_problem(text) {
        None => return,
        Some(SdkProblem::NotARange) => format!(
            "`{shown}` is not an npm semver range; write one such as `^{SERVED_MAJOR}.0.0`, `~{SERVED_MAJOR}.1` or `>=1.4.0 <3.0.0`"
        ),
        Some(SdkProblem::ExcludesServedMajor) => format!(
            "`{shown}` admits no {SERVED_MAJOR}.x version, and the host serves SDK major {SERVED_MAJOR}; use `^{SERVED_MAJOR}.0.0`"
        ),
    };
    cx.error(Rule::SdkRange, "/sdk", message);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn npm_ranges_admitting_major_2_pass() {
        for ok in [
            "^2.0.0",
            "~2.1",
            "2.x",
            ">=1.4.0 <3.0.0",
            "1.2.3 - 2.3.4",
            "^1 || ^2",
            "2",
            "*",
            "2.1.0",
            ">= 2.0.0",
            "v2.0.0",
            "2.0.0-beta.1 || ^2",
            "2.X.x",
        ] {
            assert_eq!(sdk_problem(ok), None, "{ok}");
        }
    }

    #[test]
    fn ranges_excluding_major_2_fail() {
        for bad in [
            "^1.0.0",
            ">=3.0.0",
            "<2.0.0",
            "~1.9",
            "^3 || ^4",
            "3.0.0-beta.1",
        ] {
            assert_eq!(
                sdk_problem(bad),
                Some(SdkProblem::ExcludesServedMajor),
                "{bad}"
            );
        }
    }

    #[test]
    fn text_that_is_not_a_range_fails() {
        for bad in [
            "version 2",
            "latest",
            "^^2",
            "2.0.0.0",
            "02.1",
            "2.1-beta",
            ">=",
            "2 || version 3",
            " ",
        ] {
            assert_eq!(sdk_problem(bad), Some(SdkProblem::NotARange), "{bad}");
        }
    }

    #[test]
    fn the_rule_reports_at_sdk() {
        assert!(run_rule(&base(), check_sdk_range).is_empty());
        let mut doc = base();
        set(&mut doc, "/sdk", json!("^1.0.0"));
        assert_eq!(
            run_rule(&doc, check_sdk_range),
            vec![(Rule::SdkRange, "/sdk".into())]
        );
    }
}
