//! Predictable Rust names for manifest names: `keyword-ranks` becomes module `keyword_ranks`, method
//! `keyword_ranks` and type `KeywordRanks` (the engine's `host_manifest::names`, which its `rust-name`
//! rule checks for collisions); Rust keywords become raw identifiers.

use proc_macro2::{Ident, Span};

/// Words that cannot be identifiers even as raw identifiers; they get a trailing `_`.
const NOT_RAW: [&str; 5] = ["self", "Self", "super", "crate", "extern"];

/// Rust's reserved words (2024 edition), which become raw identifiers.
const KEYWORDS: [&str; 50] = [
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen", "union", "raw", "safe",
];

pub(crate) use host_manifest::names::{camel, snake};

/// An identifier that is always valid: keywords become raw identifiers, the few words that cannot be
/// raw get a trailing `_`, and a leading digit gets a leading `_`.
pub(crate) fn ident(text: &str) -> Ident {
    let mut text = if text.is_empty() {
        "_".to_owned()
    } else {
        text.to_owned()
    };
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        text.insert(0, '_');
    }
    if NOT_RAW.contains(&text.as_str()) {
        text.push('_');
    }
    if KEYWORDS.contains(&text.as_str()) {
        Ident::new_raw(&text, Span::call_site())
    } else {
        Ident::new(&text, Span::call_site())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_predictably() {
        assert_eq!(snake("keyword-ranks"), "keyword_ranks");
        assert_eq!(snake("rank.dropped"), "rank_dropped");
        assert_eq!(snake("listExperiments"), "list_experiments");
        assert_eq!(snake("install.token_rotated"), "install_token_rotated");
        assert_eq!(camel("keyword.set_changed"), "KeywordSetChanged");
        assert_eq!(camel("average_rank"), "AverageRank");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(ident("ranks").to_string(), "ranks");
        assert_eq!(ident("9lives").to_string(), "_9lives");
    }
}
